/**
 * The vendor SDK's zone set schema (model/zone-set-schema.ts) checked by Ajv, compiled on first use: a unit that
 * never sees a zone set never loads Ajv (installed-package.ts). The model maps the errors to refusals
 * (zoneSetSchemaProblems, readZoneSetMetadata); this is the one place that runs the compiler for them.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ZoneSetMetadataSchema } from '../model/index.js';
import { installedPackage } from './installed-package.js';

const loadAjv = installedPackage<typeof import('ajv')>('ajv');
let validator: ValidateFunction | undefined;

/** Every way `doc` (a zone set's metadata.json) breaks the SDK's schema; none when it reads. */
export function zoneSetSchemaErrors(doc: unknown): ErrorObject[] {
  validator ??= new (loadAjv().Ajv)({ allErrors: true, strict: false }).compile(ZoneSetMetadataSchema);
  return validator(doc) ? [] : [...(validator.errors ?? [])];
}
