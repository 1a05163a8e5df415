/**
 * Who wrote what on a team remote, read from its history: every commit that adds lines to
 * `<project>/<handle>/` must say it is that handle's (`Memory-Author: <handle>`) and come from
 * one of the machines that member publishes from (`Memory-Machine`, listed in team.toml), and
 * must write no one else's folder. Lines a commit added without that are set aside: remembered
 * by their key (team/files.ts lineKey), counted, never ingested. Checked once per commit: the
 * last commit verified is kept with the set-aside keys.
 *
 * What this stops: a machine of bob's (or a hand edit under bob's git identity) writing into
 * alice's folder. What it cannot stop without signed commits (TEAM.md's "signed" mode, not
 * built): someone who forges both trailers by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTHOR_TRAILER, MACHINE_TRAILER } from '../sync/commit.js';
import { ourGit, type Repo } from '../sync/process.js';
import { decodeLine } from '../export/jsonl.js';
import { ensurePrivateDir, writeKeepingMode } from '../config/paths.js';
import { lineKey } from './files.js';
import type { TeamManifest } from './manifest.js';

export interface Verified {
  /** The last commit whose lines were judged. */
  head?: string;
  /** Keys of lines set aside. */
  setAside: string[];
}

function statePath(teamDir: string): string {
  return join(teamDir, 'verified.json');
}

export function readVerified(teamDir: string): Verified {
  try {
    const v = JSON.parse(readFileSync(statePath(teamDir), 'utf8')) as Verified;
    return { ...(typeof v.head === 'string' ? { head: v.head } : {}), setAside: Array.isArray(v.setAside) ? v.setAside : [] };
  } catch {
    return { setAside: [] };
  }
}

function writeVerified(teamDir: string, v: Verified): void {
  ensurePrivateDir(teamDir);
  writeKeepingMode(statePath(teamDir), `${JSON.stringify(v)}\n`);
}

const MEMORY_PATH = /^([^/]+)\/([^/]+)\/(?:archive\/)?[^/]+\.jsonl$/;

/**
 * Judge the commits since the last verified one (all of them the first time); returns every
 * set-aside key, old and new. The manifest is the team.toml as pulled now (members and the
 * machines they publish from).
 */
export async function verifyHistory(repo: Repo, teamDir: string, manifest: TeamManifest): Promise<Verified> {
  const state = readVerified(teamDir);
  const g = ourGit(repo.root, undefined, ['core.quotePath=false']);
  const head = (await g.raw(['rev-parse', '--verify', '-q', 'HEAD']).catch(() => '')).trim();
  if (!head || head === state.head) return state;
  const range = state.head && (await g.raw(['merge-base', '--is-ancestor', state.head, head]).then(() => true, () => false)) ? `${state.head}..${head}` : head;
  const fmt = `%x1e%H%x09%(trailers:key=${AUTHOR_TRAILER},valueonly,separator=%x2C)%x09%(trailers:key=${MACHINE_TRAILER},valueonly,separator=%x2C)`;
  const log = await g.raw(['log', '--reverse', '--no-renames', `--format=${fmt}`, '--name-only', range]);
  const machinesOf = new Map(manifest.members.map((m) => [m.handle, new Set(m.machines)]));
  const bad: Array<{ sha: string; files: string[] }> = [];
  for (const chunk of log.split('\u001e')) {
    const [header = '', ...rest] = chunk.split('\n');
    const [sha, author, machine] = header.split('\t').map((x) => x.trim());
    if (!sha) continue;
    const files = rest.map((f) => f.trim()).filter((f) => MEMORY_PATH.test(f));
    if (files.length === 0) continue;
    const handles = new Set(files.map((f) => (MEMORY_PATH.exec(f) as RegExpExecArray)[2] as string));
    // One commit writes one member's folders, and says whose, from one of their machines.
    const wrongFiles = files.filter((f) => {
      const h = (MEMORY_PATH.exec(f) as RegExpExecArray)[2] as string;
      return handles.size > 1 || author !== h || !machine || !(machinesOf.get(h)?.has(machine) ?? false);
    });
    if (wrongFiles.length > 0) bad.push({ sha, files: wrongFiles });
  }
  const setAside = new Set(state.setAside);
  for (const b of bad) {
    const diff = await g.raw(['show', '--format=', '--no-color', '--no-ext-diff', '--unified=0', '--src-prefix=a/', '--dst-prefix=b/', b.sha, '--', ...b.files]);
    let file = '';
    for (const line of diff.split('\n')) {
      if (line.startsWith('+++ ')) file = line.replace(/^\+\+\+ (b\/)?/, '');
      else if (line.startsWith('+') && file) {
        const d = decodeLine(line.slice(1));
        if (d.ok) setAside.add(lineKey(file, d.entry as { id: string; updated_at?: string; machine: string; deleted?: boolean }));
      }
    }
  }
  const next: Verified = { head, setAside: [...setAside] };
  writeVerified(teamDir, next);
  return next;
}
