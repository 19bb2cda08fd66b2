/**
 * The power-loss harness: starts the real server (dist/cli.js) on one data directory, drives it
 * like clients do (configuration POSTs and PUTs, DELETE, user-data writes, restarts, firmware
 * uploads, some of them refused on purpose), cuts the power with SIGKILL — at random moments, and
 * at each named step of an upload and a slot switch through the SENSOR_CRASH_AT hook — restarts
 * it on the same directory and checks after every power cycle:
 *
 *  - acknowledged:  every write answered 2xx is present (config, user data, firmware);
 *  - refused:       nothing answered 4xx/503 is (each refused write carries unique values);
 *  - one-state:     configuration and user data equal exactly one acknowledged state (the last
 *                   acknowledged one, or the outcome of the one request the cut left unanswered);
 *  - firmware:      fw is the committed image, an acknowledged update, or the unanswered one;
 *                   an acknowledged update missing means a rollback with its alert; a failing
 *                   image never commits; nothing is left pending once the unit is up;
 *  - complete-image: the running slot's file is a complete image matching the slot record
 *                   (checked with a decoder written from the format table, not the server's);
 *                   no temporary upload file survives a boot;
 *  - integrity:     PRAGMA integrity_check is "ok".
 *
 * Then, for each step of rebuilding a damaged database (RECOVERY_CRASH_POINTS), the stopped unit's
 * database header is damaged and the power is cut at that step of the rebuild; after the next start:
 *  - factory:       the factory data file is byte for byte the one of the first start (same serial);
 *  - recovery:      the log says every row was read back (a damaged header loses no row) or CONFIG_INVALID
 *                   is active, the damaged file is kept aside (no more than DAMAGED_KEPT sets), no
 *                   half-built database is left, and the rebuilt one passes integrity (no second
 *                   corruption); every check above holds too.
 *
 * Used by test/power-loss/power-loss.test.ts (CI mode) and scripts/power-loss.ts (long mode).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { CRASH_POINTS, type CrashPoint, RECOVERY_CRASH_POINTS } from '../../src/store/crash-point.js';
import { DAMAGED_KEPT } from '../../src/store/damaged-files.js';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { CLI_PATH, freePort, unitArgs } from '../helpers/cli-process.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { parametersNewerThan } from '../../src/config/index.js';

/** Configuration parameters a unit of firmware 3.1 (the harness's first image) does not report. */
const FIRMWARE_3_2_PARAMETERS: readonly string[] = [...parametersNewerThan('3.1.0')];

export { CLI_PATH };
const FACTORY_REV = 'ousteros-image-prod-bootes-v3.1.0+20240426041747';
const LIDAR_MODES = ['512x10', '1024x10', '2048x10', '512x20', '1024x20'];
const USER_DATA_LIMIT = 131_072;

/**
 * Where the server can be made to die: every firmware step of src/store/crash-point.ts, the repeated ones
 * at a later occurrence (the third upload chunk; the second boot, i.e. a boot of the trial image).
 */
const LATER_OCCURRENCE: Partial<Record<CrashPoint, number>> = { 'upload-chunk': 3, 'boot-after-plan': 2 };
export const CRASH_TARGETS: readonly string[] = CRASH_POINTS.map((step) =>
  LATER_OCCURRENCE[step] ? `${step}@${LATER_OCCURRENCE[step]}` : step,
);

export const INVARIANTS = [
  'acknowledged',
  'refused',
  'one-state',
  'firmware',
  'complete-image',
  'integrity',
  'factory',
  'recovery',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface HarnessOptions {
  /** Power cuts to perform. */
  kills: number;
  /** Stop starting new cycles after this long (the run is bounded in count and time). */
  timeBudgetMs: number;
  seed: number;
  /** Longest a cycle drives the unit before the random cut. */
  maxCycleMs?: number;
  log?: (line: string) => void;
  keepDataDir?: boolean;
}

export interface HarnessReport {
  seed: number;
  dataDir: string;
  kills: number;
  randomKills: number;
  crashPointKills: Record<string, number>;
  /** Power cuts that landed while a firmware upload was being sent. */
  killsMidUpload: number;
  acknowledged: number;
  refused: number;
  unanswered: number;
  uploadsAcknowledged: number;
  rollbacksSeen: number;
  /** Power cuts during the rebuild of a damaged database. */
  recoveryKills: number;
  checks: Record<Invariant, number>;
  violations: string[];
  elapsedMs: number;
}

interface UnitState {
  config: Record<string, unknown>;
  userData: { value: string; policy: string };
}

interface FirmwareModel {
  committed: string;
  /** Acknowledged upload not yet seen resolved. */
  pending?: { rev: string; failing: boolean };
}

/** What an unanswered request would have done, had it completed. */
interface Unanswered {
  describe: string;
  state?: (s: UnitState) => UnitState;
  upload?: { rev: string; failing: boolean };
}

class Unit {
  readonly exited: Promise<NodeJS.Signals | number | null>;
  output = '';
  constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
  ) {
    child.stdout?.on('data', (d: Buffer) => (this.output = (this.output + d.toString()).slice(-20_000)));
    child.stderr?.on('data', (d: Buffer) => (this.output = (this.output + d.toString()).slice(-20_000)));
    this.exited = new Promise((r) => child.once('exit', (code, signal) => r(signal ?? code)));
  }
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}

type Answer = { status: number; body: string } | 'unanswered';

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const res = await fetch(baseUrl + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.text() };
  } catch {
    return 'unanswered';
  }
}

/** Streams an image with Expect: 100-continue, slowly enough that power cuts land inside uploads. */
function upload(baseUrl: string, image: Buffer, onProgress: () => void): Promise<Answer> {
  return new Promise((resolveAnswer) => {
    let settled = false;
    const settle = (a: Answer) => {
      if (!settled) {
        settled = true;
        resolveAnswer(a);
      }
    };
    const req = request(`${baseUrl}/api/v1/system/firmware`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(image.length),
        expect: '100-continue',
      },
    });
    req.on('continue', async () => {
      for (let offset = 0; offset < image.length && !settled; offset += 65_536) {
        if (!req.write(image.subarray(offset, offset + 65_536))) await new Promise((r) => req.once('drain', r));
        onProgress();
        await delay(5);
      }
      req.end();
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => settle({ status: res.statusCode ?? 0, body: text }));
      res.on('error', () => settle('unanswered'));
    });
    req.on('error', () => settle('unanswered'));
    req.flushHeaders();
  });
}

/** Verifies a slot file by the documented layout alone (README "Firmware images"). */
function verifySlotFileIndependently(
  path: string,
  record: { image_rev: string; payload_sha256: string; image_length: number },
): string | undefined {
  if (!existsSync(path)) return `${path} is missing`;
  const bytes = readFileSync(path);
  if (bytes.length !== record.image_length)
    return `${path} is ${bytes.length} bytes, the record says ${record.image_length}`;
  if (bytes.toString('latin1', 0, 8) !== 'LSFWIMG\n') return `${path} does not start with the magic`;
  const headerLength = bytes.readUInt16BE(10);
  const revLength = bytes.readUInt16BE(52);
  const rev = bytes.toString('latin1', 54, 54 + revLength);
  const headerDigest = createHash('sha256')
    .update(bytes.subarray(0, headerLength - 32))
    .digest();
  if (!headerDigest.equals(bytes.subarray(headerLength - 32, headerLength))) return `${path} has a corrupt header`;
  const payloadLength = Number(bytes.readBigUInt64BE(12));
  if (headerLength + payloadLength !== bytes.length) return `${path}: header and payload lengths do not add up`;
  const payloadDigest = createHash('sha256').update(bytes.subarray(headerLength)).digest('hex');
  if (payloadDigest !== bytes.toString('hex', 20, 52))
    return `${path}: the payload does not match its digest (a mix of images?)`;
  if (rev !== record.image_rev || payloadDigest !== record.payload_sha256)
    return `${path} holds ${rev}, the record says ${record.image_rev}`;
  return undefined;
}

export async function runPowerLossHarness(options: HarnessOptions): Promise<HarnessReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const log = options.log ?? (() => {});
  const maxCycleMs = options.maxCycleMs ?? 1500;
  const dataDir = mkdtempSync(join(tmpdir(), 'power-loss-'));
  const report: HarnessReport = {
    seed: options.seed,
    dataDir,
    kills: 0,
    randomKills: 0,
    crashPointKills: {},
    killsMidUpload: 0,
    acknowledged: 0,
    refused: 0,
    unanswered: 0,
    uploadsAcknowledged: 0,
    rollbacksSeen: 0,
    recoveryKills: 0,
    checks: Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>,
    violations: [],
    elapsedMs: 0,
  };
  const check = (invariant: Invariant, ok: boolean, message: () => string) => {
    report.checks[invariant]++;
    if (!ok) {
      report.violations.push(`[${invariant}] ${message()}`);
      log(`VIOLATION [${invariant}] ${message()}`);
    }
  };

  let marker = 0;
  const unique = () => `${options.seed}-${++marker}`;
  let revCounter = 0;
  const nextRev = () => `ousteros-image-prod-bootes-v4.${++revCounter}.0+20250102030405`;

  async function start(crashAt?: string): Promise<Unit> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [CLI_PATH, ...unitArgs('127.0.0.1', port, dataDir, 'warn'), '--firmware-boot-attempts', '2'],
      {
        env: {
          ...process.env,
          SENSOR_TEST_CRASH_POINTS: '1',
          ...(crashAt ? { SENSOR_CRASH_AT: crashAt } : { SENSOR_CRASH_AT: '' }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const unit = new Unit(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!unit.alive) return unit;
      const answer = await call(unit.baseUrl, 'GET', '/api/v1/system/firmware');
      if (answer !== 'unanswered' && answer.status === 200) return unit;
      if (Date.now() > deadline) {
        await unit.kill();
        throw new Error(`the server did not come up within 60 s:\n${unit.output}`);
      }
      await delay(20);
    }
  }

  /** Starts the unit, absorbing power cuts that crash points cause during its boot. */
  async function startUp(crashAt: string | undefined): Promise<{ unit: Unit; bootCrash: boolean }> {
    let unit = await start(crashAt);
    let bootCrash = false;
    while (!unit.alive) {
      const how = await unit.exited;
      if (how !== 'SIGKILL') throw new Error(`the server exited with ${how} during boot:\n${unit.output}`);
      bootCrash = true;
      report.kills++;
      report.crashPointKills[crashAt!] = (report.crashPointKills[crashAt!] ?? 0) + 1;
      log(`  power cut at ${crashAt} while booting`);
      unit = await start();
    }
    return { unit, bootCrash };
  }

  // The first boot of a fresh unit: the acknowledged state is what it reports.
  let { unit } = await startUp(undefined);
  const initialConfig = await call(unit.baseUrl, 'GET', '/api/v1/sensor/config');
  const initialUser = await call(unit.baseUrl, 'GET', '/api/v1/user/data?include_metadata=true');
  if (initialConfig === 'unanswered' || initialUser === 'unanswered') throw new Error('the fresh unit did not answer');
  let state: UnitState = { config: JSON.parse(initialConfig.body), userData: JSON.parse(initialUser.body) };
  const defaults = structuredClone(state.config);
  const firmware: FirmwareModel = { committed: FACTORY_REV };
  const refusedMarkers: { describe: string; seen: (s: UnitState) => boolean }[] = [];
  let rebooting = false;

  async function verifyAfterBoot(u: Unit, unanswered: Unanswered | undefined): Promise<void> {
    const configAnswer = await call(u.baseUrl, 'GET', '/api/v1/sensor/config');
    const stagedAnswer = await call(u.baseUrl, 'GET', '/api/v1/sensor/config?staging=true');
    const userAnswer = await call(u.baseUrl, 'GET', '/api/v1/user/data?include_metadata=true');
    const fwAnswer = await call(u.baseUrl, 'GET', '/api/v1/system/firmware');
    const alertsAnswer = await call(u.baseUrl, 'GET', '/api/v1/sensor/alerts');
    for (const a of [configAnswer, stagedAnswer, userAnswer, fwAnswer, alertsAnswer]) {
      if (a === 'unanswered' || a.status !== 200)
        throw new Error(`the restarted unit did not answer a read: ${JSON.stringify(a)}\n${u.output}`);
    }
    const observed: UnitState = {
      config: JSON.parse((configAnswer as { body: string }).body),
      userData: JSON.parse((userAnswer as { body: string }).body),
    };
    const staged = JSON.parse((stagedAnswer as { body: string }).body);

    // Configuration and user data: exactly one acknowledged state.
    const candidates = [state, ...(unanswered?.state ? [unanswered.state(state)] : [])];
    const same = (a: unknown, b: unknown) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
    // The harness's firmware images are 4.x: once the unit runs one it reports the parameters firmware 3.2 added
    // (Zone Monitor's), at their defaults, which the states acknowledged under 3.1 did not show.
    const comparable = (config: unknown) =>
      Object.fromEntries(Object.entries(config as object).filter(([name]) => !FIRMWARE_3_2_PARAMETERS.includes(name)));
    const match = candidates.find(
      (c) => same(comparable(c.config), comparable(observed.config)) && same(c.userData, observed.userData),
    );
    check(
      'one-state',
      match !== undefined,
      () =>
        `after the cut (${unanswered?.describe ?? 'no request in flight'}) the unit holds ${JSON.stringify(observed)}, none of ${JSON.stringify(candidates)}`,
    );
    check(
      'one-state',
      same(staged, observed.config),
      () => `staged ${JSON.stringify(staged)} differs from active after a boot`,
    );
    // Every acknowledged value is there, except what the cut-off request itself would change.
    const touched = unanswered?.state ? unanswered.state(state) : state;
    for (const [key, value] of Object.entries(state.config)) {
      if (same(touched.config[key], value))
        check(
          'acknowledged',
          same(observed.config[key], value),
          () => `acknowledged ${key}=${JSON.stringify(value)} is ${JSON.stringify(observed.config[key])} after the cut`,
        );
    }
    if (same(touched.userData, state.userData))
      check(
        'acknowledged',
        same(observed.userData, state.userData),
        () =>
          `acknowledged user data ${JSON.stringify(state.userData).slice(0, 80)} is ${JSON.stringify(observed.userData).slice(0, 80)}`,
      );
    for (const refused of refusedMarkers)
      check('refused', !refused.seen(observed), () => `refused write visible: ${refused.describe}`);
    if (match) state = match;

    // Firmware.
    const fw = JSON.parse((fwAnswer as { body: string }).body) as { commit_pending: boolean; fw: string };
    const alerts = JSON.parse((alertsAnswer as { body: string }).body) as {
      active: { id: string; msg_verbose: string }[];
    };
    const allowed = [firmware.committed, firmware.pending?.rev, unanswered?.upload?.rev].filter(Boolean);
    check('firmware', allowed.includes(fw.fw), () => `fw ${fw.fw} is none of ${allowed.join(', ')}`);
    check('firmware', fw.commit_pending === false, () => `commit_pending is still true once the unit is up (${fw.fw})`);
    const rolledBack = (rev: string) =>
      alerts.active.some((a) => a.id === ALERT_IDS.FIRMWARE_ROLLBACK && a.msg_verbose.includes(rev));
    if (firmware.pending && fw.fw !== firmware.pending.rev) {
      check(
        'acknowledged',
        rolledBack(firmware.pending.rev),
        () => `acknowledged update ${firmware.pending!.rev} is not running and no rollback alert names it`,
      );
      report.rollbacksSeen++;
    }
    for (const failing of [firmware.pending, unanswered?.upload].filter((x) => x?.failing)) {
      check(
        'firmware',
        fw.fw !== failing!.rev,
        () => `image ${failing!.rev}, which never boots healthy, was committed`,
      );
    }
    firmware.committed = fw.fw;
    firmware.pending = undefined;

    // The slot files against the slot records, and the database itself.
    const db = new Database(join(dataDir, 'sensor.db'), { readonly: true, fileMustExist: true });
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      check('integrity', integrity === 'ok', () => `PRAGMA integrity_check: ${String(integrity)}`);
      const slotState = db.prepare('SELECT primary_slot, trial_slot FROM firmware_state WHERE id = 1').get() as {
        primary_slot: string;
        trial_slot: string | null;
      };
      const slots = db.prepare('SELECT slot, image_rev, payload_sha256, image_length FROM firmware_slot').all() as {
        slot: string;
        image_rev: string;
        payload_sha256: string;
        image_length: number;
      }[];
      const primary = slots.find((s) => s.slot === slotState.primary_slot);
      check(
        'complete-image',
        primary !== undefined && slotState.trial_slot === null,
        () => `slot state after boot: ${JSON.stringify(slotState)}`,
      );
      if (primary) {
        const problem = verifySlotFileIndependently(join(dataDir, 'firmware', `slot-${primary.slot}.img`), primary);
        check('complete-image', problem === undefined, () => problem!);
        check(
          'complete-image',
          primary.image_rev === fw.fw,
          () => `running ${fw.fw} but the committed slot holds ${primary.image_rev}`,
        );
      }
      const leftovers = readdirSync(join(dataDir, 'firmware')).filter((n) => n.endsWith('.tmp'));
      check(
        'complete-image',
        leftovers.length === 0,
        () => `temporary upload files survived a boot: ${leftovers.join(', ')}`,
      );
    } finally {
      db.close();
    }
  }

  /** After a start that rebuilt a damaged database, possibly cut short once. */
  async function verifyRecovery(u: Unit, factory: Buffer): Promise<void> {
    check('factory', readFileSync(join(dataDir, 'factory.json')).equals(factory), () => 'factory.json changed');
    const alerts = await call(u.baseUrl, 'GET', '/api/v1/sensor/alerts');
    const active = alerts === 'unanswered' ? [] : (JSON.parse(alerts.body).active as { id: string }[]);
    check(
      'recovery',
      active.some((a) => a.id === ALERT_IDS.CONFIG_INVALID) || /every row was read back/.test(u.output),
      () => 'neither CONFIG_INVALID nor "every row was read back" after a rebuild',
    );
    const names = readdirSync(dataDir);
    const keptSets = new Set(names.filter((n) => n.includes('.damaged-')).map((n) => n.replace(/-wal$/, '')));
    check(
      'recovery',
      keptSets.size <= DAMAGED_KEPT,
      () => `${keptSets.size} damaged copies kept, more than ${DAMAGED_KEPT}: ${[...keptSets].join(', ')}`,
    );
    check(
      'recovery',
      names.some((n) => n.startsWith('sensor.db.damaged-')),
      () => `the damaged database is not kept aside: ${names.join(', ')}`,
    );
    const leftovers = names.filter((n) => n.includes('.rebuil') || n.includes('.salvage'));
    check('recovery', leftovers.length === 0, () => `left behind by the rebuild: ${leftovers.join(', ')}`);
  }

  /** One client operation; returns what an unanswered outcome would be, or undefined when answered. */
  async function operate(
    u: Unit,
    cycle: { uploaded: boolean; uploading: boolean; firstUpload: boolean },
  ): Promise<Unanswered | undefined> {
    if (rebooting) {
      // Do not hammer a rebooting unit; a real client waits for Retry-After.
      rebooting = false;
      await delay(25);
    }
    const roll = random();
    const acknowledged = (a: Answer): a is { status: number; body: string } =>
      a !== 'unanswered' && a.status >= 200 && a.status < 300;
    const record = (a: Answer, describe: string) => {
      if (a === 'unanswered') report.unanswered++;
      else if (a.status >= 200 && a.status < 300) report.acknowledged++;
      else if (a.status === 503) {
        // The unit is rebooting: refused before anything was done.
        report.refused++;
        rebooting = true;
      } else if (a.status >= 400 && a.status < 500) report.refused++;
      else throw new Error(`${describe}: unexpected answer ${a.status} ${a.body}`);
    };

    if (cycle.firstUpload || (!cycle.uploaded && roll < 0.12)) {
      const failing = !cycle.firstUpload && random() < 0.25;
      cycle.firstUpload = false;
      const rev = nextRev();
      const image = buildImage(
        rev,
        generatedPayload(rev, 200_000 + Math.floor(random() * 1_200_000)),
        failing ? { 'sim.boot': 'fail' } : {},
      );
      cycle.uploading = true;
      const answer = await upload(u.baseUrl, image, () => {});
      cycle.uploading = false;
      record(answer, `upload ${rev}`);
      if (answer === 'unanswered') return { describe: `upload of ${rev}`, upload: { rev, failing } };
      if (acknowledged(answer)) {
        report.uploadsAcknowledged++;
        cycle.uploaded = true;
        // A second acknowledged upload needs the first resolved; one per power cycle keeps the model exact.
        firmware.pending = { rev, failing };
      }
      return undefined;
    }
    if (roll < 0.35) {
      const body: Record<string, unknown> = {};
      if (random() < 0.7) body.udp_port_lidar = 1024 + Math.floor(random() * 48_000);
      if (random() < 0.5) body.udp_port_imu = 1024 + Math.floor(random() * 48_000);
      if (random() < 0.4 || Object.keys(body).length === 0) body.lidar_mode = pick(LIDAR_MODES);
      const answer = await call(u.baseUrl, 'POST', '/api/v1/sensor/config', body);
      record(answer, 'config POST');
      const apply = (s: UnitState): UnitState => ({ ...s, config: { ...s.config, ...body } });
      if (answer === 'unanswered') return { describe: `POST config ${JSON.stringify(body)}`, state: apply };
      if (acknowledged(answer)) state = apply(state);
      return undefined;
    }
    if (roll < 0.45) {
      const value = 1024 + Math.floor(random() * 48_000);
      const answer = await call(u.baseUrl, 'PUT', '/api/v1/sensor/config/udp_port_imu', value);
      record(answer, 'config PUT');
      const apply = (s: UnitState): UnitState => ({ ...s, config: { ...s.config, udp_port_imu: value } });
      if (answer === 'unanswered') return { describe: `PUT udp_port_imu ${value}`, state: apply };
      if (acknowledged(answer)) state = apply(state);
      return undefined;
    }
    if (roll < 0.52) {
      // Refused: one valid key next to an invalid one; the valid value is unique and must never appear.
      // Valid writes use ports below 50000; these reserved ones only ever appear in refused writes.
      const id = unique();
      const port = 50_000 + (marker % 15_000);
      const answer = await call(u.baseUrl, 'POST', '/api/v1/sensor/config', {
        udp_port_lidar: port,
        udp_port_imu: port,
        lidar_mode: `bogus-${id}`,
      });
      record(answer, 'refused config POST');
      if (answer !== 'unanswered' && answer.status === 400) {
        refusedMarkers.push({
          describe: `config POST with ports ${port}`,
          seen: (s) => s.config.udp_port_lidar === port || s.config.udp_port_imu === port,
        });
      }
      return undefined;
    }
    if (roll < 0.72) {
      const value = `user data ${unique()} ${'x'.repeat(Math.floor(random() * 2000))}`;
      const policy = random() < 0.5 ? 'keep_on_config_delete' : 'clear_on_config_delete';
      const answer = await call(u.baseUrl, 'PUT', `/api/v1/user/data?policy=${policy}`, value);
      record(answer, 'user data PUT');
      const apply = (s: UnitState): UnitState => ({ ...s, userData: { value, policy } });
      if (answer === 'unanswered') return { describe: 'user data PUT', state: apply };
      if (acknowledged(answer)) state = apply(state);
      return undefined;
    }
    if (roll < 0.8) {
      const id = unique();
      const tooLong = random() < 0.5;
      const value = tooLong ? `refused ${id} ${'y'.repeat(USER_DATA_LIMIT)}` : `refused ${id} \u0001 binary`;
      const answer = await call(u.baseUrl, 'PUT', '/api/v1/user/data', value);
      record(answer, 'refused user data PUT');
      if (answer !== 'unanswered' && answer.status >= 400)
        refusedMarkers.push({ describe: `user data ${id}`, seen: (s) => s.userData.value.includes(`refused ${id}`) });
      return undefined;
    }
    if (roll < 0.9) {
      const answer = await call(u.baseUrl, 'POST', '/api/v1/system/restart', undefined, {
        'content-type': 'application/json',
      });
      record(answer, 'restart');
      return answer === 'unanswered' ? { describe: 'restart' } : undefined;
    }
    const answer = await call(u.baseUrl, 'DELETE', '/api/v1/sensor/config');
    record(answer, 'config DELETE');
    const apply = (s: UnitState): UnitState => ({
      config: structuredClone(defaults),
      userData:
        s.userData.policy === 'keep_on_config_delete' ? s.userData : { value: '', policy: 'clear_on_config_delete' },
    });
    if (answer === 'unanswered') return { describe: 'DELETE config', state: apply };
    if (acknowledged(answer)) state = apply(state);
    return undefined;
  }

  try {
    let cycleIndex = 0;
    let unanswered: Unanswered | undefined;
    while (report.kills < options.kills && Date.now() - started < options.timeBudgetMs) {
      cycleIndex++;
      // Every other power-on arms the next named step; the other cycles end in a cut at a random moment.
      const crashAt = cycleIndex % 2 === 0 ? CRASH_TARGETS[(cycleIndex / 2 - 1) % CRASH_TARGETS.length] : undefined;
      if (cycleIndex > 1) {
        unit = (await startUp(crashAt)).unit;
        await verifyAfterBoot(unit, unanswered);
      }
      // An armed cycle starts with an upload of a good image, which passes every named step.
      const cycle = { uploaded: false, uploading: false, firstUpload: crashAt !== undefined };
      const cycleStart = Date.now();
      const cutAfter = crashAt ? maxCycleMs * 4 : 50 + random() * maxCycleMs;
      let cutByHarness = false;
      let cutWhileUploading = false;
      const timer = setTimeout(() => {
        cutByHarness = true;
        cutWhileUploading = cycle.uploading;
        unit.child.kill('SIGKILL');
      }, cutAfter);
      unanswered = undefined;
      while (unit.alive && Date.now() - cycleStart < cutAfter + 1000) {
        unanswered = await operate(unit, cycle);
        if (unanswered) break;
      }
      clearTimeout(timer);
      if (unanswered && !cutByHarness) {
        // The connection broke first; the exit of a process that cut itself is reported just after.
        await Promise.race([unit.exited, delay(3000)]);
      }
      if (unit.alive) {
        cutByHarness = true;
        await unit.kill();
      }
      const how = await unit.exited;
      if (how !== 'SIGKILL') throw new Error(`the server exited with ${how} instead of being cut:\n${unit.output}`);
      report.kills++;
      if (!cutByHarness && crashAt) report.crashPointKills[crashAt] = (report.crashPointKills[crashAt] ?? 0) + 1;
      else report.randomKills++;
      if (cutWhileUploading || unanswered?.upload) report.killsMidUpload++;
      log(
        `cycle ${cycleIndex}: ${cutByHarness ? 'cut at a random moment' : `cut at ${crashAt}`}${unanswered ? `; cut off: ${unanswered.describe}` : ''}`,
      );
    }
    unit = (await startUp(undefined)).unit;
    await verifyAfterBoot(unit, unanswered);
    const factory = readFileSync(join(dataDir, 'factory.json'));
    for (const step of RECOVERY_CRASH_POINTS) {
      await unit.kill();
      damageHeader(join(dataDir, 'sensor.db'));
      const cut = await startUp(step);
      unit = cut.unit;
      if (cut.bootCrash) report.recoveryKills++;
      log(`recovery: power cut at ${step}${cut.bootCrash ? '' : ' (not reached)'}`);
      await verifyAfterBoot(unit, undefined);
      await verifyRecovery(unit, factory);
    }
  } finally {
    await unit.kill();
    report.elapsedMs = Date.now() - started;
    if (!options.keepDataDir && report.violations.length === 0) rmSync(dataDir, { recursive: true, force: true });
  }
  return report;
}

/** Damages the SQLite header of a stopped unit's database (its format string): SQLite refuses the file. */
function damageHeader(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from('not a database!!'), 0, 16, 0);
  } finally {
    closeSync(fd);
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
}

export function formatReport(r: HarnessReport): string {
  const points =
    Object.entries(r.crashPointKills)
      .map(([k, v]) => `${k}×${v}`)
      .join(', ') || 'none';
  return [
    `power-loss harness: seed ${r.seed}, ${(r.elapsedMs / 1000).toFixed(1)} s`,
    `  kills: ${r.kills} (random ${r.randomKills}, at crash points ${Object.values(r.crashPointKills).reduce((a, b) => a + b, 0)}: ${points}; during an upload ${r.killsMidUpload})`,
    `  power cuts while rebuilding a damaged database: ${r.recoveryKills}`,
    `  requests: ${r.acknowledged} acknowledged, ${r.refused} refused, ${r.unanswered} cut off; firmware uploads acknowledged ${r.uploadsAcknowledged}, rollbacks seen ${r.rollbacksSeen}`,
    `  invariants checked: ${INVARIANTS.map((i) => `${i} ${r.checks[i]}`).join(', ')}`,
    r.violations.length
      ? `  VIOLATIONS (${r.violations.length}; data directory kept: ${r.dataDir}):\n    ${r.violations.join('\n    ')}`
      : '  violations: none',
  ].join('\n');
}
