/**
 * JSON text of objects that do not change once built (metadata documents, cached data sets):
 * serialized once per object instead of once per request. A replaced object is a new key; the old
 * text is garbage-collected with it.
 */
const texts = new WeakMap<object, string>();

export function jsonTextOf(document: object): string {
  let text = texts.get(document);
  if (text === undefined) {
    text = JSON.stringify(document);
    texts.set(document, text);
  }
  return text;
}
