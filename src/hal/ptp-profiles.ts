/**
 * The PTP profiles of the spec and what each one means for ptp4l. The settings follow the
 * configuration files linuxptp ships (default.cfg, gPTP.cfg, automotive-slave.cfg); the relaxed
 * profile is "default" over Ethernet (L2) with a 1 s step threshold (the clock jumps to the
 * grandmaster's time when it is off by more than a second instead of slewing for a long time).
 *
 * Every profile lists the same keys, so switching profiles resets what the previous one changed.
 * `slaveOnly 1` in all of them: a lidar is never a PTP master, which is why with no grandmaster its
 * port stays LISTENING (as the spec shows) instead of taking the grandmaster role.
 */

/** The accepted values of `PUT /api/v1/time/ptp/profile`, case-sensitive; "" and "default" are the same profile. */
export const PTP_PROFILES = ['', 'default', 'gptp', 'automotive-slave', 'default-l2-relaxed'] as const;
export type PtpProfile = (typeof PTP_PROFILES)[number];
export const DEFAULT_PTP_PROFILE: PtpProfile = 'default';

export function isPtpProfile(value: unknown): value is PtpProfile {
  return typeof value === 'string' && (PTP_PROFILES as readonly string[]).includes(value);
}

/** ptp4l [global] settings of the default profile for every key any profile changes. */
const DEFAULT_SETTINGS = {
  slaveOnly: '1',
  gmCapable: '1',
  priority1: '128',
  priority2: '128',
  logAnnounceInterval: '1',
  logSyncInterval: '0',
  logMinDelayReqInterval: '0',
  logMinPdelayReqInterval: '0',
  announceReceiptTimeout: '3',
  syncReceiptTimeout: '0',
  neighborPropDelayThresh: '20000000',
  min_neighbor_prop_delay: '-20000000',
  assume_two_step: '0',
  path_trace_enabled: '0',
  follow_up_info: '0',
  transportSpecific: '0x0',
  ptp_dst_mac: '01:1B:19:00:00:00',
  network_transport: 'UDPv4',
  delay_mechanism: 'E2E',
  BMCA: 'ptp',
  inhibit_announce: '0',
  asCapable: 'auto',
  ignore_source_id: '0',
  step_threshold: '0.0',
  operLogSyncInterval: '0',
  operLogPdelayReqInterval: '0',
  msg_interval_request: '0',
  servo_offset_threshold: '0',
  servo_num_offset_values: '10',
} as const;

export type Ptp4lSettingName = keyof typeof DEFAULT_SETTINGS;
export type Ptp4lSettings = Readonly<Record<Ptp4lSettingName, string>>;

const GPTP = {
  gmCapable: '1',
  priority1: '248',
  priority2: '248',
  logAnnounceInterval: '0',
  logSyncInterval: '-3',
  syncReceiptTimeout: '3',
  neighborPropDelayThresh: '800',
  min_neighbor_prop_delay: '-20000000',
  assume_two_step: '1',
  path_trace_enabled: '1',
  follow_up_info: '1',
  transportSpecific: '0x1',
  ptp_dst_mac: '01:80:C2:00:00:0E',
  network_transport: 'L2',
  delay_mechanism: 'P2P',
} as const;

const PROFILE_SETTINGS: Record<Exclude<PtpProfile, ''>, Ptp4lSettings> = {
  default: DEFAULT_SETTINGS,
  gptp: { ...DEFAULT_SETTINGS, ...GPTP },
  'automotive-slave': {
    ...DEFAULT_SETTINGS,
    ...GPTP,
    logAnnounceInterval: DEFAULT_SETTINGS.logAnnounceInterval,
    BMCA: 'noop',
    inhibit_announce: '1',
    asCapable: 'true',
    ignore_source_id: '1',
    step_threshold: '1',
    operLogSyncInterval: '0',
    operLogPdelayReqInterval: '2',
    msg_interval_request: '1',
    servo_offset_threshold: '30',
    servo_num_offset_values: '10',
  },
  'default-l2-relaxed': { ...DEFAULT_SETTINGS, network_transport: 'L2', step_threshold: '1.0' },
};

/** The ptp4l settings of a profile ("" is "default"). */
export function ptp4lSettings(profile: PtpProfile): Ptp4lSettings {
  return PROFILE_SETTINGS[profile === '' ? 'default' : profile];
}

/** The management transportSpecific value ptp4l expects under a profile (pmc's `-t`). */
export function transportSpecific(profile: PtpProfile): number {
  return parseInt(ptp4lSettings(profile).transportSpecific, 16);
}

/** linuxptp's delayMechanism numbering (PORT_DATA_SET.delayMechanism). */
export const DELAY_MECHANISM_CODES: Readonly<Record<string, number>> = { E2E: 1, P2P: 2, NONE: 0xfe };
