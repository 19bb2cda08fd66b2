/** Messages between the orchestrator and a reference server child (bench/reference-server.ts). */

/** One answer of the sensor, recorded so the references can serve the same bytes. */
export interface RecordedResponse {
  method: 'GET' | 'PUT';
  path: string;
  status: number;
  contentType: string | undefined;
  bodyBase64: string;
}

export type ReferenceKind = 'fastify' | 'node-http';

export type ToReference = { type: 'serve'; routes: RecordedResponse[] };
export type FromReference = { type: 'listening'; port: number };

/** The fastify reference also serves GET /api/v1/time composed per request, at LIVE_TIME_PREFIX + TIME_PATH. */
export const TIME_PATH = '/api/v1/time';
export const LIVE_TIME_PREFIX = '/live';
