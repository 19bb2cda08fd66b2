/**
 * The lidar stream of one capture: packets arrive, have the size lidar_data_format gives, and, decoded with
 * it, are checked by group: each packet's header and footer, its measurement block, the sequence across
 * packets, and their timing.
 */
import { type CheckRun, expectThat } from './check-run.js';
import type { LidarCapture, UnitDuringCapture } from './lidar-capture.js';
import { lidarColumnChecks } from './lidar-column-checks.js';
import { lidarPacketChecks } from './lidar-packet-checks.js';
import { lidarSequenceChecks } from './lidar-sequence-checks.js';
import { lidarTimingChecks } from './lidar-timing-checks.js';
import { decodeLidarPacket, type LidarPacket, lidarPacketBytes, PROFILE_LAYOUTS } from './packet-decoder.js';
import { skipWhenReplaying } from './replay-signal.js';
import { lidarModeShape } from './spec-rules.js';
import type { UdpCapture } from './udp-capture.js';

export async function lidarChecks(run: CheckRun, capture: UdpCapture, c: UnitDuringCapture): Promise<void> {
  const profile = String(c.format.udp_profile_lidar);
  // Firmware 3.2: header_type FUSA gives any profile the FUSA header (u32 frame id, no CRC).
  const own = PROFILE_LAYOUTS[profile];
  const layout = own && c.format.header_type === 'FUSA' ? { ...own, header: 'fusa' as const, crc: false } : own;
  const pixels = c.format.pixels_per_column as number;
  const perPacket = c.format.columns_per_packet as number;
  const width = c.format.columns_per_frame as number;
  const [windowFirst, windowLast] = c.format.column_window as number[];
  const shape = lidarModeShape(String(c.config.lidar_mode));
  const title = (text: string) => `lidar (${profile}): ${text}`;
  if (!layout) {
    run.skip('udp.lidar', title('packet checks'), `profile ${profile} has no published layout`);
    return;
  }
  const expectedSize = lidarPacketBytes(layout, pixels, perPacket);
  const received = capture.lidar;
  const ok = await run.check('udp.lidar.received', title('packets arrive at udp_dest:udp_port_lidar'), () => {
    if (received.length === 0 && c.replay?.packets.lidar === 0)
      skipWhenReplaying(c.replay, 'the recording holds no lidar packet');
    expectThat(received.length > 0, `no lidar packet in ${c.elapsedS.toFixed(1)} s`);
    return `${received.length} packets in ${c.elapsedS.toFixed(1)} s`;
  });
  if (!ok) return;
  await run.check(
    'udp.lidar.size',
    title(`every packet is ${expectedSize} bytes (${pixels} channels × ${perPacket} columns)`),
    () => {
      const wrong = received.filter((p) => p.data.length !== expectedSize);
      expectThat(
        wrong.length === 0,
        `${wrong.length} of ${received.length} packets have another size (first: ${wrong[0]?.data.length} bytes)`,
      );
    },
  );
  const packets: LidarPacket[] = received
    .filter((p) => p.data.length === expectedSize)
    .map((p) => decodeLidarPacket(p.data, layout, pixels, perPacket));
  const lidar: LidarCapture = {
    unit: c,
    profile,
    layout,
    received,
    packets,
    pixels,
    perPacket,
    width,
    windowFirst,
    windowLast,
    shape,
    title,
  };
  await lidarPacketChecks(run, lidar);
  await lidarColumnChecks(run, lidar);
  await lidarSequenceChecks(run, lidar);
  await lidarTimingChecks(run, lidar);
}
