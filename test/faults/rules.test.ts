/**
 * Rule validation (every mistake named, defaults filled in), scenario parsing, and the UDP filter's
 * arithmetic with a scripted random source.
 */
import { describe, expect, it } from 'vitest';
import { actionNames } from '../../src/faults/fault-action-params.js';
import { validateFaultRule } from '../../src/faults/rule-validation.js';
import { parseScenario } from '../../src/faults/scenario.js';
import { UdpFaultFilter } from '../../src/udp/worker/udp-fault-filter.js';
import { describeRule, ruleFromArgs } from '../../src/faults/faults-cli.js';
import { pathPattern } from '../../src/faults/fault-plane.js';

const pointers = (input: unknown) =>
  validateFaultRule(input)
    .errors.map((e) => e.pointer)
    .sort();

describe('fault rule validation', () => {
  it('fills in defaults', () => {
    expect(validateFaultRule({ selector: { plane: 'udp' }, action: { type: 'drop' } }).rule).toEqual({
      selector: { plane: 'udp', stream: 'both' },
      action: { type: 'drop', rate: 1, burst: 1 },
      lifetime: {},
    });
    expect(
      validateFaultRule({ selector: { plane: 'http', method: 'get' }, action: { type: 'status', status: 503 } }).rule,
    ).toMatchObject({
      selector: { plane: 'http', path: '*', method: 'GET' },
      action: { type: 'status', status: 503, retry_after_s: 1 },
    });
    expect(
      validateFaultRule({ selector: { plane: 'unit' }, action: { type: 'alert', id: 'OVERTEMP_ERROR' } }).rule?.action,
    ).toEqual({ type: 'alert', id: '0x01000061', vars: {} });
    expect(
      validateFaultRule({ selector: { plane: 'udp' }, action: { type: 'pause', ms: 250 } }).rule?.lifetime,
    ).toEqual({ duration_ms: 250 });
  });

  it('takes a lidar frame_rate rule, refuses it on the IMU and with a count, and names wrong values by value', () => {
    expect(
      validateFaultRule({ selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'frame_rate', hz: 9.5 } }).rule,
    ).toEqual({ selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'frame_rate', hz: 9.5 }, lifetime: {} });
    expect(
      pointers({
        selector: { plane: 'udp', stream: 'imu' },
        action: { type: 'frame_rate', hz: 5 },
        lifetime: { count: 3 },
      }),
    ).toEqual(['/lifetime/count', '/selector/stream']);
    const { errors } = validateFaultRule({ selector: { plane: 'udp' }, action: { type: 'drop', rate: 75 } });
    expect(errors).toEqual([{ pointer: '/action/rate', detail: 'must be a number > 0 and <= 1; got 75' }]);
    const wrongType = validateFaultRule({ selector: { plane: 'udp' }, action: { type: 'frame_rate', hz: true } });
    expect(wrongType.errors[0]?.detail).toMatch(/got true$/);
    const wrongText = validateFaultRule({ selector: { plane: 'udp' }, action: { type: 'frame_rate', hz: '10' } });
    expect(wrongText.errors[0]?.detail).toMatch(/got "10"$/);
  });

  it('names every mistake at once', () => {
    expect(
      pointers({
        selector: { plane: 'udp', stream: 'x', extra: 1 },
        action: { type: 'delay', rate: 0 },
        lifetime: { count: 1.5, forever: true },
      }),
    ).toEqual([
      '/action/ms',
      '/action/rate',
      '/lifetime/count',
      '/lifetime/forever',
      '/selector/extra',
      '/selector/stream',
    ]);
    expect(
      pointers({
        selector: { plane: 'http', path: 'metadata', method: 'FETCH' },
        action: { type: 'status', status: 502 },
      }),
    ).toEqual(['/action/status', '/selector/method', '/selector/path']);
    expect(
      pointers({ selector: { plane: 'unit' }, action: { type: 'alert', id: '0x01999999' }, lifetime: { count: 2 } }),
    ).toEqual(['/action/id', '/lifetime/count']);
    expect(pointers({ selector: { plane: 'moon' }, action: 'drop' })).toEqual(['/action', '/selector/plane']);
    expect(pointers([])).toEqual(['']);
  });

  it('lists the valid actions of the plane in the message', () => {
    const { errors } = validateFaultRule({ selector: { plane: 'http' }, action: { type: 'drop' } });
    expect(errors[0].detail).toContain(
      actionNames('http')
        .map((a) => JSON.stringify(a))
        .join(', '),
    );
  });

  it('refuses a count on pause and stop', () => {
    expect(pointers({ selector: { plane: 'udp' }, action: { type: 'stop' }, lifetime: { count: 5 } })).toEqual([
      '/lifetime/count',
    ]);
  });
});

describe('scenario files', () => {
  it('reads YAML steps and names mistakes by step', () => {
    const ok = parseScenario('steps:\n  - at_ms: 100\n    selector: {plane: unit}\n    action: {type: restart}\n');
    expect(ok.errors).toEqual([]);
    expect(ok.steps).toEqual([
      { atMs: 100, rule: { selector: { plane: 'unit' }, action: { type: 'restart' }, lifetime: {} } },
    ]);
    const json = parseScenario('[{"selector":{"plane":"udp"},"action":{"type":"stop"}}]');
    expect(json.steps[0].atMs).toBe(0);
    const bad = parseScenario(
      'steps:\n  - at_ms: -1\n    selector: {plane: udp}\n    action: {type: drop, rate: 7}\n  - 3\n',
    );
    expect(bad.errors.map((e) => e.pointer)).toEqual(['/steps/0/at_ms', '/steps/0/action/rate', '/steps/1']);
    expect(parseScenario('steps: [').errors[0].detail).toMatch(/not valid YAML/);
  });
});

describe('the UDP filter', () => {
  const packet = (n: number) => Buffer.from([n, 0, 0, 0, 0, 0, 0, 0]);

  it('drops in bursts with probability rate / burst per event, and is spent after `count`', () => {
    // Dice: strike on the 2nd packet (0.01 < 0.5/5), then the burst runs 4 more.
    const dice = [0.9, 0.01, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9];
    const sent: number[] = [];
    const spentIds: string[] = [];
    const filter = new UdpFaultFilter(
      [{ id: 'f1', stream: 'lidar', action: { type: 'drop', rate: 0.5, burst: 5 }, count: 5 }],
      (_counts, spent) => spentIds.push(...spent),
      [],
      [],
      () => dice.shift() ?? 0.9,
    );
    for (let n = 0; n < 10; n++) {
      const b = packet(n);
      if (!filter.intercept('lidar', b, (x) => sent.push(x[0]))) sent.push(n);
    }
    expect(sent).toEqual([0, 6, 7, 8, 9]);
    expect(spentIds).toEqual(['f1']);
    expect(filter.counts()).toEqual([{ id: 'f1', applied: 5, seen: 6 }]);
    filter.close();
  });

  it('acts only on its stream and hands over what a reorder rule holds', () => {
    const sent: number[] = [];
    const send = (x: Buffer) => sent.push(x[0]);
    const first = new UdpFaultFilter(
      [{ id: 'f1', stream: 'imu', action: { type: 'reorder', rate: 1 }, count: undefined }],
      () => undefined,
    );
    expect(first.intercept('lidar', packet(1), send)).toBe(false);
    expect(first.intercept('imu', packet(2), send)).toBe(true);
    const held = first.close();
    const next = new UdpFaultFilter([], () => undefined, first.counts(), held);
    expect(next.idle).toBe(false);
    expect(next.intercept('imu', packet(3), send)).toBe(true);
    expect(sent).toEqual([3, 2]);
    expect(next.idle).toBe(true);
  });
});

describe('helpers', () => {
  it('path patterns match `*` as anything, the rest literally', () => {
    expect(pathPattern('/api/v1/sensor/metadata*').test('/api/v1/sensor/metadata/sensor_info')).toBe(true);
    expect(pathPattern('/api/v1/sensor/metadata*').test('/api/v1/sensor/config')).toBe(false);
    expect(pathPattern('/a.b').test('/axb')).toBe(false);
  });

  it('the CLI builds a rule from its words', () => {
    expect(ruleFromArgs(['udp:lidar', 'drop', 'rate=0.05', 'burst=3'], { for: '2000' })).toEqual({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'drop', rate: 0.05, burst: 3 },
      lifetime: { duration_ms: 2000 },
    });
    expect(ruleFromArgs(['http:/api/*', 'close'], { count: '2', method: 'PUT' })).toEqual({
      selector: { plane: 'http', path: '/api/*', method: 'PUT' },
      action: { type: 'close' },
      lifetime: { count: 2 },
    });
    expect(() => ruleFromArgs(['tcp', 'drop'], {})).toThrow(/PLANE/);
  });

  // A unit rule acts on the unit, not on packets or requests passing by: "applied 1 of 0 seen" said nonsense.
  it('faults list counts what a rule saw only where it sees something', () => {
    const unit = {
      id: 'f1',
      selector: { plane: 'unit' },
      action: { type: 'link_down' },
      lifetime: {},
      applied: 1,
      seen: 0,
    };
    expect(describeRule(unit)).toMatch(/\[until removed\] {2}applied 1$/);
    const udp = {
      ...unit,
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'drop' },
      applied: 3,
      seen: 60,
    };
    expect(describeRule(udp)).toMatch(/applied 3 of 60 seen$/);
  });
});
