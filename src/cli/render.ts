/** Human-readable text for hits and summaries. All user-facing wording lives here. */
import type { IO } from '../app/context.js';
import type { SearchHit } from '../types.js';
import { machineLabel, projectLabel } from '../project/label.js';
import { localDay } from '../days.js';

export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

export const ANSWER_PREVIEW_CHARS = 300;

export function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('').trimEnd()}…`;
}

export { excerpt } from '../app/text.js';

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
}

export function renderHits(hits: SearchHit[], full: boolean): string {
  if (hits.length === 0) return 'No matching memories.\n';
  return hits
    .map((h, i) => {
      const date = localDay(h.timestamp);
      const who = h.author ? `${h.author} (team ${h.team ?? '?'}) / ` : '';
      const head = `[${i + 1}] ${date} / ${who}${machineLabel(h.machine)} / project:${projectLabel(h.project) ?? '-'} / ${h.source ?? 'claude-code'}  (score ${h.score.toFixed(4)}, id ${h.id})`;
      const q = full ? h.question : cut(oneLine(h.question), ANSWER_PREVIEW_CHARS);
      const a = full ? h.answer : cut(oneLine(h.answer), ANSWER_PREVIEW_CHARS);
      const notes = [h.recorded_as ? `recorded as ${h.recorded_as}, renamed since` : undefined, h.files_note].filter((n) => n !== undefined);
      return `${head}\n${notes.map((n) => `(${n})\n`).join('')}Q: ${q}\nA: ${a}\n`;
    })
    .join('\n');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
