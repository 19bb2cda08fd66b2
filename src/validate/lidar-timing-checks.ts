/**
 * The lidar packets' timing: column timestamps within a packet, the frame rate they give against lidar_mode,
 * the packet arrival rate, and the packets' clock against GET /api/v1/time/sensor.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import type { LidarCapture } from './lidar-capture.js';
import type { LidarPacket } from './packet-decoder.js';
import { skipOnRecordedGaps, skipRecordedTimestamps } from './replay-signal.js';
import { MAX_LIDAR_PACKETS } from './udp-capture.js';
import type { Json } from './unit-client.js';

export async function lidarTimingChecks(run: CheckRun, lidar: LidarCapture): Promise<void> {
  const { packets, perPacket, received, shape, title, unit, width, windowFirst, windowLast } = lidar;
  await run.check('udp.lidar.timestamps', title('column timestamps increase within each packet'), () => {
    for (const p of packets)
      for (let i = 1; i < p.columns.length; i++)
        expectThat(
          p.columns[i].timestampNs >= p.columns[i - 1].timestampNs || !p.columns[i].valid,
          `frame ${p.frameId} measurement_id ${p.columns[i].measurementId} earlier than the column before`,
        );
  });
  await run.check(
    'udp.lidar.frame-rate',
    title(`frame rate from column timestamps matches lidar_mode ${unit.config.lidar_mode}`),
    () => {
      skipRecordedTimestamps(unit.replay);
      if (!shape) throw new SkipCheck(`lidar_mode ${show(unit.config.lidar_mode)} not understood`);
      const starts = frameStarts(packets, windowFirst);
      if (starts.length < 3)
        throw new SkipCheck(`only ${starts.length} frame starts seen in ${unit.elapsedS.toFixed(1)} s`);
      const periods = starts.slice(1).map((s, i) => Number(s.ts - starts[i].ts) / 1e9 / (s.frame - starts[i].frame));
      const median = periods.sort((a, b) => a - b)[Math.floor(periods.length / 2)];
      const hz = 1 / median;
      expectThat(
        Math.abs(hz - shape.rateHz) / shape.rateHz < 0.05,
        `${hz.toFixed(2)} Hz, lidar_mode says ${shape.rateHz} Hz`,
      );
      return `${hz.toFixed(2)} Hz`;
    },
  );
  await run.check(
    'udp.lidar.packet-rate',
    title('packets arrive at about the rate lidar_mode and column_window give (±50 %)'),
    () => {
      skipOnRecordedGaps(unit.replay);
      if (!shape) throw new SkipCheck('lidar_mode not understood');
      const packetsPerFrame = Math.ceil((windowLast + 1) / perPacket) - Math.floor(windowFirst / perPacket);
      const expected = packetsPerFrame * shape.rateHz;
      const rate = received.length / unit.elapsedS;
      if (received.length >= MAX_LIDAR_PACKETS) return `capture full at ${rate.toFixed(0)}/s`;
      expectThat(
        rate > expected * 0.5 && rate < expected * 1.5,
        `${rate.toFixed(0)} packets/s, expected about ${expected}/s`,
      );
      return `${rate.toFixed(0)}/s (expected ${expected}/s; full frames ${width / perPacket} packets)`;
    },
  );
  await run.check(
    'udp.lidar.clock',
    title('column timestamps agree with GET /api/v1/time/sensor timestamp.time (±2 s)'),
    () => {
      skipRecordedTimestamps(unit.replay);
      const last = packets
        .flatMap((p) => p.columns)
        .filter((col) => col.valid)
        .at(-1);
      if (!last) throw new SkipCheck('no valid column');
      const unitS = ((unit.sensorTime.timestamp as Json)?.time as number) ?? Number.NaN;
      const packetS = Number(last.timestampNs) / 1e9;
      expectThat(
        Math.abs(unitS - packetS) < 2 + unit.elapsedS,
        `packet ${packetS.toFixed(3)} s, time/sensor ${unitS} s`,
      );
    },
  );
}

/** Timestamp of the first window column of each frame whose first packet arrived. */
function frameStarts(packets: LidarPacket[], windowFirst: number): { frame: number; ts: bigint }[] {
  const starts: { frame: number; ts: bigint }[] = [];
  let base = 0;
  let previous: number | undefined;
  for (const p of packets) {
    if (previous !== undefined) base += (p.frameId - previous + 2 ** 16) % 2 ** 16;
    previous = p.frameId;
    const column = p.columns.find((col) => col.measurementId === windowFirst);
    if (column?.valid && !starts.some((s) => s.frame === base)) starts.push({ frame: base, ts: column.timestampNs });
  }
  return starts;
}
