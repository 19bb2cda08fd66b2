/**
 * This project's OpenAPI document, for `lidar-sensor validate` when the unit it checks serves none: a unit of
 * this very build, started on a free loopback port and closed again.
 */
import type { OpenApiDocument } from '../validate/index.js';

export async function ownOpenApiDocument(): Promise<OpenApiDocument> {
  const [
    { mkdtempSync, rmSync },
    { tmpdir },
    { join },
    { parseCliOptions },
    { startServer },
    { LogRing },
    { createCliLogger },
  ] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
    import('./cli-options.js'),
    import('./server.js'),
    import('../core/index.js'),
    import('./cli-logger.js'),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), 'lidar-validate-'));
  const options = parseCliOptions(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {});
  if (options === 'help') throw new Error('unreachable: no --help given');
  const recent = new LogRing();
  const server = await startServer(options, createCliLogger('silent', recent, false), recent);
  try {
    const response = await fetch(`${server.url}/api/v1/openapi.json`);
    return (await response.json()) as OpenApiDocument;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
