/**
 * `GET /api/v1/diagnostics/dump`: a .tar.gz of snapshots for support, streamed as it is produced
 * (no Content-Length, so HTTP/1.1 sends it chunked). Contents: src/core/diagnostics/sensor-dump.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RecentLog } from '../core/diagnostics/index.js';
import { problems } from './api-schemas.js';

const DumpSchema = Type.Unsafe({
  description: "A .tar.gz archive of the unit's state for support (streamed)",
  content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/gzip' } } },
});

export const diagnosticsRoutes: FastifyPluginAsyncTypebox<{ recentLog?: RecentLog }> = async (app, { recentLog }) => {
  const sensor = app.sensor;
  const schema = { operationId: 'getDiagnosticsDump', summary: 'Download a diagnostics archive', tags: ['system'] };
  const route = { schema: { ...schema, response: { 200: DumpSchema, ...problems() } } };
  app.get('/api/v1/diagnostics/dump', route, async (request, reply) => {
    // Loaded on the first dump: the archive code (tar, gzip) is not needed to start answering.
    const { createSensorDump } = await import('../core/diagnostics/index.js');
    const dump = createSensorDump(sensor, { log: request.log, recentLog });
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${dump.fileName}"`)
      .header('cache-control', 'no-store')
      .send(dump.stream);
  });
};
