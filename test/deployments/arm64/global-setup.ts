/**
 * The arm64 stage's images, built once: the arm64 device and Node base (debootstrap --arch arm64 under emulation)
 * and the project's image from the same Dockerfile with `docker build --platform linux/arm64`. Without a Docker
 * engine or arm64 emulation the stage skips, saying why in one line.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { engineProblem, imagesCurrent } from '../docker.js';
import { arm64Problem } from './emulation.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BASE_IMAGE = process.env.LIDAR_BASE_IMAGE_ARM64 ?? 'lidar-sensor-base:bookworm-arm64';
const DEVICE_IMAGE = process.env.LIDAR_DEVICE_IMAGE_ARM64 ?? 'lidar-sensor-device:bookworm-arm64';
const IMAGE = process.env.LIDAR_SENSOR_IMAGE_ARM64 ?? 'lidar-sensor:arm64';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('image', IMAGE);
  project.provide('baseImage', BASE_IMAGE);
  project.provide('deviceImage', DEVICE_IMAGE);
  project.provide('buildSeconds', 0);
  const engine = await engineProblem();
  const problem = engine ? `no Docker engine answers here (${engine})` : arm64Problem();
  project.provide('dockerSkip', problem ?? '');
  if (problem) {
    console.log(`arm64 deployment tests skipped: ${problem}`);
    return;
  }
  const started = Date.now();
  if (!(await imagesCurrent(BASE_IMAGE, DEVICE_IMAGE)) || process.env.LIDAR_REBUILD_BASE === '1') {
    console.log(`building the arm64 images ${BASE_IMAGE} and ${DEVICE_IMAGE} under emulation`);
    execFileSync(
      'bash',
      ['scripts/deploy/build-base-image.sh', '--arch', 'arm64', '--device-image', DEVICE_IMAGE, BASE_IMAGE],
      { cwd: ROOT, stdio: 'inherit' },
    );
  }
  console.log(`building ${IMAGE} from the Dockerfile for linux/arm64 on ${BASE_IMAGE}`);
  execFileSync(
    'docker',
    [
      'build',
      // A failing step's container is removed too (the legacy builder keeps it otherwise).
      '--force-rm',
      '--platform',
      'linux/arm64',
      '--network',
      'host',
      '--build-arg',
      `NODE_IMAGE=${BASE_IMAGE}`,
      '-t',
      IMAGE,
      '.',
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(`arm64 images ready in ${seconds.toFixed(0)} s`);
  project.provide('buildSeconds', seconds);
}
