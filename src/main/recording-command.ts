/**
 * `lidar-sensor recording info FILE.pcap [--metadata FILE.json]`: what a recording holds, without
 * starting a unit: every sensor the capture holds (by sending address), and with metadata (given, or
 * the .json beside the capture) the summary of the replay of that sensor. Exit 0 with the summary; 2
 * with one line when the file cannot be replayed.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
// Loaded only for this command (cli-command.ts imports this module lazily), so replay stays lazy too.
import {
  defaultMetadataPath,
  describeSurvey,
  loadRecording,
  readCaptureDatagrams,
  type Recording,
  RecordingError,
  recordingFaults,
  surveyCapture,
} from '../udp/replay/index.js';

/** The lidar packets' header: the metadata's header_type, or the profile's own; LEGACY packets have none. */
const headerOf = (r: Recording) => (r.layout.header === 'LEGACY' ? 'no' : r.layout.header);

function describeRecording(r: Recording): string {
  const s = r.stats;
  const info = r.metadata.sensorInfo;
  const mode = r.metadata.configParams.lidar_mode ?? `${r.columnsPerFrame}x?`;
  const rows: [string, string][] = [
    ['file', `${r.file} (${s.format})`],
    ['metadata', r.metadataFile],
    ['sensor', `${info.prod_line} ${info.prod_pn} serial ${info.prod_sn}`],
    ['firmware', info.image_rev],
    ['initialization_id', String(info.initialization_id)],
    ['profile', `${r.profile} (${headerOf(r)} header; IMU ${r.metadata.dataFormat.udp_profile_imu})`],
    [
      'mode',
      `${String(mode)}, ${r.pixels} pixels per column, column window ${r.metadata.dataFormat.column_window.join('..')}`,
    ],
    [
      'packets',
      `${s.lidarPackets} lidar (port ${r.lidarPort}), ${s.imuPackets} IMU (port ${r.imuPort}), ` +
        `${r.zonePort ? `${s.zonePackets} zone (port ${r.zonePort}), ` : ''}${s.otherPortPackets} other`,
    ],
    ['frames', `${s.frames} (${s.completeFrames} complete, ${s.partialFrames} partial)`],
    ['duration', `${(s.durationNs / 1e9).toFixed(3)} s`],
    [
      'gaps',
      `${s.missingFrames} missing frame ids; ` +
        `${s.malformedPackets} malformed and ${s.badCrcPackets} bad-CRC lidar packets`,
    ],
    [
      'fragments',
      `${s.fragments} IP fragments, ${s.incompleteDatagrams} datagrams incomplete, ${s.captureFrames} captured frames`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const faults = recordingFaults(r).map((f) => `note: ${f}`);
  return [...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`), ...faults].join('\n');
}

/** Entry of the subcommand, given process.argv (`node cli.js recording …`). Returns the exit code. */
export function runRecordingCommand(processArgv: readonly string[]): number {
  const argv = processArgv.slice(3);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { metadata: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`lidar-sensor recording: ${(error as Error).message}\n`);
    return 2;
  }
  const usage = 'Usage: lidar-sensor recording info FILE.pcap [--metadata FILE.json] [--json]\n';
  if (parsed.values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const [action, file, ...rest] = parsed.positionals;
  if (action !== 'info' || !file || rest.length) {
    process.stderr.write(usage);
    return 2;
  }
  try {
    const sensors = surveyCapture(readCaptureDatagrams(file).extraction.datagrams);
    // Without metadata (none given, none beside the capture) the list of sensors is the whole answer.
    const metadata = parsed.values.metadata ?? defaultMetadataPath(file);
    const r = parsed.values.metadata !== undefined || existsSync(metadata) ? loadRecording(file, metadata) : null;
    const summary = parsed.values.json
      ? JSON.stringify({
          file,
          ...(r && {
            metadata: r.metadataFile,
            sensor: r.metadata.sensorInfo,
            profile: r.profile,
            headerType: r.layout.header,
            lidarMode: r.metadata.configParams.lidar_mode,
            stats: r.stats,
          }),
          sensors,
        })
      : [...(r ? [describeRecording(r)] : []), describeSurvey(sensors)].join('\n');
    process.stdout.write(`${summary}\n`);
    return 0;
  } catch (error) {
    if (error instanceof RecordingError) {
      process.stderr.write(`lidar-sensor: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
