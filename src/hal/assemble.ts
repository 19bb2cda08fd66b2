import type { Hal, HalKind } from './types.js';

export type HalParts = Omit<Hal, 'kind' | 'close'>;

/** A HAL from its parts; closing it closes every part, whichever implementation each comes from. */
export function assembleHal(kind: HalKind, parts: HalParts): Hal {
  return {
    kind,
    ...parts,
    async close() {
      await Promise.all(Object.values(parts).map((part: { close(): Promise<void> }) => part.close()));
    },
  };
}
