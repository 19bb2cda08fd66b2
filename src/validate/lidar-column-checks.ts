/**
 * The measurement block of each lidar packet: consecutive measurement ids, LEGACY encoder counts, and the column
 * status inside and outside column_window.
 */
import { type CheckRun, expectThat, SkipCheck } from './check-run.js';
import type { LidarCapture } from './lidar-capture.js';

export async function lidarColumnChecks(run: CheckRun, lidar: LidarCapture): Promise<void> {
  const { layout, packets, perPacket, profile, title, width, windowFirst, windowLast } = lidar;
  await run.check(
    'udp.lidar.columns',
    title(`each packet holds ${perPacket} consecutive measurement ids, the first a multiple of ${perPacket}`),
    () => {
      for (const p of packets) {
        const first = p.columns[0].measurementId;
        expectThat(first % perPacket === 0 && first < width, `packet starting at measurement_id ${first}`);
        for (const [i, col] of p.columns.entries())
          expectThat(
            col.measurementId === first + i,
            `measurement_id ${col.measurementId} at column ${i} of a packet starting at ${first}`,
          );
        if (layout.header === 'legacy')
          expectThat(
            p.columns.every((col) => col.frameId === p.frameId),
            'columns of one packet with different frame ids',
          );
      }
    },
  );
  await run.check(
    'udp.lidar.encoder',
    title('LEGACY encoder_count = measurement_id × 90112 / columns_per_frame'),
    () => {
      if (layout.header !== 'legacy') throw new SkipCheck(`profile ${profile} has no encoder count`);
      const wrong = packets
        .flatMap((p) => p.columns)
        .filter((col) => col.encoderCount !== Math.floor((col.measurementId * 90112) / width));
      expectThat(
        wrong.length === 0,
        `${wrong.length} columns, first measurement_id ${wrong[0]?.measurementId} → ${wrong[0]?.encoderCount}`,
      );
    },
  );
  await run.check(
    'udp.lidar.column-status',
    title(`columns inside column_window [${windowFirst}, ${windowLast}] are valid, those outside status 0 and zeroed`),
    () => {
      for (const p of packets)
        for (const col of p.columns) {
          const inside = col.measurementId >= windowFirst && col.measurementId <= windowLast;
          expectThat(
            inside ? col.valid : col.blank,
            `measurement_id ${col.measurementId} (frame ${p.frameId}) ${inside ? 'invalid inside' : 'not blank outside'} the window`,
          );
        }
    },
  );
}
