/**
 * What `--allow-changes` may change, saved before the first write and put back at the end: the
 * configuration (udp_dest included) and the user data with its policy. Restoring is idempotent, so the
 * normal end, a failure and SIGINT can all call it.
 */
import type { UnitClient } from './unit-client.js';

interface Snapshot {
  config: Record<string, unknown>;
  userData: { value: string; policy: string };
}

export class UnitState {
  private restored: Promise<string[]> | undefined;

  private constructor(
    private readonly client: UnitClient,
    private readonly snapshot: Snapshot,
  ) {}

  static async save(client: UnitClient): Promise<UnitState> {
    const config = await client.fresh('/api/v1/sensor/config');
    const userData = await client.fresh<{ value: string; policy: string }>('/api/v1/user/data?include_metadata=true');
    return new UnitState(client, { config, userData });
  }

  get config(): Record<string, unknown> {
    return this.snapshot.config;
  }

  /** Puts everything back once; resolves to what could not be restored (empty when all was). */
  restore(): Promise<string[]> {
    this.restored ??= this.putBack();
    return this.restored;
  }

  private async putBack(): Promise<string[]> {
    const problems: string[] = [];
    const attempt = async (what: string, body: () => Promise<void>) => {
      try {
        await body();
      } catch (error) {
        problems.push(`${what}: ${(error as Error).message}`);
      }
    };
    await attempt('configuration', () => this.restoreConfig());
    await attempt('user data', async () => {
      const { value, policy } = this.snapshot.userData;
      const answer = await this.client.request('PUT', `/api/v1/user/data?policy=${policy}`, { body: value });
      if (answer.status !== 204) throw new Error(`PUT answered ${answer.status}: ${answer.text.slice(0, 160)}`);
    });
    return problems;
  }

  /** Posts back the saved values of every parameter that differs now (also between phases); waits for RUNNING. */
  async restoreConfig(): Promise<void> {
    const current = await this.client.fresh('/api/v1/sensor/config');
    const changed = Object.fromEntries(
      Object.entries(this.snapshot.config).filter(([k, v]) => JSON.stringify(current[k]) !== JSON.stringify(v)),
    );
    if (Object.keys(changed).length === 0) return;
    const answer = await this.client.request('POST', '/api/v1/sensor/config', { body: changed });
    if (answer.status !== 204) throw new Error(`POST answered ${answer.status}: ${answer.text.slice(0, 160)}`);
    await waitUntilRunning(this.client);
  }
}

/** Polls until sensor_info says RUNNING (or STANDBY when that is the configured mode), at most `timeoutMs`. */
export async function waitUntilRunning(client: UnitClient, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const answer = await client.request('GET', '/api/v1/sensor/metadata/sensor_info');
      const status = (answer.json as { status?: string } | undefined)?.status;
      if (answer.status === 200 && (status === 'RUNNING' || status === 'STANDBY'))
        return answer.json as Record<string, unknown>;
      last = `${answer.status} ${status ?? ''}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`the unit did not come back to RUNNING within ${timeoutMs / 1000} s (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
