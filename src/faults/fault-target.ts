/**
 * What fault injection acts on: the device core, and the HAL it drives (a unit from src/main/unit.ts).
 * The HAL is reached here, not through the core, which keeps its HAL private.
 */
import type { Hal } from '../hal/index.js';
import type { Sensor } from '../core/index.js';

export interface FaultTarget {
  sensor: Sensor;
  hal: Hal;
}
