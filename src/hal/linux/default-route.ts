/**
 * The interface of the IPv4 default route, from the kernel's routing table (/proc/net/route, the
 * table `ip route` reads), so finding it needs neither a subprocess nor a library.
 */
import { readFile } from 'node:fs/promises';

const RTF_UP = 0x1;

/** Interface of the usable default route with the lowest metric in /proc/net/route's text, or undefined. */
export function defaultRouteInterface(table: string): string | undefined {
  const [header, ...rows] = table.trim().split('\n');
  const column = (name: string) => header.trim().split(/\s+/).indexOf(name);
  const [iface, destination, flags, metric, mask] = ['Iface', 'Destination', 'Flags', 'Metric', 'Mask'].map(column);
  let best: { name: string; metric: number } | undefined;
  for (const row of rows) {
    const fields = row.trim().split(/\s+/);
    const isDefault = Number.parseInt(fields[destination], 16) === 0 && Number.parseInt(fields[mask], 16) === 0;
    if (!isDefault || (Number.parseInt(fields[flags], 16) & RTF_UP) === 0) continue;
    const candidate = { name: fields[iface], metric: Number(fields[metric]) };
    if (!best || candidate.metric < best.metric) best = candidate;
  }
  return best?.name;
}

export async function readDefaultRouteInterface(): Promise<string | undefined> {
  const table = await readFile('/proc/net/route', 'utf8').catch(() => '');
  return table ? defaultRouteInterface(table) : undefined;
}
