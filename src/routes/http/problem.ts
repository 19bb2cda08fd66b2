/** Rendering of errors as RFC 9457 problem details. The one place a problem body is shaped. */
import type { FastifyReply } from 'fastify';
import { type ApiError, type FieldError, MAX_FIELD_ERRORS, shorten } from '../../model/index.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
/** The spec's rule: JSON answers carry `application/json`, errors included, as real units send them. */
export const JSON_CONTENT_TYPE = 'application/json';

/** Longest `detail` and longest field-error text: a client must not choose the size of an error. */
const MAX_DETAIL_CHARS = 1024;
const MAX_FIELD_TEXT_CHARS = 256;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  /** Field errors found but not listed (the list holds the first MAX_FIELD_ERRORS). */
  errors_omitted?: number;
}

export function problemBody(error: ApiError): ProblemBody {
  const detail = shorten(error.detail, MAX_DETAIL_CHARS);
  const body: ProblemBody = {
    type: `urn:lidar-sensor:problem:${error.type}`,
    title: error.title,
    status: error.status,
    detail,
  };
  const errors = error.errors ?? [];
  if (errors.length) {
    body.errors = errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({
      pointer: shorten(e.pointer, MAX_FIELD_TEXT_CHARS),
      detail: shorten(e.detail, MAX_FIELD_TEXT_CHARS),
    }));
    if (errors.length > MAX_FIELD_ERRORS) body.errors_omitted = errors.length - MAX_FIELD_ERRORS;
  }
  return body;
}

/** True when an Accept header lists application/problem+json with a non-zero q (RFC 9110 §12.5.1). */
export function acceptsProblemJson(accept: string | undefined): boolean {
  if (!accept?.includes('problem+json')) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== PROBLEM_CONTENT_TYPE) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The media type of an error answer: what the client asked for, else the spec's application/json. */
export function problemContentType(accept: string | undefined): string {
  return acceptsProblemJson(accept) ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE;
}

export function sendProblem(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  const type = problemContentType(reply.request.headers.accept);
  return reply
    .code(error.status)
    .type(type)
    .send(JSON.stringify(problemBody(error)));
}
