/**
 * The supervisor's own HTTP endpoint (never on a unit's address): `GET /metrics` aggregates every
 * unit's /metrics with a `unit` label, plus the supervisor's view of each unit (up, restarts);
 * `GET /units` lists the units as JSON.
 */
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import { unitUrl, type FleetUnit } from './fleet-unit.js';
import { mergeExpositions, type UnitExposition } from './merge-metrics.js';

const SCRAPE_TIMEOUT_MS = 3000;

function supervisorRegistry(units: readonly FleetUnit[]): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'lidar_fleet_unit_up',
    help: 'Whether the supervisor sees the unit running (1) or not (0)',
    labelNames: ['unit', 'address'],
    registers: [registry],
    collect() {
      for (const u of units) this.set({ unit: u.plan.name, address: u.plan.address }, u.state === 'running' ? 1 : 0);
    },
  });
  new Counter({
    name: 'lidar_fleet_unit_restarts_total',
    help: 'Times the supervisor started a unit again after its process ended',
    labelNames: ['unit'],
    registers: [registry],
    collect() {
      this.reset();
      for (const u of units) this.inc({ unit: u.plan.name }, u.restarts);
    },
  });
  return registry;
}

async function scrapeUnit(unit: FleetUnit): Promise<UnitExposition | null> {
  if (unit.state !== 'running') return null;
  try {
    const response = await fetch(unitUrl(unit.plan, '/metrics'), { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    if (!response.ok) return null;
    return { unit: unit.plan.name, text: await response.text() };
  } catch {
    return null;
  }
}

export async function fleetMetricsText(units: readonly FleetUnit[], registry: Registry): Promise<string> {
  const scraped = (await Promise.all(units.map(scrapeUnit))).filter((e): e is UnitExposition => e !== null);
  return (await registry.metrics()) + mergeExpositions(scraped);
}

export async function startFleetServer(
  units: readonly FleetUnit[],
  host: string,
  port: number,
): Promise<{ server: Server; url: string }> {
  const registry = supervisorRegistry(units);
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      fleetMetricsText(units, registry).then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
      );
      return;
    }
    if (path === '/units') {
      const list = units.map((u) => ({
        name: u.plan.name,
        url: unitUrl(u.plan),
        address: u.plan.address,
        port: u.plan.port,
        product: u.plan.product,
        serial: u.plan.serial ?? null,
        dataDir: u.plan.dataDir,
        state: u.state,
        restarts: u.restarts,
        pid: u.pid ?? null,
        problem: u.problem ?? null,
      }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics or /units\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}` };
}
