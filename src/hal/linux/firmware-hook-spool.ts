/**
 * The firmware hook's narrow root path on the device: the unprivileged server asks, a root one-shot runs the hook.
 *
 * Server side (`requestHook`, run as the server's `--firmware-hook` through firmware-hook-request.ts): one request,
 * the hook's arguments as JSON, is written to `SPOOL/staging/` and renamed into `SPOOL/requests/` (in the server's
 * state directory); then it waits for `RESULTS/<id>.json`. A path unit (`DirectoryNotEmpty=SPOOL/requests`) starts
 * the root one-shot, whose `runSpooledRequests` (firmware-hook-runner.ts) takes each request, checks every argument
 * against the hook protocol (firmware-linux.ts) and runs the configured hook with them, and writes the hook's exit
 * status and output to RESULTS (root's own directory, readable by the server). The requester sees the hook as if
 * it had run it itself: same output, same exit status.
 *
 * What root accepts from the unprivileged side, and nothing else: a known step; a slot `a` or `b`; for `install`
 * an image that is a regular file inside the server's slot folder (checked on the opened file, so no symbolic link
 * or later rename can point root at another file; the hook reads it as /dev/fd/3), an offset and a length inside it
 * and an image_rev of printable characters; and the server's INVOCATION_ID (32 hex digits), passed to the hook so a
 * hook that counts service starts as boots sees the server's. Root deletes only request files named like requests.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, readlink, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What the runner writes back: the hook's exit status and what it printed. */
export interface HookResult {
  exit: number;
  stdout: string;
  stderr: string;
}

interface HookRequest {
  args: string[];
  invocation?: string;
}

const REQUEST_NAME = /^([0-9a-f]{32})\.json$/;
const INVOCATION_ID = /^[0-9a-f]{32}$/;
const SLOT = /^[ab]$/;
const COUNT = /^(0|[1-9]\d{0,15})$/;
const IMAGE_REV = /^[\x21-\x7e]{1,128}$/;
const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_OUTPUT_BYTES = 1024 * 1024;
const POLL_MS = 50;
/** The same bounds the server puts on a hook it runs itself (firmware-linux.ts). */
const STEP_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 30 * 60_000;
/** A result nobody collected (its requester was killed) is removed by a later run after this long. */
const STALE_RESULT_MS = 60 * 60_000;

const requestsOf = (spool: string) => join(spool, 'requests');

/** The server's side: hands `args` to the root runner and resolves with the hook's result. */
export async function requestHook(spool: string, results: string, args: readonly string[]): Promise<HookResult> {
  const id = randomBytes(16).toString('hex');
  const staged = join(spool, 'staging', `${id}.json`);
  const request = join(requestsOf(spool), `${id}.json`);
  await mkdir(join(spool, 'staging'), { recursive: true });
  await mkdir(requestsOf(spool), { recursive: true });
  const body: HookRequest = { args: [...args], invocation: process.env.INVOCATION_ID };
  await writeFile(staged, JSON.stringify(body));
  // Whole or not at all: the path unit must never see a half-written request.
  await rename(staged, request);
  // Killed while waiting (the server's step timeout): a request root has not taken yet is withdrawn.
  const withdraw = () => {
    rm(request, { force: true }).finally(() => process.exit(143));
  };
  process.once('SIGTERM', withdraw);
  try {
    for (;;) {
      const text = await readFile(join(results, `${id}.json`), 'utf8').catch(() => undefined);
      if (text !== undefined) return JSON.parse(text) as HookResult;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    process.off('SIGTERM', withdraw);
  }
}

/** Root's side: runs the hook for every request waiting in `spool`, one after the other. */
export async function runSpooledRequests(spool: string, results: string, imageDir: string, hook: string) {
  await mkdir(results, { recursive: true, mode: 0o755 });
  await removeStaleResults(results);
  const names = await readdir(requestsOf(spool)).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const id = REQUEST_NAME.exec(name)?.[1];
    if (!id) continue;
    const path = join(requestsOf(spool), name);
    const text = await readRequestFile(path);
    await unlink(path).catch(() => {});
    if (text === undefined) continue;
    const result = await runRequest(text, imageDir, hook);
    const temporary = join(results, `.${id}.tmp`);
    // Root's own directory: a leftover of an interrupted run may go; 'wx' then never writes through a link.
    await rm(temporary, { force: true });
    await writeFile(temporary, JSON.stringify(result), { flag: 'wx', mode: 0o644 });
    await rename(temporary, join(results, `${id}.json`));
  }
}

/** The request's text, read without following a link and only from a regular file of a sane size. */
async function readRequestFile(path: string): Promise<string | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_REQUEST_BYTES) return undefined;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

const refused = (reason: string): HookResult => ({
  exit: 2,
  stdout: '',
  stderr: `refused by the root path: ${reason}\n`,
});

async function runRequest(text: string, imageDir: string, hook: string): Promise<HookResult> {
  let request: HookRequest;
  try {
    request = JSON.parse(text) as HookRequest;
  } catch {
    return refused('the request is not JSON');
  }
  const args = Array.isArray(request?.args) && request.args.every((a) => typeof a === 'string') ? request.args : [];
  const invocation =
    typeof request.invocation === 'string' && INVOCATION_ID.test(request.invocation) ? request.invocation : undefined;
  const problem = argumentProblem(args);
  if (problem) return refused(problem);
  if (args[0] !== 'install') return runHook(hook, args, invocation, STEP_TIMEOUT_MS);
  const image = await openImage(args[2], imageDir, Number(args[3]), Number(args[4]));
  if (typeof image === 'string') return refused(image);
  try {
    const forwarded = [...args.slice(0, 2), '/dev/fd/3', ...args.slice(3)];
    return await runHook(hook, forwarded, invocation, INSTALL_TIMEOUT_MS, image.fd);
  } finally {
    await image.close();
  }
}

/** Why `args` is not a call of the hook protocol, or undefined when it is. */
export function argumentProblem(args: readonly string[]): string | undefined {
  const [step, ...rest] = args;
  const shape: Record<string, RegExp[]> = {
    booted: [],
    reboot: [],
    activate: [SLOT],
    'mark-good': [SLOT],
    install: [SLOT, /^\//, COUNT, COUNT, IMAGE_REV],
  };
  const expected = step === undefined ? undefined : shape[step];
  if (!expected) return `unknown step ${JSON.stringify(step ?? '')}`;
  if (rest.length !== expected.length) return `${step} takes ${expected.length} arguments, got ${rest.length}`;
  const bad = rest.findIndex((value, i) => !expected[i].test(value));
  return bad < 0 ? undefined : `argument ${bad + 1} of ${step} (${JSON.stringify(rest[bad].slice(0, 80))}) is invalid`;
}

/** Opens the image and checks the opened file itself: a regular file in `imageDir`, holding offset + length. */
async function openImage(path: string, imageDir: string, offset: number, length: number) {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (!handle) return 'the image cannot be opened (missing, or a symbolic link)';
  const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => '');
  const info = await handle.stat();
  const problem = !real.startsWith(`${imageDir}/`)
    ? `the image is not in ${imageDir}`
    : !info.isFile()
      ? 'the image is not a regular file'
      : offset + length > info.size
        ? 'offset and length reach past the end of the image'
        : undefined;
  if (!problem) return handle;
  await handle.close();
  return problem;
}

function runHook(
  hook: string,
  args: readonly string[],
  invocation: string | undefined,
  timeoutMs: number,
  imageFd?: number,
): Promise<HookResult> {
  return new Promise((resolve) => {
    const child = spawn(hook, args, {
      stdio: ['ignore', 'pipe', 'pipe', ...(imageFd === undefined ? [] : [imageFd])],
      env: { ...process.env, ...(invocation ? { INVOCATION_ID: invocation } : {}) },
      timeout: timeoutMs,
    });
    const out = { stdout: '', stderr: '' };
    const collect = (key: keyof typeof out) => (chunk: Buffer) => {
      if (out[key].length < MAX_OUTPUT_BYTES) out[key] += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
    child.on('error', (error) => resolve({ exit: 127, stdout: '', stderr: `${hook}: ${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ exit: code ?? 128, ...out, stderr: out.stderr + (signal ? `${hook} ended by ${signal}\n` : '') }),
    );
  });
}

async function removeStaleResults(results: string): Promise<void> {
  for (const name of await readdir(results).catch(() => [] as string[])) {
    const path = join(results, name);
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_RESULT_MS) await rm(path, { force: true });
  }
}
