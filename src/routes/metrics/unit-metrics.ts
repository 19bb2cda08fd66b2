/**
 * The Prometheus metrics of one unit: state, data plane counters, alerts and telemetry are read from
 * the device core when scraped (nothing is sampled in between); HTTP requests are counted as they are
 * answered (src/routes/metrics/metrics-plugin.ts). One registry per unit, so many units in one process never
 * mix their figures.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { RequestStats } from './request-stats.js';
import { PHASE_LOCK_STATUSES, type SensorServices, SENSOR_STATUSES, STORAGE_CAUSES } from '../../core/index.js';
import { reportedImageRev } from '../../model/index.js';
import type { TelemetryReading } from '../../hal/index.js';
import type { StreamStats, StreamTotals } from '../../udp/index.js';

const PREFIX = 'lidar_sensor_';

export interface UnitMetrics {
  registry: Registry;
  /** The exposition text of one scrape. A part that cannot be read (worker restarting) is left out. */
  render(): Promise<string>;
}

/** Reinits and restarts counted since the process started (by the plugin, which listens from the start). */
export interface LifecycleCounts {
  reinits: number;
  restarts: number;
}

/** What a scrape reads asynchronously (worker counters, a telemetry sample), fetched once before rendering. */
interface Latest {
  streams: StreamTotals | null;
  telemetry: TelemetryReading | null;
}

/** `requests`: the request figures, kept from the start by metrics-plugin.ts, before the registry is made. */
export function createUnitMetrics(
  sensor: SensorServices,
  lifecycle: Readonly<LifecycleCounts>,
  requests: RequestStats,
): UnitMetrics {
  const registry = new Registry();
  const registers = [registry];
  const latest: Latest = { streams: null, telemetry: null };

  new Gauge({
    name: `${PREFIX}info`,
    help: 'Identity of the unit (always 1)',
    labelNames: ['serial', 'product', 'firmware'],
    registers,
    collect() {
      this.reset();
      const identity = sensor.identity;
      this.set(
        { serial: identity.serialNumber, product: sensor.product.name, firmware: reportedImageRev(identity) },
        1,
      );
    },
  });
  new Gauge({
    name: `${PREFIX}status`,
    help: 'Unit status: 1 for the current one (sensor_info.status), 0 for the others',
    labelNames: ['status'],
    registers,
    collect() {
      for (const status of SENSOR_STATUSES) this.set({ status }, status === sensor.run.status ? 1 : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}initialization_id`,
    help: 'initialization_id of the running configuration',
    registers,
    collect() {
      this.set(sensor.run.initializationId);
    },
  });
  new Counter({
    name: `${PREFIX}reinits_total`,
    help: 'Reinitializations and restarts completed since the process started',
    registers,
    collect() {
      this.reset();
      this.inc(lifecycle.reinits);
    },
  });
  new Counter({
    name: `${PREFIX}restarts_total`,
    help: 'Restarts (simulated reboots) begun since the process started',
    registers,
    collect() {
      this.reset();
      this.inc(lifecycle.restarts);
    },
  });

  registerStreamCounters(latest, registers);

  new Gauge({
    name: `${PREFIX}alert_active`,
    help: 'Active alerts (1 per active alert id)',
    labelNames: ['id', 'category', 'level'],
    registers,
    collect() {
      this.reset();
      for (const alert of sensor.alerts.snapshot().active)
        this.set({ id: alert.id, category: alert.category, level: alert.level }, 1);
    },
  });

  new Gauge({
    name: `${PREFIX}storage_refusing_writes`,
    help: 'Whether the storage refuses writes now (1 for the cause: full, read-only or io; 0 for the others)',
    labelNames: ['cause'],
    registers,
    collect() {
      for (const cause of STORAGE_CAUSES) this.set({ cause }, sensor.storage.refusing === cause ? 1 : 0);
    },
  });
  new Counter({
    name: `${PREFIX}storage_refused_writes_total`,
    help: 'Writes the storage refused (answered 507 or 503) since the process started, by cause',
    labelNames: ['cause'],
    registers,
    collect() {
      this.reset();
      for (const cause of STORAGE_CAUSES) this.inc({ cause }, sensor.storage.refused[cause]);
    },
  });

  registerTelemetry(latest, registers);

  requests.register(registry, PREFIX);

  return {
    registry,
    async render() {
      const [streams, telemetry] = await Promise.all([
        sensor.streamTotals(),
        sensor.telemetry.read().catch(() => null),
      ]);
      latest.streams = streams;
      latest.telemetry = telemetry;
      return registry.metrics();
    },
  };
}

/** Datagrams, bytes, failed sends and skipped slots per stream, from the data plane worker. */
function registerStreamCounters(latest: Latest, registers: Registry[]): void {
  const fields = {
    sent: ['udp_packets_sent_total', 'UDP datagrams sent, per stream'],
    bytes: ['udp_bytes_sent_total', 'UDP payload bytes sent, per stream'],
    failed: ['udp_send_errors_total', 'UDP sends that failed, per stream'],
    skipped: ['udp_packets_skipped_total', 'Packet slots dropped because the sender fell behind, per stream'],
  } as const;
  for (const [field, [name, help]] of Object.entries(fields) as [keyof StreamStats, readonly [string, string]][]) {
    new Counter({
      name: PREFIX + name,
      help,
      labelNames: ['stream'],
      registers,
      collect() {
        this.reset();
        if (latest.streams)
          for (const stream of ['lidar', 'imu'] as const) this.inc({ stream }, latest.streams[stream][field]);
      },
    });
  }
}

/** The readings of GET /api/v1/sensor/telemetry; a quantity the unit cannot measure is left out. */
function registerTelemetry(latest: Latest, registers: Registry[]): void {
  const quantity = (name: string, help: string, value: (r: TelemetryReading) => number | undefined) =>
    new Gauge({
      name: PREFIX + name,
      help,
      registers,
      collect() {
        this.reset();
        const v = latest.telemetry && value(latest.telemetry);
        if (v !== undefined && v !== null) this.set(v);
      },
    });
  quantity('input_voltage_volts', 'Input voltage', (r) =>
    r.input_voltage_mv === undefined ? undefined : r.input_voltage_mv / 1000,
  );
  quantity('input_current_amperes', 'Input current', (r) =>
    r.input_current_ma === undefined ? undefined : r.input_current_ma / 1000,
  );
  quantity('internal_temperature_celsius', 'Internal temperature', (r) => r.internal_temperature_deg_c);
  new Gauge({
    name: `${PREFIX}phase_lock_status`,
    help: 'Phase lock: 1 for the current status, 0 for the others',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      const current = latest.telemetry?.phase_lock_status;
      if (current) for (const status of PHASE_LOCK_STATUSES) this.set({ status }, status === current ? 1 : 0);
    },
  });
}
