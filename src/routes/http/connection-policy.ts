/**
 * Who gets a connection slot, the way nginx `limit_conn` and a keep-alive reaper do it: no single
 * peer address may hold more than its share of the unit's connections, and a slot held by an idle
 * keep-alive connection is given to a newcomer before anyone is refused.
 *
 * - Each peer address may hold `maxPerAddress` connections; the unit as a whole `maxConnections`.
 * - A new connection over either cap closes the oldest *idle* connection in the way (that peer's own
 *   first, for its cap; anyone's, for the unit's). Idle: no request in progress, i.e. a keep-alive
 *   connection between requests or one that has not finished sending its first request's headers.
 * - With no idle connection in the way, a request body that is stalling (far below its minimum rate,
 *   `reclaim`) is cut instead: a stalled body is not work.
 * - Only when every slot in the way is busy with real work is the newcomer refused: it is marked
 *   `excess`, and its first request is answered 503 + Retry-After and the connection closed.
 * - `closeAll` ends every connection (a reboot): answers already written are flushed first. A new connection
 *   that has not yet brought a request is closed after answering its first, which may be on its way.
 *
 * Connections are kept in insertion-ordered maps, re-inserted when they turn idle, so "oldest idle"
 * is the first entry: admission costs O(1) however many connections an attacker opens.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionCaps {
  maxConnections: number;
  maxPerAddress: number;
}

/** Cuts the request on `socket` if it is stalling rather than working; true when it did. */
export type Reclaim = (socket: Socket) => boolean;

interface Slot {
  readonly socket: Socket;
  readonly peer: string;
  /** Requests in progress on this connection (pipelining can make it more than one). */
  busy: number;
  /** Whether a request has started on it: a connection without one may have its first on the way. */
  used: boolean;
  released: boolean;
}

/** Connections of one group (the unit, or one peer), with the idle ones in the order they became idle. */
class SlotGroup {
  readonly all = new Set<Slot>();
  readonly idle = new Map<Slot, true>();

  oldestIdle(): Slot | undefined {
    for (const slot of this.idle.keys()) return slot;
    return undefined;
  }
}

/** `::ffff:127.0.0.2` (a dual-stack listener) and `127.0.0.2` are the same peer. */
function peerOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class ConnectionPolicy {
  private readonly unit = new SlotGroup();
  private readonly peers = new Map<string, SlotGroup>();
  private readonly slots = new WeakMap<Socket, Slot>();
  private readonly excess = new WeakSet<Socket>();
  /** Every socket the server accepted, admitted or not: what a reboot closes. */
  private readonly open = new Set<Socket>();
  /** New connections a reboot met before their first request: closed once it is answered. */
  private readonly closeAfterAnswer = new WeakSet<Socket>();
  /** Idle connections closed to admit newcomers since start. */
  evicted = 0;
  /** Stalling bodies cut to admit newcomers since start. */
  reclaimed = 0;
  /** Refused connections per peer still waiting for their 503 (each peer may have `maxPerAddress`). */
  private readonly waitingRefusal = new Map<string, number>();
  /** Connections refused because every slot in their way was busy. */
  refused = 0;

  constructor(
    server: Server,
    private readonly caps: ConnectionCaps,
    private readonly reclaim: Reclaim = () => false,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    // 'request' is emitted for requests answered 100-continue too (expect-continue.ts re-emits them).
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.requestStarted(req, res));
  }

  /** The connection was refused a slot: answer its first request 503 and close it. */
  isExcess(socket: Socket | undefined): boolean {
    return socket !== undefined && this.excess.has(socket);
  }

  /** Every open connection, admitted or not. */
  get sockets(): ReadonlySet<Socket> {
    return this.open;
  }

  /** Connections holding a slot (all peers). */
  get admitted(): number {
    return this.unit.all.size;
  }

  /**
   * A reboot, to clients: every connection ends. An answer still being written is flushed first
   * (`destroySoon`: end, then destroy once written); a request body still arriving is cut, so its
   * handler sees the request aborted.
   */
  closeAll(): void {
    for (const socket of this.open) {
      const slot = this.slots.get(socket);
      // A new connection whose first request may be on its way: closed now, its client would get no answer at
      // all. It is answered (503 while the unit restarts), then closed.
      if (slot && !slot.used && !slot.released) this.closeAfterAnswer.add(socket);
      else socket.destroySoon();
    }
  }

  private admit(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => {
      this.open.delete(socket);
      const slot = this.slots.get(socket);
      if (slot) this.release(slot);
    });
    const peer = peerOf(socket);
    const group = this.peers.get(peer) ?? new SlotGroup();
    if (!this.makeRoom(group, this.caps.maxPerAddress) || !this.makeRoom(this.unit, this.caps.maxConnections)) {
      if (group.all.size === 0) this.peers.delete(peer);
      this.refuse(socket, peer);
      return;
    }
    this.peers.set(peer, group);
    const slot: Slot = { socket, peer, busy: 0, used: false, released: false };
    this.slots.set(socket, slot);
    for (const g of [this.unit, group]) {
      g.all.add(slot);
      g.idle.set(slot, true);
    }
  }

  /**
   * No slot: the first request gets 503 + Retry-After. A peer already waiting for as many refusals
   * as it may hold connections is not answered at all (closed at once), so one address cannot fill
   * the unit's socket budget with connections that are only ever refused.
   */
  private refuse(socket: Socket, peer: string): void {
    this.refused += 1;
    const waiting = this.waitingRefusal.get(peer) ?? 0;
    if (waiting >= this.caps.maxPerAddress) {
      socket.destroy();
      return;
    }
    this.waitingRefusal.set(peer, waiting + 1);
    this.excess.add(socket);
    socket.once('close', () => {
      const left = (this.waitingRefusal.get(peer) ?? 1) - 1;
      if (left > 0) this.waitingRefusal.set(peer, left);
      else this.waitingRefusal.delete(peer);
    });
  }

  /**
   * Below `cap` in `group`, closing its oldest idle connections, else cutting a stalling body, if
   * needed; false when every connection in it is busy with real work.
   */
  private makeRoom(group: SlotGroup, cap: number): boolean {
    while (group.all.size >= cap) {
      const victim = group.oldestIdle();
      if (victim) {
        this.evicted += 1;
        this.release(victim);
        victim.socket.destroy();
      } else if (!this.reclaimStalled(group)) {
        return false;
      }
    }
    return true;
  }

  /** The oldest busy connection of `group` whose body is stalling is cut and its slot freed. */
  private reclaimStalled(group: SlotGroup): boolean {
    for (const slot of group.all) {
      if (this.reclaim(slot.socket)) {
        this.reclaimed += 1;
        this.release(slot);
        return true;
      }
    }
    return false;
  }

  private requestStarted(req: IncomingMessage, res: ServerResponse): void {
    if (this.closeAfterAnswer.has(req.socket)) res.shouldKeepAlive = false;
    const slot = this.slots.get(req.socket);
    if (!slot || slot.released) return;
    slot.used = true;
    slot.busy += 1;
    this.unit.idle.delete(slot);
    this.peers.get(slot.peer)?.idle.delete(slot);
    // A response emits 'close' once, whether it finished or its connection ended first: one plain
    // listener per request (two once-wrappers cost a visible share of a prepared answer's CPU).
    res.on('close', () => this.requestEnded(slot));
  }

  private requestEnded(slot: Slot): void {
    slot.busy -= 1;
    if (slot.busy > 0 || slot.released) return;
    // Re-inserted: the map's order is the order connections became idle.
    this.unit.idle.set(slot, true);
    this.peers.get(slot.peer)?.idle.set(slot, true);
  }

  private release(slot: Slot): void {
    if (slot.released) return;
    slot.released = true;
    this.unit.all.delete(slot);
    this.unit.idle.delete(slot);
    const group = this.peers.get(slot.peer);
    if (!group) return;
    group.all.delete(slot);
    group.idle.delete(slot);
    if (group.all.size === 0) this.peers.delete(slot.peer);
  }
}
