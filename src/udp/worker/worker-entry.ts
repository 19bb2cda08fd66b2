/**
 * Where the emitter worker's entry module is, for the main thread that starts it. Resolved from this
 * module's own URL because it sits beside the entry wherever the code runs from: in the sources and in
 * tsc's output both are in this folder, and in the bundle both are files of dist/ (scripts/bundle.mjs
 * bundles the entry to dist/emitter-worker.js, and this module into the CLI's file or one of its chunks).
 */
export function emitterWorkerUrl(): URL {
  return new URL('./emitter-worker.js', import.meta.url);
}
