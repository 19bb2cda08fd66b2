/**
 * Child process: autocannon, driven over IPC. It runs in its own process (not the orchestrator's) and
 * identically for the sensor and both references, so every server under test competes with the same
 * load generator for the same two cores.
 *
 * Latencies are taken from autocannon's per-response event (floating-point milliseconds), because its
 * own histogram rounds to whole milliseconds — too coarse for a 5 ms target.
 */
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult, FromLoadGenerator, ToLoadGenerator } from './load-protocol.js';
import { spread } from './stats.js';

/** 2^20 latencies = over 100 s at 10k requests/s; beyond that, samples are dropped (counted still). */
const LATENCY_CAPACITY = 1 << 20;
const latencies = new Float64Array(LATENCY_CAPACITY);

/**
 * A fixed body, or one made unique per request. autocannon's own `idReplacement` computes
 * Content-Length for ids shorter than hyperid now makes, so servers wait for bytes that never come;
 * `setupRequest` rebuilds each request with a correct length instead.
 */
function bodyOptions(options: LoadOptions): Pick<autocannon.Options, 'body' | 'requests'> {
  if (options.body === undefined) return {};
  if (!options.uniqueBody) return { body: options.body };
  const template = options.body;
  let counter = 0;
  return {
    requests: [
      { setupRequest: (request) => ({ ...request, body: template.replace('[<id>]', `${process.pid}-${++counter}`) }) },
    ],
  };
}

function run(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let recorded = 0;
    let ok = 0;
    let non2xx = 0;
    const startedAt = performance.now();
    const instance = autocannon(
      {
        url: options.url,
        method: options.method,
        connections: options.connections,
        duration: options.durationS,
        // autocannon ends a run on a sample tick: at the default 1 s, a 0.3 s run would last 1 s.
        sampleInt: 100,
        ...(options.headers ? { headers: options.headers } : {}),
        ...bodyOptions(options),
      },
      (error: unknown, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const durationS = (performance.now() - startedAt) / 1000;
        resolve({
          requests: ok,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          durationS,
          requestsPerSecond: ok / durationS,
          latencyMs: spread(latencies, recorded),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) {
        non2xx++;
        return;
      }
      ok++;
      if (recorded < LATENCY_CAPACITY) latencies[recorded++] = responseTime;
    });
  });
}

process.on('message', (raw: unknown) => {
  const message = raw as ToLoadGenerator;
  if (message.type !== 'run') return;
  run(message.options).then(
    (result) => process.send?.({ type: 'result', seq: message.seq, result } satisfies FromLoadGenerator),
    (error: unknown) =>
      process.send?.({ type: 'error', seq: message.seq, message: String(error) } satisfies FromLoadGenerator),
  );
});

process.on('disconnect', () => process.exit(0));
