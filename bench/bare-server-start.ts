/**
 * The start-up references: a bare node:http server and a bare Fastify server, spawned and timed
 * exactly like the sensor (spawn → first 200). Plain JavaScript given to `node -e`, so no loader or
 * build step sits in their start-up time either.
 */
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/cli-process.js';
import { spawnReady, type ReadyProcess } from './spawn-ready.js';

export type BareServer = 'node-http' | 'fastify';

const SCRIPTS: Record<BareServer, string[]> = {
  'node-http': [
    '-e',
    "require('node:http').createServer((q, r) => { r.setHeader('content-type', 'application/json'); r.end('{}'); }).listen(Number(process.argv[1]), process.argv[2]);",
  ],
  fastify: [
    '--input-type=module',
    '-e',
    "import Fastify from 'fastify'; const app = Fastify(); app.get('/', async () => ({})); await app.listen({ port: Number(process.argv[1]), host: process.argv[2] });",
  ],
};

/** The repository root: `fastify` resolves from there for the evaluated module. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function startBareServer(kind: BareServer, host: string): Promise<ReadyProcess> {
  const port = await freePort(host);
  return spawnReady({
    args: [...SCRIPTS[kind], String(port), host],
    cwd: ROOT,
    url: `http://${host}:${port}/`,
    timeoutMs: 20_000,
  });
}
