/**
 * The shapes of the clocks' reports, stated once as JSON schemas (TypeBox) from which the TypeScript
 * types derive (`Static`): the HAL's readings, the parser of pmc's output (src/hal/linux/pmc.ts) and the
 * response schemas of `GET /api/v1/time…` (src/core/time-documents.ts) all use these. Members are in the
 * spec's key order, which the response serializers follow.
 *
 * The readings are identity-cached above the HAL (src/core/time-service.ts): the same object while it
 * is current, its JSON rendered once per object. So they are read-only all the way down, by type.
 */
import { type Static, Type } from '@sinclair/typebox';

const Int = Type.Integer();
const Num = Type.Number();
const Str = Type.String();

/** An exact integer beyond 2^53 (`ingress_time`, ns since the epoch): a bigint, serialized as a JSON integer. */
export const BigIntSchema = Type.Unsafe<bigint>(Type.Integer());

/** Makes every member of a reading's type read-only, nested members too. */
export type DeepReadonly<T> = T extends bigint | string | number | boolean
  ? T
  : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/**
 * `GET /api/v1/time/system` → tracking: exactly the fields of `chronyc tracking`, in its units (seconds,
 * ppm), with chrony's signs (`system_time_offset` < 0: the system clock is ahead). `reference_id`: 8 hex
 * digits, e.g. "C0000201" (an NTP server's IPv4) or "70747000" (refclock "ptp"); `remote_host`: "ptp"
 * when the system clock follows the PTP clock, else the selected NTP server's address, "" when none;
 * `ref_time_utc`: the last reference measurement, seconds since the epoch (0 when none); `leap_status`
 * in lower case: "normal", "insert second", "delete second", "not synchronised".
 */
export const ChronyTrackingSchema = Type.Object({
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
export type ChronyTracking = DeepReadonly<Static<typeof ChronyTrackingSchema>>;

/** linuxptp's CURRENT_DATA_SET, snake_case (offsets and delays in ns). */
export const CurrentDataSetSchema = Type.Object({ mean_path_delay: Num, offset_from_master: Num, steps_removed: Int });

/**
 * PARENT_DATA_SET. Identities as pmc prints them: `parent_port_identity` "bc0fa7.fffe.c48ea8-1";
 * `grandmaster_identity` "bc0fa7.fffe.c48ea8", the unit's own clock identity when no grandmaster is selected.
 */
export const ParentDataSetSchema = Type.Object({
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
});

/**
 * PORT_DATA_SET. `port_state`: LISTENING, UNCALIBRATED, SLAVE, … (linuxptp's names), DISABLED when no
 * PTP daemon answers; `delay_mechanism`: 1 = E2E, 2 = P2P (linuxptp's numbering).
 */
export const PortDataSetSchema = Type.Object({
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
});

export const TimePropertiesDataSetSchema = Type.Object({
  current_utc_offset: Int,
  current_utc_offset_valid: Int,
  frequency_traceable: Int,
  leap59: Int,
  leap61: Int,
  ptp_timescale: Int,
  time_source: Int,
  time_traceable: Int,
});

/** TIME_STATUS_NP. `last_gm_phase_change` in pmc's notation, e.g. "0x0000'0000000000000000.0000". */
export const TimeStatusNpSchema = Type.Object({
  cumulative_scaled_rate_offset: Num,
  gm_identity: Str,
  gm_present: Type.Boolean(),
  gm_time_base_indicator: Int,
  ingress_time: BigIntSchema,
  last_gm_phase_change: Str,
  master_offset: Num,
  scaled_last_gm_phase_change: Int,
});

/** The five management data sets of `GET /api/v1/time/ptp` (the profile member comes from the device core). */
export const PtpDataSetsSchema = Type.Object({
  current_data_set: CurrentDataSetSchema,
  parent_data_set: ParentDataSetSchema,
  port_data_set: PortDataSetSchema,
  time_properties_data_set: TimePropertiesDataSetSchema,
  time_status_np: TimeStatusNpSchema,
});
export type PtpDataSets = DeepReadonly<Static<typeof PtpDataSetsSchema>>;

/** What the NMEA input has decoded (`sensor.multipurpose_io.nmea.diagnostics.decoding`). */
export const NmeaDecodingSchema = Type.Object({
  date_decoded_count: Int,
  last_read_message: Str,
  not_valid_count: Int,
  utc_decoded_count: Int,
});

/** What the NMEA input's UART has seen (`…nmea.diagnostics.io_checks`). */
export const NmeaIoChecksSchema = Type.Object({
  bit_count: Int,
  bit_count_unfiltered: Int,
  char_count: Int,
  start_char_count: Int,
});
