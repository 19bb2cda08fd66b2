/**
 * Starting a worker thread from the URL of its entry module's built (`.js`) name.
 *
 * Built code starts the `.js` file directly. When running from TypeScript
 * sources (vitest, tsx) there is no `.js` file: the worker then boots through tsx's ESM API, because
 * `execArgv: ['--import', 'tsx']` does not reach a worker's entry module on Node 20.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** @param jsUrl the worker module's built file, e.g. `emitterWorkerUrl()` of src/udp/worker/worker-entry.ts */
export function startWorkerModule(jsUrl: URL, options: WorkerOptions = {}): Worker {
  if (existsSync(fileURLToPath(jsUrl))) return new Worker(jsUrl, options);

  const tsUrl = new URL(jsUrl.href.replace(/\.js$/, '.ts'));
  if (!existsSync(fileURLToPath(tsUrl))) throw new Error(`worker module not found: ${fileURLToPath(jsUrl)}`);
  // tsx's package exports map `tsx/esm/api` to index.mjs for import; require.resolve yields the .cjs twin.
  const tsxApiCjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(tsxApiCjs.replace(/\.cjs$/, '.mjs')).href;
  const boot = `const { register } = await import(${JSON.stringify(tsxApi)}); register(); await import(${JSON.stringify(tsUrl.href)});`;
  return new Worker(boot, { ...options, eval: true });
}
