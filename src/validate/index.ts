/**
 * `lidar-sensor validate URL`: a conformance client of the sensor interface (docs/validate.md). It imports
 * nothing else of src/; the entry point (src/main/cli-command.ts) loads it when the command line asks for it.
 */
export { runValidateCommand } from './validate-command.js';
export type { OpenApiDocument, OwnDocument } from './response-schemas.js';
