/**
 * The JSON bytes of `GET /api/v1/time`, made for pollers: everything but six live numbers changes only
 * when the PTP data sets, the tracking report, the active configuration or the timing inputs are
 * replaced (each is a new object then), so those bytes are rendered once per change, with the
 * schemas' serializers, and each request writes the clocks it reads between them. Every value is as
 * live as before: the sensor clocks are read at one instant per request, the system clocks at another.
 */
import type { SensorConfig } from '../config/index.js';
import { type ChronyTracking, ChronyTrackingSchema, type SystemClockReading, type TimingInputs } from '../hal/index.js';
import {
  type PtpTime,
  PtpTimeSchema,
  type SensorClocks,
  type SensorTime,
  SensorTimeSchema,
  type TimeService,
} from '../core/index.js';
import { ByteSlab, type MaybePromise } from '../model/index.js';
import { schemaSerializer } from './http/schema-serializer.js';

/** The document's bytes around the live numbers, and what they were rendered from. */
interface Frame {
  ptp: PtpTime;
  tracking: ChronyTracking;
  config: Readonly<SensorConfig>;
  inputs: TimingInputs;
  /**
   * The text before the first live number, between each two, and after the last, in document order
   * (one more than the numbers of `liveNumbers`).
   */
  parts: Buffer[];
  /** Bytes of all the parts together. */
  fixedBytes: number;
}

const serializeMultipurposeIo = schemaSerializer<SensorTime['multipurpose_io']>(
  SensorTimeSchema.properties.multipurpose_io,
);
const serializeSyncPulseIn = schemaSerializer<SensorTime['sync_pulse_in']>(SensorTimeSchema.properties.sync_pulse_in);
const serializePtp = schemaSerializer<PtpTime>(PtpTimeSchema);
const serializeTracking = schemaSerializer<ChronyTracking>(ChronyTrackingSchema);

/** JSON of a finite number, as the schema serializers (and JSON.stringify) write it: ASCII only. */
const num = (value: number): string => (Number.isFinite(value) ? `${value}` : 'null');

function render(
  time: TimeService,
  ptp: PtpTime,
  tracking: ChronyTracking,
  config: Readonly<SensorConfig>,
  inputs: TimingInputs,
): Frame {
  // The static members come from the same assembly as GET /time/sensor, so both always agree.
  const sensor = time.sensor();
  const parts = [
    `{"ptp":${serializePtp(ptp)},"sensor":{"multipurpose_io":${serializeMultipurposeIo(sensor.multipurpose_io)}` +
      `,"sync_pulse_in":${serializeSyncPulseIn(sensor.sync_pulse_in)},"timestamp":{"mode":${JSON.stringify(config.timestamp_mode)},"time":`,
    ',"time_options":{"internal_osc":',
    ',"ptp_1588":',
    ',"sync_pulse_in":',
    '}}},"system":{"monotonic":',
    ',"realtime":',
    `,"tracking":${serializeTracking(tracking)}}}`,
  ].map((text) => Buffer.from(text));
  const fixedBytes = parts.reduce((sum, part) => sum + part.length, 0);
  return { ptp, tracking, config, inputs, parts, fixedBytes };
}

/** The six live numbers, in document order: read per request, the sensor's clocks at one instant. */
function liveNumbers(clocks: SensorClocks, system: SystemClockReading): string[] {
  return [
    clocks.time,
    clocks.internal_osc,
    clocks.ptp_1588,
    clocks.sync_pulse_in,
    system.monotonic,
    system.realtime,
  ].map(num);
}

const answers = new ByteSlab();

/**
 * The bytes of one answer: the frame's parts copied around the numbers written in place. No
 * per-request string of the whole document: building and encoding one cost more than the rest of
 * the route (a concatenation of pre-rendered text is flattened again on every encode).
 */
function compose(f: Frame, numbers: readonly string[]): Buffer {
  let size = f.fixedBytes;
  for (const text of numbers) size += text.length;
  const out = answers.take(size);
  let at = copy(out, f.parts[0], 0);
  for (let i = 0; i < numbers.length; i++) at = copy(out, f.parts[i + 1], ascii(out, numbers[i], at));
  return out;
}

// Byte loops for the short pieces: a native call (Buffer#write, TypedArray#set) costs more than
// copying the dozen bytes of a number or a key.
const SHORT = 64;

function copy(out: Buffer, part: Buffer, at: number): number {
  if (part.length > SHORT) out.set(part, at);
  else for (let i = 0; i < part.length; i++) out[at + i] = part[i];
  return at + part.length;
}

/** `text` is a number's JSON: ASCII, one byte per character. */
function ascii(out: Buffer, text: string, at: number): number {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** The answer's bytes (see timeDocumentBytes). */
export interface TimeDocumentBytes {
  /** At once while the time service has fresh PTP and tracking readings, else once they are read. */
  (): MaybePromise<Buffer>;
  /** At once, or undefined while a reading is under way (nothing is read then). */
  atHand(): Buffer | undefined;
}

/** The answer's bytes: at once while the time service has fresh PTP and tracking readings, else once they are read. */
export function timeDocumentBytes(time: TimeService): TimeDocumentBytes {
  let frame: Frame | undefined;
  const answer = (ptp: PtpTime, tracking: ChronyTracking): Buffer => {
    const config = time.activeConfiguration();
    const inputs = time.timingInputs();
    let f = frame;
    if (f?.ptp !== ptp || f.tracking !== tracking || f.config !== config || f.inputs !== inputs) {
      f = frame = render(time, ptp, tracking, config, inputs);
    }
    return compose(f, liveNumbers(time.sensorClocks(config), time.systemClock()));
  };
  const atHand = (): Buffer | undefined => {
    const ptp = time.ptpAtHand();
    const tracking = time.trackingAtHand();
    return ptp && tracking ? answer(ptp, tracking) : undefined;
  };
  return Object.assign(() => atHand() ?? Promise.all([time.ptp(), time.tracking()]).then(([p, t]) => answer(p, t)), {
    atHand,
  });
}
