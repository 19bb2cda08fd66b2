/**
 * Zone Monitor (firmware 3.2, docs/zone-monitor.md): what the validator checks of it. Read-only: a unit
 * below 3.2 answers the zone routes 404; a 3.2 unit serves live_ids, the staged and active zips
 * (application/octet-stream zips, or 404 problems) and the zone packet destination in its configuration.
 * With --allow-changes: a corrupt zip is refused naming the rule and stages nothing, and a zone set like the
 * SDK example's (a box in front of the unit) is staged and read back byte for byte; what was staged before is
 * put back.
 */
import { createHash } from 'node:crypto';
import { installedPackage, zoneSetSchemaErrors } from '../first-use/index.js';
import { boxTriangles, encodeBinaryStl, zoneSetSchemaProblems } from '../model/index.js';
import { type Replay, skipWhenReplaying } from './replay-signal.js';
import type { UdpCapture } from './udp-capture.js';
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import type { UnitClient } from './unit-client.js';

/** The zip writer, from the build's first-use packages (as the unit's zone zip reader takes it). */
const fflate = installedPackage<typeof import('fflate')>('fflate');

const ZONES = '/api/v1/zone_monitor';
const OCTET = 'application/octet-stream';

/** The firmware's major and minor version from sensor_info's image_rev ("…-v3.2.0+…"), or undefined. */
async function firmwareOf(client: UnitClient): Promise<[number, number] | undefined> {
  const info = await client.readJson<{ image_rev?: string }>('/api/v1/sensor/metadata/sensor_info');
  const match = /-v(\d+)\.(\d+)\./.exec(info.image_rev ?? '');
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

const hasZoneMonitor = (fw: [number, number] | undefined) => !!fw && (fw[0] > 3 || (fw[0] === 3 && fw[1] >= 2));

/** A zone set as the SDK's example writes one: a box 2-4 m in front of the unit, in the sensor frame. */
export function exampleZoneSet(): Uint8Array {
  const stl = encodeBinaryStl(boxTriangles([2, -0.5, -0.5], [4, 0.5, 0.5]));
  const metadata = {
    label: 'lidar-sensor validate',
    version: { metadata: 1, file_naming: 1 },
    power_on_live_ids: [0],
    zones: {
      0: {
        point_count: 1,
        frame_count: 1,
        mode: 'OCCUPANCY',
        label: 'box in front',
        stl: { file_name: '0.stl', coordinate_frame: 'SENSOR', hash: createHash('sha256').update(stl).digest('hex') },
      },
    },
  };
  const { strToU8, zipSync } = fflate();
  return zipSync({ 'metadata.json': strToU8(JSON.stringify(metadata, null, 4)), '0.stl': stl });
}

function zipOrNotFound(status: number, contentType: string, bytes: Buffer, path: string): void {
  if (status === 404) return;
  expectThat(status === 200, `GET ${path} answered ${status}, neither 200 nor 404`);
  expectThat(contentType.startsWith(OCTET), `Content-Type ${show(contentType)}, not ${OCTET}`);
  expectThat(bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')), 'the body is not a zip archive');
}

export async function zoneReadChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const fw = await firmwareOf(client).catch(() => undefined);
  const zoned = hasZoneMonitor(fw);
  await run.check('zone.absent', 'a unit below firmware 3.2 answers the zone routes 404', async () => {
    if (zoned) throw new SkipCheck(`firmware ${fw?.join('.')} has Zone Monitor`);
    const answer = await client.read(`${ZONES}/live_ids`);
    expectThat(answer.status === 404, `GET ${ZONES}/live_ids answered ${answer.status}`);
  });
  const only32 = () => {
    if (!zoned) throw new SkipCheck(`firmware ${fw?.join('.') ?? 'unknown'} has no Zone Monitor`);
  };
  await run.check(
    'zone.live-ids',
    `GET ${ZONES}/live_ids is a JSON array of at most 16 distinct zone ids`,
    async () => {
      only32();
      const ids = await client.readJson<unknown>(`${ZONES}/live_ids`);
      expectThat(Array.isArray(ids), `not an array: ${show(ids)}`);
      const valid = ids.every((id) => Number.isInteger(id) && (id as number) >= 0);
      expectThat(valid && ids.length <= 16 && new Set(ids).size === ids.length, `not ≤ 16 distinct ids: ${show(ids)}`);
    },
  );
  for (const which of ['active', 'staged'] as const)
    await run.check(`zone.${which}-zip`, `GET ${ZONES}/${which}/zip is a zip (${OCTET}) or 404`, async () => {
      only32();
      const answer = await client.read(`${ZONES}/${which}/zip`);
      zipOrNotFound(answer.status, answer.contentType, answer.bytes, `${ZONES}/${which}/zip`);
      return answer.status === 404 ? `no ${which} zone set` : `${answer.bytes.length} bytes`;
    });
  await run.check('zone.active-schema', "the active zone set's metadata.json passes the SDK's schema", async () => {
    only32();
    const answer = await client.read(`${ZONES}/active/zip`);
    if (answer.status === 404) throw new SkipCheck('no active zone set');
    const files = fflate().unzipSync(new Uint8Array(answer.bytes));
    const name = Object.keys(files).find((n) => n.toLowerCase() === 'metadata.json');
    expectThat(name !== undefined, 'the active zip holds no metadata.json');
    const doc = JSON.parse(new TextDecoder().decode(files[name as string]));
    const problems = zoneSetSchemaProblems(zoneSetSchemaErrors(doc));
    expectThat(
      problems.length === 0,
      `every SDK client opening this unit aborts: ${problems.map((p) => p.detail).join('; ')}`,
    );
  });
  await run.check('zone.config', 'the configuration holds udp_dest_zm and udp_port_zm', async () => {
    only32();
    const config = await client.readJson('/api/v1/sensor/config');
    expectThat(typeof config.udp_dest_zm === 'string', `udp_dest_zm is ${show(config.udp_dest_zm)}`);
    const port = config.udp_port_zm;
    expectThat(
      Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535,
      `udp_port_zm is ${show(port)}`,
    );
  });
}

export async function zoneWriteChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const fw = await firmwareOf(client).catch(() => undefined);
  if (!hasZoneMonitor(fw)) {
    run.skip('zone.write', 'Zone Monitor write paths', `firmware ${fw?.join('.') ?? 'unknown'} has no Zone Monitor`);
    return;
  }
  const before = await client.request('GET', `${ZONES}/staged/zip`);
  const staged = () => client.request('GET', `${ZONES}/staged/zip`);
  try {
    await run.check(
      'zone.refuse-corrupt',
      'a corrupt zone set zip is refused 400 naming its rule, and stages nothing',
      async () => {
        const answer = await client.request('POST', `${ZONES}/staged/zip`, {
          rawBody: Buffer.from('not a zip archive'),
          headers: { 'content-type': OCTET },
        });
        expectThat(answer.status === 400, `answered ${answer.status}`);
        expectThat(/corrupt-zip/.test(answer.text), `the problem does not name the rule: ${answer.text.slice(0, 160)}`);
        const after = await staged();
        expectThat(after.status === before.status && after.bytes.equals(before.bytes), 'the staged zone set changed');
      },
    );
    await run.check('zone.stage', 'a zone set like the SDK example is staged and read back byte for byte', async () => {
      const zip = exampleZoneSet();
      const answer = await client.request('POST', `${ZONES}/staged/zip`, {
        rawBody: zip,
        headers: { 'content-type': OCTET },
      });
      expectThat(answer.status === 204, `answered ${answer.status}: ${answer.text.slice(0, 160)}`);
      expectThat(
        (await staged()).bytes.equals(Buffer.from(zip)),
        'GET staged/zip does not give back the uploaded bytes',
      );
    });
  } finally {
    // What was staged before is staged again (or nothing).
    if (before.status === 200)
      await client.request('POST', `${ZONES}/staged/zip`, {
        rawBody: before.bytes,
        headers: { 'content-type': OCTET },
      });
    else await client.request('DELETE', `${ZONES}/staged/zip`);
  }
}

/** A zone packet is 680 bytes (the SDK tells zone packets by their size). */
const ZONE_PACKET_BYTES = 680;

/**
 * `--allow-changes`, a 3.2 unit's zone packets, pointed at the validator with its lidar stream: one every frame
 * (consecutive frame ids), whether or not a zone is live, as the SDK counts a frame complete only once its zone
 * packet came. `fusa`: the lidar data format's header_type is FUSA, whose header zone packets carry too (u32 frame
 * id at byte 4), as the SDK reads every packet of a stream with one packet format.
 */
export async function zonePacketChecks(
  run: CheckRun,
  capture: UdpCapture,
  config: Record<string, unknown>,
  fusa: boolean,
  replay?: Replay,
): Promise<void> {
  await run.check(
    'udp.zone-every-frame',
    'a 3.2 unit sends a zone packet every frame (consecutive frame ids)',
    async () => {
      if (!('udp_port_zm' in config)) throw new SkipCheck('the unit has no Zone Monitor');
      if (capture.zones.length === 0 && replay?.packets.zone === 0)
        skipWhenReplaying(replay, 'the recording holds no zone packet');
      expectThat(capture.zones.length > 0, 'no zone packet arrived while the lidar stream ran');
      const sizes = capture.zones.filter((z) => z.data.length !== ZONE_PACKET_BYTES);
      expectThat(sizes.length === 0, `${sizes.length} zone packets are not ${ZONE_PACKET_BYTES} bytes`);
      const ids = capture.zones.map((z) => (fusa ? z.data.readUInt32LE(4) : z.data.readUInt16LE(2)));
      const next = (id: number) => (fusa ? (id + 1) >>> 0 : (id + 1) & 0xffff);
      const gaps = ids.filter((id, i) => i > 0 && id !== next(ids[i - 1])).length;
      expectThat(gaps === 0, `${gaps} of ${ids.length} zone packets do not follow the frame before`);
      return `${ids.length} zone packets, frames ${ids[0]}..${ids[ids.length - 1]}`;
    },
  );
}
