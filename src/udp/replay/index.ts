/**
 * Replay's public entry (loaded lazily: a unit that replays nothing never loads it): recordings,
 * their metadata and errors, the recording command.
 */
export { windowWithin } from './column-window.js';
export { recordedIdentity, recordedProduct } from './recorded-sensor.js';
export { recordedLiveZoneIds } from './recorded-zones.js';
export { RecordingError } from './recording-error.js';
export { describeSurvey, surveyCapture } from './capture-survey.js';
export { defaultMetadataPath, loadRecording, readCaptureDatagrams } from './recording.js';
export { recordingFaults } from './recording-faults.js';
export type { Recording } from './recording.js';
