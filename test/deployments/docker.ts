/**
 * The Docker command line, as the deployment tests drive it: every call is the real `docker` (or
 * `docker-compose`) binary, so what passes here is what a user's commands do.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Names of everything the deployment tests create start with this, so one sweep finds leftovers (LIDAR_DEPLOY_PREFIX: another, for a second run beside this one on the same engine). */
export const PREFIX = process.env.LIDAR_DEPLOY_PREFIX ?? 'lidar-deploy-test';

/** Runs a command line tool of Docker's and returns its trimmed standard output; rejects on a non-zero exit. */
async function run(tool: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync(tool, args, {
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...env },
  });
  return stdout.trim();
}

export function docker(args: string[], timeoutMs = 300_000, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return run('docker', args, timeoutMs, env);
}

export function compose(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return run('docker-compose', args, 600_000, env);
}

/** The engine answers, or why not (one line). */
export async function engineProblem(): Promise<string | undefined> {
  try {
    await docker(['info', '--format', '{{.ServerVersion}}'], 20_000);
    return undefined;
  } catch (error) {
    const message = (error as { stderr?: string }).stderr ?? String(error);
    return message.trim().split('\n').at(-1);
  }
}

export async function inspect(container: string, format: string): Promise<string> {
  return docker(['inspect', '--format', format, container]);
}

/** The host port Docker published for a container's port 80. */
export async function publishedPort(container: string): Promise<number> {
  const mapping = await docker(['port', container, '80/tcp']);
  const port = Number(/:(\d+)\s*$/m.exec(mapping)?.[1]);
  if (!Number.isInteger(port)) throw new Error(`no published port 80 in "${mapping}"`);
  return port;
}

/** Removes containers, volumes and networks whose names start with `prefix`; tolerant of what is gone. */
export async function removeAll(prefix: string): Promise<void> {
  const names = async (list: string[], field: string): Promise<string[]> =>
    (await docker([...list, '--format', `{{.${field}}}`]).catch(() => ''))
      .split('\n')
      .filter((name) => name.startsWith(prefix));
  const containers = await names(['ps', '-a'], 'Names');
  if (containers.length > 0) await docker(['rm', '-f', '-v', ...containers]).catch(() => '');
  const volumes = await names(['volume', 'ls'], 'Name');
  if (volumes.length > 0) await docker(['volume', 'rm', '-f', ...volumes]).catch(() => '');
  const networks = await names(['network', 'ls'], 'Name');
  if (networks.length > 0) await docker(['network', 'rm', ...networks]).catch(() => '');
}

/** The Node.js line the package bundles and the local base runs (.nvmrc). */
export const NODE_LINE = readFileSync(new URL('../../.nvmrc', import.meta.url), 'utf8').trim();

/**
 * The local images exist and are of the current recipe: the base runs the LTS line of .nvmrc and has ethtool (the
 * device's speed override); the device has no Node.js at all.
 */
export async function imagesCurrent(base: string, device: string): Promise<boolean> {
  const probe = async (image: string, script: string): Promise<string | undefined> => {
    if ((await docker(['image', 'ls', '-q', image])) === '') return undefined;
    return docker(['run', '--rm', '--name', `${PREFIX}-image-check`, image, 'sh', '-c', script]).catch(() => undefined);
  };
  const baseNode = await probe(base, 'command -v ethtool >/dev/null && node -p process.versions.node');
  const deviceNode = await probe(device, 'command -v node || echo none');
  return baseNode?.split('.')[0] === NODE_LINE && deviceNode === 'none';
}
