/**
 * Replaces one method of one object for as long as a fault lasts, and puts the original back.
 *
 * Why: state faults act on the parts the unit already has (the sim HAL's network, clocks and
 * firmware, the firmware manager) without those classes knowing about fault injection. The
 * override is an own property of that one instance, so other units in the same process and the
 * class itself are untouched; removing it reveals the prototype's method again.
 */
export function interpose<T extends object, K extends keyof T>(
  target: T,
  method: K,
  replacement: (original: T[K]) => T[K],
): () => void {
  const hadOwn = Object.hasOwn(target, method);
  const own = hadOwn ? target[method] : undefined;
  const original = (target[method] as (...args: unknown[]) => unknown).bind(target) as T[K];
  target[method] = replacement(original);
  return () => {
    if (hadOwn) target[method] = own as T[K];
    else delete target[method];
  };
}
