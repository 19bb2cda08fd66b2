/**
 * `lidar-sensor validate URL [--allow-changes] [--udp-timeout S] [--http-timeout S] [--json FILE] [--junit FILE]`:
 * checks a unit, real or simulated, against the sensor interface (docs/validate.md). Exit 0 when no
 * check failed, 1 when one did, 2 when the unit cannot be reached or the arguments are wrong.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CheckRun } from './check-run.js';
import { httpChecks } from './http-checks.js';
import { readChecks } from './read-checks.js';
import { jsonReport, junitReport, textLine } from './reporters.js';
import { type OwnDocument, ResponseSchemas } from './response-schemas.js';
import { UnitClient } from './unit-client.js';
import { zoneReadChecks } from './zone-checks.js';

const USAGE = `usage: lidar-sensor validate URL [options]

Checks a unit (real or simulated) against the sensor HTTP interface and its UDP packet formats.
Read-only unless --allow-changes.

  --allow-changes    also check the write paths and the data plane (changes the unit; everything is restored)
  --udp-timeout S    seconds to collect lidar and IMU packets (default 3)
  --http-timeout S   seconds one HTTP request may take (default 5)
  --json FILE        write the result as JSON
  --junit FILE       write the result as JUnit XML
  -h, --help         this text

Exit status: 0 no check failed, 1 some check failed, 2 unit unreachable or bad arguments.`;

export interface ValidateOptions {
  baseUrl: string;
  allowChanges: boolean;
  udpTimeoutS: number;
  httpTimeoutS: number;
  jsonFile?: string;
  junitFile?: string;
}

class UsageError extends Error {}

export function parseValidateArgs(argv: string[]): ValidateOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new UsageError(`expected one URL, got ${positionals.length}`);
  let url: URL;
  try {
    url = new URL(positionals[0]);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(positionals[0])}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`URL must be http or https: ${url.href}`);
  const seconds = (flag: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || value > 600)
      throw new UsageError(`--${flag} must be seconds 0..600; got ${JSON.stringify(raw)}`);
    return value;
  };
  // A base URL given with /api/v1 or a trailing slash is the same unit.
  const baseUrl = url.href.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return {
    baseUrl,
    allowChanges: values['allow-changes'] === true,
    udpTimeoutS: seconds('udp-timeout', values['udp-timeout'], 3),
    httpTimeoutS: seconds('http-timeout', values['http-timeout'], 5),
    jsonFile: values.json,
    junitFile: values.junit,
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'allow-changes': { type: 'boolean' },
      'udp-timeout': { type: 'string' },
      'http-timeout': { type: 'string' },
      json: { type: 'string' },
      junit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `ownDocument` gives this project's OpenAPI document, for a unit that serves none (from the entry point). */
export async function runValidateCommand(argv: string[], ownDocument: OwnDocument): Promise<number> {
  let options: ValidateOptions | 'help';
  try {
    options = parseValidateArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`lidar-sensor validate: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  return validate(options, ownDocument);
}

export async function validate(options: ValidateOptions, ownDocument: OwnDocument): Promise<number> {
  const started = performance.now();
  const client = new UnitClient(options.baseUrl, options.httpTimeoutS * 1000);
  try {
    const probe = await client.request('GET', '/api/v1/sensor/metadata/sensor_info');
    if (probe.status >= 500 && probe.status !== 503) throw new Error(`answered ${probe.status}`);
  } catch (error) {
    process.stderr.write(`lidar-sensor validate: cannot reach ${options.baseUrl}: ${(error as Error).message}\n`);
    return 2;
  }
  const run = new CheckRun((result) => process.stdout.write(`${textLine(result)}\n`));
  const schemas = await ResponseSchemas.load(client, ownDocument);
  process.stdout.write(
    `validating ${options.baseUrl} (schemas from ${schemas.source}; ${options.allowChanges ? 'with changes' : 'read-only'})\n`,
  );
  if (schemas.replaying)
    process.stdout.write(
      `the unit replays ${schemas.replaying.recording} (its OpenAPI document says so): the checks a replay cannot meet are skipped, saying why\n`,
    );
  await readChecks(run, client, schemas);
  await httpChecks(run, client);
  await zoneReadChecks(run, client);
  if (options.allowChanges) {
    const { changeChecks } = await import('./change-checks.js');
    await changeChecks(run, client, schemas, options.udpTimeoutS);
  } else {
    run.skip('changes', 'write paths and data plane', 'read-only run (pass --allow-changes to check them)');
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = run.summary();
  process.stdout.write(
    `\n${summary.pass} passed, ${summary.fail} failed, ${summary.skip} skipped (${run.results.length} checks in ${seconds.toFixed(1)} s)\n`,
  );
  if (options.jsonFile)
    writeFileSync(options.jsonFile, jsonReport(run.results, summary, { unit: options.baseUrl, seconds }));
  if (options.junitFile) writeFileSync(options.junitFile, junitReport(run.results, summary, options.baseUrl, seconds));
  return summary.fail > 0 ? 1 : 0;
}
