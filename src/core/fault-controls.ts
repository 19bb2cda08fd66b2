/**
 * What the fault plane (src/faults) may change in the device core: the time a restart takes,
 * firmware uploads, a restart itself, and alerts held against what the unit measures. The core hands
 * these out as one object; nothing else of it is open to fault injection.
 */

import type { StorageFaultError } from '../model/index.js';
import type { UploadFilter } from './firmware/firmware-manager.js';

export interface CoreFaultControls {
  /** How long a restart keeps the unit unreachable from now on; undefined: the unit's own setting. */
  setRebootMs(ms: number | undefined): void;
  /** Every firmware upload's body passes through `filter` from now on; undefined: none. */
  setUploadFilter(filter: UploadFilter | undefined): void;
  /** Restarts the unit as `POST` of a reboot would. */
  restart(): Promise<void>;
  /** Raises alert `id` and keeps it active whatever the unit measures, until `releaseAlert`. */
  holdAlert(id: string, vars?: Record<string, string | number>): void;
  releaseAlert(id: string, reason: string): void;
  /** The store's writes fail as a full disk (ENOSPC) or a failing flash (EIO) makes them fail; undefined: they work. */
  setStorageFault(fault: StorageFaultError | undefined): void;
}
