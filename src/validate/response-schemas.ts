/**
 * The OpenAPI document the unit's answers are checked against: the one the unit serves at
 * `GET /api/v1/openapi.json`, else this project's own (which the entry point makes by starting an
 * in-process unit on a loopback port for a moment: src/main/own-openapi.ts). Response schemas are compiled with Ajv's JSON Schema 2020-12 dialect,
 * the dialect of OpenAPI 3.1.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { announcedReplay, type Replay } from './replay-signal.js';
import type { UnitClient } from './unit-client.js';

export type OpenApiDocument = { openapi?: string; info?: unknown; paths?: Record<string, Record<string, unknown>> };

/** Gives this project's own OpenAPI document, for a unit that serves none. */
export type OwnDocument = () => Promise<OpenApiDocument>;

export class ResponseSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction | undefined>();
  private readonly templates: { template: string; pattern: RegExp }[];

  private constructor(
    private readonly document: OpenApiDocument,
    /** Where the document came from, for the report. */
    readonly source: string,
    /** The replay the unit's own document announces (never this validator's own document). */
    readonly replaying?: Replay,
  ) {
    this.ajv.addSchema(document as object, 'openapi');
    this.templates = Object.keys(document.paths ?? {}).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    }));
  }

  static async load(client: UnitClient, ownDocument: OwnDocument): Promise<ResponseSchemas> {
    let served: Awaited<ReturnType<UnitClient['request']>> | undefined;
    try {
      served = await client.request('GET', '/api/v1/openapi.json');
    } catch {
      served = undefined;
    }
    const document = served?.json as OpenApiDocument | undefined;
    if (served?.status === 200 && typeof document?.openapi === 'string' && document.paths)
      return new ResponseSchemas(document, 'the unit (GET /api/v1/openapi.json)', announcedReplay(document));
    return new ResponseSchemas(await ownDocument(), "this validator's own interface description");
  }

  /** The schema of `status` answers to `method path` (a concrete path, query stripped); undefined when undocumented. */
  validator(method: string, path: string, status: number): ValidateFunction | undefined {
    const bare = path.split('?')[0];
    const template = this.templates.find((t) => t.pattern.test(bare))?.template;
    if (template === undefined) return undefined;
    const key = `${method} ${template} ${status}`;
    if (!this.compiled.has(key)) {
      const pointer = `/paths/${escapePointer(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      let validate: ValidateFunction | undefined;
      if (resolvePointer(this.document, pointer) !== undefined)
        validate = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.compiled.set(key, validate);
    }
    return this.compiled.get(key);
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Ajv's errors in one line: `/lidar_mode must be equal to one of the allowed values; …`. */
export function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 4)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    )
    .join('; ');
}
