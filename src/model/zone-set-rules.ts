/**
 * What a Zone Monitor zone set (docs/zone-monitor.md) is: the `metadata.json` of its zip, read and checked
 * against firmware 3.2's rules. Pure: the files of the zip, the render and the unit's beams are checked
 * by the device core (src/core/zones/), which names each refusal with the rules below.
 */

export const MAX_ZONES = 128;
export const MAX_LIVE_ZONES = 16;
export const MAX_POINT_COUNT = 262_143;
export const MAX_FRAME_COUNT = 65_535;

/** The rule a refused zone set breaks: the `rule` of its problem body. */
export type ZoneRule =
  | 'corrupt-zip'
  | 'zip-bomb'
  | 'metadata'
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
const isInteger = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const STL_NAME = /^[a-zA-Z0-9_-][a-zA-Z0-9_ -]*\.(stl|STL)$/;
const ZRB_NAME = /^(0|[1-9][0-9]*)\.(zrb|ZRB)$/;
const TOP_KEYS = new Set(['label', 'version', 'power_on_live_ids', 'zones', 'sensor_to_body_transform']);
const ZONE_KEYS = new Set(['label', 'point_count', 'frame_count', 'mode', 'stl', 'zrb']);

/** The zone set `metadata.json` describes, or every problem found in it. */
export function readZoneSetMetadata(doc: unknown): { set: ZoneSetSpec } | { problems: ZoneProblem[] } {
  const problems: ZoneProblem[] = [];
  const bad = (detail: string, zone?: number, rule: ZoneRule = 'metadata') => problems.push({ rule, zone, detail });
  if (!isObject(doc)) return { problems: [{ rule: 'metadata', detail: 'metadata.json is not a JSON object' }] };
  for (const key of Object.keys(doc))
    if (!TOP_KEYS.has(key)) bad(`metadata.json has an unknown key ${JSON.stringify(key)}`);
  const label = doc.label ?? '';
  if (typeof label !== 'string' || label.length > 64) bad('label must be a string of at most 64 characters');
  const version = doc.version;
  if (!isObject(version) || !isInteger(version.metadata, 1, 65535) || !isInteger(version.file_naming, 1, 65535))
    bad('version must hold integers "metadata" and "file_naming" (1..65535)');
  const transform = doc.sensor_to_body_transform;
  if (
    transform !== undefined &&
    !(Array.isArray(transform) && transform.length === 16 && transform.every((v) => Number.isFinite(v)))
  )
    bad('sensor_to_body_transform must be 16 numbers (a row-major 4x4 matrix, metres)');
  const zonesDoc = doc.zones;
  const zones: ZoneSpec[] = [];
  if (!isObject(zonesDoc)) bad('zones must be an object of zones by id');
  else {
    const ids = Object.keys(zonesDoc);
    if (ids.length === 0 || ids.length > MAX_ZONES)
      problems.push({
        rule: 'zone-count',
        detail: `a zone set holds 1 to ${MAX_ZONES} zones; this one holds ${ids.length}`,
      });
    for (const key of ids.slice(0, MAX_ZONES)) {
      const zone = readZone(key, zonesDoc[key], problems);
      if (zone) zones.push(zone);
    }
  }
  zones.sort((a, b) => a.id - b.id);
  const live = doc.power_on_live_ids;
  const ids = new Set(zones.map((z) => z.id));
  if (!Array.isArray(live) || live.length > MAX_LIVE_ZONES || !live.every((v) => isInteger(v, 0, 2 ** 31)))
    problems.push({
      rule: 'live-ids',
      detail: `power_on_live_ids must list at most ${MAX_LIVE_ZONES} zone ids`,
    });
  else {
    for (const id of live)
      if (!ids.has(id))
        problems.push({
          rule: 'live-ids',
          zone: id,
          detail: `power_on_live_ids names zone ${id}, which the set does not hold`,
        });
    if (new Set(live).size !== live.length)
      problems.push({ rule: 'live-ids', detail: 'power_on_live_ids names a zone twice' });
  }
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
      label: label as string,
      powerOnLiveIds: live as number[],
      sensorToBody: transform as number[] | undefined,
      zones,
      kind: withZrb.length > 0 ? 'ZRB' : 'STL',
    },
  };
}

function readZone(key: string, doc: unknown, problems: ZoneProblem[]): ZoneSpec | undefined {
  const before = problems.length;
  const id = /^(0|[1-9][0-9]{0,9})$/.test(key) ? Number(key) : Number.NaN;
  const bad = (detail: string) => problems.push({ rule: 'metadata', zone: Number.isNaN(id) ? undefined : id, detail });
  if (Number.isNaN(id) || id > 2 ** 31) {
    bad(`zone id ${JSON.stringify(key.slice(0, 20))} is not a non-negative integer`);
    return undefined;
  }
  if (!isObject(doc)) {
    bad(`zone ${id} is not an object`);
    return undefined;
  }
  for (const k of Object.keys(doc)) if (!ZONE_KEYS.has(k)) bad(`zone ${id} has an unknown key ${JSON.stringify(k)}`);
  if (!isInteger(doc.point_count, 1, MAX_POINT_COUNT))
    bad(`zone ${id}: point_count must be an integer 1..${MAX_POINT_COUNT}`);
  if (!isInteger(doc.frame_count, 1, MAX_FRAME_COUNT))
    bad(`zone ${id}: frame_count must be an integer 1..${MAX_FRAME_COUNT}`);
  if (doc.mode !== 'OCCUPANCY' && doc.mode !== 'VACANCY') bad(`zone ${id}: mode must be OCCUPANCY or VACANCY`);
  const label = doc.label ?? '';
  if (typeof label !== 'string' || label.length > 64)
    bad(`zone ${id}: label must be a string of at most 64 characters`);
  let stl: ZoneSpec['stl'];
  if (doc.stl !== undefined) {
    const s = doc.stl;
    const frame = isObject(s) ? (s.coordinate_frame ?? 'BODY') : undefined;
    if (!isObject(s) || typeof s.file_name !== 'string' || !STL_NAME.test(s.file_name))
      bad(`zone ${id}: stl.file_name must name an .stl file of the zip`);
    else if (frame !== 'SENSOR' && frame !== 'BODY') bad(`zone ${id}: stl.coordinate_frame must be SENSOR or BODY`);
    else stl = { fileName: s.file_name, frame };
  }
  let zrb: ZoneSpec['zrb'];
  if (doc.zrb !== undefined) {
    const z = doc.zrb;
    if (!isObject(z) || typeof z.file_name !== 'string' || !ZRB_NAME.test(z.file_name))
      bad(`zone ${id}: zrb.file_name must name a <id>.zrb file of the zip`);
    else zrb = { fileName: z.file_name };
  }
  if (!stl && !zrb && problems.length === before) bad(`zone ${id} has neither an stl nor a zrb`);
  if (problems.length > before) return undefined;
  return {
    id,
    label: label as string,
    mode: doc.mode as ZoneMode,
    pointCount: doc.point_count as number,
    frameCount: doc.frame_count as number,
    stl,
    zrb,
  };
}
