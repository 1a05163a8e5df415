/**
 * The person's words on team memories — withhold, release, hide — kept as memory data in
 * `export/team-decisions.jsonl` (committed, union-merged, synced to all of their machines), so
 * that a memory withheld on the laptop is withheld on the desktop too, and survives any cache.
 * Read with fs alone (per-prompt recall reads the hides).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A person's word on one memory, for one team (export/team-decisions.jsonl, synced with their memories). */
export interface Decision {
  team: string;
  id: string;
  decision: 'withhold' | 'release' | 'hide';
  at: string;
  /** For `hide`: whose memory it is (a team memory of someone else's, hidden for this person only). */
  author?: string;
}

/** The latest decision on each (team, id): a later release lifts a withhold and the reverse. */
export function latestDecisions(all: Decision[]): Map<string, Decision> {
  const out = new Map<string, Decision>();
  for (const d of [...all].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))) out.set(`${d.team}\u0000${d.decision === 'hide' ? `hide:${d.author ?? ''}/` : ''}${d.id}`, d);
  return out;
}

export const DECISIONS_FILE = 'team-decisions.jsonl';

export function readDecisions(exportDir: string): Decision[] {
  const p = join(exportDir, DECISIONS_FILE);
  if (!existsSync(p)) return [];
  const out: Decision[] = [];
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const d = JSON.parse(line) as Partial<Decision>;
      if (typeof d.team === 'string' && typeof d.id === 'string' && typeof d.at === 'string' && (d.decision === 'withhold' || d.decision === 'release' || d.decision === 'hide')) {
        out.push({ team: d.team, id: d.id, decision: d.decision, at: d.at, ...(typeof d.author === 'string' ? { author: d.author } : {}) });
      }
    } catch {
      /* a damaged line: the others stand */
    }
  }
  return out;
}

