/**
 * (9) A device whose time daemons hang: the built unit with the linux HAL on loopback, its ptp4l and/or chronyd
 * replaced by a Unix datagram socket that takes requests and is never read. How long each time route takes to
 * answer (with the not-synchronised view), and how long a SIGTERM takes to end the unit while a read hangs.
 * A daemon that is not hung is absent (its socket path does not exist: its tool fails at once).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import { sleep, stopProcess, track } from './processes.js';
import { fmt, unavailable, type Figure, type Section, type TableRow } from './report.js';
import { spawnSensor } from './sensor-process.js';

const ROUTES = ['/api/v1/time/ptp', '/api/v1/time/system', '/api/v1/time'] as const;
/** Longer than the core keeps a reading (READINGS_TTL_MS), so every request reads the daemons again. */
const BETWEEN_REQUESTS_MS = 1100;
/** A request still unanswered after this long hangs. */
const HANG_MS = 30_000;

/** A datagram socket bound at `path` and never read (perl: on every Debian, Socket in perl-base). */
const STALLED =
  'use Socket; socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or die $!; bind($s, pack_sockaddr_un($ARGV[0])) or die $!; print "bound\\n"; $| = 1; sleep';

async function stalledSocket(path: string): Promise<void> {
  const child = track(spawn('perl', ['-e', STALLED, path], { stdio: ['ignore', 'pipe', 'inherit'] }));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', () => resolve());
  });
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  // Connection: close: a stop waits for a keep-alive connection busy at that moment (up to its idle timeout),
  // which would hide what the daemons cost.
  const res = await fetch(url, { headers: { connection: 'close' }, signal: AbortSignal.timeout(HANG_MS) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

export async function benchStalledDaemons(ctx: BenchContext): Promise<Section> {
  if (process.platform !== 'linux') return unavailable('Hung time daemons', 'ms', 'needs Linux');
  for (const tool of ['/usr/sbin/pmc', '/usr/bin/chronyc'])
    if (!existsSync(tool)) return unavailable('Hung time daemons', 'ms', `${tool} is not installed`);
  const figures: Figure[] = [];
  const rows: TableRow[] = [];
  const rounds = ctx.quick ? 2 : 3;
  for (const hung of [['ptp4l'], ['chronyd'], ['ptp4l', 'chronyd']]) {
    const dir = ctx.dataDir(`stalled-${hung.join('-')}`);
    const socket = (daemon: string) => join(dir, `${daemon}.sock`);
    for (const daemon of hung) await stalledSocket(socket(daemon));
    const unit = await spawnSensor({
      host: '127.0.0.1',
      dataDir: join(dir, 'data'),
      // The hung daemons' sockets; the others' paths, where nothing listens.
      args: [
        '--hal',
        'linux',
        '--serial',
        '122201000126',
        '--ptp4l-socket',
        socket('ptp4l'),
        '--chronyc-host',
        socket('chronyd'),
      ],
    });
    ctx.log(`hung ${hung.join(' and ')}: ${rounds} rounds of ${ROUTES.join(', ')}`);
    const worst: Record<string, number> = {};
    try {
      for (let round = 0; round < rounds; round++) {
        for (const route of ROUTES) {
          worst[route] = Math.max(worst[route] ?? 0, await timed(unit.baseUrl + route));
          await sleep(BETWEEN_REQUESTS_MS);
        }
      }
    } finally {
      const inFlight = timed(`${unit.baseUrl}/api/v1/time/ptp`).catch(() => undefined);
      await sleep(200);
      const stopping = performance.now();
      // SIGKILL only after HANG_MS: a stop that hangs shows as one.
      await stopProcess(unit.child, HANG_MS);
      worst.stop = performance.now() - stopping;
      await inFlight;
    }
    const label = `${hung.join(' and ')} hung`;
    for (const [what, ms] of Object.entries(worst))
      figures.push({ name: `${label}: ${what} (max)`, value: ms, unit: 'ms' });
    rows.push({
      figure: `Time routes with ${label} (max of ${rounds}; SIGTERM during a read)`,
      value: `${ROUTES.map((r) => `${r.replace('/api/v1', '')} ${fmt(worst[r], 0)}`).join(', ')}; stop ${fmt(worst.stop, 0)} ms`,
      reference: '',
      ratio: '',
      target: '',
      met: '',
    });
  }
  return { figures, rows };
}
