/**
 * Codex rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) → question/answer
 * turns. Pure: text in, data out.
 *
 * The format as Codex writes it (0.125–0.128 in the fixtures): a `session_meta` line (id,
 * cwd, git), then per turn `event_msg` (`task_started` with the `turn_id`, `user_message`,
 * `agent_message`, `exec_command_end`, `patch_apply_end`, `task_complete` with the
 * `last_agent_message`), `turn_context`, and `response_item`s (the model's messages, tool
 * calls and their outputs). A prompt is written twice: as `event_msg.user_message` and as a
 * user `response_item`, next to the injected AGENTS.md / environment blocks that are also
 * user `response_item`s. So prompts come from `user_message` events; a rollout without any
 * (older versions) falls back to user `response_item`s minus the injected blocks.
 */
import { fileURLToPath } from 'node:url';
import { countUnknown, cutQuestion, noteGivenWhenAsked, DEFAULT_LIMITS, joinAnswer, MAX_TRANSCRIPT_LINE_CHARS, MAX_TURN_COMMANDS, shrinkJsonLine, wellFormed, type CaptureLimits, type ParsedTranscript, type ShellCommand, type Turn } from '../../capture/turn.js';
import { patchFiles } from '../../capture/patch-files.js';

interface Line {
  timestamp?: string;
  type?: string;
  /** 0.146+: the record's own position in the rollout. */
  ordinal?: number;
  payload?: Record<string, unknown> & { type?: string };
}

/**
 * Every record shape seen in rollouts (0.125–0.155), handled on purpose; the rest is counted.
 * Prompts come from `event_msg.user_message`, else (the desktop app, newer CLIs) from
 * `event_msg.item_completed` with a `UserMessage` item, else from user `response_item`s minus
 * injected blocks. Answers: assistant messages, `item_completed` `AgentMessage`, and
 * `task_complete`'s last message. Everything else is state, usage or tool traffic.
 */
const KNOWN_TOP = new Set(['session_meta', 'turn_context', 'event_msg', 'response_item', 'compacted', 'world_state', 'token_usage_record']);
const KNOWN_EVENTS = new Set([
  'task_started', 'task_complete', 'turn_aborted', 'user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break', 'token_count',
  'exec_command_begin', 'exec_command_end', 'exec_command_output_delta', 'patch_apply_begin', 'patch_apply_end', 'web_search_begin', 'web_search_end', 'mcp_tool_call_begin', 'mcp_tool_call_end',
  'item_started', 'item_completed', 'thread_settings_applied', 'entered_review_mode', 'exited_review_mode', 'guardian_assessment', 'thread_goal_updated', 'collab_agent_spawn_begin', 'collab_agent_spawn_end',
  'context_compacted', 'plan_update', 'turn_diff', 'background_event', 'stream_error', 'error', 'warning', 'view_image_tool_call', 'list_custom_prompts_response', 'session_configured', 'shutdown_complete',
  'undo_started', 'undo_completed', 'get_history_entry_response', 'mcp_list_tools_response', 'deprecation_notice', 'thread_name_updated', 'raw_response_item', 'image_generation_end',
]);
const KNOWN_ITEMS = new Set([
  'message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'web_search_call', 'tool_search_call', 'tool_search_call_output',
  'ghost_snapshot', 'image_generation_call', 'compaction', 'compaction_summary', 'other',
]);

/** Blocks Codex injects as user messages: never what the person typed. */
const INJECTED = [/^<environment_context>/, /^<user_instructions>/, /^# AGENTS\.md instructions/, /^<INSTRUCTIONS>/, /^<user_shell_command>/, /^<turn_aborted>/];
/** The desktop app puts the files a person attached before the request itself. */
const REQUEST_MARK = /^#+\s*My request for Codex:\s*$/m;

export function isInjected(text: string): boolean {
  const t = text.trimStart();
  return INJECTED.some((re) => re.test(t));
}

/** The person's words of a Codex prompt, or undefined for an injected block. */
export function codexPromptText(raw: string): string | undefined {
  let t = raw.trim();
  if (t.length === 0 || isInjected(t)) return undefined;
  const m = REQUEST_MARK.exec(t);
  if (m) t = t.slice(m.index + m[0].length).trim();
  return t.length > 0 ? t : undefined;
}

/** The text of a turn item's content: `[{type:"text"|"Text", text}]` (user input or agent message). */
function itemText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { type: string; text: string } => typeof b === 'object' && b !== null && /^text$/i.test(String((b as { type?: unknown }).type)) && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('\n\n');
}

/** A folder Codex names as a file: URL (0.17x), as a path; undefined when it is not one. */
function pathOfUrl(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function messageText(content: unknown, kind: 'input_text' | 'output_text'): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { type: string; text: string } => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === kind && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('\n\n');
}

/** The first line of a rollout says so: `{"type":"session_meta",…}`. */
export function looksLikeCodexRollout(firstLine: string): boolean {
  return /^\s*\{/.test(firstLine) && /"type"\s*:\s*"session_meta"/.test(firstLine.slice(0, 4096));
}

interface OpenTurn {
  key: string;
  timestamp: string;
  cwd?: string;
  question: string;
  /** Final answers of the turn and of the short follow-ups ("yes", "go on") that continue it. */
  answers: string[];
  /** The last assistant message so far, and whether Codex marked it the final answer. */
  last?: string;
  files: string[];
  tools: string[];
  commands: ShellCommand[];
}

export function parseCodexRollout(text: string, limits: CaptureLimits = DEFAULT_LIMITS, cleanText: (s: string) => string = (s) => s): ParsedTranscript {
  const clean = (s: string) => cleanText(wellFormed(s));
  const out: ParsedTranscript = { turns: [], badLines: 0, oversizeLines: 0, duplicates: 0 };
  const lines: Line[] = [];
  for (const whole of text.split('\n')) {
    let raw = whole;
    if (raw.length > MAX_TRANSCRIPT_LINE_CHARS) {
      out.oversizeLines++;
      raw = shrinkJsonLine(raw);
    }
    if (raw.trim().length === 0) continue;
    try {
      const v = JSON.parse(raw) as unknown;
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
      lines.push(v as Line);
    } catch {
      out.badLines++;
    }
  }
  const isItem = (l: Line, kind: string) => l.type === 'event_msg' && l.payload?.type === 'item_completed' && (l.payload.item as { type?: unknown } | undefined)?.type === kind;
  const fromEvents = lines.some((l) => l.type === 'event_msg' && l.payload?.type === 'user_message');
  // The desktop app (originator codex_work_desktop) and newer CLIs write no user_message
  // event: their prompts are UserMessage items, which Codex never makes of injected context.
  const fromItems = !fromEvents && lines.some((l) => isItem(l, 'UserMessage'));
  for (const l of lines) {
    const t = l.payload?.type;
    if (!l.type || !KNOWN_TOP.has(l.type)) countUnknown(out, l.type ?? '(no type)');
    else if (l.type === 'event_msg' && t && !KNOWN_EVENTS.has(t)) countUnknown(out, `event_msg/${t}`);
    else if (l.type === 'response_item' && t && !KNOWN_ITEMS.has(t)) countUnknown(out, `response_item/${t}`);
  }
  let gitBranch: string | undefined;
  let turnId: string | undefined;
  let turnUsed = false;
  let cwd: string | undefined;
  let ordinal = 0;
  let open: OpenTurn | undefined;

  const settle = (t: OpenTurn) => {
    if (t.last !== undefined) t.answers.push(t.last);
    t.last = undefined;
  };
  const close = () => {
    if (!open) return;
    settle(open);
    const answer = joinAnswer(open.answers.map(clean).filter((a) => a.length > 0), limits.maxAnswer);
    if (Array.from(answer).length >= limits.minAnswer) {
      const turn: Turn = {
        promptUuid: open.key,
        sessionId: out.sessionId ?? 'unknown',
        timestamp: open.timestamp,
        question: cutQuestion(clean(open.question), limits.maxQuestion),
        answer,
        files: open.files,
        tools: open.tools,
      };
      if (open.commands.length > 0) turn.commands = open.commands;
      if (open.cwd) turn.cwd = open.cwd;
      if (gitBranch) turn.gitBranch = gitBranch;
      out.turns.push(turn);
    }
    open = undefined;
  };
  const addFile = (f: string | undefined) => {
    if (open && f && f.length > 0 && !open.files.includes(f) && open.files.length < 100) open.files.push(f);
  };
  const addTool = (name: string | undefined) => {
    if (open && name && !open.tools.includes(name)) open.tools.push(name);
  };
  /** A shell command that ran (an exec_command_end event, a CommandExecution item): the files Codex read it as naming, and the command itself. */
  const ranCommand = (c: Record<string, unknown>) => {
    if (!open) return;
    const parsed = Array.isArray(c.parsed_cmd) ? (c.parsed_cmd as Array<{ path?: unknown }>) : [];
    for (const x of parsed) addFile(str(x?.path));
    // What Codex's own reading of a command leaves out (`git mv`, `sed -i`, a test run on a file): its words, looked at on capture.
    const command = Array.isArray(c.command) ? c.command.filter((w): w is string => typeof w === 'string') : str(c.command);
    const at = str(c.cwd);
    const dir = at?.startsWith('file://') ? pathOfUrl(at) : at;
    const ran: ShellCommand | undefined = command !== undefined && command.length > 0 ? { command, ...(dir ? { cwd: dir } : {}) } : undefined;
    if (ran && open.commands.length < MAX_TURN_COMMANDS && !open.commands.some((o) => JSON.stringify(o) === JSON.stringify(ran))) open.commands.push(ran);
  };

  for (const l of lines) {
    const p = l.payload ?? {};
    if (l.type === 'session_meta') {
      out.sessionId ??= str(p.id) ?? str(p.session_id);
      out.agentVersion ??= str(p.cli_version);
      cwd ??= str(p.cwd);
      out.cwd ??= cwd;
      const git = p.git as { branch?: unknown } | undefined;
      gitBranch ??= str(git?.branch);
      continue;
    }
    if (l.type === 'turn_context') {
      cwd = str(p.cwd) ?? cwd;
      if (str(p.turn_id) && str(p.turn_id) !== turnId) {
        turnId = str(p.turn_id);
        turnUsed = false;
      }
      continue;
    }
    let prompt: string | undefined;
    if (l.type === 'event_msg') {
      if (p.type === 'task_started') {
        turnId = str(p.turn_id);
        turnUsed = false;
      } else if (p.type === 'user_message' && fromEvents) {
        prompt = str(p.message);
      } else if (p.type === 'item_completed') {
        const item = (p.item ?? {}) as { type?: unknown; content?: unknown };
        if (item.type === 'UserMessage' && fromItems) {
          prompt = itemText(item.content);
          if (str(p.turn_id) && str(p.turn_id) !== turnId) {
            turnId = str(p.turn_id);
            turnUsed = false;
          }
        } else if (item.type === 'AgentMessage' && open) {
          const t = itemText(item.content).trim();
          if (t.length > 0) open.last = t;
        } else if (item.type === 'CommandExecution' && open) {
          // Codex 0.17x: a shell command as an item (its cwd a file: URL), no exec_command_end.
          ranCommand(p.item as Record<string, unknown>);
        }
      } else if (p.type === 'task_complete' && open) {
        const last = str(p.last_agent_message);
        if (last && last.trim().length > 0) open.last = last.trim();
        settle(open);
      } else if (p.type === 'patch_apply_end' && open) {
        const changes = p.changes;
        if (changes && typeof changes === 'object') for (const f of Object.keys(changes)) addFile(f);
      } else if (p.type === 'exec_command_end' && open) {
        ranCommand(p);
      }
    } else if (l.type === 'response_item') {
      if (p.type === 'message' && p.role === 'user' && !fromEvents && !fromItems) {
        prompt = messageText(p.content, 'input_text');
      } else if (p.type === 'message' && p.role === 'assistant' && open) {
        const t = messageText(p.content, 'output_text').trim();
        if (t.length > 0) open.last = t;
      } else if ((p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') && open) {
        addTool(str(p.name) ?? str(p.type));
        const input = str(p.input) ?? str(p.arguments) ?? '';
        if (str(p.name) === 'apply_patch' || input.includes('*** Begin Patch')) {
          for (const f of patchFiles(input.replaceAll('\\n', '\n'))) addFile(f.replace(/["\\]+$/, ''));
        }
      } else if (p.type === 'web_search_call' && open) {
        addTool('web_search');
      }
    }
    if (prompt === undefined) continue;
    const q = codexPromptText(prompt);
    if (q === undefined) continue;
    // A value typed because the answer so far asked for a secret ("What's the sudo password?" → "hunter22").
    if (open) noteGivenWhenAsked(out, open.last ?? open.answers.at(-1), q);
    if (Array.from(q).length < limits.minQuestion) {
      // "yes", "go on": the open turn continues; its earlier answer is kept.
      if (open) settle(open);
      continue;
    }
    close();
    ordinal++;
    // The turn's id when Codex wrote one (0.12x), else the rollout's own ordinal of the
    // prompt's record (0.146+), else the prompt's ordinal in the session.
    const key = turnId && !turnUsed ? turnId : `${out.sessionId ?? 'unknown'}#${typeof l.ordinal === 'number' ? l.ordinal : ordinal}`;
    turnUsed = true;
    const ts = l.timestamp && !Number.isNaN(Date.parse(l.timestamp)) ? l.timestamp : '';
    open = { key, timestamp: ts, question: q, answers: [], files: [], tools: [], commands: [], ...(cwd ? { cwd } : {}) };
  }
  close();
  return out;
}
