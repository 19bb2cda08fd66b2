/**
 * A multicast DNS responder for one set of records (RFC 6762), on the `multicast-dns` library (the
 * socket, group membership and packet codec). The library leaves the protocol to its user; this class
 * does the parts the unit needs:
 * - answers questions for its records, with the SRV/TXT/A a browser needs next as additional records,
 *   leaving out answers the querier already knows (known-answer suppression, §7.1);
 * - legacy unicast (§6.7): a query from a port other than 5353 is answered by unicast to that port,
 *   with the query's id and question, TTLs capped at 10 s and no cache-flush bit (§10.2);
 * - a question with the unicast-response bit (QU, §5.4), or sent by unicast to port 5353 (§5.5), is
 *   answered by unicast. With an interface address, a second socket bound to that address receives the
 *   unicast queries, so answers come from the address the querier asked (a resolver drops others);
 * - announcements (§8.3) when it starts and whenever the records change, goodbyes (TTL 0, §10.1) for
 *   records a change removes and for every record when it stops.
 * Probing for name conflicts (§8.1) is not done: a unit's names carry its unique serial number.
 */
import makeMdns from 'multicast-dns';
import type { RemoteInfo } from 'node:dgram';
import type { Answer, Question } from 'dns-packet';
import { recordKey, sameName, SERVICE_ENUMERATION, type MdnsRecord } from './mdns-records.js';

export const MDNS_PORT = 5353;
const LEGACY_TTL_CAP_S = 10;
/** §8.3: at least two announcements, one second apart. */
const ANNOUNCE_INTERVAL_MS = 1000;
/** Class value of a question with the QU bit set; dns-packet reports it as an unknown class. */
const QU_IN_CLASS = 'UNKNOWN_32769';

export interface ResponderOptions {
  /**
   * Local IPv4 address of the interface to serve on (joins the group and sends there); undefined:
   * every interface, multicast sent where the routing table says.
   */
  interfaceAddress?: string;
  /** Warnings (socket errors, undecodable packets). */
  warn?: (error: Error) => void;
}

type Mdns = ReturnType<typeof makeMdns>;

export class MdnsResponder {
  private records: MdnsRecord[] = [];
  private readonly mdns: Mdns;
  private readonly unicast: Mdns | null;
  private announceTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(mdns: Mdns, unicast: Mdns | null) {
    this.mdns = mdns;
    this.unicast = unicast;
    mdns.on('query', (query, rinfo) => this.answer(query, rinfo, mdns, false));
    unicast?.on('query', (query, rinfo) => this.answer(query, rinfo, unicast, true));
  }

  static async start(options: ResponderOptions = {}): Promise<MdnsResponder> {
    const warn = options.warn ?? (() => undefined);
    const open = async (mdns: Mdns) => {
      mdns.on('warning', (error: Error) => warn(error));
      await new Promise<void>((resolve, reject) => {
        mdns.once('ready', () => resolve());
        mdns.once('error', (error: Error) => reject(error));
      });
      mdns.on('error', (error: Error) => warn(error));
      return mdns;
    };
    // Bound to the wildcard: a socket bound to a unicast address would not receive the group's datagrams.
    const group = await open(
      makeMdns({
        port: MDNS_PORT,
        bind: '0.0.0.0',
        interface: options.interfaceAddress,
        reuseAddr: true,
        loopback: true,
      }),
    );
    // The kernel hands a unicast datagram to the socket bound to its destination address rather than the wildcard one.
    const address = options.interfaceAddress;
    const unicast = address
      ? await open(makeMdns({ port: MDNS_PORT, bind: address, multicast: false, reuseAddr: true })).catch(
          (error: unknown) => {
            warn(error as Error);
            return null;
          },
        )
      : null;
    return new MdnsResponder(group, unicast);
  }

  /** Replaces the record set: goodbyes for records that are gone, then announcements of the new set. */
  setRecords(records: readonly MdnsRecord[]): void {
    if (this.closed) return;
    const kept = new Set(records.map(recordKey));
    const gone = this.records.filter((r) => !kept.has(recordKey(r)));
    this.records = [...records];
    if (gone.length) this.send({ answers: gone.map((r) => toAnswer(r, { ttl: 0 })) });
    this.announce(2);
  }

  /** Goodbye for every record, then the socket closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.announceTimer) clearTimeout(this.announceTimer);
    if (this.records.length) {
      const goodbye = this.records.map((r) => toAnswer(r, { ttl: 0 }));
      await new Promise<void>((resolve) => this.mdns.respond({ answers: goodbye }, () => resolve()));
    }
    await new Promise<void>((resolve) => this.mdns.destroy(() => resolve()));
    if (this.unicast) await new Promise<void>((resolve) => this.unicast!.destroy(() => resolve()));
  }

  private announce(times: number): void {
    if (this.announceTimer) clearTimeout(this.announceTimer);
    this.announceTimer = null;
    if (this.closed || times <= 0 || !this.records.length) return;
    this.send({ answers: this.records.map((r) => toAnswer(r)) });
    this.announceTimer = setTimeout(() => this.announce(times - 1), ANNOUNCE_INTERVAL_MS);
    this.announceTimer.unref();
  }

  private send(
    response: { answers: Answer[]; additionals?: Answer[] },
    to?: RemoteInfo,
    id?: number,
    questions?: Question[],
    via = this.mdns,
  ) {
    const packet = {
      id: id ?? 0,
      questions: questions ?? [],
      answers: response.answers,
      additionals: response.additionals ?? [],
    };
    via.respond(packet, to ?? undefined, (error?: Error | null) => {
      if (error && !this.closed) via.emit('warning', error);
    });
  }

  /** `direct`: the query came by unicast to the unit's address (§5.5). */
  private answer(
    query: { id?: number; questions?: Question[]; answers?: Answer[] },
    rinfo: RemoteInfo,
    via: Mdns,
    direct: boolean,
  ): void {
    if (this.closed) return;
    const questions = (query.questions ?? []).filter(
      (q) => q.class === undefined || ['IN', 'ANY'].includes(q.class) || isQu(q.class),
    );
    if (!questions.length) return;
    const known = new Map((query.answers ?? []).map((a) => [answerKey(a), 'ttl' in a ? (a.ttl ?? 0) : 0]));
    const isKnown = (r: MdnsRecord) => (known.get(recordKey(r)) ?? -1) >= r.ttl / 2;

    const answers: MdnsRecord[] = [];
    for (const q of questions) {
      for (const r of this.records) {
        if (sameName(r.name, q.name) && (isAny(q.type) || q.type === r.type) && !answers.includes(r) && !isKnown(r))
          answers.push(r);
      }
    }
    if (!answers.length) return;
    const additionals = this.additionalsFor(answers).filter((r) => !isKnown(r));

    const legacy = rinfo.port !== MDNS_PORT;
    if (legacy) {
      const echo = questions.map((q) => ({ name: q.name, type: q.type, class: 'IN' as const }));
      const cap = { legacy: true };
      this.send(
        { answers: answers.map((r) => toAnswer(r, cap)), additionals: additionals.map((r) => toAnswer(r, cap)) },
        rinfo,
        query.id,
        echo,
        via,
      );
      return;
    }
    const unicast = direct || questions.every((q) => isQu(q.class));
    this.send(
      { answers: answers.map((r) => toAnswer(r)), additionals: additionals.map((r) => toAnswer(r)) },
      unicast ? rinfo : undefined,
      0,
      [],
      via,
    );
  }

  /** §12 of RFC 6763: after a PTR the SRV, TXT and addresses; after an SRV the addresses. */
  private additionalsFor(answers: readonly MdnsRecord[]): MdnsRecord[] {
    const extra: MdnsRecord[] = [];
    const add = (r: MdnsRecord) => {
      if (!answers.includes(r) && !extra.includes(r)) extra.push(r);
    };
    const addressesOf = (host: string) =>
      this.records.filter((r) => r.type === 'A' && sameName(r.name, host)).forEach(add);
    for (const a of answers) {
      if (a.type === 'PTR' && !sameName(a.name, SERVICE_ENUMERATION)) {
        for (const r of this.records) {
          if ((r.type === 'SRV' || r.type === 'TXT') && sameName(r.name, a.data as string)) add(r);
        }
      }
    }
    for (const r of [...answers, ...extra]) {
      if (r.type === 'SRV') addressesOf((r.data as { target: string }).target);
    }
    return extra;
  }
}

// dns-packet's types lack the wildcard type and the QU class it decodes to.
const isAny = (type: string) => type === 'ANY';
const isQu = (klass: string | undefined) => klass === QU_IN_CLASS;

function toAnswer(r: MdnsRecord, options: { ttl?: number; legacy?: boolean } = {}): Answer {
  const ttl = options.ttl ?? (options.legacy ? Math.min(r.ttl, LEGACY_TTL_CAP_S) : r.ttl);
  // dns-packet's union type is keyed on `type`; the record's data matches it by construction.
  return { name: r.name, type: r.type, class: 'IN', ttl, flush: r.unique && !options.legacy, data: r.data } as Answer;
}

/** recordKey() of an answer a querier says it knows. */
function answerKey(a: Answer): string {
  if (!['PTR', 'SRV', 'TXT', 'A'].includes(a.type)) return '';
  // Decoded PTR/A data are strings, TXT a list of buffers, SRV an object with target and port: as MdnsRecord's.
  return recordKey({
    name: a.name,
    type: a.type as MdnsRecord['type'],
    data: (a as { data: MdnsRecord['data'] }).data,
  });
}
