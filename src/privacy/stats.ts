/**
 * What privacy withheld on this machine since install: redactions by kind and sessions of
 * excluded projects. A small JSON file beside the config (`.cache/privacy-stats.json`):
 * a tally for the user, not a memory, so it is neither committed nor synced.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, workDirFor } from '../config/paths.js';

export interface PrivacyStats {
  since: string;
  redactions: Record<string, number>;
  excluded_sessions: number;
}

function statsPath(baseDir: string): string {
  return join(workDirFor(baseDir), 'privacy-stats.json');
}

export function readPrivacyStats(baseDir: string): PrivacyStats | undefined {
  try {
    const s = JSON.parse(readFileSync(statsPath(baseDir), 'utf8')) as PrivacyStats;
    return typeof s.since === 'string' && typeof s.redactions === 'object' ? s : undefined;
  } catch {
    return undefined;
  }
}

export function addPrivacyStats(baseDir: string, now: Date, add: { redactions: Record<string, number>; excludedSessions: number }): void {
  if (Object.keys(add.redactions).length === 0 && add.excludedSessions === 0) return;
  const s = readPrivacyStats(baseDir) ?? { since: now.toISOString(), redactions: {}, excluded_sessions: 0 };
  for (const [k, n] of Object.entries(add.redactions)) s.redactions[k] = (s.redactions[k] ?? 0) + n;
  s.excluded_sessions += add.excludedSessions;
  const path = statsPath(baseDir);
  ensurePrivateDir(workDirFor(baseDir));
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, path);
}

/** "3 github-token, 1 url-password" */
export function describeRedactions(counts: Record<string, number>): string {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, n]) => `${n} ${k}`).join(', ');
}
