/**
 * (4) Start-up time (spawning the CLI → first 200 on sensor_info, beside a bare Fastify and a bare
 * node:http server spawned the same way) and resident memory, idle and while
 * streaming 2048x10 dual return with 128 channels.
 */
import type { BenchContext } from './context.js';
import { startBareServer } from './bare-server-start.js';
import { sleep, stopProcess } from './processes.js';
import { rssBytes, rssParts } from './proc-stats.js';
import { figureWithReferences, fmt, metText, type Figure, type Section, type TableRow } from './report.js';
import type { ReadyProcess } from './spawn-ready.js';
import { SENSOR_INFO_PATH, spawnSensor, type SensorProcess } from './sensor-process.js';
import { median } from './stats.js';
import { NoPacketsError, StreamRig } from './stream-rig.js';

/** The start-up and memory targets (docs/benchmarks.md, Targets). */
export const STARTUP_TARGET_MS = 250;
export const RSS_TARGET_MB = 95;
export const IDLE_RSS_TARGET_MB = 65;
const MB = 1024 * 1024;

const mb = (bytes: number) => bytes / MB;

export async function benchMemoryAndStartup(ctx: BenchContext): Promise<Section> {
  const starts = ctx.quick ? 2 : 5;
  const figures: Figure[] = [];
  const rows: TableRow[] = [];

  ctx.log(`start-up: ${starts} cold starts each of the sensor, bare Fastify and bare node:http`);
  const times = { sensor: [] as number[], fastify: [] as number[], nodeHttp: [] as number[] };
  let sensorInfoMissing = false;
  let sensor: SensorProcess | undefined;
  let fastify: ReadyProcess | undefined;
  for (let i = 0; i < starts; i++) {
    // Interleaved, so a burst of load from elsewhere on the machine hits all three alike.
    if (sensor) await sensor.stop();
    sensor = await spawnSensor({ host: '127.0.0.1', dataDir: ctx.dataDir('startup'), readyPath: SENSOR_INFO_PATH });
    times.sensor.push(sensor.startupMs);
    sensorInfoMissing ||= sensor.readyStatus === 404;
    if (fastify) await stopProcess(fastify.child);
    fastify = await startBareServer('fastify', '127.0.0.1');
    times.fastify.push(fastify.startupMs);
    const nodeHttp = await startBareServer('node-http', '127.0.0.1');
    times.nodeHttp.push(nodeHttp.startupMs);
    await stopProcess(nodeHttp.child);
  }
  const running = sensor as SensorProcess;
  const bareFastify = fastify as ReadyProcess;
  const startup = { sensor: median(times.sensor), fastify: median(times.fastify), nodeHttp: median(times.nodeHttp) };
  const startupName = 'Start-up: spawn CLI -> first 200 on sensor_info (median)';
  const startupTarget = `<= ${STARTUP_TARGET_MS} ms`;
  const references = `bare Fastify ${fmt(startup.fastify, 0)} ms; bare node:http ${fmt(startup.nodeHttp, 0)} ms`;
  if (sensorInfoMissing) {
    figures.push({
      name: startupName,
      value: null,
      unit: 'ms',
      target: startupTarget,
      note: `sensor_info missing; first HTTP answer after ${fmt(startup.sensor, 0)} ms`,
    });
    rows.push({
      figure: startupName,
      value: `n/a (endpoint missing; first HTTP answer ${fmt(startup.sensor, 0)} ms)`,
      reference: references,
      ratio: '',
      target: startupTarget,
      met: 'NO',
    });
  } else {
    const met = startup.sensor <= STARTUP_TARGET_MS;
    figures.push(
      figureWithReferences({ name: startupName, value: startup.sensor, unit: 'ms', target: startupTarget, met }, [
        { name: 'bare Fastify (spawn -> first 200)', value: startup.fastify },
        { name: 'bare node:http (spawn -> first 200)', value: startup.nodeHttp },
      ]),
    );
    figures.push({ name: 'Start-up: slowest of the cold starts', value: Math.max(...times.sensor), unit: 'ms' });
    rows.push({
      figure: `Start-up: spawn -> first 200 on sensor_info (median of ${starts})`,
      value: `${fmt(startup.sensor, 0)} ms (max ${fmt(Math.max(...times.sensor), 0)})`,
      reference: references,
      ratio: `${fmt(startup.sensor / startup.fastify)} / ${fmt(startup.sensor / startup.nodeHttp)}`,
      target: startupTarget,
      met: metText(met),
    });
  }

  // Idle = started, never streamed, after the start-up garbage has had a moment to be collected.
  await sleep(ctx.quick ? 500 : 2000);
  const idle = rssParts(running.pid);
  const idleRss = mb(rssBytes(running.pid));
  const fastifyRss = mb(rssBytes(bareFastify.pid));
  await stopProcess(bareFastify.child);
  figures.push(
    figureWithReferences(
      {
        name: 'RSS idle',
        value: idleRss,
        unit: 'MB',
        target: `<= ${IDLE_RSS_TARGET_MB} MB`,
        met: idleRss <= IDLE_RSS_TARGET_MB,
        note: `anonymous ${fmt(mb(idle.anon), 1)} MB, file-backed ${fmt(mb(idle.file), 1)} MB`,
      },
      [{ name: 'bare Fastify idle', value: fastifyRss }],
    ),
  );
  rows.push({
    figure: 'RSS idle',
    value: `${fmt(idleRss, 1)} MB (anon ${fmt(mb(idle.anon), 1)}, file ${fmt(mb(idle.file), 1)})`,
    reference: `bare Fastify ${fmt(fastifyRss, 1)} MB`,
    ratio: fmt(idleRss / fastifyRss),
    target: `<= ${IDLE_RSS_TARGET_MB} MB`,
    met: metText(idleRss <= IDLE_RSS_TARGET_MB),
  });

  const rig = await StreamRig.start(ctx, running.host, running);
  const streamingName = 'RSS while streaming 2048x10 RNG19_RFL8_SIG16_NIR16_DUAL, 128 ch (max)';
  try {
    await rig.configure('2048x10', 'RNG19_RFL8_SIG16_NIR16_DUAL', false);
    const deadline = performance.now() + (ctx.quick ? 2000 : 5000);
    let peak = 0;
    let parts = idle;
    while (performance.now() < deadline) {
      const now = rssBytes(running.pid);
      if (now > peak) {
        peak = now;
        parts = rssParts(running.pid);
      }
      await sleep(200);
    }
    const met = mb(peak) <= RSS_TARGET_MB;
    figures.push({
      name: streamingName,
      value: mb(peak),
      unit: 'MB',
      target: `<= ${RSS_TARGET_MB} MB`,
      met,
      note: `anonymous ${fmt(mb(parts.anon), 1)} MB, file-backed ${fmt(mb(parts.file), 1)} MB`,
    });
    rows.push({
      figure: 'RSS while streaming 2048x10 dual return, 128 ch (max)',
      value: `${fmt(mb(peak), 1)} MB (anon ${fmt(mb(parts.anon), 1)}, file ${fmt(mb(parts.file), 1)})`,
      reference: `idle ${fmt(idleRss, 1)} MB`,
      ratio: '',
      target: `<= ${RSS_TARGET_MB} MB`,
      met: metText(met),
    });
  } catch (error) {
    if (!(error instanceof NoPacketsError)) throw error;
    figures.push({
      name: streamingName,
      value: null,
      unit: 'MB',
      target: `<= ${RSS_TARGET_MB} MB`,
      note: error.message,
    });
    rows.push({
      figure: 'RSS while streaming 2048x10 dual return, 128 ch',
      value: 'n/a (data plane not streaming)',
      reference: '',
      ratio: '',
      target: `<= ${RSS_TARGET_MB} MB`,
      met: 'NO',
    });
  } finally {
    await rig.close();
  }
  return { figures, rows };
}
