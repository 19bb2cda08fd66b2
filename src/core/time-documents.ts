/**
 * The documents of the time resources (`GET /api/v1/time`, `/time/ptp`, `/time/sensor`, `/time/system`),
 * stated once as JSON schemas: the routes declare and serialize them (key order: the spec's; `ingress_time`
 * an exact JSON integer), and the time service's types derive from them (`Static`). The clocks' own
 * reports (tracking, PTP data sets, NMEA diagnostics) are the HAL's schemas (src/hal/time-documents.ts).
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  ChronyTrackingSchema,
  type DeepReadonly,
  NmeaDecodingSchema,
  NmeaIoChecksSchema,
  PtpDataSetsSchema,
} from '../hal/index.js';

const Int = Type.Integer();
const Num = Type.Number();
const Str = Type.String();

export const SystemTimeSchema = Type.Object({ monotonic: Num, realtime: Num, tracking: ChronyTrackingSchema });

const { current_data_set, parent_data_set, port_data_set, time_properties_data_set, time_status_np } =
  PtpDataSetsSchema.properties;

/** The PTP daemon's data sets and, in the spec's key order among them, the unit's PTP profile. */
export const PtpTimeSchema = Type.Object({
  current_data_set,
  parent_data_set,
  port_data_set,
  profile: Str,
  time_properties_data_set,
  time_status_np,
});

export const SensorTimeSchema = Type.Object({
  multipurpose_io: Type.Object({
    mode: Str,
    nmea: Type.Object({
      baud_rate: Str,
      diagnostics: Type.Object({ decoding: NmeaDecodingSchema, io_checks: NmeaIoChecksSchema }),
      ignore_valid_char: Int,
      leap_seconds: Int,
      /** 0/1 as real units report it. */
      locked: Int,
      polarity: Str,
    }),
    sync_pulse_out: Type.Object({ angle_deg: Int, frequency_hz: Int, polarity: Str, pulse_width_ms: Int }),
  }),
  sync_pulse_in: Type.Object({
    diagnostics: Type.Object({ count: Int, count_unfiltered: Int, last_period_nsec: Int }),
    locked: Int,
    polarity: Str,
  }),
  timestamp: Type.Object({
    mode: Str,
    /** Seconds of the clock `mode` selects: the clock of the packets' timestamps. */
    time: Num,
    /** Whole seconds of each of the three clocks. */
    time_options: Type.Object({ internal_osc: Int, ptp_1588: Int, sync_pulse_in: Int }),
  }),
});

export const TimeSchema = Type.Object({ ptp: PtpTimeSchema, sensor: SensorTimeSchema, system: SystemTimeSchema });

export type SensorTime = Static<typeof SensorTimeSchema>;
export type SystemTime = DeepReadonly<Static<typeof SystemTimeSchema>>;
/** `GET /api/v1/time/ptp`: identity-cached by the time service (one object per reading and profile), so read-only. */
export type PtpTime = DeepReadonly<Static<typeof PtpTimeSchema>>;
export type TimeDocument = DeepReadonly<Static<typeof TimeSchema>>;
