/**
 * Start-up with a product model: the real server assembly (startServer: data directory, identity,
 * HAL, device core, listen) for every model, and the real CLI process for OS-2-32 and a bad name.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseCliOptions } from '../../src/main/cli-options.js';
import { startServer } from '../../src/main/server.js';
import { PRODUCT_MODELS, PRODUCT_NAMES } from '../../src/model/products.js';
import { runCli, startCli } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';

const SERIAL_LIMIT = 2n ** 40n;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field below
type Json = any;

async function getJson(url: string): Promise<Json> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.json();
}

/** Everything a client checks when it collects metadata (docs/client-behaviour.md, Firmware identity and Metadata). */
function expectConsistentMetadata(all: Json, productLine: string) {
  const n = Number(productLine.split('-')[2]);
  expect(all.sensor_info.prod_line).toBe(productLine);
  expect(all.sensor_info.status).toBe('RUNNING');
  expect(typeof all.sensor_info.prod_sn).toBe('string');
  expect(BigInt(all.sensor_info.prod_sn) < SERIAL_LIMIT).toBe(true);
  expect(all.sensor_info.initialization_id).toBeLessThan(2 ** 24);
  expect(all.lidar_data_format.pixels_per_column).toBe(n);
  expect(all.beam_intrinsics.beam_altitude_angles).toHaveLength(n);
  expect(all.beam_intrinsics.beam_azimuth_angles).toHaveLength(n);
  const cpf = all.lidar_data_format.columns_per_frame;
  expect(all.lidar_data_format.pixel_shift_by_row).toEqual(
    all.beam_intrinsics.beam_azimuth_angles.map((a: number) => Math.round((a * cpf) / 360)),
  );
  expect(all.lidar_data_format.column_window).toEqual([0, cpf - 1]);
}

describe.each(PRODUCT_MODELS.map((m) => [m.name, m.prodLine] as const))('--product %s', (name, prodLine) => {
  it('starts and serves consistent metadata', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-product-'));
    const options = parseCliOptions(
      ['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--product', name],
      {},
    );
    if (options === 'help') throw new Error('unexpected --help');
    const server = await startServer(options, pino({ level: 'silent' }));
    try {
      expectConsistentMetadata(await getJson(`${server.url}/api/v1/sensor/metadata`), prodLine);
      expect(server.sensor.product.automotiveEthernet).toBe(name.endsWith('-T1'));
    } finally {
      await server.close();
      removeDir(dataDir);
    }
  });
});

describe('the lidar-sensor command', () => {
  it('runs as OS-2-32, keeps its generated serial across restarts and takes a new initialization_id', async () => {
    const first = await startCli({ args: ['--product', 'OS-2-32'] });
    let before: Json;
    try {
      before = await getJson(`${first.baseUrl}/api/v1/sensor/metadata`);
      expectConsistentMetadata(before, 'OS-2-32');
      expect(await getJson(`${first.baseUrl}/api/v1/sensor/metadata/sensor_info`)).toEqual(before.sensor_info);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startCli({ dataDir: first.dataDir, args: ['--product', 'OS-2-32'] });
    try {
      const info = await getJson(`${second.baseUrl}/api/v1/sensor/metadata/sensor_info`);
      expect(info.prod_sn).toBe(before.sensor_info.prod_sn);
      expect(info.initialization_id).not.toBe(before.sensor_info.initialization_id);
    } finally {
      await second.stop();
      removeDir(first.dataDir);
    }
  });

  it('takes --serial', async () => {
    const cli = await startCli({ args: ['--product', 'OS-0-128-T1', '--serial', '1099511627775'] });
    try {
      const info = await getJson(`${cli.baseUrl}/api/v1/sensor/metadata/sensor_info`);
      expect(info).toMatchObject({ prod_line: 'OS-0-128', prod_sn: '1099511627775' });
    } finally {
      await cli.stop();
      removeDir(cli.dataDir);
    }
  });

  it.each(['OS-3-64', 'os-1-128', 'OS-1-16'])(
    'refuses the unknown product %j, listing the valid ones',
    async (name) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'sensor-product-'));
      const { code, stderr } = await runCli(['--port', '0', '--data-dir', dataDir, '--product', name]);
      removeDir(dataDir);
      expect(code).toBe(2);
      expect(stderr).toContain(`unknown product model "${name}"`);
      for (const valid of PRODUCT_NAMES) expect(stderr).toContain(valid);
      expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    },
  );

  it('refuses a serial that does not fit 40 bits', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-product-'));
    const { code, stderr } = await runCli(['--port', '0', '--data-dir', dataDir, '--serial', '1099511627776']);
    removeDir(dataDir);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--serial.*2\^40/);
  });
});
