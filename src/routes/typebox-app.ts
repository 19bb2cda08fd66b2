/**
 * The Fastify instance a route plugin receives (TypeBox schemas typing its requests), named once so that a
 * plugin can hand it to helpers that each register one resource's routes: they register on the plugin's own
 * instance, so its hooks and content-type parsers apply to them as to routes the plugin registers itself.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];
