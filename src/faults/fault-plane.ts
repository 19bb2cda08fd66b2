/**
 * The fault-injection plane of one unit: the set of rules, their lifetimes and what each has done.
 * UDP rules go to the emitter worker (which counts and reports), HTTP rules are consulted by the
 * sensor API's fault hook (src/routes/http/http-faults.ts), unit rules start a state fault (unit-faults.ts).
 */
import type { Logger } from 'pino';
import {
  ApiError,
  type FaultRuleSpec,
  type FaultRuleView,
  type FieldError,
  type HttpAction,
  notFound,
  type UdpAction,
  type UdpFaultRule,
  utcIsoString,
} from '../model/index.js';
import type { FaultTarget } from './fault-target.js';
import { validateFaultRule } from './rule-validation.js';
import type { UdpFaultCount } from '../udp/index.js';
import { faultPort, type StreamFaults } from '../hal/index.js';
import { UnitFaults, type UnitTiming } from './unit-faults.js';

/** How many ended rules GET still shows (with their final counts). */
const ENDED_KEPT = 32;

interface Rule {
  readonly id: string;
  readonly spec: FaultRuleSpec;
  readonly added: string;
  applied: number;
  seen: number;
  timer?: NodeJS.Timeout;
  end?: () => void;
  /** http rules: their path pattern. */
  pattern?: RegExp;
}

export interface EndedRule extends FaultRuleView {
  ended: string;
  reason: string;
}

/** A 400 naming every mistake; nothing was added. */
export function invalidRule(errors: FieldError[]): ApiError {
  const where = (e: FieldError) => `${e.pointer || 'body'}: ${e.detail}`;
  const problems = `${errors.length} problem${errors.length > 1 ? 's' : ''}`;
  const detail = `the fault rule is invalid (${problems}); nothing was added: ${errors.map(where).join('; ')}`;
  return new ApiError('bad-request', detail, errors);
}

/** A fault rule as the plane takes it, defaults filled in; a 400 naming every mistake otherwise. */
export function checkedFaultRule(input: unknown): FaultRuleSpec {
  const { rule, errors } = validateFaultRule(input);
  if (!rule) throw invalidRule(errors);
  return rule;
}

/** `*` matches any run of characters; everything else literally. */
export function pathPattern(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

export interface FaultPlaneOptions {
  log: Logger;
  /** Durations of reinit and restart when no rule says otherwise (`--realistic-timing`). */
  timing: UnitTiming;
}

export class FaultPlane {
  private readonly rules = new Map<string, Rule>();
  private readonly ended: EndedRule[] = [];
  private nextId = 1;
  private readonly unit: UnitFaults;
  /** The data streams' fault port (undefined: this unit's data plane takes no packet rules). */
  private readonly streams: StreamFaults | undefined;
  private readonly log: Logger;
  /** HTTP rules in the order added, for the per-request check (empty: the hook does nothing). */
  httpRules: readonly Rule[] = [];
  /** How many rules the emitter worker holds (unit rules change it only through link_down). */
  private udpRuleCount = 0;

  constructor(target: FaultTarget, options: FaultPlaneOptions) {
    this.log = options.log;
    this.unit = new UnitFaults(target, options.timing, options.log);
    this.streams = faultPort(target.hal).streams;
    this.streams?.onCounts((counts, spent) => this.onUdpCounts(counts, spent));
  }

  /** Validates and starts a rule; a 400 names every mistake, a 409 says why this unit cannot do it. */
  add(input: unknown): FaultRuleView {
    return this.start(checkedFaultRule(input));
  }

  /** Starts a rule `checkedFaultRule` accepted; a 409 says why this unit cannot do it. */
  start(spec: FaultRuleSpec): FaultRuleView {
    if (spec.selector.plane === 'udp' && !this.streams)
      throw new ApiError('conflict', 'this unit has no simulated data plane to inject UDP faults into');
    const id = `f${this.nextId++}`;
    const rule: Rule = { id, spec, added: utcIsoString(Date.now()), applied: 0, seen: 0 };
    switch (spec.selector.plane) {
      case 'unit':
        rule.end = this.unit.start(
          id,
          spec.action as Extract<FaultRuleSpec, { selector: { plane: 'unit' } }>['action'],
        );
        rule.applied = 1;
        break;
      case 'http':
        rule.pattern = pathPattern(spec.selector.path);
        break;
      case 'udp':
        break;
    }
    this.rules.set(id, rule);
    this.log.info(
      { fault: id, selector: spec.selector, action: spec.action, lifetime: spec.lifetime },
      'fault rule added',
    );
    const oneShot = spec.selector.plane === 'unit' && spec.action.type === 'restart';
    if (oneShot) {
      this.remove(id, 'done');
    } else {
      if (spec.lifetime.duration_ms) {
        rule.timer = setTimeout(() => this.remove(id, 'duration elapsed'), spec.lifetime.duration_ms);
        rule.timer.unref();
      }
      this.refreshPlanes(spec.selector.plane);
    }
    return this.view(rule);
  }

  list(): { rules: FaultRuleView[]; ended: EndedRule[] } {
    return { rules: [...this.rules.values()].map((r) => this.view(r)), ended: [...this.ended] };
  }

  get(id: string): FaultRuleView | EndedRule {
    const rule = this.rules.get(id);
    if (rule) return this.view(rule);
    const ended = this.ended.find((e) => e.id === id);
    if (ended) return ended;
    throw notFound(`no fault rule ${JSON.stringify(id)}; GET /faults lists them`);
  }

  /** Ends a rule (its effect stops); false when there is no such active rule. */
  remove(id: string, reason = 'removed'): boolean {
    const rule = this.rules.get(id);
    if (!rule) return false;
    this.rules.delete(id);
    clearTimeout(rule.timer);
    rule.end?.();
    this.ended.push({ ...this.view(rule), ended: utcIsoString(Date.now()), reason });
    if (this.ended.length > ENDED_KEPT) this.ended.shift();
    this.log.info({ fault: id, reason, applied: rule.applied }, 'fault rule ended');
    this.refreshPlanes(rule.spec.selector.plane);
    return true;
  }

  /** Ends every rule; returns how many there were. */
  clear(): number {
    const ids = [...this.rules.keys()];
    for (const id of ids) this.remove(id, 'removed');
    return ids.length;
  }

  /**
   * The HTTP rule that acts on this request (counted as seen), or undefined. It counts as applied at once,
   * except a `truncate`: only once the hook has cut a body (`applied()`), so a streamed answer it cannot cut
   * (a diagnostics dump) is not reported as changed.
   */
  httpFault(method: string, path: string): { action: HttpAction; applied(): void } | undefined {
    for (const rule of this.httpRules) {
      const selector = rule.spec.selector as Extract<FaultRuleSpec['selector'], { plane: 'http' }>;
      if (selector.method !== '*' && selector.method !== method) continue;
      if (!rule.pattern!.test(path)) continue;
      rule.seen++;
      const action = rule.spec.action as HttpAction;
      const applied = () => {
        rule.applied++;
        const count = rule.spec.lifetime.count;
        if (count !== undefined && rule.applied >= count) this.remove(rule.id, 'count reached');
      };
      if (action.type === 'truncate') return { action, applied };
      applied();
      return { action, applied: () => undefined };
    }
    return undefined;
  }

  close(): void {
    this.clear();
    this.unit.close();
    this.streams?.onCounts(undefined);
  }

  private view(rule: Rule): FaultRuleView {
    const { selector, action, lifetime } = rule.spec;
    return { id: rule.id, selector, action, lifetime, added: rule.added, applied: rule.applied, seen: rule.seen };
  }

  private refreshPlanes(plane: FaultRuleSpec['selector']['plane']): void {
    const active = [...this.rules.values()];
    if (plane === 'http') this.httpRules = active.filter((r) => r.spec.selector.plane === 'http');
    // A link that is down carries no packets either: link_down rules withhold both streams while they live.
    if ((plane === 'udp' || plane === 'unit') && this.streams) {
      const udp: UdpFaultRule[] = [];
      for (const { id, spec } of active) {
        if (spec.selector.plane === 'udp') {
          udp.push({ id, stream: spec.selector.stream, action: spec.action as UdpAction, count: spec.lifetime.count });
        } else if (spec.selector.plane === 'unit' && spec.action.type === 'link_down') {
          udp.push({ id, stream: 'both', action: { type: 'stop' }, count: undefined });
        }
      }
      if (plane === 'udp' || udp.length !== this.udpRuleCount) this.streams.setRules(udp);
      this.udpRuleCount = udp.length;
    }
  }

  private onUdpCounts(counts: UdpFaultCount[], spent: string[]): void {
    for (const c of counts) {
      // The worker's last report of a rule may come after the rule ended (its duration elapsed).
      const rule = this.rules.get(c.id) ?? this.ended.find((e) => e.id === c.id);
      if (rule) {
        rule.applied = c.applied;
        rule.seen = c.seen;
      }
    }
    for (const id of spent) this.remove(id, 'count reached');
  }
}
