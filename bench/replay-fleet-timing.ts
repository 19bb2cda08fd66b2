/**
 * `npx tsx bench/replay-fleet-timing.ts [--rate F] [--seconds N]` (after `npm run build`)
 *
 * How well units of `lidar-sensor fleet --replay` keep the recorded timing between sensors: the
 * two-sensor capture (same_ports_nonlegacy) replayed in a loop by two units, both streams received on one
 * socket; per pass, the gap between the two units' lidar packets is compared with the recorded gap
 * (scaled by the rate). Figures are reported, never asserted.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRecording } from '../src/udp/replay/recording.js';
import { freePort } from '../test/helpers/cli-process.js';
import { startFleet } from '../test/helpers/fleet-process.js';

const { values } = parseArgs({ options: { rate: { type: 'string' }, seconds: { type: 'string' } } });
const rate = Number(values.rate ?? 1);
const seconds = Number(values.seconds ?? 5);
const base = join(import.meta.dirname, '../test/fixtures/recordings/same_ports_nonlegacy');
const metadata = [`${base}.1.json`, `${base}.2.json`];
const recordings = metadata.map((m) => loadRecording(`${base}.pcap`, m));
const lidarTime = (i: number) => recordings[i].packets.find((p) => p.kind === 'lidar')?.timeNs ?? 0;
const recordedGapMs = (lidarTime(0) - lidarTime(1)) / 1e6 / rate;

const dataRoot = mkdtempSync(join(tmpdir(), 'bench-fleet-replay-'));
const port = await freePort('127.0.25.1');
const fleet = await startFleet([
  ...['--replay', `${base}.pcap`, ...metadata.flatMap((m) => ['--metadata', m])],
  ...['--replay-loop', '--replay-rate', String(rate)],
  ...['--base-address', '127.0.25.1', '--port', String(port), '--data-root', dataRoot],
]);
const socket = dgram.createSocket('udp4');
await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
/** Arrival times (ms) of lidar packets per unit address, with the frame id (its pass). */
const arrivals = new Map<string, Map<number, number>>();
socket.on('message', (data, rinfo) => {
  if (data.length === 48) return;
  // Frame id: STANDARD bytes 2-3, FUSA bytes 4-7 (one frame per pass in this capture).
  const frameId = rinfo.address === '127.0.25.1' ? data.readUInt32LE(4) : data.readUInt16LE(2);
  let byFrame = arrivals.get(rinfo.address);
  if (!byFrame) arrivals.set(rinfo.address, (byFrame = new Map()));
  byFrame.set(frameId, performance.now());
});
const units = (await (await fetch(`${fleet.endpoint}/units`)).json()) as { url: string }[];
for (const unit of units) {
  const res = await fetch(`${unit.url}/api/v1/sensor/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ udp_dest: '127.0.0.1', udp_port_lidar: socket.address().port, udp_port_imu: 0 }),
  });
  if (res.status !== 204) throw new Error(`config: ${res.status}`);
}
await new Promise((r) => setTimeout(r, seconds * 1000));
await fleet.stop();
socket.close();
rmSync(dataRoot, { recursive: true, force: true });

// Passes both units sent: unit 1's frame id is 1093 + pass, unit 2's 1535 + pass (the recorded ids).
const first = arrivals.get('127.0.25.1') ?? new Map<number, number>();
const second = arrivals.get('127.0.25.2') ?? new Map<number, number>();
const errors: number[] = [];
for (const [frame, t] of first) {
  const other = second.get((frame - 1093 + 1535) & 0xffff);
  if (other !== undefined) errors.push(t - other - recordedGapMs);
}
errors.sort((a, b) => a - b);
const q = (p: number) => errors[Math.min(errors.length - 1, Math.floor(p * errors.length))]?.toFixed(3);
console.log(
  JSON.stringify({
    rate,
    passesCompared: errors.length,
    recordedGapMs: Number(recordedGapMs.toFixed(3)),
    gapErrorMs: { min: q(0), p50: q(0.5), p99: q(0.99), max: q(1) },
  }),
);
