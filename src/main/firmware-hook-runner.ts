/**
 * The privileged half of the firmware hook on the device (deploy/lidar-sensor-firmware.service, run as root by
 * lidar-sensor-firmware.path whenever the server has left a request):
 *
 *   node firmware-hook-runner.js SPOOL_DIR RESULT_DIR IMAGE_DIR HOOK
 *
 * Runs HOOK for each waiting request whose arguments are a call of the hook protocol
 * (src/hal/linux/firmware-hook-spool.ts says exactly what is accepted), and writes each result where the waiting
 * requester reads it.
 */
import { runSpooledRequests } from '../hal/linux/index.js';

const [spool, results, imageDir, hook] = process.argv.slice(2);
if (!spool || !results || !imageDir || !hook) {
  process.stderr.write('usage: firmware-hook-runner SPOOL_DIR RESULT_DIR IMAGE_DIR HOOK\n');
  process.exitCode = 2;
} else {
  runSpooledRequests(spool, results, imageDir, hook).catch((error: unknown) => {
    process.stderr.write(`firmware-hook-runner: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
