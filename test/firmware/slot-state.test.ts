import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abandonTrial,
  commitPending,
  factoryState,
  install,
  installProblem,
  markHealthy,
  planBoot,
  stateProblem,
  type SlotImage,
  type SlotState,
} from '../../src/model/slot-state.js';

const image = (n: number): SlotImage => ({
  imageRev: `ousteros-image-prod-bootes-v3.${n}.0+20250101120000`,
  payloadSha256: String(n).padStart(64, '0'),
  imageLength: 100 + n,
  manifest: {},
});
const MAX = 3;

describe('firmware slot state machine', () => {
  it('installs into the non-primary slot and boots it as a trial', () => {
    const s0 = factoryState(image(1));
    const s1 = install(s0, image(2));
    expect(s1).toMatchObject({ primary: 'a', trial: 'b', bootAttempts: 0 });
    expect(s1.slots.b).toEqual(image(2));
    expect(commitPending(s1)).toBe(true);
    const boot = planBoot(s1, MAX);
    expect(boot).toMatchObject({ slot: 'b', kind: 'trial', attempt: 1 });
    expect(boot.state.bootAttempts).toBe(1);
    const committed = markHealthy(boot.state, 'b');
    expect(committed).toMatchObject({ primary: 'b', trial: null, bootAttempts: 0 });
    expect(commitPending(committed)).toBe(false);
    // The next update goes to slot a, keeping b (now committed) as the rollback target.
    expect(install(committed, image(3))).toMatchObject({ primary: 'b', trial: 'a' });
  });

  it('rolls back after the allowed number of failed boots', () => {
    let state = install(factoryState(image(1)), image(2));
    for (let attempt = 1; attempt <= MAX; attempt++) {
      const plan = planBoot(state, MAX);
      expect(plan).toMatchObject({ slot: 'b', kind: 'trial', attempt });
      state = plan.state;
    }
    const rollback = planBoot(state, MAX);
    expect(rollback).toMatchObject({ slot: 'a', kind: 'rollback' });
    expect(rollback.abandoned).toEqual(image(2));
    expect(rollback.state).toMatchObject({ primary: 'a', trial: null, bootAttempts: 0 });
    expect(planBoot(rollback.state, MAX)).toMatchObject({ slot: 'a', kind: 'normal' });
  });

  it('refuses a second install while one is pending', () => {
    const pending = install(factoryState(image(1)), image(2));
    expect(installProblem(pending)).toMatch(/commit_pending/);
    expect(() => install(pending, image(3))).toThrow(/commit_pending/);
  });

  it('ignores health reports of a slot that is not on trial', () => {
    const pending = install(factoryState(image(1)), image(2));
    expect(markHealthy(pending, 'a')).toBe(pending);
  });

  it('keeps its invariants under any sequence of events', () => {
    type Event = { kind: 'install'; n: number } | { kind: 'boot' } | { kind: 'healthy' } | { kind: 'abandon' };
    const event = fc.oneof(
      fc.record({ kind: fc.constant('install' as const), n: fc.integer({ min: 2, max: 9 }) }),
      fc.constant({ kind: 'boot' as const }),
      fc.constant({ kind: 'healthy' as const }),
      fc.constant({ kind: 'abandon' as const }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events: Event[]) => {
        let state: SlotState = factoryState(image(1));
        let running = state.primary;
        // Boots of the current trial: never more than MAX before it is committed or abandoned.
        let trialBoots = 0;
        for (const e of events) {
          const before = state;
          if (e.kind === 'install') {
            if (installProblem(state)) continue;
            state = install(state, image(e.n));
            trialBoots = 0;
            // The committed image is never overwritten by an install.
            expect(state.slots[state.primary]).toEqual(before.slots[before.primary]);
          } else if (e.kind === 'boot') {
            const plan = planBoot(state, MAX);
            state = plan.state;
            running = plan.slot;
            if (plan.kind === 'trial') trialBoots++;
            expect(trialBoots).toBeLessThanOrEqual(MAX);
            if (plan.kind !== 'trial') expect(plan.slot).toBe(before.primary);
          } else if (e.kind === 'healthy') {
            state = markHealthy(state, running);
            if (before.trial === running) expect(state.primary).toBe(running);
            else expect(state).toBe(before);
          } else {
            state = abandonTrial(state);
          }
          if (state.trial === null) trialBoots = 0;
          expect(stateProblem(state)).toBeUndefined();
          // The primary only ever changes by a trial being confirmed healthy.
          if (state.primary !== before.primary) expect(e.kind).toBe('healthy');
          expect(commitPending(state)).toBe(state.trial !== null);
        }
      }),
      { numRuns: 300 },
    );
  });
});
