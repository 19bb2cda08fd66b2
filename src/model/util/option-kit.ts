/**
 * The parts a table of command-line options is built from: one declaration per option (flag, environment
 * variable, default, help, the group of consumers it belongs to, and the parser that turns its text into a
 * typed value or a usage error), and what reads argv and the environment through such a table and renders
 * its `--help` lines and its Markdown table. The tables themselves are the unit's (src/main/cli-options.ts)
 * and the fleet's (src/fleet/fleet-options.ts).
 *
 * Arguments are read by node:util `parseArgs`: a CLI library (commander, cleye, convict) would bring its own
 * help layout and error wording, and both are part of what users and tests already rely on.
 */
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

/** The levels of every command's `--log-level` (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * How an option is written: `--flag VALUE`, a switch `--flag`, `--flag` / `--no-flag` (value words on/off),
 * or a list: `--flag VALUE` repeated, its texts joined by LIST_SEPARATOR for the parser.
 */
export type OptionKind = 'value' | 'switch' | 'negatable' | 'list';

/** Joins a list option's texts (NUL: no argument can hold it). */
export const LIST_SEPARATOR = '\0';

/** Turns an option's text (flag, else environment, else default; undefined without any) into its value. */
export type OptionParser<V> = (text: string | undefined, name: string) => V;

export interface OptionDef<V, G extends string> {
  flag: string;
  /** The flag's earlier name, still accepted (scripts use it); giving both is a usage error. */
  former?: string;
  /** Derived from the flag: `--data-dir` is `SENSOR_DATA_DIR`; none for a command that reads no environment. */
  env: string | undefined;
  kind: OptionKind;
  /** What the value looks like in `--help` (`PORT`, `CIDR[,CIDR...]`); empty for a switch. */
  valueName: string;
  /** The text used when neither flag nor environment gives one, as `--help` shows it. */
  default: string | undefined;
  help: string;
  /** The consumers that read it (a slice of the options: `OptionsOf<'http'>`). */
  group: G;
  parse: OptionParser<V>;
}

/** The name a usage error gives: the flag, or for a switch (whose flag takes no text) its variable if any. */
export function nameOf(def: OptionDef<unknown, string>): string {
  const takesText = def.kind === 'value' || def.kind === 'list';
  return takesText || def.env === undefined ? `--${def.flag}` : def.env;
}

/**
 * Declares one option; the value type comes from its parser, the group stays a literal type.
 * `environment: false`: no SENSOR_* variable (a command whose units read the environment themselves).
 */
export function option<V, const G extends string>(
  def: Omit<OptionDef<V, G>, 'env' | 'kind' | 'valueName' | 'default'> & {
    kind?: OptionKind;
    valueName?: string;
    default?: string;
    environment?: false;
  },
): OptionDef<V, G> {
  const { environment, ...rest } = def;
  return {
    kind: 'value',
    valueName: '',
    default: undefined,
    ...rest,
    env: environment === false ? undefined : `SENSOR_${def.flag.toUpperCase().replace(/-/g, '_')}`,
  };
}

export type OptionTable = Record<string, OptionDef<unknown, string>>;

/** The parsed options of a table, each typed by its parser. */
export type OptionValues<T extends OptionTable> = {
  [K in keyof T]: T[K] extends OptionDef<infer V, string> ? V : never;
};

/** The options of the groups `G` only. */
export type GroupValues<T extends OptionTable, G extends string> = {
  [K in keyof T as T[K]['group'] extends G ? K : never]: T[K] extends OptionDef<infer V, string> ? V : never;
};

const got = (text: string | undefined) => `got ${JSON.stringify(text)}`;

/** Parsers with the wording every usage error follows: what the option must be, then what it got. */
export const parsers = {
  text: (text: string | undefined) => text ?? '',
  /** Unset when empty. */
  optionalText: (text: string | undefined) => text || undefined,
  nonEmpty: (text: string | undefined, name: string) => {
    if (!text) throw new UsageError(`${name} must not be empty`);
    return text;
  },
  integer:
    (min: number, max: number) =>
    (text: string | undefined, name: string): number => {
      const value = Number(text);
      if (!Number.isInteger(value) || value < min || value > max)
        throw new UsageError(`${name} must be an integer ${min}..${max}; ${got(text)}`);
      return value;
    },
  /** A finite number that `accepts` takes; `must` says what the error asks for ("a number of seconds > 0"). */
  number:
    (accepts: (value: number) => boolean, must: string) =>
    (text: string | undefined, name: string): number => {
      const value = Number(text);
      if (!Number.isFinite(value) || !accepts(value)) throw new UsageError(`${name} must be ${must}; ${got(text)}`);
      return value;
    },
  oneOf:
    <const W extends string>(words: readonly W[]) =>
    (text: string | undefined, name: string): W => {
      if (!(words as readonly string[]).includes(text ?? ''))
        throw new UsageError(`${name} must be one of ${words.join(', ')}; ${got(text)}`);
      return text as W;
    },
  /** Digits only, in a range: "--count must be an integer from 1 to 1024; got "0"". */
  wholeNumber:
    (min: number, max: number) =>
    (text: string | undefined, name: string): number => {
      const value = Number(text);
      if (!/^\d+$/.test(text ?? '') || value < min || value > max)
        throw new UsageError(`${name} must be an integer from ${min} to ${max}; ${got(text)}`);
      return value;
    },
  /** Unset when absent; otherwise as `wholeNumber`. */
  optionalWholeNumber:
    (min: number, max: number) =>
    (text: string | undefined, name: string): number | undefined =>
      text === undefined ? undefined : parsers.wholeNumber(min, max)(text, name),
  /** Unset when absent; otherwise 1 to `most` decimal digits, kept as text (a serial number). */
  digits:
    (most: number) =>
    (text: string | undefined, name: string): string | undefined => {
      if (text !== undefined && !new RegExp(`^\\d{1,${most}}$`).test(text))
        throw new UsageError(`${name} must be decimal digits; ${got(text)}`);
      return text;
    },
  /** A list option's texts (kind 'list'); none when absent. */
  list: (text: string | undefined): string[] => (text ? text.split(LIST_SEPARATOR) : []),
  /** A switch: on with 1/true/yes, off with 0/false/no or empty, any case; absent is off. */
  switch: (text: string | undefined, name: string): boolean => {
    const word = (text ?? 'false').toLowerCase();
    if (['1', 'true', 'yes'].includes(word)) return true;
    if (['0', 'false', 'no', ''].includes(word)) return false;
    throw new UsageError(`${name} must be 1/true/yes or 0/false/no; ${got(text)}`);
  },
  /** Unset when empty; otherwise `read` gives the value or throws, and its message follows the option's name. */
  optional:
    <V>(read: (text: string) => V, separator = ': ') =>
    (text: string | undefined, name: string): V | undefined => {
      if (!text) return undefined;
      try {
        return read(text);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`${name}${separator}${(error as Error).message}`);
      }
    },
};

/** What argv and the environment say of each option: its text, whether the user gave it, the name it came by. */
export interface OptionTexts {
  /** Flag, else environment, else default; undefined without any. A list's texts joined by LIST_SEPARATOR. */
  texts: Record<string, string | undefined>;
  given: Set<string>;
  /** The name an error about the option uses: its former flag when that is how it was given. */
  names: Record<string, string>;
}

type ArgSpec = { type: 'string' | 'boolean'; multiple?: true };

/** The parseArgs entries of an option: its flag, its former flag, and for a negatable one `--no-flag`. */
function argsOf(o: OptionDef<unknown, string>): [string, ArgSpec][] {
  const spec: ArgSpec =
    o.kind === 'list' ? { type: 'string', multiple: true } : { type: o.kind === 'value' ? 'string' : 'boolean' };
  const entries: [string, ArgSpec][] = [[o.flag, spec]];
  if (o.former) entries.push([o.former, spec]);
  if (o.kind === 'negatable') entries.push([`no-${o.flag}`, { type: 'boolean' }]);
  return entries;
}

/** The flag's text as the option's parser takes it (a list joined; a switch true/false; a negatable on/off). */
function flagText(o: OptionDef<unknown, string>, values: Record<string, unknown>, flag: string): string | undefined {
  const value = values[flag];
  if (o.kind === 'negatable' && flag === o.flag) return values[`no-${o.flag}`] ? 'off' : value ? 'on' : undefined;
  if (Array.isArray(value)) return value.join(LIST_SEPARATOR);
  return typeof value === 'boolean' ? String(value) : (value as string | undefined);
}

/**
 * The text of each option (flag, else environment, else default) and which ones the user gave; `'help'`
 * for `-h`/`--help`. Unknown flags and positional arguments are usage errors.
 */
export function readOptionTexts(
  table: OptionTable,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): OptionTexts | 'help' {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(Object.values(table).flatMap(argsOf)),
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const result: OptionTexts = { texts: {}, given: new Set(), names: {} };
  for (const [key, o] of Object.entries(table)) {
    const now = flagText(o, values, o.flag);
    const before = o.former ? flagText(o, values, o.former) : undefined;
    if (now !== undefined && before !== undefined)
      throw new UsageError(`--${o.former} is the former name of --${o.flag}; give one of them`);
    const stated = now ?? before ?? (o.env ? env[o.env] : undefined);
    if (stated !== undefined) result.given.add(key);
    result.texts[key] = stated ?? o.default;
    result.names[key] = before !== undefined ? `--${o.former}` : nameOf(o);
  }
  return result;
}

/** Each option's text through its parser, in table order (the first option at fault is the one reported). */
export function parseOptionTexts<T extends OptionTable>(
  table: T,
  texts: Record<string, string | undefined>,
  names: Record<string, string>,
): OptionValues<T> {
  const values: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(table)) values[key] = def.parse(texts[key], names[key]);
  return values as OptionValues<T>;
}

function usageOf(o: OptionDef<unknown, string>): string {
  if (o.kind === 'negatable') return `--${o.flag}, --no-${o.flag}`;
  return o.kind === 'switch' ? `--${o.flag}` : `--${o.flag} ${o.valueName}`;
}

const formerNote = (o: OptionDef<unknown, string>) =>
  o.former ? ` (--${o.former}, its former name, is still accepted)` : '';

/** A `--help` line: how to write the flag, in a column of its own, then what it does. */
export function helpLine(usage: string, text: string): string {
  return `${`  ${usage}`.padEnd(30)} ${text}`;
}

/** One `--help` line per option: how to write it, what it does, its default and its variable. */
export function helpLines(table: OptionTable): string[] {
  return Object.values(table).map((o) => {
    const dflt = o.default !== undefined ? ` (default ${o.default})` : '';
    const variable = o.env ? `; env ${o.env}` : '';
    return helpLine(usageOf(o), `${o.help}${dflt}${formerNote(o)}${variable}`);
  });
}

/** The table as Markdown (the README's option list); no Environment column when no option has a variable. */
export function markdownTable(table: OptionTable): string {
  const escapePipes = (text: string) => text.replace(/\|/g, '\\|');
  const written = (o: OptionDef<unknown, string>) =>
    o.kind === 'negatable' ? `--${o.flag}\` / \`--no-${o.flag}` : escapePipes(usageOf(o));
  const options = Object.values(table);
  const withEnv = options.some((o) => o.env !== undefined);
  const cells = (o: OptionDef<unknown, string>) => [
    `\`${written(o)}\``,
    ...(withEnv ? [o.env ? `\`${o.env}\`` : '—'] : []),
    o.default !== undefined ? `\`${o.default}\`` : '—',
    escapePipes(o.help + formerNote(o)),
  ];
  const header = ['Option', ...(withEnv ? ['Environment'] : []), 'Default', 'Meaning'];
  const row = (texts: string[]) => `| ${texts.join(' | ')} |`;
  return [row(header), `|${header.map(() => '---').join('|')}|`, ...options.map((o) => row(cells(o)))].join('\n');
}
