/**
 * The fleet benchmarks' receiver in C (bench/native/header-receiver.c): it counts every sensor's
 * datagrams from their first 48 bytes, so forty sensors' 25 KB packets do not cost the machine more to
 * receive than to send. Built here with the system's C compiler (the one better-sqlite3's install
 * needs); without one the benchmark falls back to the Node receiver and says so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { track } from './processes.js';
import type { ToReceiver } from './receiver-protocol.js';

const SOURCE = fileURLToPath(new URL('./native/header-receiver.c', import.meta.url));

let built: { binary: string } | { error: string } | undefined;

/** The compiled receiver (built once per source text), or why there is none. */
export function nativeReceiverBinary(): { binary: string } | { error: string } {
  if (built) return built;
  const source = readFileSync(SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'lidar-sensor-bench');
  const binary = join(dir, `header-receiver-${hash}`);
  if (existsSync(binary)) return (built = { binary });
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}`;
  const cc = spawnSync(process.env.CC ?? 'cc', ['-O2', '-o', partial, SOURCE], { encoding: 'utf8' });
  if (cc.status !== 0) {
    const why = cc.error ? cc.error.message : cc.stderr.split('\n')[0];
    return (built = { error: `no C receiver (${why})` });
  }
  renameSync(partial, binary);
  return (built = { binary });
}

/** The receiver's input lines for one message. */
function toLines(message: ToReceiver): string {
  if (message.type !== 'open') return `${message.type}\n`;
  const streams = message.streams.map((s) =>
    s.kind === 'lidar' ? `lidar ${s.id} ${s.layout === 'fusa' ? 1 : 0} ${s.packetsPerFrame}` : `sink ${s.id}`,
  );
  for (const s of message.streams) {
    if (s.kind === 'imu-nmea') throw new Error('the C receiver counts lidar streams only');
    if (s.kind === 'lidar' && s.recordJitter) throw new Error('the C receiver counts; it keeps no jitter figures');
  }
  return [`open ${streams.length}`, ...streams].map((line) => `${line}\n`).join('');
}

/**
 * Starts the receiver. Its JSON lines are emitted as the child's 'message' events, so the orchestrator
 * treats it like the forked Node receiver (whose messages arrive over IPC).
 */
export function spawnNativeReceiver(binary: string): { child: ChildProcess; post: (message: ToReceiver) => void } {
  const child = track(spawn(binary, [], { stdio: ['pipe', 'pipe', 'inherit'] }));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) =>
    child.emit('message', JSON.parse(line)),
  );
  // A write after the child died would throw EPIPE asynchronously; its exit is reported by the waiters.
  child.stdin?.on('error', () => {});
  return { child, post: (message) => child.stdin?.write(toLines(message)) };
}
