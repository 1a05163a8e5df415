/** Build synthetic Codex rollouts in the real format (0.12x): session_meta, event_msg, turn_context, response_item. */
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
