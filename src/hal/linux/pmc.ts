/**
 * linuxptp's management client: `pmc -u -b 0 -s <ptp4l's uds_address> 'GET CURRENT_DATA_SET' …`
 * asks the local ptp4l over its Unix management socket and prints one block per response:
 *
 *     	c20405.fffe.cd1cfa-1 seq 2 RESPONSE MANAGEMENT PORT_DATA_SET
 *     		portIdentity            c20405.fffe.cd1cfa-1
 *     		portState               LISTENING
 *
 * The parser turns pmc's names into the spec's snake_case (`gm.ClockClass` → `gm_clock_class`,
 * `logSyncInterval` → `log_sync_interval`) and its values into JSON types: hexadecimal fields
 * (`0xfe`) and counters are integers, offsets numbers, `gmPresent` a boolean, identities strings,
 * `ingress_time` (ns since the epoch) an exact bigint.
 */
import type { TSchema } from '@sinclair/typebox';
import type { PtpDataSets } from '../time.js';
import { BigIntSchema, PtpDataSetsSchema } from '../time-documents.js';
import { runCommand } from './run-command.js';

export class PmcError extends Error {}

export const PTP_DATA_SET_IDS = [
  'CURRENT_DATA_SET',
  'PARENT_DATA_SET',
  'PORT_DATA_SET',
  'TIME_PROPERTIES_DATA_SET',
  'TIME_STATUS_NP',
] as const;
type DataSetId = (typeof PTP_DATA_SET_IDS)[number];

type Kind = 'number' | 'string' | 'boolean' | 'bigint';

/** Each data set's member of GET /api/v1/time/ptp; its fields and their types come from the member's schema. */
const MEMBERS: { [K in DataSetId]: keyof PtpDataSets } = {
  CURRENT_DATA_SET: 'current_data_set',
  PARENT_DATA_SET: 'parent_data_set',
  PORT_DATA_SET: 'port_data_set',
  TIME_PROPERTIES_DATA_SET: 'time_properties_data_set',
  TIME_STATUS_NP: 'time_status_np',
};

/** The JSON type a field's schema asks for (integers and numbers alike: pmc prints both as numbers). */
function kindOf(schema: TSchema): Kind {
  if (schema === BigIntSchema) return 'bigint';
  return schema.type === 'string' || schema.type === 'boolean' ? schema.type : 'number';
}

const LAYOUT = Object.fromEntries(
  PTP_DATA_SET_IDS.map((id) => {
    const member = MEMBERS[id];
    const properties: Record<string, TSchema> = PtpDataSetsSchema.properties[member].properties;
    const fields = Object.fromEntries(Object.entries(properties).map(([field, schema]) => [field, kindOf(schema)]));
    return [id, { member, fields }];
  }),
) as { [K in DataSetId]: { member: keyof PtpDataSets; fields: Record<string, Kind> } };

/** pmc's field names → snake_case: `gm.ClockClass` → `gm_clock_class`, `master_offset` unchanged. */
export function snakeCase(name: string): string {
  return name
    .replace(/\./g, '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/_+/g, '_');
}

/** The response blocks of pmc's output: data set id → (pmc field name → raw text). */
export function parsePmcBlocks(output: string): Map<string, Map<string, string>> {
  const blocks = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of output.split('\n')) {
    const header = /\sRESPONSE\s+MANAGEMENT\s+([A-Z0-9_]+)\s*$/.exec(line);
    if (header) {
      current = new Map();
      blocks.set(header[1], current);
      continue;
    }
    const field = /^\t\t(\S+)\s+(.*?)\s*$/.exec(line);
    if (field && current) current.set(field[1], field[2]);
    else current = undefined; // "sending: …" lines and anything else end a block
  }
  return blocks;
}

function convert(raw: string, kind: Kind, where: string): number | string | boolean | bigint {
  switch (kind) {
    case 'string':
      return raw;
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      break;
    case 'bigint':
      if (/^-?[0-9]+$/.test(raw)) return BigInt(raw);
      break;
    case 'number': {
      const value = /^0x[0-9a-f]+$/i.test(raw) ? Number.parseInt(raw, 16) : Number(raw);
      if (raw !== '' && Number.isFinite(value)) return value;
      break;
    }
  }
  throw new PmcError(`pmc: ${where} = ${JSON.stringify(raw)} is not a ${kind}`);
}

/** The five data sets from pmc's output; throws PmcError naming what is missing or malformed. */
export function parsePtpDataSets(output: string): PtpDataSets {
  const blocks = parsePmcBlocks(output);
  const result: Record<string, Record<string, unknown>> = {};
  for (const id of PTP_DATA_SET_IDS) {
    const block = blocks.get(id);
    if (!block) throw new PmcError(`pmc: no ${id} response from ptp4l`);
    const bySnakeName = new Map([...block].map(([name, value]) => [snakeCase(name), value]));
    const { member, fields } = LAYOUT[id];
    const values: Record<string, unknown> = {};
    for (const [field, kind] of Object.entries(fields)) {
      const raw = bySnakeName.get(field);
      if (raw === undefined) throw new PmcError(`pmc: ${id} has no ${field}`);
      values[field] = convert(raw, kind, `${id}.${field}`);
    }
    result[member] = values;
  }
  // Every member was filled above from LAYOUT, which is PtpDataSets' own schema.
  return result as unknown as PtpDataSets;
}

export interface PmcOptions {
  /** ptp4l's `uds_address`; default /var/run/ptp4l. */
  socketPath?: string;
  /** pmc's own bound socket (pmc -i); default /var/run/pmc.PID, which only root may create. */
  clientSocket?: string;
  /** The management messages' transportSpecific (pmc -t): 1 under the gPTP-based profiles. */
  transportSpecific?: number;
  timeoutMs?: number;
  /** Cancels the query (the unit is stopping, or the caller's own bound ran out). */
  signal?: AbortSignal;
}

/** Asks the local ptp4l for the five data sets in one pmc run. */
export async function queryPtpDataSets(options: PmcOptions = {}): Promise<PtpDataSets> {
  const command = [
    'pmc',
    '-u',
    '-b',
    '0',
    '-s',
    options.socketPath ?? '/var/run/ptp4l',
    ...(options.clientSocket ? ['-i', options.clientSocket] : []),
    '-t',
    (options.transportSpecific ?? 0).toString(16),
  ];
  const output = await runCommand([...command, ...PTP_DATA_SET_IDS.map((id) => `GET ${id}`)], {
    timeoutMs: options.timeoutMs ?? 3000,
    signal: options.signal,
  });
  return parsePtpDataSets(output);
}
