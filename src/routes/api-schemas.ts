/**
 * Schemas shared by the routes: the problem body every error has, request parts checked by rules of
 * their own, and the boolean query flag. Route files hold their own schemas.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { FLAG_VALUES } from './http/query-flags.js';
import { PROBLEM_CONTENT_TYPE } from './http/problem.js';

export {
  ajvSchemaOf,
  checkedBy,
  declaresJsonOnly,
  isByteStream,
  JSON_CONTENT_TYPE_ONLY,
  jsonContentTypeOnly,
  REQUEST_RULES,
  type RequestRules,
  requestRulesOf,
} from './schemas/request-marks.js';

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

/** What each problem status means, as the OpenAPI document says it. A new status needs a line here. */
const PROBLEM_MEANING: Record<number, string> = {
  400: 'The request is refused (an invalid body or parameter, or an unknown query parameter, which is named); nothing changed',
  403: "Refused; nothing changed: the caller's address may not change the unit (--allow-writes-from), or a firmware image is not signed by a trusted key or is older than allowed (the problem type says which)",
  404: 'No such resource',
  408: 'The request body did not arrive in time; the connection is closed',
  409: "The request conflicts with the unit's state or model (e.g. metadata outside RUNNING)",
  413: 'The request body is too large',
  415: 'The request body has a refused Content-Type, charset (JSON is UTF-8) or Content-Encoding',
  429: 'Too many requests; retry after Retry-After seconds',
  503: 'The unit is restarting or cannot take more connections, or its storage failed with an I/O error while writing (type urn:lidar-sensor:problem:storage-io-error: the change may not be stored, read it back), or a file one of its system services owns could not be written (type urn:lidar-sensor:problem:system-file: the detail names the file and why; nothing changed); retry after Retry-After seconds',
  507: "The unit's storage is full or read-only (type urn:lidar-sensor:problem:insufficient-storage): the change was not stored; reads still work, and deleting the user data frees space",
};

/** Statuses every operation can give: an unknown query parameter (400); the unit restarting (503). */
export const COMMON_PROBLEMS: readonly number[] = [400, 503];
/** Statuses every operation with a request body can give. */
export const BODY_PROBLEMS: readonly number[] = [408, 413, 415];
/** Statuses every operation that can write to the unit's storage can give (every method but GET and HEAD). */
export const STORAGE_PROBLEMS: readonly number[] = [507];

/** The header a 503 or 429 carries. */
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

/** One documented problem response (Problem body, as JSON or problem+json). */
export function problemResponse(status: number) {
  return Type.Unsafe({
    description: PROBLEM_MEANING[status] ?? 'Error',
    ...(status === 503 || status === 429 ? { headers: RETRY_AFTER } : {}),
    // Real units answer errors as application/json; a client whose Accept asks for problem+json gets that.
    content: {
      'application/json': { schema: Type.Ref('Problem') },
      [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') },
    },
  });
}

/**
 * Problem responses for the given statuses, to spread into a route's `response`: listing a status for
 * an operation is `...problems(409, 403)`. COMMON_PROBLEMS (and BODY_PROBLEMS for methods with a
 * body) are added to every operation of the document.
 */
export function problems(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = {};
  for (const status of [...statuses, 503]) responses[status] = problemResponse(status);
  return responses;
}

/**
 * Route schema key: the body (and 200 answer) schema for each value of one path parameter, so the
 * document gives each value its own concrete path with its own schema.
 */
export const PER_PATH_VALUE = 'x-per-path-value';
export interface PerPathValue {
  parameter: string;
  schemas: Record<string, Record<string, unknown>>;
}

// Typed `undefined` so handlers answer with a bare `send()` (no body at all).
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'Done; no body' });

/** A JSON response documented with a description and, optionally, an example answer. */
export const Json = <T extends TSchema>(schema: T, description: string, example?: unknown): T => ({
  ...schema,
  description,
  ...(example === undefined ? {} : { examples: [example] }),
});
