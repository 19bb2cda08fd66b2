/**
 * The fleet file (YAML or JSON; YAML is a superset): which units, and what makes each one itself.
 *
 *   defaults: { product: OS-1-128, port: 80 }
 *   units:
 *     - { name: front-left, serial: "122201000001", address: 127.0.1.1, mode: 1024x10 }
 *     - { name: rear, product: OS-2-32, replay: recordings/rear.pcap, config: { udp_dest: 127.0.0.1 } }
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

export interface UnitEntry {
  name?: string;
  product?: string;
  serial?: string;
  address?: string;
  port?: number;
  /** lidar_mode set on the unit's first boot. */
  mode?: string;
  /** Configuration parameters set (and persisted) on the unit's first boot. */
  config?: Record<string, unknown>;
  /** Recording the unit replays instead of the simulated scene (the unit's `--replay FILE`). */
  replay?: string;
  /** Further options of the unit's command line. */
  args?: string[];
}

export interface FleetFile {
  defaults: Omit<UnitEntry, 'name' | 'serial' | 'address'>;
  units: UnitEntry[];
}

const unitProperties = {
  product: { type: 'string', minLength: 1 },
  port: { type: 'integer', minimum: 1, maximum: 65535 },
  mode: { type: 'string', minLength: 1 },
  config: { type: 'object' },
  replay: { type: 'string', minLength: 1 },
  args: { type: 'array', items: { type: 'string' } },
} as const;

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['units'],
  properties: {
    defaults: { type: 'object', additionalProperties: false, properties: unitProperties },
    units: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...unitProperties,
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$' },
          serial: { type: 'string', pattern: '^[0-9]{1,13}$' },
          address: { type: 'string', format: 'ipv4' },
        },
      },
    },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat('ipv4', /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/);
const validate = ajv.compile(schema);

export class FleetFileError extends Error {}

/** Parses and checks a fleet file's text; `replay` paths are taken relative to `baseDir`. */
export function parseFleetFile(text: string, baseDir: string): FleetFile {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new FleetFileError(`not valid YAML/JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    );
    throw new FleetFileError(problems.join('; '));
  }
  const file = data as unknown as { defaults?: FleetFile['defaults']; units: UnitEntry[] };
  const absolute = (entry: { replay?: string }) => (entry.replay ? { replay: resolve(baseDir, entry.replay) } : {});
  const defaults = { ...(file.defaults ?? {}), ...absolute(file.defaults ?? {}) };
  return { defaults, units: file.units.map((u) => ({ ...u, ...absolute(u) })) };
}

export function readFleetFile(path: string): FleetFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new FleetFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseFleetFile(text, dirname(resolve(path)));
  } catch (error) {
    throw new FleetFileError(`${path}: ${(error as Error).message}`);
  }
}
