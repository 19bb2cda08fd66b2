/**
 * The streams of one initialization inside the emitter worker: built from a plan, started together,
 * stopped together.
 */
import type { AlertEvent, EmitterPlan, EmitterStats, ZoneMonitorPlan } from './emitter-protocol.js';
import type { SceneObjectPlan } from './scene-objects.js';
import { ImuStream } from './imu-stream.js';
import { LidarStream } from './lidar-stream.js';
import type { PacedSource, Pacer } from './pacer.js';
import { ReplayStream } from './replay/replay-stream.js';
import { castScene, type SceneReturns } from './scene.js';
import type { StreamAlertIds } from './stream-alerts.js';
import { UdpTarget } from './udp-target.js';
import type { UdpFaultHook } from './udp-fault-filter.js';
import type { PreviewSource } from './preview-tap.js';

/** How long a start waits for its sockets before it starts the clock regardless. */
const OPEN_WAIT_MS = 250;

/** The last cast scene: a reinit that keeps the product and frame width (most of them) skips the cast. */
let cachedScene: { key: string; scene: SceneReturns } | null = null;

function sceneFor(plan: NonNullable<EmitterPlan['lidar']>): SceneReturns {
  if (cachedScene?.key !== plan.sceneKey) cachedScene = { key: plan.sceneKey, scene: castScene(plan.geometry) };
  return cachedScene.scene;
}

export interface RunContext {
  alertFlags(): number;
  /** Header bytes 16-19 as a little-endian u32 (thermal and shot-limiting state). */
  thermalHeader(): number;
  report(event: AlertEvent): void;
  /** The worker's one clock, shared with the other units' runs. */
  pacer: Pacer;
  /** The unit's UDP fault rules (src/faults), as a filter; null without rules. */
  faults: UdpFaultHook;
  /** The unit's live zones (they outlive runs: a reinit keeps watching them). */
  zones: ZoneMonitorPlan | null;
  /** Objects fault injection has put into the scene. */
  objects: readonly SceneObjectPlan[];
}

export class EmitterRun {
  private readonly paced: PacedSource[];

  private constructor(
    private readonly plan: EmitterPlan,
    private readonly streams: { lidar: LidarStream | null; imu: ImuStream | null; replay: ReplayStream | null },
    private readonly targets: { lidar: UdpTarget | null; imu: UdpTarget | null; zones: UdpTarget | null },
    private readonly pacer: Pacer,
  ) {
    this.paced = [streams.lidar, streams.imu, streams.replay].filter((s): s is NonNullable<typeof s> => s !== null);
  }

  /** Prepares packets, opens sockets, and starts sending. */
  static async start(plan: EmitterPlan, ctx: RunContext): Promise<EmitterRun> {
    const scene = plan.lidar ? sceneFor(plan.lidar) : null;
    const target = (p: { host: string; port: number; alerts: StreamAlertIds } | null, portParameter: string) =>
      p &&
      new UdpTarget({
        host: p.host,
        port: p.port,
        bindAddress: plan.bindAddress,
        alerts: p.alerts,
        portParameter,
        report: ctx.report,
        faults: ctx.faults,
      });
    const replayPlan = plan.replay;
    const targets = {
      lidar: target(plan.lidar ?? replayPlan?.lidar ?? null, 'udp_port_lidar'),
      imu: target(plan.imu ?? replayPlan?.imu ?? null, 'udp_port_imu'),
      zones: target(plan.lidar?.zones ?? replayPlan?.zones ?? null, 'udp_port_zm'),
    };
    const opened = Promise.all([targets.lidar?.open(), targets.imu?.open(), targets.zones?.open()]);
    // Packet templates are encoded while the sockets open.
    const identity = { initId: plan.initId, serialNumber: plan.serialNumber };
    const lidar =
      plan.lidar && scene && targets.lidar
        ? new LidarStream(plan.lidar, scene, identity, targets.lidar, ctx.alertFlags, ctx.thermalHeader, targets.zones)
        : null;
    lidar?.setZones(ctx.zones);
    lidar?.setObjects(ctx.objects);
    const imu = plan.imu && targets.imu ? new ImuStream(plan.imu, targets.imu) : null;
    let replay: ReplayStream | null = null;
    try {
      replay = replayPlan ? new ReplayStream(replayPlan.source, targets) : null;
    } catch (error) {
      targets.lidar?.close();
      targets.imu?.close();
      targets.zones?.close();
      throw error;
    }
    // Sockets to IP addresses open within a millisecond; a host name that takes long to resolve must not
    // hold up the reinit (the device core waits for apply): the streams then start and send once connected.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([opened, new Promise<void>((resolve) => (timer = setTimeout(resolve, OPEN_WAIT_MS)))]);
    clearTimeout(timer);

    const run = new EmitterRun(plan, { lidar, imu, replay }, targets, ctx.pacer);
    // Both streams share one start instant, read after all the preparation.
    const start = { sensorNs: process.hrtime.bigint() + plan.timestampOffsetNs, localMs: performance.now() };
    lidar?.begin(start);
    imu?.begin(start);
    replay?.begin(start.localMs);
    ctx.pacer.add(run.paced);
    return run;
  }

  /** Paces the lidar stream at `hz` (a frame_rate fault rule), or at lidar_mode's rate when undefined. */
  setLidarFrameRate(hz: number | undefined): void {
    this.streams.lidar?.retime(hz, {
      sensorNs: process.hrtime.bigint() + this.plan.timestampOffsetNs,
      localMs: performance.now(),
    });
  }

  /** Zone Monitor's live zones from the next frame on. */
  setZones(plan: ZoneMonitorPlan | null): void {
    this.streams.lidar?.setZones(plan);
  }

  /** Objects in the scene from the next frame on. */
  setObjects(objects: readonly SceneObjectPlan[]): void {
    this.streams.lidar?.setObjects(objects);
  }

  /** Synchronous: once it returns, no datagram of this run can leave any more. */
  stop(): void {
    this.pacer.remove(this.paced);
    this.targets.lidar?.close();
    this.targets.imu?.close();
    this.targets.zones?.close();
  }

  /** What the lidar stream (or the replay) sends, for the live view; null without one. */
  previewSource(): PreviewSource | null {
    const lidar = this.streams.lidar;
    const target = this.targets.lidar;
    const replay = this.streams.replay;
    if (replay && target) {
      const image = replay.previewImage();
      return (
        image && {
          initId: this.plan.initId,
          image,
          columnWindow: this.plan.replay?.source.columnWindow ?? [0, image.columns - 1],
          packetsSent: () => target.stats.sent,
        }
      );
    }
    if (!lidar || !target) return null;
    return {
      initId: this.plan.initId,
      image: lidar.image,
      columnWindow: lidar.columnWindow,
      packetsSent: () => target.stats.sent,
    };
  }

  stats(): EmitterStats {
    return {
      initId: this.plan.initId,
      lidar: this.targets.lidar ? { ...this.targets.lidar.stats } : null,
      imu: this.targets.imu ? { ...this.targets.imu.stats } : null,
    };
  }
}
