/** What a loaded recording holds besides a clean stream, as the lines a replay logs at its start. */
import type { Recording } from './recording.js';

/** Log lines describing what in the recording is not a clean stream (replayed as recorded all the same). */
export function recordingFaults(r: Recording): string[] {
  const s = r.stats;
  const lines: string[] = [];
  if (s.incompleteDatagrams)
    lines.push(`${s.incompleteDatagrams} fragmented datagrams are missing fragments and are not replayed`);
  if (s.otherPortPackets)
    lines.push(
      `${s.otherPortPackets} datagrams to other ports than ${[r.lidarPort, r.imuPort, r.zonePort].filter(Boolean).join('/')} are not replayed`,
    );
  if (r.otherSensors.length) {
    const list = r.otherSensors.map((o) => `${o.address} (${o.lidarPackets} lidar, ${o.imuPackets} IMU)`).join(', ');
    lines.push(
      `the capture holds ${r.otherSensors.length} other sensor(s), ignored (${s.otherSensorPackets} datagrams): ${list}`,
    );
  }
  if (s.partialFrames) lines.push(`${s.partialFrames} of ${s.frames} frames are partial`);
  if (s.missingFrames) lines.push(`${s.missingFrames} frame ids are missing between frames`);
  if (s.malformedPackets) lines.push(`${s.malformedPackets} lidar packets have the wrong size (truncated or corrupt)`);
  if (s.badCrcPackets) lines.push(`${s.badCrcPackets} lidar packets have a CRC that does not match`);
  const badZone = r.packets.filter((p) => p.kind === 'zone' && (!p.wellFormed || p.crcOk === false)).length;
  if (badZone) lines.push(`${badZone} zone packets have the wrong size, type or CRC`);
  return lines;
}
