/**
 * The diagnostic dump, loaded lazily on the first GET of a dump (it brings the archive writer).
 */
export { createSensorDump, dumpFileName, sensorDumpSections } from './sensor-dump.js';
export type { DumpSource, RecentLog, SensorDump } from './sensor-dump.js';
