/**
 * What every agent's transcript becomes: question/answer turns, cut to the capture limits,
 * and memory records with deterministic ids. Pure. The agents' own formats are parsed in
 * src/agents/<agent>/.
 */
import { createHash } from 'node:crypto';
import { givenWhenAsked } from '../privacy/asked.js';
import type { MemoryRecord } from '../types.js';

export interface CaptureLimits {
  minQuestion: number;
  maxQuestion: number;
  minAnswer: number;
  maxAnswer: number;
}

export const DEFAULT_LIMITS: CaptureLimits = { minQuestion: 10, maxQuestion: 2000, minAnswer: 10, maxAnswer: 4000 };

/** Transcript lines longer than this are parsed with their long strings cut (shrinkJsonLine), and counted. */
export const MAX_TRANSCRIPT_LINE_CHARS = 4 * 1024 * 1024;

/** How much of one string value of such a line is kept: far above what a memory keeps (2,000 / 4,000 characters). */
const KEPT_STRING_CHARS = 64 * 1024;

/**
 * A transcript line too long to parse whole (a 10 MB answer, a 5 MB pasted prompt, a huge
 * tool output), as the same JSON with every string value (not key) cut to `maxChars`, escapes kept whole:
 * its turn is kept, cut with the visible mark like any long text, never dropped or merged into
 * another turn. One pass; parsing 100 MB of JSON on every Stop would cost seconds and gigabytes.
 * A line that is not JSON stays not JSON.
 */
export function shrinkJsonLine(line: string, maxChars: number = KEPT_STRING_CHARS): string {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  let nextEsc = line.indexOf('\\');
  for (;;) {
    const open = line.indexOf('"', i);
    if (open === -1) break;
    let cut = open + 1 + maxChars;
    let j = open + 1;
    let close = -1;
    for (;;) {
      const quote = line.indexOf('"', j);
      if (quote === -1) break;
      if (nextEsc !== -1 && nextEsc < j) nextEsc = line.indexOf('\\', j);
      if (nextEsc !== -1 && nextEsc < quote) {
        const len = line.charCodeAt(nextEsc + 1) === 117 /* u */ ? 6 : 2;
        if (nextEsc < cut && cut < nextEsc + len) cut = nextEsc;
        j = nextEsc + len;
        nextEsc = line.indexOf('\\', j);
        continue;
      }
      close = quote;
      break;
    }
    if (close === -1) break;
    let after = close + 1;
    while (line.charCodeAt(after) === 32) after++;
    const isKey = line.charCodeAt(after) === 58; /* : */
    if (close > cut && !isKey) {
      out.push(line.slice(from, cut));
      from = close;
    }
    i = close + 1;
  }
  out.push(line.slice(from));
  return out.join('');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Lone UTF-16 surrogates (broken text) as U+FFFD, as UTF-8 storage has them. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** Marks where text was cut, so a reader never mistakes an excerpt for the whole. */
export const CUT_MARK = '[…]';

/** A shell command a turn ran, as the agent gave it (a string, or an argv), and where when the transcript says. */
export interface ShellCommand {
  command: string | string[];
  cwd?: string;
}

/** Shell commands kept of one turn at most: the files they name are looked for at capture (capture/command-files.ts). */
export const MAX_TURN_COMMANDS = 100;

export interface Turn {
  promptUuid: string;
  sessionId: string;
  timestamp: string;
  cwd?: string;
  gitBranch?: string;
  question: string;
  answer: string;
  files: string[];
  tools: string[];
  /** The shell commands the turn ran (Claude Code's Bash, Codex's shell), at most MAX_TURN_COMMANDS. */
  commands?: ShellCommand[];
}

export interface ParsedTranscript {
  turns: Turn[];
  /** Lines that were not JSON objects. */
  badLines: number;
  /** Lines over MAX_TRANSCRIPT_LINE_CHARS, read with their long strings cut (a pasted dump, a huge tool result). */
  oversizeLines: number;
  /** Entries dropped because their uuid was already seen (resumed sessions). */
  duplicates: number;
  sessionId?: string;
  cwd?: string;
  /**
   * Entry shapes the parser does not know by name (`type` or `type/subtype`), counted, with
   * the agent version that wrote them: format drift made visible before memories go missing.
   */
  unknownShapes?: Record<string, number>;
  /** Values the person typed because the agent asked for a secret (privacy/asked.ts): redacted wherever the session repeats them. */
  givenWhenAsked?: string[];
  /** The agent's version as the transcript says (Claude Code `version`, Codex `cli_version`). */
  agentVersion?: string;
}

/** Notes the value a prompt gives when the turn's answer so far asked for a secret (privacy/asked.ts). */
export function noteGivenWhenAsked(out: ParsedTranscript, answered: string | undefined, prompt: string): void {
  if (answered === undefined || answered.length === 0) return;
  const value = givenWhenAsked(answered, prompt);
  if (value !== undefined && !(out.givenWhenAsked ??= []).includes(value)) out.givenWhenAsked.push(value);
}

/** Count one shape the parser does not know. */
export function countUnknown(out: ParsedTranscript, shape: string): void {
  out.unknownShapes ??= {};
  out.unknownShapes[shape] = (out.unknownShapes[shape] ?? 0) + 1;
}

export function cutQuestion(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - CUT_MARK.length - 1)).join('').trimEnd()} ${CUT_MARK}`;
}

/**
 * Join answer blocks within `max` characters. In long agentic turns the conclusion comes
 * last, so the final block(s) are kept whole and the rest is filled from the beginning,
 * with a visible mark where text was cut.
 */
export function joinAnswer(blocks: string[], max: number): string {
  const sep = '\n\n';
  const whole = blocks.join(sep);
  if (Array.from(whole).length <= max) return whole;
  const len = (s: string) => Array.from(s).length;
  const marker = `${sep}${CUT_MARK}${sep}`;
  const tail: string[] = [];
  let tailLen = 0;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i] as string;
    const add = len(b) + (tail.length > 0 ? sep.length : 0);
    if (tailLen + add + marker.length > max) break;
    tail.unshift(b);
    tailLen += add;
  }
  if (tail.length === 0) {
    // The final block alone is over the limit: keep its beginning, where the gist usually is.
    const last = blocks[blocks.length - 1] as string;
    return `${Array.from(last).slice(0, max - CUT_MARK.length - 1).join('').trimEnd()} ${CUT_MARK}`;
  }
  const head = blocks.slice(0, blocks.length - tail.length).join(sep);
  const room = max - tailLen - marker.length;
  const headCut = Array.from(head).slice(0, Math.max(0, room)).join('').trimEnd();
  return headCut.length > 0 ? `${headCut}${marker}${tail.join(sep)}` : `${CUT_MARK}${sep}${tail.join(sep)}`;
}

/** Deterministic: the same prompt of the same session is always the same memory. */
export function memoryId(source: string, sessionId: string, promptUuid: string): string {
  return createHash('sha256').update(`${source}\n${sessionId}\n${promptUuid}`).digest('hex').slice(0, 32);
}

export interface RecordContext {
  machine: string;
  project: string;
  source?: string;
  /** updated_at for every record; the caller keeps the old one for unchanged turns. */
  now: string;
}

export function turnToRecord(t: Turn, ctx: RecordContext): MemoryRecord {
  const source = ctx.source ?? 'claude-code';
  const r: MemoryRecord = {
    v: 1,
    id: memoryId(source, t.sessionId, t.promptUuid),
    session_id: t.sessionId,
    project: ctx.project,
    machine: ctx.machine,
    timestamp: new Date(t.timestamp === '' ? ctx.now : t.timestamp).toISOString(),
    updated_at: ctx.now,
    question: t.question,
    answer: t.answer,
    source,
  };
  if (t.cwd) r.cwd = t.cwd;
  if (t.gitBranch) r.git_branch = t.gitBranch;
  if (t.files.length > 0) r.files = t.files;
  // The prompt's own uuid, kept (an unknown field for the v1 format): a resumed session that
  // copies this entry into a new transcript is recognised as the same memory by it.
  r.extra = { ...(t.tools.length > 0 ? { tools: t.tools } : {}), prompt_uuid: t.promptUuid };
  return r;
}
