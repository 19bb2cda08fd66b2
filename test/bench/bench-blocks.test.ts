/**
 * Smoke test of the benchmark's building blocks on trivial inputs: the packet reader, the loss
 * counter, percentiles and the table/JSON shapes. No timing is asserted (figures are reported by
 * `npm run bench`, never checked in tests).
 */
import { describe, expect, it } from 'vitest';
import { nominalPacketRate, packetsPerFrame, readLidarIds, SequenceTracker } from '../../bench/packet-fields.js';
import { figureWithReferences, renderMarkdown, unavailable } from '../../bench/report.js';
import { percentile, spread } from '../../bench/stats.js';

/** A lidar packet with just the fields the bench reads, laid out as docs/udp-packets.md says. */
function packet(layout: 'standard' | 'fusa', initId: number, frameId: number, measurementId: number): Buffer {
  const buf = Buffer.alloc(32 + 12 + 12 * 16);
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

describe('bench packet reading', () => {
  it('reads init_id, frame_id and the first measurement_id of both header layouts', () => {
    expect(readLidarIds(packet('standard', 0x123456, 65535, 2032), 'standard')).toEqual({
      initId: 0x123456,
      frameId: 65535,
      measurementId: 2032,
    });
    expect(readLidarIds(packet('fusa', 7, 70000, 16), 'fusa')).toEqual({
      initId: 7,
      frameId: 70000,
      measurementId: 16,
    });
    expect(readLidarIds(Buffer.alloc(48), 'standard')).toBeNull(); // an IMU-sized datagram
  });

  it('knows the nominal rates of docs/udp-packets.md', () => {
    expect(nominalPacketRate('2048x10')).toBe(1280);
    expect(nominalPacketRate('1024x20')).toBe(1280);
    expect(nominalPacketRate('1024x10')).toBe(640);
    expect(packetsPerFrame('2048x10')).toBe(128);
  });

  it('counts the packets missing between places in the sequence, across a frame_id wrap', () => {
    const tracker = new SequenceTracker(4, 16);
    const places: [number, number][] = [
      [65535, 0],
      [65535, 16],
      [65535, 48], // one missing (32)
      [0, 0], // wrapped frame id, next frame
      [0, 32], // one missing (16)
      [0, 16], // late
    ];
    for (const [frame, mid] of places) tracker.observe(frame, mid);
    expect(tracker.lost).toBe(2);
    expect(tracker.outOfOrder).toBe(1);
  });
});

describe('bench report', () => {
  it('computes nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    const s = spread(Float64Array.from([5, 1, 4, 2, 3]), 5);
    expect(s).toMatchObject({ count: 5, p50: 3, max: 5 });
  });

  it('puts every reference and ratio on the JSON row and renders one markdown table', () => {
    const figure = figureWithReferences({ name: 'HTTP GET /x requests/s', value: 900, unit: 'req/s' }, [
      { name: 'bare Fastify', value: 1000 },
      { name: 'bare node:http', value: 1200 },
    ]);
    expect(figure).toMatchObject({
      name: 'HTTP GET /x requests/s',
      value: 900,
      unit: 'req/s',
      reference: 1000,
      ratio: 0.9,
    });
    expect(figure.references?.map((r) => r.name)).toEqual(['bare Fastify', 'bare node:http']);
    expect(JSON.parse(JSON.stringify(figure))).toEqual(figure);

    const missing = unavailable('HTTP GET /api/v1/time', 'req/s', 'endpoint missing');
    expect(missing.figures[0]).toMatchObject({ value: null, note: 'endpoint missing' });
    const table = renderMarkdown([
      ...missing.rows,
      { figure: 'a|b', value: '1', reference: '', ratio: '', target: '', met: '' },
    ]).split('\n');
    expect(table[0]).toBe('| Figure | Value | Reference | Ratio | Target | Met |');
    expect(table[2]).toContain('n/a (endpoint missing)');
    expect(table[3]).toContain('a\\|b');
    expect(table.every((line) => line.startsWith('|') && line.endsWith('|'))).toBe(true);
  });
});
