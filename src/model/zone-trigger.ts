/**
 * Zone Monitor's triggering rules, one frame at a time (docs/zone-monitor.md, Triggering): OCCUPANCY
 * meets its criterion when at least `point_count` returns lie in the zone, VACANCY when fewer do; a zone
 * is triggered once the criterion has held for `frame_count` consecutive frames, and clears on the
 * first frame it does not hold.
 */
import type { ZoneMode } from './zone-set-rules.js';

export interface ZoneTriggerRule {
  mode: ZoneMode;
  pointCount: number;
  frameCount: number;
}

/** Consecutive frames the criterion has held (saturating at u32); the zone is triggered from frameCount on. */
export function nextMetFrames(rule: ZoneTriggerRule, count: number, metFrames: number): number {
  const met = rule.mode === 'OCCUPANCY' ? count >= rule.pointCount : count < rule.pointCount;
  return met ? Math.min(metFrames + 1, 0xffffffff) : 0;
}

export function isTriggered(rule: ZoneTriggerRule, metFrames: number): boolean {
  return metFrames >= rule.frameCount;
}
