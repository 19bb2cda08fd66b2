/** Messages between the orchestrator and the load generator child (bench/load-generator.ts). */
import type { Spread } from './stats.js';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'PUT' | 'POST';
  connections: number;
  durationS: number;
  body?: string;
  headers?: Record<string, string>;
  /** Replace `[<id>]` in the body with a fresh id per request (so every write is a real change). */
  uniqueBody?: boolean;
}

export interface LoadResult {
  /** 2xx responses. */
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationS: number;
  requestsPerSecond: number;
  latencyMs: Spread;
}

export type ToLoadGenerator = { type: 'run'; seq: number; options: LoadOptions };
export type FromLoadGenerator =
  | { type: 'result'; seq: number; result: LoadResult }
  | { type: 'error'; seq: number; message: string };
