/**
 * The configuration as read: each parameter holds a valid value and its own endpoint agrees, the azimuth
 * window fits the signal multiplier, and unknown or wrongly cased parameter names are refused.
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import { CONFIG_RULES } from './spec-rules.js';
import type { UnitClient } from './unit-client.js';

export async function configReadChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const config = await run.readOrSkip(
    'config',
    'configuration value checks',
    () => client.readJson('/api/v1/sensor/config'),
    (message) => `no configuration: ${message}`,
  );
  if (config === undefined) return;
  for (const [name, rule] of Object.entries(CONFIG_RULES)) {
    await run.check(`config.${name}.value`, `configuration parameter ${name} holds a valid value`, () => {
      if (!(name in config)) throw new Error('missing from GET /api/v1/sensor/config');
      const problem = rule(config[name]);
      expectThat(problem === undefined, problem ?? '');
      return show(config[name], 40);
    });
    await run.check(
      `config.${name}.single`,
      `GET /api/v1/sensor/config/${name} equals its value in the whole configuration`,
      async () => {
        const answer = await client.request('GET', `/api/v1/sensor/config/${name}`);
        // The reference shows 204 with a body; the body is what matters.
        expectThat(answer.status === 200 || answer.status === 204, `answered ${answer.status}`);
        expectThat(
          JSON.stringify(answer.json) === JSON.stringify(config[name]),
          `${answer.text} ≠ ${show(config[name])}`,
        );
      },
    );
  }
  await run.check(
    'config.azimuth-window.multiplier',
    'azimuth_window fits the maximum window of signal_multiplier',
    () => {
      const [lo, hi] = config.azimuth_window as number[];
      const max = ({ 2: 180000, 3: 120000 } as Record<number, number>)[config.signal_multiplier as number] ?? 360000;
      const span = (hi - lo + 360000) % 360000 || 360000;
      expectThat(span <= max, `window of ${span} mdeg over the ${max} mdeg allowed at ${config.signal_multiplier}x`);
    },
  );
  await run.check(
    'config.unknown-parameter',
    'GET /api/v1/sensor/config/<unknown name> is refused with 404',
    async () => {
      const answer = await client.request('GET', '/api/v1/sensor/config/no_such_parameter');
      expectThat(answer.status === 404, `answered ${answer.status}`);
    },
  );
  await run.check(
    'config.name-case',
    'parameter names are case sensitive (GET /api/v1/sensor/config/LIDAR_MODE is refused)',
    async () => {
      const answer = await client.request('GET', '/api/v1/sensor/config/LIDAR_MODE');
      expectThat(answer.status >= 400 && answer.status < 500, `answered ${answer.status}`);
    },
  );
}
