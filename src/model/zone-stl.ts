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

/**
 * The triangles of an STL file, or why it is not one, read as the vendor SDK reads it (mesh.cpp): as much
 * leniency and as many refusals. ASCII when "endsolid", in any case, begins after the 80-byte header;
 * binary otherwise.
 */
export function parseStl(bytes: Uint8Array): { triangles: Triangles } | { problem: string } {
  const text = new TextDecoder('latin1').decode(bytes);
  const endsolid = text.toLowerCase().indexOf('endsolid');
  return endsolid > BINARY_HEADER_BYTES ? asciiStl(text) : binaryStl(bytes);
}

/**
 * Binary: the header, a triangle count, then 50 bytes per triangle (normal, 3 vertices, an attribute the
 * reader ignores). The SDK reads each triangle's 48 bytes and tries its attribute: the last triangle may
 * lack it, and bytes after the last triangle are ignored. Any float is taken.
 */
function binaryStl(bytes: Uint8Array): { triangles: Triangles } | { problem: string } {
  if (bytes.length < BINARY_HEADER_BYTES + 4)
    return {
      problem: `is ${bytes.length} bytes: too short for a binary STL (80-byte header and a triangle count) and not an ASCII STL (no "endsolid" after byte 80)`,
    };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(BINARY_HEADER_BYTES, true);
  const needed = count === 0 ? 0 : BINARY_HEADER_BYTES + 4 + count * BINARY_TRIANGLE_BYTES - 2;
  if (bytes.length < needed)
    return {
      problem: `is a binary STL of ${count} triangles cut short: ${bytes.length} bytes, where they take ${needed}`,
    };
  const triangles = new Float64Array(count * 9);
  for (let t = 0; t < count; t++) {
    // Each record: normal (3 floats, ignored: the vertices define the face), 3 vertices, attribute u16.
    const at = BINARY_HEADER_BYTES + 4 + t * BINARY_TRIANGLE_BYTES + 12;
    for (let k = 0; k < 9; k++) triangles[t * 9 + k] = view.getFloat32(at + k * 4, true);
  }
  return { triangles };
}

const FLOAT_MAX = 3.4028234663852886e38;
const FLOAT_MIN_NORMAL = 1.1754943508222875e-38;
const SOLID = /^\s*solid\b/;
const ENDSOLID = /^\s*endsolid\b/;
const FACET = /^\s*facet\b/;
const OUTER_LOOP = /^\s*outer\s+loop/;
const NUMBER = '(-?[0-9.]+(?:[eE][+-]\\d+)?)';
const VERTEX = new RegExp(`^\\s*vertex\\s+${NUMBER}\\s+${NUMBER}\\s+${NUMBER}`);
const ENDLOOP = /^\s*endloop/;
const ENDFACET = /^\s*endfacet/;

/**
 * ASCII, line by line as the SDK reads it: lines trimmed, blank lines and `#` comments skipped, keywords
 * in any case and spaced by any blanks; "solid" first, then facets of "outer loop", three vertices,
 * "endloop", "endfacet", until "endsolid". A number is read as a C float from the longest prefix that is
 * one (what std::stof does); one out of a float's range refuses the file.
 */
function asciiStl(text: string): { triangles: Triangles } | { problem: string } {
  const lines = text.split('\n');
  let at = 0;
  let lineNumber = 0;
  const next = (): string | undefined => {
    while (at < lines.length) {
      const line = lines[at++].replace(/^[ \t\r]+|[ \t\r]+$/g, '');
      if (line === '' || line.startsWith('#')) continue;
      lineNumber = at;
      return line.toLowerCase();
    }
    return undefined;
  };
  const refuse = (expected: string, line: string | undefined) => ({
    problem:
      line === undefined
        ? `ends where ${expected} was expected`
        : `line ${lineNumber}: ${expected} expected, not ${JSON.stringify(line.slice(0, 40))}`,
  });
  const first = next();
  if (first === undefined || !SOLID.test(first)) return refuse('"solid"', first);
  const values: number[] = [];
  for (;;) {
    const line = next();
    if (line === undefined) return refuse('"endsolid"', line);
    if (ENDSOLID.test(line)) return { triangles: Float64Array.from(values) };
    if (!FACET.test(line)) return refuse('"facet" or "endsolid"', line);
    const loop = next();
    if (loop === undefined || !OUTER_LOOP.test(loop)) return refuse('"outer loop"', loop);
    for (let v = 0; v < 3; v++) {
      const vertex = next();
      const match = vertex === undefined ? null : VERTEX.exec(vertex);
      if (!match) return refuse('"vertex x y z"', vertex);
      for (const text of match.slice(1, 4)) {
        const value = Number.parseFloat(text);
        const magnitude = Math.abs(value);
        if (Number.isNaN(value) || magnitude > FLOAT_MAX || (magnitude !== 0 && magnitude < FLOAT_MIN_NORMAL))
          return { problem: `line ${lineNumber}: ${JSON.stringify(text)} is not a number a float holds` };
        values.push(Math.fround(value));
      }
    }
    const endloop = next();
    if (endloop === undefined || !ENDLOOP.test(endloop)) return refuse('"endloop"', endloop);
    const endfacet = next();
    if (endfacet === undefined || !ENDFACET.test(endfacet)) return refuse('"endfacet"', endfacet);
  }
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
