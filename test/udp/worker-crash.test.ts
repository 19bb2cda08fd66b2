/**
 * The emitter worker dying must not silence the unit for good: the lidar HAL starts a new worker with
 * the same run (same init id) and the stream resumes, starting over at frame 0 as a new worker does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import type { SensorConfig } from '../../src/model/index.js';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { findProduct } from '../../src/model/products.js';
import { planStreams } from '../../src/udp/index.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';
import { lidarInitId } from './decoder/lidar-decoder.js';

const INIT_ID = 0x31337;
const warnings: string[] = [];
const lidar = new EmitterStreams(new RecordingAlerts(), { warn: (_context, message) => warnings.push(message) });
let rx: UdpCapture | undefined;

afterAll(async () => {
  await lidar.close();
  await rx?.close();
});

// STANDARD header (docs/udp-packets.md): frame_id u16 at byte 2 (init_id: lidarInitId).
const frameIdOf = (d: Buffer) => d.readUInt16LE(2);

describe('emitter worker crash', () => {
  it('restarts the worker with the same run and the stream resumes', async () => {
    rx = await UdpCapture.listen();
    const capture = rx;
    const config: SensorConfig = {
      ...defaultConfig(),
      udp_dest: '127.0.0.1',
      udp_port_lidar: capture.port,
      udp_port_imu: 0,
      lidar_mode: '512x10',
      udp_profile_lidar: 'RNG15_RFL8_NIR8',
    };
    await lidar.apply(
      planStreams(config, {
        initId: INIT_ID,
        product: findProduct('OS-1-32')!,
        serialNumber: 1n,
        bindAddress: undefined,
        timestampOffsetNs: 0n,
      }),
    );
    await waitFor(() => capture.datagrams.some((d) => frameIdOf(d.data) >= 2), 10_000, 'three frames before the crash');

    await lidar.simulateWorkerCrash();
    const crashedAt = capture.count;
    const lastFrameBefore = frameIdOf(capture.datagrams[crashedAt - 1].data);

    // The new worker's run starts over at frame 0: a frame id below the last one before the crash.
    const restarted = await waitFor(
      () => capture.datagrams.slice(crashedAt).findIndex((d) => frameIdOf(d.data) < lastFrameBefore) + 1,
      10_000,
      'the stream to resume after the crash',
    );
    const resumedAt = crashedAt + restarted - 1;
    await waitFor(() => capture.count >= resumedAt + 2 * 32, 10_000, 'two frames after the restart');
    const after = capture.datagrams.slice(resumedAt).map((d) => d.data);
    expect(after.every((d) => lidarInitId(d) === INIT_ID)).toBe(true);
    expect((await lidar.stats()).initId).toBe(INIT_ID);
    expect(warnings).toEqual(['the emitter worker died; a running stream restarts with the same run']);
  });
});
