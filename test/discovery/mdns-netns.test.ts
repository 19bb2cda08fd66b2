/**
 * mDNS / DNS-SD for real: the built CLI runs in one network namespace, a DNS-SD browser (the
 * multicast-dns library, test/discovery/mdns-querier.mjs) in the other, joined by a veth pair. The
 * browser finds the instance of both service types with its SRV, TXT and A records, sees the records
 * follow an IPv4 override and a firmware update, sees them withdrawn (goodbye packets) when the unit
 * stops, and a legacy unicast query (RFC 6762 §6.7) gets a unicast answer. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeImageFile } from '../../src/core/firmware/image-builder.js';
import { NetnsPair, netnsSkipReason, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason();
if (skipReason) console.log(`skipping the mDNS namespace tests: ${skipReason}`);

const QUERIER = resolve(import.meta.dirname, 'mdns-querier.mjs');
const SERIAL = '122201000123';
const UNIT = '192.0.2.1';
const BROWSER = '192.0.2.2';
const INSTANCE_ROGER = `Ouster Sensor ${SERIAL}._roger._tcp.local`;
const INSTANCE_OUSTER = `Ouster Sensor ${SERIAL}._ouster-lidar._tcp.local`;
const HOST = `os-${SERIAL}.local`;
const NEW_FW = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';

interface Rr {
  name: string;
  type: string;
  ttl: number;
  flush: boolean;
  data: unknown;
}
interface Seen {
  from: string;
  id: number;
  authoritative: boolean;
  questions: { name: string; type: string }[];
  answers: Rr[];
  additionals: Rr[];
}

describe.skipIf(skipReason)('mDNS advertisement between network namespaces', () => {
  let pair: NetnsPair;
  let dataDir: string;
  let server: SpawnedProcess;
  let browser: SpawnedProcess;

  /** Every response the browser printed so far. */
  const seen = (): Seen[] =>
    browser
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{"from"'))
      .map((l) => JSON.parse(l) as Seen);
  const allRecords = () => seen().flatMap((p) => [...p.answers, ...p.additionals]);
  const txtOf = (r: Rr) => Object.fromEntries((r.data as string[]).map((s) => s.split(/=(.*)/s).slice(0, 2)));

  beforeAll(async () => {
    pair = NetnsPair.create('mdns', { a: [`${UNIT}/24`], b: [`${BROWSER}/24`] });
    dataDir = mkdtempSync(join(tmpdir(), 'sensor-mdns-'));
    // No --mdns: listening on a non-loopback address turns it on.
    server = await pair.startUnit(UNIT, dataDir, ['--serial', SERIAL]);
    browser = pair.spawn(pair.b, [process.execPath, QUERIER, 'browse', BROWSER]);
  }, 60_000);

  afterAll(async () => {
    await pair?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a browse for both service types with the SRV, TXT and A records', async () => {
    const answer = await waitFor(
      () =>
        seen().find(
          (p) => p.answers.some((a) => a.type === 'PTR' && a.data === INSTANCE_ROGER) && p.additionals.length > 0,
        ),
      10_000,
      'an answer to the browse',
    );
    expect(answer.from).toBe(`${UNIT}:5353`);
    expect(answer.authoritative).toBe(true);
    // Both service types were asked for in one query: both instances are in the answer.
    expect(answer.answers.map((a) => `${a.name} PTR ${String(a.data)}`).sort()).toEqual([
      `_ouster-lidar._tcp.local PTR ${INSTANCE_OUSTER}`,
      `_roger._tcp.local PTR ${INSTANCE_ROGER}`,
    ]);
    const srv = answer.additionals.find((r) => r.type === 'SRV' && r.name === INSTANCE_ROGER);
    expect(srv?.data).toMatchObject({ target: HOST, port: 8080 });
    expect(srv?.flush).toBe(true);
    const txt = answer.additionals.find((r) => r.type === 'TXT' && r.name === INSTANCE_OUSTER);
    expect(txt && txtOf(txt)).toMatchObject({
      sn: SERIAL,
      pn: expect.stringMatching(/^840-/),
      fw: 'ousteros-image-prod-bootes-v3.1.0+20240426041747',
      path: '/api/v1',
    });
    const a = answer.additionals.filter((r) => r.type === 'A');
    expect(a.map((r) => [r.name, r.data])).toEqual([[HOST, UNIT]]);
  });

  it('answers a legacy unicast query by unicast, with its id and question, TTLs capped and no cache-flush bit', () => {
    const out = pair.exec(pair.b, [process.execPath, QUERIER, 'legacy', BROWSER, UNIT, HOST, 'A']);
    const reply = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Seen;
    expect(reply.from).toBe(`${UNIT}:5353`);
    expect(reply.id).toBe(4242);
    expect(reply.questions).toEqual([{ name: HOST, type: 'A', class: 'IN' }]);
    expect(reply.answers).toEqual([{ name: HOST, type: 'A', ttl: 10, flush: false, data: UNIT }]);
  });

  it('follows the IPv4 override: the new address is announced, the old one withdrawn', async () => {
    const res = await pair.fetch(pair.b, `http://${UNIT}:8080/api/v1/system/network/ipv4/override`, {
      method: 'PUT',
      body: '"192.0.2.77/24"',
      contentType: 'application/json',
    });
    expect(res.status).toBe(200);
    await waitFor(
      () => allRecords().some((r) => r.type === 'A' && r.data === '192.0.2.77' && r.ttl > 0),
      10_000,
      'the new A record',
    );
    expect(allRecords().some((r) => r.type === 'A' && r.data === UNIT && r.ttl === 0)).toBe(true);
    // Back to the listen address (a simulated unit keeps listening where it was).
    expect(
      (await pair.fetch(pair.b, `http://${UNIT}:8080/api/v1/system/network/ipv4/override`, { method: 'DELETE' }))
        .status,
    ).toBe(204);
    await waitFor(
      () => allRecords().some((r) => r.type === 'A' && r.data === '192.0.2.77' && r.ttl === 0),
      10_000,
      'the override withdrawn',
    );
  });

  it('follows a firmware update: the TXT record carries the new firmware once it runs', async () => {
    const image = join(dataDir, 'fw.img');
    await writeImageFile({ imageRev: NEW_FW, out: image, payloadSize: 4096 });
    // Uploaded from the browser's side of the link.
    const upload = `const [url, file] = process.argv.slice(1);
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: require('node:fs').readFileSync(file) });
      console.log(res.status);`;
    const status = pair.exec(pair.b, [
      process.execPath,
      '--input-type=commonjs',
      '-e',
      `(async () => { ${upload} })()`,
      `http://${UNIT}:8080/api/v1/system/firmware`,
      image,
    ]);
    expect(status.trim()).toBe('204');
    const txt = await waitFor(
      () =>
        allRecords().find((r) => r.type === 'TXT' && r.name === INSTANCE_ROGER && r.ttl > 0 && txtOf(r).fw === NEW_FW),
      20_000,
      'a TXT record with the new firmware',
    );
    expect(txtOf(txt).sn).toBe(SERIAL);
  });

  it('withdraws every record with goodbye packets when the unit stops', async () => {
    await pair.stop(server.child);
    const goodbyes = await waitFor(
      () => {
        const gone = allRecords().filter((r) => r.ttl === 0);
        return (
          gone.some((r) => r.type === 'PTR' && r.data === INSTANCE_ROGER) &&
          gone.some((r) => r.type === 'PTR' && r.data === INSTANCE_OUSTER) &&
          gone
        );
      },
      10_000,
      'goodbye packets',
    );
    expect(goodbyes.some((r) => r.type === 'SRV' && r.name === INSTANCE_ROGER)).toBe(true);
    expect(server.child.exitCode ?? server.child.signalCode).not.toBeNull();
  });
});
