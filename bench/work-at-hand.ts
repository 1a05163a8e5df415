/**
 * Recall where the work is, measured (`npm run bench:quality` runs it last; `npm run
 * bench:work`): file recall and session start on the real Claude Code and Codex sessions in
 * ../shared/fixtures, the only sessions of the development material that carry files (the
 * question sets carry none). Sessions are replayed in the order they happened; each sees only
 * the memories of the sessions before it, filed by repository (the fixtures' checkouts of one
 * repository under different folders are one repository).
 *
 *  - File recall: for every file a session's turn touched, what the tool hook would inject
 *    (search/file-recall.ts, the product's defaults, each memory once per session), and whether
 *    the injected memory concerns that file: its question or answer names the file.
 *  - Session start: the files a session touched stand for its working tree at start (the
 *    fixtures hold no working trees: this is the most a tree could tell, an upper bound; taking
 *    the first turn's files for the tree and the later turns' for the evidence left no session
 *    to count); the earlier memories of those files are its evidence. The share of sessions
 *    given evidence at start, and the share of injected memories that are evidence: the most
 *    recent memories (before) against the pick by the work in progress (now).
 *
 * Usage: npm run bench:work [-- --out FILE]
 */
import { existsSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickForStart } from '../src/app/session/start-pick.js';
import { turnToRecord } from '../src/capture/turn.js';
import { memoriesOfFile } from '../src/search/file-recall.js';
import type { MemoryRecord } from '../src/types.js';
import { FIXTURES, fixtureTranscripts, openCorpus } from './recall.js';

/**
 * The fixtures' repositories by the folder a session ran in: codemie-code was checked out at
 * two folders (Claude Code's sessions, anonymised to /Users/user/repo, and a Codex session).
 */
const REPOSITORY_OF_FOLDER: Array<[RegExp, string]> = [
  [/^\/Users\/user\/repo$/, 'codemie-code'],
  [/\/codemie-code$/, 'codemie-code'],
  [/\/spotter$/, 'spotter'],
];

interface Session {
  id: string;
  repo: string;
  startMs: number;
  records: MemoryRecord[];
  /** Per turn: the files it touched, repository-relative. */
  touched: string[][];
}

function repoOf(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  return REPOSITORY_OF_FOLDER.find(([re]) => re.test(cwd))?.[1] ?? basename(cwd);
}

function inRepo(file: string, cwd: string): string | undefined {
  const rel = isAbsolute(file) ? relative(cwd, file) : file;
  if (rel === '' || rel === '.' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split('\\').join('/');
}

function sessions(): Session[] {
  const out: Session[] = [];
  for (const { agent, parsed: p } of fixtureTranscripts()) {
    const cwd = p.cwd ?? p.turns[0]?.cwd;
    const repo = repoOf(cwd);
    if (!repo || !cwd || p.turns.length === 0) continue;
    const touched = p.turns.map((t) => [...new Set(t.files.map((x) => inRepo(x, t.cwd ?? cwd)).filter((x): x is string => x !== undefined))]);
    const records = p.turns.map((t, i) => {
      const r = turnToRecord(t, { machine: agent, project: repo, now: t.timestamp || '2026-06-01T00:00:00.000Z', source: p.source });
      r.extra = { ...r.extra, repo, ...((touched[i] as string[]).length > 0 ? { repo_files: touched[i] } : {}) };
      return r;
    });
    out.push({ id: (records[0] as MemoryRecord).session_id as string, repo, startMs: Math.min(...records.map((r) => Date.parse(r.timestamp))), records, touched });
  }
  return out.sort((a, b) => a.startMs - b.startMs);
}

function withStore<T>(records: MemoryRecord[], use: (store: ReturnType<typeof openCorpus>['store']) => T): T {
  const { store, cleanup } = openCorpus(records);
  try {
    return use(store);
  } finally {
    cleanup();
  }
}

/** Whether a memory's text names the file (its path, or its name when the name is distinctive). */
function concerns(r: { question: string; answer: string }, path: string): boolean {
  const text = `${r.question}\n${r.answer}`;
  const name = basename(path);
  return text.includes(path) || (name.length >= 6 && text.includes(name));
}

const FILE_MAX_ITEMS = 2;
const START_LIMIT = 5;

export function runWorkQuality(): string | undefined {
  if (!existsSync(FIXTURES)) return undefined;
  const all = sessions();
  let reads = 0;
  let readsGiven = 0;
  let injected = 0;
  let concerning = 0;
  const start = { sessions: 0, before: { found: 0, shown: 0, evidence: 0 }, now: { found: 0, shown: 0, evidence: 0 } };
  for (const s of all) {
    const earlier = all.filter((o) => o.startMs < s.startMs).flatMap((o) => o.records);
    withStore(earlier, (store) => {
      // File recall: each touched file, in the order the session touched them.
      const given = new Set<string>();
      s.touched.forEach((files) => {
        for (const path of files) {
          reads++;
          const rows = memoriesOfFile(store, { repo: s.repo, path, sessionId: s.id, given, maxItems: FILE_MAX_ITEMS }).map((m) => m.row);
          if (rows.length > 0) readsGiven++;
          for (const r of rows) {
            given.add(r.id);
            injected++;
            if (concerns(r, path)) concerning++;
          }
        }
      });
      // Session start: the files the session touched stand for its working tree at start; the
      // evidence is the earlier memories of those files.
      const changed = [...new Set(s.touched.flat())];
      if (changed.length === 0) return;
      const evidence = new Set(changed.flatMap((p) => store.files.rowidsOf(s.repo, p, 1000)));
      if (evidence.size === 0) return;
      start.sessions++;
      const tally = (picked: Array<{ row: { rowid: number } }>, into: { found: number; shown: number; evidence: number }) => {
        into.shown += picked.length;
        const hits = picked.filter((p) => evidence.has(p.row.rowid)).length;
        into.evidence += hits;
        if (hits > 0) into.found++;
      };
      tally(pickForStart(store, s.repo, START_LIMIT, undefined), start.before);
      tally(pickForStart(store, s.repo, START_LIMIT, { repo: s.repo, wip: { changed, more: false, renamed: [], deleted: [], untracked: [] } }), start.now);
    });
  }
  const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(0)} % (${a}/${b})`);
  const memories = all.reduce((n, s) => n + s.records.length, 0);
  return [
    `Sessions replayed in order: ${all.length} (${memories} memories; ${[...new Set(all.map((s) => s.repo))].length} repositories), each seeing the sessions before it.`,
    '',
    '| file recall | files touched | given memories | injected memories | injected that name the file (precision) |',
    '|---|---:|---:|---:|---:|',
    `| tool hook, at most ${FILE_MAX_ITEMS}, once per session | ${reads} | ${pct(readsGiven, reads)} of touches | ${injected} | ${pct(concerning, injected)} |`,
    '',
    `| session start ([inject] recent = ${START_LIMIT}) | sessions with earlier memories of their files | sessions given such a memory at start | injected memories that are such memories |`,
    '|---|---:|---:|---:|',
    `| most recent (before) | ${start.sessions} | ${pct(start.before.found, start.sessions)} | ${pct(start.before.evidence, start.before.shown)} |`,
    `| by the work in progress (now) | ${start.sessions} | ${pct(start.now.found, start.sessions)} | ${pct(start.now.evidence, start.now.shown)} |`,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const table = runWorkQuality();
  if (!table) {
    process.stderr.write(`bench:work: ${FIXTURES} is not here (it sits beside the repository, never inside): nothing measured\n`);
  } else {
    process.stdout.write(`${table}\n`);
    const i = process.argv.indexOf('--out');
    if (i >= 0 && process.argv[i + 1]) writeFileSync(process.argv[i + 1] as string, `${table}\n`);
  }
}
