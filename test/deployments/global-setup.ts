/**
 * Builds what the deployment tests run, once: a local Debian 12 + Node base (no registry is reachable in CI)
 * and the project's image from the repository's own Dockerfile on that base. Without a Docker engine the tests
 * skip, saying so in one line.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { engineProblem, imagesCurrent } from './docker.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BASE_IMAGE = process.env.LIDAR_BASE_IMAGE ?? 'lidar-sensor-base:bookworm';
export const DEVICE_IMAGE = process.env.LIDAR_DEVICE_IMAGE ?? 'lidar-sensor-device:bookworm-amd64';
export const IMAGE = process.env.LIDAR_SENSOR_IMAGE ?? 'lidar-sensor:latest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the deployment tests cannot run here, or '' when they can. */
    dockerSkip: string;
    image: string;
    baseImage: string;
    deviceImage: string;
    buildSeconds: number;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const problem = await engineProblem();
  project.provide('image', IMAGE);
  project.provide('baseImage', BASE_IMAGE);
  project.provide('deviceImage', DEVICE_IMAGE);
  if (problem) {
    console.log(`deployment tests skipped: no Docker engine answers here (${problem})`);
    project.provide('dockerSkip', problem);
    project.provide('buildSeconds', 0);
    return;
  }
  project.provide('dockerSkip', '');
  const started = Date.now();
  if (!(await imagesCurrent(BASE_IMAGE, DEVICE_IMAGE)) || process.env.LIDAR_REBUILD_BASE === '1') {
    console.log(`building the images ${BASE_IMAGE} and ${DEVICE_IMAGE} (debootstrap Debian 12; the base with Node.js)`);
    execFileSync('bash', ['scripts/deploy/build-base-image.sh', '--device-image', DEVICE_IMAGE, BASE_IMAGE], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  console.log(`building ${IMAGE} from the Dockerfile on ${BASE_IMAGE}`);
  // --force-rm: a failing step's container is removed too (the legacy builder keeps it otherwise).
  execFileSync(
    'docker',
    ['build', '--force-rm', '--network', 'host', '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, '.'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(`images ready in ${seconds.toFixed(0)} s`);
  project.provide('buildSeconds', seconds);
}
