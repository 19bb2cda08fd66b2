/**
 * (9) Resident memory with 20 live viewers that stopped reading (a laptop asleep with the page open), while the
 * unit streams 2048x10 (the largest pictures): RSS before they connect, then each second for a minute, and once
 * they have gone. The viewers are never cut here (`--stall-timeout 3600`), so the figure is what the per-viewer
 * bound alone holds (src/routes/web/live-image.ts); with the default timeout they are cut after 15 s.
 */
import { connect, type Socket } from 'node:net';
import type { BenchContext } from './context.js';
import { sleep } from './processes.js';
import { rssBytes } from './proc-stats.js';
import { fmt, metText, unavailable, type Section } from './report.js';
import { spawnSensor } from './sensor-process.js';
import { NoPacketsError, StreamRig } from './stream-rig.js';

const VIEWERS = 20;
/** RSS may not grow by more than this over the second half of the minute: the bound holds, nothing accumulates. */
export const STALLED_GROWTH_TARGET_MB = 5;
const MB = 1024 * 1024;

/** A connection that asks for the live view and then takes nothing more. */
function stalledViewer(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(`GET /web/api/live-image HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
  });
}

export async function benchStalledViewers(ctx: BenchContext): Promise<Section> {
  const seconds = ctx.quick ? 10 : 60;
  const name = `RSS with ${VIEWERS} stalled live viewers over ${seconds} s, streaming 2048x10`;
  const sensor = await spawnSensor({
    host: '127.0.0.1',
    dataDir: ctx.dataDir('stalled-viewers'),
    args: ['--stall-timeout', '3600'],
  });
  const rig = await StreamRig.start(ctx, sensor.host, sensor);
  const viewers: Socket[] = [];
  try {
    try {
      await rig.configure('2048x10', 'RNG19_RFL8_SIG16_NIR16', false);
    } catch (error) {
      if (error instanceof NoPacketsError) return unavailable(name, 'MB', 'data plane not streaming');
      throw error;
    }
    const before = rssBytes(sensor.pid) / MB;
    ctx.log(`stalled viewers: ${VIEWERS} connections that never read, RSS each second for ${seconds} s`);
    for (let i = 0; i < VIEWERS; i++) viewers.push(await stalledViewer(sensor.host, sensor.port));
    const samples: number[] = [];
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      samples.push(rssBytes(sensor.pid) / MB);
    }
    for (const socket of viewers) socket.destroy();
    await sleep(5000);
    const after = rssBytes(sensor.pid) / MB;
    const half = samples[Math.floor(samples.length / 2) - 1];
    const end = samples[samples.length - 1];
    const peak = Math.max(...samples);
    const growth = end - half;
    const met = growth <= STALLED_GROWTH_TARGET_MB;
    const target = `growth over the second half <= ${STALLED_GROWTH_TARGET_MB} MB`;
    return {
      figures: [
        {
          name: `${name} (end)`,
          value: end,
          unit: 'MB',
          target,
          met,
          note: `growth over the second half ${fmt(growth, 1)} MB`,
        },
        { name: `${name} (max)`, value: peak, unit: 'MB' },
        { name: `${name} (before)`, value: before, unit: 'MB' },
        { name: `${name} (5 s after they closed)`, value: after, unit: 'MB' },
      ],
      rows: [
        {
          figure: name,
          value: `${fmt(before, 1)} → ${fmt(half, 1)} (${seconds / 2} s) → ${fmt(end, 1)} MB (max ${fmt(peak, 1)}); ${fmt(after, 1)} MB 5 s after they closed`,
          reference: '',
          ratio: '',
          target,
          met: metText(met),
        },
      ],
    };
  } finally {
    for (const socket of viewers) socket.destroy();
    await rig.close();
  }
}
