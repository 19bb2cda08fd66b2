/**
 * Network namespaces for tests of the Linux HAL against the real tools (ip, ptp4l, chronyd). A
 * `NetnsPair` is two namespaces joined by a veth pair; the test's daemons and clients run inside
 * them with `ip netns exec`, so nothing is sent from the host's namespace and the documentation
 * addresses (192.0.2.0/24) never leave the pair. Names carry the pid so parallel runs don't clash.
 * `destroy()` (call it in afterAll) kills what the pair started, by pid, and deletes both namespaces
 * (which deletes the veth pair with them).
 *
 * The time daemons run without CAP_SYS_TIME (`setpriv --bounding-set -sys_time`): namespaces don't
 * isolate clocks, and a test must never adjust the host's clock.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

let counter = 0;

/** Why root-only namespace tests cannot run here, or undefined when they can. */
export function netnsSkipReason(tools: readonly string[] = []): string | undefined {
  if (process.platform !== 'linux') return 'network namespace tests need Linux';
  if (process.getuid?.() !== 0) return 'network namespace tests need root (CI runs them as root)';
  for (const tool of ['ip', 'setpriv', ...tools]) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (apt-get install iproute2 linuxptp chrony util-linux)`;
    }
  }
  return undefined;
}

/** Runs a command to completion and returns its output; throws with its error output on failure. */
export function run(argv: readonly string[]): string {
  const [file, ...args] = argv;
  return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
}

export interface Side {
  /** Namespace name. */
  ns: string;
  /** This side's veth interface. */
  iface: string;
}

/**
 * The options of a real unit (--hal linux) on a side's veth, listening on port 80 as a unit does: a real
 * unit starts only with factory data, so the first start programs `serial`, as a factory would.
 */
export function linuxUnitArgs(side: Side, unit: { serial: string; host: string; dataDir: string }): string[] {
  return [
    '--hal',
    'linux',
    '--serial',
    unit.serial,
    '--host',
    unit.host,
    '--port',
    '80',
    '--interface',
    side.iface,
    '--data-dir',
    unit.dataDir,
    '--log-level',
    'warn',
  ];
}

export interface SpawnedProcess {
  child: ChildProcess;
  output(): string;
}

export class NetnsPair {
  readonly a: Side;
  readonly b: Side;
  private readonly processes = new Set<ChildProcess>();

  private constructor(tag: string) {
    const id = `${process.pid}${counter++}`;
    // Interface names are limited to 15 characters.
    this.a = { ns: `lst-${tag}-${id}-a`, iface: `va${id}`.slice(0, 15) };
    this.b = { ns: `lst-${tag}-${id}-b`, iface: `vb${id}`.slice(0, 15) };
  }

  /** Two namespaces, a veth pair between them, loopback and veth up; `addresses` per side in CIDR form. */
  static create(tag: string, addresses: { a: string[]; b: string[] }): NetnsPair {
    const pair = new NetnsPair(tag);
    try {
      run(['ip', 'netns', 'add', pair.a.ns]);
      run(['ip', 'netns', 'add', pair.b.ns]);
      run([
        'ip',
        'link',
        'add',
        pair.a.iface,
        'netns',
        pair.a.ns,
        'type',
        'veth',
        'peer',
        'name',
        pair.b.iface,
        'netns',
        pair.b.ns,
      ]);
      for (const [side, cidrs] of [
        [pair.a, addresses.a],
        [pair.b, addresses.b],
      ] as const) {
        for (const cidr of cidrs) run(['ip', '-n', side.ns, 'addr', 'add', cidr, 'dev', side.iface]);
        run(['ip', '-n', side.ns, 'link', 'set', 'lo', 'up']);
        run(['ip', '-n', side.ns, 'link', 'set', side.iface, 'up']);
      }
    } catch (error) {
      void pair.destroy();
      throw error;
    }
    return pair;
  }

  /** The veth MAC of a side. */
  mac(side: Side): string {
    const [link] = JSON.parse(run(['ip', '-n', side.ns, '-j', 'link', 'show', 'dev', side.iface])) as {
      address: string;
    }[];
    return link.address;
  }

  /** IPv4 addresses of a side's veth as the kernel has them. */
  ipv4(side: Side): { cidr: string; label: string; scope: string }[] {
    const links = JSON.parse(run(['ip', '-n', side.ns, '-j', '-4', 'addr', 'show', 'dev', side.iface])) as {
      addr_info: { local: string; prefixlen: number; label: string; scope: string }[];
    }[];
    return links
      .flatMap((l) => l.addr_info)
      .map((a) => ({ cidr: `${a.local}/${a.prefixlen}`, label: a.label, scope: a.scope }));
  }

  /** Runs a command to completion inside a side's namespace. */
  exec(side: Side, argv: readonly string[]): string {
    return run(['ip', 'netns', 'exec', side.ns, ...argv]);
  }

  /** Starts `argv` inside a side's namespace; `ip netns exec` execs it, so the pid is the program's. */
  spawn(
    side: Side,
    argv: readonly string[],
    options: { dropTimeCapability?: boolean; env?: Record<string, string> } = {},
  ): SpawnedProcess {
    const prefix = options.dropTimeCapability ? ['setpriv', '--bounding-set', '-sys_time'] : [];
    const child = spawn('ip', ['netns', 'exec', side.ns, ...prefix, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    this.processes.add(child);
    child.once('exit', () => this.processes.delete(child));
    return { child, output: () => output };
  }

  /**
   * An HTTP request made from inside a side's namespace (a client on the sensor's network), by a
   * short-lived node process. Answers status and body text; `status` 0 when the connection failed.
   */
  async fetch(
    side: Side,
    url: string,
    /** `timeoutMs`: how long the client waits before it gives up (status 0); default 3 s. */
    init: { method?: string; body?: string; contentType?: string; timeoutMs?: number } = {},
  ): Promise<{ status: number; body: string }> {
    const script = `
      const [url, method, body, type, timeoutMs] = process.argv.slice(1);
      try {
        const res = await fetch(url, { method, body: body === '' ? undefined : body, headers: type ? { 'content-type': type } : {}, signal: AbortSignal.timeout(Number(timeoutMs)) });
        console.log(JSON.stringify({ status: res.status, body: await res.text() }));
      } catch (error) {
        console.log(JSON.stringify({ status: 0, body: String(error) }));
      }
      process.exit(0); // don't linger on a keep-alive connection to an address that may be gone`;
    const spawned = this.spawn(side, [
      process.execPath,
      '--input-type=module',
      '-e',
      script,
      url,
      init.method ?? 'GET',
      init.body ?? '',
      init.contentType ?? '',
      String(init.timeoutMs ?? 3000),
    ]);
    const code = await new Promise<number | null>((resolve) => spawned.child.once('exit', resolve));
    const line = spawned.output().trim().split('\n').pop() ?? '';
    if (code !== 0 || !line.startsWith('{'))
      throw new Error(`client in ${side.ns} failed (${code}): ${spawned.output()}`);
    return JSON.parse(line) as { status: number; body: string };
  }

  /**
   * The built CLI (dist/cli.js) in side `a`, listening on `address`:8080 with `args` and `dataDir`; resolves once
   * side `b` gets an answer from it.
   */
  async startUnit(address: string, dataDir: string, args: readonly string[] = []): Promise<SpawnedProcess> {
    const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
    const unit = this.spawn(this.a, [
      process.execPath,
      cli,
      '--host',
      address,
      '--port',
      '8080',
      ...args,
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
    ]);
    const started = Date.now();
    for (;;) {
      if (unit.child.exitCode !== null) throw new Error(`the unit exited: ${unit.output()}`);
      if ((await this.fetch(this.b, `http://${address}:8080/api/v1/system/firmware`)).status === 200) return unit;
      if (Date.now() - started > 30_000) throw new Error(`the unit did not answer in 30 s: ${unit.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops a process this pair started and waits for it to exit. */
  async stop(process_: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (process_.exitCode !== null || process_.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => process_.once('exit', () => resolve()));
    process_.kill(signal);
    const timer = setTimeout(() => process_.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** Kills every process still running (by pid) and deletes both namespaces. Safe to call twice. */
  async destroy(): Promise<void> {
    await Promise.all([...this.processes].map((child) => this.stop(child, 'SIGKILL')));
    for (const ns of [this.a.ns, this.b.ns]) {
      if (existsSync(`/run/netns/${ns}`) || existsSync(`/var/run/netns/${ns}`)) {
        try {
          run(['ip', 'netns', 'del', ns]);
        } catch {
          // Already gone.
        }
      }
    }
  }
}
