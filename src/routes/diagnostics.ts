/**
 * `GET /api/v1/diagnostics/dump`: a .tar.gz of snapshots for support, streamed as it is produced
 * (no Content-Length, so HTTP/1.1 sends it chunked). Contents: src/diagnostics/sensor-dump.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RecentLog } from '../diagnostics/sensor-dump.js';
import type { Sensor } from '../sensor/sensor.js';

export const diagnosticsRoutes: FastifyPluginAsync<{ sensor: Sensor; recentLog?: RecentLog }> = async (app, { sensor, recentLog }) => {
  app.get('/api/v1/diagnostics/dump', async (_request, reply) => {
    // Loaded on the first dump: the archive code (tar, gzip) is not needed to start answering.
    const { createSensorDump } = await import('../diagnostics/sensor-dump.js');
    const dump = createSensorDump(sensor, { recentLog });
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${dump.fileName}"`)
      .header('cache-control', 'no-store')
      .send(dump.stream);
  });
};
