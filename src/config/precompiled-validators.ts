/**
 * The configuration's value validators as the build compiled them ahead of time: Ajv's standalone
 * code for every parameter and deprecated alias, written by scripts/parameter-validators.mjs to
 * dist/parameter-validators.cjs beside the CLI's bundle.
 *
 * Why: compiled when first used, they made the first configuration write after every start load Ajv
 * and generate and compile their code, slowing that request and keeping more memory for the rest of the
 * unit's run, most of it the compiler's garbage (docs/benchmarks.md, figures behind design choices). Ahead of time, that write costs what the
 * next ones do, and no code is generated at run time.
 *
 * A validator is used only if it was compiled from exactly the schema the registry now holds (the
 * file keeps each schema's JSON beside its function). Running from the sources (tsx, vitest) there is
 * no such file, and after an edit of a schema without a build the file is stale for it: the caller then
 * compiles the validator with Ajv as before (config-validation.ts).
 */
import type { ValidateFunction } from 'ajv';
import { builtFile } from '../first-use/index.js';

/** One entry of the file: the schema's JSON and Ajv's validator of it. */
export interface PrecompiledValidator {
  schema: string;
  validate: ValidateFunction;
}

export type PrecompiledTable = Record<string, PrecompiledValidator | undefined>;

/** The build's table, read on the first call; null when there is none. */
export const builtValidators = builtFile<PrecompiledTable>('parameter-validators.cjs');

/** `name`'s validator from `table` if it was compiled from `schema` (compared as JSON), else undefined. */
export function precompiledValidator(
  table: PrecompiledTable | null,
  name: string,
  schema: object,
): ValidateFunction | undefined {
  const entry = table?.[name];
  return entry !== undefined && entry.schema === JSON.stringify(schema) ? entry.validate : undefined;
}
