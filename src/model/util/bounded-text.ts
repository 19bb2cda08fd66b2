/**
 * Echoing a client's input back in an error must not let the client choose the size of the answer:
 * every echoed value and key is cut to a short prefix, every list of problems to a few entries.
 */

/** Longest echo of one value or key, in characters (a prefix and an ellipsis beyond that). */
export const MAX_ECHO_CHARS = 64;
/** Most field errors one answer lists; the rest are counted, not listed (and not even looked for). */
export const MAX_FIELD_ERRORS = 20;

export function shorten(text: string, max = MAX_ECHO_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** JSON text of a value, cut to a short prefix: what an error message quotes of the input. */
export function quote(value: unknown, max = MAX_ECHO_CHARS): string {
  if (typeof value === 'string')
    return shorten(JSON.stringify(value.length > max ? value.slice(0, max + 1) : value), max + 2);
  if (Array.isArray(value) && value.length > max) return `a list of ${value.length} items`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  return shorten(text ?? String(value), max);
}
