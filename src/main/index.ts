// The entry points' public face, for programs that embed the server (the bench, the fleet's shared
// process): start one unit from options as the CLI would. The CLI itself is `cli.ts` (built to
// dist/cli.js), the container's health check `health/healthcheck.ts` (dist/healthcheck.js).
export { helpText, parseCliOptions, UsageError } from './cli-options.js';
export type { CliOptions, OptionsOf } from './cli-options.js';
export { startServer, StartupError } from './server.js';
export type { RunningServer } from './server.js';
export { createUnit } from './unit.js';
export type { Unit, UnitOptions } from './unit.js';
