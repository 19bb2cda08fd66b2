/**
 * Turns every failure into problem+json: ApiErrors from the core, Fastify's schema validation and
 * body-parsing errors, and anything unexpected (a 500 that never shows a stack trace).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import {
  ApiError,
  type FieldError,
  type ProblemType,
  type StorageCause,
  storageCauseOf,
  storageProblem,
} from '../../model/index.js';
import { sendProblem } from './problem.js';

const TYPE_BY_STATUS: Record<number, ProblemType> = {
  400: 'bad-request',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  409: 'conflict',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  431: 'headers-too-large',
  503: 'unavailable',
};

/** Fastify's own messages, reworded where they would confuse a sensor user. */
function describeFastifyError(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is larger than this endpoint accepts';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `unsupported Content-Type; ${error.message}`;
    default:
      return error.message;
  }
}

function validationErrors(error: FastifyError): FieldError[] {
  const where =
    error.validationContext === 'querystring' ? '/query' : error.validationContext === 'params' ? '/path' : '';
  return (error.validation ?? []).map((v) => {
    const params = v.params as Record<string, unknown>;
    const missing = typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
    const extra = typeof params.additionalProperty === 'string' ? `/${params.additionalProperty}` : '';
    const allowed = Array.isArray(params.allowedValues)
      ? `: one of ${params.allowedValues.map((a) => JSON.stringify(a)).join(', ')}`
      : '';
    const detail = extra ? 'is not a known parameter here' : `${v.message ?? 'is invalid'}${allowed}`;
    return { pointer: `${where}${v.instancePath}${missing}${extra}`, detail };
  });
}

export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const cause = storageCauseOf(error);
  if (cause) {
    const { code, hint } = error as { code: string; hint?: unknown };
    return storageProblem(cause, code, typeof hint === 'string' ? hint : undefined);
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors = validationErrors(fastifyError);
    return new ApiError('bad-request', errors.map((e) => `${e.pointer || 'body'}: ${e.detail}`).join('; '), errors);
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(TYPE_BY_STATUS[status] ?? 'bad-request', describeFastifyError(fastifyError));
  }
  return undefined;
}

/** `onStorageRefusal`: told of each write the unit's storage refused (the unit's storage state). */
export function installErrorHandler(
  app: FastifyInstance,
  onStorageRefusal?: (cause: StorageCause, code: string) => void,
): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) {
      const cause = storageCauseOf(error);
      if (cause) onStorageRefusal?.(cause, (error as { code: string }).code);
      // 503 while (re)initializing is an expected state, not a fault: only real failures are errors in the log.
      if (apiError.type === 'internal') request.log.error({ err: error, reqId: request.id }, apiError.detail);
      return sendProblem(reply, apiError);
    }
    request.log.error({ err: error, reqId: request.id }, 'unexpected error');
    return sendProblem(
      reply,
      new ApiError('internal', 'the sensor failed to handle this request; the error is in its log'),
    );
  });
}
