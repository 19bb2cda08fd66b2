/**
 * The validator's HTTP client for the unit under test: plain fetch with a deadline per request, the
 * answer read whole. A unit that does not answer in time is a failed check, not a hung validator.
 */

/** A JSON object as the unit answers it: the checks read its members and judge their types themselves. */
export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when the body is not JSON. */
  json: unknown;
  /** The body as it arrived (zips of Zone Monitor). */
  bytes: Buffer;
  contentType: string;
}

export class UnitUnreachable extends Error {}

export interface RequestOptions {
  body?: unknown;
  /** A body sent as this exact text (for malformed JSON) or these bytes. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export class UnitClient {
  private readonly reads = new Map<string, Promise<Answer>>();
  private halted = false;

  constructor(
    readonly baseUrl: string,
    readonly timeoutMs: number,
  ) {}

  /** Every later request fails at once: an interrupted run must not write after its restore began. */
  halt(): void {
    this.halted = true;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    if (this.halted) throw new Error(`${method} ${path}: the run was interrupted`);
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Uint8Array | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : describe(error);
      throw new Error(`${method} ${path}: ${cause}`);
    }
    let bytes: Buffer;
    try {
      bytes = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw new Error(`${method} ${path}: body cut short (${describe(error)})`);
    }
    const text = bytes.toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return {
      status: response.status,
      headers: response.headers,
      text,
      json,
      bytes,
      contentType: response.headers.get('content-type') ?? '',
    };
  }

  /** A GET whose answer is shared by every check that reads the same path in this phase. */
  read(path: string): Promise<Answer> {
    let answer = this.reads.get(path);
    if (answer === undefined) {
      answer = this.request('GET', path);
      this.reads.set(path, answer);
    }
    return answer;
  }

  /** Forgets the shared GET answers (after the unit changed). */
  forget(): void {
    this.reads.clear();
  }

  /** The JSON body of a 200 GET, or a failure naming the status and body. */
  async readJson<T = Record<string, unknown>>(path: string): Promise<T> {
    const answer = await this.read(path);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text.slice(0, 160)}`);
    if (answer.json === undefined) throw new Error(`GET ${path} body is not JSON: ${answer.text.slice(0, 80)}`);
    return answer.json as T;
  }

  /** Fresh JSON (not shared), for state read back after a change. */
  async fresh<T = Record<string, unknown>>(path: string): Promise<T> {
    const answer = await this.request('GET', path);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text.slice(0, 160)}`);
    return answer.json as T;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
