/**
 * Boolean query flags as real clients send them: true/false, True/False (Python clients), 1/0.
 * Query strings are validated by schema (`Flag` in api-schemas.ts, no type coercion), then read with `flag()`.
 */
export const FLAG_VALUES = ['true', 'false', 'True', 'False', '1', '0'] as const;

export function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return value === 'true' || value === 'True' || value === '1';
}

/** The caller's address as a destination: IPv4-mapped IPv6 (`::ffff:10.0.0.7`) becomes plain IPv4. */
export function callerAddress(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice('::ffff:'.length) : ip;
}
