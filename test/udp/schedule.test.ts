import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LAG_MS, SlotCursor } from '../../src/udp/worker/paced-stream.js';
import { StreamSchedule } from '../../src/udp/worker/schedule.js';

describe('StreamSchedule', () => {
  it('puts frames on the sensor clock grid and starts with the slot being measured', () => {
    // Sensor clock 12.345 678 9 s; 10 Hz frames of 64 packets (1.5625 ms each).
    const s = new StreamSchedule(1e8, 64, 12_345_678_900n, 1000);
    expect(s.frameStartSensorNs(0)).toBe(12_300_000_000n);
    // 45.6789 ms into the frame: packet 29 (45.3125 .. 46.875 ms) is in progress, due at its end.
    expect(s.indexOf(0)).toBe(29);
    expect(s.dueLocalMs(0)).toBeCloseTo(1000 + (46.875 - 45.6789), 9);
    expect(s.frameOf(34)).toBe(0);
    expect(s.frameOf(35)).toBe(1);
    expect(s.indexOf(35)).toBe(0);
    expect(s.frameStartSensorNs(1)).toBe(12_400_000_000n);
  });

  it('is absolute: slot k is due at start + k periods whatever happened before (no drift after days)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 62n }),
        fc.constantFrom(32, 64, 128),
        fc.integer({ min: 0, max: 1e9 }),
        (start, ppf, k) => {
          const s = new StreamSchedule(1e8, ppf, start, 0);
          const period = 1e8 / ppf / 1e6;
          expect(s.dueLocalMs(k + ppf * 1000) - s.dueLocalMs(k)).toBeCloseTo(1000 * 100, 3);
          expect(s.dueLocalMs(k + 1) - s.dueLocalMs(k)).toBeCloseTo(period, 6);
          expect(s.frameStartSensorNs(s.frameOf(k) + 1) - s.frameStartSensorNs(s.frameOf(k))).toBe(100_000_000n);
        },
      ),
    );
  });

  it('lastDueSlot agrees exactly with dueLocalMs at and around every boundary', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 60n }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: 5_000_000 }),
        (start, t0, k) => {
          const s = new StreamSchedule(1e8, 128, start, t0);
          const due = s.dueLocalMs(k);
          expect(s.lastDueSlot(due)).toBe(k);
          expect(s.lastDueSlot(due - 1e-3)).toBe(k - 1);
        },
      ),
    );
    expect(new StreamSchedule(1e7, 1, 5n, 0).lastDueSlot(0)).toBe(-1);
  });
});

describe('SlotCursor', () => {
  it('sends every due slot after a short stall and drops what lies beyond the catch-up bound', () => {
    const s = new StreamSchedule(1e8, 128, 0n, 0); // 0.78125 ms slots, first due at 0.78125 ms
    const c = new SlotCursor(s);
    // A 50 ms stall: all 64 slots are still sent.
    expect(c.lastDue(50)).toBe(63);
    expect(c.next).toBe(0);
    c.next = 64;
    // A 1 s stall: only the last MAX_LAG_MS worth of slots are sent.
    const last = c.lastDue(1050);
    const bound = Math.ceil(MAX_LAG_MS / 0.78125);
    expect(last - c.next + 1).toBe(bound);
    expect(c.skipped).toBe(last + 1 - 64 - bound);
  });
});
