import { closeSync, constants, fstatSync, openSync, read, readFileSync, readSync, writeSync } from 'node:fs';

/** The JSON Claude Code and Codex write to a hook's stdin. Every field optional; bad input is a value, not a throw. */
export interface HookInput {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  source?: string;
  stop_hook_active?: boolean;
  /** UserPromptSubmit: what the person just typed. */
  prompt?: string;
  /** PreToolUse/PostToolUse: the tool (Read, Edit, apply_patch, …) and its input. */
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  /** PostToolUse: what the tool gave back (Claude Code: `{stdout, …}` for Bash, content blocks for an MCP tool), as sent. */
  tool_response?: unknown;
}

export function parseHookInput(text: string): { input: HookInput; problem?: string } {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { input: {} };
  let obj: unknown;
  try {
    obj = JSON.parse(trimmed);
  } catch {
    return { input: {}, problem: 'hook input on stdin is not JSON (ignored)' };
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return { input: {}, problem: 'hook input on stdin is not a JSON object (ignored)' };
  const o = obj as Record<string, unknown>;
  const input: HookInput = {};
  for (const k of ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'source', 'prompt'] as const) {
    if (typeof o[k] === 'string' && (o[k] as string).length > 0) input[k] = o[k] as string;
  }
  if (typeof o.stop_hook_active === 'boolean') input.stop_hook_active = o.stop_hook_active;
  if (typeof o.tool_name === 'string' && o.tool_name.length > 0) input.tool_name = o.tool_name;
  if (typeof o.tool_input === 'object' && o.tool_input !== null && !Array.isArray(o.tool_input)) input.tool_input = o.tool_input as Record<string, unknown>;
  if (o.tool_response !== undefined && o.tool_response !== null) input.tool_response = o.tool_response;
  return { input };
}

/**
 * Hook input the cheap way, sparing the milliseconds of setting up a stream: a file is read at
 * once; a pipe (how Codex runs hooks: it writes the JSON and closes) gives what it holds without
 * waiting, which is the whole input once its end is reached or it is one whole JSON object; a
 * socket (how Claude Code and Node run them) is read in Node's thread pool, under the same limits
 * as the stream. A terminal gives nothing; anything else, and the rest of a pipe still being
 * written, goes through `readStdin` (bounded).
 */
export async function readHookStdin(io: { stdin: NodeJS.ReadableStream & { isTTY?: boolean }; stdinFd?: number }): Promise<string> {
  let head: Buffer | undefined;
  if (io.stdinFd !== undefined) {
    try {
      const st = fstatSync(io.stdinFd);
      // A file is read at once. A pipe is not: an agent that keeps its end open would make a
      // blocking read wait for ever; the stream below gives up after a second of silence.
      if (st.isFile()) return readFileSync(io.stdinFd, 'utf8');
      if (st.isFIFO()) {
        const now = pipeNow(io.stdinFd);
        const text = now?.bytes.toString('utf8');
        if (text !== undefined && (now?.ended || isWholeJson(text))) return text;
        head = now?.bytes;
      } else if (st.isSocket() && process.platform === 'linux' && typeof process.execve === 'function') {
        const got = await socketRead(io.stdinFd, 1000, 10_000);
        if (got.done) return got.bytes.toString('utf8');
        head = got.bytes;
      }
    } catch {
      /* fall through to the stream */
    }
  }
  return readStdin(io.stdin, 1000, 10_000, head);
}

/**
 * Set (on the process, so that every copy of this module sees it) while a read of stdin waits in
 * Node's thread pool after `socketRead` gave up on it: an agent that keeps its end open and says
 * nothing. Such a read holds the process open even through process.exit, so the hook's entry
 * point ends the process another way (main.ts, `endsHook`).
 */
const STDIN_WAITS = Symbol.for('memory-engine.stdin-read-waits');

/**
 * A socket's bytes, read without making a stream (~4–9 ms of a hook that Claude Code starts,
 * bench/RESULTS.md): reads in the thread pool until the end, one whole JSON object, `timeoutMs`
 * without a byte or `maxMs` in all. `done` false when the socket does not wait for data (a
 * non-blocking one, empty for now): the stream reads the rest.
 */
function socketRead(fd: number, timeoutMs: number, maxMs: number): Promise<{ bytes: Buffer; done: boolean }> {
  const flags = globalThis as Record<symbol, unknown>;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (done: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(silence);
      clearTimeout(cap);
      resolve({ bytes: Buffer.concat(chunks), done });
    };
    let silence = setTimeout(() => settle(true), timeoutMs);
    const cap = setTimeout(() => settle(true), maxMs);
    const next = () => {
      const buf = Buffer.allocUnsafe(64 * 1024);
      flags[STDIN_WAITS] = true;
      read(fd, buf, 0, buf.length, null, (err, n) => {
        flags[STDIN_WAITS] = false;
        if (settled) return;
        // EAGAIN: a non-blocking socket, empty for now; any other error: the stream tries.
        if (err) return settle(false);
        if (n === 0) return settle(true);
        chunks.push(buf.subarray(0, n));
        if (buf[n - 1] === 0x7d || buf[n - 1] === 0x0a) {
          if (isWholeJson(Buffer.concat(chunks).toString('utf8'))) return settle(true);
        }
        clearTimeout(silence);
        silence = setTimeout(() => settle(true), timeoutMs);
        next();
      });
    };
    next();
  });
}

/** One JSON object, complete: what both agents write to a hook, all at once. */
function isWholeJson(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a pipe holds now, read without waiting: on Linux the pipe is opened again, non-blocking,
 * through /proc/self/fd, so a read that would wait returns at once instead. The whole input when
 * the agent has written it and closed its end, without the ~4 ms of setting up a stream
 * (bench/RESULTS.md); `ended` false when the end is not reached yet (the agent still writing,
 * or keeping its end open): the stream reads the rest. Undefined where this cannot be done.
 */
function pipeNow(fd: number): { bytes: Buffer; ended: boolean } | undefined {
  if (process.platform !== 'linux') return undefined;
  let own: number;
  try {
    own = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  const chunks: Buffer[] = [];
  let ended = false;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(own, buf, 0, buf.length, null);
      if (n === 0) {
        ended = true;
        break;
      }
      chunks.push(buf.subarray(0, n));
    }
  } catch {
    /* EAGAIN: nothing more yet */
  } finally {
    closeSync(own);
  }
  return { bytes: Buffer.concat(chunks), ended };
}

/**
 * Read all of stdin, but never wait long: a hook must not hang on a pipe left open. It stops
 * at the end of input, after `timeoutMs` without a byte, or after `maxMs` in all. `head`: bytes
 * already read from it.
 */
export async function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }, timeoutMs = 1000, maxMs = 10_000, head?: Buffer): Promise<string> {
  if (stdin.isTTY) return '';
  return new Promise((resolve) => {
    const chunks: Buffer[] = head ? [head] : [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(cap);
      stdin.removeAllListeners('data');
      resolve(Buffer.concat(chunks).toString('utf8'));
      if ('destroy' in stdin && typeof stdin.destroy === 'function') (stdin as NodeJS.ReadStream).destroy();
    };
    let timer = setTimeout(finish, timeoutMs);
    const cap = setTimeout(finish, maxMs);
    stdin.on('data', (c: Buffer | string) => {
      chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
      clearTimeout(timer);
      timer = setTimeout(finish, timeoutMs);
    });
    stdin.on('end', finish);
    stdin.on('error', finish);
  });
}

/**
 * A hook's output, one line of JSON: written to this process's own stdout (fd 1) at once, which
 * spares the ~3 ms of making process.stdout's stream (bench/RESULTS.md); through the stream when
 * stdout is not the process's own, or for what a full non-blocking pipe does not take now. A
 * reader gone (EPIPE) is no error: the hook still exits 0.
 */
export function writeHookOutput(io: { stdout: NodeJS.WritableStream; stdoutFd?: number }, text: string): void {
  if (io.stdoutFd === undefined) {
    io.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(io.stdoutFd, bytes, done, bytes.length - done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
    io.stdout.write(bytes.subarray(done));
  }
}
