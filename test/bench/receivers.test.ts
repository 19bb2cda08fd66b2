/**
 * The benchmark's two receivers (the Node one with jitter, the C header counter of the fleet benchmarks)
 * count the same datagrams the same way: packets, losses across a frame_id wrap, late packets, the
 * init_ids of the window. Real datagrams over loopback; no timing is asserted.
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeReceiverBinary } from '../../bench/native-receiver.js';
import { Receiver } from '../../bench/receiver-client.js';
import type { ReceiverSpec, StreamReport } from '../../bench/receiver-protocol.js';
import { waitFor } from '../helpers/poll.js';

/** A lidar packet with just the fields the receivers read (docs/udp-packets.md), full-sized like a real one. */
function packet(layout: 'standard' | 'fusa', initId: number, frameId: number, measurementId: number): Buffer {
  const buf = Buffer.alloc(32 + 16 * (12 + 128 * 12) + 32);
  if (layout === 'standard') {
    buf.writeUInt16LE(1, 0);
    buf.writeUInt16LE(frameId, 2);
    buf.writeUIntLE(initId, 4, 3);
  } else {
    buf[0] = 1;
    buf.writeUIntLE(initId, 1, 3);
    buf.writeUInt32LE(frameId, 4);
  }
  buf.writeUInt16LE(measurementId, 40);
  return buf;
}

const PER_FRAME = 64; // 1024 columns, 16 per packet

/** The last frame before the wrap with 3 packets missing, the first frame after it whole, then one late packet. */
function sequence(layout: 'standard' | 'fusa', initId: number): Buffer[] {
  const lastFrame = layout === 'fusa' ? 0xffff_ffff : 0xffff;
  const missing = new Set([10, 11, 12]);
  const packets: Buffer[] = [];
  for (let p = 0; p < PER_FRAME; p++) if (!missing.has(p)) packets.push(packet(layout, initId, lastFrame, p * 16));
  for (let p = 0; p < PER_FRAME; p++) packets.push(packet(layout, initId, 0, p * 16));
  packets.push(packet(layout, initId, lastFrame, 63 * 16));
  return packets;
}

const SPECS: ReceiverSpec[] = [
  {
    id: 'standard',
    kind: 'lidar',
    layout: 'standard',
    packetsPerFrame: PER_FRAME,
    periodMs: 1.5625,
    recordJitter: false,
  },
  { id: 'fusa', kind: 'lidar', layout: 'fusa', packetsPerFrame: PER_FRAME, periodMs: 1.5625, recordJitter: false },
  { id: 'imu', kind: 'sink' },
];

/** Datagrams waiting in the kernel for a loopback UDP port (the rx_queue column of /proc/net/udp). */
function queuedBytes(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const line = readFileSync('/proc/net/udp', 'utf8')
    .split('\n')
    .find((l) => l.trim().split(/\s+/)[1]?.endsWith(`:${hexPort}`));
  if (!line) throw new Error(`port ${port} is not open`);
  return Number.parseInt(line.trim().split(/\s+/)[4].split(':')[1], 16);
}

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function countWith(counting: boolean): Promise<{ kind: string; reports: Record<string, StreamReport> }> {
  const receiver = await Receiver.start(SPECS, { counting });
  receivers.push(receiver);
  await receiver.startWindow();
  const socket = createSocket('udp4');
  try {
    const send = (buf: Buffer, port: number) =>
      new Promise<void>((resolve, reject) => socket.send(buf, port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
    for (const buf of sequence('standard', 5)) await send(buf, receiver.ports.standard);
    for (const buf of sequence('fusa', 7)) await send(buf, receiver.ports.fusa);
    await send(Buffer.alloc(48), receiver.ports.standard); // IMU-sized: not a lidar packet, not counted
    await send(Buffer.alloc(48), receiver.ports.imu);
  } finally {
    socket.close();
  }
  // Loopback delivers at send; once the receiver has read every queued datagram it has counted it.
  for (const id of ['standard', 'fusa', 'imu'])
    await waitFor(() => queuedBytes(receiver.ports[id]) === 0, 10_000, `the receiver to read port ${id}`);
  return { kind: receiver.kind, reports: await receiver.stopWindow() };
}

describe('bench receivers', () => {
  it('builds the C header counter with the system compiler', () => {
    expect(nativeReceiverBinary()).toHaveProperty('binary');
  });

  it.each([false, true])(
    'count packets, losses over a frame_id wrap and late packets (C counter: %s)',
    async (counting) => {
      const { kind, reports } = await countWith(counting);
      expect(kind).toBe(counting ? 'native' : 'node');
      for (const [id, initId] of [
        ['standard', 5],
        ['fusa', 7],
      ] as const) {
        expect(reports[id]).toMatchObject({ packets: 61 + 64 + 1, lost: 3, outOfOrder: 1, initIds: [initId] });
        expect(reports[id].jitterMs).toBeNull();
      }
      expect(Object.keys(reports).sort()).toEqual(['fusa', 'standard']);
    },
  );

  it('the C counter refuses a stream that wants jitter figures (it keeps none)', async () => {
    const receiver = await Receiver.start([], { counting: true });
    receivers.push(receiver);
    await expect(receiver.open([{ ...SPECS[0], recordJitter: true } as ReceiverSpec])).rejects.toThrow(/jitter/);
  });

  it('the Node receiver counts ACCEL32_GYRO32_NMEA IMU packets by frame and first sample: losses, wrap, late ones', async () => {
    // 1024 columns, 8 packets per frame of 8 samples: packet j's first sample is column 128 j + 15.
    const imuPacket = (frameId: number, j: number) => {
      const buf = Buffer.alloc(32 + 100 + 8 * 36 + 32);
      buf.writeUInt16LE(2, 0);
      buf.writeUInt16LE(frameId, 2);
      buf.writeUIntLE(9, 4, 3);
      buf.writeUInt16LE(128 * j + 15, 32 + 100 + 8);
      return buf;
    };
    const packets = [
      ...[0, 1, 2, 4, 5, 6, 7].map((j) => imuPacket(0xffff, j)),
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((j) => imuPacket(0, j)),
      imuPacket(0xffff, 7),
    ];
    const receiver = await Receiver.start([
      {
        id: 'imu',
        kind: 'imu-nmea',
        layout: 'standard',
        packetsPerFrame: 8,
        columnsPerFrame: 1024,
        periodMs: 12.5,
        recordJitter: false,
      },
    ]);
    receivers.push(receiver);
    await receiver.startWindow();
    const socket = createSocket('udp4');
    try {
      for (const buf of packets)
        await new Promise<void>((resolve, reject) =>
          socket.send(buf, receiver.ports.imu, '127.0.0.1', (e) => (e ? reject(e) : resolve())),
        );
    } finally {
      socket.close();
    }
    await waitFor(() => queuedBytes(receiver.ports.imu) === 0, 10_000, 'the receiver to read the IMU port');
    const reports = await receiver.stopWindow();
    expect(reports.imu).toMatchObject({ packets: 7 + 8 + 1, lost: 1, outOfOrder: 1, initIds: [9] });
  });
});
