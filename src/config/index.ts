/**
 * The configuration's public entry: the parameter registry, validation and the configuration store.
 */
export { ConfigState } from './config-state.js';
export type { ConfigView } from './config-state.js';
export { ConfigStore } from './config-store.js';
export { combinationErrors, normalizeInput } from './config-validation.js';
export {
  DEPRECATED_ALIASES,
  PARAMETERS,
  defaultConfig,
  findDeprecatedAlias,
  findParameter,
  isParameterName,
} from './registry.js';
export type { ParameterName, SensorConfig } from './registry.js';
