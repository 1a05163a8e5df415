/**
 * Which agent wrote a transcript, told from its first line, and its turns. A third agent
 * is one more folder under src/agents/ and one more line here.
 */
import type { CaptureLimits, ParsedTranscript } from '../capture/turn.js';
import { parseTranscript } from './claude-code/transcript.js';
import { looksLikeCodexRollout, parseCodexRollout } from './codex/rollout.js';

/** The `source` of the memories a transcript gives. */
export type TranscriptSource = 'claude-code' | 'codex';

export function sourceOf(text: string): TranscriptSource {
  const nl = text.indexOf('\n');
  return looksLikeCodexRollout(nl < 0 ? text : text.slice(0, nl)) ? 'codex' : 'claude-code';
}

export function parseAnyTranscript(text: string, limits: CaptureLimits, clean: (s: string) => string): ParsedTranscript & { source: TranscriptSource } {
  const source = sourceOf(text);
  return { ...(source === 'codex' ? parseCodexRollout(text, limits, clean) : parseTranscript(text, limits, clean)), source };
}
