/**
 * The timetable of a recording's replay: when each send is due (ReplaySchedule) and how a loop's later passes move
 * the recording on (LoopPass), one place for the replay stream and for whoever measures it against the timetable.
 */
import type { ReplaySourcePlan } from '../contract/stream-plan.js';
import { type LoopPass, loopPass } from '../replay/loop-pass.js';
import type { Recording } from '../replay/recording.js';
import { firstReplayed, ReplaySchedule } from './replay-schedule.js';

export interface ReplayTimetable {
  schedule: ReplaySchedule;
  loopPass: LoopPass;
  /** Whether send k goes out: a later pass leaves out the IMU packets that would repeat the pass before's time. */
  sends(k: number): boolean;
}

export function replayTimetable(
  recording: Recording,
  plan: Pick<ReplaySourcePlan, 'rate' | 'loop' | 'startOffsetNs' | 'timetableEpochMs'>,
): ReplayTimetable {
  const times = recording.packets.map((p) => p.timeNs);
  const pass = loopPass(recording, firstReplayed(times, plan.startOffsetNs));
  // One sensor's frames come at its frame rate, pass after pass; the units replaying the sensors of one capture
  // keep the capture's own pass, so that they loop together.
  const oneSensor = recording.otherSensors.length === 0;
  const schedule = new ReplaySchedule(
    times,
    recording.passNs,
    plan.rate,
    plan.startOffsetNs,
    plan.loop,
    plan.timetableEpochMs === undefined ? 'first-packet' : 'start-offset',
    oneSensor ? (pass.frameTimeNs ?? undefined) : undefined,
  );
  return {
    schedule,
    loopPass: pass,
    sends: (k) => schedule.passOf(k) === 0 || !pass.repeated.has(schedule.packetOf(k)),
  };
}
