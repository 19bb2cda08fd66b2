import type { AlertSink } from '../../../src/model/alert-sink.js';

/** An AlertSink that remembers what was raised and cleared. */
export class RecordingAlerts implements AlertSink {
  readonly events: {
    action: 'raise' | 'clear';
    id: string;
    vars?: Record<string, string | number>;
    reason?: string;
  }[] = [];
  readonly active = new Map<string, Record<string, string | number> | undefined>();

  raise(id: string, vars?: Record<string, string | number>): void {
    this.events.push({ action: 'raise', id, vars });
    this.active.set(id, vars);
  }

  clear(id: string, reason?: string): void {
    if (!this.active.delete(id)) return;
    this.events.push({ action: 'clear', id, reason });
  }
}
