/**
 * The recent log lines of the server, for the diagnostics dump: a bounded in-memory ring that a
 * pino multistream tees into (it has the `write` method pino destinations need). Bounded by
 * line count and by bytes, so a burst of large lines cannot grow memory.
 */
export interface LogRingOptions {
  maxLines?: number;
  maxBytes?: number;
}

export class LogRing {
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly ring: string[] = [];
  private bytes = 0;

  constructor(options: LogRingOptions = {}) {
    this.maxLines = options.maxLines ?? 1000;
    this.maxBytes = options.maxBytes ?? 512 * 1024;
  }

  /** pino hands over one serialized line (with its newline) per call. */
  write(chunk: string | Uint8Array): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      // A single line larger than the whole budget is cut rather than evicting everything else.
      const kept = line.length > this.maxBytes / 4 ? `${line.slice(0, this.maxBytes / 4)}…` : line;
      this.ring.push(kept);
      this.bytes += Buffer.byteLength(kept);
    }
    while (this.ring.length > this.maxLines || this.bytes > this.maxBytes) {
      this.bytes -= Buffer.byteLength(this.ring.shift()!);
    }
    return true;
  }

  /** Oldest first, without newlines. */
  lines(): string[] {
    return [...this.ring];
  }
}
