/**
 * Validation of configuration input, derived from the registry: every value on its own (JSON schema
 * through Ajv, all errors collected) and the would-be active configuration as a whole (cross-field rules).
 * Every problem is reported with a JSON pointer; nothing here changes state.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import {
  type FieldError,
  MAX_FIELD_ERRORS,
  quote,
  shorten,
  azimuthWindowWidthMdeg,
  maxAzimuthWidthMdeg,
  type ParameterName,
  type SensorConfig,
  type LidarMode,
} from '../model/index.js';
import { installedPackage } from '../first-use/index.js';
import { CONFIG_AJV_OPTIONS, CONFIG_FORMATS } from './config-formats.js';
import { builtValidators, precompiledValidator } from './precompiled-validators.js';
import { PARAMETERS, DEPRECATED_ALIASES, findParameter, findDeprecatedAlias } from './registry.js';

const loadAjv = installedPackage<typeof import('ajv')>('ajv');
let ajv: Ajv | undefined;

/** Built with the first validator the build did not compile ahead (installed-package.ts says why not at start-up). */
function configAjv(): Ajv {
  if (ajv) return ajv;
  ajv = new (loadAjv().Ajv)(CONFIG_AJV_OPTIONS);
  for (const [name, format] of Object.entries(CONFIG_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

/**
 * Each value's schema; its validator comes from the build (precompiled-validators.ts) or is compiled on
 * its first use (compiling all of them up front slowed every start: docs/benchmarks.md, figures behind design choices).
 */
const valueSchemas = new Map<string, object>([
  ...PARAMETERS.map((p) => [p.name, p.schema] as const),
  ...DEPRECATED_ALIASES.map((a) => [a.name, a.schema] as const),
]);
const valueValidators = new Map<string, ValidateFunction>();

function validatorOf(name: string): ValidateFunction | undefined {
  let validate = valueValidators.get(name);
  if (validate) return validate;
  const schema = valueSchemas.get(name);
  if (!schema) return undefined;
  validate = precompiledValidator(builtValidators(), name, schema) ?? configAjv().compile(schema);
  valueValidators.set(name, validate);
  return validate;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${quote(value)}`;
}

function explain(error: ErrorObject, value: unknown): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const caseless = allowed.find(
        (a) => typeof a === 'string' && typeof value === 'string' && a.toLowerCase() === value.toLowerCase(),
      );
      if (caseless !== undefined)
        return `${quote(value)} has the wrong letter case: keywords are case-sensitive, use ${JSON.stringify(caseless)}`;
      return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}; got ${describeType(value)}`;
    }
    case 'type':
      return `must be ${p.type === 'integer' ? 'an integer' : `a ${String(p.type)}`}; got ${describeType(value)}`;
    case 'minimum':
    case 'maximum': {
      const s = error.parentSchema as { minimum?: number; maximum?: number };
      return s.minimum !== undefined && s.maximum !== undefined
        ? `must be between ${s.minimum} and ${s.maximum}; got ${quote(value)}`
        : `must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(p.limit)}; got ${quote(value)}`;
    }
    case 'minItems':
    case 'maxItems':
      return `must be a list of exactly ${String(p.limit)} items; got ${Array.isArray(value) ? value.length : describeType(value)}`;
    case 'format':
      return `must be "", an IPv4 or IPv6 address or a host name; got ${quote(value)}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Errors of one value against its schema; at most one per JSON pointer, the most telling first. */
export function valueErrors(name: string, value: unknown): FieldError[] {
  const validate = validatorOf(name);
  if (!validate) return [];
  // A list longer than its schema allows is wrong as a whole: checking each of its items would
  // cost time and answer size in proportion to what the client chose to send.
  const maxItems = (valueSchemas.get(name) as { maxItems?: number }).maxItems;
  if (Array.isArray(value) && maxItems !== undefined && value.length > maxItems) {
    return [{ pointer: `/${name}`, detail: `must be a list of exactly ${maxItems} items; got ${value.length}` }];
  }
  if (validate(value)) return [];
  const byPointer = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    const pointer = `/${name}${error.instancePath}`;
    if (byPointer.has(pointer)) continue;
    const item = error.instancePath === '' ? value : (value as unknown[])[Number(error.instancePath.slice(1))];
    byPointer.set(pointer, explain(error, item));
    if (byPointer.size >= MAX_FIELD_ERRORS) break;
  }
  return [...byPointer].map(([pointer, detail]) => ({ pointer, detail }));
}

/** What udp_dest and udp_dest_zm may be set to by a POST, standing for the caller's address. */
export const AUTO_DESTINATION = '@auto';
/** The parameters that take AUTO_DESTINATION. */
export const AUTO_DESTINATION_PARAMETERS: readonly string[] = ['udp_dest', 'udp_dest_zm'];

/** Options of input normalisation. */
export interface InputContext {
  /** The caller's IPv4 address, which `@auto` stands for; undefined where `@auto` is not allowed. */
  autoDestination?: string;
  /**
   * A replayed recording's lidar profile that the registry does not list (LEGACY): accepted for
   * udp_profile_lidar on that unit only, so a client may set the recorded profile back.
   */
  recordedProfile?: string;
  /** Parameters this unit's firmware does not have (parametersNewerThan): unknown here. */
  absent?: ReadonlySet<string>;
  /** Values this unit's firmware does not have, by parameter (valuesNewerThan): refused as values outside the list. */
  absentValues?: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * Values that passed the value rules (normalizeInput), under current parameter names: what a change of
 * the configuration takes. The brand keeps unchecked input from reaching it.
 */
declare const checked: unique symbol;
export type CheckedValues = Readonly<Partial<SensorConfig>> & { readonly [checked]: true };

/**
 * Checks every key of a partial configuration (deprecated aliases mapped, `@auto` resolved) and
 * returns it under current parameter names, or every error found.
 */
export function normalizeInput(
  input: Record<string, unknown>,
  current: SensorConfig,
  context: InputContext,
): { values: CheckedValues; errors: FieldError[]; uncheckedKeys: number } {
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};
  const entries = Object.entries(input);
  for (const [index, [key, raw]] of entries.entries()) {
    // Enough to tell the client what is wrong; the rest is counted, not checked (bounded work and answer).
    if (errors.length >= MAX_FIELD_ERRORS)
      return { values: {} as CheckedValues, errors, uncheckedKeys: entries.length - index };
    let name = key;
    let value = raw;
    const alias = findDeprecatedAlias(key);
    if (alias) {
      const aliasErrors = valueErrors(key, raw);
      if (aliasErrors.length) {
        for (const e of aliasErrors) errors.push(e);
        continue;
      }
      name = alias.replacement;
      value = alias.toReplacement(raw);
    }
    const parameter = context.absent?.has(name) ? undefined : findParameter(name);
    if (!parameter) {
      const detail = `unknown configuration parameter ${quote(key)} (names are case-sensitive)`;
      errors.push({ pointer: `/${shorten(key)}`, detail });
      continue;
    }
    if (AUTO_DESTINATION_PARAMETERS.includes(name) && value === AUTO_DESTINATION) {
      if (context.autoDestination === undefined) {
        errors.push({ pointer: `/${key}`, detail: '"@auto" is accepted only through POST /api/v1/sensor/config' });
        continue;
      }
      value = context.autoDestination;
    }
    const recorded = name === 'udp_profile_lidar' && value !== undefined && value === context.recordedProfile;
    const problems = recorded ? [] : valueErrors(name, value);
    const newer = context.absentValues?.get(name);
    if (!problems.length && newer?.includes(value)) {
      const known = ((valueSchemas.get(name) as { enum?: unknown[] }).enum ?? []).filter((v) => !newer.includes(v));
      problems.push({
        pointer: `/${name}`,
        detail: `must be one of ${known.join(', ')}; got ${JSON.stringify(value)}`,
      });
    }
    if (problems.length) {
      for (const e of problems) errors.push(alias ? { ...e, pointer: e.pointer.replace(`/${name}`, `/${key}`) } : e);
      continue;
    }
    if (parameter.readOnly && JSON.stringify(value) !== JSON.stringify(current[name as ParameterName])) {
      errors.push({
        pointer: `/${key}`,
        detail: `is read-only; only its current value ${JSON.stringify(current[name as ParameterName])} is accepted`,
      });
      continue;
    }
    if (name in values && JSON.stringify(values[name]) !== JSON.stringify(value)) {
      errors.push({
        pointer: `/${key}`,
        detail: `conflicts with another key that sets ${name} to ${JSON.stringify(values[name])}`,
      });
      continue;
    }
    values[name] = value;
  }
  return { values: values as CheckedValues, errors, uncheckedKeys: 0 };
}

/** What a configuration is checked against besides its own values: the product's abilities. */
export interface CombinationContext {
  lidarModes: readonly LidarMode[];
}

/** Cross-field rules, applied to the configuration that would become active. */
export function combinationErrors(config: SensorConfig, context: CombinationContext): FieldError[] {
  const errors: FieldError[] = [];
  const [start, end] = config.azimuth_window;
  const width = azimuthWindowWidthMdeg(config.azimuth_window);
  const maxWidth = maxAzimuthWidthMdeg(config.signal_multiplier);
  if (start === end) {
    errors.push({ pointer: '/azimuth_window', detail: `is empty: start and end are both ${start}` });
  } else if (width > maxWidth) {
    errors.push({
      pointer: '/azimuth_window',
      detail: `spans ${width / 1000} degrees; signal_multiplier ${config.signal_multiplier} allows at most ${maxWidth / 1000} degrees`,
    });
  }
  if (!context.lidarModes.includes(config.lidar_mode)) {
    errors.push({
      pointer: '/lidar_mode',
      detail: `${config.lidar_mode} is not supported by this product; supported: ${context.lidarModes.join(', ')}`,
    });
  }
  return errors;
}
