/**
 * The data-plane half of fault injection, inside the emitter worker: every datagram a stream sends
 * passes through `intercept` while at least one UDP rule is set. With no rule the unit's hook
 * (`UdpFaultHook.filter`) is null and a send costs one property read more.
 *
 * The first rule whose stream matches and whose dice say yes acts on a packet; later rules do not
 * see it. Rules with a count are spent after that many packets and report it at once.
 */
import type { UdpFaultRule } from '../../model/index.js';

import type { StreamName } from '../contract/stream-totals.js';
import type { UdpFaultCount } from '../contract/udp-fault-counts.js';

export type SendFn = (bytes: Buffer) => void;

/**
 * `corrupt` inverts 4 bytes: in a lidar packet the last pixel bytes before the 32-byte footer
 * (headers stay readable, the CRC no longer matches); in a small (IMU) packet the middle.
 */
const CORRUPT_LENGTH = 4;
const FOOTER_BYTES = 32;
const corruptOffset = (length: number) =>
  length >= 2 * FOOTER_BYTES ? length - FOOTER_BYTES - CORRUPT_LENGTH : length >> 1;
const REPORT_MS = 200;

interface Held {
  stream: StreamName;
  bytes: Buffer;
  send: SendFn;
}

interface RuleState {
  readonly rule: UdpFaultRule;
  applied: number;
  seen: number;
  spent: boolean;
  /** drop with burst: packets still to drop in the current loss event. */
  burstLeft: number;
  /** reorder: the packet held back per stream (with where it goes), sent after the next one. */
  held: Partial<Record<StreamName, Held>>;
}

export class UdpFaultFilter {
  private readonly states: RuleState[];
  private readonly timer: NodeJS.Timeout;
  private dirty = false;
  /** Packets a removed reorder rule held: they still go out after their successor. */
  private readonly orphans: Partial<Record<StreamName, Held>> = {};
  /** The hook this filter is installed in: it takes itself out once idle. */
  owner: UdpFaultHook | null = null;

  constructor(
    rules: readonly UdpFaultRule[],
    /** Counts of every rule; `spent` lists rules whose count ran out since the last report. */
    private readonly report: (counts: UdpFaultCount[], spent: string[]) => void,
    /** Counts of rules that carry on from the previous filter (a rule was added or removed). */
    carried: readonly UdpFaultCount[] = [],
    orphans: readonly Held[] = [],
    private readonly random: () => number = Math.random,
  ) {
    for (const held of orphans) this.orphans[held.stream] = held;
    const before = new Map(carried.map((c) => [c.id, c]));
    this.states = rules.map((rule) => {
      const { applied = 0, seen = 0 } = before.get(rule.id) ?? {};
      const spent = rule.count !== undefined && applied >= rule.count;
      return { rule, applied, seen, spent, burstLeft: 0, held: {} };
    });
    this.timer = setInterval(() => this.flush([]), REPORT_MS);
    this.timer.unref();
  }

  /** Handles `bytes` (sends, holds or drops it) and returns true, or returns false: send it as usual. */
  intercept(stream: StreamName, bytes: Buffer, send: SendFn): boolean {
    const orphan = this.orphans[stream];
    if (orphan) {
      delete this.orphans[stream];
      send(bytes);
      orphan.send(orphan.bytes);
      if (this.idle && this.owner?.filter === this) {
        this.close();
        this.owner.filter = null;
      }
      return true;
    }
    for (const s of this.states) {
      if (s.rule.stream !== 'both' && s.rule.stream !== stream) continue;
      if (s.rule.action.type === 'frame_rate') {
        // The stream itself is paced at the rule's rate (emitter-run.ts); here its packets are only counted,
        // and the next rule still sees them.
        if (stream === 'lidar') this.count(s);
        continue;
      }
      const held = s.held[stream];
      if (held) {
        // The held packet goes out right after the one that overtook it (also once the rule is spent).
        delete s.held[stream];
        send(bytes);
        held.send(held.bytes);
        return true;
      }
      if (s.spent) continue;
      s.seen++;
      this.dirty = true;
      if (!this.strikes(s)) continue;
      s.applied++;
      this.act(s, stream, bytes, send);
      if (s.rule.count !== undefined && s.applied >= s.rule.count) {
        s.spent = true;
        this.flush([s.rule.id]);
      }
      return true;
    }
    return false;
  }

  /** Stops reporting; returns the packets reorder rules still hold, for the next filter to send. */
  close(): Held[] {
    clearInterval(this.timer);
    this.flush([]);
    const held: Held[] = Object.values(this.orphans);
    for (const s of this.states) held.push(...Object.values(s.held));
    return held;
  }

  /** Nothing to do: no rule and no held packet. */
  get idle(): boolean {
    return this.states.length === 0 && Object.keys(this.orphans).length === 0;
  }

  counts(): UdpFaultCount[] {
    return this.states.map((s) => ({ id: s.rule.id, applied: s.applied, seen: s.seen }));
  }

  private count(s: RuleState): void {
    s.seen++;
    s.applied++;
    this.dirty = true;
  }

  private strikes(s: RuleState): boolean {
    const a = s.rule.action;
    switch (a.type) {
      case 'frame_rate':
        return false;
      case 'pause':
      case 'stop':
        return true;
      case 'drop':
        if (s.burstLeft > 0) {
          s.burstLeft--;
          return true;
        }
        if (this.random() < a.rate / a.burst) {
          s.burstLeft = a.burst - 1;
          return true;
        }
        return false;
      default:
        return a.rate >= 1 || this.random() < a.rate;
    }
  }

  private act(s: RuleState, stream: StreamName, bytes: Buffer, send: SendFn): void {
    const a = s.rule.action;
    switch (a.type) {
      case 'drop':
      case 'pause':
      case 'stop':
      case 'frame_rate':
        return;
      case 'duplicate':
        send(bytes);
        send(bytes);
        return;
      case 'reorder':
        // Streams reuse their buffers: keep a copy.
        s.held[stream] = { stream, bytes: Buffer.from(bytes), send };
        return;
      case 'delay': {
        const copy = Buffer.from(bytes);
        setTimeout(() => send(copy), a.ms).unref();
        return;
      }
      case 'corrupt': {
        const copy = Buffer.from(bytes);
        const from = corruptOffset(copy.length);
        for (let i = from; i < Math.min(copy.length, from + CORRUPT_LENGTH); i++) copy[i] ^= 0xff;
        send(copy);
        return;
      }
      case 'truncate':
        send(bytes.subarray(0, Math.min(a.bytes, bytes.length)));
        return;
    }
  }

  private flush(spent: string[]): void {
    if (!this.dirty && spent.length === 0) return;
    this.dirty = false;
    this.report(this.counts(), spent);
  }
}

/** A unit's current filter in the worker; null when no UDP rule is set (the common case: nothing to check per packet). */
export interface UdpFaultHook {
  filter: UdpFaultFilter | null;
}
