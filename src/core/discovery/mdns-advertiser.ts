/**
 * Advertises a running unit over mDNS / DNS-SD: its records (src/core/discovery/mdns-records.ts) follow the
 * unit — the firmware it runs after an update, the IPv4 override — and are withdrawn when it stops.
 *
 * Addresses: the IPv4 override once it is applied (what a real unit answers on), else the listen
 * address, else (a wildcard listen address) every non-loopback IPv4 address of the host.
 */
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { formatIpv4, parseCidr, reportedImageRev } from '../../model/index.js';
import type { SensorServices } from '../sensor.js';
import { recordKey, unitRecords, type UnitAdvertisement } from './mdns-records.js';
import { MdnsResponder } from './mdns-responder.js';

/** How often the advertiser looks for changes nothing tells it about (host addresses, the override). */
const WATCH_INTERVAL_MS = 1000;

export interface MdnsAdvertiserOptions {
  sensor: Pick<SensorServices, 'identity' | 'network' | 'events'>;
  /** The HTTP listen address and port. */
  host: string;
  port: number;
  log: Logger;
}

export interface MdnsAdvertiser {
  /** Recomputes the records now and announces them when they changed. */
  refresh(): Promise<void>;
  /** Goodbye packets, then the socket closes. */
  close(): Promise<void>;
}

const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '';

/**
 * The interface to serve on: the listen address, or with a wildcard the host's only external interface
 * (a unit has one Ethernet port; its link may have no route covering the multicast group). With several,
 * the routing table chooses.
 */
function servingAddress(host: string): string | undefined {
  if (!isWildcard(host)) return host;
  const external = Object.values(networkInterfaces()).filter((list) =>
    list?.some((a) => a.family === 'IPv4' && !a.internal),
  );
  return external.length === 1 ? external[0]?.find((a) => a.family === 'IPv4' && !a.internal)?.address : undefined;
}

function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

export async function startMdnsAdvertiser(options: MdnsAdvertiserOptions): Promise<MdnsAdvertiser> {
  const { sensor, host, port, log } = options;
  const responder = await MdnsResponder.start({
    interfaceAddress: servingAddress(host),
    warn: (error) => log.debug({ err: error }, 'mdns warning'),
  });

  const addresses = async (): Promise<string[]> => {
    // The interface's facts are read only while an override is set (on a real unit that reads the system).
    if (sensor.network.override() !== null) {
      const ipv4 = await sensor.network.ipv4();
      const override = ipv4.override !== null && ipv4.addr === ipv4.override ? parseCidr(ipv4.override) : undefined;
      if (override) return [formatIpv4(override.address)];
    }
    return isWildcard(host) ? hostAddresses() : [host];
  };
  const advertisement = async (): Promise<UnitAdvertisement> => {
    const identity = sensor.identity;
    return {
      serialNumber: identity.serialNumber,
      partNumber: identity.product.prodPn,
      productLine: identity.product.prodLine,
      firmware: reportedImageRev(identity),
      port,
      addresses: await addresses(),
    };
  };

  let current = '';
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  const refresh = () => {
    running = running.then(async () => {
      if (closed) return;
      try {
        const records = unitRecords(await advertisement());
        const key = records.map(recordKey).join('\n');
        if (key === current || closed) return;
        current = key;
        responder.setRecords(records);
        log.info({ records: records.length }, 'mdns: announced');
      } catch (error) {
        log.warn({ err: error }, 'mdns: could not compute the records');
      }
    });
    return running;
  };

  // A reinit follows every restart, so also a boot into new firmware.
  const onReinit = () => void refresh();
  sensor.events.on('reinit', onReinit);
  const watch = setInterval(() => void refresh(), WATCH_INTERVAL_MS);
  watch.unref();
  await refresh();

  return {
    refresh,
    async close() {
      closed = true;
      clearInterval(watch);
      sensor.events.off('reinit', onReinit);
      await running;
      await responder.close();
    },
  };
}
