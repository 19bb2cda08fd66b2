/**
 * The server's firmware hook on the device when the real hook needs root (deploy/debian/firmware-hook-request runs
 * it as `--firmware-hook`):
 *
 *   node firmware-hook-request.js SPOOL_DIR RESULT_DIR STEP [ARGS…]
 *
 * Hands the step to the root one-shot lidar-sensor-firmware.service (src/hal/linux/firmware-hook-spool.ts) and behaves as the
 * hook did: its output on stdout and stderr, its exit status.
 */
import { requestHook } from '../hal/linux/index.js';

const [spool, results, ...args] = process.argv.slice(2);
if (!spool || !results || args.length === 0) {
  process.stderr.write('usage: firmware-hook-request SPOOL_DIR RESULT_DIR STEP [ARGS…]\n');
  process.exitCode = 2;
} else {
  requestHook(spool, results, args).then(
    (result) => {
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
      process.exitCode = result.exit;
    },
    (error: unknown) => {
      process.stderr.write(`firmware-hook-request: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
