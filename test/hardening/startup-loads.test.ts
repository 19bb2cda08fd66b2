/**
 * What a start of the built unit loads: the packages required on first use (dist/first-use-packages.cjs:
 * the schema compilers, the zone set zip reader) stay out of a start and of the plain reads, and come in
 * the moment a request needs one. fflate in the start-up chunks, evaluated at every start, had V8 optimize its table-building loops with its top tier and keep that compiler's code
 * resident in every unit (docs/benchmarks.md has the memory it cost).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';
import { stlZoneSetZip } from '../zones/zone-set-zips.js';

const dir = mkdtempSync(join(tmpdir(), 'startup-loads-'));
const loadedList = join(dir, 'loaded.txt');
/** Module hooks the unit's Node.js runs first: every module loaded (import or require) goes on a list. */
const hooks = join(dir, 'record-loads.mjs');
let unit: CliProcess;

const loaded = () => readFileSync(loadedList, 'utf8').trim().split('\n');
const firstUse = () => loaded().filter((url) => url.endsWith('/first-use-packages.cjs'));

beforeAll(async () => {
  writeFileSync(loadedList, '');
  writeFileSync(
    hooks,
    `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loadedList)}, url + '\\n'); return next(url, context); } });
`,
  );
  unit = await startCli({ args: ['--firmware-version', '3.2'], env: { NODE_OPTIONS: `--import ${hooks}` } });
});
afterAll(async () => {
  if (unit) {
    await unit.stop();
    removeDir(unit.dataDir);
  }
  removeDir(dir);
});

describe('a start of the built unit', () => {
  it('loads its own chunks and no first-use package, also after reading metadata, configuration and alerts', async () => {
    // (GET /api/v1/time compiles its serializer on first use: docs/architecture.md, the build.)
    for (const path of ['/api/v1/sensor/metadata', '/api/v1/sensor/config', '/api/v1/sensor/alerts'])
      expect((await fetch(`${unit.baseUrl}${path}`)).status, path).toBe(200);
    expect(loaded().some((url) => /\/dist\/chunk-[^/]+\.js$/.test(url))).toBe(true);
    expect(firstUse()).toEqual([]);
  });

  it('loads the zip reader when a zone set is first staged, and the set is read with it', async () => {
    const zip = stlZoneSetZip([{ id: 3, min: [1, -0.5, -0.5], max: [2, 0.5, 0.5], pointCount: 5 }]);
    const staged = await fetch(`${unit.baseUrl}/api/v1/zone_monitor/staged/zip`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: zip,
    });
    expect(staged.status, await staged.text()).toBeLessThan(300);
    expect(firstUse()).toHaveLength(1);
    const back = await fetch(`${unit.baseUrl}/api/v1/zone_monitor/staged/zip`);
    expect(Buffer.from(await back.arrayBuffer()).equals(Buffer.from(zip))).toBe(true);
  });
});
