/**
 * The DNS-SD records a unit announces (RFC 6763): for each service type a PTR to the instance, the
 * instance's SRV (host and HTTP port) and TXT (sn, pn, fw, path), and the host's A records. Plain data
 * and pure functions; src/core/discovery/mdns-responder.ts puts them on the wire.
 */

/** What `ouster-cli discover` browses: `_ouster-lidar._tcp` (current units) and `_roger._tcp` (older ones). */
export const SERVICE_TYPES = ['_roger._tcp.local', '_ouster-lidar._tcp.local'] as const;
/** DNS-SD service type enumeration (RFC 6763 §9). */
export const SERVICE_ENUMERATION = '_services._dns-sd._udp.local';

/** RFC 6762 §10: records naming a host get 120 s, the others 75 minutes. */
export const HOST_TTL_S = 120;
export const OTHER_TTL_S = 4500;

export interface UnitAdvertisement {
  serialNumber: string;
  /** Product part number (`prod_pn`). */
  partNumber: string;
  /** Product line, e.g. "OS-1-128". */
  productLine: string;
  /** The running firmware's image_rev. */
  firmware: string;
  /** HTTP port of the API. */
  port: number;
  /** IPv4 addresses the host name resolves to. */
  addresses: readonly string[];
}

export type RecordType = 'PTR' | 'SRV' | 'TXT' | 'A';

export interface MdnsRecord {
  name: string;
  type: RecordType;
  ttl: number;
  /** A unique record (SRV, TXT, A: only this unit owns it) carries the cache-flush bit in multicast answers. */
  unique: boolean;
  data: string | Buffer[] | { target: string; port: number; priority: number; weight: number };
}

export const instanceName = (serial: string) => `Ouster Sensor ${serial}`;
export const hostName = (serial: string) => `os-${serial}.local`;

/** TXT strings `key=value` (RFC 6763 §6): `path` says where the API is, as real units do. */
export function txtStrings(ad: UnitAdvertisement): Buffer[] {
  const pairs: [string, string][] = [
    ['path', '/api/v1'],
    ['sn', ad.serialNumber],
    ['pn', ad.partNumber],
    ['fw', ad.firmware],
    ['prod_line', ad.productLine],
  ];
  return pairs.map(([k, v]) => Buffer.from(`${k}=${v}`));
}

/** Every record of the advertisement, in a stable order. */
export function unitRecords(ad: UnitAdvertisement): MdnsRecord[] {
  const host = hostName(ad.serialNumber);
  const records: MdnsRecord[] = [];
  for (const type of SERVICE_TYPES) {
    const instance = `${instanceName(ad.serialNumber)}.${type}`;
    records.push({ name: SERVICE_ENUMERATION, type: 'PTR', ttl: OTHER_TTL_S, unique: false, data: type });
    records.push({ name: type, type: 'PTR', ttl: OTHER_TTL_S, unique: false, data: instance });
    records.push({
      name: instance,
      type: 'SRV',
      ttl: HOST_TTL_S,
      unique: true,
      data: { target: host, port: ad.port, priority: 0, weight: 0 },
    });
    records.push({ name: instance, type: 'TXT', ttl: OTHER_TTL_S, unique: true, data: txtStrings(ad) });
  }
  for (const address of ad.addresses)
    records.push({ name: host, type: 'A', ttl: HOST_TTL_S, unique: true, data: address });
  return records;
}

/** DNS names compare case-insensitively (RFC 6762 §16); a trailing dot is the same name. */
export function sameName(a: string, b: string): boolean {
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}

/** Identity of a record's content, to tell which records a change removed. */
export function recordKey(r: Pick<MdnsRecord, 'name' | 'type' | 'data'>): string {
  const d = r.data;
  const data = Array.isArray(d)
    ? d.map((b) => b.toString('base64')).join(',')
    : typeof d === 'string'
      ? d.toLowerCase()
      : `${d.target.toLowerCase()}:${d.port}`;
  return `${r.name.toLowerCase()}|${r.type}|${data}`;
}
