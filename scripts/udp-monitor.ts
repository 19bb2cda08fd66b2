/**
 * Live summary of the lidar and IMU datagrams arriving on a port: what a user runs to see that data
 * flows from a (real or simulated) sensor.
 *
 *   npm run udp-monitor -- --port 7502 --imu-port 7503 --sensor 127.0.0.1:8080 --configure
 *   npm run udp-monitor -- --zone-port 7504 --sensor 127.0.0.1:8080 --configure   (firmware 3.2: zone states too)
 *
 * Once a second it prints the packet and frame rates, how many frames were complete (every column of
 * the window valid), the init id, serial number and profile, the source address, CRC failures and the
 * alert flags. With --sensor it reads the metadata like a client (needed to tell apart profiles whose
 * packets have the same size); with --configure it first points the sensor's udp_dest at this host.
 */
import dgram from 'node:dgram';
import { parseArgs } from 'node:util';
import { crc64BigInt } from '../src/udp/packets/crc64.js';
import { COLUMNS_PER_PACKET } from '../src/udp/packets/lidar-profiles.js';
// The replay's layouts cover every profile a unit sends, LEGACY (a replayed firmware 2.x recording) included.
import { readLidarHeader } from '../src/udp/replay/lidar-header.js';
import {
  type RecordedLayout,
  type RecordedProfile,
  columnValid,
  isLegacy,
  recordedColumnBytes,
  recordedLayout,
  recordedPacketBytes,
} from '../src/udp/replay/recorded-layout.js';
import { LIDAR_PROFILES } from '../src/model/index.js';
import { ZONE_PACKET_BYTES, ZONE_SLOTS, ZONE_STATE_BYTES, ZONE_STATES_OFFSET } from '../src/udp/packets/zone-packet.js';
import type { ZoneStateView } from '../src/udp/contract/preview.js';
import { zoneStateView } from '../src/udp/worker/zone-state-view.js';

const PROFILES: readonly RecordedProfile[] = [...LIDAR_PROFILES, 'LEGACY'];

const USAGE = `usage: udp-monitor [--port 7502] [--imu-port 7503] [--zone-port 0] [--bind 127.0.0.1] [--sensor HOST[:PORT]] [--configure] [--duration SECONDS]
  --port       lidar UDP port to listen on (default 7502)
  --imu-port   IMU UDP port to listen on (default 7503; 0 = do not listen)
  --zone-port  zone packet port (firmware 3.2 Zone Monitor) to listen on: prints each live zone's state (default 0 = do not listen)
  --bind       local address to listen on (default 127.0.0.1; 0.0.0.0 for a sensor on the network)
  --sensor     the sensor's HTTP address: read its metadata to know profile, pixels and column window
  --configure  with --sensor: POST udp_dest "@auto" and the two ports, so the sensor sends here
  --duration   stop after this many seconds (default: run until Ctrl-C)`;

interface Format {
  profile: RecordedProfile;
  pixels: number;
  /** Valid columns a complete frame has; undefined = learn it from the largest frame seen. */
  windowColumns?: number;
  initId?: number;
  mode?: string;
  /** Set when the packet size fits several profiles and no metadata was read. */
  alsoFits?: string;
}

interface Metadata {
  sensor_info: { initialization_id: number };
  lidar_data_format: {
    udp_profile_lidar: RecordedProfile;
    pixels_per_column: number;
    column_window: [number, number];
    columns_per_frame: number;
  };
  config_params: { lidar_mode: string };
}

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

const isLoopback = (host: string) => host === 'localhost' || host.startsWith('127.') || host === '[::1]';

function parse() {
  try {
    const { values } = parseArgs({
      options: {
        port: { type: 'string', default: '7502' },
        'imu-port': { type: 'string', default: '7503' },
        'zone-port': { type: 'string', default: '0' },
        // Loopback unless told: a tool run to look at a local unit opens no port to the network.
        bind: { type: 'string', default: '127.0.0.1' },
        sensor: { type: 'string' },
        configure: { type: 'boolean', default: false },
        duration: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const port = Number(values.port);
    const imuPort = Number(values['imu-port']);
    if (!Number.isInteger(port) || port < 1 || port > 65535) fail('--port must be an integer 1..65535');
    if (!Number.isInteger(imuPort) || imuPort < 0 || imuPort > 65535) fail('--imu-port must be an integer 0..65535');
    const zonePort = Number(values['zone-port']);
    if (!Number.isInteger(zonePort) || zonePort < 0 || zonePort > 65535)
      fail('--zone-port must be an integer 0..65535');
    const duration = values.duration === undefined ? undefined : Number(values.duration);
    if (duration !== undefined && !(duration > 0)) fail('--duration must be a positive number of seconds');
    if (values.configure && !values.sensor) fail('--configure needs --sensor');
    const sensor = values.sensor && (values.sensor.includes('://') ? values.sensor : `http://${values.sensor}`);
    if (values.configure && sensor && values.bind === '127.0.0.1' && !isLoopback(new URL(sensor).hostname))
      fail(
        "--configure with a sensor on the network: it sends to this host's network address; pass --bind 0.0.0.0 (or that address)",
      );
    return { port, imuPort, zonePort, bind: values.bind, sensor, configure: values.configure, duration };
  } catch (err) {
    fail((err as Error).message);
  }
}

async function readFormat(sensor: string): Promise<Format> {
  const res = await fetch(`${sensor}/api/v1/sensor/metadata`);
  if (!res.ok) throw new Error(`GET ${sensor}/api/v1/sensor/metadata answered ${res.status}: ${await res.text()}`);
  const md = (await res.json()) as Metadata;
  const f = md.lidar_data_format;
  const [first, last] = f.column_window;
  return {
    profile: f.udp_profile_lidar,
    pixels: f.pixels_per_column,
    windowColumns: ((last - first + f.columns_per_frame) % f.columns_per_frame) + 1,
    initId: md.sensor_info.initialization_id,
    mode: md.config_params.lidar_mode,
  };
}

/** Every (profile, pixels) whose packets have this size; several when the size alone is ambiguous. */
function candidatesForSize(size: number): Format[] {
  const found: Format[] = [];
  for (const profile of PROFILES) {
    for (const pixels of [16, 32, 64, 128])
      if (recordedPacketBytes(recordedLayout(profile), pixels) === size) found.push({ profile, pixels });
  }
  return found;
}

/** The candidate whose header and footer check out (FUSA: zero footer; others: CRC-64/XZ). */
function guessFormat(packet: Buffer): Format | undefined {
  const fits = candidatesForSize(packet.length).filter(({ profile, pixels }) => {
    const layout = recordedLayout(profile);
    if (isLegacy(layout)) return legacyStatusesOk(packet, pixels);
    return layout.header === 'FUSA'
      ? packet[0] === 1 && packet.subarray(packet.length - 32).every((b) => b === 0)
      : packet.readUInt16LE(0) === 1 && crcOk(packet);
  });
  // Ambiguous sizes (e.g. DUAL with 32 channels and RNG15 with 128) share the column size, so frame
  // counting still works; only the label is uncertain.
  const others = fits.slice(1).map((f) => `${f.profile} ${f.pixels}ch`);
  return fits[0] && { ...fits[0], alsoFits: others.length ? others.join(', ') : undefined };
}

const crcOk = (p: Buffer) => crc64BigInt(p, 0, p.length - 8) === p.readBigUInt64LE(p.length - 8);

/** LEGACY packets have no header: every column's status word is 0 (no data) or 0xFFFFFFFF (valid). */
function legacyStatusesOk(p: Buffer, pixels: number): boolean {
  const columnBytes = recordedColumnBytes(recordedLayout('LEGACY'), pixels);
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    const status = p.readUInt32LE(columnBytes * (c + 1) - 4);
    if (status !== 0 && status !== 0xffffffff) return false;
  }
  return true;
}

interface Header {
  frameId: number;
  /** null for LEGACY packets, which carry no identity or alert flags. */
  initId: number | null;
  serial: bigint | null;
  alertFlags: number | null;
}

function header(p: Buffer, layout: RecordedLayout): Header {
  const { frameId, initId, serial } = readLidarHeader(p, layout);
  const alertFlags = isLegacy(layout) ? null : layout.header === 'FUSA' ? p[8] : p[12];
  return { frameId, initId, serial, alertFlags };
}

/** Counters of one reporting interval. */
class Interval {
  lidarPackets = 0;
  imuPackets = 0;
  badSize = 0;
  badCrc = 0;
  framesComplete = 0;
  framesIncomplete = 0;
}

/** The live zones of a zone packet (docs/udp-packets.md, Zone packets), each with its state. */
function zoneStates(p: Buffer): ZoneStateView[] {
  const states: ZoneStateView[] = [];
  for (let slot = 0; slot < ZONE_SLOTS; slot++) {
    const o = ZONE_STATES_OFFSET + slot * ZONE_STATE_BYTES;
    if (!(p[o] & 1)) continue;
    states.push(
      zoneStateView({
        id: p[o + 1],
        errorFlags: p[o + 2],
        triggered: (p[o + 3] & 0x80) !== 0,
        count: p.readUInt32LE(o + 8),
        occlusionCount: p.readUInt32LE(o + 12),
      }),
    );
  }
  return states;
}

/** Binds with a receive buffer for bursts of the largest packets (the kernel caps it at net.core.rmem_max). */
function bind(socket: dgram.Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve) =>
    socket.bind(port, address, () => {
      try {
        socket.setRecvBufferSize(16 * 1024 * 1024);
      } catch {
        // The default buffer still works on an idle machine.
      }
      resolve();
    }),
  );
}

async function main() {
  const args = parse();
  let format: Format | undefined;

  let interval = new Interval();
  let last: Header | undefined;
  let from = '';
  let frame: { id: number; valid: number } | undefined;
  let largestFrame = 0;

  const finishFrame = () => {
    if (!frame) return;
    largestFrame = Math.max(largestFrame, frame.valid);
    const needed = format?.windowColumns ?? largestFrame;
    if (frame.valid >= needed) interval.framesComplete++;
    else interval.framesIncomplete++;
  };

  const lidar = dgram.createSocket('udp4');
  lidar.on('message', (p, rinfo) => {
    from = `${rinfo.address}:${rinfo.port}`;
    format ??= guessFormat(p);
    if (!format) {
      interval.badSize++;
      return;
    }
    if (p.length !== recordedPacketBytes(recordedLayout(format.profile), format.pixels)) {
      // The sensor was reconfigured (or sends something else): recognise the new format by its packets.
      const guess = guessFormat(p);
      if (!guess) {
        interval.badSize++;
        return;
      }
      format = guess;
      frame = undefined;
    }
    const layout = recordedLayout(format.profile);
    interval.lidarPackets++;
    if (layout.header === 'STANDARD' && !crcOk(p)) interval.badCrc++;
    const h = header(p, layout);
    if (last && h.initId !== last.initId && args.sensor) {
      // A reinit: the profile or pixel count may have changed.
      void readFormat(args.sensor).then(
        (f) => (format = f),
        () => undefined,
      );
    }
    last = h;
    if (!frame || frame.id !== h.frameId) {
      finishFrame();
      frame = { id: h.frameId, valid: 0 };
    }
    for (let c = 0; c < COLUMNS_PER_PACKET; c++) if (columnValid(p, layout, format.pixels, c)) frame.valid++;
  });
  lidar.on('error', (err) => fail(`lidar socket: ${err.message}`));
  await bind(lidar, args.port, args.bind);

  const imu = args.imuPort ? dgram.createSocket('udp4') : undefined;
  imu?.on('message', (p) => {
    if (p.length === 48) interval.imuPackets++;
  });
  imu?.on('error', (err) => fail(`IMU socket: ${err.message}`));
  if (imu) await bind(imu, args.imuPort, args.bind);

  let zonePackets = 0;
  let zones: ZoneStateView[] | undefined;
  const zoneSocket = args.zonePort ? dgram.createSocket('udp4') : undefined;
  zoneSocket?.on('message', (p) => {
    if (p.length !== ZONE_PACKET_BYTES) return;
    zonePackets++;
    zones = zoneStates(p);
  });
  zoneSocket?.on('error', (err) => fail(`zone socket: ${err.message}`));
  if (zoneSocket) await bind(zoneSocket, args.zonePort, args.bind);

  // Listen first, then tell the sensor where to send: no port-unreachable alert for our own start-up.
  if (args.sensor) {
    if (args.configure) {
      const res = await fetch(`${args.sensor}/api/v1/sensor/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          udp_dest: '@auto',
          udp_port_lidar: args.port,
          udp_port_imu: args.imuPort,
          ...(args.zonePort ? { udp_dest_zm: '@auto', udp_port_zm: args.zonePort } : {}),
        }),
      });
      if (res.status !== 204) throw new Error(`configuring the sensor failed (${res.status}): ${await res.text()}`);
    }
    format = await readFormat(args.sensor);
  }

  process.stdout.write(
    `listening on ${args.bind}:${args.port} (lidar)${imu ? ` and :${args.imuPort} (IMU)` : ''}${format ? `; expecting ${format.profile}, ${format.pixels} channels, ${format.mode}` : ''}\n`,
  );
  const started = Date.now();
  const timer = setInterval(() => {
    const i = interval;
    interval = new Interval();
    const time = new Date().toISOString().slice(11, 19);
    const fmt = format
      ? `${format.profile} ${format.pixels}ch${format.mode ? ` ${format.mode}` : ''}${format.alsoFits ? ` (or ${format.alsoFits}: use --sensor)` : ''}`
      : 'waiting for packets';
    const id =
      last && last.initId !== null
        ? `init_id ${last.initId} sn ${last.serial} alert_flags 0x${(last.alertFlags ?? 0).toString(16).padStart(2, '0')}`
        : last
          ? '(LEGACY packets carry no init_id, serial or alert flags)'
          : '';
    const zoneText = !zoneSocket
      ? ''
      : ` | zones ${zonePackets} pkt/s${zones ? `: ${zones.map((z) => `${z.id} ${z.state} (${z.count})`).join(', ') || 'none live'}` : ''}`;
    zonePackets = 0;
    const problems = [i.badSize && `${i.badSize} of unexpected size`, i.badCrc && `${i.badCrc} bad CRC`]
      .filter(Boolean)
      .join(', ');
    process.stdout.write(
      `${time} lidar ${i.lidarPackets} pkt/s, frames ${i.framesComplete} complete / ${i.framesIncomplete} incomplete | imu ${i.imuPackets} pkt/s | ${fmt} ${id}${from ? ` from ${from}` : ''}${zoneText}${problems ? ` | ${problems}` : ''}\n`,
    );
    if (args.duration !== undefined && Date.now() - started >= args.duration * 1000) {
      clearInterval(timer);
      lidar.close();
      imu?.close();
      zoneSocket?.close();
    }
  }, 1000);
}

main().catch((err: unknown) => {
  process.stderr.write(`udp-monitor: ${(err as Error).message}\n`);
  process.exit(1);
});
