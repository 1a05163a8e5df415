/**
 * Claude Code transcript (JSONL) → question/answer turns. Pure: text in,
 * data out; reading files and deciding what is new happens elsewhere.
 *
 * The real format, not an idealised one: one assistant reply is spread over several lines
 * sharing `message.id`; tool results come back as `user` entries; slash commands, hook
 * output and interruptions are `user` entries too; resumed sessions copy earlier entries.
 */
import { countUnknown, cutQuestion, noteGivenWhenAsked, DEFAULT_LIMITS, joinAnswer, MAX_TRANSCRIPT_LINE_CHARS, shrinkJsonLine, wellFormed, MAX_TURN_COMMANDS, type CaptureLimits, type ParsedTranscript, type ShellCommand, type Turn } from '../../capture/turn.js';

type Block = { type?: string; text?: string; name?: string; input?: Record<string, unknown> };

interface Entry {
  type?: string;
  subtype?: string;
  version?: string;
  uuid?: string;
  /** 2.1.123+: a forked session's copy of another session's entry. */
  forkedFrom?: { sessionId?: string; messageUuid?: string };
  /** The reply to a failed API call (a 401, an overload): text Claude Code wrote, not the model. */
  isApiErrorMessage?: boolean;
  attachment?: { type?: string };
  sessionId?: string;
  timestamp?: string;
  cwd?: string;
  gitBranch?: string;
  isMeta?: boolean;
  isSidechain?: boolean;
  isCompactSummary?: boolean;
  message?: { id?: string; role?: string; model?: string; content?: string | Block[] };
}

/**
 * Every entry shape seen in real transcripts (2.0.76–2.1.332), handled on purpose: user and
 * assistant carry the conversation; everything else is ignored by design — harness state
 * (`progress`, `file-history-snapshot`, `queue-operation`, `permission-mode`, `mode`,
 * `atis-latch`, `cost-state`), the requests Claude Code records of its own calls to the model
 * (`api-request`, `api-request-shape`, `api-request-blob`: the system prompt and reminders it
 * sent, never what the person typed — 2.1.332 writes them on every turn), resume and title
 * metadata (`summary`, `last-prompt` and its `leafUuid`, `custom-title`, `ai-title`, `pr-link`),
 * and context the harness injects (`attachment`). `system` entries never reach the model as a
 * request: `local_command` is a built-in command such as /mcp or /model. Anything else is
 * counted, never fatal (test/capture/formats.test.ts reads a real 2.1.332 session: nothing unknown).
 */
const KNOWN_TYPES = new Set([
  'user', 'assistant', 'system', 'summary', 'progress', 'file-history-snapshot', 'queue-operation', 'attachment', 'permission-mode', 'last-prompt', 'pr-link', 'custom-title', 'ai-title', 'tag', 'agent-name',
  'mode', 'atis-latch', 'cost-state', 'api-request', 'api-request-shape', 'api-request-blob',
]);
const KNOWN_SYSTEM = new Set(['local_command', 'turn_duration', 'stop_hook_summary', 'compact_boundary', 'microcompact_boundary', 'api_error', 'informational', 'away_summary']);
const KNOWN_ATTACHMENTS = new Set([
  'task_reminder', 'plan_mode_exit', 'plan_mode', 'deferred_tools_delta', 'skill_listing', 'mcp_instructions_delta', 'hook_success', 'hook_additional_context', 'hook_system_message',
  'hook_non_blocking_error', 'hook_blocking_error', 'todo_reminder', 'critical_system_reminder', 'edited_text_file', 'new_file', 'file', 'directory', 'selected_lines_in_ide', 'opened_file_in_ide', 'queued_command', 'date_change', 'nested_memory', 'invoked_skills',
  // 2.1.332: the session's setting as the harness describes it to the model.
  'prompt_snapshot', 'environment', 'model', 'agent_listing_delta', 'session_context', 'date', 'remote_session_change',
]);

/** Claude Code's own text in an assistant entry: an API error shown as a reply, "No response requested." after an interrupt. */
function isSynthetic(e: Entry): boolean {
  return e.isApiErrorMessage === true || e.message?.model === '<synthetic>';
}

function noteShape(out: ParsedTranscript, e: Entry): void {
  if (!e.type || !KNOWN_TYPES.has(e.type)) countUnknown(out, e.type ?? '(no type)');
  else if (e.type === 'system' && e.subtype && !KNOWN_SYSTEM.has(e.subtype)) countUnknown(out, `system/${e.subtype}`);
  else if (e.type === 'attachment' && e.attachment?.type && !KNOWN_ATTACHMENTS.has(e.attachment.type)) countUnknown(out, `attachment/${e.attachment.type}`);
}

const WRAPPER_TAGS = ['command-name', 'command-message', 'command-args', 'local-command-stdout', 'local-command-stderr', 'local-command-caveat', 'system-reminder'];
const WRAPPER_RE = new RegExp(`<(${WRAPPER_TAGS.join('|')})>[\\s\\S]*?</\\1>`, 'g');
const SYSTEM_REMINDER_RE = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const SLASH_COMMAND_RE = /<command-name>([^<]*)<\/command-name>/;
const COMMAND_ARGS_RE = /<command-args>([\s\S]*?)<\/command-args>/;
const FILE_KEYS = ['file_path', 'path', 'notebook_path', 'filePath'];

function userText(content: string | Block[] | undefined): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  if (content.some((b) => b?.type === 'tool_result')) return undefined; // a tool result carrier
  const texts = content.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

/** The prompt a person typed, or undefined for everything that only looks like one. */
export function promptText(e: Entry): string | undefined {
  if (e.type !== 'user' || e.isMeta || e.isCompactSummary || e.isSidechain) return undefined;
  const raw = userText(e.message?.content);
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (trimmed.startsWith('[Request interrupted by user')) return undefined;
  if (trimmed.startsWith('<task-notification>')) return undefined;
  // A slash command typed with arguments is a request: "/review check the auth middleware".
  const command = SLASH_COMMAND_RE.exec(trimmed);
  if (command) {
    const args = (COMMAND_ARGS_RE.exec(trimmed)?.[1] ?? '').trim();
    if (args.length > 0) return `${(command[1] ?? '').trim()} ${args}`.replace(SYSTEM_REMINDER_RE, '').trim();
  }
  if (trimmed.replace(WRAPPER_RE, '').trim().length === 0) return undefined;
  // Reminders the harness injects into a real prompt are not the person's words.
  return trimmed.replace(SYSTEM_REMINDER_RE, '').trim();
}

interface OpenTurn {
  prompt: Entry & { uuid: string };
  question: string;
  blocks: string[];
  files: string[];
  tools: string[];
  commands: ShellCommand[];
}

/**
 * `clean` (privacy: `<private>` spans and secrets) runs on the whole prompt and on each
 * answer block before anything is cut, so a secret at the limit cannot leave a prefix.
 */
export function parseTranscript(text: string, limits: CaptureLimits = DEFAULT_LIMITS, cleanText: (s: string) => string = (s) => s): ParsedTranscript {
  // Text compared with what was stored before must be exactly as it will be stored: a lone
  // surrogate becomes U+FFFD in SQLite, so it does here too (else the turn is "updated"
  // on every Stop).
  const clean = (s: string) => cleanText(wellFormed(s));
  const out: ParsedTranscript = { turns: [], badLines: 0, oversizeLines: 0, duplicates: 0 };
  const seen = new Set<string>();
  let open: OpenTurn | undefined;

  const close = () => {
    if (!open) return;
    const answer = joinAnswer(open.blocks.map(clean).filter((b) => b.length > 0), limits.maxAnswer);
    if (Array.from(answer).length >= limits.minAnswer) {
      const p = open.prompt;
      const turn: Turn = {
        promptUuid: p.uuid,
        sessionId: p.sessionId ?? out.sessionId ?? 'unknown',
        // A prompt without a usable time (never seen in real transcripts) is dated when captured.
        timestamp: p.timestamp && !Number.isNaN(Date.parse(p.timestamp)) ? p.timestamp : '',
        question: cutQuestion(clean(open.question), limits.maxQuestion),
        answer,
        files: open.files,
        tools: open.tools,
      };
      if (open.commands.length > 0) turn.commands = open.commands;
      if (p.cwd) turn.cwd = p.cwd;
      if (p.gitBranch) turn.gitBranch = p.gitBranch;
      out.turns.push(turn);
    }
    open = undefined;
  };

  for (const whole of text.split('\n')) {
    let line = whole;
    if (line.length > MAX_TRANSCRIPT_LINE_CHARS) {
      out.oversizeLines++;
      line = shrinkJsonLine(line);
    }
    if (line.trim().length === 0) continue;
    let e: Entry;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      e = parsed as Entry;
    } catch {
      out.badLines++;
      continue;
    }
    noteShape(out, e);
    if (typeof e.version === 'string') out.agentVersion = e.version;
    if (e.type !== 'user' && e.type !== 'assistant') continue;
    if (e.uuid) {
      if (seen.has(e.uuid)) {
        out.duplicates++;
        continue;
      }
      seen.add(e.uuid);
    }
    if (e.isSidechain) continue; // subagent traffic is not the person's conversation
    out.sessionId ??= e.sessionId;
    out.cwd ??= e.cwd;

    if (e.type === 'user') {
      const q = promptText(e);
      if (q === undefined) continue;
      // A value typed because the answer so far asked for a secret ("What's the sudo password?" → "hunter22").
      if (open) noteGivenWhenAsked(out, open.blocks.at(-1), q);
      if (Array.from(q).length < limits.minQuestion) {
        // "continue", "yes", "go on": the previous turn goes on and its answer keeps growing.
        continue;
      }
      close();
      if (!e.uuid) continue;
      // A fork's copy of an earlier prompt is that prompt: its memory is the one it came from.
      const uuid = e.forkedFrom?.messageUuid ?? e.uuid;
      open = { prompt: { ...e, uuid } as Entry & { uuid: string }, question: q, blocks: [], files: [], tools: [], commands: [] };
      continue;
    }

    if (!open) continue;
    // Text Claude Code wrote itself is never an answer: a request whose only reply is an API
    // error keeps no memory (it is usually sent again), an interrupted one keeps its real text.
    if (isSynthetic(e)) continue;
    const content = e.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim().length > 0) {
        open.blocks.push(b.text.trim());
      } else if (b?.type === 'tool_use') {
        if (b.name && !open.tools.includes(b.name)) open.tools.push(b.name);
        // A Bash command names files too (`sed -n 1,80p src/x.ts`, `git mv`): which, is seen at capture, where they are.
        const command = b.name === 'Bash' ? b.input?.command : undefined;
        if (typeof command === 'string' && command.length > 0 && open.commands.length < MAX_TURN_COMMANDS) open.commands.push({ command, ...(e.cwd ? { cwd: e.cwd } : {}) });
        for (const k of FILE_KEYS) {
          const v = b.input?.[k];
          if (typeof v === 'string' && v.length > 0 && !open.files.includes(v) && open.files.length < 100) open.files.push(v);
        }
      }
    }
  }
  close();
  return out;
}
