/**
 * The HTTP layer's public entry: the app builder and what the entry points configure it with.
 */
export { buildApp } from './app.js';
export { checkedBy } from './api-schemas.js';
export { installErrorHandler } from './http/error-handler.js';
export { requestValidatorCompiler } from './http/validator-compiler.js';
export { DEFAULT_HTTP_LIMITS } from './http/http-limits.js';
export type { HttpLimits } from './http/http-limits.js';
export { installJsonBodyParser } from './http/json-body.js';
export { installNotFoundHandler } from './http/method-not-allowed.js';
