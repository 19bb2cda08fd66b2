/**
 * HTTP requests to the unit under test, each with a deadline so a stalled endpoint is a failed check, not a hang.
 */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  ms: number;
}

export class UnitUnreachable extends Error {}

export class HttpProbe {
  constructor(
    readonly base: string,
    readonly timeoutMs: number,
  ) {}

  /** `body` goes as JSON; `raw` sends it as the text given (broken JSON on purpose). */
  async request(method: string, path: string, body?: unknown, raw = false): Promise<Answer> {
    try {
      return await this.once(method, path, body, raw);
    } catch (err) {
      // A keep-alive connection the unit closed while idle (e.g. during the UDP capture): one fresh try.
      if (!(err instanceof UnitUnreachable) || !/SOCKET|ECONNRESET/.test(err.message)) throw err;
      return this.once(method, path, body, raw);
    }
  }

  private async once(method: string, path: string, body: unknown, raw: boolean): Promise<Answer> {
    const started = performance.now();
    const init: RequestInit = { method, signal: AbortSignal.timeout(this.timeoutMs) };
    if (body !== undefined) {
      init.body = raw ? String(body) : JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    let res: Response;
    try {
      res = await fetch(new URL(path, this.base), init);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError') throw new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`);
      throw new UnitUnreachable(`${method} ${path}: ${e.cause?.code ?? e.message}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new Error(`${method} ${path}: body did not arrive (${(err as Error).name})`);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text,
      json,
      ms: performance.now() - started,
    };
  }

  get(path: string) {
    return this.request('GET', path);
  }
}
