/**
 * The alerts of a stream's socket: which alert each kind of socket error raises (the ids come with the plan;
 * the alert catalogue in src/model is their single source, the device core picks them per stream), and the
 * events the worker reports to the main thread's alert log.
 */
export type AlertEvent =
  | { action: 'raise'; id: string; vars: Record<string, string | number> }
  | { action: 'clear'; id: string; reason: string };

export interface StreamAlertIds {
  /** ICMP port unreachable came back (ECONNREFUSED on the connected socket). */
  refused: string;
  /** The packet could not be sent (network down, no route). */
  sendFailed: string;
  /** Any other send error: the socket is closed and reopened. */
  socketClosed: string;
  /** The destination host name does not resolve. */
  unresolved: string;
  /** The destination cannot be reached from the bound address (connect refused the route). */
  unreachable: string;
  /** The socket could not be opened or bound. */
  openFailed: string;
}
