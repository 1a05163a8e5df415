/** Build synthetic Claude Code transcripts in the real format (for unit, golden and hook tests). */
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`;

export interface T {
  lines: string[];
  session: string;
  cwd: string;
  clock: number;
}

export function transcript(session = 'sess-1', cwd = '/home/u/app'): T {
  return { lines: [], session, cwd, clock: Date.parse('2026-03-25T14:00:00.000Z') };
}

function base(t: T, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  t.clock += 1000;
  return {
    parentUuid: null, isSidechain: false, userType: 'external', cwd: t.cwd, sessionId: t.session, version: '2.1.38',
    gitBranch: 'main', type, uuid: uuid(), timestamp: new Date(t.clock).toISOString(), ...extra,
  };
}

export function user(t: T, content: unknown, extra: Record<string, unknown> = {}): string {
  const e = base(t, 'user', { message: { role: 'user', content }, ...extra });
  t.lines.push(JSON.stringify(e));
  return e.uuid as string;
}

/** One assistant reply written as several lines sharing message.id, as Claude Code does. */
export function assistant(t: T, blocks: Array<{ text?: string; thinking?: string; tool?: string; input?: Record<string, unknown> }>, extra: Record<string, unknown> = {}): void {
  const id = `msg_${(++n).toString(36)}`;
  for (const b of blocks) {
    const content = b.text !== undefined
      ? [{ type: 'text', text: b.text }]
      : b.thinking !== undefined
        ? [{ type: 'thinking', thinking: b.thinking, signature: 'sig' }]
        : [{ type: 'tool_use', id: `toolu_${++n}`, name: b.tool, input: b.input ?? {} }];
    t.lines.push(JSON.stringify(base(t, 'assistant', { message: { model: 'claude-x', id, type: 'message', role: 'assistant', content }, ...extra })));
  }
}

export function toolResult(t: T, text = 'ok'): void {
  user(t, [{ tool_use_id: `toolu_${n}`, type: 'tool_result', content: text, is_error: false }]);
}

export function raw(t: T, obj: unknown): void {
  t.lines.push(typeof obj === 'string' ? obj : JSON.stringify(obj));
}

export function text(t: T): string {
  return `${t.lines.join('\n')}\n`;
}
