/**
 * What the agent read of the memory itself: a search or a show it ran (the skill's `memory search`
 * in its shell, the MCP tools memory_search and memory_show) put those memories in its context as
 * surely as an injection does. The tool hook reads their ids from the tool's result, and the
 * session's record (given.ts) counts them as given: per-prompt recall and recall by file do not
 * bring them again. Pure: no file, no clock.
 */
import { SHELL_TOOLS } from '../../capture/command-files.js';
import type { HookInput } from '../input.js';

/**
 * The MCP tools that show memories. Both clients name a server's tool `mcp__<server>__<tool>`;
 * Claude Code prefixes a plugin's server, and Codex writes the server's `-` as `_`
 * (`mcp__memory_engine__memory_search`).
 */
const MEMORY_TOOLS = /^mcp__.*memory[-_]engine__memory_(?:search|show)$/;
/** A shell command that runs our search or show: `memory search …`, `memory show <id>`, also after `cd x &&` or a path. */
const MEMORY_COMMAND = /(?:^|[\s;&|(/])memory\s+(?:search|show)\b/;

/** Where a result names a memory: JSON (`"id": "…"`), a search hit's head (`, id …)`), show's line (`id       …`). */
const ID_PATTERNS = [/"id"\s*:\s*"([^"\s]{1,200})"/g, /, id ([^\s)]{1,200})\)/g, /^id {2,}(\S{1,200})$/gm];

/** The ids of the memories a memory search or show the agent ran gave it; none for any other tool. */
export function searchedIds(input: HookInput): string[] {
  const name = input.tool_name ?? '';
  const t = input.tool_input ?? {};
  const command = t.command ?? t.cmd;
  const shellRun = SHELL_TOOLS.test(name) && (Array.isArray(command) ? command.join(' ') : String(command ?? '')).match(MEMORY_COMMAND) !== null;
  if (!MEMORY_TOOLS.test(name) && !shellRun) return [];
  const ids = new Set<string>();
  for (const text of strings(input.tool_response)) {
    for (const re of ID_PATTERNS) for (const m of text.matchAll(re)) ids.add(m[1] as string);
  }
  return [...ids];
}

/** Every string in a tool's result (a text, Claude Code's `{stdout, …}`, MCP's content blocks), at most 64 of them. */
function strings(value: unknown, out: string[] = [], depth = 0): string[] {
  if (out.length >= 64 || depth > 6) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out, depth + 1);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) strings(v, out, depth + 1);
  return out;
}
