/** Values of `sensor_info.status` (docs/http-api.md, Status). */
export const SENSOR_STATUSES = [
  'INITIALIZING',
  'WARMUP',
  'UPDATING',
  'RUNNING',
  'STANDBY',
  'ERROR',
  'UNCONFIGURED',
] as const;
export type SensorStatus = (typeof SENSOR_STATUSES)[number];
