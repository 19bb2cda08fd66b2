/**
 * The IMU stream of one capture in the ACCEL32_GYRO32_NMEA profile (firmware 3.2), decoded with the metadata's
 * imu_data_format and lidar_data_format: packet size, header and footer, imu_packets_per_frame packets per
 * frame, measurement ids evenly spaced over the frame, timestamps, full-scale ranges, gravity, and the NMEA
 * block (a sentence with a valid checksum, or all zero).
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import { crc64xz } from './packet-decoder.js';
import { type Replay, skipRecordedImuRate, skipRecordedTimestamps, skipUnrecordedImu } from './replay-signal.js';
import type { UdpCapture } from './udp-capture.js';
import type { Json } from './unit-client.js';

interface Sample {
  ts: bigint;
  id: number;
  status: number;
  accel: number[];
  gyro: number[];
}

interface ImuFramePacket {
  packetType: number;
  frameId: number;
  initId: number;
  serial: bigint;
  nmeaTs: bigint;
  nmea: Buffer;
  samples: Sample[];
  footerOk: boolean;
}

const G = 9.80665;

function decode(b: Buffer, measurements: number, fusa: boolean): ImuFramePacket {
  const samples: Sample[] = [];
  for (let k = 0; k < measurements; k++) {
    const o = 132 + 36 * k;
    const f = (i: number) => b.readFloatLE(o + 12 + 4 * i);
    samples.push({
      ts: b.readBigUInt64LE(o),
      id: b.readUInt16LE(o + 8),
      status: b.readUInt16LE(o + 10),
      accel: [f(0), f(1), f(2)],
      gyro: [f(3), f(4), f(5)],
    });
  }
  const footer = b.subarray(b.length - 32);
  return {
    packetType: fusa ? b[0] : b.readUInt16LE(0),
    frameId: fusa ? b.readUInt32LE(4) : b.readUInt16LE(2),
    initId: fusa ? b.readUIntLE(1, 3) : b.readUIntLE(4, 3),
    serial: BigInt(b.readUIntLE(fusa ? 11 : 7, 5)),
    nmeaTs: b.readBigUInt64LE(32),
    nmea: b.subarray(40, 132),
    samples,
    footerOk: fusa
      ? footer.every((x) => x === 0)
      : footer.subarray(0, 24).every((x) => x === 0) && crc64xz(b, b.length - 8) === b.readBigUInt64LE(b.length - 8),
  };
}

/** The sentence of an NMEA block, or '' when the block is all zero; null when it is neither. */
function sentenceOf(block: Buffer): string | null {
  const end = block.indexOf(0);
  const text = block.subarray(0, end < 0 ? block.length : end).toString('latin1');
  if (!block.subarray(text.length).every((x) => x === 0)) return null;
  if (text === '') return '';
  const match = /^\$([^*]*)\*([0-9A-F]{2})\r?\n?$/.exec(text);
  if (!match) return null;
  let sum = 0;
  for (const ch of match[1]) sum ^= ch.charCodeAt(0);
  return sum === Number.parseInt(match[2], 16) ? text : null;
}

export async function imuNmeaChecks(
  run: CheckRun,
  capture: UdpCapture,
  unit: { config: Json; format: Json; imuFormat: Json; info: Json; elapsedS: number; replay?: Replay },
): Promise<void> {
  const { config, format, imuFormat, info, elapsedS, replay } = unit;
  const perPacket = Number(imuFormat.imu_measurements_per_packet);
  const perFrame = Number(imuFormat.imu_packets_per_frame);
  const width = Number(format.columns_per_frame);
  const fps = Number(format.fps);
  const fusa = format.header_type === 'FUSA';
  const title = (text: string) => `IMU (ACCEL32_GYRO32_NMEA): ${text}`;
  const size = 32 + 100 + 36 * perPacket + 32;
  const received = capture.imu;
  const ok = await run.check('udp.imu.received', title('packets arrive at udp_dest:udp_port_imu'), () => {
    skipUnrecordedImu(received.length, replay);
    expectThat(received.length > 0, `no IMU packet in ${elapsedS.toFixed(1)} s`);
    return `${received.length} packets`;
  });
  if (!ok) return;
  await run.check('udp.imu.size', title(`every packet is ${size} bytes (${perPacket} measurements)`), () => {
    const wrong = received.filter((p) => p.data.length !== size);
    expectThat(wrong.length === 0, `${wrong.length} packets of another size (first ${wrong[0]?.data.length})`);
  });
  const packets = received.filter((p) => p.data.length === size).map((p) => decode(p.data, perPacket, fusa));
  await run.check('udp.imu.rate', title(`${perFrame} packets per frame at ${fps} frames per second (±30 %)`), () => {
    skipRecordedImuRate(replay);
    const rate = received.length / elapsedS;
    expectThat(Math.abs(rate / (perFrame * fps) - 1) < 0.3, `${rate.toFixed(1)} packets/s`);
    return `${rate.toFixed(1)}/s`;
  });
  await run.check(
    'udp.imu.header',
    title("packet type 2, the unit's initialization id and serial, a valid footer"),
    () => {
      const bad = packets.find(
        (p) =>
          p.packetType !== 2 ||
          p.initId !== Number(info.initialization_id) ||
          p.serial !== BigInt(String(info.prod_sn)) ||
          !p.footerOk,
      );
      expectThat(
        bad === undefined,
        `packet type ${bad?.packetType}, init ${bad?.initId}, serial ${bad?.serial}, footer ${bad?.footerOk ? 'ok' : 'wrong'}`,
      );
    },
  );
  const stride = width / (perFrame * perPacket);
  await run.check(
    'udp.imu.measurement-ids',
    title(
      `measurement ids every ${stride} columns, packet k of a frame holding samples ${perPacket}·k … ${perPacket}·k + ${perPacket - 1}`,
    ),
    () => {
      const bad = packets.find((p) => {
        const first = (p.samples[0].id + 1) / stride - 1;
        return (
          !Number.isInteger(first / perPacket) ||
          p.samples.some((s, k) => s.id !== (first + k + 1) * stride - 1 || (s.status & 1) !== 1)
        );
      });
      expectThat(bad === undefined, `ids ${show(bad?.samples.map((s) => s.id))}`);
    },
  );
  await run.check('udp.imu.frames', title('packets of one frame share its frame id; frame ids increase'), () => {
    const byFrame = new Map<number, number>();
    for (const p of packets) byFrame.set(p.frameId, (byFrame.get(p.frameId) ?? 0) + 1);
    const over = [...byFrame].find(([, n]) => n > perFrame);
    expectThat(over === undefined, `frame ${over?.[0]} has ${over?.[1]} packets`);
    const ids = packets.map((p) => p.frameId);
    const back = ids.findIndex((id, i) => i > 0 && id < ids[i - 1] && !(id === 0 && !fusa));
    expectThat(back < 0, `frame id ${ids[back]} after ${ids[back - 1]}`);
  });
  await sampleChecks(run, title, config, packets, replay);
}

/** What the samples read: increasing times, values within the configured ranges, gravity at rest, the NMEA block. */
async function sampleChecks(
  run: CheckRun,
  title: (text: string) => string,
  config: Json,
  packets: readonly ImuFramePacket[],
  replay: Replay | undefined,
): Promise<void> {
  await run.check('udp.imu.timestamps', title('sample timestamps strictly increase'), () => {
    skipRecordedTimestamps(replay);
    const ts = packets.flatMap((p) => p.samples.map((s) => s.ts));
    const bad = ts.findIndex((t, i) => i > 0 && t <= ts[i - 1]);
    expectThat(bad < 0, `sample ${bad}: ${ts[bad]} after ${ts[bad - 1]}`);
  });
  const accelLimit = (config.accel_fsr === 'EXTENDED' ? 16 : 2) * G;
  const gyroLimit = ((config.gyro_fsr === 'EXTENDED' ? 2000 : 250) * Math.PI) / 180;
  const samples = packets.flatMap((p) => p.samples);
  await run.check(
    'udp.imu.ranges',
    title(`within accel_fsr ±${accelLimit.toFixed(1)} m/s² and gyro_fsr ±${gyroLimit.toFixed(2)} rad/s`),
    () => {
      const bad = samples.find(
        (s) => s.accel.some((a) => !(Math.abs(a) <= accelLimit)) || s.gyro.some((g) => !(Math.abs(g) <= gyroLimit)),
      );
      expectThat(bad === undefined, `${show(bad?.accel)} m/s², ${show(bad?.gyro)} rad/s`);
    },
  );
  await run.check('udp.imu.gravity', title('a unit at rest reads about 9.8 m/s² (±20 %) in every sample'), () => {
    const bad = samples.find((s) => Math.abs(Math.hypot(...s.accel) / G - 1) > 0.2);
    expectThat(bad === undefined, `|a| = ${bad ? Math.hypot(...bad.accel).toFixed(3) : ''} m/s²`);
  });
  await run.check(
    'udp.imu.nmea',
    title('the NMEA block holds a sentence with a valid checksum, or is all zero'),
    () => {
      const bad = packets.find((p) => {
        const sentence = sentenceOf(p.nmea);
        return sentence === null || (sentence === '') !== (p.nmeaTs === 0n);
      });
      expectThat(
        bad === undefined,
        `block ${show(bad?.nmea.toString('latin1').replace(/\0+$/, ''))}, time ${bad?.nmeaTs}`,
      );
      const sentences = packets.filter((p) => p.nmeaTs !== 0n).length;
      return sentences ? `${sentences} sentences` : 'no sentence (nothing on the NMEA input)';
    },
  );
}
