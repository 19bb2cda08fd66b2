/**
 * The error codes of the sensor, in one place. The device core and routes throw ApiError; the
 * HTTP error handler (src/routes/http/error-handler.ts) renders every one as RFC 9457 problem+json.
 * This module imports nothing from Fastify so the device core can use it.
 */
export interface FieldError {
  /** JSON pointer into the request (body, or `/query/<name>` for query parameters). */
  pointer: string;
  detail: string;
}

export type ProblemType =
  | 'bad-request'
  | 'invalid-configuration'
  | 'invalid-zone-set'
  | 'not-found'
  | 'method-not-allowed'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'request-timeout'
  | 'headers-too-large'
  | 'uri-too-long'
  | 'conflict'
  | 'forbidden'
  | 'firmware-unsigned'
  | 'firmware-untrusted'
  | 'firmware-signature-invalid'
  | 'firmware-too-old'
  | 'unavailable'
  | 'insufficient-storage'
  | 'storage-io-error'
  | 'system-file'
  | 'internal';

const TITLES: Record<ProblemType, [status: number, title: string]> = {
  'bad-request': [400, 'Bad request'],
  'invalid-configuration': [400, 'Invalid configuration'],
  'invalid-zone-set': [400, 'Invalid zone set'],
  'not-found': [404, 'Not found'],
  'method-not-allowed': [405, 'Method not allowed'],
  'payload-too-large': [413, 'Payload too large'],
  'unsupported-media-type': [415, 'Unsupported media type'],
  'request-timeout': [408, 'Request timeout'],
  'headers-too-large': [431, 'Request header fields too large'],
  'uri-too-long': [414, 'URI too long'],
  conflict: [409, 'Conflict'],
  forbidden: [403, 'Forbidden'],
  // The firmware trust store's refusals (--firmware-trust, --firmware-min-version): one type per reason.
  'firmware-unsigned': [403, 'Firmware image is not signed'],
  'firmware-untrusted': [403, 'Firmware image is not signed by a trusted key'],
  'firmware-signature-invalid': [403, 'Firmware image signature does not verify'],
  'firmware-too-old': [403, 'Firmware image is older than this unit accepts'],
  unavailable: [503, 'Service unavailable'],
  'insufficient-storage': [507, 'Insufficient storage'],
  // An I/O error of the unit's storage is no mistake of the client's and no bug (500 keeps meaning a bug):
  // the unit cannot store now, the flash may recover, and clients already retry a 503 after Retry-After.
  'storage-io-error': [503, 'Storage I/O error'],
  // A file one of the system's services owns (ptp4l's configuration) refused the write: neither the client's
  // mistake nor the unit's own storage, which keeps taking writes. Retrying helps once the site fixes the file.
  'system-file': [503, 'A system file could not be written'],
  internal: [500, 'Internal error'],
};

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    [this.status, this.title] = TITLES[type];
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new ApiError('bad-request', detail, errors);
/** `uncheckedKeys`: keys not looked at because enough errors were found already (bounded work and answer). */
export const invalidConfiguration = (errors: FieldError[], uncheckedKeys = 0) => {
  const listed = errors
    .slice(0, 5)
    .map((e) => `${e.pointer.slice(1) || 'body'}: ${e.detail}`)
    .join('; ');
  const more = errors.length > 5 ? `; … (${errors.length - 5} more in "errors")` : '';
  const unchecked = uncheckedKeys > 0 ? `; ${uncheckedKeys} more keys were not checked` : '';
  return new ApiError(
    'invalid-configuration',
    errors.length === 1 && uncheckedKeys === 0
      ? `${errors[0].pointer.slice(1) || 'body'}: ${errors[0].detail}`
      : `${errors.length} invalid parameters; nothing was applied: ${listed}${more}${unchecked}`,
    errors,
  );
};
/** A zone set firmware 3.2 refuses: every problem as a field error naming its zone and rule (docs/zone-monitor.md). */
export const invalidZoneSet = (problems: readonly { rule: string; zone?: number; detail: string }[]) => {
  const errors = problems.map((p) => ({
    pointer: p.zone === undefined ? '' : `/zones/${p.zone}`,
    detail: `${p.rule}: ${p.detail}`,
  }));
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more in "errors")` : '';
  const where = first.zone === undefined ? 'zone set' : `zone ${first.zone}`;
  const detail = first.detail.startsWith(`${where}: `) ? first.detail.slice(where.length + 2) : first.detail;
  return new ApiError('invalid-zone-set', `${where} refused, rule ${first.rule}: ${detail}${more}`, errors);
};
export const notFound = (detail: string) => new ApiError('not-found', detail);
export const conflict = (detail: string) => new ApiError('conflict', detail);
export const forbidden = (detail: string) => new ApiError('forbidden', detail);
export const payloadTooLarge = (detail: string) => new ApiError('payload-too-large', detail);
export const unsupportedMediaType = (detail: string) => new ApiError('unsupported-media-type', detail);
/** The sensor is (re)initializing or rebooting: try again shortly. */
export const unavailable = (detail: string, retryAfterSeconds = 1) =>
  new ApiError('unavailable', detail, undefined, { 'Retry-After': String(retryAfterSeconds) });

/**
 * A write to a file a system service owns failed (`what` names the file's role, e.g. "ptp4l's configuration"):
 * the answer says which file and why, and carries no `code` of its own, so the unit's storage state never
 * takes it for its own storage refusing.
 */
export function systemFileProblem(what: string, path: string, error: unknown): ApiError {
  const why = error instanceof Error ? error.message : String(error);
  return new ApiError(
    'system-file',
    `${what} ${path} could not be written (${why}): nothing was changed; the unit's own storage is not affected`,
    undefined,
    { 'Retry-After': '5' },
  );
}

/** Why a write could not be stored, as the disk or SQLite said it (`code`). */
export type StorageCause = 'full' | 'read-only' | 'io';

const STORAGE_CAUSES: Record<string, StorageCause> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  SQLITE_FULL: 'full',
  EROFS: 'read-only',
  SQLITE_READONLY: 'read-only',
  EIO: 'io',
  SQLITE_IOERR: 'io',
};

/** The storage cause of `error` (a Node system error or an SQLite error, extended codes included), if it is one. */
export function storageCauseOf(error: unknown): StorageCause | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return STORAGE_CAUSES[code] ?? STORAGE_CAUSES[code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1')];
}

const FREE_SPACE_HINT =
  'reads still work; free space (DELETE /api/v1/user/data removes the user data even now) and try again';

/**
 * The answer to a write the unit's storage refused: 507 for a full or read-only disk, 503 for an I/O error.
 * `hint`: what to do, when the store knows better than the general advice (a repair waiting for room).
 */
export function storageProblem(cause: StorageCause, code: string, hint?: string): ApiError {
  switch (cause) {
    case 'full':
      return new ApiError(
        'insufficient-storage',
        `the unit's storage is full (${code}): the change was not stored; ${hint ?? FREE_SPACE_HINT}`,
      );
    case 'read-only':
      return new ApiError(
        'insufficient-storage',
        `the unit's storage is read-only (${code}; the kernel may have remounted a failing flash): the change was not stored; reads still work`,
      );
    case 'io':
      return new ApiError(
        'storage-io-error',
        `the unit's storage failed with an I/O error (${code}) while writing: the change may not have been stored (read it back); reads still work`,
        undefined,
        { 'Retry-After': '5' },
      );
  }
}
