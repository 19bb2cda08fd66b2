// Part of `npm run build` (scripts/bundle.mjs calls it after tsc): compiles the routes' request validators
// ahead of time into dist/request-validators.cjs (src/routes/http/precompiled-request-validators.ts says
// why). Which schemas: a unit is built from tsc's output (dist/main/unit.js, in a temporary data
// directory, never listening) and made ready, and validator-compiler.ts tells of every schema Fastify
// hands it. How: @fastify/ajv-compiler's own standalone mode, with the options the routes use, so the code
// is what it would compile at run time; esbuild bundles it with the Ajv helpers it requires. Keyed by each
// schema's JSON. Plain JavaScript: it runs without tsx.
import { StandaloneValidator } from '@fastify/ajv-compiler';
import { _ } from 'ajv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCommonJs, importBuilt } from './bundle-cjs.mjs';

/** Writes dist/request-validators.cjs; returns esbuild's metafile of it. */
export async function buildRequestValidators(root) {
  const { onRequestSchema, ROUTE_AJV_OPTIONS } = await importBuilt(root, 'routes/http/validator-compiler.js');
  const schemas = new Map();
  onRequestSchema((schema) => schemas.set(JSON.stringify(schema), schema));
  const { createUnit } = await importBuilt(root, 'main/unit.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'lidar-sensor-build-'));
  try {
    const unit = await createUnit({ dataDir });
    await unit.app.ready();
    await unit.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (schemas.size === 0) throw new Error('request-validators: the routes named no schema to compile');

  const codes = new Map();
  const compile = StandaloneValidator({
    readMode: false,
    storeFunction: (route, code) => codes.set(JSON.stringify(route.schema), code),
  })(
    {},
    {
      customOptions: {
        ...ROUTE_AJV_OPTIONS,
        // The generated code takes the formats (udp_dest's) from the module that defines them, bundled below.
        code: { source: true, formats: _`require("./src/config/config-formats.ts").CONFIG_FORMATS` },
      },
    },
  );
  for (const schema of schemas.values()) compile({ schema, method: 'GET', url: '/', httpPart: 'querystring' });

  // Each standalone module assigns `module.exports`: run inside a function, it gives its validator.
  const entries = [...codes].map(
    ([key, code]) =>
      `${JSON.stringify(key)}: (function (module) { var exports = module.exports;\n${code}\nreturn module.exports; })({ exports: {} })`,
  );
  return bundleCommonJs(root, 'request-validators.cjs', `module.exports = {\n${entries.join(',\n')}\n};`);
}
