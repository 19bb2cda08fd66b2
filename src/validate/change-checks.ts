/**
 * --allow-changes, write paths: configuration PUT/POST (accepted, refused, atomic), reinitialization and the new
 * initialization_id, user data and its policy, udp_dest @auto. The caller restores what `snapshot` saved.
 */
import type { HttpProbe } from './http-probe.js';
import type { CheckLog } from './report.js';

type Obj = Record<string, unknown>;
const CONFIG = '/api/v1/sensor/config';
const USER_DATA = '/api/v1/user/data';

export interface UnitSnapshot {
  config: Obj;
  userData: { value: string; policy: string } | undefined;
}

export async function snapshot(http: HttpProbe): Promise<UnitSnapshot> {
  const config = (await http.get(CONFIG)).json as Obj;
  const ud = await http.get(`${USER_DATA}?include_metadata=true`);
  const userData = ud.status === 200 ? (ud.json as { value: string; policy: string }) : undefined;
  return { config, userData };
}

/** Puts back the configuration and user data saved before the run; returns what could not be restored. */
export async function restore(http: HttpProbe, saved: UnitSnapshot): Promise<string> {
  const problems: string[] = [];
  const config = { ...saved.config };
  // An empty udp_dest (no destination) is the factory value; POST refuses it as an address, so it goes back alone.
  const emptyDest = config.udp_dest === '';
  if (emptyDest) delete config.udp_dest;
  const post = await http.request('POST', CONFIG, config);
  if (post.status >= 300) problems.push(`config POST ${post.status} ${post.text.slice(0, 100)}`);
  if (emptyDest) {
    const put = await http.request('PUT', `${CONFIG}/udp_dest`, '');
    if (put.status >= 300) problems.push(`udp_dest PUT "" ${put.status}`);
  }
  if (saved.userData) {
    const ud = saved.userData.value
      ? await http.request('PUT', `${USER_DATA}?policy=${saved.userData.policy}`, saved.userData.value)
      : await http.request('DELETE', USER_DATA);
    if (ud.status >= 300) problems.push(`user data ${ud.status}`);
  }
  const now = (await http.get(CONFIG)).json as Obj;
  const differ = Object.keys(saved.config).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(saved.config[k]));
  if (differ.length) problems.push(`still changed: ${differ.join(', ')}`);
  return problems.join('; ');
}

const initId = async (http: HttpProbe) =>
  ((await http.get('/api/v1/sensor/metadata/sensor_info')).json as Obj | undefined)?.initialization_id;

/** A value of the wrong JSON type for a parameter whose current value is `v`. */
const wrongType = (v: unknown) =>
  typeof v === 'string' ? 12345 : typeof v === 'number' ? 'not-a-number' : { wrong: true };

export async function configChecks(log: CheckLog, http: HttpProbe, saved: UnitSnapshot) {
  for (const [name, value] of Object.entries(saved.config)) {
    const id = `config.${name}`;
    if (name === 'udp_dest' && value === '') {
      log.skip(
        `${id}.rewrite`,
        `PUT ${name} with its current value answers 204`,
        'udp_dest is empty (no destination set)',
      );
    } else {
      const put = await http.request('PUT', `${CONFIG}/${name}`, value);
      log.expect(
        `${id}.rewrite`,
        `PUT ${name} with its current value answers 204`,
        put.status === 204 ? '' : `status ${put.status}: ${put.text.slice(0, 100)}`,
      );
    }
    const bad = await http.request('PUT', `${CONFIG}/${name}`, wrongType(value));
    log.expect(
      `${id}.refuse-type`,
      `PUT ${name} with a value of the wrong type answers 400`,
      bad.status === 400 ? '' : `status ${bad.status}`,
    );
    const after = (await http.get(`${CONFIG}/${name}`)).json;
    log.expect(
      `${id}.unchanged`,
      `GET ${name} after the refusal still gives the value`,
      JSON.stringify(after) === JSON.stringify(value) ? '' : `${JSON.stringify(after)} ≠ ${JSON.stringify(value)}`,
    );
  }
  const unknown = await http.request('PUT', `${CONFIG}/no_such_parameter`, 1);
  log.expect(
    'config.unknown-param',
    'PUT an unknown parameter answers 404',
    unknown.status === 404 ? '' : `status ${unknown.status}`,
  );

  const port = Number(saved.config.udp_port_lidar);
  const atomic = await http.request('POST', CONFIG, {
    udp_port_lidar: port === 7502 ? 7600 : 7502,
    lidar_mode: 'bogus_mode',
  });
  log.expect(
    'config.post-atomic.refused',
    'POST config with one bad parameter answers 400',
    atomic.status === 400 ? '' : `status ${atomic.status}`,
  );
  const portAfter = (await http.get(`${CONFIG}/udp_port_lidar`)).json;
  log.expect(
    'config.post-atomic.unchanged',
    'POST config with one bad parameter changes none (atomic)',
    portAfter === port ? '' : `udp_port_lidar became ${portAfter}`,
  );
  const notObject = await http.request('POST', CONFIG, '[1,2]', true);
  log.expect(
    'config.post-not-object',
    'POST config with a JSON array answers 400',
    notObject.status === 400 ? '' : `status ${notObject.status}`,
  );
  const badJson = await http.request('POST', CONFIG, '{"udp_port_lidar": ', true);
  log.expect(
    'config.post-bad-json',
    'POST config with broken JSON answers 400',
    badJson.status === 400 ? '' : `status ${badJson.status}`,
  );

  const before = await initId(http);
  const reinit = await http.request('POST', CONFIG, { udp_port_imu: saved.config.udp_port_imu });
  log.expect(
    'config.post.accepted',
    'POST config with a valid parameter answers 204',
    reinit.status === 204 ? '' : `status ${reinit.status}`,
  );
  const after = await initId(http);
  log.expect(
    'reinit.initialization-id',
    'a configuration change reinitializes: sensor_info.initialization_id changes',
    typeof after === 'number' && after !== before ? '' : `initialization_id ${before} → ${after}`,
  );
  const status = ((await http.get('/api/v1/sensor/metadata/sensor_info')).json as Obj).status;
  log.expect(
    'reinit.running',
    'after reinitialization sensor_info.status is RUNNING',
    status === 'RUNNING' ? '' : `status ${status}`,
  );
}

export async function userDataChecks(log: CheckLog, http: HttpProbe) {
  const value = `validate ${new Date().toISOString()}`;
  const put = await http.request('PUT', `${USER_DATA}?policy=keep_on_config_delete`, value);
  log.expect(
    'userdata.put',
    'PUT user/data with a string answers 204',
    put.status === 204 ? '' : `status ${put.status}`,
  );
  const got = await http.get(USER_DATA);
  log.expect(
    'userdata.get',
    'GET user/data gives back the value',
    got.json === value ? '' : `got ${got.text.slice(0, 80)}`,
  );
  const meta = (await http.get(`${USER_DATA}?include_metadata=1`)).json as Obj | undefined;
  log.expect(
    'userdata.policy',
    'include_metadata=1 gives { value, policy } with the policy set',
    meta?.value === value && meta?.policy === 'keep_on_config_delete' ? '' : `got ${JSON.stringify(meta)}`,
  );
  const badPolicy = await http.request('PUT', `${USER_DATA}?policy=forever`, 'x');
  log.expect(
    'userdata.bad-policy',
    'PUT user/data with an unknown policy answers 400',
    badPolicy.status === 400 ? '' : `status ${badPolicy.status}`,
  );
  const big = await http.request('PUT', USER_DATA, 'x'.repeat(131073));
  log.expect(
    'userdata.too-big',
    'PUT user/data over 131072 bytes is refused',
    big.status === 400 || big.status === 413 ? '' : `status ${big.status}`,
  );
  const still = await http.get(USER_DATA);
  log.expect(
    'userdata.unchanged',
    'refused user data writes change nothing',
    still.json === value ? '' : `got ${still.text.slice(0, 80)}`,
  );
  const del = await http.request('DELETE', USER_DATA);
  log.expect(
    'userdata.delete',
    'DELETE user/data answers 204 and leaves the empty string',
    del.status === 204 && (await http.get(USER_DATA)).json === '' ? '' : `status ${del.status}`,
  );
}

/** POST udp_dest @auto and the two ports: the unit then streams to the address it saw this client come from. */
export async function pointStreamsHere(log: CheckLog, http: HttpProbe, lidarPort: number, imuPort: number) {
  const post = await http.request('POST', CONFIG, {
    udp_dest: '@auto',
    udp_port_lidar: lidarPort,
    udp_port_imu: imuPort,
    operating_mode: 'NORMAL',
  });
  const ok = log.expect(
    'udp-dest.auto',
    'POST config udp_dest @auto answers 204',
    post.status === 204 ? '' : `status ${post.status}: ${post.text.slice(0, 100)}`,
  );
  const dest = (await http.get(`${CONFIG}/udp_dest`)).json;
  log.expect(
    'udp-dest.resolved',
    "after @auto, udp_dest is this client's IPv4 address",
    typeof dest === 'string' && /^\d+\.\d+\.\d+\.\d+$/.test(dest) ? '' : `udp_dest ${JSON.stringify(dest)}`,
  );
  const put = await http.request('PUT', `${CONFIG}/udp_dest`, '@auto');
  log.expect(
    'udp-dest.auto-put-refused',
    'PUT udp_dest @auto is refused (only POST supports it)',
    put.status === 400 ? '' : `status ${put.status}`,
  );
  return ok;
}
