/**
 * What the configuration's value schemas need besides JSON Schema itself: Ajv's options and the
 * `udp-destination` format. Defined once for both kinds of validator: those compiled when first used
 * (config-validation.ts) and those the build compiles ahead of time (scripts/parameter-validators.mjs
 * writes dist/parameter-validators.cjs, which bundles this file for the format).
 */
import { isIP } from 'node:net';

/** verbose: errors carry their schema, so a range error can state both bounds. */
export const CONFIG_AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  coerceTypes: false,
  useDefaults: false,
  verbose: true,
} as const;

/** Host names as RFC 1123 allows them: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** A name made only of digits and dots is a malformed IPv4 address, never a host name. */
const NUMERIC_NAME = /^[0-9.]+$/;

export function isValidUdpDestination(value: string): boolean {
  if (value === '') return true;
  if (isIP(value) !== 0) return true;
  return HOST_NAME.test(value) && !NUMERIC_NAME.test(value);
}

/** The formats the value schemas name, as Ajv's `addFormat` takes them. */
export const CONFIG_FORMATS = {
  'udp-destination': { type: 'string', validate: isValidUdpDestination },
} as const;
