/**
 * What the unit runs now: its status, its initialization_id and the bring-up that hands a configuration to
 * the HAL. The configuration lifecycle (config-lifecycle.ts) and the power state (power-state.ts) both end in
 * a bring-up; this is the one place that does it, so status, id and the `reinit` event always agree.
 */
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { AlertLog } from '../alerts/index.js';
import type { ConfigState, SensorConfig } from '../config/index.js';
import type { Hal } from '../hal/index.js';
import { planStreams, type StreamPlan, udpSourceAddress, type ZoneMonitorPlan } from '../udp/index.js';
import {
  type GnssPlan,
  nextInitializationId,
  type ProductModel,
  resolveFrameFormat,
  serialToBigInt,
} from '../model/index.js';
import type { RecordingBinding, SensorEvents } from './sensor-types.js';
import type { SensorStatus } from './status.js';

export interface UnitRunDependencies {
  hal: Pick<Hal, 'streams' | 'telemetry' | 'time'>;
  alerts: Pick<AlertLog, 'clearForReinit' | 'flags'>;
  product: ProductModel;
  /** The unit's serial number now (packets carry it). */
  serialNumber: () => string;
  /** The configurations; a bring-up makes its configuration the active one. */
  configs: ConfigState;
  /** Where `status` and `reinit` are told. */
  events: Pick<EventEmitter<SensorEvents>, 'emit'>;
  log: Logger;
  /** True while a shutdown alert holds the unit in ERROR (power-state.ts): it runs no streams. */
  shutDown: () => boolean;
  /** The local address the data streams are sent from now (it follows the bound address), or undefined. */
  dataSource?: () => string | undefined;
  /** The GNSS receiver on the NMEA input (`--gnss`). */
  gnss?: GnssPlan;
  recording?: RecordingBinding;
  /** Zone Monitor's live zones rendered for a frame width, or null where the unit offers none (firmware < 3.2). */
  zonePlan?: (columnsPerFrame: number) => ZoneMonitorPlan | null;
}

export class UnitRun {
  private currentStatus: SensorStatus = 'INITIALIZING';
  private initId: number;

  constructor(private readonly deps: UnitRunDependencies) {
    this.initId = this.nextId();
  }

  get status(): SensorStatus {
    return this.currentStatus;
  }

  get initializationId(): number {
    return this.initId;
  }

  /** Changes status and tells listeners (metadata, telemetry, the data plane). */
  setStatus(status: SensorStatus): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.deps.events.emit('status', status);
  }

  /** The next run gets a new initialization_id (a boot, a recovery). */
  renew(): void {
    this.initId = this.nextId(this.initId);
  }

  /** The address this unit's lidar and IMU datagrams to `destination` leave from (bound as the data plane binds). */
  dataSourceTowards(destination: string): Promise<string> {
    return udpSourceAddress(destination, this.deps.dataSource?.());
  }

  /** What `config` streams in this initialization (null: nothing), as the data plane runs it. */
  streamPlan(config: Readonly<SensorConfig>, liveZones?: ZoneMonitorPlan | null): StreamPlan | null {
    return planStreams(config, {
      liveZones,
      initId: this.initId,
      product: this.deps.product,
      serialNumber: serialToBigInt(this.deps.serialNumber()),
      bindAddress: this.deps.dataSource?.(),
      timestampOffsetNs: this.deps.hal.time.timestampOffsetNs(config),
      gnss: this.deps.gnss,
    });
  }

  /** INITIALIZING → the HAL runs `config` → RUNNING or STANDBY (ERROR, without streams, at a shutdown level). */
  async bringUp(config: Readonly<SensorConfig>): Promise<void> {
    const { hal, alerts } = this.deps;
    this.setStatus('INITIALIZING');
    hal.time.markInitialization();
    // The previous run ends here: alerts about it no longer hold (the new run raises its own).
    alerts.clearForReinit();
    hal.streams.setAlertFlags(alerts.flags());
    const down = this.deps.shutDown();
    const streaming = config.operating_mode === 'NORMAL' && !down;
    // Live zones, rendered for this configuration's frame width, ride with the plan (a zone set applied later
    // reaches the streams without a reinit, through ZoneMonitor).
    const liveZones = streaming
      ? this.deps.zonePlan?.(resolveFrameFormat(this.deps.product, config).columnsPerFrame)
      : undefined;
    await hal.streams.apply(streaming ? this.streamPlan(config, liveZones) : null);
    hal.telemetry.applyRun(down ? null : { config, timestampOffsetNs: hal.time.timestampOffsetNs(config) });
    this.deps.configs.set('active', config);
    this.setStatus(down ? 'ERROR' : streaming ? 'RUNNING' : 'STANDBY');
    this.deps.events.emit('reinit', { initializationId: this.initId, config });
  }

  /**
   * A reinit: `candidate` comes up with a new initialization_id. When that fails, the previous id and the
   * active configuration come back up, and the failure is thrown.
   */
  async reinit(candidate: Readonly<SensorConfig>): Promise<void> {
    const previousInitId = this.initId;
    this.renew();
    try {
      await this.bringUp(candidate);
    } catch (error) {
      this.deps.log.error({ err: error }, 'reinit failed; restoring the previous configuration');
      this.initId = previousInitId;
      await this.bringUp(this.deps.configs.get('active')).catch((e: unknown) =>
        this.deps.log.error({ err: e }, 'restoring failed'),
      );
      throw error;
    }
  }

  /** A new initialization_id, except on a replaying unit (its packets carry the recorded one). */
  private nextId(previous?: number): number {
    return this.deps.recording?.initializationId ?? nextInitializationId(previous);
  }
}
