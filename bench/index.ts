/**
 * `npm run bench [-- --quick] [-- --json <path>] [-- --compare <earlier.json>] [-- --only http,startup,...]`
 *
 * Runs every measurement against the built CLI (dist/cli.js) on loopback, prints one markdown table
 * to stdout (progress goes to stderr) and optionally writes the figures as JSON. Figures are
 * reported, never asserted. Every child process is stopped at the end, on errors and on Ctrl-C.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readReport, renderComparison } from './compare.js';
import { createContext, type BenchContext } from './context.js';
import { benchDataPlane } from './data-plane.js';
import { benchFleet } from './fleet.js';
import { benchFaults } from './faults.js';
import { benchFleetModels } from './fleet-models.js';
import { benchHttp } from './http.js';
import { benchMemoryAndStartup } from './memory-startup.js';
import { installCleanup, stopAll } from './processes.js';
import { benchReinit } from './reinit.js';
import { benchUploadMemory } from './upload-memory.js';
import { benchStalledViewers } from './stalled-viewers.js';
import { benchStalledDaemons } from './stalled-daemons.js';
import { benchZoneMonitor } from './zone-monitor.js';
import { benchZoneRender } from './zone-render.js';
import { machineFacts, mergeSections, renderMarkdown, unavailable, type BenchReport, type Section } from './report.js';

const PARTS: Record<string, (ctx: BenchContext) => Promise<Section>> = {
  http: benchHttp,
  'data-plane': benchDataPlane,
  reinit: benchReinit,
  'memory-startup': benchMemoryAndStartup,
  'upload-memory': benchUploadMemory,
  fleet: benchFleet,
  faults: benchFaults,
  'fleet-models': benchFleetModels,
  'zone-monitor': benchZoneMonitor,
  'stalled-viewers': benchStalledViewers,
  'stalled-daemons': benchStalledDaemons,
  'zone-render': benchZoneRender,
};

function usage(): never {
  process.stderr.write(
    `usage: npm run bench -- [--quick] [--json <path>] [--compare <earlier.json>] [--only ${Object.keys(PARTS).join(',')}]\n`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean' },
        json: { type: 'string' },
        compare: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    usage();
  }
  if (values.help) usage();
  // Read first: a wrong path should fail before minutes of measuring, not after.
  const earlier = values.compare ? readReport(values.compare) : undefined;
  const selected = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(PARTS);
  for (const name of selected) if (!PARTS[name]) usage();

  const tmpDir = mkdtempSync(join(tmpdir(), 'sensor-bench-'));
  installCleanup(() => rmSync(tmpDir, { recursive: true, force: true }));
  const ctx = createContext(values.quick ?? false, tmpDir);
  const startedAt = performance.now();
  const sections: Section[] = [];
  try {
    for (const name of selected) {
      const partStart = performance.now();
      ctx.log(`${name} …`);
      try {
        sections.push(await PARTS[name](ctx));
      } catch (error) {
        // One broken measurement must not hide the others' figures.
        ctx.log(`${name} failed: ${(error as Error).stack ?? String(error)}`);
        sections.push(unavailable(name, '', `failed: ${(error as Error).message.split('\n')[0].slice(0, 160)}`));
      } finally {
        await stopAll();
      }
      ctx.log(`${name} done in ${((performance.now() - partStart) / 1000).toFixed(1)} s`);
    }
  } finally {
    await stopAll();
    rmSync(tmpDir, { recursive: true, force: true });
  }

  const all = mergeSections(sections);
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: machineFacts(),
    mode: ctx.quick ? 'quick' : 'full',
    durationS: Math.round((performance.now() - startedAt) / 100) / 10,
    rows: all.figures,
  };
  const m = report.machine;
  process.stdout.write(
    `\nBenchmark (${report.mode}), ${report.date.slice(0, 10)}, ${m.cpus} cores (${m.cpuModel}), Node ${m.node}, ${report.durationS} s\n\n`,
  );
  process.stdout.write(`${renderMarkdown(all.rows)}\n`);
  if (earlier) process.stdout.write(`\n${renderComparison(earlier, report)}\n`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    ctx.log(`figures written to ${values.json}`);
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  await stopAll();
  process.exitCode = 1;
});
