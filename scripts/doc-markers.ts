/** Generated parts of the docs stand between `<!-- NAME:start -->` and `<!-- NAME:end -->`; this replaces one. */
export function replaceBetweenMarkers(text: string, marker: string, content: string, file = 'the text'): string {
  const pattern = new RegExp(`(<!-- ${marker}:start -->\\n)[\\s\\S]*?(<!-- ${marker}:end -->)`);
  if (!pattern.test(text)) throw new Error(`${file} lacks the ${marker} markers`);
  return text.replace(pattern, (_m, start: string, end: string) => `${start}${content}\n${end}`);
}
