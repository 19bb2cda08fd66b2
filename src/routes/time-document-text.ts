/**
 * The JSON text of `GET /api/v1/time`, made for pollers: everything but six live numbers changes only
 * when the PTP data sets, the tracking report, the active configuration or the timing inputs are
 * replaced (each is a new object then), so that text is rendered once per change, with the schemas'
 * serializers, and each request splices in the clocks it reads. Every value is as live as before:
 * the sensor clocks are read at one instant per request, the system clocks at another.
 */
import type { SensorConfig } from '../config/registry.js';
import type { ChronyTracking, TimingInputs } from '../hal/time.js';
import type { PtpTime, SensorTime, TimeService } from '../sensor/time-service.js';
import { PtpSchema, SensorTimeSchema, TrackingSchema } from './time-schemas.js';
import { schemaSerializer } from './schema-serializer.js';

/** The document's text around the live numbers, and what it was rendered from. */
interface Frame {
  ptp: PtpTime;
  tracking: ChronyTracking;
  config: Readonly<SensorConfig>;
  inputs: TimingInputs;
  /** Up to `"timestamp":{..."time":`, then the text after each live number, in document order. */
  head: string;
  afterTime: string;
  afterInternalOsc: string;
  afterPtp1588: string;
  afterSyncPulseIn: string;
  afterMonotonic: string;
  tail: string;
}

const serializeMultipurposeIo = schemaSerializer<SensorTime['multipurpose_io']>(
  SensorTimeSchema.properties.multipurpose_io,
);
const serializeSyncPulseIn = schemaSerializer<SensorTime['sync_pulse_in']>(SensorTimeSchema.properties.sync_pulse_in);
const serializePtp = schemaSerializer<PtpTime>(PtpSchema);
const serializeTracking = schemaSerializer<ChronyTracking>(TrackingSchema);

/** JSON of a finite number, as the schema serializers (and JSON.stringify) write it. */
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
  return {
    ptp,
    tracking,
    config,
    inputs,
    head:
      `{"ptp":${serializePtp(ptp)},"sensor":{"multipurpose_io":${serializeMultipurposeIo(sensor.multipurpose_io)}` +
      `,"sync_pulse_in":${serializeSyncPulseIn(sensor.sync_pulse_in)},"timestamp":{"mode":${JSON.stringify(config.timestamp_mode)},"time":`,
    afterTime: ',"time_options":{"internal_osc":',
    afterInternalOsc: ',"ptp_1588":',
    afterPtp1588: ',"sync_pulse_in":',
    afterSyncPulseIn: '}}},"system":{"monotonic":',
    afterMonotonic: ',"realtime":',
    tail: `,"tracking":${serializeTracking(tracking)}}}`,
  };
}

export function timeDocumentText(time: TimeService): () => Promise<string> {
  let frame: Frame | undefined;
  return async () => {
    const ptp = await time.ptp();
    const tracking = await time.tracking();
    const config = time.activeConfiguration();
    const inputs = time.timingInputs();
    let f = frame;
    if (f?.ptp !== ptp || f.tracking !== tracking || f.config !== config || f.inputs !== inputs) {
      f = frame = render(time, ptp, tracking, config, inputs);
    }
    const clocks = time.sensorClocks(config);
    const system = time.systemClock();
    return (
      f.head +
      num(clocks.time) +
      f.afterTime +
      num(clocks.internal_osc) +
      f.afterInternalOsc +
      num(clocks.ptp_1588) +
      f.afterPtp1588 +
      num(clocks.sync_pulse_in) +
      f.afterSyncPulseIn +
      num(system.monotonic) +
      f.afterMonotonic +
      num(system.realtime) +
      f.tail
    );
  };
}
