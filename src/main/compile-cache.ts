/**
 * V8's on-disk compile cache (Node 22.1+ `module.enableCompileCache`): later starts reuse the
 * bytecode of every module instead of compiling it again. Node 20 lacks it: then nothing happens.
 * Must run before the modules it should cover are imported, hence the CLI's dynamic imports.
 */
import module from 'node:module';

export function enableCompileCache(): void {
  const enable = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
  try {
    enable?.();
  } catch {
    // A read-only or missing cache directory only costs the speed-up.
  }
}
