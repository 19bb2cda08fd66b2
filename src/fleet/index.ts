/**
 * `lidar-sensor fleet`: many units, each on its own address with its own data directory, supervised (process
 * model `process`: a child process each; `shared`: all in this process, started through the entry point's
 * StartUnit). The entry point (src/main/cli-command.ts) loads it when the command line asks for it.
 * dist/fleet/example-client.js is bundled from example-client.ts (scripts/bundle.mjs).
 */
export { runFleetCommand } from './fleet-command.js';
export { FLEET_HELP, fleetOptionsTableMarkdown, parseFleetOptions } from './fleet-options.js';
export type { FleetOptions } from './fleet-options.js';
export type { StartUnit } from './shared-unit.js';
