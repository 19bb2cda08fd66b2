#!/usr/bin/env node
/**
 * The `lidar-sensor` command's entry. It sets the process-wide runtime options that must come before
 * any other code is loaded (V8's compile cache, the young generation's growth), then loads the command
 * itself (cli-command.ts).
 *
 * Why a module of its own, importing nothing but these two: an ES module evaluates all of its static
 * imports before its own body. Set from the command's module, the options came after the ten chunks it
 * imports (Fastify among them) had been compiled, so none of them went into the compile cache, and their
 * loading had already doubled the young generation's semi-spaces: memory every unit kept for as long as it
 * ran (docs/benchmarks.md, memory).
 */
import { enableCompileCache } from './compile-cache.js';
import { keepYoungGenerationSmall } from './young-generation.js';

enableCompileCache();
keepYoungGenerationSmall();
await import('./cli-command.js');
