/**
 * The configuration's public entry: the parameter registry, validation and the configuration store.
 */
export { ConfigState } from './config-state.js';
export type { ConfigView } from './config-state.js';
export { ConfigStore } from './config-store.js';
export {
  AUTO_DESTINATION,
  AUTO_DESTINATION_PARAMETERS,
  type CheckedValues,
  combinationErrors,
  normalizeInput,
} from './config-validation.js';
export {
  DEPRECATED_ALIASES,
  PARAMETERS,
  defaultConfig,
  findDeprecatedAlias,
  findParameter,
  isParameterName,
  parametersNewerThan,
  valuesNewerThan,
} from './registry.js';
// The configuration's shape is plain data of the model layer; named here for the layers above.
export type { ParameterName, SensorConfig } from '../model/index.js';
export { CONFIG_FORMATS } from './config-formats.js';
