/**
 * The streams of one initialization inside the emitter worker: built from a plan, started together,
 * stopped together.
 */
import { ALERT_FLAG_ACTIVE } from '../../model/index.js';
import type { AlertEvent } from '../contract/alert-ids.js';
import type { SceneObjectPlan } from '../contract/scene-plan.js';
import type { StreamDestination, StreamPlan } from '../contract/stream-plan.js';
import type { EmitterStats, StreamName } from '../contract/stream-totals.js';
import type { ZoneMonitorPlan } from '../contract/zone-plan.js';
import { ImuStream } from './imu-stream.js';
import { ImuFrameStream } from './imu-frame-stream.js';
import { LidarStream } from './lidar-stream.js';
import type { PacedSource, Pacer } from './pacer.js';
import { ReplayStream } from './replay-stream.js';
import type { SceneReturns } from '../scene/scene-returns.js';
import { castScene } from '../scene/scene.js';
import { UdpTarget } from './udp-target.js';
import type { UdpFaultHook } from './udp-fault-filter.js';
import type { PreviewSource } from './preview-tap.js';

/** How long a start waits for its sockets before it starts the clock regardless. */
const OPEN_WAIT_MS = 250;

/** The last cast scene: a reinit that keeps the product and frame width (most of them) skips the cast. */
let cachedScene: { key: string; scene: SceneReturns } | null = null;

function sceneFor(plan: NonNullable<StreamPlan['lidar']>): SceneReturns {
  if (cachedScene?.key !== plan.sceneKey) cachedScene = { key: plan.sceneKey, scene: castScene(plan.geometry) };
  return cachedScene.scene;
}

export interface RunContext {
  /** The `alert_flags` byte of the unit's alert log, as the main thread last wrote it. */
  alertFlags(): number;
  /** Header bytes 16-19 as a little-endian u32 (thermal and shot-limiting state). */
  thermalHeader(): number;
  report(event: AlertEvent): void;
  /** The worker's one clock, shared with the other units' runs. */
  pacer: Pacer;
  /** The unit's UDP fault rules (src/faults), as a filter; null without rules. */
  faults: UdpFaultHook;
  /** Objects fault injection has put into the scene. */
  objects: readonly SceneObjectPlan[];
}

export class EmitterRun {
  private readonly paced: PacedSource[];

  private constructor(
    private readonly plan: StreamPlan,
    private readonly streams: {
      lidar: LidarStream | null;
      imu: ImuStream | ImuFrameStream | null;
      replay: ReplayStream | null;
    },
    private readonly targets: { lidar: UdpTarget | null; imu: UdpTarget | null; zones: UdpTarget | null },
    private readonly pacer: Pacer,
  ) {
    this.paced = [streams.lidar, streams.imu, streams.replay].filter((s): s is NonNullable<typeof s> => s !== null);
  }

  /** Prepares packets, opens sockets, and starts sending. */
  static async start(plan: StreamPlan, ctx: RunContext): Promise<EmitterRun> {
    const replaying = plan.replay !== undefined;
    const scene = plan.lidar && !replaying ? sceneFor(plan.lidar) : null;
    const targets = runTargets(plan, ctx);
    const opened = Promise.all([targets.lidar?.open(), targets.imu?.open(), targets.zones?.open()]);
    const all = [targets.lidar, targets.imu, targets.zones].filter((t) => t !== null);
    // The worker marks its own packets: while a socket of this run has an alert up, the log has an active
    // alert, so bit 7 is set from the packet after the error on, not only once the main thread has logged it
    // and written the log's byte back (cursor and overflow bits follow then). Asked per packet: a plain loop
    // over the run's sockets, no callback made per call.
    const alertFlags = () => {
      const flags = ctx.alertFlags();
      for (const target of all) if (target.alerting) return flags | ALERT_FLAG_ACTIVE;
      return flags;
    };
    // Packet templates are encoded while the sockets open.
    const identity = { initId: plan.initId, serialNumber: plan.serialNumber };
    let lidar: LidarStream | null = null;
    let imu: ImuStream | ImuFrameStream | null = null;
    let replay: ReplayStream | null = null;
    try {
      if (plan.replay) {
        const { profile, columnWindow, header } = plan;
        replay = new ReplayStream({ ...plan.replay, profile, columnWindow, header }, targets);
      } else {
        if (plan.lidar && scene && targets.lidar) {
          if (plan.profile === 'LEGACY') throw new Error('the synthetic scene has no LEGACY encoder');
          const frame = { profile: plan.profile, columnWindow: plan.columnWindow, header: plan.header };
          lidar = new LidarStream(
            plan.lidar,
            frame,
            scene,
            identity,
            targets.lidar,
            alertFlags,
            ctx.thermalHeader,
            targets.zones,
          );
          lidar.setZones(plan.liveZones);
          lidar.setObjects(ctx.objects);
        }
        const frames = plan.imu?.frames;
        if (plan.imu && targets.imu)
          imu = frames
            ? new ImuFrameStream({ ...plan.imu, frames }, identity, targets.imu, alertFlags)
            : new ImuStream(plan.imu, targets.imu);
      }
    } catch (error) {
      for (const t of all) t.close();
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

  /** Zone Monitor's live zones from the next frame on (a change between initializations; a run starts with its plan's). */
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
          columnWindow: this.plan.columnWindow,
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
      zoneStates: () => lidar.zoneStates,
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

/** The sockets of a run, one per stream the plan sends (not yet open). */
function runTargets(plan: StreamPlan, ctx: RunContext) {
  const target = (to: StreamDestination | null, stream: StreamName, portParameter: string) =>
    to &&
    new UdpTarget({
      host: to.host,
      port: to.port,
      bindAddress: plan.bindAddress,
      alerts: to.alerts,
      multicastTtl: to.multicastTtl,
      stream,
      portParameter,
      report: ctx.report,
      faults: ctx.faults,
    });
  return {
    lidar: target(plan.lidar, 'lidar', 'udp_port_lidar'),
    imu: target(plan.imu, 'imu', 'udp_port_imu'),
    // Zone packets ride with the lidar stream, also for UDP fault rules; a replay sends the recorded ones.
    zones: target(plan.zones, 'lidar', 'udp_port_zm'),
  };
}
