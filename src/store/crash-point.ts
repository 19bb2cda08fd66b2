/**
 * Deterministic power-loss injection for the power-loss harness (test/power-loss). A named step
 * calls `crashPoint(step)`; when the process was started with SENSOR_TEST_CRASH_POINTS=1 and
 * SENSOR_CRASH_AT=<step> (or <step>@<n> for the n-th time the step is reached), the process kills
 * itself with SIGKILL right there: no cleanup, no flush, exactly like pulling the power.
 * Without SENSOR_TEST_CRASH_POINTS=1 the hook does nothing, whatever SENSOR_CRASH_AT says.
 */
export const CRASH_POINTS = [
  /** After each chunk of an upload is written to the slot's temporary file. */
  'upload-chunk',
  /** The whole image is in the temporary file, not yet fsync'd. */
  'upload-before-fsync',
  /** Verified and fsync'd, not yet renamed into the slot. */
  'upload-before-rename',
  /** Renamed into the slot, the directory not yet fsync'd. */
  'upload-before-dir-fsync',
  /** The slot file is durable; the slot-state transaction has not run. */
  'upload-before-switch',
  /** The slot-state transaction committed; the client has no answer yet. */
  'upload-after-switch',
  /** The 204 was sent; the unit is going down for its reboot. */
  'reboot-before-boot',
  /** A boot counted its attempt; the chosen image is not running yet. */
  'boot-after-plan',
  /** The trial image is healthy; the commit transaction has not run. */
  'boot-before-commit',
  /** The trial image was committed. */
  'boot-after-commit',
] as const;

/** The steps of rebuilding a damaged database at start (src/store/store-recovery.ts). */
export const RECOVERY_CRASH_POINTS = [
  /** The readable rows are being copied into the new database; it is not complete yet. */
  'recovery-salvaging',
  /** The new database is complete under its temporary name; the damaged one is still in place. */
  'recovery-before-swap',
  /** The damaged database is aside; the new one is not yet in its place. */
  'recovery-mid-swap',
  /** The new database is in place; the unit has not raised CONFIG_INVALID yet. */
  'recovery-before-alert',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number] | (typeof RECOVERY_CRASH_POINTS)[number];

interface Target {
  step: string;
  nth: number;
}

let target: Target | null | undefined;
const passages = new Map<string, number>();

function readTarget(): Target | null {
  if (process.env.SENSOR_TEST_CRASH_POINTS !== '1') return null;
  const spec = process.env.SENSOR_CRASH_AT;
  if (!spec) return null;
  const [step, nth] = spec.split('@');
  return { step, nth: nth === undefined ? 1 : Math.max(1, Number.parseInt(nth, 10) || 1) };
}

export function crashPoint(step: CrashPoint): void {
  target ??= readTarget();
  if (target === null || target.step !== step) return;
  const count = (passages.get(step) ?? 0) + 1;
  passages.set(step, count);
  if (count === target.nth) process.kill(process.pid, 'SIGKILL');
}
