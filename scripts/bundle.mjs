#!/usr/bin/env node
// The second step of `npm run build`: bundles the CLI and the emitter worker, each into one file
// (dist/cli.js with its lazily loaded chunks, dist/emitter-worker.js), over what tsc emitted; and the small programs that
// deployments name by path (dist/healthcheck.js, dist/fleet/example-client.js, and the device's root helpers and
// firmware hook requester: dist/firmware-hook-runner.js, dist/firmware-hook-request.js, dist/ptp-profile-apply.js),
// so those paths stay what the Dockerfile, compose, Kubernetes and deploy/ files say whatever folder of src/ holds them. Why: Node's module loader spent a
// large part of every start resolving, reading and compiling the several hundred files of the server and
// its dependencies; one file starts much faster (docs/benchmarks.md, memory-startup). Lazily imported parts (replay, faults,
// mDNS, metrics, the dump archive) stay lazy: esbuild runs their module code on first import.
// Kept out: better-sqlite3 (a native addon) and pino-pretty (a transport, which runs in a worker thread
// that pino starts from its own package files: src/main/cli-logger.ts takes the installed pino for that
// one case). pino itself is bundled: loaded from node_modules it was some twenty files through Node's
// CommonJS loader at every start. package.json's `"sideEffects": false` tells esbuild that
// our modules do nothing when imported but define things, so a folder's public entry (index.ts) brings
// into a bundle only what its importer uses: without it, the worker's bundle grew by half when its imports
// went through model/index.ts. Plain JavaScript: runs without tsx.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCommonJs } from './bundle-cjs.mjs';
import { buildParameterValidators } from './parameter-validators.mjs';
import { buildRequestValidators } from './request-validators.mjs';

const root = join(import.meta.dirname, '..');

// Chunks of an earlier build (their names carry a hash of their content).
for (const name of readdirSync(join(root, 'dist'))) if (/^chunk-.*\.js$/.test(name)) rmSync(join(root, 'dist', name));

// Not in the start-up chunks: the schema compilers (Ajv, fast-json-stringify and Fastify's wrappers of both)
// compile a schema only on the first request that needs one, yet bundled with the server they were a large part
// of the code every start read and pre-parsed. src/first-use/installed-package.ts requires them on first use
// from dist/first-use-packages.cjs (built below: one file, each package evaluated when asked for). Exact
// names only: Fastify's error serializer needs `fast-json-stringify/lib/serializer` at start, which stays
// bundled.
const FIRST_USE_PACKAGES = [
  'ajv',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'fast-json-stringify',
  // Zone set zips (firmware 3.2): evaluating fflate builds its inflate tables in loops that V8 optimized
  // with its top tier at every start, leaving that compiler's code resident in every unit.
  'fflate',
];
// light-my-request (50 KB with its cookie parsers) is Fastify's inject(), which Fastify requires on first use
// and the server never calls (tests inject through the sources): from node_modules then.
const EXTERNAL_PACKAGES = [...FIRST_USE_PACKAGES, 'light-my-request'];
const requiredOnFirstUse = {
  name: 'required-on-first-use',
  setup(build) {
    const names = new RegExp(`^(${EXTERNAL_PACKAGES.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter: names }, (args) => ({ path: args.path, external: true }));
  },
};

const options = {
  absWorkingDir: root,
  entryPoints: { cli: 'src/main/cli.ts' },
  outdir: 'dist',
  bundle: true,
  // Code splitting: what is imported lazily (fleet, faults, replay, validate, mDNS, the linux HAL, metrics,
  // the dump archive, YAML) becomes its own file, read and compiled only when imported, instead of sitting
  // in the CLI's one file, where V8 still had to read and pre-parse it at every start. The chunks sit beside
  // cli.js (dist/chunk-*.js), not in a folder: paths a module finds from its own URL (the worker's file,
  // web/, package.json) then resolve the same from a chunk as from cli.js.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  metafile: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'pino-pretty'],
  plugins: [requiredOnFirstUse],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
  // Without comments and indentation what a start loads is a third smaller: V8 keeps a
  // module's source in the heap for as long as it runs (functions are compiled lazily from it), and
  // reads and pre-parses it all at start. Names stay (no identifier minification): log lines, error
  // stacks and Fastify's plugin names read the same.
  minifyWhitespace: true,
};
const result = await build(options);

// The data-plane worker, the zone render worker and the small programs are bundled whole, each into its own file, without
// chunks. Split together with the CLI they shared its chunks, which hold whatever several entries use:
// the health check (run every 10 s in every container) read the server's code (Fastify, Ajv) to parse
// two options, and the worker about twice its own code (TypeBox among it): docs/benchmarks.md. A worker is
// an isolate of its own: it compiles what it loads whether or not the main thread loaded it too.
const programs = await build({
  ...options,
  entryPoints: {
    'emitter-worker': 'src/udp/worker/emitter-worker.ts',
    // Zone sets render in a worker thread of their own (src/core/zones/zone-render-thread.ts).
    'zone-render-worker': 'src/core/zones/zone-render-worker.ts',
    healthcheck: 'src/main/health/healthcheck.ts',
    'firmware-hook-runner': 'src/main/firmware-hook-runner.ts',
    'firmware-hook-request': 'src/main/firmware-hook-request.ts',
    'ptp-profile-apply': 'src/main/ptp-profile-apply.ts',
    'fleet/example-client': 'src/fleet/example-client.ts',
  },
  splitting: false,
});
Object.assign(result.metafile.outputs, programs.metafile.outputs);

// FIRST_USE_PACKAGES in one CommonJS file: each a function that requires it (esbuild evaluates a bundled
// package when it is first required), so asking for Ajv does not evaluate fast-json-stringify.
const firstUse = await bundleCommonJs(
  root,
  'first-use-packages.cjs',
  `module.exports = {${FIRST_USE_PACKAGES.map((name) => `${JSON.stringify(name)}: () => require(${JSON.stringify(name)})`).join(', ')}};`,
);
Object.assign(result.metafile.outputs, firstUse.outputs);

// The configuration's value validators and the routes' request validators, compiled ahead of time
// (scripts/parameter-validators.mjs, scripts/request-validators.mjs).
Object.assign(result.metafile.outputs, (await buildParameterValidators(root)).outputs);
Object.assign(result.metafile.outputs, (await buildRequestValidators(root)).outputs);

// V8 keeps each script's source in the heap (functions are compiled lazily from it), and stores it
// as two bytes per character as soon as one character lies outside Latin-1: the CLI bundle then
// took twice its size of every unit's memory. esbuild escapes such characters in code, not in the
// comments it keeps (an arrow in a doc comment was enough), so those are escaped here.
for (const file of Object.keys(result.metafile.outputs).filter((name) => /\.c?js$/.test(name))) {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  const latin1 = text.replace(/[^\u0000-\u00ff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (latin1 !== text) writeFileSync(path, latin1);
}

// build-if-stale.mjs takes dist/cli.js's time as the end of the last complete build.
const now = new Date();
utimesSync(join(root, 'dist', 'cli.js'), now, now);
