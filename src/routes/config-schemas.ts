/**
 * The configuration object as JSON schemas, generated from the parameter registry: one property per
 * parameter with its type, range or keywords, default and description. The registry stays the one
 * source of truth; these schemas are how the routes and the OpenAPI document show it. Also the one
 * shape rule of a change: a JSON object.
 */
import { badRequest } from '../model/index.js';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  AUTO_DESTINATION,
  AUTO_DESTINATION_PARAMETERS,
  DEPRECATED_ALIASES,
  PARAMETERS,
  defaultConfig,
} from '../config/index.js';

function parameterSchema(schema: TSchema, extra: Record<string, unknown>): TSchema {
  return { ...schema, ...extra } as TSchema;
}

const properties = Object.fromEntries(
  PARAMETERS.map((p) => {
    const schema = parameterSchema(p.schema, {
      description: p.sinceFirmware ? `${p.description} (firmware ${p.sinceFirmware} and later)` : p.description,
      default: p.default,
      ...(p.readOnly ? { readOnly: true } : {}),
    });
    // A unit of older firmware leaves it out.
    return [p.name, p.sinceFirmware ? Type.Optional(schema) : schema];
  }),
);

const aliasProperties = Object.fromEntries(
  DEPRECATED_ALIASES.map((a) => [
    a.name,
    parameterSchema(a.schema, {
      deprecated: true,
      description: `Deprecated since ${a.since}: accepted on input as ${a.replacement}`,
    }),
  ]),
);

/** Every parameter, in the order GET returns them. */
export const ConfigurationSchema = Type.Object(properties, {
  $id: 'Configuration',
  title: 'Configuration',
  description: 'The sensor configuration: every parameter, in the order the unit returns them',
  additionalProperties: false,
  examples: [defaultConfig()],
});

/** POST body: any subset of the parameters (and deprecated names), applied atomically. */
const optional = (schemas: Record<string, TSchema>) =>
  Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, Type.Optional(schema)]));

/** A destination a POST may set to the caller's address. */
const orAuto = (schemas: Record<string, TSchema>) =>
  Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      AUTO_DESTINATION_PARAMETERS.includes(name)
        ? Type.Union([schema, Type.Literal(AUTO_DESTINATION, { description: "the caller's address (POST only)" })], {
            description: schema.description,
          })
        : schema,
    ]),
  );

export const ConfigurationChangeSchema = Type.Object(optional(orAuto({ ...properties, ...aliasProperties })), {
  title: 'ConfigurationChange',
  description:
    'Any subset of the parameters, applied all together or not at all; every invalid field is reported ' +
    'in the problem\'s `errors`. `udp_dest` may be "@auto" (the caller\'s address).',
  additionalProperties: false,
  // No minProperties: `{}` is accepted (a reinitialization with nothing changed), as on a real unit.
  examples: [{ lidar_mode: '2048x10', udp_port_lidar: 7502 }],
});

/** One parameter's value, as `GET/PUT /api/v1/sensor/config/<name>` carry it. */
export const ParameterValueSchema = Type.Union(
  [...new Map(PARAMETERS.map((p) => [JSON.stringify(p.schema), p.schema])).values()],
  {
    description: "The value of the named parameter: its schema is the parameter's property in Configuration",
    examples: ['1024x10'],
  },
);

const defaults: Readonly<Record<string, unknown>> = { ...defaultConfig() };

/** Each parameter's own value schema (with its default as example), for `GET config/{name}` in the document. */
export const PARAMETER_VALUE_SCHEMAS: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.entries(properties).map(([name, schema]) => [name, { ...schema, examples: [defaults[name]] }]),
);

/** The same with the deprecated names PUT accepts too, for `PUT config/{name}`. */
export const WRITABLE_VALUE_SCHEMAS: Record<string, Record<string, unknown>> = {
  ...PARAMETER_VALUE_SCHEMAS,
  ...Object.fromEntries(DEPRECATED_ALIASES.map((a) => [a.name, { ...aliasProperties[a.name], examples: [a.example] }])),
};

/** Parameter names, for the `name` path parameter. */
export const ParameterNameSchema = Type.String({
  description: 'A configuration parameter name (case-sensitive); deprecated names are accepted by PUT only',
  examples: ['lidar_mode'],
});

/** A configuration change's body: a JSON object (a missing body and a JSON `null` told apart). */
export function configurationObject(body: unknown): Record<string, unknown> {
  if (body === undefined) throw badRequest('the request needs a JSON object of configuration parameters as its body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(
      `the body must be a JSON object of configuration parameters; got ${body === null ? 'null' : Array.isArray(body) ? 'a list' : typeof body}`,
    );
  }
  return body as Record<string, unknown>;
}
