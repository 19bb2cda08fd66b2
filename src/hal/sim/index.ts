/**
 * The simulated unit: every HAL part modelled in-process. Each part lives in its own file.
 */
import type { AlertSink } from '../../alerts/alert-sink.js';
import type { Hal } from '../types.js';
import type { ProductModel } from '../../sensor/products.js';
import { createPlaceholderParts } from './placeholder-parts.js';
import { SimTelemetry } from './telemetry-sim.js';

export interface SimHalOptions {
  product: ProductModel;
  serialNumber: string;
  /** Where HAL parts report alert conditions (the device core's alert log). */
  alerts: AlertSink;
  /** HTTP listen address, for the simulated network interface. */
  listenAddress: string;
  dataDir: string;
}

export function createSimHal(options: SimHalOptions): Hal {
  const parts = { ...createPlaceholderParts(options), telemetry: new SimTelemetry() };
  return {
    kind: 'sim',
    ...parts,
    async close() {
      await Promise.all([parts.lidar.close(), parts.network.close(), parts.time.close(), parts.telemetry.close(), parts.power.close(), parts.firmware.close()]);
    },
  };
}
