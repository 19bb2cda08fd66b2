/** The web page's routes: the page and its files, the registry the form is generated from, errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../src/config/registry.js';
import { loadWebAssets, WEB_ROOT } from '../../src/routes/web/web-assets.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

describe('web page routes', () => {
  let unit: TestSensor;
  beforeAll(async () => {
    unit = await createTestSensor();
  });
  afterAll(() => unit.close());

  it('serves the page at / and its script and style from the package, with no outside address', async () => {
    const page = await unit.app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.startsWith('/')).toBe(true);
      const res = await unit.app.inject({ method: 'GET', url: ref });
      expect(res.statusCode, ref).toBe(200);
    }
    const script = await unit.app.inject({ method: 'GET', url: '/web/app.js' });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).not.toMatch(/https?:\/\//);
  });

  it('answers 304 to a request carrying the current ETag', async () => {
    const first = await unit.app.inject({ method: 'GET', url: '/web/style.css' });
    const again = await unit.app.inject({
      method: 'GET',
      url: '/web/style.css',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers 404 with a problem body for a file that is not part of the page', async () => {
    for (const url of ['/web/nope.js', '/web/..%2Fpackage.json', '/web/%2e%2e%2fREADME.md']) {
      const res = await unit.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ status: 404, type: 'urn:lidar-sensor:problem:not-found' });
    }
  });

  it('publishes the parameter registry the configuration form is generated from', async () => {
    const res = await unit.app.inject({ method: 'GET', url: '/web/api/registry' });
    expect(res.statusCode).toBe(200);
    const { parameters } = res.json() as {
      parameters: { name: string; schema: { enum?: unknown[] }; default: unknown; readOnly: boolean }[];
    };
    // A 3.1 unit: without the parameters of later firmware (Zone Monitor's).
    expect(parameters.map((p) => p.name)).toEqual(PARAMETERS.filter((p) => !p.sinceFirmware).map((p) => p.name));
    const lidarMode = parameters.find((p) => p.name === 'lidar_mode');
    expect(lidarMode?.schema.enum).toContain('2048x10');
    expect(lidarMode?.default).toBe('1024x10');
    expect(parameters.find((p) => p.name === 'columns_per_packet')?.readOnly).toBe(true);
  });

  it('keeps telemetry history once the page has been opened', async () => {
    await unit.app.inject({ method: 'GET', url: '/' });
    const res = await unit.app.inject({ method: 'GET', url: '/web/api/telemetry-history' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { samples: { at: number; input_voltage_mv: number }[] };
    await expect
      .poll(
        async () =>
          ((await unit.app.inject({ method: 'GET', url: '/web/api/telemetry-history' })).json() as typeof body).samples
            .length,
      )
      .toBeGreaterThan(0);
    const [sample] = (
      (await unit.app.inject({ method: 'GET', url: '/web/api/telemetry-history' })).json() as typeof body
    ).samples;
    expect(sample.input_voltage_mv).toBeGreaterThan(20_000);
    expect(Math.abs(sample.at - Date.now())).toBeLessThan(60_000);
  });
});

describe('the live image stream', () => {
  it("is Server-Sent Events, and an open stream does not hold the server's shutdown", async () => {
    const unit = await createTestSensor();
    const address = await unit.app.listen({ host: '127.0.0.65', port: 0 });
    const res = await fetch(`${address}/web/api/live-image`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry:');
    // A stuck close would time the test out.
    await unit.close();
    for (;;) if ((await reader.read()).done) break;
  });
});

describe("the page's files", () => {
  it('are every file of web/ with its type, and none where web/ is missing (the API still starts)', () => {
    const assets = loadWebAssets(WEB_ROOT);
    expect([...assets.keys()].sort()).toEqual(['app.js', 'icon.svg', 'index.html', 'style.css']);
    expect(assets.get('index.html')?.type).toMatch(/^text\/html/);
    expect(loadWebAssets(`${WEB_ROOT}-not-installed`).size).toBe(0);
  });
});
