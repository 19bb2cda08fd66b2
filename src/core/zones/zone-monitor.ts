/**
 * Zone Monitor of firmware 3.2 (docs/zone-monitor.md): the staged and the active zone set, the live zone
 * ids, and what the data plane watches. Zips are kept as the client sent them (a read gives back the
 * same bytes) in the key-value table, each write one durable transaction like the configuration's. Zones
 * are rendered in a worker thread (zone-render-thread.ts) when a set is staged (to refuse what the unit could
 * never monitor) or applied, and when the frame width needs images the active set has none for yet (a start,
 * a reinit into another lidar_mode); the data plane gets the images through the HAL's zone interface (ZoneHal).
 */
import type { Logger } from 'pino';
import {
  ALERT_IDS,
  type AlertSink,
  conflict,
  invalidZoneSet,
  MAX_LIVE_ZONES,
  type ProductModel,
  type ZoneBeams,
  type ZoneProblem,
  type ZoneSetSpec,
  utcIsoString,
} from '../../model/index.js';
import { KV_KEYS, type KvStore } from '../../store/index.js';
import type { ZoneWatcher } from '../../hal/index.js';
import type { ZoneMonitorPlan } from '../../udp/index.js';
import { ZoneRenderThreads } from './zone-render-thread.js';
import {
  type CheckedZoneSet,
  readZoneSetSpec,
  type RecordedZoneSet,
  zoneBeamsOf,
  type UnreadableZoneSet,
  zoneSetHash,
} from './zone-set.js';
import { type ZoneSetSummary, zoneSetSummary } from './zone-summary.js';

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
  /** Where an unreadable stored set is announced (CONFIG_INVALID). */
  alerts?: Pick<AlertSink, 'raise'>;
  /** How long one zone set may take to render (default ZONE_RENDER_TIME_LIMIT_MS). */
  renderTimeLimitMs?: number;
}

const decode = (base64: string | undefined) =>
  base64 === undefined ? undefined : new Uint8Array(Buffer.from(base64, 'base64'));
const encode = (zip: Uint8Array) => Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength).toString('base64');

export class ZoneMonitor {
  /** The active set as its metadata.json describes it: kept whatever the frame width (a zone that does not fit one reports so). */
  private active: { spec: ZoneSetSpec; hash: Uint8Array; zip: Uint8Array } | null = null;
  /** The active set's images for one frame width, rendered in a worker when a width first needs them. */
  private rendered: CheckedZoneSet | null = null;
  /** The frame width a background render is under way for. */
  private renderingColumns: number | undefined;
  private live: number[] = [];
  private announced = false;
  private setAsideReason: string | undefined;
  private readonly threads: ZoneRenderThreads;

  constructor(private readonly deps: ZoneMonitorDependencies) {
    this.threads = new ZoneRenderThreads(deps.renderTimeLimitMs);
    const zip = deps.recorded?.zip ?? decode(deps.kv.get<string>(KV_KEYS.zoneActive));
    this.live = deps.recorded ? [...(deps.recorded.liveIds ?? [])] : (deps.kv.get<number[]>(KV_KEYS.zoneLiveIds) ?? []);
    if (zip) {
      const read = readZoneSetSpec(zip);
      if ('unreadable' in read) this.setAside(zip, read.unreadable);
      else {
        this.active = { spec: read.spec, hash: zoneSetHash(zip), zip };
        this.announceWatcher();
        if (deps.recorded && deps.recorded.liveIds === null) this.live = [...read.spec.powerOnLiveIds];
      }
    }
  }

  /**
   * A stored active set the SDK cannot read (stored before the unit checked the SDK's schema) would abort every
   * SDK client that opens the unit: it is moved aside (GET /api/v1/diagnostics/dump carries it), no set is
   * active, and an error line says so, as CONFIG_INVALID does once the unit has booted (announceSetAside). A replayed recording's set is the recording's: kept.
   */
  private setAside(zip: Uint8Array, problems: readonly ZoneProblem[]): void {
    const { kv, log, recorded } = this.deps;
    if (recorded) {
      log.error({ problems }, "the recording's zone set cannot be read by the SDK; no zone is live");
      return;
    }
    try {
      kv.db.transaction(() => {
        kv.set(KV_KEYS.zoneSetAside, { zip: encode(zip), problems, at: utcIsoString(Date.now()) });
        kv.delete(KV_KEYS.zoneActive);
        kv.delete(KV_KEYS.zoneLiveIds);
      })();
    } catch (error) {
      // Not writable now (a full disk, a read-only start): not used all the same; set aside at the next start.
      log.warn({ err: error }, 'the unreadable zone set could not be moved aside now');
    }
    this.live = [];
    log.error(
      { problems },
      'the stored active zone set cannot be read by the SDK: set aside (kept in the diagnostics dump); no zone set is active',
    );
    this.setAsideReason = `the active zone set cannot be read by the SDK (${problems.map((p) => p.detail).join('; ')}); it was set aside, kept in the diagnostics dump, and no zone set is active`;
  }

  /** Raises CONFIG_INVALID for a set set aside at this start: after the boot, which clears the run's alerts. */
  announceSetAside(): void {
    if (this.setAsideReason) this.deps.alerts?.raise(ALERT_IDS.CONFIG_INVALID, { reason: this.setAsideReason });
  }

  /** The zone set set aside at start because the SDK cannot read it (the diagnostics dump), if any. */
  setAsideZoneSet(): { zip: Uint8Array; problems: ZoneProblem[]; at: string } | undefined {
    const stored = this.deps.kv.get<{ zip: string; problems: ZoneProblem[]; at: string }>(KV_KEYS.zoneSetAside);
    return stored && { ...stored, zip: decode(stored.zip) as Uint8Array };
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
    return this.active?.zip;
  }

  get liveIds(): readonly number[] {
    return this.live;
  }

  /** `zip` read and rendered in a worker for frames `columns` wide. */
  private async render(zip: Uint8Array, columns: number): Promise<CheckedZoneSet | UnreadableZoneSet> {
    const began = performance.now();
    const result = await this.threads.render(zip, this.beams(columns));
    this.deps.log.debug({ columns, ms: Math.round(performance.now() - began) }, 'zone set rendered');
    return result;
  }

  /** `zip` read and rendered for the current frame width; refused when any rule or zone fails. */
  private async renderOrRefuse(zip: Uint8Array): Promise<CheckedZoneSet> {
    const result = await this.render(zip, this.deps.columnsPerFrame());
    if ('unreadable' in result) throw invalidZoneSet(result.unreadable);
    if (result.problems.length) throw invalidZoneSet(result.problems);
    return result;
  }

  /** Checks `zip` against every rule and this unit's beams, then stages it; a refused zip changes nothing. */
  async stage(zip: Uint8Array): Promise<void> {
    await this.renderOrRefuse(zip);
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
    await this.deps.serialize(async () => {
      const zip = this.stagedZip();
      if (!zip) throw conflict('no zone set is staged: POST one to /api/v1/zone_monitor/staged/zip first');
      const checked = await this.renderOrRefuse(zip);
      const live = [...checked.spec.powerOnLiveIds];
      const { kv } = this.deps;
      kv.db.transaction(() => {
        kv.set(KV_KEYS.zoneActive, encode(zip));
        kv.set(KV_KEYS.zoneLiveIds, live);
      })();
      this.active = { spec: checked.spec, hash: checked.hash, zip };
      this.rendered = checked;
      this.renderingColumns = undefined;
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

  /**
   * Sets the live zones: at most 16 distinct ids (0..255). An id that names no zone of the active set is
   * taken, as a 3.2 unit takes it (the vendor's zone_monitor_zone_states example sets 0..3 after its
   * zone_monitor_zone_set example applied zones 0 and 1): its slot is live and reports error flag 1.
   */
  async setLiveIds(ids: readonly number[]): Promise<void> {
    this.refuseWhileReplaying('change live_ids');
    await this.deps.serialize(() => {
      if (!this.active) throw conflict('no zone set is active: POST /api/v1/zone_monitor/apply first');
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
  summary(): ZoneSetSummary | null {
    const spec = this.active?.spec;
    return spec ? zoneSetSummary(spec, this.live, this.deps.watcher) : null;
  }

  /**
   * What the data plane watches for frames `columns` wide: the live zones with their images for that width.
   * Where the active set has none rendered for it yet (a start, another lidar_mode), a worker renders them
   * and the plan is handed over again when they are ready; meanwhile, and for a zone that does not fit this
   * width, the zone's slot reports that it has no images. Never per packet.
   */
  planFor(columns: number): ZoneMonitorPlan | null {
    // null: no set is active (the zone packets' slots are empty, their hash zero); a set with no live zone
    // gives a plan without zones (its hash in the packets).
    const active = this.active;
    if (!active) return null;
    const rendered = this.rendered?.columns === columns ? this.rendered : undefined;
    if (!rendered && this.live.length > 0) this.renderInBackground(active, columns);
    const byId = new Map(active.spec.zones.map((z) => [z.id, z]));
    return {
      hash: active.hash,
      zones: this.live.map((id) => {
        const zone = byId.get(id);
        return {
          id,
          triggerType: zone?.mode === 'VACANCY' ? 2 : 1,
          pointCount: zone?.pointCount ?? 1,
          frameCount: zone?.frameCount ?? 1,
          images: rendered?.images.get(id) ?? null,
        };
      }),
    };
  }

  private renderInBackground(active: NonNullable<ZoneMonitor['active']>, columns: number): void {
    if (this.renderingColumns === columns) return;
    this.renderingColumns = columns;
    void this.render(active.zip, columns).then((result) => {
      // Another set was applied, or another width asked for, meanwhile: this render is of no use.
      if (this.active !== active || this.renderingColumns !== columns) return;
      this.renderingColumns = undefined;
      const problems = 'unreadable' in result ? result.unreadable : result.problems;
      if (problems.length)
        this.deps.log.warn({ problems, columns }, 'zones of the active zone set have no images for this frame width');
      this.rendered =
        'unreadable' in result
          ? { spec: active.spec, hash: active.hash, images: new Map(), columns, problems }
          : result;
      if (columns === this.deps.columnsPerFrame()) this.deps.push(this.planFor(columns));
    });
  }

  /** Ends the renders still running (the unit closes). */
  close(): Promise<void> {
    return this.threads.close();
  }
}
