/** What the kernel knows about a process and the machine: CPU time, resident memory, UDP drops. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (almost always 100). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU seconds the process (all its threads) has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / ticksPerSecond();
}

/** Resident set size in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** Resident memory split into anonymous (heaps, buffers) and file-backed (the node binary, libraries) pages, bytes. */
export function rssParts(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

/** Busy and total jiffies of the whole machine (all CPUs), from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Datagrams the kernel dropped because a receiving socket's buffer was full (machine-wide counter). */
export function udpReceiveBufferErrors(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('Udp:'));
  if (lines.length < 2) return 0;
  const names = lines[0].split(/\s+/);
  const values = lines[1].split(/\s+/);
  const index = names.indexOf('RcvbufErrors');
  return index < 0 ? 0 : Number(values[index]);
}

/** CPU seconds per wall second over a window: call `start()`, then `perSecond()`. */
export class CpuMeter {
  private startCpu = 0;
  private startWall = 0;

  constructor(private readonly pid: number) {}

  start(): this {
    this.startCpu = cpuSeconds(this.pid);
    this.startWall = performance.now();
    return this;
  }

  /** CPU seconds used since `start()`. */
  seconds(): number {
    return cpuSeconds(this.pid) - this.startCpu;
  }

  perSecond(): number {
    const wallS = (performance.now() - this.startWall) / 1000;
    return (cpuSeconds(this.pid) - this.startCpu) / wallS;
  }
}

/**
 * Proportional set size in bytes: resident pages, each shared page divided among the processes that
 * map it. Summed over a fleet's processes it counts the node binary and libraries once, not per unit.
 */
export function pssBytes(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
  if (!match) throw new Error(`no Pss for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The most resident memory the process has had since it started (VmHWM), bytes. */
export function peakRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}
