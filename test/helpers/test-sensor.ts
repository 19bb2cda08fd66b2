/**
 * A unit for in-process tests: a fresh data directory, the sim HAL, the device core and the Fastify
 * app (un-listened; use `app.inject`). `reopen()` simulates a power cycle on the same directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createSimHal } from '../../src/hal/sim/index.js';
import type { Hal } from '../../src/hal/types.js';
import { createPersistentAlertLog } from '../../src/alerts/persistent-alert-log.js';
import { makeIdentity } from '../../src/model/identity.js';
import { findProduct } from '../../src/model/products.js';
import { Sensor } from '../../src/sensor/sensor.js';
import { openDatabase } from '../../src/store/database.js';

export interface TestSensorOptions {
  product?: string;
  serial?: string;
  dataDir?: string;
  /** Replace the HAL (e.g. with a recording fake). */
  hal?: (defaults: Hal) => Hal;
  simulatedRebootMs?: number;
}

export interface TestSensor {
  app: FastifyInstance;
  sensor: Sensor;
  dataDir: string;
  /** Closes everything and opens a new unit on the same data directory (a power cycle). */
  reopen(): Promise<TestSensor>;
  close(): Promise<void>;
}

export async function createTestSensor(options: TestSensorOptions = {}): Promise<TestSensor> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sensor-test-'));
  const product = findProduct(options.product ?? 'OS-1-128');
  if (!product) throw new Error(`unknown product ${options.product}`);
  const db = openDatabase(dataDir);
  const identity = makeIdentity(product, options.serial ?? '122201000123');
  const log = pino({ level: 'silent' });
  const alerts = createPersistentAlertLog(db, log);
  const simHal = createSimHal({ product, serialNumber: identity.serialNumber, alerts, listenAddress: '127.0.0.1', dataDir });
  const hal = options.hal ? options.hal(simHal) : simHal;
  const sensor = await Sensor.start({ db, hal, identity, log, alerts, simulatedRebootMs: options.simulatedRebootMs ?? 50 });
  const app = await buildApp(sensor);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await sensor.close();
    db.close();
  };
  return {
    app,
    sensor,
    dataDir,
    close,
    async reopen() {
      await close();
      return createTestSensor({ ...options, dataDir });
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
