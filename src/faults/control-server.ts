/**
 * The fault-injection control listener: its own Fastify instance on its own address and port, so
 * a client of the sensor API can neither see nor reach it. Errors are problem+json like the
 * sensor API's (the same error handler and body parser).
 *
 *   GET    /faults        active rules with their counts, and recently ended ones
 *   POST   /faults        add a rule → 201 with the rule (400 naming every mistake)
 *   GET    /faults/:id    one rule (active or recently ended)
 *   DELETE /faults/:id    end one rule → 204 (404 when it is not active)
 *   DELETE /faults        end every rule → 200 {"removed": N}
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { type FaultRuleSpec, notFound } from '../model/index.js';
import {
  checkedBy,
  installErrorHandler,
  installJsonBodyParser,
  installNotFoundHandler,
  requestValidatorCompiler,
} from '../routes/index.js';
import {
  EndedRuleSchema,
  FaultRuleInputSchema,
  FaultRuleSchema,
  RemovedSchema,
  RuleIdParams,
  RuleListSchema,
} from './control-schemas.js';
import { checkedFaultRule, type FaultPlane } from './fault-plane.js';

export async function buildControlApp(plane: FaultPlane): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 }) as unknown as FastifyInstance;
  app.setValidatorCompiler(requestValidatorCompiler());
  installErrorHandler(app);
  installNotFoundHandler(app);
  installJsonBodyParser(app);
  app.get('/faults', { schema: { response: { 200: RuleListSchema } } }, async () => plane.list());
  app.post(
    '/faults',
    { schema: { body: checkedBy(FaultRuleInputSchema, checkedFaultRule), response: { 201: FaultRuleSchema } } },
    async (request, reply) => reply.code(201).send(plane.start(request.body as FaultRuleSpec)),
  );
  app.get<{ Params: { id: string } }>(
    '/faults/:id',
    { schema: { params: RuleIdParams, response: { 200: Type.Union([EndedRuleSchema, FaultRuleSchema]) } } },
    async (request) => plane.get(request.params.id),
  );
  app.delete<{ Params: { id: string } }>(
    '/faults/:id',
    { schema: { params: RuleIdParams } },
    async (request, reply) => {
      if (!plane.remove(request.params.id))
        throw notFound(`no active fault rule ${JSON.stringify(request.params.id)}; GET /faults lists them`);
      return reply.code(204).send();
    },
  );
  app.delete('/faults', { schema: { response: { 200: RemovedSchema } } }, async () => ({ removed: plane.clear() }));
  await app.ready();
  return app;
}
