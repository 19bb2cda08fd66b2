/**
 * Zone Monitor of firmware 3.2 (docs/zone-monitor.md): the staged and the active zone set, the live zone
 * ids, and what the data plane watches. Zips are kept as the client sent them (a read gives back the
 * same bytes) in the key-value table, each write one durable transaction like the configuration's. Zones
 * are rendered when a set is staged (to refuse what the unit could never monitor), applied, loaded at start
 * or the frame width changes; the data plane gets the images through the HAL's zone interface (ZoneHal).
 */
import type { Logger } from 'pino';
import {
  conflict,
  invalidZoneSet,
  MAX_LIVE_ZONES,
  type ProductModel,
  type ZoneBeams,
  type ZoneSetSpec,
} from '../../model/index.js';
import { KV_KEYS, type KvStore } from '../../store/index.js';
import type { ZoneWatcher } from '../../hal/index.js';
import type { RecordedZoneSet } from '../sensor-types.js';
import type { ZoneMonitorPlan } from '../../udp/index.js';
import { checkZoneSet, type CheckedZoneSet } from './zone-set.js';

export interface ZoneMonitorDependencies {
  kv: KvStore;
  product: ProductModel;
  /** Frame width of the active lidar_mode: the images' column count. */
  columnsPerFrame(): number;
  /** Runs `change` after every reinit queued before it (the device core's queue). */
  serialize<T>(change: () => T | Promise<T>): Promise<T>;
  /** Hands the live zones to the data plane (null: none). */
  push(plan: ZoneMonitorPlan | null): void;
  /** What watches the zones (the HAL's ZoneHal.watcher); null: the data path cannot watch zones at all. */
  watcher: ZoneWatcher | null;
  log: Logger;
  /**
   * A replayed recording's zone set: active with its live ids instead of the stored ones (nothing is
   * written), and applying another set or other live ids is refused, as its zone packets cannot change.
   */
  recorded?: RecordedZoneSet;
}

/** What watches the zones, as the page shows it. */
export interface ZoneWatcherSummary {
  hardware: boolean;
  renders_zones: boolean;
  detail: string;
}

/** A zone as GET live_ids' neighbours and the page list it. */
export interface ZoneSummary {
  id: number;
  label: string;
  mode: string;
  point_count: number;
  frame_count: number;
  live: boolean;
}

const decode = (base64: string | undefined) =>
  base64 === undefined ? undefined : new Uint8Array(Buffer.from(base64, 'base64'));
const encode = (zip: Uint8Array) => Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength).toString('base64');

/** The unit's beams for frames `columns` wide, as the render takes them. */
export function zoneBeamsOf(product: ProductModel, columns: number): ZoneBeams {
  return {
    columnsPerFrame: columns,
    beamAltitudeDeg: product.beamAltitudeDeg,
    beamAzimuthDeg: product.beamAzimuthDeg,
    lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
    lidarToSensor: product.lidarToSensorTransform,
  };
}

export class ZoneMonitor {
  /** The active set, checked for the frame width of its images. */
  private active: CheckedZoneSet | null = null;
  private activeZipBytes: Uint8Array | undefined;
  private live: number[] = [];
  private announced = false;

  constructor(private readonly deps: ZoneMonitorDependencies) {
    this.activeZipBytes = deps.recorded?.zip ?? decode(deps.kv.get<string>(KV_KEYS.zoneActive));
    this.live = deps.recorded ? [...(deps.recorded.liveIds ?? [])] : (deps.kv.get<number[]>(KV_KEYS.zoneLiveIds) ?? []);
    if (this.activeZipBytes) {
      const checked = checkZoneSet(this.activeZipBytes, this.beams());
      if (Array.isArray(checked))
        deps.log.error(
          { problems: checked },
          'the stored active zone set cannot be monitored by this unit; no zone is live',
        );
      else {
        this.active = checked;
        this.announceWatcher();
        if (deps.recorded && deps.recorded.liveIds === null) this.live = [...checked.spec.powerOnLiveIds];
      }
    }
  }

  private beams(columns = this.deps.columnsPerFrame()): ZoneBeams {
    return zoneBeamsOf(this.deps.product, columns);
  }

  /** The staged zip as it was uploaded; undefined when none is staged. */
  stagedZip(): Uint8Array | undefined {
    return decode(this.deps.kv.get<string>(KV_KEYS.zoneStaged));
  }

  /** The active zip as it was uploaded; undefined when none was applied. */
  activeZip(): Uint8Array | undefined {
    return this.activeZipBytes;
  }

  get liveIds(): readonly number[] {
    return this.live;
  }

  /** Checks `zip` against every rule and this unit's beams, then stages it; a refused zip changes nothing. */
  async stage(zip: Uint8Array): Promise<void> {
    const checked = checkZoneSet(zip, this.beams());
    if (Array.isArray(checked)) throw invalidZoneSet(checked);
    await this.deps.serialize(() => this.deps.kv.set(KV_KEYS.zoneStaged, encode(zip)));
  }

  /** Removes the staged zip; true when there was one. */
  async unstage(): Promise<boolean> {
    return this.deps.serialize(() => {
      if (this.deps.kv.get<string>(KV_KEYS.zoneStaged) === undefined) return false;
      this.deps.kv.delete(KV_KEYS.zoneStaged);
      return true;
    });
  }

  /** The staged set becomes the active one, its power-on live ids live; the data plane watches it from the next frame. */
  async apply(): Promise<void> {
    this.refuseWhileReplaying('apply another zone set');
    await this.deps.serialize(() => {
      const zip = this.stagedZip();
      if (!zip) throw conflict('no zone set is staged: POST one to /api/v1/zone_monitor/staged/zip first');
      const checked = checkZoneSet(zip, this.beams());
      if (Array.isArray(checked)) throw invalidZoneSet(checked);
      const live = [...checked.spec.powerOnLiveIds];
      const { kv } = this.deps;
      kv.db.transaction(() => {
        kv.set(KV_KEYS.zoneActive, encode(zip));
        kv.set(KV_KEYS.zoneLiveIds, live);
      })();
      this.active = checked;
      this.activeZipBytes = zip;
      this.live = live;
      this.announceWatcher();
      this.deps.push(this.planFor(this.deps.columnsPerFrame()));
    });
  }

  /** Says once, when a set first becomes active, what watches its zones on this unit. */
  private announceWatcher(): void {
    if (this.announced) return;
    this.announced = true;
    const w = this.deps.watcher;
    if (!w) this.deps.log.warn('this data path cannot watch zones: zone sets and live ids are only stored and served');
    else if (w.hardware) this.deps.log.info({ rendersZones: w.rendersZones }, 'zone hardware watches the zones');
    else this.deps.log.info({ zoneHardware: false }, w.detail);
  }

  /** Sets the live zones: at most 16 distinct ids of the active set. */
  async setLiveIds(ids: readonly number[]): Promise<void> {
    this.refuseWhileReplaying('change live_ids');
    await this.deps.serialize(() => {
      if (!this.active) throw conflict('no zone set is active: POST /api/v1/zone_monitor/apply first');
      const known = new Set(this.active.spec.zones.map((z) => z.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length)
        throw invalidZoneSet(
          unknown.map((id) => ({ rule: 'live-ids', zone: id, detail: `zone ${id} is not in the active zone set` })),
        );
      if (new Set(ids).size !== ids.length || ids.length > MAX_LIVE_ZONES)
        throw invalidZoneSet([
          { rule: 'live-ids', detail: `live_ids lists at most ${MAX_LIVE_ZONES} distinct zone ids` },
        ]);
      this.deps.kv.set(KV_KEYS.zoneLiveIds, [...ids]);
      this.live = [...ids];
      this.deps.push(this.planFor(this.deps.columnsPerFrame()));
    });
  }

  private refuseWhileReplaying(what: string): void {
    if (this.deps.recorded)
      throw conflict(
        `cannot ${what} while replaying a recording: its zone packets were watched with the recorded zone set and live ids`,
      );
  }

  /** The zones of the active set with their live state (the page, the validator). */
  summary(): { label: string; zones: ZoneSummary[]; watcher: ZoneWatcherSummary } | null {
    const spec: ZoneSetSpec | undefined = this.active?.spec;
    if (!spec) return null;
    const live = new Set(this.live);
    const w = this.deps.watcher;
    return {
      label: spec.label,
      watcher: w
        ? { hardware: w.hardware, renders_zones: w.rendersZones, detail: w.detail }
        : { hardware: false, renders_zones: false, detail: 'this data path cannot watch zones' },
      zones: spec.zones.map((z) => ({
        id: z.id,
        label: z.label,
        mode: z.mode,
        point_count: z.pointCount,
        frame_count: z.frameCount,
        live: live.has(z.id),
      })),
    };
  }

  /**
   * What the data plane watches for frames `columns` wide: the live zones' images, rendered again when the
   * frame width changed since the set was applied (never per packet); null without live zones.
   */
  planFor(columns: number): ZoneMonitorPlan | null {
    const active = this.active;
    if (!active || !this.activeZipBytes || this.live.length === 0) return null;
    const sample = active.images.values().next().value;
    if (sample && sample.columns !== columns) {
      const checked = checkZoneSet(this.activeZipBytes, this.beams(columns));
      if (Array.isArray(checked))
        this.deps.log.warn({ problems: checked, columns }, 'the active zone set has no images for this frame width');
      else this.active = checked;
    }
    const byId = new Map(this.active?.spec.zones.map((z) => [z.id, z]));
    return {
      hash: active.hash,
      zones: this.live.map((id) => {
        const zone = byId.get(id);
        const images = this.active?.images.get(id);
        return {
          id,
          triggerType: zone?.mode === 'VACANCY' ? 2 : 1,
          pointCount: zone?.pointCount ?? 1,
          frameCount: zone?.frameCount ?? 1,
          images: images && images.columns === columns ? images : null,
        };
      }),
    };
  }
}
