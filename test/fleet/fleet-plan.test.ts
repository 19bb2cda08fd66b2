/** Fleet planning, the fleet file and the metrics merge: pure functions, checked without processes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedSensor } from '../../src/fleet/fleet-command.js';
import { parseFleetFile } from '../../src/fleet/fleet-file.js';
import { parseFleetOptions, type FleetOptions } from '../../src/fleet/fleet-options.js';
import { UsageError } from '../../src/model/index.js';
import { mergeExpositions, withUnitLabel } from '../../src/fleet/merge-metrics.js';
import { nthAddress, planUnits } from '../../src/fleet/unit-plan.js';
import { parseMetrics, sampleValue } from '../helpers/prometheus.js';
import { RECORDINGS } from '../helpers/recordings.js';

const options = (argv: string[]) => parseFleetOptions(argv) as FleetOptions;

describe('fleet options and plans', () => {
  it("names the first unit's address and serial --first-address and --first-serial; the former names still work", () => {
    const plan = (argv: string[]) =>
      planUnits(options(['--count', '2', ...argv]), null).map((p) => [p.address, p.serial]);
    const expected = [
      ['127.0.3.1', '122201000000'],
      ['127.0.3.2', '122201000001'],
    ];
    expect(plan(['--first-address', '127.0.3.1', '--first-serial', '122201000000'])).toEqual(expected);
    expect(plan(['--base-address', '127.0.3.1', '--serial-base', '122201000000'])).toEqual(expected);
    expect(() => parseFleetOptions(['--count', '2', '--first-serial', '1', '--serial-base', '2'])).toThrow(
      /--serial-base is the former name of --first-serial; give one of them/,
    );
    expect(() => parseFleetOptions(['--count', '2', '--first-serial', '12ab'])).toThrow(
      /--first-serial must be decimal digits; got "12ab"/,
    );
    expect(() => parseFleetOptions(['--count', '2', '--serial-base', '12ab'])).toThrow(/--serial-base must be/);
    expect(planUnits(options(['--count', '1']), null)[0].address).toBe('127.0.1.1');
  });

  it('gives unit n the base address + n, its own data directory and the serial base + n', () => {
    const plans = planUnits(
      options([
        '--count',
        '3',
        '--base-address',
        '127.0.1.254',
        '--data-root',
        '/d',
        '--serial-base',
        '122201000000',
        '--port',
        '8080',
      ]),
      null,
    );
    expect(plans.map((p) => [p.name, p.address, p.dataDir, p.serial])).toEqual([
      ['unit-1', '127.0.1.254', '/d/unit-1', '122201000000'],
      ['unit-2', '127.0.1.255', '/d/unit-2', '122201000001'],
      ['unit-3', '127.0.2.0', '/d/unit-3', '122201000002'],
    ]);
    expect(plans[2].args).toEqual([
      '--host',
      '127.0.2.0',
      '--port',
      '8080',
      '--data-dir',
      '/d/unit-3',
      '--product',
      'OS-1-128',
      '--log-level',
      'info',
      '--serial',
      '122201000002',
    ]);
    expect(plans[0].firstBootConfig).toBeNull();
  });

  it('defaults to port 80 and one process per unit', () => {
    const o = options(['--count', '1']);
    expect([o.port, o.processModel, o.firstAddress]).toEqual([80, 'process', '127.0.1.1']);
  });

  it('refuses bad options with a message naming them', () => {
    expect(() => parseFleetOptions([])).toThrow(UsageError);
    expect(() => parseFleetOptions(['--count', '0'])).toThrow(/--count must be an integer from 1/);
    expect(() => parseFleetOptions(['--count', '2', '--process-model', 'threads'])).toThrow(
      /--process-model must be one of process, shared/,
    );
    expect(() => parseFleetOptions(['--count', '2', '--bogus'])).toThrow(UsageError);
    expect(() => nthAddress('255.255.255.255', 1)).toThrow(/past 255.255.255.255/);
  });

  it('--replay plans one unit per --metadata on one timetable, with the recorded sensor as product and serial', () => {
    const o = options(
      ['--replay', '/r/rig.pcap', '--metadata', '/r/a.json', '--metadata', '/r/b.json', '--replay-loop'].concat([
        '--base-address',
        '127.0.3.1',
        '--port',
        '8080',
        '--data-root',
        '/d',
      ]),
    );
    const plans = planUnits(o, null, [
      { product: 'OS-0-128', serial: '122247000785' },
      { product: 'OS-1-64-AH', serial: '122239000672' },
    ]);
    expect(plans.map((p) => [p.name, p.address, p.product, p.serial])).toEqual([
      ['unit-1', '127.0.3.1', 'OS-0-128', '122247000785'],
      ['unit-2', '127.0.3.2', 'OS-1-64-AH', '122239000672'],
    ]);
    const epoch = String(o.replay?.timetableMs);
    for (const [i, plan] of plans.entries()) {
      expect(plan.args).toEqual(
        [
          '--host',
          `127.0.3.${i + 1}`,
          '--port',
          '8080',
          '--data-dir',
          `/d/unit-${i + 1}`,
          '--log-level',
          'info',
        ].concat(
          ['--replay', '/r/rig.pcap', '--metadata', i === 0 ? '/r/a.json' : '/r/b.json'],
          ['--replay-timetable', epoch, '--replay-loop'],
        ),
      );
    }
    expect(() => parseFleetOptions(['--replay', '/r/rig.pcap'])).toThrow(/one --metadata FILE per sensor/);
    expect(() => parseFleetOptions(['--count', '2', '--metadata', 'a.json'])).toThrow(/need --replay CAPTURE/);
    expect(() => parseFleetOptions(['--replay', 'r.pcap', '--metadata', 'a.json', '--count', '2'])).toThrow(
      /does not combine with --count or --file/,
    );
  });

  it("lists a fleet file's replay unit as the recorded sensor (product, serial), not the configured product", () => {
    const file = parseFleetFile(
      [
        'units:',
        `  - { name: legacy, product: OS-1-128, replay: ${join(RECORDINGS, 'OS-2-32-U0_v2.0.0_1024x10.pcap')} }`,
        `  - name: two`,
        `    replay: ${join(RECORDINGS, 'same_ports_nonlegacy.pcap')}`,
        `    args: [--metadata, ${join(RECORDINGS, 'same_ports_nonlegacy.2.json')}]`,
        '  - { name: live, product: OS-0-64 }',
      ].join('\n'),
      '/',
    );
    const plans = planUnits(options(['--count', '3']), file, [], recordedSensor);
    const recorded = (name: string) =>
      JSON.parse(readFileSync(join(RECORDINGS, name), 'utf8')) as {
        prod_line?: string;
        prod_sn?: string | number;
        sensor_info?: { prod_line: string; prod_sn: string | number };
      };
    const legacy = recorded('OS-2-32-U0_v2.0.0_1024x10.json');
    const second = recorded('same_ports_nonlegacy.2.json').sensor_info!;
    expect(plans.map((p) => [p.name, p.product, p.serial])).toEqual([
      ['legacy', legacy.prod_line, String(legacy.prod_sn)],
      ['two', second.prod_line, String(second.prod_sn)],
      ['live', 'OS-0-64', undefined],
    ]);
  });

  it('takes units from a fleet file: product, serial, address, mode, config, replay and extra options', () => {
    const file = parseFleetFile(
      [
        'defaults: { product: OS-2-32, port: 8080 }',
        'units:',
        '  - { name: roof, serial: "122201000042", address: 127.0.9.9, mode: 2048x10, replay: rec/roof.pcap }',
        '  - { config: { udp_dest: 127.0.0.1 }, args: [--log-level, debug] }',
      ].join('\n'),
      '/fleet',
    );
    const plans = planUnits(options(['--count', '3']), file);
    expect(plans.map((p) => [p.name, p.address, p.port, p.product, p.serial])).toEqual([
      ['roof', '127.0.9.9', 8080, 'OS-2-32', '122201000042'],
      ['unit-2', '127.0.1.2', 8080, 'OS-2-32', undefined],
      ['unit-3', '127.0.1.3', 8080, 'OS-2-32', undefined],
    ]);
    expect(plans[0].args).toEqual(expect.arrayContaining(['--replay', '/fleet/rec/roof.pcap']));
    expect(plans[0].firstBootConfig).toEqual({ lidar_mode: '2048x10' });
    expect(plans[1].firstBootConfig).toEqual({ udp_dest: '127.0.0.1' });
    expect(plans[1].args.slice(-2)).toEqual(['--log-level', 'debug']);
  });

  it('refuses a fleet file with unknown keys, bad values or two units on one address', () => {
    expect(() => parseFleetFile('units: [{ serail: "1" }]', '/')).toThrow(/additional properties \(serail\)/);
    expect(() => parseFleetFile('units: [{ address: 300.1.1.1 }]', '/')).toThrow(
      /\/units\/0\/address must match format "ipv4"/,
    );
    expect(() => parseFleetFile('units: [', '/')).toThrow(/not valid YAML\/JSON/);
    const clash = parseFleetFile('units: [{ address: 127.0.1.2 }]', '/');
    expect(() => planUnits(options(['--count', '2']), { ...clash, units: [{ address: '127.0.1.2' }] })).toThrow(
      /share 127.0.1.2:80/,
    );
  });
});

describe("merging the units' metrics", () => {
  it('adds a unit label to every sample, escaped', () => {
    expect(withUnitLabel('a_total 3', 'u1')).toBe('a_total{unit="u1"} 3');
    expect(withUnitLabel('a_total{stream="lidar"} 3', 'u"2')).toBe('a_total{unit="u\\"2",stream="lidar"} 3');
    expect(withUnitLabel('# HELP x y', 'u')).toBeNull();
  });

  it('groups each family once, with the samples of every unit', () => {
    const text = (sent: number) =>
      [
        '# HELP s_total sent',
        '# TYPE s_total counter',
        `s_total{stream="lidar"} ${sent}`,
        '# HELP g temp',
        '# TYPE g gauge',
        'g 40',
        '',
      ].join('\n');
    const merged = mergeExpositions([
      { unit: 'a', text: text(1) },
      { unit: 'b', text: text(2) },
    ]);
    expect(merged.match(/# TYPE s_total counter/g)).toHaveLength(1);
    const families = parseMetrics(merged);
    expect(sampleValue(families, 's_total', { unit: 'a', stream: 'lidar' })).toBe(1);
    expect(sampleValue(families, 's_total', { unit: 'b', stream: 'lidar' })).toBe(2);
    expect(sampleValue(families, 'g', { unit: 'b' })).toBe(40);
  });
});
