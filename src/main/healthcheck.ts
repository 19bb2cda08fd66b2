#!/usr/bin/env node
/**
 * Container health check (Dockerfile HEALTHCHECK, compose, Kubernetes exec probes): exits 0 when the
 * unit answers on the address and port it really listens on. The unit is the container's main
 * process (PID 1, or HEALTHCHECK_PID); its command line says where it listens (src/main/health/).
 */
import { readFileSync } from 'node:fs';
import { argsAfterCli, healthTarget } from './health/health-target.js';

async function check(): Promise<string | null> {
  const pid = process.env.HEALTHCHECK_PID ?? '1';
  let args: string[] = [];
  try {
    args = argsAfterCli(readFileSync(`/proc/${pid}/cmdline`, 'latin1')) ?? [];
  } catch {
    // No such process (or not Linux): the environment and the defaults decide.
  }
  const target = healthTarget(args, process.env);
  const response = await fetch(target.url, { signal: AbortSignal.timeout(2500) });
  if (response.status !== 200) return `${target.url} answered ${response.status}`;
  if (target.kind === 'fleet') {
    const units = (await response.json()) as { name: string; state: string }[];
    const down = units.filter((u) => u.state !== 'running').map((u) => u.name);
    if (down.length) return `units not running: ${down.join(', ')}`;
  }
  return null;
}

check().then(
  (problem) => {
    if (problem) process.stderr.write(`unhealthy: ${problem}\n`);
    process.exitCode = problem ? 1 : 0;
  },
  (error: unknown) => {
    process.stderr.write(`unhealthy: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
