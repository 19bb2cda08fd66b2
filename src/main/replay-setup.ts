/**
 * Everything `--replay` changes about a unit, prepared before it starts: the recording loaded and
 * checked (a bad file stops the start with one line), the recorded unit's identity, what the recording
 * fixes in the configuration, and the replay settings the data plane gets.
 */
import type { ReplaySettings } from '../udp/index.js';
import type { ReplayAnnouncement, SensorIdentity } from '../model/index.js';
import type { RecordingBinding } from '../core/index.js';
import {
  loadRecording,
  recordedIdentity,
  recordedLiveZoneIds,
  recordedProduct,
  type Recording,
  RecordingError,
  recordingFaults,
} from '../udp/replay/index.js';
import { createRecordingBinding, recordedParameters } from './recording-binding.js';
import { basename, resolve } from 'node:path';
import type { OptionsOf } from './cli-options.js';

export interface ReplaySetup {
  recording: Recording;
  identity: SensorIdentity;
  binding: RecordingBinding;
  settings: ReplaySettings;
  /** What in the recording is not a clean stream, for the log. */
  faults: string[];
  /** What the unit states about the replay in its OpenAPI document (src/model/replay-announcement.ts). */
  announcement: ReplayAnnouncement;
}

/** The `--replay*` options (src/main/cli-options.ts). */
export type ReplayOptions = OptionsOf<'replay'>;

/**
 * A start after the last replayed packet leaves a unit that answers HTTP and streams nothing, pass after pass,
 * with no word: refused at start, naming where the recording ends.
 */
function refuseStartPastEnd(recording: Recording, startS: number): void {
  const lastNs = recording.packets.at(-1)?.timeNs ?? 0;
  if (startS * 1e9 > lastNs)
    throw new RecordingError(
      `--replay-start ${startS} s is past the end of the recording (its last packet is at ${(lastNs / 1e9).toFixed(3)} s)`,
    );
}

/** Throws RecordingError when the recording cannot be replayed. */
export function prepareReplay(options: ReplayOptions): ReplaySetup {
  if (!options.replay) throw new Error('prepareReplay needs options.replay');
  // Absolute paths: the emitter worker loads the file again by name.
  const file = resolve(options.replay);
  const recording = loadRecording(file, options.metadata ? resolve(options.metadata) : undefined);
  refuseStartPastEnd(recording, options.replayStartS);
  const product = recordedProduct(recording.metadata);
  const identity = recordedIdentity(recording.metadata, product);
  // The packets' header is the data format's header_type (firmware 3.2), which config_params may lack.
  const headerType = recording.metadata.dataFormat.header_type;
  const configParams = { ...recording.metadata.configParams, ...(headerType ? { header_type: headerType } : {}) };
  const recorded = recordedParameters(configParams, recording.profile);
  // The recorded lidar_mode, when the metadata lacks it, follows from the frame width (10 Hz assumed).
  if (recording.metadata.configParams.lidar_mode === undefined) {
    const mode = `${recording.columnsPerFrame}x10`;
    if (['512x10', '1024x10', '2048x10'].includes(mode))
      recorded.lidar_mode = mode as NonNullable<typeof recorded.lidar_mode>;
  }
  const binding = createRecordingBinding(
    recording.metadata.sensorInfo.initialization_id,
    recorded,
    basename(file),
    recording.metadata.dataFormat.column_window,
  );
  const zip = recording.metadata.zoneSet;
  return {
    recording,
    identity,
    binding: zip ? { ...binding, zoneSet: { zip, liveIds: recordedLiveZoneIds(recording) } } : binding,
    settings: {
      file,
      metadataFile: recording.metadataFile,
      rate: options.replayRate,
      loop: options.replayLoop,
      startOffsetNs: Math.round(options.replayStartS * 1e9),
      timetableEpochMs: options.replayTimetableMs,
    },
    faults: recordingFaults(recording),
    announcement: replayAnnouncement(recording, file),
  };
}

function replayAnnouncement({ stats }: Recording, file: string): ReplayAnnouncement {
  return {
    recording: basename(file),
    packets: { lidar: stats.lidarPackets, imu: stats.imuPackets, zone: stats.zonePackets },
    frames: { complete: stats.completeFrames, partial: stats.partialFrames, missing: stats.missingFrames },
  };
}
