/**
 * `npx tsx bench/replay.ts [--seconds N] [--recording FILE.pcap] [--metadata FILE.json]` (after `npm run build`)
 *
 * Replay cost and timing: a built sensor process replays a recording in a loop at 1x and 4x; this
 * process receives every datagram on one port and reports the sensor's CPU seconds per second and the
 * jitter of arrivals against the recorded timetable (arrival minus scheduled offset, minus its minimum:
 * p50 / p99 / max). Figures are reported, never asserted; a loaded machine inflates both.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRecording } from '../src/udp/replay/recording.js';
import { replayTimetable } from '../src/udp/worker/replay-timetable.js';
import { CLI_PATH, freePort, unitArgs } from '../test/helpers/cli-process.js';
import { cpuSeconds } from './proc-stats.js';
import { stopProcess } from './processes.js';
import { spawnReady } from './spawn-ready.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, recording: { type: 'string' }, metadata: { type: 'string' } },
});
const seconds = Number(values.seconds ?? 10);
const recordingFile = resolve(
  values.recording ?? join(import.meta.dirname, '../test/fixtures/recordings/crc_test.pcap'),
);
const metadataFile = values.metadata ? resolve(values.metadata) : undefined;

async function measure(rate: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  const port = await freePort();
  const server = await spawnReady({
    args: [
      CLI_PATH,
      ...unitArgs('127.0.0.1', port, dataDir, 'warn'),
      '--replay',
      recordingFile,
      // A capture of several sensors: the one this metadata describes.
      ...(metadataFile ? ['--metadata', metadataFile] : []),
      '--replay-loop',
      '--replay-rate',
      String(rate),
    ],
    url: `http://127.0.0.1:${port}/api/v1/sensor/metadata/sensor_info`,
    timeoutMs: 20_000,
  });
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  socket.setRecvBufferSize(16 * 1024 * 1024);
  const arrivals: number[] = [];
  socket.on('message', () => arrivals.push(performance.now()));
  const udpPort = socket.address().port;
  // Lidar and IMU to one port: arrival k is send k of the timetable.
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/sensor/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ udp_dest: '127.0.0.1', udp_port_lidar: udpPort, udp_port_imu: udpPort }),
  });
  if (res.status !== 204) throw new Error(`config: ${res.status} ${await res.text()}`);
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu1 = cpuSeconds(server.pid);
  const wall = (performance.now() - t0) / 1000;
  socket.close();
  await stopProcess(server.child);
  rmSync(dataDir, { recursive: true, force: true });

  const recording = loadRecording(recordingFile, metadataFile);
  const { schedule, sends } = replayTimetable(recording, { rate, loop: true, startOffsetNs: 0 });
  // The sends that arrive, in order: a loop's later passes leave out IMU packets that would repeat a time, and zone
  // packets go nowhere (no udp_dest_zm is set).
  const arrives = (k: number) => sends(k) && recording.packets[schedule.packetOf(k)].kind !== 'zone';
  const dueMs: number[] = [];
  for (let k = 0; dueMs.length < arrivals.length; k++) if (arrives(k)) dueMs.push(schedule.dueNs(k) / 1e6);
  const lateness = arrivals.map((t, k) => t - dueMs[k]);
  const base = Math.min(...lateness);
  const quantiles = (values: number[]) => {
    const sorted = values.map((l) => l - base).sort((x, y) => x - y);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(3);
    return { p50: q(0.5), p99: q(0.99), max: q(1) };
  };
  // The first second (worker start, JIT, socket buffers) is reported apart from the steady state.
  const steady = lateness.filter((_, k) => arrivals[k] - t0 >= 1000);
  const bytesPerPass = recording.packets.reduce((n, p) => n + p.bytes.length, 0);
  return {
    rate,
    datagrams: arrivals.length,
    perSecond: Math.round(arrivals.length / wall),
    mbitPerSecond: Math.round(((bytesPerPass * 8 * arrivals.length) / recording.packets.length / wall / 1e6) * 10) / 10,
    cpuSecondsPerSecond: Math.round(((cpu1 - cpu0) / wall) * 1000) / 1000,
    jitterMsAll: quantiles(lateness),
    jitterMsAfterFirstSecond: quantiles(steady),
  };
}

process.stderr.write(`replaying ${recordingFile} (${statSync(recordingFile).size} bytes) for ${seconds} s per rate\n`);
for (const rate of [1, 4]) console.log(JSON.stringify(await measure(rate)));
