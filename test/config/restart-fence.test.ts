/**
 * Resets and restarts are fenced (issue 58): from the moment the unit acknowledges a DELETE of the configuration or
 * a restart until it is back, no other change is applied, and a change that arrives meanwhile gets an answer (503
 * with Retry-After), never a closed connection. The built unit, its reinit and restart slowed by its fault plane
 * so that requests meet them in flight. Each request goes on a connection of its own, as separate clients send them.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, startCli } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { uploadFirmware } from '../firmware/http-upload.js';

const CONFIG = '/api/v1/sensor/config';
const SENSOR_INFO = '/api/v1/sensor/metadata/sensor_info';

/** What a client saw: the status and the headers that tell it what to do, or that no answer came. */
interface Seen {
  request: string;
  status: number | 'no answer';
  retryAfter?: string;
  connection?: string;
}

function send(baseUrl: string, method: string, path: string, body?: object): Promise<Seen> {
  const label = `${method} ${path}${body ? ` ${JSON.stringify(body)}` : ''}`;
  const text = body ? JSON.stringify(body) : undefined;
  return new Promise((resolve) => {
    const req = request(
      `${baseUrl}${path}`,
      {
        method,
        agent: false,
        headers: text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            request: label,
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            connection: res.headers.connection,
          }),
        );
        res.on('error', () => resolve({ request: label, status: 'no answer' }));
      },
    );
    req.on('error', () => resolve({ request: label, status: 'no answer' }));
    req.end(text);
  });
}

const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill()));
});

/** A unit whose reinit takes `reinitMs` and whose restart keeps it unreachable for `restartMs`. */
async function slowUnit(reinitMs: number, restartMs: number): Promise<CliProcess> {
  const controlPort = await freePort();
  const cli = await startCli({ args: ['--control', `127.0.0.1:${controlPort}`] });
  running.push(cli);
  for (const action of [
    { type: 'reinit_time', ms: reinitMs },
    { type: 'restart_time', ms: restartMs },
  ]) {
    const response = await fetch(`http://127.0.0.1:${controlPort}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selector: { plane: 'unit' }, action }),
    });
    expect(response.status).toBe(201);
  }
  return cli;
}

/** Resolves once the unit is reinitializing (sensor_info answers 503 or says INITIALIZING). */
async function reinitializing(baseUrl: string): Promise<void> {
  await waitFor(
    async () => {
      const response = await fetch(`${baseUrl}${SENSOR_INFO}`);
      if (response.status === 503) return true;
      return ((await response.json()) as { status: string }).status === 'INITIALIZING';
    },
    10_000,
    'the unit to reinitialize',
  );
}

/** Resolves with the active configuration once the unit is back and RUNNING. */
async function backUp(baseUrl: string): Promise<Record<string, unknown>> {
  await waitFor(
    async () => {
      const response = await fetch(`${baseUrl}${SENSOR_INFO}`);
      return response.status === 200 && ((await response.json()) as { status: string }).status === 'RUNNING';
    },
    20_000,
    'the unit to be back',
  );
  return (await (await fetch(`${baseUrl}${CONFIG}`)).json()) as Record<string, unknown>;
}

function expectAnswered(seen: Seen[]): void {
  console.log(
    seen
      .map(
        (s) =>
          `${s.request} → ${s.status}${s.retryAfter ? ` Retry-After: ${s.retryAfter}` : ''}${s.connection ? ` Connection: ${s.connection}` : ''}`,
      )
      .join('\n'),
  );
  expect(seen.filter((s) => s.status === 'no answer').map((s) => s.request)).toEqual([]);
  for (const s of seen.filter((s) => s.status === 503))
    expect(Number(s.retryAfter), s.request).toBeGreaterThanOrEqual(1);
}

describe('a reset (DELETE config) is fenced until the unit is back', () => {
  it('a change sent while the reset waits its turn is answered 503 and not applied; the defaults hold', async () => {
    const cli = await slowUnit(800, 1500);
    const defaults = (await (await fetch(`${cli.baseUrl}${CONFIG}`)).json()) as Record<string, unknown>;
    const seen: Promise<Seen>[] = [send(cli.baseUrl, 'POST', CONFIG, { lidar_mode: '2048x10' })];
    await reinitializing(cli.baseUrl);
    const reset = send(cli.baseUrl, 'DELETE', CONFIG);
    seen.push(reset);
    // Changes one after another, until the reset is answered and a change has been turned away.
    let resetAnswered = false;
    void reset.then(() => (resetAnswered = true));
    for (let port = 9002; ; port++) {
      const change = await send(cli.baseUrl, 'POST', CONFIG, { udp_port_imu: port });
      seen.push(Promise.resolve(change));
      if (resetAnswered && change.status === 503) break;
      expect(port, 'a change was refused before the unit came back').toBeLessThan(9100);
    }
    const answers = await Promise.all(seen);
    expectAnswered(answers);
    expect(answers[1].status).toBe(204);
    const back = await backUp(cli.baseUrl);
    // The reset the unit acknowledged holds: every parameter at its default, nothing applied behind it.
    expect(back).toEqual(defaults);
  }, 60_000);
});

describe('a restart is fenced until the unit is back', () => {
  it('the change in flight is answered before the unit goes down; one sent after the restart is answered 503', async () => {
    const cli = await slowUnit(800, 1500);
    const applying = send(cli.baseUrl, 'POST', CONFIG, { udp_port_imu: 9100 });
    await reinitializing(cli.baseUrl);
    const restart = await send(cli.baseUrl, 'POST', '/api/v1/system/restart');
    const after = await send(cli.baseUrl, 'POST', CONFIG, { udp_port_imu: 9200 });
    const read = await send(cli.baseUrl, 'GET', CONFIG);
    const answers = [await applying, restart, after, read];
    expectAnswered(answers);
    expect(answers.map((s) => s.status)).toEqual([204, 204, 503, 503]);
    const back = await backUp(cli.baseUrl);
    // The change answered 204 holds; the one refused did not happen.
    expect(back.udp_port_imu).toBe(9100);
    const applied = await send(cli.baseUrl, 'POST', CONFIG, { udp_port_imu: 9300 });
    expect(applied.status).toBe(204);
  }, 60_000);
});

describe("a firmware update's reboot is fenced until the unit is back", () => {
  it('a change sent after the upload is answered 503 and not applied; the unit comes back on the new image', async () => {
    const cli = await slowUnit(100, 1500);
    const before = (await (await fetch(`${cli.baseUrl}${CONFIG}`)).json()) as Record<string, unknown>;
    const rev = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
    const upload = await uploadFirmware(cli.baseUrl, buildImage(rev, generatedPayload('fence', 1000)));
    const after = await send(cli.baseUrl, 'POST', CONFIG, { udp_port_imu: 9400 });
    expectAnswered([
      { request: 'POST /api/v1/system/firmware', status: upload.status, connection: String(upload.headers.connection) },
      after,
    ]);
    expect([upload.status, after.status]).toEqual([204, 503]);
    // Unchanged (the new image, firmware 3.2, adds Zone Monitor's parameters).
    expect(await backUp(cli.baseUrl)).toMatchObject(before);
    const firmware = (await (await fetch(`${cli.baseUrl}/api/v1/system/firmware`)).json()) as { fw: string };
    expect(firmware.fw).toBe(rev);
  }, 60_000);
});
