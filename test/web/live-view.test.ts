/**
 * The live view's stream never leaves a page waiting in silence: its first event comes at once, with
 * the reason when the unit sends nothing (no udp_dest, STANDBY, port 0, a fault that withholds the
 * packets); while replaying, its pictures are the recording's frames decoded from what is sent.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import { silenceOf } from '../../src/routes/web/live-silence.js';
import { OS2_LEGACY, readReferencePcap } from '../replay/helpers/pcap-reference.js';
import { replayUnit } from '../replay/helpers/replay-unit.js';
import { changeConfig, createTestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

interface LiveEvent {
  event: string;
  // Fields of the page's events, read one by one by the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  /** ms from the request to the event's arrival. */
  atMs: number;
}

/** Reads the stream's events as they come; `close()` ends it. */
async function watchLive(url: string) {
  const controller = new AbortController();
  const started = performance.now();
  const res = await fetch(`${url}/web/api/live-image`, { signal: controller.signal });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const events: LiveEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: JSON.parse(data ?? '{}'), atMs: performance.now() - started });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, close: () => controller.abort() };
}

const base = { config: defaultConfig(), status: 'RUNNING' as const, rebooting: false, udpFaultRules: [] };

describe('why the unit sends nothing', () => {
  it('names udp_dest, STANDBY, a port of 0 or a fault rule; nothing while it streams', () => {
    const streaming = { ...base, config: { ...defaultConfig(), udp_dest: '127.0.0.1' } };
    expect(silenceOf(streaming)).toBeNull();
    expect(silenceOf(base)?.code).toBe('no-destination');
    expect(silenceOf({ ...streaming, config: { ...streaming.config, operating_mode: 'STANDBY' } })?.code).toBe(
      'standby',
    );
    expect(silenceOf({ ...streaming, config: { ...streaming.config, udp_port_lidar: 0 } })?.reason).toMatch(
      /udp_port_lidar is 0/,
    );
    const stop = { id: 'r1', stream: 'both' as const, action: { type: 'stop' as const }, count: undefined };
    expect(silenceOf({ ...streaming, udpFaultRules: [stop] })?.reason).toMatch(/rule r1: stop on both/);
    const someDrops = { ...stop, action: { type: 'drop' as const, rate: 0.5, burst: 1 } };
    expect(silenceOf({ ...streaming, udpFaultRules: [someDrops] })).toBeNull();
    expect(silenceOf({ ...streaming, udpFaultRules: [{ ...stop, stream: 'imu' as const }] })).toBeNull();
  });
});

describe('the live stream', () => {
  it('on a fresh unit, says at once that udp_dest is not set; in STANDBY, that it is STANDBY', async () => {
    const unit = await createTestSensor();
    try {
      const url = await unit.app.listen({ host: '127.0.0.66', port: 0 });
      const live = await watchLive(url);
      const first = await waitFor(() => live.events[0], 10_000, 'the first event');
      expect(first.event).toBe('idle');
      expect(first.data.code).toBe('no-destination');
      expect(first.data.reason).toMatch(/udp_dest is not set/);
      console.log(`live view, idle unit: first event after ${first.atMs.toFixed(1)} ms`);
      live.close();

      await changeConfig(
        unit.sensor,
        { udp_dest: '127.0.0.1', operating_mode: 'STANDBY' },
        { reinit: true, persist: false },
      );
      const standby = await watchLive(url);
      const next = await waitFor(() => standby.events[0], 10_000, 'the first event in STANDBY');
      expect([next.event, next.data.code]).toEqual(['idle', 'standby']);
      standby.close();
    } finally {
      await unit.close();
    }
  });

  it("while replaying, shows the recording's frame decoded from what is sent", async () => {
    const u = await replayUnit(OS2_LEGACY, ['--replay-loop']);
    await u.listen();
    await waitFor(() => u.lidar.count >= 64, 10_000, 'a pass of the recording');
    const live = await watchLive(u.server.url);
    const first = await waitFor(() => live.events[0], 10_000, 'the first event');
    console.log(`live view, replaying unit: first event (${first.event}) after ${first.atMs.toFixed(1)} ms`);
    expect(['frame', 'waiting']).toContain(first.event);
    const picture = await waitFor(() => live.events.find((e) => e.event === 'frame'), 10_000, 'a picture');
    console.log(`live view, replaying unit: first picture after ${picture.atMs.toFixed(1)} ms`);
    const frame = picture.data;
    live.close();
    expect([frame.width, frame.height, frame.columnsPerFrame]).toEqual([256, 32, 1024]);

    // The test's own picture of the recording's one frame: LEGACY ranges (20 bits, mm) of every 4th column,
    // on the square-root scale of the frame's largest range (pixel_shift_by_row is 0 for this unit).
    const ranges = new Map<number, number[]>();
    for (const d of readReferencePcap(`${OS2_LEGACY}.pcap`)) {
      for (let c = 0; c < 16; c++) {
        const o = c * (16 + 12 * 32 + 4);
        ranges.set(
          d.payload.readUInt16LE(o + 8),
          Array.from({ length: 32 }, (_, p) => d.payload.readUInt32LE(o + 16 + p * 12) & 0xfffff),
        );
      }
    }
    const maxMm = Math.max(...[...ranges.values()].flat());
    expect(frame.rangeScaleMm).toBe(maxMm);
    const scale = 254 / Math.sqrt(maxMm);
    const expected = Buffer.alloc(256 * 32);
    for (let x = 0; x < 256; x++) {
      for (let y = 0; y < 32; y++) {
        const mm = ranges.get(x * 4)?.[y] ?? 0;
        expected[y * 256 + x] = mm === 0 ? 0 : 1 + Math.round(Math.sqrt(mm) * scale);
      }
    }
    expect(Buffer.from(frame.range, 'base64').equals(expected)).toBe(true);
  });
});
