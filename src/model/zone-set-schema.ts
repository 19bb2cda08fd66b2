/**
 * The schema of a zone set's metadata.json as the vendor SDK checks it whenever it opens a 3.2 unit
 * (ouster_core/src/zone_monitor.cpp, METADATA_SCHEMA, draft-07, and what its reader then requires), written
 * here as our own TypeBox schema: a set this refuses is one every SDK client would abort on. Each rule, with
 * its source in the SDK, is listed in docs/zone-monitor.md ("What the unit refuses").
 */
import { Type } from '@sinclair/typebox';

const HASH = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });
const LABEL = Type.String({ maxLength: 64 });

const STL = Type.Object(
  {
    // The schema lets the name be empty; the reader then finds no such file (rule missing-file).
    file_name: Type.String({ pattern: '^([a-zA-Z0-9_\\-][a-zA-Z0-9_\\- ]*\\.(stl|STL))?$' }),
    // The schema gives it a default, but the SDK's reader takes it with at(): a zone without it aborts the SDK.
    coordinate_frame: Type.Unsafe<'SENSOR' | 'BODY'>({ enum: ['SENSOR', 'BODY'] }),
    hash: Type.Optional(HASH),
  },
  { additionalProperties: false },
);

const ZRB = Type.Object(
  {
    // Required by the reader (at("file_name")), though the schema requires only the hash.
    file_name: Type.String({ pattern: '^((0|[1-9][0-9]*)\\.(zrb|ZRB))?$' }),
    hash: HASH,
  },
  { additionalProperties: false },
);

const ZONE = Type.Object(
  {
    label: Type.Optional(LABEL),
    point_count: Type.Integer({ minimum: 1, maximum: 262_143 }),
    frame_count: Type.Integer({ minimum: 1, maximum: 65_535 }),
    mode: Type.Unsafe<'VACANCY' | 'OCCUPANCY'>({ enum: ['VACANCY', 'OCCUPANCY'] }),
    stl: Type.Optional(STL),
    zrb: Type.Optional(ZRB),
  },
  // The SDK's oneOf of "stl only", "zrb only" and "both" takes what this takes: at least one of the two.
  { additionalProperties: false, anyOf: [{ required: ['stl'] }, { required: ['zrb'] }] },
);

export const ZONE_ID_PATTERN = '^(0|[1-9][0-9]*)$';

export const ZoneSetMetadataSchema = Type.Object(
  {
    label: Type.Optional(LABEL),
    version: Type.Object(
      {
        metadata: Type.Integer({ minimum: 1, maximum: 65_535 }),
        file_naming: Type.Integer({ minimum: 1, maximum: 65_535 }),
      },
      // Any further key of version is taken, as an integer 1..65535 (the SDK's patternProperties ".*").
      { additionalProperties: Type.Integer({ minimum: 1, maximum: 65_535 }) },
    ),
    power_on_live_ids: Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 16 }),
    zones: Type.Object({}, { patternProperties: { [ZONE_ID_PATTERN]: ZONE }, additionalProperties: false }),
    sensor_to_body_transform: Type.Optional(Type.Array(Type.Number(), { minItems: 16, maxItems: 16 })),
  },
  { additionalProperties: false },
);
