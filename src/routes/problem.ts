/** Rendering of errors as RFC 9457 problem details. The one place a problem body is shaped. */
import type { FastifyReply } from 'fastify';
import type { ApiError, FieldError } from '../errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
}

export function problemBody(error: ApiError): ProblemBody {
  const body: ProblemBody = { type: `urn:lidar-sensor:problem:${error.type}`, title: error.title, status: error.status, detail: error.detail };
  if (error.errors?.length) body.errors = error.errors;
  return body;
}

export function sendProblem(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problemBody(error)));
}
