/**
 * The time documents as read: the system clock (monotonic, epoch realtime, chrony's tracking fields), /time
 * against its members, time/sensor against the configuration, the PTP profile; and telemetry, whose phase
 * lock status is judged against the same configuration read.
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import { DOCUMENT_KEYS, keyMismatch } from './spec-rules.js';
import type { Json, UnitClient } from './unit-client.js';

export async function timeChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await clockChecks(run, client);
  const config = await client.readJson('/api/v1/sensor/config').catch(() => undefined);
  const sensor = await client.readJson('/api/v1/time/sensor').catch(() => undefined);
  if (!config || !sensor) {
    run.skip('time.config', 'time/sensor follows the configuration', 'configuration or time/sensor unreadable');
    return;
  }
  await sensorTimeChecks(run, sensor, config);
  await ptpProfileCheck(run, client);
  await telemetryChecks(run, client, config);
}

async function clockChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check('time.monotonic', 'time/system monotonic never decreases', async () => {
    const first = await client.fresh('/api/v1/time/system');
    const second = await client.fresh('/api/v1/time/system');
    expectThat(
      typeof first.monotonic === 'number' && (second.monotonic as number) >= first.monotonic,
      `${first.monotonic} then ${second.monotonic}`,
    );
  });
  await run.check('time.realtime', 'time/system realtime is seconds since the Unix epoch (after 2020)', async () => {
    const system = await client.readJson('/api/v1/time/system');
    expectThat(typeof system.realtime === 'number' && system.realtime > 1.577e9, show(system.realtime));
  });
  await run.check('time.tracking', 'time/system tracking has exactly the fields of chronyc tracking', async () => {
    const system = await client.readJson('/api/v1/time/system');
    const problem = keyMismatch(system.tracking, DOCUMENT_KEYS.tracking);
    expectThat(problem === '', problem);
  });
  await run.check(
    'time.members',
    'GET /api/v1/time equals its members /time/sensor, /time/system, /time/ptp in shape',
    async () => {
      const time = await client.readJson('/api/v1/time');
      for (const member of ['sensor', 'ptp'] as const) {
        const single = await client.readJson(`/api/v1/time/${member}`);
        const problem = keyMismatch(time[member], Object.keys(single));
        expectThat(problem === '', `${member}: ${problem}`);
      }
    },
  );
}

/** time/sensor shows the timing parameters of the configuration. */
async function sensorTimeChecks(run: CheckRun, sensor: Json, config: Json): Promise<void> {
  const io = sensor.multipurpose_io as Json;
  const timestamp = sensor.timestamp as Json;
  const pulseOut = (io?.sync_pulse_out ?? {}) as Json;
  const nmea = (io?.nmea ?? {}) as Json;
  const follows: [string, unknown, unknown][] = [
    ['timestamp.mode', timestamp?.mode, config.timestamp_mode],
    ['multipurpose_io.mode', io?.mode, config.multipurpose_io_mode],
    ['sync_pulse_out.angle_deg', pulseOut.angle_deg, config.sync_pulse_out_angle],
    ['sync_pulse_out.frequency_hz', pulseOut.frequency_hz, config.sync_pulse_out_frequency],
    ['sync_pulse_out.polarity', pulseOut.polarity, config.sync_pulse_out_polarity],
    ['sync_pulse_out.pulse_width_ms', pulseOut.pulse_width_ms, config.sync_pulse_out_pulse_width],
    ['nmea.baud_rate', nmea.baud_rate, config.nmea_baud_rate],
    ['nmea.polarity', nmea.polarity, config.nmea_in_polarity],
    ['nmea.leap_seconds', nmea.leap_seconds, config.nmea_leap_seconds],
    ['nmea.ignore_valid_char', nmea.ignore_valid_char, config.nmea_ignore_valid_char],
    ['sync_pulse_in.polarity', (sensor.sync_pulse_in as Json)?.polarity, config.sync_pulse_in_polarity],
  ];
  for (const [field, actual, expected] of follows)
    await run.check(`time.sensor.${field}`, `time/sensor ${field} follows the configuration`, () =>
      expectThat(actual === expected, `${show(actual)} ≠ configured ${show(expected)}`),
    );
  await run.check('time.sensor.time', 'time/sensor timestamp.time is a number of seconds ≥ 0', () =>
    expectThat(typeof timestamp?.time === 'number' && timestamp.time >= 0, show(timestamp?.time)),
  );
}

async function ptpProfileCheck(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check('time.ptp-profile', 'GET /api/v1/time/ptp/profile equals time/ptp profile', async () => {
    const profile = (await client.read('/api/v1/time/ptp/profile')).json;
    const ptp = await client.readJson('/api/v1/time/ptp');
    expectThat(
      profile === ptp.profile ||
        (profile === 'default' && ptp.profile === '') ||
        (profile === '' && ptp.profile === 'default'),
      `${show(profile)} ≠ ${show(ptp.profile)}`,
    );
  });
}

async function telemetryChecks(run: CheckRun, client: UnitClient, config: Json): Promise<void> {
  await run.check(
    'telemetry.phase-lock',
    'telemetry phase_lock_status is LOCKED, LOST or DISABLED, DISABLED without phase_lock_enable',
    async () => {
      const telemetry = await client.readJson('/api/v1/sensor/telemetry');
      expectThat(
        ['LOCKED', 'LOST', 'DISABLED'].includes(String(telemetry.phase_lock_status)),
        show(telemetry.phase_lock_status),
      );
      if (config.phase_lock_enable === false)
        expectThat(telemetry.phase_lock_status === 'DISABLED', `${telemetry.phase_lock_status} with phase locking off`);
    },
  );
  await run.check('telemetry.values', 'telemetry: integer mA, mV, °C and a positive timestamp_ns', async () => {
    const t = await client.readJson('/api/v1/sensor/telemetry');
    for (const key of ['input_current_ma', 'input_voltage_mv', 'internal_temperature_deg_c', 'timestamp_ns'])
      expectThat(Number.isInteger(t[key]), `${key} ${show(t[key])}`);
    expectThat((t.timestamp_ns as number) > 0, `timestamp_ns ${t.timestamp_ns}`);
  });
}
