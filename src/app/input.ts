import { fstatSync, readFileSync } from 'node:fs';

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
  return { input };
}

/**
 * Hook input the cheap way: when stdin is a pipe or a file (how agents run hooks: they write
 * the JSON and close), one synchronous read, which spares the ~15 ms of setting up a
 * stream. A terminal gives nothing; anything else goes through `readStdin` (bounded).
 */
export async function readHookStdin(io: { stdin: NodeJS.ReadableStream & { isTTY?: boolean }; stdinFd?: number }): Promise<string> {
  if (io.stdinFd !== undefined) {
    try {
      const st = fstatSync(io.stdinFd);
      // A file is read at once. A pipe is not: an agent that keeps its end open would make a
      // blocking read wait for ever; the stream below gives up after a second of silence.
      if (st.isFile()) return readFileSync(io.stdinFd, 'utf8');
    } catch {
      /* fall through to the stream */
    }
  }
  return readStdin(io.stdin);
}

/**
 * Read all of stdin, but never wait long: a hook must not hang on a pipe left open. It stops
 * at the end of input, after `timeoutMs` without a byte, or after `maxMs` in all.
 */
export async function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }, timeoutMs = 1000, maxMs = 10_000): Promise<string> {
  if (stdin.isTTY) return '';
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
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
