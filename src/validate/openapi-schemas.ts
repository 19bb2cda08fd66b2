/**
 * Answer schemas from the unit's own OpenAPI 3.1 document, compiled with Ajv (JSON Schema 2020-12, the dialect
 * OpenAPI 3.1 uses). The document is read at run time, so a stricter document makes a stricter validator.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
  >;
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class AnswerSchemas {
  private readonly ajv = new Ajv2020({ strict: false, logger: false, allErrors: true, validateSchema: false });
  constructor(readonly document: OpenApiDocument) {
    // ajv-formats' types predate Ajv2020's class; the call is the documented one.
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(document as object, 'openapi');
  }

  /** The validator of `method path`'s answer with `status`, or undefined when the document gives none. */
  validator(path: string, method: string, status: number): ValidateFunction | undefined {
    const content = this.document.paths[path]?.[method]?.responses?.[String(status)]?.content;
    const mediaType = content && Object.keys(content).find((t) => t.includes('json'));
    if (!mediaType || content?.[mediaType]?.schema === undefined) return undefined;
    const ref = `openapi#/paths/${pointer(path)}/${method}/responses/${status}/content/${pointer(mediaType)}/schema`;
    return this.ajv.getSchema(ref);
  }

  /** Empty when `body` fits, else Ajv's errors in one line; undefined when the document has no schema. */
  problems(path: string, method: string, status: number, body: unknown): string | undefined {
    const validate = this.validator(path, method, status);
    if (!validate) return undefined;
    if (validate(body)) return '';
    return (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(body)'} ${e.message}`)
      .join('; ');
  }
}
