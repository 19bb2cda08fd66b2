/**
 * What a container health check asks: the address and port the unit really listens on, read the
 * way the unit reads them (its own command line, then SENSOR_* variables, then the defaults), so a
 * `--port 8081` after the image name or `-e SENSOR_PORT=8081` are both followed.
 */
import { parseCliOptions, type OptionsOf } from '../cli-options.js';
import { parseFleetOptions } from '../../fleet/index.js';

export interface HealthTarget {
  url: string;
  /** `unit`: one sensor (200 on sensor_info); `fleet`: the supervisor (every unit running in GET /units). */
  kind: 'unit' | 'fleet';
}

/** A wildcard listen address is checked over loopback; a specific one at itself. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** `args`: the unit's command-line arguments after `cli.js`. */
export function healthTarget(args: readonly string[], env: NodeJS.ProcessEnv): HealthTarget {
  if (args[0] === 'fleet') {
    const options = parseFleetOptions(args.slice(1));
    if (options === 'help') throw new Error('the command only prints help');
    return { kind: 'fleet', url: `http://${reachableHost(options.metricsAddress)}:${options.metricsPort}/units` };
  }
  const parsed = parseCliOptions(args, env);
  if (parsed === 'help') throw new Error('the command only prints help');
  const options: OptionsOf<'listen'> = parsed;
  return {
    kind: 'unit',
    url: `http://${reachableHost(options.host)}:${options.port}/api/v1/sensor/metadata/sensor_info`,
  };
}

/** The arguments after the `…cli.js` element of a process's command line (NUL-separated, as /proc/<pid>/cmdline). */
export function argsAfterCli(cmdline: string): string[] | null {
  const argv = cmdline.split('\0');
  if (argv.at(-1) === '') argv.pop();
  const index = argv.findIndex((arg) => /(^|\/)cli\.[jt]s$/.test(arg));
  return index < 0 ? null : argv.slice(index + 1);
}
