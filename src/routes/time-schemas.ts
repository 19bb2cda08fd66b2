/**
 * Response schemas of the time resources. They fix the key order (the spec's) and the JSON types,
 * and serialize `ingress_time` (a bigint, ns since the epoch) as an exact JSON integer.
 */
import { Type } from '@sinclair/typebox';

const Int = Type.Integer();
const Num = Type.Number();
const Str = Type.String();

export const TrackingSchema = Type.Object({
  frequency: Num,
  last_offset: Num,
  leap_status: Str,
  ref_time_utc: Num,
  reference_id: Str,
  remote_host: Str,
  residual_frequency: Num,
  rms_offset: Num,
  root_delay: Num,
  root_dispersion: Num,
  skew: Num,
  stratum: Int,
  system_time_offset: Num,
  update_interval: Num,
});

export const SystemTimeSchema = Type.Object({ monotonic: Num, realtime: Num, tracking: TrackingSchema });

export const PtpSchema = Type.Object({
  current_data_set: Type.Object({ mean_path_delay: Num, offset_from_master: Num, steps_removed: Int }),
  parent_data_set: Type.Object({
    gm_clock_accuracy: Int,
    gm_clock_class: Int,
    gm_offset_scaled_log_variance: Int,
    grandmaster_identity: Str,
    grandmaster_priority1: Int,
    grandmaster_priority2: Int,
    observed_parent_clock_phase_change_rate: Int,
    observed_parent_offset_scaled_log_variance: Int,
    parent_port_identity: Str,
    parent_stats: Int,
  }),
  port_data_set: Type.Object({
    announce_receipt_timeout: Int,
    delay_mechanism: Int,
    log_announce_interval: Int,
    log_min_delay_req_interval: Int,
    log_min_pdelay_req_interval: Int,
    log_sync_interval: Int,
    peer_mean_path_delay: Num,
    port_identity: Str,
    port_state: Str,
    version_number: Int,
  }),
  profile: Str,
  time_properties_data_set: Type.Object({
    current_utc_offset: Int,
    current_utc_offset_valid: Int,
    frequency_traceable: Int,
    leap59: Int,
    leap61: Int,
    ptp_timescale: Int,
    time_source: Int,
    time_traceable: Int,
  }),
  time_status_np: Type.Object({
    cumulative_scaled_rate_offset: Num,
    gm_identity: Str,
    gm_present: Type.Boolean(),
    gm_time_base_indicator: Int,
    ingress_time: Type.Unsafe<bigint>(Int),
    last_gm_phase_change: Str,
    master_offset: Num,
    scaled_last_gm_phase_change: Int,
  }),
});

export const SensorTimeSchema = Type.Object({
  multipurpose_io: Type.Object({
    mode: Str,
    nmea: Type.Object({
      baud_rate: Str,
      diagnostics: Type.Object({
        decoding: Type.Object({
          date_decoded_count: Int,
          last_read_message: Str,
          not_valid_count: Int,
          utc_decoded_count: Int,
        }),
        io_checks: Type.Object({ bit_count: Int, bit_count_unfiltered: Int, char_count: Int, start_char_count: Int }),
      }),
      ignore_valid_char: Int,
      leap_seconds: Int,
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
    time: Num,
    time_options: Type.Object({ internal_osc: Int, ptp_1588: Int, sync_pulse_in: Int }),
  }),
});

export const TimeSchema = Type.Object({ ptp: PtpSchema, sensor: SensorTimeSchema, system: SystemTimeSchema });
