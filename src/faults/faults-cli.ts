/**
 * `lidar-sensor faults …`: a client of the fault-injection control listener for people who do
 * not want to write curl commands. It only talks HTTP to `--control` (it never opens the unit's data).
 */
import { parseArgs } from 'node:util';

export const FAULTS_USAGE = `Usage: lidar-sensor faults [--control URL] COMMAND

Talks to a unit's fault-injection control listener (started with --control; docs/faults.md).

Commands:
  add PLANE ACTION [NAME=VALUE ...] [--for MS] [--count N] [--method M]
        PLANE: udp (both streams), udp:lidar, udp:imu, http:PATH (\`*\` wildcards), unit
        e.g.  add udp:lidar drop rate=0.05 --for 20000
              add http:/api/v1/sensor/metadata* status status=503 retry_after_s=5 --count 3
              add unit alert id=OVERTEMP_WARNING --for 60000
  add --json RULE       a rule as JSON ({"selector":…,"action":…,"lifetime":…})
  list [--json]         active rules with what each has done, and recently ended ones
  remove ID             end one rule
  clear                 end every rule

Options:
  --control URL         the control listener (default $SENSOR_CONTROL_URL or http://127.0.0.1:8081)`;

interface Problem {
  detail?: string;
  errors?: { pointer: string; detail: string }[];
}

interface RuleView {
  id: string;
  selector: Record<string, unknown>;
  action: Record<string, unknown>;
  lifetime: Record<string, unknown>;
  applied: number;
  seen: number;
  reason?: string;
}

/** `NAME=VALUE`: numbers (and true/false) as JSON values, anything else as a string. */
function parseAssignment(text: string): [string, unknown] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`expected NAME=VALUE; got ${JSON.stringify(text)}`);
  const raw = text.slice(eq + 1);
  // An object or list (an alert's `vars`) is JSON, as `faults list` prints it.
  if (raw.startsWith('{') || raw.startsWith('[')) {
    try {
      return [text.slice(0, eq), JSON.parse(raw)];
    } catch (error) {
      throw new Error(`${text.slice(0, eq)}: not valid JSON (${(error as Error).message})`);
    }
  }
  const value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  return [text.slice(0, eq), value];
}

function selectorOf(plane: string, method: string | undefined): Record<string, unknown> {
  if (plane === 'unit') return { plane: 'unit' };
  if (plane === 'udp') return { plane: 'udp', stream: 'both' };
  if (plane.startsWith('udp:')) return { plane: 'udp', stream: plane.slice(4) };
  if (plane.startsWith('http:')) return { plane: 'http', path: plane.slice(5), method: method ?? '*' };
  throw new Error(`PLANE must be udp, udp:lidar, udp:imu, http:PATH or unit; got ${JSON.stringify(plane)}`);
}

/** The rule an `add` command line describes. */
export function ruleFromArgs(positionals: string[], flags: { for?: string; count?: string; method?: string }): object {
  const [plane, type, ...assignments] = positionals;
  if (!plane || !type) throw new Error('add needs PLANE and ACTION (see --help)');
  const action: Record<string, unknown> = { type, ...Object.fromEntries(assignments.map(parseAssignment)) };
  const lifetime: Record<string, number> = {};
  if (flags.for !== undefined) lifetime.duration_ms = Number(flags.for);
  if (flags.count !== undefined) lifetime.count = Number(flags.count);
  return { selector: selectorOf(plane, flags.method), action, lifetime };
}

/** A parameter as it would be typed back: objects and lists as JSON (`vars={"temperature_c":97}`). */
function formatValue(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

export function describeRule(r: RuleView): string {
  const { plane, ...where } = r.selector;
  const target = Object.values(where).join(' ');
  const { type, ...params } = r.action;
  const args = Object.entries(params)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(' ');
  const life =
    Object.entries(r.lifetime)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ') || 'until removed';
  const ended = r.reason ? `  ended: ${r.reason}` : '';
  const what = `${String(plane)}${target ? ` ${target}` : ''}  ${String(type)}${args ? ` ${args}` : ''}`;
  // Packet and request rules see traffic and act on some of it; a unit rule acts on the unit and sees nothing.
  const applied = plane === 'unit' ? `applied ${r.applied}` : `applied ${r.applied} of ${r.seen} seen`;
  return `${r.id.padEnd(5)} ${what}  [${life}]  ${applied}${ended}`;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(
      `cannot reach the control listener at ${base} (${String((error as Error).cause ?? (error as Error).message)}); ` +
        'start the unit with --control',
    );
  }
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const problem = (parsed ?? {}) as Problem;
    const lines = [`${res.status}: ${problem.detail ?? text}`];
    for (const e of problem.errors ?? []) lines.push(`  ${e.pointer || '(rule)'}: ${e.detail}`);
    throw new Error(lines.join('\n'));
  }
  return parsed;
}

/** Runs a `faults` command; returns the exit code (0 done, 1 refused or unreachable, 2 usage). */
export async function runFaultsCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        control: { type: 'string' },
        json: { type: 'boolean' },
        for: { type: 'string' },
        count: { type: 'string' },
        method: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`lidar-sensor faults: ${(error as Error).message}\n\n${FAULTS_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${FAULTS_USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const base = (values.control ?? env.SENSOR_CONTROL_URL ?? 'http://127.0.0.1:8081').replace(/\/+$/, '');
  const url = /^https?:\/\//.test(base) ? base : `http://${base}`;
  try {
    switch (command) {
      case 'add': {
        const rule = values.json ? JSON.parse(rest.join(' ')) : ruleFromArgs(rest, values);
        const added = (await call(url, 'POST', '/faults', rule)) as RuleView;
        process.stdout.write(`${describeRule(added)}\n`);
        return 0;
      }
      case 'list': {
        const list = (await call(url, 'GET', '/faults')) as { rules: RuleView[]; ended: RuleView[] };
        if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else {
          const lines = list.rules.map(describeRule);
          if (lines.length === 0) lines.push('no active fault rules');
          if (list.ended.length) lines.push('ended:', ...list.ended.map(describeRule));
          process.stdout.write(`${lines.join('\n')}\n`);
        }
        return 0;
      }
      case 'remove':
        if (!rest[0]) throw new Error('remove needs a rule id (see list)');
        await call(url, 'DELETE', `/faults/${encodeURIComponent(rest[0])}`);
        process.stdout.write(`removed ${rest[0]}\n`);
        return 0;
      case 'clear': {
        const { removed } = (await call(url, 'DELETE', '/faults')) as { removed: number };
        process.stdout.write(`removed ${removed} rule${removed === 1 ? '' : 's'}\n`);
        return 0;
      }
      default:
        process.stderr.write(`lidar-sensor faults: unknown command ${JSON.stringify(command)}\n\n${FAULTS_USAGE}\n`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`lidar-sensor faults: ${(error as Error).message}\n`);
    return 1;
  }
}
