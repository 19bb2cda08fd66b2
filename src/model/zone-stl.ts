/**
 * STL meshes of Zone Monitor zones (docs/zone-monitor.md): binary or ASCII STL, coordinates in metres.
 * Pure parsing into a flat list of triangles; what a zone may hold is checked by zone-set-rules.ts.
 */

/** Firmware 3.2 renders at most this many triangles per zone (the SDK's Zone::MAX_TRIANGLES). */
export const MAX_ZONE_TRIANGLES = 2048;

/** Triangles as 9 numbers each: x0 y0 z0 x1 y1 z1 x2 y2 z2, metres. */
export type Triangles = Float64Array;

const BINARY_HEADER_BYTES = 80;
const BINARY_TRIANGLE_BYTES = 50;

/** The triangles of an STL file, or why it is not one. */
export function parseStl(bytes: Uint8Array): { triangles: Triangles } | { problem: string } {
  if (bytes.length >= BINARY_HEADER_BYTES + 4) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = view.getUint32(BINARY_HEADER_BYTES, true);
    // A binary file's length follows from its count; an ASCII file that starts with "solid" never matches it.
    if (bytes.length === BINARY_HEADER_BYTES + 4 + count * BINARY_TRIANGLE_BYTES) return binaryStl(view, count);
  }
  const text = new TextDecoder('latin1').decode(bytes);
  if (/^\s*solid\b/.test(text)) return asciiStl(text);
  return { problem: 'is neither a binary STL (its length does not match its triangle count) nor an ASCII STL' };
}

function binaryStl(view: DataView, count: number): { triangles: Triangles } | { problem: string } {
  const triangles = new Float64Array(count * 9);
  for (let t = 0; t < count; t++) {
    // Each record: normal (3 floats, ignored: the vertices define the face), 3 vertices, attribute u16.
    const at = BINARY_HEADER_BYTES + 4 + t * BINARY_TRIANGLE_BYTES + 12;
    for (let k = 0; k < 9; k++) triangles[t * 9 + k] = view.getFloat32(at + k * 4, true);
  }
  return finite(triangles);
}

function asciiStl(text: string): { triangles: Triangles } | { problem: string } {
  const values: number[] = [];
  const vertex = /^\s*vertex\s+(\S+)\s+(\S+)\s+(\S+)\s*$/;
  let inLoop = 0;
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || /^(solid|endsolid|facet|endfacet)\b/.test(trimmed)) continue;
    if (trimmed === 'outer loop') {
      inLoop = 0;
      continue;
    }
    if (trimmed === 'endloop') {
      if (inLoop !== 3) return { problem: `line ${index + 1}: a facet has ${inLoop} vertices, not 3` };
      continue;
    }
    const match = vertex.exec(line);
    if (!match) return { problem: `line ${index + 1}: unexpected ${JSON.stringify(trimmed.slice(0, 40))}` };
    values.push(Number(match[1]), Number(match[2]), Number(match[3]));
    inLoop++;
  }
  if (values.length % 9 !== 0) return { problem: 'the last facet is incomplete' };
  return finite(Float64Array.from(values));
}

function finite(triangles: Triangles): { triangles: Triangles } | { problem: string } {
  if (triangles.length === 0) return { problem: 'holds no triangle' };
  for (const v of triangles) if (!Number.isFinite(v)) return { problem: 'holds a vertex that is not a finite number' };
  return { triangles };
}

/** A binary STL of `triangles` (tests, examples): normals left zero, as many exporters write them. */
export function encodeBinaryStl(triangles: Triangles): Uint8Array {
  const count = triangles.length / 9;
  const bytes = new Uint8Array(BINARY_HEADER_BYTES + 4 + count * BINARY_TRIANGLE_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(BINARY_HEADER_BYTES, count, true);
  for (let t = 0; t < count; t++) {
    const at = BINARY_HEADER_BYTES + 4 + t * BINARY_TRIANGLE_BYTES + 12;
    for (let k = 0; k < 9; k++) view.setFloat32(at + k * 4, triangles[t * 9 + k], true);
  }
  return bytes;
}

/** The 12 triangles of an axis-aligned box from `min` to `max` (metres), faces wound outwards. */
export function boxTriangles(min: readonly number[], max: readonly number[]): Triangles {
  const c = (i: number) => [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]];
  const faces = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ];
  const out: number[] = [];
  for (const [a, b, d, e] of faces) out.push(...c(a), ...c(b), ...c(d), ...c(a), ...c(d), ...c(e));
  return Float64Array.from(out);
}
