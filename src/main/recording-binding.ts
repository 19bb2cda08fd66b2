/**
 * Which configuration parameters a replayed recording fixes, and how a change of each is answered
 * (docs/replay.md has the same table for users):
 * - where and whether to send (udp_dest, ports, operating_mode) and pins that do not shape the data
 *   (sync pulse, NMEA, multipurpose IO) work as on a live unit, with reinit;
 * - udp_profile_lidar re-encodes the recorded frames into the new profile;
 * - azimuth_window may narrow the recorded column window (columns blanked, packets dropped), not widen it;
 * - every parameter that shapes what was measured (mode, window, returns, timing, IMU ranges) is the
 *   recording's: a change is refused with a 409 that says why, and nothing changes.
 * Pure, apart from the registry's validation of the recorded values.
 */
import { defaultConfig, normalizeInput, type ParameterName, type SensorConfig } from '../config/index.js';
import type { RecordingBinding } from '../core/index.js';
import { columnsPerFrame, columnWindow } from '../model/index.js';
import { windowWithin } from '../udp/replay/index.js';

/** Why the recording cannot follow a change of each parameter it fixes. */
export const FIXED_BY_RECORDING: Readonly<Partial<Record<ParameterName, string>>> = {
  lidar_mode: 'frames were measured at this resolution and rate and cannot be resampled',
  columns_per_packet: 'the recorded packets hold this many columns',
  udp_profile_imu: 'IMU packets are replayed as recorded',
  imu_packets_per_frame: 'IMU packets are replayed as recorded, this many to a frame',
  header_type: 'the recorded lidar, IMU and zone packets carry this header',
  return_order: 'which echo came first was decided when the frames were measured',
  min_range_threshold_cm: 'returns below the recorded threshold were never measured',
  signal_multiplier: 'the signal was measured with the recorded multiplier',
  timestamp_mode: 'the packets carry timestamps of the recorded clock',
  phase_lock_enable: 'the recorded rotation phase cannot be changed',
  phase_lock_offset: 'the recorded rotation phase cannot be changed',
  accel_fsr: 'the IMU samples were measured in the recorded range',
  gyro_fsr: 'the IMU samples were measured in the recorded range',
};

/**
 * The recording's values of the parameters it fixes, plus its udp_profile_lidar and azimuth_window
 * (which a client may change afterwards); parameters the
 * metadata omits (older firmware) or holds in a form the registry refuses keep their defaults.
 */
export function recordedParameters(
  configParams: Record<string, unknown>,
  recordedProfile: string,
): Partial<SensorConfig> {
  const defaults = defaultConfig();
  const out: Record<string, unknown> = {};
  // The profile is the one the packets have (flat legacy metadata of firmware 2.x names none: LEGACY).
  const recorded: Record<string, unknown> = { ...configParams, udp_profile_lidar: recordedProfile };
  for (const name of [...Object.keys(FIXED_BY_RECORDING), 'udp_profile_lidar', 'azimuth_window'] as ParameterName[]) {
    const value = recorded[name];
    const { values, errors } = normalizeInput({ [name]: value === undefined ? defaults[name] : value }, defaults, {
      recordedProfile,
    });
    out[name] = errors.length ? defaults[name] : (values as Record<string, unknown>)[name];
  }
  return out as Partial<SensorConfig>;
}

/**
 * @param recordedWindow the recording's column window: a new azimuth_window may narrow it (columns are
 *   blanked, packets dropped) but not reach columns the recording has no data for
 */
export function createRecordingBinding(
  initializationId: number,
  recorded: Partial<SensorConfig>,
  label: string,
  recordedWindow: readonly [number, number],
): RecordingBinding {
  return {
    initializationId,
    recordedProfile: recorded.udp_profile_lidar ?? '',
    refusal(candidate, active) {
      const cpf = columnsPerFrame(active.lidar_mode);
      const window = columnWindow(candidate.azimuth_window, cpf);
      if (candidate.lidar_mode === active.lidar_mode && !windowWithin(window, recordedWindow, cpf)) {
        return (
          `azimuth_window ${JSON.stringify(candidate.azimuth_window)} cannot be served while replaying ${label}: ` +
          `it needs columns ` +
          `${window.join('..')}, the recording holds only ${recordedWindow.join('..')} (a window can only narrow it)`
        );
      }
      for (const [name, why] of Object.entries(FIXED_BY_RECORDING) as [ParameterName, string][]) {
        if (JSON.stringify(candidate[name]) === JSON.stringify(active[name])) continue;
        return `${name} cannot change while replaying ${label}: ${why} (recorded: ${JSON.stringify(active[name])})`;
      }
      return undefined;
    },
    bind(config) {
      return { ...config, ...recorded };
    },
  };
}
