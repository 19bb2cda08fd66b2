/**
 * 404 versus 405: a second router that knows every registered path and method, so an unmatched
 * request on an existing path (parametric ones included) gets 405 with an `Allow` header. A path
 * that differs from one only by a trailing slash does not exist: 404 naming the path that does.
 */
import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, notFound } from '../../model/index.js';

type FindResult = NonNullable<ReturnType<ReturnType<typeof FindMyWay>['find']>>;

const METHODS: readonly HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * A route matches a path only with every path parameter given: `/api/v1/sensor/config/` fits
 * `/api/v1/sensor/config/:name` with an empty name, yet it is the collection written with a trailing slash.
 */
function servesPath(match: FindResult | null): boolean {
  return match !== null && Object.values(match.params).every((value) => value !== '' && value !== undefined);
}

/**
 * The router is built on the first unmatched request, from the routes noted as they were registered:
 * building it with the server cost a tenth of the start-up (find-my-way compiles code for each node),
 * for an answer most units never give.
 */
export function installNotFoundHandler(app: FastifyInstance): void {
  const registered: [HTTPMethod, string][] = [];
  // Built from `registered` when first needed; a route registered later makes it stale (built again).
  let built: ReturnType<typeof FindMyWay> | undefined;
  const routerOf = () => {
    if (built) return built;
    const router = FindMyWay({ ignoreTrailingSlash: false });
    for (const [method, url] of registered) if (!router.hasRoute(method, url)) router.on(method, url, () => {});
    built = router;
    return router;
  };
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(
      (m) => m.toUpperCase() as HTTPMethod,
    );
    for (const method of methods) registered.push([method, route.url]);
    built = undefined;
  });
  app.setNotFoundHandler((request) => {
    const router = routerOf();
    const path = request.url.split('?')[0];
    const allowed = METHODS.filter((m) => servesPath(router.find(m, path)));
    if (allowed.length) {
      throw new ApiError(
        'method-not-allowed',
        `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        undefined,
        { Allow: allowed.join(', ') },
      );
    }
    const withoutSlash = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : undefined;
    if (withoutSlash && METHODS.some((m) => servesPath(router.find(m, withoutSlash))))
      throw notFound(`no endpoint at ${path}; the resource is ${withoutSlash} (without the trailing slash)`);
    throw notFound(`no endpoint at ${path}`);
  });
}
