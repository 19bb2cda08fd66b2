/** The time resources: `GET /api/v1/time`, its three members, and `GET/PUT /api/v1/time/ptp/profile`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { timeDocumentBytes } from './time-document-text.js';
import { PTP_PROFILES, PtpTimeSchema, SensorTimeSchema, SystemTimeSchema, TimeSchema } from '../core/index.js';
import { badRequest, isPromise } from '../model/index.js';
import { sendJsonBytes, sendJsonText } from './http/cached-json.js';
import { checkedBy, Json, problems } from './api-schemas.js';

const PtpProfileSchema = Type.Unsafe<string>({
  type: 'string',
  enum: [...PTP_PROFILES],
  description: "PTP profile of the unit's PTP daemon",
  examples: ['gptp'],
});

export const timeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const time = app.sensor.time;
  const tags = ['time'];
  const document = (operationId: string, summary: string) => ({ operationId, summary, tags });
  const ok = (schema: TSchema, description: string) => ({ 200: Json(schema, description), ...problems() });
  // Pollers hit GET /time often: its bytes are rendered once per change, only the clocks per request,
  // and the handler stays synchronous while nothing has to be read (a promise per request costs more
  // than the document). The schema still documents the response.
  const documentBytes = timeDocumentBytes(time);
  const timePath = '/api/v1/time';
  app.get(
    timePath,
    {
      schema: { ...document('getTime', 'All clocks: PTP, sensor and system'), response: ok(TimeSchema, 'Time state') },
      // While the readings are at hand; else the handler waits for them.
      config: { preparedAnswer: documentBytes.atHand },
    },
    (_request, reply) => {
      const bytes = documentBytes();
      // Resolving to undefined: a handler's promise that resolves to the reply waits for the response's end.
      if (isPromise(bytes)) return bytes.then((body) => void sendJsonBytes(reply, body));
      sendJsonBytes(reply, bytes);
    },
  );
  app.get(
    '/api/v1/time/sensor',
    {
      schema: {
        ...document('getTimeSensor', "The sensor's timestamp clock and timing inputs"),
        response: ok(SensorTimeSchema, 'Sensor time'),
      },
    },
    () => time.sensor(),
  );
  app.get(
    '/api/v1/time/system',
    {
      schema: {
        ...document('getTimeSystem', 'The system clocks and NTP tracking'),
        response: ok(SystemTimeSchema, 'System time'),
      },
    },
    async () => time.system(),
  );
  app.get(
    '/api/v1/time/ptp',
    { schema: { ...document('getTimePtp', "The PTP daemon's data sets"), response: ok(PtpTimeSchema, 'PTP state') } },
    // The fresh reading without a promise (the common case for pollers), else once it is read.
    () => time.ptpAtHand() ?? time.ptp(),
  );

  app.get(
    '/api/v1/time/ptp/profile',
    { schema: { ...document('getPtpProfile', 'The PTP profile'), response: ok(PtpProfileSchema, 'The profile') } },
    (_request, reply) => {
      sendJsonText(reply, JSON.stringify(time.profile()));
    },
  );
  app.put(
    '/api/v1/time/ptp/profile',
    {
      schema: {
        ...document('setPtpProfile', 'Set the PTP profile (applied at once, persisted)'),
        body: checkedBy(PtpProfileSchema, parsePtpProfile),
        response: { 200: Json(PtpProfileSchema, 'The profile now in use'), ...problems(400) },
      },
    },
    async (request, reply) => {
      const profile = await time.setProfile(request.body);
      return sendJsonText(reply, JSON.stringify(profile));
    },
  );
};

/** One of the spec's five profile names, exactly; anything else is a 400 naming the valid values. */
function parsePtpProfile(value: unknown): (typeof PTP_PROFILES)[number] {
  const profile = PTP_PROFILES.find((name) => name === value);
  if (profile !== undefined) return profile;
  const valid = PTP_PROFILES.map((p) => JSON.stringify(p)).join(', ');
  if (typeof value !== 'string') {
    const got =
      value === undefined ? 'no body' : value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
    throw badRequest(`the PTP profile must be a JSON string, one of ${valid}; got ${got}`);
  }
  const caseInsensitive = PTP_PROFILES.find((p) => p.toLowerCase() === value.toLowerCase());
  if (caseInsensitive !== undefined)
    throw badRequest(
      `PTP profile names are case sensitive: ${JSON.stringify(value)} is not valid; did you mean ${JSON.stringify(caseInsensitive)}?`,
    );
  throw badRequest(
    `${JSON.stringify(value)} is not a PTP profile; valid profiles: ${valid} ("" and "default" are the same)`,
  );
}
