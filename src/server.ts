/**
 * Assembles a running unit from options: database, identity, HAL, device core, HTTP server.
 * Used by the CLI and by end-to-end tests; the only place besides the CLI that calls `listen`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { createPersistentAlertLog } from './alerts/persistent-alert-log.js';
import type { RecentLog } from './diagnostics/sensor-dump.js';
import type { CliOptions } from './cli-options.js';
import { createSimHal } from './hal/sim/index.js';
import type { Hal } from './hal/types.js';
import { generateSerial, makeIdentity, serialProblem, type SensorIdentity } from './sensor/identity.js';
import { findProduct, PRODUCT_NAMES } from './sensor/products.js';
import { Sensor } from './sensor/sensor.js';
import { openDatabase, type SqliteDatabase } from './store/database.js';
import { KV_KEYS, KvStore } from './store/kv-store.js';
import { mdnsEnabled, startMdnsAdvertiser } from './discovery/mdns-advertiser.js';

export class StartupError extends Error {}

export interface RunningServer {
  app: FastifyInstance;
  sensor: Sensor;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

/** The unit's serial: `--serial` when given, else the one kept in the data directory, else a new one kept there. */
function resolveIdentity(db: SqliteDatabase, productName: string, serial: string | undefined): SensorIdentity {
  const product = findProduct(productName);
  if (!product) throw new StartupError(`unknown product model ${JSON.stringify(productName)}; valid models: ${PRODUCT_NAMES.join(', ')}`);
  if (serial !== undefined) {
    const problem = serialProblem(serial);
    if (problem) throw new StartupError(`invalid --serial ${JSON.stringify(serial)}: ${problem}`);
  }
  const kv = new KvStore(db);
  const stored = kv.get<{ serialNumber: string }>(KV_KEYS.identity);
  const serialNumber = serial ?? stored?.serialNumber ?? generateSerial();
  if (stored?.serialNumber !== serialNumber) kv.set(KV_KEYS.identity, { serialNumber });
  return makeIdentity(product, serialNumber);
}

/** A specific listen address is also the source of the UDP data; a wildcard leaves the choice to the OS. */
function bindAddressFor(host: string): string | undefined {
  return host === '0.0.0.0' || host === '::' || host === '' ? undefined : host;
}

/** `recentLog`: the tail of the server log for the diagnostics dump (the CLI tees its logger into one). */
export async function startServer(options: CliOptions, logger: Logger, recentLog?: RecentLog): Promise<RunningServer> {
  const db = openDatabase(options.dataDir);
  let hal: Hal | undefined;
  try {
    const identity = resolveIdentity(db, options.product, options.serial);
    const alerts = createPersistentAlertLog(db, logger);
    const halOptions = { product: identity.product, serialNumber: identity.serialNumber, alerts, listenAddress: options.host, dataDir: options.dataDir, firmwareBootAttempts: options.firmwareBootAttempts, firmwareHook: options.firmwareHook };
    const timeNetworkOptions = { networkInterface: options.networkInterface, networkHook: options.networkHook, chronycHost: options.chronycHost, ptp4lSocket: options.ptp4lSocket, ptp4lConfig: options.ptp4lConfig, ptp4lRestartCommand: options.ptp4lRestartCommand, log: logger.child({ component: 'hal' }) };
    // The linux HAL (and systeminformation, ~12 MB) is loaded only on a real unit.
    hal = options.hal === 'linux' ? (await import('./hal/linux/index.js')).createLinuxHal({ ...halOptions, ...timeNetworkOptions }) : createSimHal(halOptions);
    const sensor = await Sensor.start({ db, hal, identity, log: logger, alerts, bindAddress: bindAddressFor(options.host), firmwareMaxBytes: options.firmwareMaxBytes });
    const app = await buildApp(sensor, { logger, recentLog });
    const address = await app.listen({ host: options.host, port: options.port });
    const port = (app.server.address() as { port: number }).port;
    const log = logger.child({ component: 'mdns' });
    // Discovery is a convenience: a unit that cannot advertise (port 5353 taken exclusively) still serves.
    const mdns = mdnsEnabled(options.mdns, options.host)
      ? await startMdnsAdvertiser({ sensor, host: options.host, port, log }).catch((err: unknown) => {
          log.warn({ err }, 'mdns advertisement could not start');
          return null;
        })
      : null;
    return {
      app,
      sensor,
      url: address,
      async close() {
        await mdns?.close();
        await app.close();
        await sensor.close();
        db.close();
      },
    };
  } catch (error) {
    await hal?.close().catch(() => undefined);
    db.close();
    throw error;
  }
}
