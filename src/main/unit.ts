/**
 * The composition root: one unit (data directory, identity, alert log, HAL, device core, HTTP app)
 * from options. The server, the in-process tests and (through the CLI) the bench and the fleet all
 * build units here, so they run the same wiring. The app is not listening; `startServer` listens.
 */
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { createPersistentAlertLog } from '../alerts/index.js';
import { buildApp } from '../routes/index.js';
import type { OptionsOf } from './cli-options.js';
import type { RecentLog } from '../core/diagnostics/index.js';
import { createSimHal } from '../hal/sim/index.js';
import type { Hal } from '../hal/index.js';
import type { HttpLimits } from '../routes/index.js';
import type { FaultInjection, FaultInjectionOptions } from '../faults/index.js';
import type { ReplaySetup } from './replay-setup.js';
import type { AlertSink } from '../model/index.js';
import type { FirmwarePolicy } from '../core/index.js';
import {
  FIRMWARE_LINES,
  type FirmwareBuild,
  makeIdentity,
  serialProblem,
  type SensorIdentity,
} from '../model/index.js';
import { DEFAULT_PRODUCT, findProduct, PRODUCT_NAMES } from '../model/index.js';
import { Sensor } from '../core/index.js';
import { openStore, type SqliteDatabase } from '../store/index.js';
import { closeGroupCommit } from '../store/index.js';
import { dataBindAddress } from '../udp/index.js';
import { FactoryDataError, resolveFactoryData } from './factory-identity.js';
import { announceRebuilt, announceWaitingRepair } from './store-recovery-alerts.js';

/** A start that cannot go on: one line for the operator, and the exit status the command ends with. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitStatus = 2,
  ) {
    super(message);
  }
}

/**
 * The unit cannot start until someone gives it its factory data (sysexits' EX_CONFIG). Starting it again changes
 * nothing, so the service does not (deploy/lidar-sensor.service: RestartPreventExitStatus).
 */
export const EXIT_NEEDS_FACTORY_DATA = 78;

/**
 * What the option table's `unit` and `linux` groups say (src/main/cli-options.ts: product, serial, HAL, firmware
 * limits, `--allow-writes-from`, the linux HAL's tools), each optional with the table's default; the data
 * directory is required. In-process tests give only what they need.
 */
type UnitTableOptions = Partial<OptionsOf<'unit' | 'linux'>> & { dataDir: string };

export interface UnitOptions extends UnitTableOptions {
  /** HTTP listen address; the simulated network interface reports it. Default 127.0.0.1. */
  host?: string;
  /**
   * Send the data streams from `host` when it is a specific address (default true), as a real unit
   * sends from its own address. In-process tests leave the source address to the OS.
   */
  bindDataToHost?: boolean;
  /** Default: silent. The HTTP app logs only when a logger is given. */
  logger?: Logger;
  /** The tail of the server log for the diagnostics dump. */
  recentLog?: RecentLog;
  simulatedRebootMs?: number;
  /** How long one zone set may take to render before it is refused; default src/core/zones' bound (tests shorten it). */
  zoneRenderTimeLimitMs?: number;
  /** Trust store and minimum version of firmware uploads (src/core/firmware/firmware-trust.ts); default: any intact image. */
  firmwarePolicy?: FirmwarePolicy;
  /** `--replay`: the recording, prepared (src/udp/replay/replay-setup.ts); the unit becomes the recorded one. */
  replay?: ReplaySetup;
  /** Fault injection (src/faults): its control listener and scenario; absent, the unit has no fault hooks. */
  faults?: FaultInjectionOptions;
  /** Simulated firmware update: how long the first boot of a new image takes (`--realistic-timing`). */
  firmwareUpdateMs?: number;
  /** HTTP timeouts and the connection cap; defaults where absent. */
  httpLimits?: Partial<HttpLimits>;
  /** Replace or wrap HAL parts before the device core starts (tests: recording or failing fakes). */
  wrapHal?: (hal: Hal) => Hal;
}

export interface Unit {
  sensor: Sensor;
  /** The HAL the device core drives: what a test or the control plane observes and steers. */
  hal: Hal;
  /** Ready, not listening. */
  app: FastifyInstance;
  /** The fault-injection control listener's URL, when it runs. */
  controlUrl: string | undefined;
  dataDir: string;
  /** Closes the app, stops the streams and closes the database. */
  close(): Promise<void>;
}

export async function createUnit(options: UnitOptions): Promise<Unit> {
  const log = options.logger ?? pino({ level: 'silent' });
  const host = options.host ?? '127.0.0.1';
  const store = openStore(options.dataDir);
  const db = store.db;
  let hal: Hal | undefined;
  let sensor: Sensor | undefined;
  let faults: FaultInjection | undefined;
  try {
    const identity = unitIdentity(options, db, log);
    const alerts = createPersistentAlertLog(db, log, options.alertCursorStart);
    const built = await createHal(options, identity, alerts, host, log);
    hal = options.wrapHal ? options.wrapHal(built) : built;
    sensor = await Sensor.start({
      db,
      hal,
      identity,
      log,
      alerts,
      bindAddress: options.bindDataToHost === false ? undefined : dataBindAddress(host),
      simulatedRebootMs: options.simulatedRebootMs,
      gnss: options.gnss,
      firmwareMaxBytes: options.firmwareMaxBytes,
      zoneRenderTimeLimitMs: options.zoneRenderTimeLimitMs,
      firmwarePolicy: options.firmwarePolicy,
      recording: options.replay?.binding,
    });
    announceRebuilt(db, alerts, log);
    if (store.pending) announceWaitingRepair(store.pending, db, alerts, log);
    if (options.faults) {
      const { startFaultInjection } = await import('../faults/index.js');
      faults = await startFaultInjection({ sensor, hal }, options.faults, log);
    }
    const app = await buildApp(sensor, {
      logger: options.logger,
      recentLog: options.recentLog,
      httpLimits: options.httpLimits,
      faults: faults?.plane,
      allowWritesFrom: options.allowWritesFrom,
      replaying: options.replay?.announcement,
    });
    const running = sensor;
    const runningHal = hal;
    const injection = faults;
    let closed = false;
    return {
      sensor,
      hal,
      app,
      controlUrl: injection?.controlUrl,
      dataDir: options.dataDir,
      async close() {
        if (closed) return;
        closed = true;
        store.pending?.stop();
        await injection?.close();
        // First the daemons' reads: the requests in flight then answer at once instead of holding the close
        // until their reads' bounds (closing the time HAL again with the rest of the HAL is harmless).
        await runningHal.time.close();
        await app.close();
        await running.close();
        await closeGroupCommit(db);
        db.close();
      },
    };
  } catch (error) {
    store.pending?.stop();
    await faults?.close().catch(() => undefined);
    await (sensor ? sensor.close() : hal?.close())?.catch(() => undefined);
    await closeGroupCommit(db);
    db.close();
    throw error;
  }
}

/** Which unit this is: the recorded sensor when replaying, else the one the data directory and options name. */
function unitIdentity(options: UnitOptions, db: SqliteDatabase, log: Logger): SensorIdentity {
  return (
    options.replay?.identity ??
    resolveIdentity(
      db,
      options.product ?? DEFAULT_PRODUCT,
      options.serial,
      options.hal === 'linux',
      options.dataDir,
      log,
      FIRMWARE_LINES[options.firmwareVersion ?? '3.1'],
    )
  );
}

async function createHal(
  options: UnitOptions,
  identity: SensorIdentity,
  alerts: AlertSink,
  host: string,
  log: Logger,
): Promise<Hal> {
  const common = {
    serialNumber: identity.serialNumber,
    macAddress: identity.macAddress,
    alerts,
    listenAddress: host,
    dataDir: options.dataDir,
    firmwareBootAttempts: options.firmwareBootAttempts,
    log: log.child({ component: 'hal' }),
  };
  if (options.hal !== 'linux') {
    return createSimHal({ ...common, replay: options.replay?.settings, firmwareUpdateMs: options.firmwareUpdateMs });
  }
  // The linux HAL (and the tools it drives) is loaded only on a real unit.
  const { createLinuxHal } = await import('../hal/linux/index.js');
  return createLinuxHal({
    ...common,
    firmwareHook: options.firmwareHook,
    networkInterface: options.networkInterface,
    networkHook: options.networkHook,
    chronycHost: options.chronycHost,
    ptp4lSocket: options.ptp4lSocket,
    pmcClientSocket: options.pmcClientSocket,
    ptp4lConfig: options.ptp4lConfig,
    ptp4lRestartCommand: options.ptp4lRestartCommand,
  });
}

/**
 * The unit's identity: its factory data (main/factory-identity.ts), with the serial asked for when a
 * simulated unit is given one.
 */
function resolveIdentity(
  db: SqliteDatabase,
  productName: string,
  serial: string | undefined,
  realUnit: boolean,
  dataDir: string,
  log: Logger,
  firmware: FirmwareBuild,
): SensorIdentity {
  const product = findProduct(productName);
  if (!product) {
    throw new StartupError(
      `unknown product model ${JSON.stringify(productName)}; valid models: ${PRODUCT_NAMES.join(', ')}`,
    );
  }
  if (serial !== undefined) {
    const problem = serialProblem(serial);
    if (problem) throw new StartupError(`invalid --serial ${JSON.stringify(serial)}: ${problem}`);
  }
  try {
    const factory = resolveFactoryData(db, { dataDir, serial, realUnit, log });
    return {
      ...makeIdentity(product, factory.serialNumber, firmware),
      calibrationTimestamp: factory.calibrationTimestamp,
      macAddress: factory.macAddress,
    };
  } catch (error) {
    if (error instanceof FactoryDataError) throw new StartupError(error.message, EXIT_NEEDS_FACTORY_DATA);
    throw error;
  }
}
