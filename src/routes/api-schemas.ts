/**
 * Schemas shared by the routes: the problem body every error has, the marker for request parts a
 * handler validates itself, and the boolean query flag. Route files hold their own schemas.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { FLAG_VALUES } from './http/query-flags.js';
import { PROBLEM_CONTENT_TYPE } from './http/problem.js';

/**
 * Request parts whose values the device core checks (configuration, user data, PTP profile, …):
 * its messages name the parameter, the valid range and every failing field at once, which a schema
 * validator cannot phrase the same way. Such a schema documents the request and is not compiled
 * into a validator (see validator-compiler.ts); the static type stays `unknown` until the core checks it.
 */
export const HANDLER_VALIDATED = 'x-validated-by-handler';

export function handlerValidated(schema: TSchema) {
  return Type.Unsafe<unknown>({ ...schema, [HANDLER_VALIDATED]: true });
}

export function isHandlerValidated(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  return (schema as Record<string, unknown>)[HANDLER_VALIDATED] === true;
}

// A plain `enum` (not a union of literals) keeps Ajv's one error that lists the allowed values.
export const Flag = (description: string) =>
  Type.Unsafe<(typeof FLAG_VALUES)[number]>({ type: 'string', enum: [...FLAG_VALUES], description });

const FieldErrorSchema = Type.Object({
  pointer: Type.String({ description: 'JSON pointer into the request: the body, or /query/<name>, /path/<name>' }),
  detail: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ pattern: '^urn:lidar-sensor:problem:[a-z-]+$' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { minItems: 1 })),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details; `errors` lists every failing field when there are any',
    additionalProperties: false,
    examples: [
      {
        type: 'urn:lidar-sensor:problem:invalid-configuration',
        title: 'Invalid configuration',
        status: 400,
        detail: 'lidar_mode: must be one of "512x10", "1024x10", "2048x10", "512x20", "1024x20"; got string "999x10"',
        errors: [
          {
            pointer: '/lidar_mode',
            detail: 'must be one of "512x10", "1024x10", "2048x10", "512x20", "1024x20"; got string "999x10"',
          },
        ],
      },
    ],
  },
);

const PROBLEM_MEANING: Record<number, string> = {
  400: 'The request is refused; nothing changed',
  404: 'No such resource',
  409: "The request conflicts with the unit's state or model",
  413: 'The request body is too large',
  415: 'The request body has the wrong Content-Type',
  503: 'The unit is (re)initializing or restarting; retry after Retry-After seconds',
};

/** Problem responses for the given statuses, to spread into a route's `response`. 503 is added to every route. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {};
  for (const status of [...statuses, 503]) {
    responses[status] = Type.Unsafe({
      description: PROBLEM_MEANING[status] ?? 'Error',
      // Real units answer errors as application/json; a client whose Accept asks for problem+json gets that.
      content: {
        'application/json': { schema: Type.Ref('Problem') },
        [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') },
      },
    });
  }
  return responses;
}

// Typed `undefined` so handlers answer with `send()`, as before (no body at all).
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'Done; no body' });

/** A JSON response documented with a description and, optionally, an example answer. */
export const Json = <T extends TSchema>(schema: T, description: string, example?: unknown): T => ({
  ...schema,
  description,
  ...(example === undefined ? {} : { examples: [example] }),
});
