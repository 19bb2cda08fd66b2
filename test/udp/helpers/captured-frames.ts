/**
 * Whole frames as a client receives them: a stream plan made from configuration changes (OS-1-32, to
 * 127.0.0.1) runs on `streams` until three frames can have arrived, then stops; the packets, decoded with the
 * independent decoder, are grouped by frame id and only frames with every packet are kept.
 */
import type { EmitterStreams } from '../../../src/hal/emitter-streams.js';
import type { SensorConfig } from '../../../src/model/index.js';
import { waitFor } from '../../helpers/poll.js';
import type { Profile } from '../decoder/formats.js';
import { type DecodedLidarPacket, decodeLidarPacket } from '../decoder/lidar-decoder.js';
import { planOf } from './plan-of.js';
import { UdpCapture } from './udp-capture.js';

let initId = 0x30000;

export async function capturedFrames(
  streams: EmitterStreams,
  changes: Partial<SensorConfig>,
  packetsPerFrame: number,
  header?: 'STANDARD' | 'FUSA',
): Promise<DecodedLidarPacket[][]> {
  const rx = await UdpCapture.listen();
  try {
    const plan = planOf({ udp_port_lidar: rx.port, udp_port_imu: 0, ...changes }, { initId: ++initId });
    await streams.apply(plan);
    await waitFor(() => rx.count >= 3 * packetsPerFrame + 1, 20_000, 'three frames of packets');
    await streams.apply(null);
    const profile = (changes.udp_profile_lidar ?? 'RNG19_RFL8_SIG16_NIR16') as Profile;
    const byFrame = new Map<number, DecodedLidarPacket[]>();
    for (const d of rx.datagrams) {
      const p = decodeLidarPacket(d.data, profile, 32, header);
      byFrame.set(p.frameId, [...(byFrame.get(p.frameId) ?? []), p]);
    }
    return [...byFrame.values()].filter((packets) => packets.length === packetsPerFrame);
  } finally {
    await rx.close();
  }
}
