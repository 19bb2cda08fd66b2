/**
 * A zone set zip checked against every rule of firmware 3.2 (docs/zone-monitor.md), and its zones
 * rendered for the unit's beams. Rendering happens here, when a set is staged, applied, or the frame width
 * changes, never per packet; the device core calls it in a worker thread (zone-render-thread.ts).
 */
import { createHash } from 'node:crypto';
import {
  decodeZrb,
  MAX_ZONE_TRIANGLES,
  parseStl,
  type ProductModel,
  readZoneSetMetadata,
  renderZone,
  type ZoneBeams,
  type ZoneProblem,
  type ZoneSetSpec,
  type ZoneSpec,
} from '../../model/index.js';
import { readZoneZip } from './zone-zip.js';
import { zoneSetSchemaErrors } from '../../first-use/index.js';

/** A zone's near/far images for one frame width, sparse: only the beams that cross it. */
/** The unit's beams for frames `columns` wide, as the render takes them. */
export function zoneBeamsOf(product: ProductModel, columns: number): ZoneBeams {
  return {
    columnsPerFrame: columns,
    beamAltitudeDeg: product.beamAltitudeDeg,
    beamAzimuthDeg: product.beamAzimuthDeg,
    lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
    lidarToSensor: product.lidarToSensorTransform,
  };
}

/** A zone set a recording was made with: the zip as recorded and its live zone ids. */
export interface RecordedZoneSet {
  zip: Uint8Array;
  /** null: the recording has no zone packet to tell; the set's power_on_live_ids are live. */
  liveIds: number[] | null;
}

export interface ZoneImages {
  columns: number;
  /** Rays `m * pixels + p` whose far range is not 0, ascending. */
  rays: Uint32Array;
  nearMm: Uint32Array;
  farMm: Uint32Array;
}

export interface CheckedZoneSet {
  spec: ZoneSetSpec;
  /** SHA-256 of the zip: the live zone set hash of zone packets. */
  hash: Uint8Array;
  /** Per zone id, the images for the frame width they were rendered (or given) for. */
  images: Map<number, ZoneImages>;
  /** The frame width the images are for. */
  columns: number;
  /** Zones that have no images for this width, and why (a ZRB of another width, a point_count too high). */
  problems: ZoneProblem[];
}

/** A zip the unit cannot read at all (not a zip, no metadata.json, metadata that breaks a rule). */
export interface UnreadableZoneSet {
  unreadable: ZoneProblem[];
}

/**
 * Reads `zip` and checks its zones against the unit's beams: the set with the images of every zone that
 * fits these beams (and the problems of those that do not), or why the zip cannot be read at all.
 * Rendering STL zones is the costly part: the device core runs this in a worker (zone-render-thread.ts).
 */
export function checkZoneSet(
  zip: Uint8Array,
  beams: ZoneBeams,
  onZone?: (id: number) => void,
): CheckedZoneSet | UnreadableZoneSet {
  const files = readZoneZip(zip);
  if (!(files instanceof Map)) return { unreadable: [files] };
  const read = specOf(files);
  if ('unreadable' in read) return read;
  const { images, problems } = renderZones(read.spec, files, beams, onZone);
  return { spec: read.spec, hash: zoneSetHash(zip), images, columns: beams.columnsPerFrame, problems };
}

/** SHA-256 of the zip: the live zone set hash of zone packets. */
export const zoneSetHash = (zip: Uint8Array): Uint8Array => createHash('sha256').update(zip).digest();

/**
 * What `zip`'s metadata.json says, without inflating its zones' files: the stored set at start, which the
 * unit monitors while its zones render in a worker.
 */
export function readZoneSetSpec(zip: Uint8Array): { spec: ZoneSetSpec } | UnreadableZoneSet {
  const files = readZoneZip(zip, undefined, (name) => asciiLower(name) === METADATA_FILE);
  if (!(files instanceof Map)) return { unreadable: [files] };
  return specOf(files);
}

const METADATA_FILE = 'metadata.json';

const asciiLower = (name: string) => name.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * The zip's file `name`, found as the SDK finds it (libzip's ZIP_FL_NOCASE, zip.cpp): the same name in
 * another case of its ASCII letters is the same file (`0.STL` for `0.stl`).
 */
function entryNamed(files: ReadonlyMap<string, Uint8Array>, name: string): Uint8Array | undefined {
  const exact = files.get(name);
  if (exact || name === '') return exact;
  const wanted = asciiLower(name);
  for (const [entry, bytes] of files) if (asciiLower(entry) === wanted) return bytes;
  return undefined;
}

function specOf(files: ReadonlyMap<string, Uint8Array>): { spec: ZoneSetSpec } | UnreadableZoneSet {
  const metadataBytes = entryNamed(files, METADATA_FILE);
  if (!metadataBytes) return { unreadable: [{ rule: 'missing-file', detail: 'the zip holds no metadata.json' }] };
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(metadataBytes));
  } catch (error) {
    return { unreadable: [{ rule: 'metadata', detail: `metadata.json is not JSON: ${(error as Error).message}` }] };
  }
  const read = readZoneSetMetadata(doc, zoneSetSchemaErrors(doc));
  return 'problems' in read ? { unreadable: read.problems } : { spec: read.set };
}

/** Every zone's images for `beams` (STL zones rendered, ZRB zones as given), or the problems found. */
export function renderZones(
  set: ZoneSetSpec,
  files: ReadonlyMap<string, Uint8Array>,
  beams: ZoneBeams,
  onZone?: (id: number) => void,
): { images: Map<number, ZoneImages>; problems: ZoneProblem[] } {
  const problems: ZoneProblem[] = [];
  const images = new Map<number, ZoneImages>();
  for (const zone of set.zones) {
    onZone?.(zone.id);
    const result = set.kind === 'ZRB' ? givenImages(zone, files, beams) : renderedImages(zone, set, files, beams);
    if ('rule' in result) problems.push(result);
    else images.set(zone.id, result);
  }
  return { images, problems };
}

function renderedImages(
  zone: ZoneSpec,
  set: ZoneSetSpec,
  files: ReadonlyMap<string, Uint8Array>,
  beams: ZoneBeams,
): ZoneImages | ZoneProblem {
  const stl = zone.stl as NonNullable<ZoneSpec['stl']>;
  const bytes = entryNamed(files, stl.fileName);
  if (!bytes)
    return { rule: 'missing-file', zone: zone.id, detail: `zone ${zone.id}: the zip holds no ${stl.fileName}` };
  const mesh = parseStl(bytes);
  if ('problem' in mesh)
    return { rule: 'invalid-stl', zone: zone.id, detail: `zone ${zone.id}: ${stl.fileName} ${mesh.problem}` };
  const triangles = mesh.triangles.length / 9;
  if (triangles > MAX_ZONE_TRIANGLES)
    return {
      rule: 'too-many-triangles',
      zone: zone.id,
      detail: `zone ${zone.id}: ${stl.fileName} has ${triangles} triangles; a zone renders at most ${MAX_ZONE_TRIANGLES}`,
    };
  if (stl.frame === 'BODY' && !set.sensorToBody)
    return {
      rule: 'metadata',
      zone: zone.id,
      detail: `zone ${zone.id} is drawn in the BODY frame, but the set has no sensor_to_body_transform`,
    };
  const rendered = renderZone(mesh.triangles, {
    ...beams,
    sensorToBody: stl.frame === 'BODY' ? set.sensorToBody : undefined,
  });
  return checkedImages(zone, rendered.columns, rendered.pixels, rendered.nearMm, rendered.farMm);
}

function givenImages(
  zone: ZoneSpec,
  files: ReadonlyMap<string, Uint8Array>,
  beams: ZoneBeams,
): ZoneImages | ZoneProblem {
  const name = (zone.zrb as NonNullable<ZoneSpec['zrb']>).fileName;
  const bytes = entryNamed(files, name);
  if (!bytes) return { rule: 'missing-file', zone: zone.id, detail: `zone ${zone.id}: the zip holds no ${name}` };
  const zrb = decodeZrb(bytes);
  if ('problem' in zrb)
    return { rule: 'invalid-zrb', zone: zone.id, detail: `zone ${zone.id}: ${name} ${zrb.problem}` };
  const rows = beams.beamAltitudeDeg.length;
  if (zrb.rows !== rows || zrb.columns !== beams.columnsPerFrame)
    return {
      rule: 'zrb-resolution',
      zone: zone.id,
      detail: `zone ${zone.id}: ${name} is ${zrb.rows} rows × ${zrb.columns} columns; this unit's frames are ${rows} × ${beams.columnsPerFrame}`,
    };
  return checkedImages(zone, zrb.columns, zrb.rows, zrb.nearMm, zrb.farMm);
}

/** The sparse images of a zone, or why the unit could never monitor it. */
function checkedImages(
  zone: ZoneSpec,
  columns: number,
  pixels: number,
  nearMm: Uint32Array,
  farMm: Uint32Array,
): ZoneImages | ZoneProblem {
  const rays: number[] = [];
  for (let ray = 0; ray < columns * pixels; ray++) if (farMm[ray] > 0) rays.push(ray);
  if (rays.length === 0)
    return {
      rule: 'outside-fov',
      zone: zone.id,
      detail: `zone ${zone.id} lies outside the unit's field of view (after the sensor-to-body transform): no beam crosses it`,
    };
  if (zone.pointCount > rays.length)
    return {
      rule: 'point-count',
      zone: zone.id,
      detail: `zone ${zone.id}: point_count ${zone.pointCount} is more than the ${rays.length} beams that cross the zone, so it could never trigger`,
    };
  const index = Uint32Array.from(rays);
  return {
    columns,
    rays: index,
    nearMm: index.map((ray) => nearMm[ray]),
    farMm: index.map((ray) => farMm[ray]),
  };
}
