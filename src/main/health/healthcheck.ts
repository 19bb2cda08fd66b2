#!/usr/bin/env node
/**
 * Container health check (Dockerfile HEALTHCHECK, compose, Kubernetes exec probes): exits 0 when the
 * unit answers on the address and port it really listens on. The unit is the container's main
 * process (PID 1, or HEALTHCHECK_PID); its command line says where it listens (src/main/health/).
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { argsAfterCli, healthTarget } from './health-target.js';

const TIMEOUT_MS = 2500;

/**
 * Status and body of a GET, by node:http rather than fetch: fetch's undici and its WebAssembly parser
 * tripled the CPU of a check that runs every 10 s in every container of a fleet.
 */
function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { timeout: TIMEOUT_MS }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url} within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });
}

async function check(): Promise<string | null> {
  const pid = process.env.HEALTHCHECK_PID ?? '1';
  let args: string[] = [];
  try {
    args = argsAfterCli(readFileSync(`/proc/${pid}/cmdline`, 'latin1')) ?? [];
  } catch {
    // No such process (or not Linux): the environment and the defaults decide.
  }
  const target = healthTarget(args, process.env);
  const response = await httpGet(target.url);
  if (response.status !== 200) return `${target.url} answered ${response.status}`;
  if (target.kind === 'fleet') {
    const units = JSON.parse(response.body) as { name: string; state: string; problem?: string | null }[];
    const down = units
      .filter((u) => u.state !== 'running')
      .map((u) => (u.problem ? `${u.name} (${u.state}: ${u.problem})` : u.name));
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
