/**
 * A unit's documents list the values it takes, not the registry's: a unit of firmware older than 3.2 takes none of
 * the values 3.2 added to older parameters (FirmwareOffer.absentValues), and a unit replaying a LEGACY recording
 * takes one lidar profile more. Both the OpenAPI document and the registry the page's form is made from go through
 * here, so they cannot list a value the unit refuses.
 */
import { PARAMETER_SCHEMAS } from '../../model/index.js';

export interface OfferedValues {
  /** Values of a parameter this unit's firmware does not have, by parameter name. */
  absentValues?: ReadonlyMap<string, readonly unknown[]>;
  /** A lidar profile this unit accepts beyond the registry's (a replayed LEGACY recording). */
  extraLidarProfile?: string;
}

interface EnumChange {
  registry: ReadonlySet<unknown>;
  absent: readonly unknown[];
  extra: readonly unknown[];
}

function registryEnum(name: string): readonly unknown[] {
  return ((PARAMETER_SCHEMAS as Record<string, { enum?: unknown[] }>)[name]?.enum ?? []) as readonly unknown[];
}

function changesOf({ absentValues, extraLidarProfile }: OfferedValues): EnumChange[] {
  const names = new Set([...(absentValues?.keys() ?? []), ...(extraLidarProfile ? ['udp_profile_lidar'] : [])]);
  return [...names].map((name) => ({
    registry: new Set(registryEnum(name)),
    absent: absentValues?.get(name) ?? [],
    extra: name === 'udp_profile_lidar' && extraLidarProfile ? [extraLidarProfile] : [],
  }));
}

const isRegistryEnum = (values: unknown[], registry: ReadonlySet<unknown>) =>
  values.length === registry.size && values.every((v) => registry.has(v));

/**
 * `document` with every `enum` that is a changed parameter's registry list (wherever the parameter appears)
 * narrowed to what this unit offers; `document` itself when nothing changes.
 */
export function withOfferedEnums<T>(document: T, offered: OfferedValues): T {
  const changes = changesOf(offered);
  if (changes.length === 0) return document;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const change =
        key === 'enum' && Array.isArray(value) ? changes.find((c) => isRegistryEnum(value, c.registry)) : undefined;
      out[key] = change ? [...value.filter((v: unknown) => !change.absent.includes(v)), ...change.extra] : visit(value);
    }
    return out;
  };
  return visit(document) as T;
}
