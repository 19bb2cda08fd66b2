/**
 * The A/B firmware slot state machine, as pure functions of the persisted state. Modelled on the
 * bootloader schemes real units use (U-Boot bootcount, RAUC): an installed image becomes the
 * *trial* slot; every boot of the trial counts one attempt *before* it starts, so a unit that dies
 * while booting it still counts the attempt; a healthy boot commits the trial as the new *primary*;
 * when the attempts are used up the next boot falls back to the primary (rollback).
 *
 *   committed(primary=P) --install(Q)--> pending(primary=P, trial=Q, attempts=0)
 *   pending --boot, attempts < max--> pending(attempts+1), boots Q
 *   pending --boot, attempts = max--> committed(primary=P), boots P, rolled back
 *   pending --Q healthy--> committed(primary=Q)
 *   pending --Q unbootable (fails verification)--> committed(primary=P), rolled back
 *
 * SlotStore persists every transition as one SQLite transaction.
 */
export const SLOT_NAMES = ['a', 'b'] as const;
/** Boots a new image gets to come up healthy before the unit rolls back (`--firmware-boot-attempts`). */
export const DEFAULT_MAX_BOOT_ATTEMPTS = 3;
export type SlotName = (typeof SLOT_NAMES)[number];

/** What a slot holds, as recorded when its image was verified. */
export interface SlotImage {
  imageRev: string;
  /** Lower-case hex digest of the payload (the image header repeats it). */
  payloadSha256: string;
  /** Whole image file size: header + payload. */
  imageLength: number;
  manifest: Readonly<Record<string, string>>;
}

export interface SlotState {
  slots: Readonly<Record<SlotName, SlotImage | null>>;
  /** The committed, known-good slot: booted normally and the rollback target. */
  primary: SlotName;
  /** An installed image waiting to prove itself; booted next. Null when nothing is pending. */
  trial: SlotName | null;
  /** Boots of `trial` started so far. */
  bootAttempts: number;
}

export type BootKind =
  /** No update pending: the primary boots. */
  | 'normal'
  /** The pending image boots, attempt `attempt`. */
  | 'trial'
  /** The pending image used up its attempts: the primary boots again and the update is abandoned. */
  | 'rollback';

export interface BootPlan {
  state: SlotState;
  slot: SlotName;
  kind: BootKind;
  /** For 'trial': which attempt this is (1-based). */
  attempt?: number;
  /** For 'rollback': the image that was abandoned. */
  abandoned?: SlotImage;
}

export function otherSlot(slot: SlotName): SlotName {
  return slot === 'a' ? 'b' : 'a';
}

export function commitPending(state: SlotState): boolean {
  return state.trial !== null;
}

/** The state of a unit fresh from the factory: its image in slot a, committed. */
export function factoryState(image: SlotImage): SlotState {
  return { slots: { a: image, b: null }, primary: 'a', trial: null, bootAttempts: 0 };
}

/** Why an image cannot be installed now, or undefined when it can. */
export function installProblem(state: SlotState): string | undefined {
  if (state.trial !== null)
    return 'a firmware update is already waiting to be committed; wait until commit_pending is false';
  return undefined;
}

/** The slot an upload is written to: never the primary, which is the rollback target. */
export function installTarget(state: SlotState): SlotName {
  return otherSlot(state.primary);
}

/** The verified image now in the non-primary slot becomes the trial: the next boot tries it. */
export function install(state: SlotState, image: SlotImage): SlotState {
  const problem = installProblem(state);
  if (problem) throw new Error(problem);
  const target = installTarget(state);
  return { slots: { ...state.slots, [target]: image }, primary: state.primary, trial: target, bootAttempts: 0 };
}

/**
 * Decides what the starting boot runs. The returned state must be persisted before the chosen
 * image runs at all, so an attempt that never finishes is still counted.
 */
export function planBoot(state: SlotState, maxBootAttempts: number): BootPlan {
  if (!Number.isInteger(maxBootAttempts) || maxBootAttempts < 1)
    throw new RangeError('maxBootAttempts must be a positive integer');
  if (state.trial === null) return { state, slot: state.primary, kind: 'normal' };
  if (state.bootAttempts >= maxBootAttempts) {
    return {
      state: abandonTrial(state),
      slot: state.primary,
      kind: 'rollback',
      abandoned: state.slots[state.trial] ?? undefined,
    };
  }
  const attempt = state.bootAttempts + 1;
  return { state: { ...state, bootAttempts: attempt }, slot: state.trial, kind: 'trial', attempt };
}

/** The running image reached RUNNING with its configuration loaded: a trial becomes the primary. */
export function markHealthy(state: SlotState, running: SlotName): SlotState {
  if (state.trial !== running) return state;
  return { ...state, primary: running, trial: null, bootAttempts: 0 };
}

/** The trial cannot boot at all (its file fails verification): give it up without spending attempts. */
export function abandonTrial(state: SlotState): SlotState {
  return { ...state, trial: null, bootAttempts: 0 };
}

/** Structural checks of a state read back from storage. */
export function stateProblem(state: SlotState): string | undefined {
  if (!SLOT_NAMES.includes(state.primary)) return `primary slot "${state.primary}" is not a or b`;
  if (state.slots[state.primary] === null) return `primary slot ${state.primary} holds no image`;
  if (state.trial !== null) {
    if (state.trial === state.primary) return 'trial slot equals primary slot';
    if (state.slots[state.trial] === null) return `trial slot ${state.trial} holds no image`;
  }
  if (!Number.isInteger(state.bootAttempts) || state.bootAttempts < 0)
    return `boot attempts ${state.bootAttempts} is invalid`;
  return undefined;
}
