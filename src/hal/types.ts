/**
 * The hardware abstraction layer: what the device core needs from the unit it runs on.
 * Types only. Implementations: src/hal/sim (simulated unit, the default) and src/hal/linux
 * (a real unit: iproute2, chrony, linuxptp, A/B firmware slots). Each part lives in its own file.
 */
import type { StreamsHal } from './streams.js';
import type { NetworkHal } from './network.js';
import type { TimeHal } from './time.js';
import type { TelemetryHal } from './telemetry.js';
import type { PowerHal } from './power.js';
import type { FirmwareHal } from './firmware.js';

export type HalKind = 'sim' | 'linux';
export const HAL_KINDS: readonly HalKind[] = ['sim', 'linux'];

export interface Hal {
  readonly kind: HalKind;
  readonly streams: StreamsHal;
  readonly network: NetworkHal;
  readonly time: TimeHal;
  readonly telemetry: TelemetryHal;
  readonly power: PowerHal;
  readonly firmware: FirmwareHal;
  /** Stop every stream and timer and release sockets; called once at shutdown. */
  close(): Promise<void>;
}

export type { StreamsHal, NetworkHal, TimeHal, TelemetryHal, PowerHal, FirmwareHal };
