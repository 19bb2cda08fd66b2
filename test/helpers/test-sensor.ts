/**
 * A unit for in-process tests: the composition root (src/main/unit.ts) on a fresh data directory with the
 * sim HAL; the app is not listening (use `app.inject`). `reopen()` simulates a power cycle on the
 * same directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Hal } from '../../src/hal/types.js';
import type { Sensor } from '../../src/core/sensor.js';
import { createUnit, type UnitOptions } from '../../src/main/unit.js';

export interface TestSensorOptions {
  product?: string;
  serial?: string;
  dataDir?: string;
  /** Replace the HAL (e.g. with a recording fake). */
  hal?: (defaults: Hal) => Hal;
  simulatedRebootMs?: number;
  /** Further options of the unit (firmware policy, write access, a logger). */
  unit?: Partial<UnitOptions>;
}

export interface TestSensor {
  app: FastifyInstance;
  sensor: Sensor;
  /** The HAL the unit runs on (the sim HAL, or what `options.hal` made of it). */
  hal: Hal;
  dataDir: string;
  /** Closes everything and opens a new unit on the same data directory (a power cycle). */
  reopen(): Promise<TestSensor>;
  close(): Promise<void>;
}

export async function createTestSensor(options: TestSensorOptions = {}): Promise<TestSensor> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sensor-test-'));
  const unit = await createUnit({
    dataDir,
    product: options.product ?? 'OS-1-128',
    serial: options.serial ?? '122201000123',
    host: '127.0.0.1',
    bindDataToHost: false,
    wrapHal: options.hal,
    simulatedRebootMs: options.simulatedRebootMs ?? 50,
    ...options.unit,
  });
  return {
    app: unit.app,
    sensor: unit.sensor,
    hal: unit.hal,
    dataDir,
    close: () => unit.close(),
    async reopen() {
      await unit.close();
      return createTestSensor({ ...options, dataDir });
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A configuration change as a POST makes it, without HTTP: the value rules, then the change. */
export function changeConfig(
  sensor: Sensor,
  input: Record<string, unknown>,
  flags: { reinit: boolean; persist: boolean },
): Promise<void> {
  return sensor.configs.change(sensor.configs.check(input, 'staged'), flags);
}
