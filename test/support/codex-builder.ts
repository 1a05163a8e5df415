/** Build synthetic Codex rollouts in the real format (0.12x): session_meta, event_msg, turn_context, response_item. */
import { pathToFileURL } from 'node:url';

export interface Rollout {
  lines: string[];
  id: string;
  cwd: string;
  clock: number;
  turn?: string;
}

let n = 0;
const uid = () => `019e0000-0000-7000-8000-${(++n).toString(16).padStart(12, '0')}`;

function line(r: Rollout, type: string, payload: Record<string, unknown>): void {
  r.clock += 1000;
  r.lines.push(JSON.stringify({ timestamp: new Date(r.clock).toISOString(), type, payload }));
}

export function rollout(id = uid(), cwd = '/home/u/app', opts: { branch?: string } = {}): Rollout {
  const r: Rollout = { lines: [], id, cwd, clock: Date.parse('2026-05-11T08:00:00.000Z') };
  line(r, 'session_meta', {
    id, timestamp: new Date(r.clock).toISOString(), cwd, originator: 'codex_cli_rs', cli_version: '0.125.0', source: 'cli',
    base_instructions: { text: 'You are Codex, a coding agent.' }, ...(opts.branch ? { git: { branch: opts.branch, commit_hash: 'abc' } } : {}),
  });
  return r;
}

/** A turn as Codex 0.12x writes it: task_started, the injected blocks, the prompt twice, then the work. */
export function turn(r: Rollout, prompt: string, work: (r: Rollout) => void, final?: string, opts: { injected?: boolean; complete?: boolean } = {}): string {
  const turnId = uid();
  r.turn = turnId;
  line(r, 'event_msg', { type: 'task_started', turn_id: turnId, model_context_window: 258400 });
  if (opts.injected !== false) {
    line(r, 'response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>sandbox</permissions instructions>' }] });
    line(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `# AGENTS.md instructions for ${r.cwd}\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>` }] });
    line(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${r.cwd}</cwd>\n</environment_context>` }] });
  }
  line(r, 'turn_context', { turn_id: turnId, cwd: r.cwd, approval_policy: 'on-request' });
  line(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
  line(r, 'event_msg', { type: 'user_message', message: prompt, images: [] });
  work(r);
  if (final !== undefined) {
    line(r, 'event_msg', { type: 'agent_message', message: final, phase: 'final_answer' });
    line(r, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: final }], phase: 'final_answer' });
  }
  if (opts.complete !== false) line(r, 'event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: final ?? null });
  return turnId;
}

export function commentary(r: Rollout, text: string): void {
  line(r, 'event_msg', { type: 'agent_message', message: text, phase: 'commentary' });
  line(r, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase: 'commentary' });
}

export function shell(r: Rollout, cmd: string, readPath?: string): void {
  const call = `call_${++n}`;
  line(r, 'response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: call });
  line(r, 'response_item', { type: 'function_call_output', call_id: call, output: 'ok' });
  line(r, 'event_msg', { type: 'exec_command_end', call_id: call, turn_id: r.turn, command: ['/bin/sh', '-lc', cmd], parsed_cmd: readPath ? [{ type: 'read', cmd, name: readPath, path: readPath }] : [{ type: 'unknown', cmd }], exit_code: 0 });
}

export function patch(r: Rollout, file: string): void {
  const call = `call_${++n}`;
  line(r, 'response_item', { type: 'custom_tool_call', status: 'completed', call_id: call, name: 'apply_patch', input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` });
  line(r, 'event_msg', { type: 'patch_apply_end', call_id: call, turn_id: r.turn, success: true, changes: { [`${r.cwd}/${file}`]: { type: 'update' } } });
}

/** An older rollout: no user_message events, prompts only as user response_items. */
export function legacyTurn(r: Rollout, prompt: string, final: string): void {
  line(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${r.cwd}</cwd>\n</environment_context>` }] });
  line(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
  line(r, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: final }] });
}

export function text(r: Rollout): string {
  return `${r.lines.join('\n')}\n`;
}

/**
 * A rollout as the desktop app (originator codex_work_desktop) and 0.146+ CLIs write it: a
 * `world_state` record, `session_id` in session_meta, a top-level `ordinal` on every record,
 * prompts only as a user message item and an `item_completed` UserMessage (no
 * `event_msg.user_message`), answers as `item_completed` AgentMessage, usage records.
 */
export function desktopRollout(id = uid(), cwd = '/home/u/app'): Rollout {
  const r: Rollout = { lines: [], id, cwd, clock: Date.parse('2026-11-02T08:00:00.000Z') };
  r.lines.push(JSON.stringify({ timestamp: new Date(r.clock).toISOString(), type: 'world_state', ordinal: 0, payload: { cwd, git: { branch: 'main' } } }));
  ordinalLine(r, 'session_meta', {
    session_id: id, timestamp: new Date(r.clock).toISOString(), cwd, originator: 'codex_work_desktop', cli_version: '0.152.0', source: 'vscode',
    thread_source: 'user', history_mode: 'full',
  });
  return r;
}

function ordinalLine(r: Rollout, type: string, payload: Record<string, unknown>): void {
  r.clock += 1000;
  r.lines.push(JSON.stringify({ timestamp: new Date(r.clock).toISOString(), type, ordinal: r.lines.length, payload }));
}

export function desktopTurn(r: Rollout, prompt: string, final: string, opts: { turnId?: boolean; commentary?: string; command?: { cmd: string; read?: string } } = {}): string | undefined {
  const turnId = opts.turnId === false ? undefined : uid();
  ordinalLine(r, 'event_msg', { type: 'task_started', ...(turnId ? { turn_id: turnId } : {}), model_context_window: 258400 });
  ordinalLine(r, 'event_msg', { type: 'thread_settings_applied', model: 'gpt-x', approval_policy: 'on-request' });
  ordinalLine(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `# AGENTS.md instructions for ${r.cwd}\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>` }] });
  ordinalLine(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${r.cwd}</cwd>\n</environment_context>` }] });
  // Context the app injects as a user message in a form no older rollout had: only the
  // UserMessage items say which user message a person wrote.
  ordinalLine(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<app_context>\n  <surface>desktop</surface>\n  <open_files>src/app.ts</open_files>\n</app_context>' }] });
  const preamble = `# Context from my IDE setup:\n\n## Open tabs:\n- src/app.ts\n\n## My request for Codex:\n${prompt}`;
  ordinalLine(r, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: preamble }] });
  ordinalLine(r, 'event_msg', { type: 'item_completed', thread_id: r.id, ...(turnId ? { turn_id: turnId } : {}), item: { type: 'UserMessage', id: uid(), content: [{ type: 'text', text: preamble }] } });
  ordinalLine(r, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }] });
  ordinalLine(r, 'event_msg', { type: 'item_completed', thread_id: r.id, ...(turnId ? { turn_id: turnId } : {}), item: { type: 'Reasoning', id: uid(), summary_text: ['thinking'] } });
  if (opts.commentary) ordinalLine(r, 'event_msg', { type: 'item_completed', thread_id: r.id, item: { type: 'AgentMessage', id: uid(), content: [{ type: 'Text', text: opts.commentary }], phase: 'commentary' } });
  // A shell command as Codex 0.171 writes it: an item, its cwd a file: URL, no exec_command_end.
  if (opts.command) {
    const { cmd, read } = opts.command;
    ordinalLine(r, 'event_msg', { type: 'item_completed', thread_id: r.id, ...(turnId ? { turn_id: turnId } : {}), item: { type: 'CommandExecution', id: uid(), process_id: '4242', command: ['/bin/bash', '-lc', cmd], cwd: pathToFileURL(r.cwd).href, parsed_cmd: read ? [{ type: 'read', cmd, name: read, path: read }] : [{ type: 'unknown', cmd }], source: 'unified_exec_startup' } });
  }
  ordinalLine(r, 'response_item', { type: 'tool_search_call', id: uid(), query: 'files' });
  ordinalLine(r, 'response_item', { type: 'ghost_snapshot', ghost_commit: { id: 'abc' } });
  ordinalLine(r, 'event_msg', { type: 'item_completed', thread_id: r.id, ...(turnId ? { turn_id: turnId } : {}), item: { type: 'AgentMessage', id: uid(), content: [{ type: 'Text', text: final }], phase: 'final_answer' } });
  ordinalLine(r, 'event_msg', { type: 'task_complete', ...(turnId ? { turn_id: turnId } : {}), last_agent_message: final });
  ordinalLine(r, 'token_usage_record', { input_tokens: 10, output_tokens: 5 });
  return turnId;
}

/** Any record, at the next ordinal. */
export function record(r: Rollout, type: string, payload: Record<string, unknown>): void {
  ordinalLine(r, type, payload);
}
