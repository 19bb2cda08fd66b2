/**
 * Accepted changes: a PUT and a POST answer 204, reinitialize with a new initialization_id and show
 * everywhere the value is reported; the legacy staged/active commands; an azimuth window in column_window;
 * STANDBY and back; `udp_dest` `@auto`.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import { acceptedChange, initializationId } from './config-change.js';
import { problemShape } from './http-checks.js';
import { type Replay, skipWhenReplaying } from './replay-signal.js';
import type { Json, UnitClient } from './unit-client.js';
import { waitUntilRunning } from './unit-state.js';

/** Why a replaying unit's initialization_id stays (docs/replay.md). */
const KEPT_INIT_ID = 'the unit keeps the recorded initialization_id across reinits (its packets carry it)';

export async function acceptedChangeChecks(
  run: CheckRun,
  client: UnitClient,
  original: Json,
  replay?: Replay,
): Promise<void> {
  // A value other than the saved one, so that the change is seen.
  const angle = original.sync_pulse_out_angle === 180 ? 90 : 180;
  await putChangeChecks(run, client, angle, replay);
  await stagedCommandsCheck(run, client, original, angle);
  await postChangeChecks(run, client, original, replay);
  await azimuthWindowChecks(run, client);
  await operatingModeChecks(run, client);
  await autoDestinationCheck(run, client);
}

async function putChangeChecks(run: CheckRun, client: UnitClient, angle: number, replay?: Replay): Promise<void> {
  const before = await initializationId(client);
  const putOk = await run.check(
    'write.put.accepted',
    `PUT /api/v1/sensor/config/sync_pulse_out_angle ${angle} answers 204`,
    () => acceptedChange(client, 'PUT', '/api/v1/sensor/config/sync_pulse_out_angle', angle),
  );
  const whenPut = ifAccepted(run, putOk, 'the PUT was not accepted');
  await whenPut('write.put.reinit', 'an accepted PUT reinitializes: new initialization_id (spec rule 4)', async () => {
    skipWhenReplaying(replay, KEPT_INIT_ID);
    const after = await initializationId(client);
    expectThat(after !== before, `initialization_id still ${after}`);
    return `${before} → ${after}`;
  });
  await whenPut(
    'write.put.active',
    'the new value is active: GET config/<name> and time/sensor sync_pulse_out.angle_deg',
    async () => {
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json === angle,
        'config not changed',
      );
      const sensor = await client.fresh('/api/v1/time/sensor');
      const shown = ((sensor.multipurpose_io as Json)?.sync_pulse_out as Json)?.angle_deg;
      expectThat(shown === angle, `time/sensor shows ${show(shown)}`);
    },
  );
}

/** Legacy commands: set_config_param stages the saved angle back while the PUT's angle stays active. */
async function stagedCommandsCheck(run: CheckRun, client: UnitClient, original: Json, angle: number): Promise<void> {
  await run.check(
    'write.staged',
    'legacy staged/active: set_config_param stages, reinitialize activates, save_config_params persists',
    async () => {
      const set = await client.request(
        'GET',
        `/api/v1/sensor/cmd/set_config_param?args=sync_pulse_out_angle+${original.sync_pulse_out_angle}`,
      );
      if (set.status === 404) throw new SkipCheck('legacy command endpoints absent');
      expectThat(set.status === 200, `set_config_param answered ${set.status}`);
      const staged = await client.request('GET', '/api/v1/sensor/cmd/get_config_param?args=staged');
      expectThat(
        (staged.json as Json)?.sync_pulse_out_angle === original.sync_pulse_out_angle,
        `staged shows ${show((staged.json as Json)?.sync_pulse_out_angle)}`,
      );
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json === angle,
        'staging changed the active value',
      );
      const reinit = await client.request('GET', '/api/v1/sensor/cmd/reinitialize');
      expectThat(reinit.status === 200, `reinitialize answered ${reinit.status}`);
      await waitUntilRunning(client);
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json ===
          original.sync_pulse_out_angle,
        'reinitialize did not activate the staged value',
      );
      const save = await client.request('GET', '/api/v1/sensor/cmd/save_config_params');
      expectThat(save.status === 200, `save_config_params answered ${save.status}`);
    },
  );
}

/**
 * A POST of lidar_mode and nmea_leap_seconds. A replay cannot change lidar_mode (its frames were measured at the
 * recorded one: a 409), so a replaying unit gets nmea_leap_seconds alone, which it takes like any unit.
 */
async function postChangeChecks(run: CheckRun, client: UnitClient, original: Json, replay?: Replay): Promise<void> {
  const before = await initializationId(client);
  const mode = original.lidar_mode === '512x10' ? '1024x10' : '512x10';
  const other: Json = {
    ...(replay ? {} : { lidar_mode: mode }),
    nmea_leap_seconds: (original.nmea_leap_seconds as number) + 1,
  };
  const differing = (shown: Json) => Object.keys(other).filter((k) => shown[k] !== other[k]);
  const postOk = await run.check('write.post.accepted', `POST /api/v1/sensor/config ${show(other)} answers 204`, () =>
    acceptedChange(client, 'POST', '/api/v1/sensor/config', other),
  );
  const whenPosted = ifAccepted(run, postOk, 'the POST was not accepted');
  await whenPosted('write.post.all-applied', 'every member of an accepted POST is applied', async () => {
    const now = await client.fresh('/api/v1/sensor/config');
    expectThat(differing(now).length === 0, `not applied: ${differing(now).join(', ')}`);
  });
  await whenPosted('write.post.reinit', 'an accepted POST reinitializes: new initialization_id', async () => {
    skipWhenReplaying(replay, KEPT_INIT_ID);
    expectThat((await initializationId(client)) !== before, 'initialization_id unchanged');
  });
  await whenPosted(
    'write.post.format-follows',
    'lidar_data_format follows the new lidar_mode (columns_per_frame, column_window)',
    async () => {
      skipWhenReplaying(replay, "lidar_mode is the recording's: a change is refused 409, so none was posted");
      const format = await client.fresh('/api/v1/sensor/metadata/lidar_data_format');
      const columns = Number(mode.split('x')[0]);
      expectThat(format.columns_per_frame === columns, `columns_per_frame ${format.columns_per_frame}`);
      expectThat(
        JSON.stringify(format.column_window) === JSON.stringify([0, columns - 1]) ||
          original.azimuth_window?.toString() !== '0,360000',
        `column_window ${show(format.column_window)}`,
      );
    },
  );
  await whenPosted(
    'write.post.metadata-follows',
    'GET /api/v1/sensor/metadata config_params shows the new values',
    async () => {
      const shown = (await client.fresh('/api/v1/sensor/metadata')).config_params as Json;
      expectThat(differing(shown).length === 0, `config_params differ: ${show(differing(shown).map((k) => shown[k]))}`);
    },
  );
  await whenPosted('write.post.time-follows', 'time/sensor nmea.leap_seconds shows the new value', async () => {
    const sensor = await client.fresh('/api/v1/time/sensor');
    const leap = ((sensor.multipurpose_io as Json)?.nmea as Json)?.leap_seconds;
    expectThat(leap === other.nmea_leap_seconds, show(leap));
  });
}

async function azimuthWindowChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const windowOk = await run.check('write.window.accepted', 'POST azimuth_window [90000, 270000] answers 204', () =>
    acceptedChange(client, 'POST', '/api/v1/sensor/config', { azimuth_window: [90000, 270000] }),
  );
  const whenWindowed = ifAccepted(run, windowOk, 'the window was not accepted');
  await whenWindowed(
    'write.window.columns',
    'column_window reflects the azimuth window (about half the frame)',
    async () => {
      const format = await client.fresh('/api/v1/sensor/metadata/lidar_data_format');
      const [first, last] = format.column_window as number[];
      const width = format.columns_per_frame as number;
      const share = (last - first + 1) / width;
      expectThat(share > 0.45 && share < 0.55, `column_window ${show(format.column_window)} of ${width} columns`);
    },
  );
}

async function operatingModeChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const standbyOk = await run.check('write.standby.accepted', 'PUT operating_mode "STANDBY" answers 204', () =>
    acceptedChange(client, 'PUT', '/api/v1/sensor/config/operating_mode', 'STANDBY'),
  );
  const whenStandby = ifAccepted(run, standbyOk, 'STANDBY was not accepted');
  await whenStandby(
    'write.standby.status',
    'in STANDBY sensor_info.status is STANDBY and lidar_data_format is refused (error 2)',
    async () => {
      const info = await client.fresh('/api/v1/sensor/metadata/sensor_info');
      expectThat(info.status !== 'RUNNING', `status ${show(info.status)}`);
      const format = await client.request('GET', '/api/v1/sensor/metadata/lidar_data_format');
      expectThat(format.status >= 400, `answered ${format.status}`);
      const problem = problemShape(format);
      expectThat(problem === undefined, problem ?? '');
    },
  );
  await run.check(
    'write.normal.accepted',
    'PUT operating_mode "NORMAL" answers 204 and the unit is RUNNING again',
    async () => {
      await acceptedChange(client, 'PUT', '/api/v1/sensor/config/operating_mode', 'NORMAL');
      const info = await client.fresh('/api/v1/sensor/metadata/sensor_info');
      expectThat(info.status === 'RUNNING', `status ${show(info.status)}`);
    },
  );
}

async function autoDestinationCheck(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check(
    'write.auto-dest',
    'POST udp_dest "@auto" sets udp_dest to the address the unit sees the validator at',
    async () => {
      await acceptedChange(client, 'POST', '/api/v1/sensor/config', { udp_dest: '@auto' });
      const dest = (await client.request('GET', '/api/v1/sensor/config/udp_dest')).json;
      expectThat(typeof dest === 'string' && /^\d+\.\d+\.\d+\.\d+$/.test(dest), `udp_dest ${show(dest)}`);
      const host = new URL(client.baseUrl).hostname;
      if (/^127\./.test(host)) expectThat(/^127\./.test(String(dest)), `udp_dest ${dest} for a validator on loopback`);
      return `udp_dest ${dest}`;
    },
  );
}

/** Runs a check of what a change did only when the change was accepted; otherwise a SKIP with `notAccepted`. */
function ifAccepted(run: CheckRun, accepted: boolean, notAccepted: string) {
  return (id: string, title: string, body: () => unknown) =>
    run.check(id, title, async () => {
      if (!accepted) throw new SkipCheck(notAccepted);
      return body();
    });
}
