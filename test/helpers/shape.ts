/**
 * Checks a JSON document against the fields the spec lists: exactly these keys at every level, each
 * of the given JSON type. Failures name the path ("ptp.time_status_np.gm_present").
 */
import { expect } from 'vitest';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'string|null' | 'integer|null';
export interface Shape {
  [key: string]: JsonType | Shape;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

export function expectShape(value: unknown, shape: Shape, path = 'body'): void {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value), `${path} is an object`).toBe(true);
  const record = value as Record<string, unknown>;
  expect(Object.keys(record).sort(), `keys of ${path}`).toEqual(Object.keys(shape).sort());
  for (const [key, expected] of Object.entries(shape)) {
    const at = `${path}.${key}`;
    if (typeof expected === 'object') {
      expectShape(record[key], expected, at);
      continue;
    }
    const actual = typeOf(record[key]);
    const allowed = expected.split('|').flatMap((t) => (t === 'number' ? ['number', 'integer'] : [t]));
    expect(allowed, `${at} is ${expected}, got ${actual} (${JSON.stringify(record[key])})`).toContain(actual);
  }
}
