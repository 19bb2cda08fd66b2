/**
 * What the process loads on first use rather than at start: packages required when a schema is first compiled
 * or a zip first read (bundled beside the CLI by scripts/bundle.mjs), files the build writes beside the bundle,
 * and the checks that run those compilers. The layer just above the model, which does no I/O.
 */
export { builtFile } from './built-file.js';
export { installedPackage } from './installed-package.js';
export { zoneSetSchemaErrors } from './zone-set-schema-check.js';
