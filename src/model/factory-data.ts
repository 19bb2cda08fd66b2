/**
 * The unit's factory data: what the factory writes once and nothing after it changes (serial number,
 * MAC address, calibration time). It lives apart from the mutable store, in a small file of its own
 * (src/store/factory-file.ts), so a damaged or reset configuration never changes who the unit is.
 * The text carries a SHA-256 of its fields, so damage is told from data.
 */
import { createHash } from 'node:crypto';
import { calibrationTimestampFor, serialProblem } from './identity.js';
import { macFromSerial } from './mac.js';

export interface FactoryData {
  serialNumber: string;
  macAddress: string;
  calibrationTimestamp: string;
}

const FORMAT = 1;

/** The factory data a simulated unit is given for `serialNumber` (its MAC and calibration follow from it). */
export function factoryDataFor(serialNumber: string): FactoryData {
  return {
    serialNumber,
    macAddress: macFromSerial(BigInt(serialNumber)),
    calibrationTimestamp: calibrationTimestampFor(serialNumber),
  };
}

function fieldsOf(data: FactoryData) {
  return {
    format: FORMAT,
    serial_number: data.serialNumber,
    mac_address: data.macAddress,
    calibration_timestamp: data.calibrationTimestamp,
  };
}

const digest = (fields: object) => createHash('sha256').update(JSON.stringify(fields)).digest('hex');

export function encodeFactoryData(data: FactoryData): string {
  const fields = fieldsOf(data);
  return `${JSON.stringify({ ...fields, sha256: digest(fields) }, null, 2)}\n`;
}

/** The factory data in `text`, or why it cannot be trusted. */
export function decodeFactoryData(text: string): FactoryData | { problem: string } {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { problem: 'it is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { problem: 'it is not a JSON object' };
  const { serial_number, mac_address, calibration_timestamp, sha256 } = parsed;
  if (parsed.format !== FORMAT) return { problem: `its format is ${JSON.stringify(parsed.format)}, not ${FORMAT}` };
  if (typeof serial_number !== 'string' || typeof mac_address !== 'string' || typeof calibration_timestamp !== 'string')
    return { problem: 'a field is missing' };
  const data = { serialNumber: serial_number, macAddress: mac_address, calibrationTimestamp: calibration_timestamp };
  if (sha256 !== digest(fieldsOf(data))) return { problem: 'its checksum does not match its fields' };
  const serial = serialProblem(serial_number);
  if (serial) return { problem: `its serial number is unusable (${serial})` };
  return data;
}
