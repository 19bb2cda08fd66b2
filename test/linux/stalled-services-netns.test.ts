/**
 * A device whose ptp4l and chronyd hang: each is a Unix datagram socket at the daemon's path that takes
 * requests and is never read, so pmc blocks in its send once the socket's queue is full (and ignores the
 * SIGTERM a timeout sends) and chronyc waits for an answer that never comes. The built server runs with
 * --hal linux inside a namespace as a unit does; a client in the other namespace reads the time routes.
 * What must hold: every read answers with the documented not-synchronised state (port_state DISABLED,
 * leap_status "not synchronised"), no pmc or chronyc is left behind, and SIGTERM stops the unit while
 * a read hangs. The clients wait far longer than any bound: they tell "answers" from "never answers",
 * they time nothing. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../helpers/cli-process.js';
import { linuxUnitArgs, NetnsPair, netnsSkipReason, run, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason(['pmc', 'chronyc', 'python3']);
if (skipReason) console.log(`skipping the stalled-daemon namespace tests: ${skipReason}`);

/** Longer than any bound of the unit: a request still unanswered then is one that hangs. */
const HANG_MS = 30_000;
/** systemd's TimeoutStopSec of the shipped unit (deploy/lidar-sensor.service): a stop must end before it. */
const STOP_TIMEOUT_MS = 15_000;

/** A datagram socket bound at `path` and never read: a daemon that hangs with its socket open. */
const STALLED_SOCKET = [
  'python3',
  '-c',
  'import socket, sys, time\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint("bound", flush=True)\ntime.sleep(1e6)',
];

describe.skipIf(skipReason)('a unit whose ptp4l and chronyd hang (network namespaces)', () => {
  let pair: NetnsPair;
  let dir: string;
  let server: SpawnedProcess;

  /** The pids of the tools (pmc, chronyc) that talk to the stalled sockets of this test. */
  function toolsOnStalledSockets(): string[] {
    const listing = run(['ps', '-eo', 'pid=,comm=,args=']);
    return listing
      .split('\n')
      .filter((line) => /^\s*\d+\s+(pmc|chronyc)\s/.test(line) && line.includes(dir))
      .map((line) => line.trim());
  }

  const get = (path: string) => pair.fetch(pair.a, `http://192.0.2.2${path}`, { timeoutMs: HANG_MS });

  beforeAll(async () => {
    pair = NetnsPair.create('stall', { a: ['192.0.2.1/24'], b: ['192.0.2.2/24'] });
    dir = mkdtempSync(join(tmpdir(), 'sensor-stalled-'));
    for (const name of ['ptp4l.sock', 'chronyd.sock']) {
      const socket = pair.spawn(pair.b, [...STALLED_SOCKET, join(dir, name)]);
      await waitFor(() => socket.output().includes('bound'), 10_000, `${name} to be bound`);
    }
    server = pair.spawn(pair.b, [
      process.execPath,
      CLI_PATH,
      ...linuxUnitArgs(pair.b, { serial: '122201000124', host: '0.0.0.0', dataDir: join(dir, 'data') }),
      '--ptp4l-socket',
      join(dir, 'ptp4l.sock'),
      '--chronyc-host',
      join(dir, 'chronyd.sock'),
    ]);
    await waitFor(
      async () => {
        if (server.child.exitCode !== null) throw new Error(`the server exited: ${server.output()}`);
        return (await pair.fetch(pair.a, 'http://192.0.2.2/api/v1/system/network/ipv4')).status === 200;
      },
      30_000,
      'the server to answer',
    );
  });

  afterAll(async () => {
    await pair?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every time route, again and again and at once, with ptp4l and chrony not synchronised', async () => {
    for (let round = 0; round < 3; round++) {
      const [all, ptp, system] = await Promise.all([
        get('/api/v1/time'),
        get('/api/v1/time/ptp'),
        get('/api/v1/time/system'),
      ]);
      for (const res of [all, ptp, system]) expect(res.status, res.body).toBe(200);
      expect(JSON.parse(ptp.body).port_data_set.port_state).toBe('DISABLED');
      expect(JSON.parse(ptp.body).time_status_np.gm_present).toBe(false);
      expect(JSON.parse(system.body).tracking.leap_status).toBe('not synchronised');
      expect(JSON.parse(all.body).ptp.port_data_set.port_state).toBe('DISABLED');
    }
  });

  it('leaves no pmc or chronyc behind on the stalled sockets', async () => {
    await waitFor(() => toolsOnStalledSockets().length === 0, HANG_MS, 'every pmc and chronyc to end').catch(() => {
      throw new Error(`still running: ${toolsOnStalledSockets().join('; ')}`);
    });
  });

  it('stops on SIGTERM while a read hangs, and nothing it started outlives it', async () => {
    // Asked again until a read is out (the core answers from its last reading for a second).
    const asked: Promise<unknown>[] = [];
    await waitFor(
      () => {
        asked.push(get('/api/v1/time/ptp'));
        return toolsOnStalledSockets().some((tool) => tool.includes('pmc'));
      },
      HANG_MS,
      'a pmc to be asking the stalled ptp4l',
      200,
    );
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'running'>((r) => setTimeout(() => r('running'), STOP_TIMEOUT_MS)),
    ]);
    expect(code, `the unit still ran ${STOP_TIMEOUT_MS} ms after SIGTERM: ${server.output()}`).toBe(0);
    await Promise.all(asked);
    await waitFor(() => toolsOnStalledSockets().length === 0, HANG_MS, 'the pmc of the stopped unit to end').catch(
      () => {
        throw new Error(`outlived the unit: ${toolsOnStalledSockets().join('; ')}`);
      },
    );
  });
});
