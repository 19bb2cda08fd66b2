/**
 * Fault rules: what to break (selector), how (action) and for how long (lifetime). Plain data,
 * shared by the control server, the scenario loader, the CLI client and the emitter worker.
 */

export const UDP_STREAMS = ['lidar', 'imu', 'both'] as const;
export type UdpStreamSelector = (typeof UDP_STREAMS)[number];

export const HTTP_METHODS = ['*', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export type FaultSelector =
  | { plane: 'udp'; stream: UdpStreamSelector }
  /** `path`: a request path where `*` matches any run of characters (`/api/v1/sensor/metadata*`). */
  | { plane: 'http'; path: string; method: (typeof HTTP_METHODS)[number] }
  | { plane: 'unit' };

/** Actions on datagrams; `rate` is the share of packets affected (0..1], default 1. */
export type UdpAction =
  /** `burst`: consecutive packets lost per loss event (the overall share stays `rate`). */
  | { type: 'drop'; rate: number; burst: number }
  | { type: 'duplicate'; rate: number }
  /** The packet is held back and sent after the next one of its stream. */
  | { type: 'reorder'; rate: number }
  | { type: 'delay'; rate: number; ms: number }
  /** Bytes inside the packet body are inverted: a STANDARD lidar packet's CRC no longer matches. */
  | { type: 'corrupt'; rate: number }
  | { type: 'truncate'; rate: number; bytes: number }
  /** Nothing of the stream is sent for `ms` (the rule's lifetime). */
  | { type: 'pause'; ms: number }
  /** Nothing of the stream is sent until the rule is removed. */
  | { type: 'stop' }
  /**
   * The lidar's frames come at `hz` instead of lidar_mode's rate while the rule lives (a rotor that runs
   * fast or slow): packets are paced and column timestamps stamped at that rate. Lidar stream only.
   */
  | { type: 'frame_rate'; hz: number };

export type HttpAction =
  | { type: 'latency'; ms: number }
  | { type: 'status'; status: 500 | 503; retry_after_s: number }
  | { type: 'close' }
  | { type: 'truncate'; bytes: number };

export type UnitAction =
  /** The alert is active while the rule lives and cleared when it ends. */
  /** `vars` fill the catalogue's msg_verbose placeholders ({temperature_c}, {host}, …). */
  | { type: 'alert'; id: string; vars: Record<string, string | number> }
  /** Air temperature around the unit; the internal temperature follows at once (self-heating on top). */
  | { type: 'temperature'; ambient_c: number; ramp_ms: number }
  | { type: 'voltage'; supply_mv: number; ramp_ms: number }
  | { type: 'link_down' }
  | { type: 'ptp_grandmaster' }
  | { type: 'sync_pulse_lock' }
  | { type: 'phase_lock_lost' }
  /** How long a reinitialization takes (INITIALIZING, metadata 503, no packets) while the rule lives. */
  | { type: 'reinit_time'; ms: number }
  /** How long a restart keeps the unit unreachable while the rule lives. */
  | { type: 'restart_time'; ms: number }
  /** One-shot: the unit restarts now. */
  | { type: 'restart' }
  /** Boots of a new firmware image fail (as an image built with `sim.boot=fail`) while the rule lives. */
  | { type: 'firmware_boot_fail' }
  /** Firmware uploads are refused once `after_bytes` of the body have arrived. */
  | { type: 'firmware_upload_refuse'; after_bytes: number }
  /** The store's writes fail as on a full disk (ENOSPC: removals still pass) or a failing flash (EIO) while the rule lives. */
  | { type: 'storage'; error: StorageFaultError }
  /**
   * A box in the simulated scene while the rule lives (to trigger Zone Monitor's zones): edge lengths, centre
   * and velocity in the sensor frame, metres and metres per second; the beams that meet it return from it.
   */
  | { type: 'object'; size_m: Vector3; position_m: Vector3; velocity_m_s: Vector3 }
  /**
   * Dirt on part of the window while the rule lives: the beams `first_beam`…`last_beam` between the azimuths
   * (degrees, as azimuth_window counts; wrapping through 0 when from > to) see through it. `level` 1-255 is the
   * WINDOW byte of their pixels; their returns are dimmed by it and lost from 192 on.
   */
  | {
      type: 'window_soil';
      azimuth_from_deg: number;
      azimuth_to_deg: number;
      first_beam: number;
      last_beam: number;
      level: number;
    };

export type Vector3 = [number, number, number];

/** The errors the `storage` action makes writes fail with. */
export const STORAGE_FAULT_ERRORS = ['ENOSPC', 'EIO'] as const;
export type StorageFaultError = (typeof STORAGE_FAULT_ERRORS)[number];

export type FaultAction = UdpAction | HttpAction | UnitAction;

export interface FaultLifetime {
  /** The rule ends this long after it was added. */
  duration_ms?: number;
  /** The rule ends after affecting this many packets / requests. */
  count?: number;
}

export type FaultRuleSpec =
  | { selector: Extract<FaultSelector, { plane: 'udp' }>; action: UdpAction; lifetime: FaultLifetime }
  | { selector: Extract<FaultSelector, { plane: 'http' }>; action: HttpAction; lifetime: FaultLifetime }
  | { selector: Extract<FaultSelector, { plane: 'unit' }>; action: UnitAction; lifetime: FaultLifetime };

/** A rule as the control plane lists it. */
export interface FaultRuleView {
  id: string;
  selector: FaultSelector;
  action: FaultAction;
  lifetime: FaultLifetime;
  /** ISO time the rule was added. */
  added: string;
  /** Packets or requests the rule has affected so far (unit rules: 1 once applied). */
  applied: number;
  /** Packets or requests the rule's selector saw so far. */
  seen: number;
}

/** The frame rate the newest live `frame_rate` rule sets for the lidar stream, or undefined: lidar_mode's. */
export function faultFrameRateHz(rules: readonly UdpFaultRule[]): number | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { stream, action } = rules[i];
    if (action.type === 'frame_rate' && stream !== 'imu') return action.hz;
  }
  return undefined;
}

/** The UDP part of a rule, as the emitter worker needs it. */
export interface UdpFaultRule {
  id: string;
  stream: UdpStreamSelector;
  action: UdpAction;
  /** Packets to affect before the rule is spent; undefined: no limit. */
  count: number | undefined;
}
