/**
 * Child process: receives lidar (and IMU) datagrams on 127.0.0.1 the way a client would, and counts
 * what arrives. It runs apart from the orchestrator so that neither's work delays the other's
 * packet timestamps. Controlled over the IPC channel (receiver-protocol.ts).
 */
import { createSocket, type Socket } from 'node:dgram';
import type {
  FromReceiver,
  ImuNmeaStreamSpec,
  LidarStreamSpec,
  ReceiverSpec,
  StreamReport,
  ToReceiver,
} from './receiver-protocol.js';
import { frameIdBits, readImuNmeaIds, readLidarIds, SequenceTracker } from './packet-fields.js';
import { spread } from './stats.js';

const RECEIVE_HOST = '127.0.0.1';
/** Capped by net.core.rmem_max; a large buffer keeps a briefly busy receiver from dropping. */
const RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;
/** Enough inter-arrival samples for a 30 s window at 1280 packets/s. */
const JITTER_CAPACITY = 1 << 16;

class LidarCounter {
  readonly sequence: SequenceTracker;
  private readonly jitter: Float64Array | null;
  private jitterCount = 0;
  private packets = 0;
  private lastArrival = -1;
  private windowInitIds = new Set<number>();
  private counting = false;
  private windowStart = 0;
  private readonly readIds: typeof readLidarIds;

  /** `lastInitId`: carried over when a stream is re-opened, so an unchanged init_id is not reported as new. */
  constructor(
    private readonly spec: LidarStreamSpec | ImuNmeaStreamSpec,
    private lastInitId = -1,
  ) {
    const columnsPerPacket = spec.kind === 'imu-nmea' ? spec.columnsPerFrame / spec.packetsPerFrame : undefined;
    this.sequence = new SequenceTracker(spec.packetsPerFrame, frameIdBits(spec.layout), columnsPerPacket);
    this.readIds = spec.kind === 'imu-nmea' ? readImuNmeaIds : readLidarIds;
    this.jitter = spec.recordJitter ? new Float64Array(JITTER_CAPACITY) : null;
  }

  get initId(): number {
    return this.lastInitId;
  }

  onPacket(packet: Buffer): void {
    const now = performance.now();
    const ids = this.readIds(packet, this.spec.layout);
    if (!ids) return;
    if (ids.initId !== this.lastInitId) {
      send({ type: 'init', id: this.spec.id, initId: ids.initId, atNs: process.hrtime.bigint().toString() });
      this.lastInitId = ids.initId;
      // A new initialization starts a new sequence and a new rhythm.
      this.sequence.reset();
      this.lastArrival = -1;
    }
    if (!this.counting) return;
    this.packets++;
    this.windowInitIds.add(ids.initId);
    this.sequence.observe(ids.frameId, ids.measurementId);
    if (this.jitter && this.lastArrival >= 0 && this.jitterCount < JITTER_CAPACITY) {
      this.jitter[this.jitterCount++] = Math.abs(now - this.lastArrival - this.spec.periodMs);
    }
    this.lastArrival = now;
  }

  start(): void {
    this.packets = 0;
    this.jitterCount = 0;
    this.windowInitIds.clear();
    this.sequence.reset();
    this.lastArrival = -1;
    this.windowStart = performance.now();
    this.counting = true;
  }

  stop(): StreamReport {
    this.counting = false;
    const windowS = (performance.now() - this.windowStart) / 1000;
    return {
      packets: this.packets,
      windowS,
      rate: this.packets / windowS,
      lost: this.sequence.lost,
      outOfOrder: this.sequence.outOfOrder,
      jitterMs: this.jitter && this.jitterCount > 1 ? spread(this.jitter, this.jitterCount) : null,
      initIds: [...this.windowInitIds],
    };
  }
}

const sockets = new Map<string, Socket>();
const counters = new Map<string, LidarCounter>();

function send(message: FromReceiver): void {
  process.send?.(message);
}

/** Opens a port for `spec.id`, or, when it is open already, keeps the port and takes the new spec (a new lidar mode). */
async function open(spec: ReceiverSpec): Promise<number> {
  if (spec.kind !== 'sink') counters.set(spec.id, new LidarCounter(spec, counters.get(spec.id)?.initId));
  const existing = sockets.get(spec.id);
  if (existing) return existing.address().port;
  const socket = createSocket({ type: 'udp4', recvBufferSize: RECEIVE_BUFFER_BYTES });
  sockets.set(spec.id, socket);
  // Looked up per datagram, so a re-opened stream counts with its new spec at once.
  if (spec.kind !== 'sink') socket.on('message', (packet) => counters.get(spec.id)?.onPacket(packet));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, RECEIVE_HOST, () => resolve());
  });
  return socket.address().port;
}

process.on('message', (raw: unknown) => {
  const message = raw as ToReceiver;
  switch (message.type) {
    case 'open':
      Promise.all(message.streams.map(async (s) => [s.id, await open(s)] as const)).then(
        (ports) => send({ type: 'opened', ports: Object.fromEntries(ports) }),
        (error: unknown) => {
          process.stderr.write(`udp-receiver: ${String(error)}\n`);
          process.exit(1);
        },
      );
      break;
    case 'start':
      for (const counter of counters.values()) counter.start();
      send({ type: 'started' });
      break;
    case 'stop':
      send({ type: 'stats', streams: Object.fromEntries([...counters].map(([id, c]) => [id, c.stop()])) });
      break;
  }
});

// The orchestrator going away (crash, Ctrl-C) closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
