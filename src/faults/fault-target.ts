/**
 * What fault injection acts on: the device core, and the HAL it drives (a unit from src/unit.ts).
 * The HAL is reached here, not through the core, which keeps its HAL private.
 */
import type { Hal } from '../hal/types.js';
import type { Sensor } from '../sensor/sensor.js';

export interface FaultTarget {
  sensor: Sensor;
  hal: Hal;
}
