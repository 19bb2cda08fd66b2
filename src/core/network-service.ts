/**
 * The network resources of the unit (`/api/v1/system/network…`): the interface's facts from the HAL
 * plus the two persisted settings, the static IPv4 override and the speed override (kv table).
 *
 * A change is persisted at once and answered; the interface is reset a sub-second delay later
 * (`scheduleReset`, called by the route once the response is written), so the client gets its answer
 * before the address it talks to goes away. A reset applies whatever is persisted at that moment,
 * so quick successive changes end in the last one. DELETE /api/v1/sensor/config removes the override
 * key (KV_KEYS.ipv4Override) in its own transaction; the restart that follows calls `restore`.
 */
import type { Logger } from 'pino';
import {
  badRequest,
  conflict,
  DEFAULT_OVERRIDE_PREFIX,
  isLinkLocal,
  isLoopback,
  parseCidr,
  parseIpv4Override,
  type ProductModel,
} from '../model/index.js';
import type { NetworkFacts, NetworkHal, SpeedOverride } from '../hal/index.js';
import { KV_KEYS, type KvStore } from '../store/index.js';
import { type AddressMove, type BoundAddress, heldByThisMachine } from './bound-address.js';
import { SerialQueue } from './serial-queue.js';

/** How long after answering the unit resets its network ("a sub-second delay"). */
export const NETWORK_RESET_DELAY_MS = 500;
/**
 * How often a unit bound to a specific address checks that the machine still holds it: a change the unit did
 * not make (a DHCP lease renewed to another address, an operator's `ip addr`) moves it as its own override does.
 */
export const BOUND_ADDRESS_WATCH_MS = 2000;

export interface Ipv4Document {
  /** The current global (or private) address in CIDR form; the link-local one when there is none. */
  addr: string;
  link_local: string;
  override: string | null;
}

export interface NetworkDocument {
  carrier: boolean;
  duplex: 'half' | 'full';
  ethaddr: string;
  hostname: string;
  ipv4: Ipv4Document;
  ipv6: { link_local: string };
  speed: number;
  speed_override: SpeedOverride;
}

export interface NetworkServiceDependencies {
  hal: NetworkHal;
  kv: KvStore;
  product: ProductModel;
  log: Logger;
  /** The specific address the unit is bound to: it follows the interface when a reset moves it away. */
  bound?: BoundAddress;
  /** Told after a reset moved the bound address (the listener, mDNS and the data plane move with it). */
  onAddressMoved?: (move: AddressMove) => void;
}

const isLinkLocalCidr = (cidr: string) => isLinkLocal(parseCidr(cidr)?.address ?? 0);

export class NetworkService {
  private readonly hal: NetworkHal;
  private readonly kv: KvStore;
  private readonly product: ProductModel;
  private readonly log: Logger;
  private readonly bound: BoundAddress | undefined;
  private readonly onAddressMoved: (move: AddressMove) => void;
  private readonly resets = new SerialQueue();
  private readonly pending = new Map<NodeJS.Timeout, { done: Promise<void>; settle: () => void }>();
  /** The speed the interface was last set to; the hardware negotiates normally at boot. */
  private appliedSpeed: SpeedOverride = null;
  private closed = false;
  private addressWatch: NodeJS.Timeout | undefined;

  constructor(deps: NetworkServiceDependencies) {
    this.hal = deps.hal;
    this.kv = deps.kv;
    this.product = deps.product;
    this.log = deps.log;
    this.bound = deps.bound;
    this.onAddressMoved = deps.onAddressMoved ?? (() => undefined);
  }

  /** The specific address the unit is bound to now (it follows its interface), or undefined for a wildcard one. */
  get boundAddress(): string | undefined {
    return this.bound?.current;
  }

  async network(): Promise<NetworkDocument> {
    const facts = await this.hal.facts();
    return {
      carrier: facts.carrier,
      duplex: facts.duplex,
      ethaddr: facts.ethaddr,
      hostname: facts.hostname,
      ipv4: this.ipv4From(facts),
      ipv6: { link_local: facts.ipv6LinkLocal },
      speed: facts.speed,
      speed_override: this.product.automotiveEthernet ? this.storedSpeedOverride() : null,
    };
  }

  async ipv4(): Promise<Ipv4Document> {
    return this.ipv4From(await this.hal.facts());
  }

  override(): string | null {
    return this.kv.get<string>(KV_KEYS.ipv4Override) ?? null;
  }

  /**
   * `PUT …/ipv4/override`: validates (400 and nothing changes when it is not a valid unicast
   * address), persists, and answers the CIDR that will be applied. A bare address gets the prefix
   * of the current address, else /24. Call `scheduleReset` once the response is out.
   */
  async setOverride(value: string): Promise<string> {
    const parsed = parseIpv4Override(value, await this.currentPrefix());
    if (!parsed.ok) throw badRequest(parsed.problem);
    this.kv.set(KV_KEYS.ipv4Override, parsed.cidr);
    return parsed.cidr;
  }

  /** `DELETE …/ipv4/override`: back to dynamic addressing (after `scheduleReset`). */
  deleteOverride(): void {
    this.kv.delete(KV_KEYS.ipv4Override);
  }

  speedOverride(): SpeedOverride {
    this.requireT1();
    return this.storedSpeedOverride();
  }

  /** `PUT …/speed_override`: only on T1 models (409); the route checked the value. */
  setSpeedOverride(): 100 {
    this.requireT1();
    this.kv.set(KV_KEYS.speedOverride, 100);
    return 100;
  }

  deleteSpeedOverride(): void {
    this.requireT1();
    this.kv.delete(KV_KEYS.speedOverride);
  }

  /** Applies the persisted settings to the interface NETWORK_RESET_DELAY_MS from now. */
  scheduleReset(): void {
    if (this.closed) return;
    let settle = () => {};
    const done = new Promise<void>((resolve) => (settle = resolve));
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      void this.reset().then(settle);
    }, NETWORK_RESET_DELAY_MS);
    this.pending.set(timer, { done, settle });
  }

  /** At boot and after a restart: the interface gets the persisted settings. Failures are logged, the unit stays up. */
  restore(): Promise<void> {
    this.watchBoundAddress();
    return this.reset();
  }

  /** A bound address taken away by something else than the unit's own settings is followed too. */
  private watchBoundAddress(): void {
    const bound = this.bound;
    if (!bound || this.addressWatch) return;
    this.addressWatch = setInterval(() => {
      const current = bound.current;
      if (this.closed || current === undefined || heldByThisMachine(current)) return;
      void this.resets
        .run(() => this.followBoundAddress('interface'))
        .catch((error: unknown) => {
          this.log.error({ err: error }, 'following the interface to its new address failed');
        });
    }, BOUND_ADDRESS_WATCH_MS);
    this.addressWatch.unref();
  }

  /** Resolves once every reset scheduled so far has run (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending.values()].map((p) => p.done));
    await this.resets.idle();
  }

  /** Cancels resets not yet due: the unit is shutting down. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.addressWatch);
    for (const [timer, { settle }] of this.pending) {
      clearTimeout(timer);
      settle();
    }
    this.pending.clear();
    await this.resets.idle();
  }

  private reset(): Promise<void> {
    return this.resets.run(async () => {
      try {
        await this.hal.applyIpv4Override(this.override());
        await this.followBoundAddress();
        const speed = this.product.automotiveEthernet ? this.storedSpeedOverride() : null;
        if (speed !== this.appliedSpeed) {
          await this.hal.applySpeedOverride(speed);
          this.appliedSpeed = speed;
        }
      } catch (error) {
        this.log.error({ err: error }, 'applying the network settings failed');
      }
    });
  }

  /** A unit bound to an address a reset (or the interface itself) took away answers on the interface's new one. */
  private async followBoundAddress(cause: 'reset' | 'interface' = 'reset'): Promise<void> {
    if (!this.bound) return;
    const move = this.bound.follow(await this.hal.facts(), this.override(), cause);
    if (!move) return;
    this.log.warn(move, `the unit's address ${move.from} is gone (${move.reason}): it now answers on ${move.to}`);
    this.onAddressMoved(move);
  }

  private ipv4From(facts: NetworkFacts): Ipv4Document {
    const override = this.override();
    const linkLocal = facts.ipv4.find(isLinkLocalCidr) ?? '';
    const global =
      override !== null && facts.ipv4.includes(override) ? override : facts.ipv4.find((c) => !isLinkLocalCidr(c));
    return { addr: global ?? linkLocal, link_local: linkLocal, override };
  }

  /** The prefix of the current global address; /24 without one (a simulated unit's loopback address is not one). */
  private async currentPrefix(): Promise<number> {
    const current = parseCidr((await this.ipv4()).addr);
    const usable = current && !isLinkLocal(current.address) && !isLoopback(current.address);
    return usable ? current.prefix : DEFAULT_OVERRIDE_PREFIX;
  }

  private storedSpeedOverride(): SpeedOverride {
    return this.kv.get<number>(KV_KEYS.speedOverride) === 100 ? 100 : null;
  }

  /** 409 on a model without automotive Ethernet, whatever the request holds. */
  requireT1(): void {
    if (!this.product.automotiveEthernet) {
      throw conflict(
        `the speed override exists only on automotive-Ethernet (T1) models; this unit is an ${this.product.name}`,
      );
    }
  }
}
