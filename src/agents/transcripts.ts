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
  // Codex opens with session_meta; newer rollouts may put a world_state record first, so
  // the first few lines are asked (a Claude Code transcript never holds a session_meta).
  let start = 0;
  for (let i = 0; i < 5 && start < text.length; i++) {
    const nl = text.indexOf('\n', start);
    const line = nl < 0 ? text.slice(start) : text.slice(start, nl);
    if (looksLikeCodexRollout(line)) return 'codex';
    if (nl < 0) break;
    start = nl + 1;
  }
  return 'claude-code';
}

export function parseAnyTranscript(text: string, limits: CaptureLimits, clean: (s: string) => string): ParsedTranscript & { source: TranscriptSource } {
  const source = sourceOf(text);
  return { ...(source === 'codex' ? parseCodexRollout(text, limits, clean) : parseTranscript(text, limits, clean)), source };
}
