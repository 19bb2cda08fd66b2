/**
 * The privileged half of a PTP profile change on the device (deploy/lidar-sensor-ptp-profile.service, run as root
 * by a path unit whenever the unprivileged server rewrites its request file):
 *
 *   node ptp-profile-apply.js REQUEST_FILE PTP4L_CONFIG PTP4L_UNIT
 *
 * From the request (the managed block the server wrote, src/hal/linux/ptp4l-config.ts) it takes only the profile's name, and only
 * one of the known profiles; the block written into ptp4l's own configuration is rendered here again. So the server
 * can choose a profile but never put a setting of its own into a root daemon's configuration. ptp4l is restarted
 * (try-restart: only when it runs) when its configuration changed.
 */
import { readFile } from 'node:fs/promises';
import { profileInBlock, runCommand, writeProfileToPtp4lConfig } from '../hal/linux/index.js';

async function main(argv: readonly string[]): Promise<number> {
  const [request, config, unit] = argv;
  if (!request || !config || !unit) {
    process.stderr.write('usage: ptp-profile-apply REQUEST_FILE PTP4L_CONFIG PTP4L_UNIT\n');
    return 2;
  }
  const profile = profileInBlock(await readFile(request, 'utf8'));
  if (profile === undefined) {
    process.stderr.write(`${request} names no known PTP profile: nothing changed\n`);
    return 1;
  }
  if (await writeProfileToPtp4lConfig(config, profile)) {
    await runCommand(['systemctl', 'try-restart', unit], { timeoutMs: 30_000 });
    process.stdout.write(`PTP profile ${profile || 'default'} written to ${config}; ${unit} restarted\n`);
  } else process.stdout.write(`PTP profile ${profile || 'default'} already in ${config}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ptp-profile-apply: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
