import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importEdges, LAYERS, layerViolations, sourceTexts } from '../../scripts/check-layers.js';
import { modelIoImports } from '../../scripts/check-model.js';

const src = (path: string) => resolve(import.meta.dirname, '../../src', path);
/** An import between two files of src/ (paths relative to it). */
const edge = (from: string, to: string, typeOnly = false) => ({
  from: src(from),
  to: src(to),
  external: false,
  typeOnly,
});

describe('layering (docs/architecture.md: dependencies point down only, through public entries)', () => {
  it('no module imports against the layer order or deep into another folder', () => {
    expect(layerViolations(importEdges())).toEqual([]);
  });

  it('no import cycle between files', () => {
    expect(importCycles(importEdges())).toEqual([]);
  });

  it('the model imports nothing of ours', () => {
    const fromModel = importEdges().filter((e) => !e.external && e.from.startsWith(src('model/')));
    expect(fromModel.filter((e) => !e.to.startsWith(src('model/')))).toEqual([]);
  });

  it('the model does no I/O: no file of it imports a node: module of I/O, but the listed exceptions', () => {
    expect(sourceTexts().flatMap(({ path, text }) => modelIoImports(path, text))).toEqual([]);
    const problems = [
      ['model/clock.ts', "import { readFileSync } from 'node:fs';"],
      ['model/probe.ts', "import * as net from 'node:net';"],
      ['model/child.ts', "export { spawn } from 'child_process';"],
      ['model/thread.ts', "import type { Worker } from 'node:worker_threads';"],
      ['model/sockets.ts', "import { BlockList, createServer } from 'node:net';"],
    ].flatMap(([path, text]) => modelIoImports(path, text));
    expect(problems).toEqual([
      expect.stringContaining('src/model/clock.ts imports node:fs: the model does no I/O'),
      expect.stringContaining('src/model/probe.ts imports node:net'),
      expect.stringContaining('src/model/child.ts imports node:child_process'),
      expect.stringContaining('src/model/thread.ts imports node:worker_threads'),
      expect.stringContaining('src/model/sockets.ts imports node:net'),
    ]);
    // Pure parts of node: (hashing, node:net's address parsing), and files outside the model, pass.
    const allowed = [
      ['model/hash.ts', "import { createHash } from 'node:crypto';"],
      ['model/cidr.ts', "import { BlockList, isIPv4 } from 'node:net';"],
      ['hal/clock.ts', "import { readFileSync } from 'node:fs';"],
    ].flatMap(([path, text]) => modelIoImports(path, text));
    expect(allowed).toEqual([]);
  });

  it('src/ holds the ranked folders, each with its public entry, and no loose file', () => {
    const entries = readdirSync(src('.'), { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual(LAYERS.flat().sort());
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    for (const folder of folders) expect(readdirSync(src(folder))).toContain('index.ts');
  });

  it('flags an upward import, a deep import, and the web framework below the routes', () => {
    const problems = layerViolations([
      edge('hal/sim/index.ts', 'core/sensor.js'),
      { from: src('core/sensor.ts'), to: 'fastify', external: true },
      edge('routes/config.ts', 'core/sensor.js'),
      edge('routes/config.ts', 'core/index.js'),
      edge('main/unit.ts', 'hal/linux/index.js'),
      edge('hal/emitter-streams.ts', 'udp/worker/index.js'),
    ]);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toContain('hal is below core');
    expect(problems[1]).toContain('never import the web framework');
    expect(problems[2]).toContain('deep import into core');
    // Only a lazily loaded subfolder has an entry of its own: the data plane's thread folders are internal.
    expect(problems[3]).toContain('deep import into udp');
  });

  it("keeps the data plane's threads apart: the main thread loads no worker code, the worker nothing of it", () => {
    const allowed = [
      edge('udp/main-thread/emitter.ts', 'udp/worker/preview-frame.js', true),
      edge('udp/main-thread/emitter-host.ts', 'udp/worker/worker-entry.js'),
      edge('udp/main-thread/emitter-host.ts', 'udp/contract/thread-messages.js'),
      edge('udp/worker/emitter-run.ts', 'udp/packets/lidar-packet.js'),
    ];
    expect(layerViolations(allowed)).toEqual([]);
    const problems = layerViolations([
      ...allowed,
      edge('udp/main-thread/plan-streams.ts', 'udp/worker/stream-alerts.js'),
      // Through a file both threads share: the main thread would still load the worker's pacer.
      edge('udp/replay/recording.ts', 'udp/worker/pacer.js'),
      edge('udp/main-thread/emitter.ts', 'udp/replay/recording.js'),
      edge('udp/worker/pacer.ts', 'udp/main-thread/emitter.js', true),
    ]).filter((p) => !p.includes('SUBFOLDER_ORDER'));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('udp/main-thread/emitter.ts loads udp/worker/pacer.ts');
    expect(problems[0]).toContain('udp/main-thread/emitter.ts -> udp/replay/recording.ts -> udp/worker/pacer.ts');
    expect(problems[1]).toContain('udp/main-thread/plan-streams.ts loads udp/worker/stream-alerts.ts');
    expect(problems[2]).toContain(
      'udp/worker/pacer.ts imports udp/main-thread/emitter.ts: the emitter worker takes nothing',
    );
  });

  it("keeps udp/'s subfolders in their order: nothing runs upward, the contract imports nothing else of udp/", () => {
    const allowed = [
      edge('udp/index.ts', 'udp/main-thread/emitter.js'),
      edge('udp/main-thread/emitter.ts', 'udp/contract/thread-messages.js'),
      edge('udp/worker/replay-stream.ts', 'udp/replay/recording.js'),
      edge('udp/packets/lidar-packet.ts', 'udp/scene/lidar-image.js', true),
      edge('udp/contract/thread-messages.ts', 'udp/contract/stream-plan.js', true),
    ];
    expect(layerViolations(allowed)).toEqual([]);
    const problems = layerViolations([
      ...allowed,
      // A type counts: the contract would name the worker's code in what both threads share.
      edge('udp/contract/stream-plan.ts', 'udp/worker/stream-alerts.js', true),
      edge('udp/replay/recording.ts', 'udp/worker/replay-stream.js'),
      edge('udp/scene/scene.ts', 'udp/packets/crc64.js'),
      edge('udp/stream-plan.ts', 'udp/contract/alert-ids.js'),
      edge('udp/lens/optics.ts', 'udp/scene/scene.js'),
    ]);
    expect(problems).toEqual([
      expect.stringContaining(
        'udp/contract/stream-plan.ts imports udp/worker/stream-alerts.js: udp/contract/ is below udp/worker/',
      ),
      expect.stringContaining(
        'udp/replay/recording.ts imports udp/worker/replay-stream.js: udp/replay/ is below udp/worker/',
      ),
      expect.stringContaining('udp/scene/scene.ts imports udp/packets/crc64.js: udp/scene/ is below udp/packets/'),
      expect.stringContaining('udp/stream-plan.ts: a loose file of udp/ has no place in SUBFOLDER_ORDER'),
      expect.stringContaining('udp/lens/optics.ts: udp/lens/ has no place in SUBFOLDER_ORDER'),
    ]);
  });

  it('keeps the parts of routes/ and core/ in their order: plumbing below the route plugins, parts below the Sensor', () => {
    const allowed = [
      edge('routes/config.ts', 'routes/http/cached-json.js'),
      edge('routes/http/validator-compiler.ts', 'routes/schemas/request-marks.js'),
      edge('routes/web/web-routes.ts', 'routes/schemas/offered-enums.js'),
      edge('core/sensor.ts', 'core/firmware/firmware-manager.js'),
      edge('core/discovery/mdns-advertiser.ts', 'core/sensor.js', true),
    ];
    expect(layerViolations(allowed)).toEqual([]);
    const problems = layerViolations([
      ...allowed,
      // The validation step reading a route file's schema helpers: http/ would sit above the plugins it serves.
      edge('routes/http/validator-compiler.ts', 'routes/api-schemas.js'),
      edge('routes/schemas/request-marks.ts', 'routes/http/problem.js'),
      // A type counts: the firmware slots would know the fault plane's seam, which is built from them.
      edge('core/firmware/firmware-manager.ts', 'core/fault-controls.js', true),
    ]);
    expect(problems).toEqual([
      expect.stringContaining(
        'routes/http/validator-compiler.ts imports routes/api-schemas.js: routes/http/ is below the loose files of routes/',
      ),
      expect.stringContaining(
        'routes/schemas/request-marks.ts imports routes/http/problem.js: routes/schemas/ is below routes/http/',
      ),
      expect.stringContaining(
        'core/firmware/firmware-manager.ts imports core/fault-controls.js: core/firmware/ is below the loose files of core/',
      ),
    ]);
  });

  it('tells an import of types alone from one that loads code', () => {
    const fromWorker = importEdges().filter((e) => e.from === src('udp/worker/emitter-run.ts'));
    expect(fromWorker.find((e) => e.to === src('udp/contract/stream-plan.js'))?.typeOnly).toBe(true);
    expect(fromWorker.find((e) => e.to === src('udp/worker/replay-stream.js'))?.typeOnly).toBe(false);
  });

  it('flags a cycle between files', () => {
    const cycles = importCycles([
      edge('udp/a.ts', 'udp/b.js'),
      edge('udp/b.ts', 'udp/c.js'),
      edge('udp/c.ts', 'udp/a.js'),
      edge('udp/c.ts', 'model/index.js'),
    ]);
    expect(cycles).toEqual([['udp/a.ts', 'udp/b.ts', 'udp/c.ts']]);
  });
});
