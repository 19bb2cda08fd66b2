/**
 * What a Zone Monitor zone set (docs/zone-monitor.md) is: the `metadata.json` of its zip, read and checked
 * against the SDK's schema (zone-set-schema.ts, its errors given by the caller) and then firmware 3.2's own rules. Pure: the files of the zip, the render and the unit's beams are checked
 * by the device core (src/core/zones/), which names each refusal with the rules below.
 */

import type { Static } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import type { ZoneSetMetadataSchema } from './zone-set-schema.js';

export const MAX_ZONES = 128;
export const MAX_LIVE_ZONES = 16;
export const MAX_POINT_COUNT = 262_143;
export const MAX_FRAME_COUNT = 65_535;
/** Zone ids are one byte in the zone packet and the SDK's zone state. */
export const MAX_ZONE_ID = 255;

/** The rule a refused zone set breaks: the `rule` of its problem body. */
export type ZoneRule =
  | 'corrupt-zip'
  | 'zip-bomb'
  | 'metadata'
  | 'schema'
  | 'zone-id'
  | 'zone-count'
  | 'live-ids'
  | 'mixed-set'
  | 'missing-file'
  | 'invalid-stl'
  | 'too-many-triangles'
  | 'invalid-zrb'
  | 'zrb-resolution'
  | 'outside-fov'
  | 'point-count'
  | 'render-time';

export interface ZoneProblem {
  rule: ZoneRule;
  /** The zone id, when one zone breaks it. */
  zone?: number;
  detail: string;
}

export type ZoneMode = 'OCCUPANCY' | 'VACANCY';

export interface ZoneSpec {
  id: number;
  label: string;
  mode: ZoneMode;
  pointCount: number;
  frameCount: number;
  stl?: { fileName: string; frame: 'SENSOR' | 'BODY' };
  zrb?: { fileName: string };
}

export interface ZoneSetSpec {
  label: string;
  powerOnLiveIds: number[];
  /** Row-major 4x4, translation in metres. */
  sensorToBody?: number[];
  /** By id, ascending. */
  zones: ZoneSpec[];
  /** STL: the unit renders every zone; ZRB: every zone's images are given. */
  kind: 'STL' | 'ZRB';
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema error as a refusal that names the zone, the key and the rule. */
function schemaProblem(error: ErrorObject): ZoneProblem {
  const path = error.instancePath.split('/').slice(1);
  const inZone = path[0] === 'zones' && path.length > 1;
  const zone = inZone && /^[0-9]{1,9}$/.test(path[1]) ? Number(path[1]) : undefined;
  const keys = inZone ? path.slice(2) : path;
  const params = error.params as Record<string, unknown>;
  const at = (key: string | undefined) => [...keys, ...(key === undefined ? [] : [key])].join('.');
  const where = inZone ? `zone ${path[1]}` : 'metadata.json';
  let what: string;
  switch (error.keyword) {
    case 'required':
      what = `${at(String(params.missingProperty))} is missing`;
      break;
    case 'additionalProperties':
      what =
        path.length === 1 && path[0] === 'zones'
          ? `zone id ${JSON.stringify(params.additionalProperty)} is not a non-negative integer`
          : `${keys.length ? at(undefined) : 'it'} has an unknown key ${JSON.stringify(params.additionalProperty)}`;
      break;
    case 'anyOf':
      what = 'has neither an stl nor a zrb';
      break;
    case 'enum':
      what = `${at(undefined)} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
      break;
    default:
      what = `${at(undefined) || 'it'} ${error.message ?? 'is not valid'}`;
  }
  return { rule: 'schema', zone, detail: `${where}: ${what} (the SDK's schema rule ${error.keyword})` };
}

/**
 * What the SDK's schema refuses in a metadata.json, from the schema's errors (src/first-use/zone-set-schema-check.ts
 * runs Ajv: the model does no I/O, and loads no compiler): nothing when every SDK client reads it.
 */
export function zoneSetSchemaProblems(schemaErrors: readonly ErrorObject[]): ZoneProblem[] {
  // The SDK's "one of stl, zrb" is checked by anyOf; the required errors of its branches say nothing more.
  return schemaErrors.filter((e) => !e.schemaPath.includes('/anyOf/')).map(schemaProblem);
}

/** The zone set `metadata.json` describes (`schemaErrors`: the SDK schema's errors in it), or every problem found in it. */
export function readZoneSetMetadata(
  doc: unknown,
  schemaErrors: readonly ErrorObject[],
): { set: ZoneSetSpec } | { problems: ZoneProblem[] } {
  const schemaProblems = zoneSetSchemaProblems(schemaErrors);
  if (schemaProblems.length) return { problems: schemaProblems };
  const metadata = doc as Static<typeof ZoneSetMetadataSchema>;
  const problems: ZoneProblem[] = [];
  const zoneIds = Object.keys(metadata.zones);
  if (zoneIds.length === 0 || zoneIds.length > MAX_ZONES)
    problems.push({
      rule: 'zone-count',
      detail: `a zone set holds 1 to ${MAX_ZONES} zones; this one holds ${zoneIds.length}`,
    });
  const zones: ZoneSpec[] = [];
  for (const key of zoneIds) {
    const id = Number(key);
    if (id > MAX_ZONE_ID) {
      problems.push({
        rule: 'zone-id',
        detail: `zone id ${key.slice(0, 20)} is above ${MAX_ZONE_ID}: zone ids are one byte in zone packets and the SDK`,
      });
      continue;
    }
    const z = (metadata.zones as Record<string, Json>)[key];
    const stl = isObject(z.stl) ? (z.stl as { file_name: string; coordinate_frame: 'SENSOR' | 'BODY' }) : undefined;
    const zrb = isObject(z.zrb) ? (z.zrb as { file_name: string }) : undefined;
    zones.push({
      id,
      label: (z.label as string | undefined) ?? '',
      mode: z.mode as ZoneMode,
      pointCount: z.point_count as number,
      frameCount: z.frame_count as number,
      stl: stl && { fileName: stl.file_name, frame: stl.coordinate_frame },
      zrb: zrb && { fileName: zrb.file_name },
    });
  }
  zones.sort((a, b) => a.id - b.id);
  const live = metadata.power_on_live_ids;
  for (const id of live)
    if (id > MAX_ZONE_ID)
      problems.push({ rule: 'live-ids', detail: `power_on_live_ids names ${id}: zone ids are 0..${MAX_ZONE_ID}` });
  if (new Set(live).size !== live.length)
    problems.push({ rule: 'live-ids', detail: 'power_on_live_ids names a zone twice' });
  const withZrb = zones.filter((z) => z.zrb);
  if (withZrb.length > 0 && withZrb.length < zones.length) {
    const stlOnly = zones.find((z) => !z.zrb);
    problems.push({
      rule: 'mixed-set',
      zone: stlOnly?.id,
      detail: `a zone set is all STL or all ZRB: zone ${withZrb[0].id} has a ZRB, zone ${stlOnly?.id} only an STL`,
    });
  }
  if (problems.length) return { problems };
  return {
    set: {
      label: metadata.label ?? '',
      powerOnLiveIds: [...live],
      sensorToBody: metadata.sensor_to_body_transform,
      zones,
      kind: withZrb.length > 0 ? 'ZRB' : 'STL',
    },
  };
}
