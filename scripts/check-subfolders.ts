/**
 * Imports inside one folder of src/, between its parts: its subfolders, and its own files (the part `.`).
 * - SUBFOLDER_ORDER ranks the parts of a folder whose subfolders form layers of their own (the data plane:
 *   its contract at the bottom, then scene, packets, recording reading, the worker, the main thread; the
 *   routes and the device core, their own files above their subfolders but mDNS; the entry point below its health check); a
 *   part imports only parts of a lower rank, type-only imports included (docs/architecture.md, "Layers");
 * - `npm run check-layers -- --upward [--files]` prints, per folder, the imports that lie on a cycle between
 *   its parts: whatever order the parts were given, one of those runs upward.
 */
import { relative, sep } from 'node:path';
import type { ImportEdge } from './check-layers.js';

/**
 * `hal/sim/x.ts` → `{ folder: 'hal', part: 'sim' }`; `hal/types.ts` → `{ folder: 'hal', part: '.' }`. The
 * folder's `index.ts` is a part of its own: the public entry, above every other part, imported by none.
 */
export function partOf(src: string, file: string): { folder: string; part: string } {
  const parts = relative(src, file).split(sep);
  if (parts.length === 2 && /^index\.(ts|js)$/.test(parts[1])) return { folder: parts[0], part: 'index.ts' };
  return { folder: parts[0], part: parts.length > 2 ? parts[1] : '.' };
}

/**
 * Lowest first, per folder: the parts of `udp/`, `routes/`, `core/` and `main/` (`.`: the folder's own files). The
 * folder's `index.ts` (its public entry) stands above them all; a loose file or a subfolder without a rank here
 * is a violation of its own.
 */
export const SUBFOLDER_ORDER: Readonly<Record<string, readonly string[]>> = {
  udp: [
    // What the threads say to each other and what the plan carries: plain data, imports nothing else of udp/.
    'contract',
    // The synthetic scene, the objects fault injection puts in it, the lidar image cast from it.
    'scene',
    // The packet formats and CRC-64.
    'packets',
    // Recordings: capture reading, their metadata (loaded lazily on the main thread, and by a replaying worker).
    'replay',
    // The emitter worker thread: runs, pacing, streams, sockets, replaying a recording.
    'worker',
    // The main thread: a unit's emitter, the process's one worker host, the plan from a configuration.
    'main-thread',
  ],
  routes: [
    // What a request schema says beyond JSON Schema (its rules, JSON only), and the enums a firmware offers.
    'schemas',
    // Prometheus: the request counters every answer feeds, the unit's gauges.
    'metrics',
    // HTTP plumbing: limits, hardening, validation and serialization, problems, prepared answers.
    'http',
    // The page and its live view.
    'web',
    // The route plugins, the app and the OpenAPI document.
    '.',
  ],
  core: [
    // Firmware slots, uploads and trust; Zone Monitor's sets; the diagnostics dump.
    'firmware',
    'zones',
    'diagnostics',
    // The Sensor and its parts, wired by compose-unit.ts.
    '.',
    // mDNS, started by the entry point for a running Sensor (loaded lazily).
    'discovery',
  ],
  // The entry point's own files; the container's health check reads their option table.
  main: ['.', 'health'],
};

/** The imports inside a folder of SUBFOLDER_ORDER that do not point down its order. */
export function subfolderViolations(
  src: string,
  edges: readonly ImportEdge[],
  orders: Readonly<Record<string, readonly string[]>> = SUBFOLDER_ORDER,
): string[] {
  const problems = new Set<string>();
  for (const { from, to, external } of edges) {
    if (external) continue;
    const a = partOf(src, from);
    const b = partOf(src, to);
    const order = orders[a.folder];
    if (!order || a.folder !== b.folder || a.part === 'index.ts') continue;
    const where = `${relative(src, from)} imports ${relative(src, to)}`;
    const rank = (part: string) => order.indexOf(part);
    if (rank(a.part) < 0) {
      problems.add(
        `${relative(src, from)}: ${a.part === '.' ? `a loose file of ${a.folder}/` : `${a.folder}/${a.part}/`} has no place in SUBFOLDER_ORDER of scripts/check-subfolders.ts: give it one`,
      );
    } else if (rank(b.part) < 0 || rank(b.part) > rank(a.part)) {
      problems.add(
        `${where}: ${a.folder}/${a.part}/ is below ${b.part === '.' ? `the loose files of ${a.folder}/` : `${a.folder}/${b.part}/`} (SUBFOLDER_ORDER)`,
      );
    }
  }
  return [...problems];
}

/** Per folder, the imports between two of its parts of which the target part also reaches the source part. */
export function upwardImports(src: string, edges: readonly ImportEdge[]): Map<string, string[]> {
  const seenFiles = new Set<string>();
  const inside = edges.flatMap(({ from, to, external }) => {
    if (external) return [];
    const pair = `${from}\0${to}`;
    if (seenFiles.has(pair)) return [];
    seenFiles.add(pair);
    const a = partOf(src, from);
    const b = partOf(src, to);
    if (a.folder !== b.folder || a.part === b.part) return [];
    return [{ folder: a.folder, from: a.part, to: b.part, files: `${relative(src, from)} -> ${relative(src, to)}` }];
  });
  const next = new Map<string, Set<string>>();
  for (const { folder, from, to } of inside) {
    const key = `${folder}/${from}`;
    next.set(key, (next.get(key) ?? new Set()).add(`${folder}/${to}`));
  }
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const at = queue.shift() as string;
      if (at === goal) return true;
      for (const to of next.get(at) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        queue.push(to);
      }
    }
    return false;
  };
  const upward = new Map<string, string[]>();
  for (const { folder, from, to, files } of inside) {
    if (!reaches(`${folder}/${to}`, `${folder}/${from}`)) continue;
    upward.set(folder, [...(upward.get(folder) ?? []), files]);
  }
  return upward;
}

/** The report of `--upward`: every folder of src/ with its count, and with `withFiles` each import. */
export function upwardReport(
  src: string,
  edges: readonly ImportEdge[],
  folders: readonly string[],
  withFiles: boolean,
) {
  const upward = upwardImports(src, edges);
  return folders.flatMap((folder) => {
    const files = upward.get(folder) ?? [];
    return [`${folder}: ${files.length}`, ...(withFiles ? files.map((f) => `    ${f}`) : [])];
  });
}
