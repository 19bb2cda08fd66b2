// Part of `npm run build` (scripts/bundle.mjs calls it after tsc): compiles the configuration's value
// validators ahead of time into dist/parameter-validators.cjs, so that a unit never loads Ajv or
// generates code for them at run time (src/config/precompiled-validators.ts says why, and how a unit
// falls back to compiling when the file is missing or stale). Ajv's standalone code is the same code
// Ajv compiles at run time, with the same options and formats (src/config/config-formats.ts); esbuild
// then bundles it with the Ajv run-time helpers it requires and the format's own code. Each entry keeps
// its schema's JSON: the unit uses a validator only for exactly that schema. Plain JavaScript: it reads
// the registry from tsc's output (dist/config), so it runs without tsx.
import Ajv, { _ } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { bundleCommonJs, importBuilt } from './bundle-cjs.mjs';

/** Writes dist/parameter-validators.cjs; returns esbuild's metafile of it. */
export async function buildParameterValidators(root) {
  const { PARAMETERS, DEPRECATED_ALIASES } = await importBuilt(root, 'config/registry.js');
  const { CONFIG_AJV_OPTIONS, CONFIG_FORMATS } = await importBuilt(root, 'config/config-formats.js');
  const ajv = new Ajv.default({
    ...CONFIG_AJV_OPTIONS,
    // The generated code takes the formats from the module that defines them (bundled below).
    code: { source: true, formats: _`require("./src/config/config-formats.ts").CONFIG_FORMATS` },
  });
  for (const [name, format] of Object.entries(CONFIG_FORMATS)) ajv.addFormat(name, format);
  const entries = [...PARAMETERS, ...DEPRECATED_ALIASES];
  const exportNames = {};
  for (const { name, schema } of entries) {
    ajv.addSchema(schema, `parameter:${name}`);
    exportNames[name] = `parameter:${name}`;
  }
  // Standalone code assigns `exports.<name>`: run inside a function, it fills an object of our own.
  const contents = [
    'const validators = (function (exports) {',
    standaloneCode.default(ajv, exportNames),
    'return exports; })({});',
    `module.exports = {${entries
      .map(
        ({ name, schema }) =>
          `${JSON.stringify(name)}: { schema: ${JSON.stringify(JSON.stringify(schema))}, validate: validators[${JSON.stringify(name)}] }`,
      )
      .join(',\n')}};`,
  ].join('\n');
  return bundleCommonJs(root, 'parameter-validators.cjs', contents);
}
