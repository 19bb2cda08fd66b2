/**
 * Fails when a source file breaks the architecture of docs/architecture.md ("Layers"):
 * - ranks: a top-level folder of src/ imports only its own files and folders of a lower rank (or a peer
 *   of the same rank); below `routes`, nothing imports the web framework;
 * - public entries: an import that crosses top-level folders names an `index.ts`, the folder's own or,
 *   for a part that loads lazily (LAZY_SUBFOLDERS: the HALs, replay, mDNS, the diagnostic dump), that
 *   subfolder's; any other subfolder (the data plane's contract/, main-thread/, worker/, packets/, scene/) is
 *   internal to its folder, whose files import it directly;
 * - threads of the data plane: udp/main-thread/ and udp/worker/ (the emitter worker) load none of each
 *   other's code, directly or through a shared file: the main thread takes only types from the worker, and
 *   the worker entry's locator (WORKER_ENTRY_LOCATOR); the worker takes nothing of the main thread's, not
 *   even types;
 * - the order of a folder's subfolders (SUBFOLDER_ORDER of check-subfolders.ts: udp/'s, its contract at
 *   the bottom): no import runs upward among them;
 * - no cycles: no file reaches itself through its imports (type-only imports included);
 * - sizes: no file over 300 lines, no function over 80, but the listed exceptions (scripts/check-sizes.ts);
 * - a pure model: no file of src/model/ imports a node: I/O module (scripts/check-model.ts).
 * `npx tsx scripts/check-layers.ts` checks; `--graph` prints the import graph by folder (with `--files`,
 * every import behind each edge); `--upward` the imports that run upward inside each folder
 * (check-subfolders.ts) and the largest file and function.
 *
 * Type-only imports count: a type from an upper layer couples the lower one to it just the same.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  exceptionLines,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  SIZE_EXCEPTIONS,
  sizes,
  sizeViolations,
} from './check-sizes.js';
import { modelIoImports } from './check-model.js';
import { subfolderViolations, upwardReport } from './check-subfolders.js';

/**
 * Lowest first. A module may import modules of its own folder and of any lower rank, and of other
 * folders of the same rank (config and alerts are peers).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // Plain data and pure functions: product models, identity, geometry, clocks, formats, catalogue,
  // address parsing, error codes, small caches and text helpers.
  ['model'],
  // What the process loads on first use, not at start: the schema compilers and zip reader bundled beside
  // the CLI, files the build writes there, and the checks that run those compilers (the model does no I/O).
  ['first-use'],
  // The data plane: packet encoders, pacing, the emitter worker, and replay's packet side (recordings,
  // capture reading, replay streams).
  ['udp'],
  // Hardware abstraction: interfaces, and the sim and linux implementations that drive the emitter.
  ['hal'],
  // SQLite: the database file, migrations and the key-value table the services above persist through.
  ['store'],
  // Services of the device core that own one kind of state each: parameters, alerts.
  ['config', 'alerts'],
  // The device core: the sensor (status, initialization_id, reinit), time, network, metadata,
  // firmware slots, diagnostics and mDNS discovery.
  ['core'],
  // HTTP: the Fastify app, route plugins, HTTP plumbing, the web page, metrics and OpenAPI.
  ['routes'],
  // Subsystems the entry point starts, each with a command of its own: the fault plane (its control
  // listener, scenario and scheduler), the fleet supervisor and the conformance validator. What they need
  // of the entry point (a unit's server, this build's OpenAPI document) it passes to them.
  ['faults', 'fleet', 'validate'],
  // The entry point and its wiring: the CLI and its options, the server, the composition root of a unit,
  // the health check.
  ['main'],
];

/** Layers below the routes: the device core and everything under it never sees the web framework. */
const FRAMEWORK_FREE_BELOW = 'routes';
const FRAMEWORK = /^(fastify|@fastify\/|fastify-)/;

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** `src/hal/sim/x.ts` → `hal`; a file directly in src/ is a folder of its own (`src/x.ts` → `x`). */
export function topFolder(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.(ts|js)$/, '');
}

function rankOf(folder: string): number {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  if (rank < 0) throw new Error(`src/${folder} has no place in LAYERS of scripts/check-layers.ts: give it one`);
  return rank;
}

/** Every source file of src/, its path under src/ and its text, for the size rule. */
export function sourceTexts(): { path: string; text: string }[] {
  return sourceFiles(SRC).map((file) => ({ path: srcPath(file), text: readFileSync(file, 'utf8') }));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

export interface ImportEdge {
  from: string;
  to: string;
  /** The package name for a bare import, the resolved file for a relative one. */
  external: boolean;
  /** Every import and re-export of it names types only (erased when compiled: no code is loaded). */
  typeOnly?: boolean;
}

export function importEdges(): ImportEdge[] {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const typesOnly = typeOnlySpecifiers(file, text);
    return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => {
      const external = !fileName.startsWith('.');
      const to = external ? fileName : resolve(dirname(file), fileName);
      return { from: file, to, external, typeOnly: typesOnly.has(fileName) };
    });
  });
}

/**
 * The specifiers a file imports or re-exports for types alone: `import type`, `export type`, or braces of
 * which every name is marked `type`. A specifier also loaded for a value (or by `import()`) is not one.
 */
function typeOnlySpecifiers(file: string, text: string): Set<string> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const typeOnly = new Set<string>();
  const valued = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    (declaresTypesOnly(statement) ? typeOnly : valued).add(specifier.text);
  }
  for (const specifier of valued) typeOnly.delete(specifier);
  return typeOnly;
}

function declaresTypesOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause) return false; // a side-effect import loads the module
    if (clause.isTypeOnly) return true;
    const bindings = clause.namedBindings;
    return (
      !clause.name &&
      !!bindings &&
      ts.isNamedImports(bindings) &&
      bindings.elements.length > 0 &&
      bindings.elements.every((element) => element.isTypeOnly)
    );
  }
  if (statement.isTypeOnly) return true;
  const clause = statement.exportClause;
  return (
    !!clause &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

/**
 * Subfolders with a public entry of their own: parts loaded lazily, so that a unit which does not use one
 * never pays for it (docs/architecture.md, "Public entries").
 */
export const LAZY_SUBFOLDERS: readonly string[] = [
  'hal/sim',
  'hal/linux',
  'udp/replay',
  'core/discovery',
  'core/diagnostics',
];

/** The public entries of a folder: its `index.ts` and its lazily loaded subfolders' (`.js` in import specifiers). */
function isPublicEntry(to: string): boolean {
  if (!/^index\.(ts|js)$/.test(basename(to))) return false;
  const folder = relative(SRC, dirname(to)).split(sep).join('/');
  return !folder.includes('/') ? folder !== '' : LAZY_SUBFOLDERS.includes(folder);
}

/**
 * The data plane's two threads (docs/architecture.md, "Layers"): the main thread and the emitter worker
 * never run each other's code, so neither may load it. The main thread starts the worker from the file
 * that the locator names: the one module of the worker's folder the main thread loads.
 */
const MAIN_THREAD_FOLDER = 'udp/main-thread';
const WORKER_THREAD_FOLDER = 'udp/worker';
const WORKER_ENTRY_LOCATOR = 'udp/worker/worker-entry.ts';

function srcPath(file: string): string {
  return relative(SRC, file).split(sep).join('/').replace(/\.js$/, '.ts');
}

/**
 * The files a file loads when it runs: what it imports for values, and what those import, transitively
 * (type-only imports load nothing). Keyed by `srcPath`.
 */
function loadedFiles(edges: readonly ImportEdge[]): (file: string) => Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const { from, to, external, typeOnly } of edges) {
    if (external || typeOnly) continue;
    const list = next.get(srcPath(from)) ?? [];
    list.push(srcPath(to));
    next.set(srcPath(from), list);
  }
  // Each loaded file with the chain of imports that loads it, for the message.
  return (file) => {
    const chains = new Map<string, string[]>([[file, [file]]]);
    const queue = [file];
    while (queue.length > 0) {
      const at = queue.shift() as string;
      for (const to of next.get(at) ?? []) {
        if (chains.has(to)) continue;
        chains.set(to, [...(chains.get(at) ?? []), to]);
        queue.push(to);
      }
    }
    return chains;
  };
}

function threadViolations(edges: readonly ImportEdge[]): string[] {
  const loads = loadedFiles(edges);
  const inFolder = (path: string, folder: string) => path.startsWith(`${folder}/`);
  const sources = [...new Set(edges.map((e) => srcPath(e.from)))];
  const problems: string[] = [];
  for (const file of sources) {
    const onMain = inFolder(file, MAIN_THREAD_FOLDER);
    if (!onMain && !inFolder(file, WORKER_THREAD_FOLDER)) continue;
    const foreign = onMain ? WORKER_THREAD_FOLDER : MAIN_THREAD_FOLDER;
    // The worker does not even take the main thread's types: what it runs on is what the contract carries.
    const typeImport = onMain
      ? undefined
      : edges.find((e) => !e.external && srcPath(e.from) === file && inFolder(srcPath(e.to), foreign));
    if (typeImport) {
      problems.push(`${file} imports ${srcPath(typeImport.to)}: the emitter worker takes nothing of the main thread's`);
      continue;
    }
    for (const [loaded, chain] of loads(file)) {
      if (!inFolder(loaded, foreign) || (onMain && loaded === WORKER_ENTRY_LOCATOR)) continue;
      problems.push(
        onMain
          ? `${file} loads ${loaded} (${chain.join(' -> ')}): the main thread loads no worker code (take its types with \`import type\`)`
          : `${file} loads ${loaded} (${chain.join(' -> ')}): the emitter worker loads nothing of the main thread's`,
      );
      break;
    }
  }
  return problems;
}

export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const frameworkFreeRank = rankOf(FRAMEWORK_FREE_BELOW);
  const problems: string[] = [];
  for (const { from, to, external } of edges) {
    const fromFolder = topFolder(from);
    const where = relative(SRC, from);
    if (external) {
      if (FRAMEWORK.test(to) && rankOf(fromFolder) < frameworkFreeRank) {
        problems.push(`${where} imports ${to}: the layers below routes never import the web framework`);
      }
      continue;
    }
    const toFolder = topFolder(to);
    if (toFolder === fromFolder) continue;
    if (rankOf(toFolder) > rankOf(fromFolder)) {
      problems.push(`${where} imports ${relative(SRC, to)}: ${fromFolder} is below ${toFolder}`);
    } else if (!isPublicEntry(to)) {
      problems.push(`${where} imports ${relative(SRC, to)}: a deep import into ${toFolder} (import its index.ts)`);
    }
  }
  return [...problems, ...threadViolations(edges), ...subfolderViolations(SRC, edges)];
}

/** Every import cycle between files, each as the files on it (Tarjan's strongly connected components). */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  const key = (path: string) => path.replace(/\.js$/, '.ts');
  for (const { from, to, external } of edges) {
    if (external) continue;
    const list = next.get(key(from)) ?? [];
    list.push(key(to));
    next.set(key(from), list);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(relative(SRC, member));
    } while (member !== file);
    const selfImport = (next.get(file) ?? []).includes(file);
    if (component.length > 1 || selfImport) cycles.push(component.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

export function folderGraph(edges: readonly ImportEdge[], withFiles: boolean): string[] {
  const byEdge = new Map<string, string[]>();
  for (const { from, to, external } of edges) {
    if (external || topFolder(from) === topFolder(to)) continue;
    const key = `${topFolder(from)} -> ${topFolder(to)}`;
    const list = byEdge.get(key) ?? [];
    list.push(`${relative(SRC, from)} -> ${relative(SRC, to)}`);
    byEdge.set(key, list);
  }
  return [...byEdge.keys()].sort().flatMap((key) => {
    const files = byEdge.get(key) ?? [];
    return [`${key} (${files.length})`, ...(withFiles ? files.map((f) => `    ${f}`) : [])];
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const edges = importEdges();
  if (process.argv.includes('--graph')) {
    console.log(folderGraph(edges, process.argv.includes('--files')).join('\n'));
  } else if (process.argv.includes('--upward')) {
    const folders = LAYERS.flat();
    console.log('imports on a cycle between the parts (subfolders, own files) of each folder of src/:');
    console.log(upwardReport(SRC, edges, folders, process.argv.includes('--files')).join('\n'));
    const measured = sizes(sourceTexts());
    for (const kind of ['file', 'function']) {
      const largest = measured
        .filter(({ name }) => name.includes('#') === (kind === 'function'))
        .sort((a, b) => b.lines - a.lines)[0];
      console.log(`largest ${kind}: src/${largest.name} (${largest.lines} lines)`);
    }
  } else {
    const measured = sizes(sourceTexts());
    const problems = [
      ...layerViolations(edges),
      ...importCycles(edges).map((files) => `import cycle among ${files.join(', ')}`),
      ...sizeViolations(measured),
      ...sourceTexts().flatMap(({ path, text }) => modelIoImports(path, text)),
    ];
    for (const p of problems) console.error(p);
    if (problems.length > 0) process.exit(1);
    console.log(
      `layers: ${edges.length} imports checked: none against the order, none deep, none across the data plane's threads, none up the ordered subfolders of udp/, routes/, core/ and main/, no cycle`,
    );
    console.log(
      `sizes: no file of src/ over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}, but these ${Object.keys(SIZE_EXCEPTIONS).length} exceptions (scripts/check-sizes.ts):`,
    );
    console.log(exceptionLines(measured).join('\n'));
    console.log('model: no file of src/model/ imports a node: I/O module (scripts/check-model.ts)');
  }
}
