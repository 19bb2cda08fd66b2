/**
 * The lidar and IMU data streams (LidarHal) of both HALs: the simulated unit, and a real unit until a
 * hardware driver exists. Turns each initialization's StreamRun (with the stream plan the device core
 * resolved) into an emitter plan — beam geometry, frame format, destinations — and hands it to the
 * emitter worker (src/udp). Alerts the worker reports go to the alert log, unless they come from a run that
 * a newer apply() has already replaced (the device core cleared that run's alerts at reinit).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ALERT_IDS, type AlertSink, type SensorConfig, type UdpFaultRule } from '../model/index.js';
import {
  Emitter,
  type EmitterPlan,
  type EmitterStats,
  type ImuStreamPlan,
  type LidarStreamPlan,
  type PreviewFrame,
  type StreamAlertIds,
  type StreamTotals,
  type UdpFaultCount,
  type ZoneMonitorPlan,
} from '../udp/index.js';
import type { ReplaySourcePlan } from '../udp/replay/index.js';
import type { StreamFaults } from './faults.js';
import type { LidarHal, StreamRun } from './lidar.js';
import { SIMULATED_ZONE_WATCHER, type ZoneHal, type ZoneWatcher } from './zones.js';

const LIDAR_ALERTS: StreamAlertIds = {
  refused: ALERT_IDS.LIDAR_PORT_UNREACHABLE,
  sendFailed: ALERT_IDS.LIDAR_SEND_FAILED,
  socketClosed: ALERT_IDS.LIDAR_SOCKET_ERROR,
  unresolved: ALERT_IDS.LIDAR_DEST_UNRESOLVED,
  unreachable: ALERT_IDS.LIDAR_NETWORK_UNREACHABLE,
  openFailed: ALERT_IDS.LIDAR_SOCKET_OPEN_FAILED,
};

/** Real units have no alert ids of a zone packet socket of its own: its errors are the lidar stream's. */
const ZONE_ALERTS: StreamAlertIds = LIDAR_ALERTS;

const IMU_ALERTS: StreamAlertIds = {
  refused: ALERT_IDS.IMU_PORT_UNREACHABLE,
  sendFailed: ALERT_IDS.IMU_SEND_FAILED,
  socketClosed: ALERT_IDS.IMU_SOCKET_ERROR,
  unresolved: ALERT_IDS.IMU_DEST_UNRESOLVED,
  unreachable: ALERT_IDS.IMU_NETWORK_UNREACHABLE,
  // Real units have no UDP_CONNECT id for the IMU socket itself: an IMU socket that cannot be opened is a closed one.
  openFailed: ALERT_IDS.IMU_SOCKET_ERROR,
};

/** Streams a configuration asks for: only in NORMAL mode, and each only with a destination and a port. */
export function planStreams(run: StreamRun): EmitterPlan | null {
  const c: SensorConfig = run.config;
  if (c.operating_mode !== 'NORMAL' || c.udp_dest === '') return null;
  const lidar = c.udp_port_lidar !== 0 ? lidarPlan(run, c.udp_profile_lidar) : null;
  const imu: ImuStreamPlan | null =
    c.udp_port_imu !== 0
      ? { host: c.udp_dest, port: c.udp_port_imu, accelFsr: c.accel_fsr, gyroFsr: c.gyro_fsr, alerts: IMU_ALERTS }
      : null;
  if (!lidar && !imu) return null;
  return { ...runFields(run), lidar, imu };
}

/** What every emitter plan carries of its run: packet header fields and the source address. */
function runFields(run: StreamRun) {
  return {
    initId: run.initializationId,
    serialNumber: run.serialNumber,
    bindAddress: run.bindAddress,
    timestampOffsetNs: run.timestampOffsetNs,
  };
}

function lidarPlan(run: StreamRun, profile: SensorConfig['udp_profile_lidar']): LidarStreamPlan {
  const c = run.config;
  // Only a replaying unit (planReplay) can have LEGACY active: the registry refuses it everywhere else.
  if (profile === 'LEGACY') throw new Error('the synthetic scene has no LEGACY encoder');
  const { product, columnsPerFrame, frameRateHz, columnWindow, sceneColumnsPerFrame } = run.plan;
  return {
    host: c.udp_dest,
    port: c.udp_port_lidar,
    profile,
    columnsPerFrame,
    frameRateHz,
    columnWindow,
    geometry: {
      columnsPerFrame: sceneColumnsPerFrame,
      beamAltitudeDeg: [...product.beamAltitudeDeg],
      beamAzimuthDeg: [...product.beamAzimuthDeg],
      lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
      maxRangeMm: product.maxRangeM * 1000,
    },
    sceneKey: `${product.name}/${sceneColumnsPerFrame}`,
    returns: {
      returnOrder: c.return_order,
      minRangeMm: c.min_range_threshold_cm * 10,
      signalMultiplier: c.signal_multiplier,
    },
    alerts: LIDAR_ALERTS,
    lidarToSensor: [...product.lidarToSensorTransform],
    zones: zoneDestination(c),
  };
}

/** Where zone packets go (firmware 3.2's udp_dest_zm:udp_port_zm); null: nowhere. */
function zoneDestination(c: SensorConfig) {
  return c.udp_dest_zm !== '' && c.udp_port_zm !== 0
    ? { host: c.udp_dest_zm, port: c.udp_port_zm, alerts: ZONE_ALERTS }
    : null;
}

/** What a replaying unit sends: recording, rate, loop and offset (profile and window follow the configuration). */
export type ReplaySettings = Omit<ReplaySourcePlan, 'profile' | 'columnWindow'>;

/** A replaying unit's streams: the recording instead of the scene, to the same destinations as planStreams. */
export function planReplay(run: StreamRun, replay: ReplaySettings): EmitterPlan | null {
  const c: SensorConfig = run.config;
  if (c.operating_mode !== 'NORMAL' || c.udp_dest === '') return null;
  const lidar = c.udp_port_lidar !== 0 ? { host: c.udp_dest, port: c.udp_port_lidar, alerts: LIDAR_ALERTS } : null;
  const imu = c.udp_port_imu !== 0 ? { host: c.udp_dest, port: c.udp_port_imu, alerts: IMU_ALERTS } : null;
  if (!lidar && !imu) return null;
  return {
    ...runFields(run),
    lidar: null,
    imu: null,
    replay: {
      lidar,
      imu,
      zones: zoneDestination(c),
      source: { ...replay, profile: c.udp_profile_lidar, columnWindow: run.plan.columnWindow },
    },
  };
}

const RESTART_AFTER_CRASH_MS = 1000;

export class EmitterLidar implements LidarHal {
  private readonly emitter: Emitter;
  /** Sequence number of the newest apply(); events of older runs are stale. */
  private currentSeq = 0;
  private lastPlan: EmitterPlan | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly previewListeners = new Set<(frame: PreviewFrame | null) => void>();

  /**
   * @param replay set when the unit replays a recording instead of streaming the synthetic scene
   * @param zoneWatcher what this data path is to Zone Monitor (the device build says it has no zone hardware)
   */
  constructor(
    private readonly alerts: AlertSink,
    private readonly log?: { warn(context: object, message: string): void },
    private readonly replay?: ReplaySettings,
    zoneWatcher: ZoneWatcher = SIMULATED_ZONE_WATCHER,
  ) {
    this.zones = { watcher: zoneWatcher, setZones: (zones: ZoneMonitorPlan | null) => this.emitter.setZones(zones) };
    this.emitter = new Emitter({
      alert: (runSeq, event) => {
        if (runSeq !== this.currentSeq || this.closed) return;
        if (event.action === 'raise') this.alerts.raise(event.id, event.vars);
        else this.alerts.clear(event.id, event.reason);
      },
      crashed: (error) => {
        this.log?.warn({ err: error }, 'the emitter worker died; a running stream restarts with the same run');
        this.restartAfterCrash();
      },
      faultCounts: (counts, spent) => this.faultCounts?.(counts, spent),
      preview: (frame) => {
        for (const listener of this.previewListeners) listener(frame);
      },
    });
  }

  private faultCounts: ((counts: UdpFaultCount[], spent: string[]) => void) | undefined;
  private faultRules: readonly UdpFaultRule[] = [];
  private startDelayMs = 0;

  /** Fault injection (src/faults): packet rules, their counts, and a slow start of each run. */
  readonly faults: StreamFaults = {
    setRules: (rules) => {
      this.faultRules = rules;
      this.emitter.setFaultRules([...rules]);
    },
    onCounts: (listener) => {
      this.faultCounts = listener;
    },
    setStartDelay: (ms) => {
      this.startDelayMs = ms;
    },
    setObjects: (objects) => this.emitter.setObjects(objects),
  };

  /** Zone Monitor's live zones from now on, without a reinit (a set applied, live_ids changed). */
  readonly zones: ZoneHal;

  udpFaultRules(): readonly UdpFaultRule[] {
    return this.faultRules;
  }

  async apply(run: StreamRun | null): Promise<void> {
    // A slow reinitialization (fault injection): the old streams stop, nothing is sent for the delay.
    if (run && this.startDelayMs > 0) {
      await this.applyPlan(null);
      await delay(this.startDelayMs);
    }
    await this.applyPlan(run);
  }

  private async applyPlan(run: StreamRun | null): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const plan = run && (this.replay ? planReplay(run, this.replay) : planStreams(run));
    this.lastPlan = plan;
    if (run) this.emitter.setZones(run.zones ?? null);
    this.currentSeq = this.emitter.nextSeq;
    await this.emitter.apply(plan);
  }

  /** The worker's tap runs only while at least one listener watches. */
  watchPreview(listener: (frame: PreviewFrame | null) => void): () => void {
    this.previewListeners.add(listener);
    if (this.previewListeners.size === 1) this.emitter.setPreview(true);
    return () => {
      if (!this.previewListeners.delete(listener)) return;
      if (this.previewListeners.size === 0 && !this.closed) this.emitter.setPreview(false);
    };
  }

  setAlertFlags(flags: number): void {
    this.emitter.setAlertFlags(flags);
  }

  setThermalHeader(bytes16to19: number): void {
    this.emitter.setThermalHeader(bytes16to19);
  }

  /** Packet counters of the running streams (benchmarks, diagnostics). */
  stats(): Promise<EmitterStats> {
    return this.emitter.stats();
  }

  /** Fault injection: the emitter worker dies as in a crash; it is restarted with the same run. */
  simulateWorkerCrash(): Promise<void> {
    return this.emitter.simulateCrash();
  }

  /** Packet counters since start-up, across reinits (GET /metrics). */
  streamTotals(): Promise<StreamTotals> {
    return this.emitter.totals();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.emitter.close();
  }

  /** A dead worker must not silence the unit for good: start a new one with the same run. */
  private restartAfterCrash() {
    if (this.closed || !this.lastPlan || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      const plan = this.lastPlan;
      if (this.closed || !plan) return;
      this.currentSeq = this.emitter.nextSeq;
      this.emitter.apply(plan).catch(() => this.restartAfterCrash());
    }, RESTART_AFTER_CRASH_MS);
    this.restartTimer.unref();
  }
}
