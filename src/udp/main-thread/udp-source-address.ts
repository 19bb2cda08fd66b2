/**
 * The address the unit's lidar and IMU datagrams to a destination leave from, found the way the data plane's
 * sockets find it: a socket bound like theirs (to the unit's listen address, or to none) and connected to the
 * destination, which makes the kernel choose the route and source address without sending anything.
 * Clients built on the vendor SDK drop every datagram whose source is not the address they talk HTTP to, so
 * this is the address such a client must use.
 */
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** A specific listen address is also the source of the UDP data; a wildcard leaves the choice to the kernel. */
export function dataBindAddress(listenHost: string): string | undefined {
  return listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '' ? undefined : listenHost;
}

/** `bindAddress`: the unit's own listen address when it has one (the data plane binds there), else undefined. */
export async function udpSourceAddress(destination: string, bindAddress: string | undefined): Promise<string> {
  const family = isIP(destination) === 6 ? 6 : 4;
  const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      const local = bindAddress && isIP(bindAddress) === family ? bindAddress : undefined;
      // Port 9 (discard): connect() on a datagram socket only picks the route; nothing is sent.
      socket.bind({ port: 0, address: local }, () =>
        socket.connect(9, destination, (error?: Error) => (error ? reject(error) : resolve(socket.address().address))),
      );
    });
  } finally {
    socket.close();
  }
}

/**
 * The addresses data can leave from before any destination is known: the listen address when the unit has
 * one, else every IPv4 address of the machine that is not loopback (a container's own bridge address).
 */
export function udpSourceCandidates(bindAddress: string | undefined): string[] {
  if (bindAddress) return [bindAddress];
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}
