/**
 * Each lidar packet apart from its measurement block: header fields against sensor_info and the alert log,
 * reserved bytes, the CRC, the FUSA footer.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import type { LidarCapture } from './lidar-capture.js';
import { skipWhenReplaying } from './replay-signal.js';

export async function lidarPacketChecks(run: CheckRun, lidar: LidarCapture): Promise<void> {
  await headerChecks(run, lidar);
  const { layout, packets, profile, title } = lidar;
  await run.check('udp.lidar.crc', title('footer CRC-64/XZ matches every packet'), () => {
    if (!layout.crc) throw new SkipCheck(`profile ${profile} carries no CRC`);
    const bad = packets.filter((p) => p.crcOk === false);
    expectThat(
      bad.length === 0,
      `${bad.length} of ${packets.length} packets fail the CRC (first: frame ${bad[0]?.frameId}, measurement_id ${bad[0]?.columns[0].measurementId})`,
    );
  });
  await run.check('udp.lidar.footer', title('FUSA footer is all zero'), () => {
    if (layout.header !== 'fusa') throw new SkipCheck(`profile ${profile} is not FUSA`);
    expectThat(
      packets.every((p) => p.footerZero),
      'a footer holds non-zero bytes',
    );
  });
}

async function headerChecks(run: CheckRun, lidar: LidarCapture): Promise<void> {
  const { layout, packets, title, unit } = lidar;
  const header = (id: string, text: string, body: () => unknown) =>
    run.check(`udp.lidar.${id}`, title(text), () => {
      if (layout.header === 'legacy') throw new SkipCheck('LEGACY packets have no header');
      return body();
    });
  await header('packet-type', 'header packet_type is 1 (lidar)', () => {
    const wrong = packets.filter((p) => p.packetType !== 1);
    expectThat(wrong.length === 0, `${wrong.length} packets with packet_type ${show(wrong[0]?.packetType)}`);
  });
  await header(
    'init-id',
    `header init_id equals sensor_info.initialization_id (${unit.info.initialization_id})`,
    () => {
      const wrong = packets.filter((p) => p.initId !== unit.info.initialization_id);
      expectThat(wrong.length === 0, `${wrong.length} packets with init_id ${wrong[0]?.initId}`);
    },
  );
  await header('serial', `header prod_sn equals sensor_info.prod_sn (${unit.info.prod_sn})`, () => {
    const wrong = packets.filter((p) => p.serial !== BigInt(String(unit.info.prod_sn)));
    expectThat(wrong.length === 0, `${wrong.length} packets with prod_sn ${wrong[0]?.serial}`);
  });
  await header('reserved', 'reserved header and footer bytes are zero', () => {
    const wrong = packets.filter((p) => p.nonZeroReserved.length > 0);
    expectThat(wrong.length === 0, `${wrong.length} packets, first at byte ${wrong[0]?.nonZeroReserved[0]}`);
  });
  await header('alert-flags', 'header alert_flags bits 0-5 are the low 6 bits of the alert log next_cursor', () => {
    skipWhenReplaying(unit.replay, "alert_flags are the recorded unit's, not of this unit's alert log");
    const allowed = new Set<number>();
    for (let cursor = unit.cursors[0]; cursor <= unit.cursors[1]; cursor++) allowed.add(cursor & 0x3f);
    const wrong = packets.filter((p) => !allowed.has((p.alertFlags ?? 0) & 0x3f));
    expectThat(
      wrong.length === 0,
      `${wrong.length} packets with alert_flags 0x${wrong[0]?.alertFlags?.toString(16)} for next_cursor ${unit.cursors.join('..')}`,
    );
  });
}
