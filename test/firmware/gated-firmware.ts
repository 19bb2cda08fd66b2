/** A firmware HAL wrapper for tests: records every boot and can hold a boot until released. */
import type { FirmwareHal } from '../../src/hal/firmware.js';
import type { BootKind } from '../../src/model/slot-state.js';

export interface GatedFirmware extends FirmwareHal {
  boots: { imageRev: string; kind: BootKind }[];
  /** Holds the next boots of kind 'trial' in bootImage until `release()`. */
  holdTrials(): void;
  release(): void;
}

export function gatedFirmware(inner: FirmwareHal): GatedFirmware {
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  const boots: { imageRev: string; kind: BootKind }[] = [];
  return {
    ...inner,
    slotDirectory: inner.slotDirectory,
    maxBootAttempts: inner.maxBootAttempts,
    boots,
    holdTrials() {
      let open!: () => void;
      const promise = new Promise<void>((r) => (open = r));
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = undefined;
    },
    async bootImage(image, kind) {
      boots.push({ imageRev: image.imageRev, kind });
      if (kind === 'trial' && gate) await gate.promise;
      return inner.bootImage(image, kind);
    },
  };
}
