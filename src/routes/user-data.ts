/** The user data field: `GET/PUT/DELETE /api/v1/user/data`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { USER_DATA_MAX_BYTES, USER_DATA_POLICIES } from '../core/index.js';
import { badRequest, payloadTooLarge } from '../model/index.js';
import { flag } from './http/query-flags.js';
import { checkedBy, Json, NoContent, problems } from './api-schemas.js';
import { sendJsonText } from './http/cached-json.js';

const getQuery = Type.Object(
  {
    include_metadata: Type.Optional(
      Type.Unsafe<'true' | '1' | 'false' | '0'>({
        type: 'string',
        enum: ['true', '1', 'false', '0'],
        description: 'true: answer {value, policy} instead of the bare value',
      }),
    ),
  },
  { additionalProperties: false },
);
const putQuery = Type.Object(
  {
    policy: Type.Optional(
      Type.Unsafe<(typeof USER_DATA_POLICIES)[number]>({
        type: 'string',
        enum: [...USER_DATA_POLICIES],
        description: 'What a configuration reset does to the value (default clear_on_config_delete)',
        examples: ['keep_on_config_delete'],
      }),
    ),
  },
  { additionalProperties: false },
);
const UserDataValue = Type.String({
  description: `Text of up to ${USER_DATA_MAX_BYTES} bytes of UTF-8 (more: 413), no control characters but tab, LF and CR`,
  // JSON Schema counts characters, not bytes: at most as many characters as bytes is the bound it can state.
  maxLength: USER_DATA_MAX_BYTES,
  'x-max-bytes': USER_DATA_MAX_BYTES,
  pattern: '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$',
  examples: ['rack 4, north wall'],
});
const UserDataAnswer = Type.Union(
  [UserDataValue, Type.Object({ value: Type.String(), policy: Type.String({ enum: [...USER_DATA_POLICIES] }) })],
  { examples: ['rack 4, north wall', { value: 'rack 4, north wall', policy: 'keep_on_config_delete' }] },
);

export const userDataRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sensor = app.sensor;
  const tags = ['system'];
  app.get(
    '/api/v1/user/data',
    {
      schema: {
        operationId: 'getUserData',
        summary: 'The user data field',
        tags,
        querystring: getQuery,
        response: {
          200: Json(UserDataAnswer, 'The value, or {value, policy} with include_metadata'),
          ...problems(400),
        },
      },
    },
    async (request, reply) => {
      // A value is shown only once durable: a write in flight is answered to its writer first.
      const settled = sensor.userData.settled();
      if (settled) await settled;
      const data = sensor.userData.get();
      const body = flag(request.query.include_metadata, false) ? data : data.value;
      return sendJsonText(reply, JSON.stringify(body));
    },
  );

  app.put(
    '/api/v1/user/data',
    {
      schema: {
        operationId: 'setUserData',
        summary: 'Store the user data field',
        tags,
        querystring: putQuery,
        body: checkedBy(UserDataValue, userDataValue),
        response: { 204: Json(NoContent, 'Stored'), ...problems(400, 413) },
      },
      // A 128 KiB value JSON-escaped (\u0000-style) may be up to six times longer on the wire.
      bodyLimit: 1024 * 1024,
    },
    async (request, reply) => {
      await sensor.userData.put(request.body, request.query.policy);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/v1/user/data',
    {
      schema: {
        operationId: 'deleteUserData',
        summary: 'Clear the user data field',
        tags,
        response: { 204: Json(NoContent, 'Cleared'), ...problems() },
      },
    },
    async (_request, reply) => {
      await sensor.userData.delete();
      return reply.code(204).send();
    },
  );
};

/**
 * "Binary" content, which the field refuses: C0 control characters other than tab, line feed and
 * carriage return; DEL and the C1 controls (U+007F-U+009F); and unpaired UTF-16 surrogates, which
 * are not Unicode text at all. Everything else, any script and emoji included, is text.
 */
// Without the `u` flag the pattern sees UTF-16 code units, so it can find unpaired surrogates.
const BINARY_CODE_UNITS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The user data a PUT may store: a JSON string of text within the size limit; else a 400/413 ApiError. */
function userDataValue(value: unknown): string {
  if (typeof value !== 'string')
    throw badRequest(
      `user data must be a JSON string; got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value}`,
    );
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > USER_DATA_MAX_BYTES)
    throw payloadTooLarge(`user data is ${bytes} bytes of UTF-8; the limit is ${USER_DATA_MAX_BYTES}`);
  const binary = BINARY_CODE_UNITS.exec(value);
  if (binary) {
    const code = binary[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw badRequest(
      `user data must be text: it holds binary content (U+${code} at character ${binary.index}); control characters other than tab, line feed and carriage return, and unpaired surrogates, are refused`,
    );
  }
  return value;
}
