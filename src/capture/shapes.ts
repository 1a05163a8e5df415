/**
 * Transcript shapes the parsers did not recognise, per transcript (the latest parse of each
 * replaces its counts, so a transcript read on every Stop is not counted again and again),
 * in `.cache/transcript-shapes.json` beside the config. A tally for the person, so format
 * drift in Claude Code or Codex is reported before memories go missing; never synced.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, workDirFor } from '../config/paths.js';

export interface TranscriptShapes {
  /** Agent name as shown ("Claude Code", "Codex"). */
  agent: string;
  version?: string;
  unknown: Record<string, number>;
  at: string;
}

/** Transcripts remembered at most (the newest by time of parse). */
const KEEP = 500;

function shapesPath(baseDir: string): string {
  return join(workDirFor(baseDir), 'transcript-shapes.json');
}

export function readShapes(baseDir: string): Record<string, TranscriptShapes> {
  try {
    const v = JSON.parse(readFileSync(shapesPath(baseDir), 'utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, TranscriptShapes>) : {};
  } catch {
    return {};
  }
}

/** Record (or clear) what one transcript held that the parser did not know. */
export function recordShapes(baseDir: string, transcript: string, shapes: TranscriptShapes | undefined): void {
  const all = readShapes(baseDir);
  if (!shapes || Object.keys(shapes.unknown).length === 0) {
    if (!(transcript in all)) return;
    delete all[transcript];
  } else {
    all[transcript] = shapes;
  }
  const kept = Object.entries(all).sort((a, b) => (a[1].at < b[1].at ? 1 : -1)).slice(0, KEEP);
  ensurePrivateDir(workDirFor(baseDir));
  const path = shapesPath(baseDir);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, path);
}

/** "attachment/xyz ×12 (Claude Code 2.1.150), event_msg/foo ×1 (Codex 0.160.0)": summed over transcripts by agent and version. */
export function describeShapes(list: TranscriptShapes[]): string {
  const sum = new Map<string, number>();
  for (const s of list) {
    const who = `${s.agent}${s.version ? ` ${s.version}` : ''}`;
    for (const [shape, n] of Object.entries(s.unknown)) {
      const key = `${shape}\u0000${who}`;
      sum.set(key, (sum.get(key) ?? 0) + n);
    }
  }
  return [...sum]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([key, n]) => {
      const [shape, who] = key.split('\u0000');
      return `${shape} ×${n} (${who})`;
    })
    .join(', ');
}
