/**
 * The JSON bytes of `GET /api/v1/time`, made for pollers: everything but six live numbers changes only
 * when the PTP data sets, the tracking report, the active configuration or the timing inputs are
 * replaced (each is a new object then), so those bytes are rendered once per change, with the
 * schemas' serializers, and each request writes the clocks it reads between them. Every value is as live as before:
 * the sensor clocks are read at one instant per request, the system clocks at another.
 */
import type { SensorConfig } from '../config/registry.js';
import type { ChronyTracking, SystemClockReading, TimingInputs } from '../hal/time.js';
import type { PtpTime, SensorClocks, SensorTime, TimeService } from '../sensor/time-service.js';
import { ByteSlab } from '../util/byte-slab.js';
import { isPromise, type MaybePromise } from '../util/maybe-promise.js';
import { PtpSchema, SensorTimeSchema, TrackingSchema } from './time-schemas.js';
import { schemaSerializer } from './schema-serializer.js';

/** The document's bytes around the live numbers, and what they were rendered from. */
interface Frame {
  ptp: PtpTime;
  tracking: ChronyTracking;
  config: Readonly<SensorConfig>;
  inputs: TimingInputs;
  /** Up to `"timestamp":{..."time":`, then the bytes after each live number, in document order. */
  head: Buffer;
  afterTime: Buffer;
  afterInternalOsc: Buffer;
  afterPtp1588: Buffer;
  afterSyncPulseIn: Buffer;
  afterMonotonic: Buffer;
  tail: Buffer;
  /** Bytes of all the parts above together. */
  fixedBytes: number;
}

const serializeMultipurposeIo = schemaSerializer<SensorTime['multipurpose_io']>(
  SensorTimeSchema.properties.multipurpose_io,
);
const serializeSyncPulseIn = schemaSerializer<SensorTime['sync_pulse_in']>(SensorTimeSchema.properties.sync_pulse_in);
const serializePtp = schemaSerializer<PtpTime>(PtpSchema);
const serializeTracking = schemaSerializer<ChronyTracking>(TrackingSchema);

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
  const parts = {
    head: Buffer.from(
      `{"ptp":${serializePtp(ptp)},"sensor":{"multipurpose_io":${serializeMultipurposeIo(sensor.multipurpose_io)}` +
        `,"sync_pulse_in":${serializeSyncPulseIn(sensor.sync_pulse_in)},"timestamp":{"mode":${JSON.stringify(config.timestamp_mode)},"time":`,
    ),
    afterTime: Buffer.from(',"time_options":{"internal_osc":'),
    afterInternalOsc: Buffer.from(',"ptp_1588":'),
    afterPtp1588: Buffer.from(',"sync_pulse_in":'),
    afterSyncPulseIn: Buffer.from('}}},"system":{"monotonic":'),
    afterMonotonic: Buffer.from(',"realtime":'),
    tail: Buffer.from(`,"tracking":${serializeTracking(tracking)}}}`),
  };
  const fixedBytes = Object.values(parts).reduce((sum, part) => sum + part.length, 0);
  return { ptp, tracking, config, inputs, ...parts, fixedBytes };
}

/**
 * The bytes of one answer: the frame's parts copied around the six numbers written in place. No
 * per-request string of the whole document: building and encoding one cost more than the rest of
 * the route (a concatenation of pre-rendered text is flattened again on every encode).
 */
const answers = new ByteSlab();

function compose(f: Frame, clocks: SensorClocks, system: SystemClockReading): Buffer {
  const time = num(clocks.time);
  const internalOsc = num(clocks.internal_osc);
  const ptp1588 = num(clocks.ptp_1588);
  const syncPulseIn = num(clocks.sync_pulse_in);
  const monotonic = num(system.monotonic);
  const realtime = num(system.realtime);
  const out = answers.take(
    f.fixedBytes +
      time.length +
      internalOsc.length +
      ptp1588.length +
      syncPulseIn.length +
      monotonic.length +
      realtime.length,
  );
  let at = copy(out, f.head, 0);
  at = copy(out, f.afterTime, ascii(out, time, at));
  at = copy(out, f.afterInternalOsc, ascii(out, internalOsc, at));
  at = copy(out, f.afterPtp1588, ascii(out, ptp1588, at));
  at = copy(out, f.afterSyncPulseIn, ascii(out, syncPulseIn, at));
  at = copy(out, f.afterMonotonic, ascii(out, monotonic, at));
  copy(out, f.tail, ascii(out, realtime, at));
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

/** The answer's bytes: at once while the HAL has PTP and tracking cached, else once they are read. */
export function timeDocumentBytes(time: TimeService): () => MaybePromise<Buffer> {
  let frame: Frame | undefined;
  const answer = (ptp: PtpTime, tracking: ChronyTracking): Buffer => {
    const config = time.activeConfiguration();
    const inputs = time.timingInputs();
    let f = frame;
    if (f?.ptp !== ptp || f.tracking !== tracking || f.config !== config || f.inputs !== inputs) {
      f = frame = render(time, ptp, tracking, config, inputs);
    }
    return compose(f, time.sensorClocks(config), time.systemClock());
  };
  return () => {
    const ptp = time.ptp();
    const tracking = time.tracking();
    if (isPromise(ptp) || isPromise(tracking)) return Promise.all([ptp, tracking]).then(([p, t]) => answer(p, t));
    return answer(ptp, tracking);
  };
}
