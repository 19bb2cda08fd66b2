/**
 * The data plane's tap for the live view: the picture (downsampled, destaggered, column window
 * applied) and the worker's tap that runs only while somebody watches.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SensorConfig } from '../../src/model/index.js';
import { planOf } from '../udp/helpers/plan-of.js';
import { Emitter } from '../../src/udp/main-thread/emitter.js';
import { emptyLidarImage } from '../../src/udp/scene/lidar-image.js';
import type { PreviewFrame } from '../../src/udp/contract/preview.js';
import { PREVIEW_COLUMN_STEP, previewOf } from '../../src/udp/worker/preview-frame.js';
import { PREVIEW_INTERVAL_MS } from '../../src/udp/worker/preview-tap.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';

describe('the live-view picture', () => {
  // 16 columns x 2 rows; range = 1000 * column + 1 (mm), reflectivity = column; row 1 points 4 columns on.
  const image = emptyLidarImage(16, 2);
  for (let m = 0; m < 16; m++) {
    for (let p = 0; p < 2; p++) {
      image.range1[m * 2 + p] = 1000 * m + 1;
      image.reflectivity1[m * 2 + p] = m;
    }
  }
  const source = { ...image, pixelShiftByRow: [0, 4] };

  it('keeps every PREVIEW_COLUMN_STEP-th column, rolls each row back by its pixel shift, and is row-major', () => {
    const frame = previewOf(source, [0, 15], 7);
    expect(PREVIEW_COLUMN_STEP).toBe(4);
    expect([frame.width, frame.height, frame.initId, frame.columnsPerFrame]).toEqual([4, 2, 7, 16]);
    expect([...frame.reflectivity.subarray(0, 4)]).toEqual([0, 4, 8, 12]);
    // Row 1, picture column x shows measurement (4x - 4) mod 16.
    expect([...frame.reflectivity.subarray(4, 8)]).toEqual([12, 0, 4, 8]);
    // Range on a square-root scale up to the farthest return (column 15, 15001 mm) at 255.
    expect(frame.rangeScaleMm).toBe(15001);
    expect(frame.range[3]).toBe(1 + Math.round(254 * Math.sqrt(12001 / 15001)));
    expect(frame.range[1]).toBeLessThan(frame.range[2]);
    expect(frame.range[1]).toBeGreaterThan(0);
  });

  it('shows the columns outside the column window as no return', () => {
    const frame = previewOf(source, [4, 8], 1);
    expect([...frame.range.subarray(0, 4)].map((v) => v > 0)).toEqual([false, true, true, false]);
  });
});

describe('the worker tap', () => {
  const frames: (PreviewFrame | null)[] = [];
  const emitter = new Emitter({
    alerts: { raise: () => undefined, clear: () => undefined },
    crashed: () => undefined,
    preview: (f) => frames.push(f),
  });
  let capture: UdpCapture;

  afterAll(async () => {
    await emitter.close();
    await capture?.close();
  });

  const runOf = (changes: Partial<SensorConfig>, initId: number) =>
    planOf({ udp_port_imu: 0, ...changes }, { initId, serialNumber: 122201000123n });

  it('sends pictures of the running stream while on, follows a reinit, and stops when off', async () => {
    capture = await UdpCapture.listen();
    await emitter.apply(runOf({ lidar_mode: '512x10', udp_port_lidar: capture.port }, 1));
    emitter.setPreview(true);
    const first = await waitFor(() => frames.find((f) => f !== null && f.packetsSent > 0), 10_000, 'a picture');
    expect([first.initId, first.width, first.height]).toEqual([1, 512 / 4, 32]);
    expect(first.range.some((v) => v > 0)).toBe(true);

    await emitter.apply(runOf({ lidar_mode: '2048x10', udp_port_lidar: capture.port }, 2));
    const wider = await waitFor(() => frames.find((f) => f?.initId === 2), 10_000, 'a picture of the new run');
    expect(wider.width).toBe(2048 / 4);

    emitter.setPreview(false);
    // The worker handles messages in order: once this answer is in, the tap is off.
    await emitter.stats();
    const count = frames.length;
    // Three tap intervals of data-plane time pass (told by the packets that arrive): no picture comes.
    const sent = capture.count;
    await waitFor(
      () => capture.count >= sent + Math.ceil((3 * PREVIEW_INTERVAL_MS * 2048 * 10) / 16 / 1000),
      10_000,
      'three tap intervals of packets',
    );
    await emitter.stats();
    expect(frames.length).toBe(count);
  });

  it('says when nothing is streamed', async () => {
    await emitter.apply(runOf({ udp_port_lidar: 0, udp_port_imu: capture.port }, 3));
    frames.length = 0;
    emitter.setPreview(true);
    await waitFor(() => frames.length > 0, 10_000, 'an answer of the tap');
    expect(frames[0]).toBeNull();
    emitter.setPreview(false);
  });
});
