/**
 * systemd's readiness and watchdog protocol (sd_notify) for the `Type=notify` device unit: READY=1 once the
 * server answers on its port, WATCHDOG=1 from the main event loop at half of `WatchdogSec` (a blocked loop sends
 * nothing, so systemd kills and restarts the service), STOPPING=1 when shutdown begins.
 *
 * Node has no AF_UNIX datagram sockets (nodejs/node#30059), so every message goes through systemd's own
 * `systemd-notify` (the unit sets `NotifyAccess=all`: the sender is that child, not the main process). Since
 * systemd 246 it waits until the manager has processed the message, so the child cannot exit before systemd
 * attributed it to the unit. This avoids a native module in the package. Without NOTIFY_SOCKET (npm start, Docker,
 * tests) nothing is sent and no timer runs.
 */
import { execFile } from 'node:child_process';

export interface ServiceNotifier {
  /** The server answers: READY=1 and the first watchdog ping, then pings at half the watchdog interval. */
  ready(status: string): void;
  /** Shutdown begins: STOPPING=1; the pings stop. */
  stopping(): void;
}

export interface ServiceNotifierOptions {
  env?: NodeJS.ProcessEnv;
  pid?: number;
  /** The sender program; systemd-notify unless a test swaps it. */
  command?: string;
  onError?: (error: Error) => void;
}

/** Half of the watchdog interval systemd gave this process (WATCHDOG_USEC, WATCHDOG_PID), in ms; undefined when off. */
export function watchdogPingMs(env: NodeJS.ProcessEnv, pid: number): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!env.WATCHDOG_USEC || !Number.isFinite(usec) || usec <= 0) return undefined;
  // The variables reach children too: only the process systemd named pings.
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 2000));
}

const SILENT: ServiceNotifier = { ready: () => undefined, stopping: () => undefined };

export function createServiceNotifier(options: ServiceNotifierOptions = {}): ServiceNotifier {
  const env = options.env ?? process.env;
  if (!env.NOTIFY_SOCKET) return SILENT;
  const command = options.command ?? 'systemd-notify';
  const pingMs = watchdogPingMs(env, options.pid ?? process.pid);
  let timer: NodeJS.Timeout | undefined;
  let pingInFlight = false;

  const send = (assignments: string[], done?: () => void) => {
    execFile(command, assignments, { env, timeout: 5000 }, (error) => {
      done?.();
      if (error) options.onError?.(new Error(`${command} ${assignments.join(' ')}: ${error.message}`));
    });
  };
  const ping = () => {
    // A sender that hangs must not pile up children: the next tick tries again.
    if (pingInFlight) return;
    pingInFlight = true;
    send(['WATCHDOG=1'], () => {
      pingInFlight = false;
    });
  };

  return {
    ready(status) {
      send(['READY=1', `STATUS=${status}`, ...(pingMs ? ['WATCHDOG=1'] : [])]);
      if (pingMs && !timer) {
        timer = setInterval(ping, pingMs);
        // The pings must never keep a closing process alive.
        timer.unref();
      }
    },
    stopping() {
      if (timer) clearInterval(timer);
      timer = undefined;
      send(['STOPPING=1']);
    },
  };
}
