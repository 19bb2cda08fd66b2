/** The Linux HAL's readers of chronyc and pmc output, and the ptp4l profile writer, on captured output. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChronyTracking, TrackingParseError } from '../../src/hal/linux/chrony-tracking.js';
import { parsePtpDataSets, PmcError, snakeCase } from '../../src/hal/linux/pmc.js';
import {
  BLOCK_BEGIN,
  BLOCK_END,
  profileInBlock,
  withProfileBlock,
  writeProfileToPtp4lConfig,
} from '../../src/hal/linux/ptp4l-config.js';
import { ptp4lSettings, PTP_PROFILES, transportSpecific } from '../../src/hal/ptp-profiles.js';
import { localPtpDataSets } from '../../src/hal/time-models.js';

describe('chronyc -c tracking', () => {
  it('reads a chronyd following an NTP server field by field', () => {
    const t = parseChronyTracking(
      'C0000201,192.0.2.1,9,1795267400.343309855,-0.000002471,0.000000049,0.000000621,0.007,0.008,0.079,0.000008579,0.000001750,0.5,Normal\n',
    );
    expect(t).toEqual({
      reference_id: 'C0000201',
      remote_host: '192.0.2.1',
      stratum: 9,
      ref_time_utc: 1795267400.343309855,
      system_time_offset: -0.000002471,
      last_offset: 0.000000049,
      rms_offset: 0.000000621,
      frequency: 0.007,
      residual_frequency: 0.008,
      skew: 0.079,
      root_delay: 0.000008579,
      root_dispersion: 0.00000175,
      update_interval: 0.5,
      leap_status: 'normal',
    });
  });

  it('reports "ptp" when the system clock follows the PTP refclock', () => {
    expect(
      parseChronyTracking(
        '70747000,ptp,1,1556215206.459181300,-0.000000016,-0.000000013,0.000000106,-9.849,-0.001,0.154,0.000000001,0.000025000,2.0,Normal',
      ).remote_host,
    ).toBe('ptp');
    expect(parseChronyTracking('50545000,PTP,1,1556215206.4,0,0,0,0,0,0,0,0,2.0,Normal').remote_host).toBe('ptp');
    // Another refclock keeps its name; an NTP server named like a refid is still a server.
    expect(parseChronyTracking('47505300,GPS,1,1556215206.4,0,0,0,0,0,0,0,0,2.0,Normal').remote_host).toBe('GPS');
  });

  it('reads an unsynchronised chronyd (no source, local reference) as empty remote_host', () => {
    const none = parseChronyTracking(
      '00000000,,0,0.000000000,0.000000000,0.000000000,0.000000000,0.000,0.000,0.000,1.000000000,1.000000000,0.0,Not synchronised',
    );
    expect(none).toMatchObject({
      reference_id: '00000000',
      remote_host: '',
      stratum: 0,
      leap_status: 'not synchronised',
      root_delay: 1,
    });
    expect(parseChronyTracking('7F7F0101,,8,1795267395.035956454,0,0,0,0,0,0,0,0,0.0,Normal').remote_host).toBe('');
  });

  it('refuses output that is not a tracking line', () => {
    expect(() => parseChronyTracking('506 Cannot talk to daemon')).toThrow(TrackingParseError);
    expect(() => parseChronyTracking('C0000201,192.0.2.1,9,abc,0,0,0,0,0,0,0,0,0.5,Normal')).toThrow(/reference time/);
    expect(() => parseChronyTracking('XYZ,192.0.2.1,9,1,0,0,0,0,0,0,0,0,0.5,Normal')).toThrow(/reference ID/);
  });
});

// pmc -u -b 0 'GET CURRENT_DATA_SET' … against a ptp4l (software timestamping) that follows a grandmaster.
const PMC_SLAVE = `sending: GET CURRENT_DATA_SET
sending: GET PARENT_DATA_SET
sending: GET PORT_DATA_SET
sending: GET TIME_PROPERTIES_DATA_SET
sending: GET TIME_STATUS_NP
\t161ff4.fffe.51fd79-0 seq 0 RESPONSE MANAGEMENT CURRENT_DATA_SET 
\t\tstepsRemoved     1
\t\toffsetFromMaster 611.0
\t\tmeanPathDelay    2133.0
\t161ff4.fffe.51fd79-0 seq 1 RESPONSE MANAGEMENT PARENT_DATA_SET 
\t\tparentPortIdentity                    1e0c7a.fffe.271501-1
\t\tparentStats                           0
\t\tobservedParentOffsetScaledLogVariance 0xffff
\t\tobservedParentClockPhaseChangeRate    0x7fffffff
\t\tgrandmasterPriority1                  1
\t\tgm.ClockClass                         6
\t\tgm.ClockAccuracy                      0xfe
\t\tgm.OffsetScaledLogVariance            0xffff
\t\tgrandmasterPriority2                  128
\t\tgrandmasterIdentity                   1e0c7a.fffe.271501
\t161ff4.fffe.51fd79-1 seq 2 RESPONSE MANAGEMENT PORT_DATA_SET 
\t\tportIdentity            161ff4.fffe.51fd79-1
\t\tportState               SLAVE
\t\tlogMinDelayReqInterval  0
\t\tpeerMeanPathDelay       0
\t\tlogAnnounceInterval     1
\t\tannounceReceiptTimeout  3
\t\tlogSyncInterval         0
\t\tdelayMechanism          1
\t\tlogMinPdelayReqInterval 0
\t\tversionNumber           2
\t161ff4.fffe.51fd79-0 seq 3 RESPONSE MANAGEMENT TIME_PROPERTIES_DATA_SET 
\t\tcurrentUtcOffset      37
\t\tleap61                0
\t\tleap59                0
\t\tcurrentUtcOffsetValid 0
\t\tptpTimescale          0
\t\ttimeTraceable         0
\t\tfrequencyTraceable    0
\t\ttimeSource            0xa0
\t161ff4.fffe.51fd79-0 seq 4 RESPONSE MANAGEMENT TIME_STATUS_NP 
\t\tmaster_offset              611
\t\tingress_time               1795267370072247892
\t\tcumulativeScaledRateOffset +0.000000000
\t\tscaledLastGmPhaseChange    0
\t\tgmTimeBaseIndicator        0
\t\tlastGmPhaseChange          0x0000'0000000000000000.0000
\t\tgmPresent                  true
\t\tgmIdentity                 1e0c7a.fffe.271501
`;

describe('pmc data sets', () => {
  it('converts names to snake_case', () => {
    expect(snakeCase('gm.ClockClass')).toBe('gm_clock_class');
    expect(snakeCase('observedParentOffsetScaledLogVariance')).toBe('observed_parent_offset_scaled_log_variance');
    expect(snakeCase('grandmasterPriority1')).toBe('grandmaster_priority1');
    expect(snakeCase('leap61')).toBe('leap61');
    expect(snakeCase('master_offset')).toBe('master_offset');
    expect(snakeCase('currentUtcOffsetValid')).toBe('current_utc_offset_valid');
  });

  it('reads all five data sets with JSON types', () => {
    const d = parsePtpDataSets(PMC_SLAVE);
    expect(d.current_data_set).toEqual({ steps_removed: 1, offset_from_master: 611, mean_path_delay: 2133 });
    expect(d.parent_data_set).toEqual({
      parent_port_identity: '1e0c7a.fffe.271501-1',
      parent_stats: 0,
      observed_parent_offset_scaled_log_variance: 65535,
      observed_parent_clock_phase_change_rate: 2147483647,
      grandmaster_priority1: 1,
      gm_clock_class: 6,
      gm_clock_accuracy: 254,
      gm_offset_scaled_log_variance: 65535,
      grandmaster_priority2: 128,
      grandmaster_identity: '1e0c7a.fffe.271501',
    });
    expect(d.port_data_set).toMatchObject({
      port_identity: '161ff4.fffe.51fd79-1',
      port_state: 'SLAVE',
      delay_mechanism: 1,
      version_number: 2,
    });
    expect(d.time_properties_data_set).toMatchObject({ current_utc_offset: 37, time_source: 160, ptp_timescale: 0 });
    expect(d.time_status_np).toEqual({
      master_offset: 611,
      ingress_time: 1795267370072247892n,
      cumulative_scaled_rate_offset: 0,
      scaled_last_gm_phase_change: 0,
      gm_time_base_indicator: 0,
      last_gm_phase_change: "0x0000'0000000000000000.0000",
      gm_present: true,
      gm_identity: '1e0c7a.fffe.271501',
    });
  });

  it('fails clearly when ptp4l did not answer or a field is missing or malformed', () => {
    expect(() => parsePtpDataSets('sending: GET CURRENT_DATA_SET\n')).toThrow(PmcError);
    expect(() => parsePtpDataSets(PMC_SLAVE.replace(/\t\tgmPresent.*\n/, ''))).toThrow(
      /TIME_STATUS_NP has no gm_present/,
    );
    expect(() => parsePtpDataSets(PMC_SLAVE.replace('stepsRemoved     1', 'stepsRemoved     x'))).toThrow(
      /steps_removed/,
    );
  });

  it('has the same fields as the model of a ptp4l without grandmaster', () => {
    const parsed = parsePtpDataSets(PMC_SLAVE);
    const local = localPtpDataSets('021c73.fffe.bf48bb', 'default');
    for (const member of Object.keys(parsed) as (keyof typeof parsed)[]) {
      expect(Object.keys(local[member]).sort(), member).toEqual(Object.keys(parsed[member]).sort());
    }
  });
});

describe('ptp4l profile block', () => {
  it('names its profile back to the root helper, and nothing else passes for one', () => {
    for (const profile of PTP_PROFILES.filter((p) => p !== '')) {
      expect(profileInBlock(withProfileBlock('[global]\n', profile))).toBe(profile);
    }
    expect(profileInBlock(withProfileBlock('', ''))).toBe('default');
    expect(profileInBlock('[global]\n# profile: gptp\n')).toBeUndefined();
    expect(profileInBlock(`${BLOCK_BEGIN}\n# profile: gptp\nslaveOnly 0\n[eth0]\n${BLOCK_END}\n`)).toBe('gptp');
    expect(profileInBlock(`${BLOCK_BEGIN}\n# profile: gptp; rm -rf /\n${BLOCK_END}\n`)).toBeUndefined();
  });

  const site = '[global]\ntime_stamping hardware\nuds_address /var/run/ptp4l\n\n[eth0]\n';

  it('appends the block and keeps the site settings', () => {
    const text = withProfileBlock(site, 'gptp');
    expect(text.startsWith(site)).toBe(true);
    const block = text.slice(text.indexOf(BLOCK_BEGIN));
    expect(block).toMatch(/\n\[global\]\n/);
    expect(block).toMatch(/^network_transport\s+L2$/m);
    expect(block.trimEnd().endsWith(BLOCK_END)).toBe(true);
  });

  it('replaces its own block, and rewriting the same profile changes nothing', () => {
    const once = withProfileBlock(site, 'default');
    expect(withProfileBlock(once, 'default')).toBe(once);
    const switched = withProfileBlock(once, 'default-l2-relaxed');
    expect(switched.match(new RegExp(BLOCK_BEGIN.replace(/[()/]/g, '\\$&'), 'g'))).toHaveLength(1);
    expect(switched).toMatch(/^step_threshold\s+1\.0$/m);
    expect(withProfileBlock(switched, 'default')).toBe(once);
    expect(withProfileBlock('', '')).toBe(withProfileBlock('', 'default'));
  });

  it('writes the file atomically and reports whether it changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptp4l-config-'));
    try {
      const path = join(dir, 'ptp4l.conf');
      writeFileSync(path, site);
      expect(await writeProfileToPtp4lConfig(path, 'automotive-slave')).toBe(true);
      expect(await writeProfileToPtp4lConfig(path, 'automotive-slave')).toBe(false);
      expect(readFileSync(path, 'utf8')).toMatch(/^BMCA\s+noop$/m);
      expect(await writeProfileToPtp4lConfig(join(dir, 'new.conf'), 'default')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the same keys in every profile, so a switch resets the previous one', () => {
    const keys = Object.keys(ptp4lSettings('default')).sort();
    for (const profile of PTP_PROFILES) expect(Object.keys(ptp4lSettings(profile)).sort()).toEqual(keys);
    expect(ptp4lSettings('')).toEqual(ptp4lSettings('default'));
    expect(transportSpecific('gptp')).toBe(1);
    expect(transportSpecific('automotive-slave')).toBe(1);
    expect(transportSpecific('default-l2-relaxed')).toBe(0);
  });
});
