/**
 * The simulated unit: every HAL part modelled in-process. Each part lives in its own file.
 */
import type { Logger } from 'pino';
import { type AlertSink, macFromSerial } from '../../model/index.js';
import type { Hal } from '../types.js';
import { assembleHal } from '../assemble.js';
import type { ReplaySettings } from '../../udp/index.js';
import { EmitterStreams } from '../emitter-streams.js';
import { SimTelemetry } from './telemetry-sim.js';
import { createSimFirmware } from './firmware-sim.js';
import { createSimPower } from './power-sim.js';
import { SimTime } from './time-sim.js';
import { SimNetwork } from './network-sim.js';

/** The product reaches the HAL with each run's stream plan, not here: the streams are its only user. */
export interface SimHalOptions {
  serialNumber: string;
  /** The factory data's MAC address; else the one that follows from the serial. */
  macAddress?: string;
  /** Where HAL parts report alert conditions (the device core's alert log). */
  alerts: AlertSink;
  /** HTTP listen address, for the simulated network interface. */
  listenAddress: string;
  dataDir: string;
  /** Simulated firmware update: how long the first boot of a new image takes (UPDATING), and the boots it gets before a rollback. */
  firmwareUpdateMs?: number;
  firmwareBootAttempts?: number;
  log?: Logger;
  /** Replay this recording instead of streaming the synthetic scene (`--replay`). */
  replay?: ReplaySettings;
}

export function createSimHal(options: SimHalOptions): Hal {
  const mac = options.macAddress ?? macFromSerial(BigInt(options.serialNumber));
  const parts = {
    streams: new EmitterStreams(options.alerts, options.log, options.replay),
    network: new SimNetwork({ mac, serialNumber: options.serialNumber, listenAddress: options.listenAddress }),
    time: new SimTime(mac),
    telemetry: new SimTelemetry(),
    power: createSimPower(),
    firmware: createSimFirmware({
      dataDir: options.dataDir,
      updateMs: options.firmwareUpdateMs,
      maxBootAttempts: options.firmwareBootAttempts,
    }),
  };
  return assembleHal('sim', parts);
}
export { SimTelemetry } from './telemetry-sim.js';
export type { SimTelemetryInputs } from './telemetry-sim.js';
