/** The `--mdns` / `--no-mdns` switch and when `auto` advertises. */
import { describe, expect, it } from 'vitest';
import { parseCliOptions, UsageError } from '../../src/main/cli-options.js';
import { mdnsEnabled } from '../../src/core/discovery/mdns-mode.js';
import { unitRecords } from '../../src/core/discovery/mdns-records.js';

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const options = parseCliOptions(argv, env);
  if (options === 'help') throw new Error('unexpected help');
  return options.mdns;
};

describe('mDNS options', () => {
  it('is auto by default; --mdns turns it on, --no-mdns off, the flag wins over SENSOR_MDNS', () => {
    expect(parse([])).toBe('auto');
    expect(parse(['--mdns'])).toBe('on');
    expect(parse(['--no-mdns'])).toBe('off');
    expect(parse([], { SENSOR_MDNS: 'off' })).toBe('off');
    expect(parse(['--mdns'], { SENSOR_MDNS: 'off' })).toBe('on');
    expect(() => parse([], { SENSOR_MDNS: 'yes' })).toThrow(UsageError);
    expect(() => parse(['--mdns=on'])).toThrow(UsageError);
  });

  it('auto advertises on any non-loopback listen address, including the wildcard', () => {
    expect(mdnsEnabled('auto', '0.0.0.0')).toBe(true);
    expect(mdnsEnabled('auto', '192.0.2.1')).toBe(true);
    expect(mdnsEnabled('auto', '127.0.0.1')).toBe(false);
    expect(mdnsEnabled('auto', '127.0.0.9')).toBe(false);
    expect(mdnsEnabled('on', '127.0.0.1')).toBe(true);
    expect(mdnsEnabled('off', '0.0.0.0')).toBe(false);
  });

  it('names the instance and host after the serial, one A record per address', () => {
    const records = unitRecords({
      serialNumber: '122201000123',
      partNumber: '840-102145-D',
      productLine: 'OS-1-128',
      firmware: 'fw',
      port: 80,
      addresses: ['192.0.2.1', '198.51.100.1'],
    });
    expect(records.filter((r) => r.type === 'PTR' && r.name === '_roger._tcp.local').map((r) => r.data)).toEqual([
      'Ouster Sensor 122201000123._roger._tcp.local',
    ]);
    expect(records.filter((r) => r.type === 'A').map((r) => [r.name, r.data])).toEqual([
      ['os-122201000123.local', '192.0.2.1'],
      ['os-122201000123.local', '198.51.100.1'],
    ]);
  });
});
