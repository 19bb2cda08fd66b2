/** The orchestrator's handle on the load generator child. */
import type { ChildProcess } from 'node:child_process';
import { forkTs, nextMessage, stopProcess } from './processes.js';
import type { FromLoadGenerator, LoadOptions, LoadResult, ToLoadGenerator } from './load-protocol.js';

export class LoadGenerator {
  private seq = 0;

  private constructor(private readonly child: ChildProcess) {}

  static start(): LoadGenerator {
    return new LoadGenerator(forkTs(new URL('./load-generator.ts', import.meta.url)));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  async run(options: LoadOptions): Promise<LoadResult> {
    const seq = ++this.seq;
    const reply = nextMessage(
      this.child,
      (m: unknown): m is FromLoadGenerator =>
        typeof m === 'object' && m !== null && (m as { seq?: unknown }).seq === seq,
      options.durationS * 1000 + 30_000,
      `load run on ${options.url}`,
    );
    this.child.send({ type: 'run', seq, options } satisfies ToLoadGenerator);
    const message = await reply;
    if (message.type === 'error') throw new Error(`load generator: ${message.message}`);
    return message.result;
  }

  close(): Promise<void> {
    return stopProcess(this.child);
  }
}
