/**
 * Fails when a source file imports against the layer order of the design (docs/DESIGN.md, "Layers"):
 * dependencies point down only. `npx tsx scripts/check-layers.ts` checks; `--graph` prints the
 * import graph by folder (with `--files`, every import behind each edge).
 *
 * Type-only imports count: a type from an upper layer couples the lower one to it just the same.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Lowest first. A module may import modules of its own folder and of any lower rank, and of other
 * folders of the same rank (config, alerts and firmware are peers, as are the composition roots).
 */
export const LAYERS: readonly (readonly string[])[] = [
  // Plain data and pure functions: product models, identity, geometry, clocks, formats, catalogue.
  ['model'],
  // Leaf helpers with no knowledge of the sensor: address parsing, JSON text, caches, the error codes.
  ['util', 'network', 'errors', 'version'],
  // Packet encoders, pacing and the emitter: pure byte work plus sockets.
  ['udp', 'replay'],
  // Hardware abstraction: interfaces, and the sim and linux implementations that drive the emitter.
  ['hal'],
  // SQLite: the database file, migrations and the key-value table the services above persist through.
  ['store'],
  // Services of the device core that own one kind of state each.
  ['config', 'alerts', 'firmware'],
  // The device core: owns status and initialization_id, orchestrates reinit.
  ['sensor'],
  // Reads the core through a narrow view (diagnostic dump, log ring); sits above it like the routes.
  ['diagnostics', 'replay-unit', 'discovery'],
  // HTTP: Fastify plugins, the server-level limits and the app that assembles them.
  ['routes', 'http', 'faults', 'metrics', 'web', 'app'],
  // Composition roots: the only modules that parse options, pick the HAL and wire units together (one
  // unit, or a fleet of them), and the container health check that reads the same options.
  [
    'cli-options',
    'unit',
    'server',
    'cli',
    'cli-logger',
    'startup-failure',
    'compile-cache',
    'young-generation',
    'service-notify',
    'healthcheck',
    'health',
    'fleet',
    // The conformance checker: a client of the interface; its fallback OpenAPI document comes from a unit it starts.
    'validate',
  ],
];

/** Layers below the routes: the device core and everything under it never sees the web framework. */
const FRAMEWORK_FREE_BELOW = 'routes';
const FRAMEWORK = /^(fastify|@fastify\/|fastify-)/;

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** `src/hal/sim/x.ts` → `hal`; `src/app.ts` → `app`. */
export function layerUnit(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.(ts|js)$/, '');
}

function rankOf(unit: string): number {
  const rank = LAYERS.findIndex((layer) => layer.includes(unit));
  if (rank < 0) throw new Error(`src/${unit} has no place in LAYERS of scripts/check-layers.ts: give it one`);
  return rank;
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
}

export function importEdges(): ImportEdge[] {
  return sourceFiles(SRC).flatMap((file) =>
    ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName }) => {
      const external = !fileName.startsWith('.');
      return { from: file, to: external ? fileName : resolve(dirname(file), fileName), external };
    }),
  );
}

export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const frameworkFreeRank = rankOf(FRAMEWORK_FREE_BELOW);
  const problems: string[] = [];
  for (const { from, to, external } of edges) {
    const fromUnit = layerUnit(from);
    const where = relative(SRC, from);
    if (external) {
      if (FRAMEWORK.test(to) && rankOf(fromUnit) < frameworkFreeRank) {
        problems.push(`${where} imports ${to}: the layers below routes never import the web framework`);
      }
      continue;
    }
    const toUnit = layerUnit(to);
    if (toUnit === fromUnit) continue;
    if (rankOf(toUnit) > rankOf(fromUnit)) {
      problems.push(`${where} imports ${relative(SRC, to)}: ${fromUnit} is below ${toUnit}`);
    }
  }
  return problems;
}

export function folderGraph(edges: readonly ImportEdge[], withFiles: boolean): string[] {
  const byEdge = new Map<string, string[]>();
  for (const { from, to, external } of edges) {
    if (external || layerUnit(from) === layerUnit(to)) continue;
    const key = `${layerUnit(from)} -> ${layerUnit(to)}`;
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
  } else {
    const problems = layerViolations(edges);
    for (const p of problems) console.error(p);
    if (problems.length > 0) process.exit(1);
    console.log(`layers: ${edges.length} imports checked, none against the order`);
  }
}
