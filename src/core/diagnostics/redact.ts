/**
 * No secret or credential may leave the unit in a diagnostics dump. Values under keys that name
 * one are replaced, however deep they sit; the keys stay, so support sees that something was there.
 */
const SECRET_KEY =
  /(^|[-_])(pass|pwd|psk)($|[-_])|password|passphrase|passwd|secret|token|api[-_]?key|private[-_]?key|credential|authori[sz]ation|cookie/i;

export const REDACTED = '[redacted]';

export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) ? REDACTED : redactSecrets(inner)]),
    );
  }
  return value;
}

/** A log line: JSON lines (pino) are redacted structurally; anything else passes unchanged. */
export function redactLogLine(line: string): string {
  try {
    return JSON.stringify(redactSecrets(JSON.parse(line)));
  } catch {
    return line;
  }
}
