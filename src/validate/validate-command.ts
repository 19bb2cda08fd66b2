/**
 * `lidar-sensor validate URL [--allow-changes] [--udp-timeout S] [--json FILE] [--junit FILE]` (docs/validate.md).
 * Exit 0 nothing failed, 1 a check failed, 2 unit unreachable or bad arguments.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  configChecks,
  pointStreamsHere,
  restore,
  snapshot,
  userDataChecks,
  type UnitSnapshot,
} from './change-checks.js';
import { capture, dataPlaneChecks, openReceivers } from './data-plane-checks.js';
import { HttpProbe, UnitUnreachable } from './http-probe.js';
import { AnswerSchemas, type OpenApiDocument } from './openapi-schemas.js';
import { readOnlyChecks } from './read-only-checks.js';
import { CheckLog, jsonReport, junitReport } from './report.js';

export interface ValidateOptions {
  url: string;
  allowChanges: boolean;
  udpTimeoutS: number;
  httpTimeoutMs: number;
  json?: string;
  junit?: string;
}

const USAGE =
  'Usage: lidar-sensor validate URL [--allow-changes] [--udp-timeout S] [--http-timeout S] [--json FILE] [--junit FILE]\n';

export function parseValidateArgs(argv: string[]): ValidateOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'allow-changes': { type: 'boolean', default: false },
      'udp-timeout': { type: 'string', default: '3' },
      'http-timeout': { type: 'string', default: '5' },
      json: { type: 'string' },
      junit: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new Error('give exactly one URL');
  const url = new URL(/^https?:\/\//.test(positionals[0] ?? '') ? String(positionals[0]) : `http://${positionals[0]}`);
  const seconds = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number of seconds, not ${v}`);
    return n;
  };
  return {
    url: url.href,
    allowChanges: Boolean(values['allow-changes']),
    udpTimeoutS: seconds('udp-timeout', String(values['udp-timeout'])),
    httpTimeoutMs: seconds('http-timeout', String(values['http-timeout'])) * 1000,
    json: values.json,
    junit: values.junit,
  };
}

async function openApi(log: CheckLog, http: HttpProbe): Promise<AnswerSchemas | undefined> {
  const a = await http.get('/api/v1/openapi.json');
  const doc = a.json as OpenApiDocument | undefined;
  if (a.status === 200 && doc && typeof doc.paths === 'object' && /^3\.1/.test(String(doc.openapi))) {
    log.record(
      'openapi.document',
      'the unit serves its OpenAPI 3.1 document',
      'pass',
      `${Object.keys(doc.paths).length} paths`,
    );
    return new AnswerSchemas(doc);
  }
  log.skip(
    'openapi.document',
    'the unit serves its OpenAPI 3.1 document',
    `GET /api/v1/openapi.json answered ${a.status}: answers are checked by the spec's rules only`,
  );
  return undefined;
}

async function changeChecks(log: CheckLog, http: HttpProbe, options: ValidateOptions) {
  const saved: UnitSnapshot = await snapshot(http);
  let restored = false;
  const undo = async () => {
    if (restored) return;
    restored = true;
    const problem = await restore(http, saved).catch((err: Error) => err.message);
    log.expect('restore', 'configuration and user data are back as they were before the run', problem);
  };
  const onSignal = () => {
    void undo().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const sockets = await openReceivers();
  try {
    await configChecks(log, http, saved);
    await userDataChecks(log, http);
    if (await pointStreamsHere(log, http, sockets.lidar.address().port, sockets.imu.address().port)) {
      const c = await capture(sockets, options.udpTimeoutS);
      const [config, format, info] = await Promise.all(
        [
          '/api/v1/sensor/config',
          '/api/v1/sensor/metadata/lidar_data_format',
          '/api/v1/sensor/metadata/sensor_info',
        ].map(async (p) => (await http.get(p)).json as Record<string, unknown>),
      );
      dataPlaneChecks(log, c, config ?? {}, format ?? {}, info ?? {});
    } else log.skip('lidar.arrives', 'lidar packets arrive on udp_port_lidar', 'udp_dest @auto was refused');
  } finally {
    sockets.lidar.close();
    sockets.imu.close();
    await undo();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Runs every check; `print` gets one line per check. Returns the log and the exit code. */
export async function runValidate(options: ValidateOptions, print: (line: string) => void) {
  const started = performance.now();
  const log = new CheckLog(print);
  const http = new HttpProbe(options.url, options.httpTimeoutMs);
  let code: number;
  try {
    const schemas = await openApi(log, http);
    await readOnlyChecks(log, http, schemas);
    if (options.allowChanges) await changeChecks(log, http, options);
    else log.skip('changes', 'write paths and data plane', 'read-only run: pass --allow-changes to check them');
    code = log.summary().fail ? 1 : 0;
  } catch (err) {
    if (!(err instanceof UnitUnreachable)) throw err;
    log.record('reach', `the unit at ${options.url} answers HTTP`, 'fail', err.message);
    code = 2;
  }
  const seconds = (performance.now() - started) / 1000;
  const s = log.summary();
  print(`${s.pass} passed, ${s.fail} failed, ${s.skip} skipped in ${seconds.toFixed(1)} s`);
  if (options.json) writeFileSync(options.json, jsonReport(log));
  if (options.junit) writeFileSync(options.junit, junitReport(log, options.url, seconds));
  return { log, code, seconds };
}

export async function runValidateCommand(argv: string[]): Promise<number> {
  let options: ValidateOptions;
  try {
    options = parseValidateArgs(argv);
  } catch (err) {
    process.stderr.write(`validate: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { code } = await runValidate(options, (line) => process.stdout.write(`${line}\n`));
  return code;
}
