/**
 * Identity of one unit: its product model, serial number, firmware build and calibration date,
 * plus the `initialization_id` generator. Pure functions; the device core persists the serial of a
 * unit in its factory data file (src/main/factory-identity.ts).
 */
import type { ProductModel } from './products.js';
import { utcIsoString } from './util/utc-time.js';

/** `prod_sn` must fit the 40-bit field of every lidar packet. */
export const SERIAL_LIMIT = 1n << 40n;
/** `initialization_id` must fit the 24-bit `init_id` field of every packet. */
export const INIT_ID_LIMIT = 1 << 24;

/** A firmware build, as `sensor_info` and `GET /api/v1/system/firmware` report it. */
export interface FirmwareBuild {
  /** "3.1.0": clients parse `vX.Y.Z` out of `image_rev` and refuse anything below 2.4. */
  version: string;
  /** The build machine name of the image, e.g. "bootes". */
  machine: string;
  /** Build time, UTC, `YYYY-MM-DDThh:mm:ssZ` (`sensor_info.build_date`). */
  buildDate: string;
}

/** What a simulated unit claims by default: firmware 3.1.x, the one the spec describes. */
export const FACTORY_FIRMWARE: FirmwareBuild = {
  version: '3.1.0',
  machine: 'bootes',
  buildDate: '2024-04-26T04:17:47Z',
};

/** Firmware 3.2: the first with Zone Monitor (docs/zone-monitor.md). */
export const FIRMWARE_3_2: FirmwareBuild = {
  version: '3.2.0',
  machine: 'bootes',
  buildDate: '2025-06-18T09:30:12Z',
};

/** The firmware lines a simulated unit can claim (`--firmware-version`), each with the build it reports. */
export const FIRMWARE_LINES = { '3.1': FACTORY_FIRMWARE, '3.2': FIRMWARE_3_2 } as const;
export type FirmwareLine = keyof typeof FIRMWARE_LINES;

/** Whether a build offers Zone Monitor: firmware 3.2 and later, as clients gate on it. */
export function hasZoneMonitor(fw: Pick<FirmwareBuild, 'version'>): boolean {
  const [major, minor] = fw.version.split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 2);
}

/** `image_rev` = `ousteros-image-prod-bootes-v3.1.0+20240426041747` (also `fw` of `GET /api/v1/system/firmware`). */
export function imageRev(fw: FirmwareBuild): string {
  return `ousteros-image-prod-${fw.machine}-v${fw.version}+${fw.buildDate.replace(/[^0-9]/g, '')}`;
}

/** `build_rev` = `v3.1.0`. */
export function buildRev(fw: FirmwareBuild): string {
  return `v${fw.version}`;
}

export interface SensorIdentity {
  product: ProductModel;
  /** `prod_sn`: a decimal string that fits 40 bits. */
  serialNumber: string;
  firmware: FirmwareBuild;
  /** Factory reflectivity calibration, `YYYY-MM-DDThh:mm:ss` (no zone, as real units report it). */
  calibrationTimestamp: string;
  /** The MAC address of the factory data (src/model/factory-data.ts); a simulated unit's follows from its serial otherwise. */
  macAddress?: string;
  /**
   * A replayed recording's firmware fields, served verbatim in sensor_info (recorded units run builds
   * whose image_rev need not have the form FirmwareBuild describes).
   */
  recordedFirmware?: { imageRev: string; buildRev: string; buildDate: string };
}

/**
 * The image_rev the unit reports wherever it names its firmware (sensor_info, mDNS, /metrics): a replayed
 * recording's own while the unit runs its factory image, else the running build's.
 */
export function reportedImageRev(identity: SensorIdentity): string {
  return identity.recordedFirmware?.imageRev ?? imageRev(identity.firmware);
}

/** Why `value` is not a usable serial number, or undefined when it is one. */
export function serialProblem(value: string): string | undefined {
  if (!/^[0-9]{1,13}$/.test(value)) return 'a serial number is a decimal string of 1 to 13 digits';
  if (BigInt(value) >= SERIAL_LIMIT) return `a serial number must be below 2^40 (${SERIAL_LIMIT})`;
  if (BigInt(value) === 0n) return 'a serial number must not be 0';
  return undefined;
}

/** The serial number as the integer of the packets' `prod_sn` field. */
export function serialToBigInt(serial: string): bigint {
  return BigInt(serial);
}

/** A new 12-digit serial in the form of real units ("12" + year + week + six digits); always below 2^40. */
export function generateSerial(now = new Date(), random: () => number = Math.random): string {
  const year = String(now.getUTCFullYear() % 100).padStart(2, '0');
  const week = String(1 + Math.floor(random() * 52)).padStart(2, '0');
  const unit = String(Math.floor(random() * 1_000_000)).padStart(6, '0');
  return `12${year}${week}${unit}`;
}

const CALIBRATION_EPOCH_S = Date.UTC(2023, 0, 1) / 1000;
const YEAR_S = 365 * 24 * 3600;

/**
 * Factory calibration time of a unit, derived from its serial so it needs no storage of its own and is
 * the same on every start: a moment in 2023.
 */
export function calibrationTimestampFor(serial: string): string {
  const seconds = CALIBRATION_EPOCH_S + Number((BigInt(serial) * 2_654_435_761n) % BigInt(YEAR_S));
  return utcIsoString(seconds * 1000).slice(0, 19);
}

export function makeIdentity(
  product: ProductModel,
  serialNumber: string,
  firmware: FirmwareBuild = FACTORY_FIRMWARE,
): SensorIdentity {
  const problem = serialProblem(serialNumber);
  if (problem) throw new Error(`invalid serial number "${serialNumber}": ${problem}`);
  return { product, serialNumber, firmware, calibrationTimestamp: calibrationTimestampFor(serialNumber) };
}

/**
 * A fresh `initialization_id`: 24 bits, never 0 and never equal to `previous`, so a client comparing
 * init ids always sees a reinit.
 */
export function nextInitializationId(previous?: number, random: () => number = Math.random): number {
  const id = 1 + Math.floor(random() * (INIT_ID_LIMIT - 1));
  return id !== previous ? id : (id % (INIT_ID_LIMIT - 1)) + 1;
}
