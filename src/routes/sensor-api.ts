/**
 * The sensor's HTTP interface as one Fastify plugin: error mapping, body parsing, the reachability
 * check, every route group and the OpenAPI document. The sensor reaches the routes as the typed
 * `app.sensor` decorator. Not encapsulated (fastify-plugin): its error and not-found handlers and
 * hooks apply to the whole server.
 */
import fp from 'fastify-plugin';
import type { FastifyPluginAsync } from 'fastify';
import type { SensorServices } from '../core/index.js';
import type { RecentLog } from '../core/diagnostics/index.js';
import { installErrorHandler } from './http/error-handler.js';
import { installJsonBodyParser } from './http/json-body.js';
import { installNotFoundHandler } from './http/method-not-allowed.js';
import { configRoutes } from './config.js';
import { userDataRoutes } from './user-data.js';
import { legacyCommandRoutes } from './legacy-commands.js';
import { systemRoutes } from './system.js';
import { metadataRoutes } from './metadata.js';
import { alertRoutes } from './alerts.js';
import { telemetryRoutes } from './telemetry.js';
import { diagnosticsRoutes } from './diagnostics.js';
import { timeRoutes } from './time.js';
import { networkRoutes } from './network.js';
import { zoneMonitorRoutes } from './zone-monitor.js';
import { collectRoutes, openApiRoutes } from './openapi.js';
import { refuseUnknownQueryParameters } from './http/query-policy.js';
import { ProblemSchema, problems, type PerPathValue } from './api-schemas.js';
import { changesUnit } from './http/write-access.js';
import { ConfigurationSchema } from './config-schemas.js';
import { buildRev, type ReplayAnnouncement } from '../model/index.js';
import { requestValidatorCompiler } from './http/validator-compiler.js';
import { lazySerializerCompiler } from './http/serializer-compiler.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The device core every route works on. */
    readonly sensor: SensorServices;
  }
  // Operation fields of the OpenAPI document, carried in each route's schema.
  interface FastifySchema {
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: readonly string[];
    deprecated?: boolean;
    /** Left out of the OpenAPI document: only for routes outside /api (pages, static assets). */
    hide?: boolean;
    /** Per-value schemas of a path parameter (see PER_PATH_VALUE in api-schemas.ts). */
    'x-per-path-value'?: PerPathValue;
  }
}

export interface SensorApiOptions {
  sensor: SensorServices;
  /** Recent server log lines, included in the diagnostics dump. */
  recentLog?: RecentLog;
  /** Set on a replaying unit: its OpenAPI document says so (src/model/replay-announcement.ts). */
  replaying?: ReplayAnnouncement;
}

/** Schemas referenced by `$id` from several routes; components of the OpenAPI document. */
const SHARED_SCHEMAS = [ProblemSchema, ConfigurationSchema];

/** Every route group. Add a resource group by adding its plugin here. */
const ROUTE_PLUGINS = [
  configRoutes,
  userDataRoutes,
  legacyCommandRoutes,
  metadataRoutes,
  alertRoutes,
  telemetryRoutes,
  systemRoutes,
  timeRoutes,
  networkRoutes,
  zoneMonitorRoutes,
];

const sensorApiPlugin: FastifyPluginAsync<SensorApiOptions> = async (app, { sensor, recentLog, replaying }) => {
  app.decorate('sensor', sensor);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.setValidatorCompiler(requestValidatorCompiler());
  app.setSerializerCompiler(lazySerializerCompiler(SHARED_SCHEMAS));
  installErrorHandler(app, (cause, code) => sensor.storage.refuse(cause, code));
  installNotFoundHandler(app);
  installJsonBodyParser(app);

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  app.preparedAnswers?.leaveToRoutesWhen(() => !sensor.power.reachable());
  const reachable = (_request: unknown, _reply: unknown, done: (error?: Error) => void) => {
    try {
      sensor.power.assertReachable();
      done();
    } catch (error) {
      done(error as Error);
    }
  };
  app.addHook('onRequest', reachable);
  // Again once the body is in: a change whose body was still arriving when a restart was acknowledged is
  // refused, not applied behind it.
  app.addHook('preHandler', reachable);
  // A change the unit answered 2xx was stored: a storage episode (full disk, I/O errors) is over.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 300) sensor.storage.stored();
    done();
  });
  // The spec's JSON responses carry exactly `Content-Type: application/json` (JSON is UTF-8 by definition).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.endsWith('json; charset=utf-8'))
      reply.header('content-type', type.slice(0, -'; charset=utf-8'.length));
    done(null, payload);
  });

  refuseUnknownQueryParameters(app);
  // Whatever can change the unit may be refused 403 (--allow-writes-from, and the firmware trust store):
  // the document lists it on exactly the operations the write-access check guards.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.schema?.response && methods.some((method) => changesUnit(method, route.config)))
      route.schema.response = { ...(route.schema.response as object), ...problems(403) };
  });
  const routes = collectRoutes(app);
  for (const plugin of ROUTE_PLUGINS) await app.register(plugin);
  await app.register(diagnosticsRoutes, { recentLog });
  await app.register(openApiRoutes, {
    routes,
    shared: SHARED_SCHEMAS,
    extraLidarProfile: sensor.configs.recordedOnlyProfile,
    absentValues: () => sensor.offer.absentValues,
    firmwareRev: buildRev(sensor.identity.firmware),
    leaveOut: () => (sensor.offer.zoneMonitor ? [] : ['/api/v1/zone_monitor/']),
    replaying,
  });
};

export const sensorApi = fp(sensorApiPlugin, { name: 'sensor-api', fastify: '5.x' });
