/**
 * Records this project's own simulated firmware 3.2 unit into a capture a replay can read: a simulated OS-1-32 with
 * a ZONE16 lidar profile and a zone set applied (one zone around the scene's crate, which triggers, one in
 * empty space, which does not), its lidar, IMU and zone datagrams written to a libpcap file (Ethernet, IPv4,
 * UDP, as a capture on the host would hold them) beside its metadata (GET /api/v1/sensor/metadata, with the
 * active zone set zip as `zone_set`, base64, where the vendor SDK records it). No real fw 3.2 capture with
 * lidar packets is public: this is the project's sample of one (test/fixtures/recordings/README.md).
 *
 *   npx tsx scripts/record-zone-fixture.ts [--out test/fixtures/recordings/sim_OS-1-32_v3.2.0_512x10_zone16] [--frames 3]
 *     [--profile RNG15_RFL8_NIR8_ZONE16] [--imu-profile LEGACY] [--header-type STANDARD]
 *
 * With `--imu-profile ACCEL32_GYRO32_NMEA` the simulated GNSS receiver is on the NMEA input (multipurpose_io_mode
 * INPUT_NMEA_UART), so the IMU packets carry its sentence; it sends once a second, so the script records until one
 * came and keeps the frames around it (FrameWindow). The sample of firmware 3.2's formats,
 * `--profile RNG15_RFL8_WIN8 --imu-profile ACCEL32_GYRO32_NMEA --out test/fixtures/recordings/sim_OS-1-32_v3.2.0_512x10_win8_accel32`.
 * `--header-type FUSA` gives every packet the FUSA header (header_type, u32 frame id, no CRC): the sample of it,
 * `--header-type FUSA --imu-profile ACCEL32_GYRO32_NMEA --out test/fixtures/recordings/sim_OS-1-32_v3.2.0_512x10_fusa_zone16`.
 * The script reads the packets' init_id and frame id with the unit's own header decoder (readPacketHeader).
 */
import { createHash } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { strToU8, zipSync } from 'fflate';
import pino from 'pino';
import { boxTriangles, encodeBinaryStl, HEADER_TYPES, type HeaderType } from '../src/model/index.js';
import { parseCliOptions } from '../src/main/cli-options.js';
import { readPacketHeader } from '../src/udp/packets/packet-header.js';
import { startServer } from '../src/main/server.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'test/fixtures/recordings/sim_OS-1-32_v3.2.0_512x10_zone16' },
    frames: { type: 'string', default: '3' },
    profile: { type: 'string', default: 'RNG15_RFL8_NIR8_ZONE16' },
    'imu-profile': { type: 'string', default: 'LEGACY' },
    'header-type': { type: 'string', default: 'STANDARD' },
  },
});
if (!(HEADER_TYPES as readonly string[]).includes(values['header-type']))
  throw new Error(`--header-type must be one of ${HEADER_TYPES.join(', ')}; got ${values['header-type']}`);
const HEADER = values['header-type'] as HeaderType;
const FRAMES = Number(values.frames);
const PROFILE = values.profile;
const IMU_PROFILE = values['imu-profile'];
const COLUMNS = 512;
const PACKETS_PER_FRAME = COLUMNS / 16;

/** Zones in the sensor frame (metres): around the scene's crate (src/udp/scene.ts), and empty space in front. */
const ZONES = [
  { id: 0, min: [-4.4, 1.1, -1.6], max: [-2.8, 2.7, -0.5], mode: 'OCCUPANCY', label: 'crate' },
  { id: 7, min: [1, -0.5, -0.5], max: [2, 0.5, 0.5], mode: 'OCCUPANCY', label: 'empty' },
];

function zoneSetZip(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const zones: Record<string, unknown> = {};
  for (const z of ZONES) {
    const stl = encodeBinaryStl(boxTriangles(z.min, z.max));
    files[`${z.id}.stl`] = stl;
    zones[String(z.id)] = {
      point_count: 10,
      frame_count: 1,
      mode: z.mode,
      label: z.label,
      stl: {
        file_name: `${z.id}.stl`,
        coordinate_frame: 'SENSOR',
        hash: createHash('sha256').update(stl).digest('hex'),
      },
    };
  }
  const metadata = { label: 'sample', version: { metadata: 1, file_naming: 1 }, power_on_live_ids: [0, 7], zones };
  return zipSync({ 'metadata.json': strToU8(JSON.stringify(metadata, null, 2)), ...files });
}

interface Captured {
  timeUs: bigint;
  srcPort: number;
  dstPort: number;
  payload: Buffer;
}

/** One libpcap record: Ethernet, IPv4 (127.0.0.1 to itself) and UDP around `d.payload`. */
function pcapRecord(d: Captured, ipId: number): Buffer {
  const udpLength = 8 + d.payload.length;
  const frame = Buffer.alloc(14 + 20 + udpLength);
  frame.writeUInt16BE(0x0800, 12);
  const ip = frame.subarray(14, 34);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + udpLength, 2);
  ip.writeUInt16BE(ipId & 0xffff, 4);
  ip[8] = 64;
  ip[9] = 17;
  ip.set([127, 0, 0, 1], 12);
  ip.set([127, 0, 0, 1], 16);
  let sum = 0;
  for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  ip.writeUInt16BE(~sum & 0xffff, 10);
  frame.writeUInt16BE(d.srcPort, 34);
  frame.writeUInt16BE(d.dstPort, 36);
  frame.writeUInt16BE(udpLength, 38);
  d.payload.copy(frame, 42);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(Number(d.timeUs / 1_000_000n), 0);
  header.writeUInt32LE(Number(d.timeUs % 1_000_000n), 4);
  header.writeUInt32LE(frame.length, 8);
  header.writeUInt32LE(frame.length, 12);
  return Buffer.concat([header, frame]);
}

function pcapFile(datagrams: readonly Captured[]): Buffer {
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b2c3d4, 0);
  global.writeUInt16LE(2, 4);
  global.writeUInt16LE(4, 6);
  global.writeUInt32LE(65535, 16);
  global.writeUInt32LE(1, 20); // Ethernet
  return Buffer.concat([global, ...datagrams.map((d, i) => pcapRecord(d, i + 1))]);
}

async function listen(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

/**
 * Which datagrams the capture keeps: FRAMES whole frames (from a frame's first lidar packet, once the reinit has
 * taken effect, i.e. its init_id), each with its IMU packets and its zone packet. With `wantSentence`
 * (ACCEL32_GYRO32_NMEA with the GNSS receiver, which sends once a second) the frames kept are the ones around the
 * first frame after the start whose IMU packets carry a sentence: a 0.3 s window taken anywhere would mostly hold
 * none. Frames are told by the frame id in the packets' header; LEGACY IMU packets, which have none, belong to the
 * frame of the lidar packets they arrive among.
 */
type Stream = 'lidar' | 'imu' | 'zone';

class FrameWindow {
  private readonly captured: { frame: number; stream: Stream; d: Captured }[] = [];
  /** Frame ids in arrival order, from the first recorded frame on. */
  private readonly frames: number[] = [];
  private firstFrame: number | undefined;
  private recording = false;
  private sentenceFrame: number | undefined;

  constructor(
    private readonly header: HeaderType,
    /** ACCEL32_GYRO32_NMEA: IMU packets with a header (the lidar frame's id) and the GNSS receiver's sentences. */
    private readonly wantSentence: boolean,
  ) {}

  /** Takes one datagram; gives the kept datagrams once the window is complete. */
  add(stream: Stream, d: Captured, initId: number): Captured[] | undefined {
    // LEGACY IMU packets carry no header; the others do (header_type's).
    const header = stream === 'imu' && !this.wantSentence ? null : readPacketHeader(d.payload, this.header);
    if (header && header.initId !== initId) return undefined;
    if (!this.recording) {
      // The first frame after the reinit may lack slots the busy start-up made late: start at the next.
      if (!header || stream !== 'lidar') return undefined;
      this.firstFrame ??= header.frameId;
      if (header.frameId === this.firstFrame || d.payload.readUInt16LE(32 + 8) !== 0) return undefined;
      this.recording = true;
    }
    const frame = header ? header.frameId : (this.frames.at(-1) as number);
    if (stream === 'lidar' && !this.frames.includes(frame)) this.frames.push(frame);
    // A sentence in a frame with a whole frame before it (the middle of three).
    const before = Math.floor((FRAMES - 1) / 2);
    if (stream === 'imu' && this.wantSentence && d.payload.readBigUInt64LE(32) !== 0n)
      if (this.sentenceFrame === undefined && this.frames.indexOf(frame) >= before) this.sentenceFrame = frame;
    this.captured.push({ frame, stream, d });
    return this.complete();
  }

  private complete(): Captured[] | undefined {
    let first = 0;
    if (this.wantSentence) {
      if (this.sentenceFrame === undefined) return undefined;
      first = this.frames.indexOf(this.sentenceFrame) - Math.floor((FRAMES - 1) / 2);
    }
    const kept = this.frames.slice(first, first + FRAMES);
    // Done once two more frames have begun (the last frame's IMU and zone packets come after its lidar packets).
    if (kept.length < FRAMES || this.frames.length < first + FRAMES + 2) return undefined;
    const zones = this.captured.filter((c) => kept.includes(c.frame) && c.stream === 'zone');
    if (zones.length < FRAMES) return undefined;
    return this.captured.filter((c) => kept.includes(c.frame)).map((c) => c.d);
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'zone-fixture-'));
  const options = parseCliOptions(
    ['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--product', 'OS-1-32', '--firmware-version', '3.2'],
    {},
  );
  if (options === 'help') throw new Error('unexpected help');
  const server = await startServer(options, pino({ level: 'silent' }));
  const sockets = { lidar: await listen(), imu: await listen(), zone: await listen() };
  const port = (s: dgram.Socket) => s.address().port;
  const call = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': type },
      body: body === undefined ? undefined : body instanceof Uint8Array ? Buffer.from(body) : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  try {
    await call('POST', '/api/v1/zone_monitor/staged/zip', zoneSetZip(), 'application/octet-stream');
    await call('POST', '/api/v1/zone_monitor/apply');
    const window = new FrameWindow(HEADER, IMU_PROFILE === 'ACCEL32_GYRO32_NMEA');
    let initId = -1;
    const wallUs = BigInt(Date.now()) * 1000n;
    const hr0 = process.hrtime.bigint();
    const done = new Promise<Captured[]>((resolve) => {
      const on = (name: keyof typeof sockets) => (payload: Buffer, from: dgram.RemoteInfo) => {
        const timeUs = wallUs + (process.hrtime.bigint() - hr0) / 1000n;
        const d = { timeUs, srcPort: from.port, dstPort: port(sockets[name]), payload: Buffer.from(payload) };
        const kept = window.add(name, d, initId);
        if (kept) resolve(kept);
      };
      for (const name of Object.keys(sockets) as (keyof typeof sockets)[]) sockets[name].on('message', on(name));
    });
    await call('POST', '/api/v1/sensor/config', {
      udp_dest: '127.0.0.1',
      udp_port_lidar: port(sockets.lidar),
      udp_port_imu: port(sockets.imu),
      udp_dest_zm: '127.0.0.1',
      udp_port_zm: port(sockets.zone),
      udp_profile_lidar: PROFILE,
      lidar_mode: `${COLUMNS}x10`,
      udp_profile_imu: IMU_PROFILE,
      header_type: HEADER,
      ...(IMU_PROFILE === 'ACCEL32_GYRO32_NMEA' ? { multipurpose_io_mode: 'INPUT_NMEA_UART' } : {}),
    });
    const metadata = (await (await call('GET', '/api/v1/sensor/metadata')).json()) as {
      sensor_info: { initialization_id: number };
      zone_set?: string;
    };
    initId = metadata.sensor_info.initialization_id;
    const captured = await done;
    const zip = new Uint8Array(await (await call('GET', '/api/v1/zone_monitor/active/zip')).arrayBuffer());
    metadata.zone_set = Buffer.from(zip).toString('base64');
    writeFileSync(`${values.out}.pcap`, pcapFile(captured));
    writeFileSync(`${values.out}.json`, `${JSON.stringify(metadata, null, 2)}\n`);
    const count = (p: number) => captured.filter((d) => d.dstPort === p).length;
    console.log(
      `${values.out}.pcap: ${count(port(sockets.lidar))} lidar (${PACKETS_PER_FRAME} per frame), ` +
        `${count(port(sockets.imu))} IMU, ${count(port(sockets.zone))} zone packets`,
    );
  } finally {
    for (const s of Object.values(sockets)) s.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
