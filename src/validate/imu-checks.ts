/**
 * The IMU stream of one capture: packets arrive at about 100 per second, have the LEGACY size, timestamps that
 * only increase, and values within the configured full-scale ranges and about 1 g at rest.
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import { decodeImuPacket, IMU_PACKET_BYTES } from './packet-decoder.js';
import { type Replay, skipRecordedImuRate, skipRecordedTimestamps, skipUnrecordedImu } from './replay-signal.js';
import type { UdpCapture } from './udp-capture.js';
import type { Json } from './unit-client.js';

export async function imuChecks(
  run: CheckRun,
  capture: UdpCapture,
  config: Json,
  elapsedS: number,
  replay?: Replay,
): Promise<void> {
  const received = capture.imu;
  const ok = await run.check('udp.imu.received', 'IMU packets arrive at udp_dest:udp_port_imu', () => {
    skipUnrecordedImu(received.length, replay);
    expectThat(received.length > 0, `no IMU packet in ${elapsedS.toFixed(1)} s`);
    return `${received.length} packets`;
  });
  if (!ok) return;
  await run.check('udp.imu.size', `every IMU packet is ${IMU_PACKET_BYTES} bytes (LEGACY)`, () => {
    const wrong = received.filter((p) => p.data.length !== IMU_PACKET_BYTES);
    expectThat(wrong.length === 0, `${wrong.length} packets of another size (first ${wrong[0]?.data.length})`);
  });
  const packets = received.filter((p) => p.data.length === IMU_PACKET_BYTES).map((p) => decodeImuPacket(p.data));
  await run.check('udp.imu.rate', 'IMU packets arrive at about 100 per second (±30 %)', () => {
    skipRecordedImuRate(replay);
    const rate = received.length / elapsedS;
    expectThat(rate > 70 && rate < 130, `${rate.toFixed(1)} packets/s`);
    return `${rate.toFixed(1)}/s`;
  });
  await run.check('udp.imu.timestamps', 'IMU sys_ts strictly increases (no duplicate, no reordering)', () => {
    skipRecordedTimestamps(replay);
    const bad = packets.findIndex((p, i) => i > 0 && p.sysTs <= packets[i - 1].sysTs);
    expectThat(bad < 0, `packet ${bad}: sys_ts ${packets[bad]?.sysTs} after ${packets[bad - 1]?.sysTs}`);
  });
  await run.check('udp.imu.sensor-timestamps', 'IMU accel_ts and gyro_ts are set and never decrease', () => {
    skipRecordedTimestamps(replay);
    const bad = packets.findIndex(
      (p, i) =>
        p.accelTs === 0n ||
        p.gyroTs === 0n ||
        (i > 0 && (p.accelTs < packets[i - 1].accelTs || p.gyroTs < packets[i - 1].gyroTs)),
    );
    expectThat(bad < 0, `packet ${bad}`);
  });
  const accelLimit = config.accel_fsr === 'EXTENDED' ? 16 : 2;
  const gyroLimit = config.gyro_fsr === 'EXTENDED' ? 2000 : 250;
  await run.check(
    'udp.imu.accel-range',
    `linear acceleration within the accel_fsr ${config.accel_fsr} range (±${accelLimit} g)`,
    () => {
      const bad = packets.find((p) => p.accel.some((a) => !Number.isFinite(a) || Math.abs(a) > accelLimit));
      expectThat(bad === undefined, `acceleration ${show(bad?.accel)}`);
    },
  );
  await run.check(
    'udp.imu.gyro-range',
    `angular velocity within the gyro_fsr ${config.gyro_fsr} range (±${gyroLimit} °/s)`,
    () => {
      const bad = packets.find((p) => p.gyro.some((g) => !Number.isFinite(g) || Math.abs(g) > gyroLimit));
      expectThat(bad === undefined, `angular velocity ${show(bad?.gyro)}`);
    },
  );
  await run.check('udp.imu.gravity', 'a unit at rest reads about 1 g (0.8..1.2 g) in every packet', () => {
    const bad = packets.find((p) => Math.abs(Math.hypot(...p.accel) - 1) > 0.2);
    expectThat(bad === undefined, `|a| = ${bad ? Math.hypot(...bad.accel).toFixed(3) : ''} g (${show(bad?.accel)})`);
  });
}
