/**
 * Every JSON GET of the interface, one at a time: it answers 200, is JSON, matches its 200 schema in the
 * OpenAPI document and holds exactly the spec's members; and the speed override, whose answer depends on the
 * unit's Ethernet.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import { type ResponseSchemas, schemaErrors } from './response-schemas.js';
import { CONFIG_RULES, DOCUMENT_KEYS, keyMismatch, METADATA_MEMBERS } from './spec-rules.js';
import type { UnitClient } from './unit-client.js';

/** The members firmware 3.2 adds to the data formats (a real 3.2.0 unit's metadata has them). */
const FIRMWARE_32_FORMAT_KEYS: Record<string, readonly string[]> = {
  lidar_data_format: ['fps', 'header_type'],
  imu_data_format: ['imu_measurements_per_packet', 'imu_packets_per_frame'],
};

/** Every JSON GET of the interface: check id stem, path, the spec's key list for it (if it has one). */
export const JSON_GETS: readonly {
  name: string;
  path: string;
  keys?: readonly string[];
  optional?: readonly string[];
}[] = [
  // Firmware 3.2 adds the zone packet destination (Zone Monitor) and the parameters of its data formats.
  {
    name: 'config',
    path: '/api/v1/sensor/config',
    keys: Object.keys(CONFIG_RULES),
    optional: [
      'udp_dest_zm',
      'udp_port_zm',
      'udp_multicast_ttl',
      'udp_multicast_ttl_zm',
      'header_type',
      'lidar_frame_azimuth_offset',
      'imu_packets_per_frame',
      'bloom_reduction_optimization',
    ],
  },
  // imu_data_format: aggregated by 3.1 firmware beside the spec's seven members.
  { name: 'metadata', path: '/api/v1/sensor/metadata', keys: METADATA_MEMBERS, optional: ['imu_data_format'] },
  ...[
    'sensor_info',
    'lidar_data_format',
    'imu_data_format',
    'beam_intrinsics',
    'imu_intrinsics',
    'lidar_intrinsics',
    'calibration_status',
  ].map((name) => ({
    name,
    path: `/api/v1/sensor/metadata/${name}`,
    keys: DOCUMENT_KEYS[name],
    optional: FIRMWARE_32_FORMAT_KEYS[name],
  })),
  { name: 'alerts', path: '/api/v1/sensor/alerts', keys: DOCUMENT_KEYS.alerts },
  { name: 'alerts-summary', path: '/api/v1/sensor/alerts?mode=summary', keys: DOCUMENT_KEYS.alerts },
  { name: 'telemetry', path: '/api/v1/sensor/telemetry', keys: DOCUMENT_KEYS.telemetry },
  { name: 'user-data', path: '/api/v1/user/data' },
  { name: 'user-data-metadata', path: '/api/v1/user/data?include_metadata=true', keys: ['policy', 'value'] },
  { name: 'firmware', path: '/api/v1/system/firmware', keys: DOCUMENT_KEYS.firmware },
  { name: 'network', path: '/api/v1/system/network', keys: DOCUMENT_KEYS.network },
  { name: 'ipv4', path: '/api/v1/system/network/ipv4', keys: DOCUMENT_KEYS.ipv4 },
  { name: 'ipv4-override', path: '/api/v1/system/network/ipv4/override' },
  { name: 'time', path: '/api/v1/time', keys: DOCUMENT_KEYS.time },
  { name: 'time-sensor', path: '/api/v1/time/sensor', keys: DOCUMENT_KEYS.time_sensor },
  { name: 'time-system', path: '/api/v1/time/system', keys: DOCUMENT_KEYS.time_system },
  { name: 'time-ptp', path: '/api/v1/time/ptp', keys: DOCUMENT_KEYS.ptp },
  { name: 'ptp-profile', path: '/api/v1/time/ptp/profile' },
];

export async function getChecks(run: CheckRun, client: UnitClient, schemas: ResponseSchemas): Promise<void> {
  for (const get of JSON_GETS) await endpointChecks(run, client, schemas, get);
  await speedOverrideCheck(run, client);
}

async function endpointChecks(
  run: CheckRun,
  client: UnitClient,
  schemas: ResponseSchemas,
  get: (typeof JSON_GETS)[number],
): Promise<void> {
  const at = `GET ${get.path}`;
  const ok = await run.check(`get.${get.name}.status`, `${at} answers 200`, async () => {
    const answer = await client.read(get.path);
    expectThat(answer.status === 200, `answered ${answer.status}: ${answer.text.slice(0, 160)}`);
  });
  if (!ok) {
    for (const part of ['content-type', 'schema', 'keys'])
      run.skip(`get.${get.name}.${part}`, `${at}: ${part}`, 'no 200 answer');
    return;
  }
  await run.check(
    `get.${get.name}.content-type`,
    `${at} is JSON with Content-Type: application/json (spec rule 3)`,
    async () => {
      const answer = await client.read(get.path);
      expectThat(/^application\/json\b/.test(answer.contentType), `Content-Type is ${show(answer.contentType)}`);
      expectThat(answer.json !== undefined, `body is not JSON: ${answer.text.slice(0, 80)}`);
    },
  );
  await run.check(`get.${get.name}.schema`, `${at} matches its response schema in the OpenAPI document`, async () => {
    const answer = await client.read(get.path);
    const validate = schemas.validator('GET', get.path, 200);
    if (!validate) throw new SkipCheck(`the OpenAPI document (${schemas.source}) has no 200 schema for it`);
    expectThat(validate(answer.json) === true, schemaErrors(validate));
  });
  if (get.keys)
    await run.check(`get.${get.name}.keys`, `${at} has exactly the spec's members`, async () => {
      const problem = keyMismatch((await client.read(get.path)).json, get.keys ?? [], get.optional);
      expectThat(problem === '', problem);
    });
}

async function speedOverrideCheck(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check(
    'get.speed-override',
    'GET /api/v1/system/network/speed_override: null or 100 on T1 units, a refusal naming T1 on others',
    async () => {
      const answer = await client.read('/api/v1/system/network/speed_override');
      if (answer.status === 200) {
        expectThat(answer.json === null || answer.json === 100, `value ${answer.text}`);
        return 'automotive Ethernet (T1) unit';
      }
      expectThat(
        answer.status >= 400 && answer.status < 500,
        `answered ${answer.status} (a non-T1 unit must refuse with a 4xx)`,
      );
      return `not a T1 unit: ${answer.status}`;
    },
  );
}
