/**
 * Starting a worker thread whose entry module sits next to the calling module.
 *
 * Built code (`dist/udp/x.js`) starts the `.js` sibling directly. When running from TypeScript
 * sources (vitest, tsx) there is no `.js` file: the worker then boots through tsx's ESM API, because
 * `execArgv: ['--import', 'tsx']` does not reach a worker's entry module on Node 20.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * @param callerUrl `import.meta.url` of the module that owns the worker
 * @param entry the worker module's built name relative to the caller, e.g. `./emitter-worker.js`
 */
export function startSiblingWorker(callerUrl: string, entry: string, options: WorkerOptions = {}): Worker {
  const jsUrl = new URL(entry, callerUrl);
  if (existsSync(fileURLToPath(jsUrl))) return new Worker(jsUrl, options);

  const tsUrl = new URL(entry.replace(/\.js$/, '.ts'), callerUrl);
  if (!existsSync(fileURLToPath(tsUrl))) throw new Error(`worker module not found: ${fileURLToPath(jsUrl)}`);
  // tsx's package exports map `tsx/esm/api` to index.mjs for import; require.resolve yields the .cjs twin.
  const tsxApiCjs = createRequire(callerUrl).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(tsxApiCjs.replace(/\.cjs$/, '.mjs')).href;
  const boot = `const { register } = await import(${JSON.stringify(tsxApi)}); register(); await import(${JSON.stringify(tsUrl.href)});`;
  return new Worker(boot, { ...options, eval: true });
}
