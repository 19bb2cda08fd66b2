/**
 * Requests Fastify's router refuses before any route or hook runs (a path segment longer than the
 * router's parameter limit, percent-encoding that does not decode) get the project's problem body
 * instead of Fastify's own `{"error":…}` shape, like every other refusal.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, badRequest, shorten } from '../../model/index.js';
import { sendProblem } from './problem.js';

/** Fastify's `maxParamLength`: the longest path parameter its router matches (a longer one is 414). */
export const MAX_PATH_PARAMETER_CHARS = 100;

function pathOf(request: FastifyRequest): string {
  return shorten(request.raw.url ?? '');
}

export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(
      reply,
      new ApiError(
        'uri-too-long',
        `a path segment of ${pathOf(request)} is longer than ${MAX_PATH_PARAMETER_CHARS} characters; no resource has such a name`,
      ),
    );
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    sendProblem(reply, badRequest(`the path ${pathOf(request)} is not valid percent-encoding`));
    return;
  }
  sendProblem(reply, badRequest(error.message));
}
