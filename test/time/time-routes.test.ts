/** GET /api/v1/time and its members on a simulated unit: every field, its type, and what it reflects. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockIdentityFromMac } from '../../src/model/mac.js';
import { expectShape, type Shape } from '../helpers/shape.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

const TRACKING: Shape = {
  frequency: 'number',
  last_offset: 'number',
  leap_status: 'string',
  ref_time_utc: 'number',
  reference_id: 'string',
  remote_host: 'string',
  residual_frequency: 'number',
  rms_offset: 'number',
  root_delay: 'number',
  root_dispersion: 'number',
  skew: 'number',
  stratum: 'integer',
  system_time_offset: 'number',
  update_interval: 'number',
};
const SYSTEM: Shape = { monotonic: 'number', realtime: 'number', tracking: TRACKING };
const PTP: Shape = {
  current_data_set: { mean_path_delay: 'number', offset_from_master: 'number', steps_removed: 'integer' },
  parent_data_set: {
    gm_clock_accuracy: 'integer',
    gm_clock_class: 'integer',
    gm_offset_scaled_log_variance: 'integer',
    grandmaster_identity: 'string',
    grandmaster_priority1: 'integer',
    grandmaster_priority2: 'integer',
    observed_parent_clock_phase_change_rate: 'integer',
    observed_parent_offset_scaled_log_variance: 'integer',
    parent_port_identity: 'string',
    parent_stats: 'integer',
  },
  port_data_set: {
    announce_receipt_timeout: 'integer',
    delay_mechanism: 'integer',
    log_announce_interval: 'integer',
    log_min_delay_req_interval: 'integer',
    log_min_pdelay_req_interval: 'integer',
    log_sync_interval: 'integer',
    peer_mean_path_delay: 'number',
    port_identity: 'string',
    port_state: 'string',
    version_number: 'integer',
  },
  profile: 'string',
  time_properties_data_set: {
    current_utc_offset: 'integer',
    current_utc_offset_valid: 'integer',
    frequency_traceable: 'integer',
    leap59: 'integer',
    leap61: 'integer',
    ptp_timescale: 'integer',
    time_source: 'integer',
    time_traceable: 'integer',
  },
  time_status_np: {
    cumulative_scaled_rate_offset: 'number',
    gm_identity: 'string',
    gm_present: 'boolean',
    gm_time_base_indicator: 'integer',
    ingress_time: 'integer',
    last_gm_phase_change: 'string',
    master_offset: 'number',
    scaled_last_gm_phase_change: 'integer',
  },
};
const SENSOR: Shape = {
  multipurpose_io: {
    mode: 'string',
    nmea: {
      baud_rate: 'string',
      diagnostics: {
        decoding: {
          date_decoded_count: 'integer',
          last_read_message: 'string',
          not_valid_count: 'integer',
          utc_decoded_count: 'integer',
        },
        io_checks: {
          bit_count: 'integer',
          bit_count_unfiltered: 'integer',
          char_count: 'integer',
          start_char_count: 'integer',
        },
      },
      ignore_valid_char: 'integer',
      leap_seconds: 'integer',
      locked: 'integer',
      polarity: 'string',
    },
    sync_pulse_out: { angle_deg: 'integer', frequency_hz: 'integer', polarity: 'string', pulse_width_ms: 'integer' },
  },
  sync_pulse_in: {
    diagnostics: { count: 'integer', count_unfiltered: 'integer', last_period_nsec: 'integer' },
    locked: 'integer',
    polarity: 'string',
  },
  timestamp: {
    mode: 'string',
    time: 'number',
    time_options: { internal_osc: 'integer', ptp_1588: 'integer', sync_pulse_in: 'integer' },
  },
};

describe('time resources (sim)', () => {
  let unit: TestSensor;
  beforeEach(async () => {
    unit = await createTestSensor();
  });
  afterEach(async () => {
    await unit.close();
  });

  const get = async (url: string) => {
    const res = await unit.app.inject({ url });
    expect(res.statusCode, url).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    return res.json();
  };

  it('GET /api/v1/time has ptp, sensor and system with every field of the spec', async () => {
    const time = await get('/api/v1/time');
    expectShape(time, { ptp: PTP, sensor: SENSOR, system: SYSTEM }, 'time');
  });

  it('serves each member on its own path', async () => {
    expectShape(await get('/api/v1/time/ptp'), PTP, 'ptp');
    expectShape(await get('/api/v1/time/sensor'), SENSOR, 'sensor');
    expectShape(await get('/api/v1/time/system'), SYSTEM, 'system');
  });

  it('system: the OS clocks; chrony has no source on a simulated unit', async () => {
    const hrBefore = Number(process.hrtime.bigint()) / 1e9;
    const wallBefore = Date.now() / 1000;
    const first = await get('/api/v1/time/system');
    const second = await get('/api/v1/time/system');
    const wallAfter = Date.now() / 1000;
    const hrAfter = Number(process.hrtime.bigint()) / 1e9;
    expect(first.monotonic).toBeGreaterThanOrEqual(hrBefore);
    expect(second.monotonic).toBeGreaterThanOrEqual(first.monotonic);
    expect(second.monotonic).toBeLessThanOrEqual(hrAfter);
    // Date.now() has millisecond resolution; realtime adds the sub-millisecond part.
    expect(first.realtime).toBeGreaterThanOrEqual(wallBefore);
    expect(second.realtime).toBeLessThan(wallAfter + 0.001);
    expect(first.tracking).toMatchObject({
      reference_id: '00000000',
      remote_host: '',
      stratum: 0,
      leap_status: 'not synchronised',
    });
  });

  it("ptp: no grandmaster: LISTENING, the unit's own clock identity, gm_present false", async () => {
    const { ethaddr } = await get('/api/v1/system/network');
    const own = clockIdentityFromMac(ethaddr);
    const ptp = await get('/api/v1/time/ptp');
    expect(ptp.port_data_set.port_state).toBe('LISTENING');
    expect(ptp.port_data_set.port_identity).toBe(`${own}-1`);
    expect(ptp.parent_data_set.grandmaster_identity).toBe(own);
    expect(ptp.parent_data_set.parent_port_identity).toBe(`${own}-0`);
    expect(ptp.time_status_np.gm_present).toBe(false);
    expect(ptp.time_status_np.gm_identity).toBe(own);
    expect(ptp.time_properties_data_set.current_utc_offset).toBe(37);
    expect(ptp.profile).toBe('default');
  });

  it('sensor: timestamp.time is the clock the data plane stamps packets with', async () => {
    for (const mode of ['TIME_FROM_INTERNAL_OSC', 'TIME_FROM_PTP_1588', 'TIME_FROM_SYNC_PULSE_IN'] as const) {
      expect(
        (
          await unit.app.inject({
            method: 'PUT',
            url: '/api/v1/sensor/config/timestamp_mode',
            payload: JSON.stringify(mode),
            headers: { 'content-type': 'application/json' },
          })
        ).statusCode,
      ).toBe(204);
      const config = unit.sensor.configs.reported('active');
      const before = (process.hrtime.bigint() + unit.hal.time.timestampOffsetNs(config)) / 1000n;
      const sensorTime = await get('/api/v1/time/sensor');
      const after = (process.hrtime.bigint() + unit.hal.time.timestampOffsetNs(config)) / 1000n;
      expect(sensorTime.timestamp.mode).toBe(mode);
      // The offset of the running stream (what every packet carries) is the one the route uses.
      expect(unit.sensor.run.streamPlan({ ...config, udp_dest: '127.0.0.1' })?.timestampOffsetNs).toBe(
        unit.hal.time.timestampOffsetNs(config),
      );
      const micros = BigInt(Math.round(sensorTime.timestamp.time * 1e6));
      expect(micros).toBeGreaterThanOrEqual(before - 1n);
      expect(micros).toBeLessThanOrEqual(after + 1n);
      const option = {
        TIME_FROM_INTERNAL_OSC: 'internal_osc',
        TIME_FROM_PTP_1588: 'ptp_1588',
        TIME_FROM_SYNC_PULSE_IN: 'sync_pulse_in',
      }[mode];
      expect(sensorTime.timestamp.time_options[option]).toBe(Math.floor(sensorTime.timestamp.time));
    }
  });

  it('sensor: the PTP clock free-runs on UTC without a grandmaster; SYNC_PULSE_IN restarts at each initialization', async () => {
    const wallBefore = Math.floor(Date.now() / 1000);
    const { timestamp } = await get('/api/v1/time/sensor');
    expect(timestamp.time_options.ptp_1588).toBeGreaterThanOrEqual(wallBefore - 1);
    expect(timestamp.time_options.ptp_1588).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const syncPulse = { ...unit.sensor.configs.reported('active'), timestamp_mode: 'TIME_FROM_SYNC_PULSE_IN' as const };
    const startBefore = -unit.hal.time.timestampOffsetNs(syncPulse);
    const reinit = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { lidar_mode: '512x10' },
    });
    expect(reinit.statusCode).toBe(204);
    const startAfter = -unit.hal.time.timestampOffsetNs(syncPulse);
    expect(startAfter).toBeGreaterThan(startBefore);
    const internal = { ...syncPulse, timestamp_mode: 'TIME_FROM_INTERNAL_OSC' as const };
    expect(-unit.hal.time.timestampOffsetNs(internal)).toBeLessThan(startAfter); // the reinit was no power-on
  });

  it('sensor: a restart is a power-on of the internal oscillator', async () => {
    const internal = { ...unit.sensor.configs.reported('active'), timestamp_mode: 'TIME_FROM_INTERNAL_OSC' as const };
    const powerOnBefore = -unit.hal.time.timestampOffsetNs(internal);
    await unit.sensor.power.restart();
    expect(-unit.hal.time.timestampOffsetNs(internal)).toBeGreaterThan(powerOnBefore);
  });

  it('sensor: sync_pulse_in and multipurpose_io reflect the active configuration', async () => {
    const change = {
      sync_pulse_in_polarity: 'ACTIVE_LOW',
      multipurpose_io_mode: 'INPUT_NMEA_UART',
      nmea_in_polarity: 'ACTIVE_LOW',
      nmea_baud_rate: 'BAUD_115200',
      nmea_ignore_valid_char: 1,
      nmea_leap_seconds: 18,
      sync_pulse_out_polarity: 'ACTIVE_LOW',
      sync_pulse_out_frequency: 10,
      sync_pulse_out_angle: 180,
      sync_pulse_out_pulse_width: 5,
    };
    expect((await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: change })).statusCode).toBe(
      204,
    );
    const sensor = await get('/api/v1/time/sensor');
    expect(sensor.sync_pulse_in).toEqual({
      diagnostics: { count: 0, count_unfiltered: 0, last_period_nsec: 0 },
      locked: 0,
      polarity: 'ACTIVE_LOW',
    });
    expect(sensor.multipurpose_io.mode).toBe('INPUT_NMEA_UART');
    expect(sensor.multipurpose_io.nmea).toMatchObject({
      baud_rate: 'BAUD_115200',
      ignore_valid_char: 1,
      leap_seconds: 18,
      locked: 0,
      polarity: 'ACTIVE_LOW',
    });
    expect(sensor.multipurpose_io.sync_pulse_out).toEqual({
      angle_deg: 180,
      frequency_hz: 10,
      polarity: 'ACTIVE_LOW',
      pulse_width_ms: 5,
    });
    // Staged but not applied: the time resource shows what runs.
    await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config?reinit=false&persist=false',
      payload: { sync_pulse_in_polarity: 'ACTIVE_HIGH' },
    });
    expect((await get('/api/v1/time/sensor')).sync_pulse_in.polarity).toBe('ACTIVE_LOW');
  });

  it('answers 405 for methods the time resources do not have', async () => {
    expect((await unit.app.inject({ method: 'PUT', url: '/api/v1/time/system', payload: '{}' })).statusCode).toBe(405);
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/time/ptp/profile' })).statusCode).toBe(405);
  });
});

describe('GET /api/v1/time composed from cached fragments', () => {
  it('equals its three sub-resources, key for key, and follows a profile change', async () => {
    const unit = await createTestSensor();
    try {
      const whole = (await unit.app.inject({ url: '/api/v1/time' })).json();
      expect(Object.keys(whole)).toEqual(['ptp', 'sensor', 'system']);
      const ptp = (await unit.app.inject({ url: '/api/v1/time/ptp' })).json();
      expect(whole.ptp).toEqual(ptp);
      expect(Object.keys(whole.system)).toEqual(['monotonic', 'realtime', 'tracking']);
      expect(whole.system.tracking).toEqual((await unit.app.inject({ url: '/api/v1/time/system' })).json().tracking);
      expect(Object.keys(whole.sensor)).toEqual(
        Object.keys((await unit.app.inject({ url: '/api/v1/time/sensor' })).json()),
      );
      const put = await unit.app.inject({
        method: 'PUT',
        url: '/api/v1/time/ptp/profile',
        headers: { 'content-type': 'application/json' },
        payload: '"gptp"',
      });
      expect(put.statusCode).toBe(200);
      const after = (await unit.app.inject({ url: '/api/v1/time' })).json();
      expect(after.ptp.profile).toBe('gptp');
      expect(after.ptp).toEqual((await unit.app.inject({ url: '/api/v1/time/ptp' })).json());
      expect(after.system.monotonic).toBeGreaterThan(whole.system.monotonic);
    } finally {
      await unit.close();
    }
  });

  it('follows a configuration change; its clocks are read per request', async () => {
    const unit = await createTestSensor();
    try {
      const before = (await unit.app.inject({ url: '/api/v1/time' })).json();
      const change = {
        timestamp_mode: 'TIME_FROM_PTP_1588',
        sync_pulse_in_polarity: 'ACTIVE_LOW',
        nmea_leap_seconds: 18,
      };
      expect(
        (await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: change })).statusCode,
      ).toBe(204);
      const after = (await unit.app.inject({ url: '/api/v1/time' })).json();
      const sensor = (await unit.app.inject({ url: '/api/v1/time/sensor' })).json();
      expect(after.sensor.timestamp.mode).toBe('TIME_FROM_PTP_1588');
      expect(after.sensor.sync_pulse_in).toEqual(sensor.sync_pulse_in);
      expect(after.sensor.multipurpose_io).toEqual(sensor.multipurpose_io);
      // PTP time free-runs on UTC: the timestamp clock is now the realtime clock, to the second.
      expect(Math.abs(after.sensor.timestamp.time - after.system.realtime)).toBeLessThan(2);
      expect(after.sensor.timestamp.time_options.ptp_1588).toBe(Math.floor(after.sensor.timestamp.time));
      expect(after.system.realtime).toBeGreaterThan(before.system.realtime);
      expect(after.sensor.timestamp.time_options.internal_osc).toBeGreaterThanOrEqual(
        before.sensor.timestamp.time_options.internal_osc,
      );
    } finally {
      await unit.close();
    }
  });
  it('answers the same document when PTP and tracking must first be read (a HAL without a cache)', async () => {
    // The Linux HAL answers from its cache without a promise; when the cache is cold it reads
    // ptp4l and chrony first. Both paths must give the same document.
    let reads = 0;
    const unit = await createTestSensor({
      hal: (sim) => {
        const time = Object.create(sim.time) as typeof sim.time;
        time.ptpDataSets = () => {
          reads++;
          return new Promise((resolve) => setImmediate(() => resolve(sim.time.ptpDataSets())));
        };
        time.tracking = () => Promise.resolve(sim.time.tracking());
        return { ...sim, time };
      },
    });
    const cached = await createTestSensor();
    try {
      const slow = await unit.app.inject({ url: '/api/v1/time' });
      expect(slow.statusCode).toBe(200);
      expect(slow.headers['content-type']).toBe('application/json');
      expect(reads).toBe(1);
      const fast = (await cached.app.inject({ url: '/api/v1/time' })).json();
      const body = slow.json();
      expectShape(body, { ptp: PTP, sensor: SENSOR, system: SYSTEM }, 'time');
      expect(body.system.tracking).toEqual(fast.system.tracking);
      expect(Object.keys(body.ptp)).toEqual(Object.keys(fast.ptp));
      expect(body.ptp.profile).toBe(fast.ptp.profile);
    } finally {
      await unit.close();
      await cached.close();
    }
  });
});
