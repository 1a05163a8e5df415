/**
 * Per-prompt recall, calibrated (`npm run bench:recall`; also run by `bench:quality`): for
 * each relevance floor, the share of prompts that get an injection and, of the injected
 * memories, how many are evidence for the prompt. Prompt sets: the development set's
 * questions (../shared/eval: LongMemEval, JSQuAD), LongMemEval's abstention questions
 * (their answer is in no memory), and ordinary coding requests (bench/ordinary-prompts.ts),
 * which must get nothing at least 90 % of the time. Coding memories come from the real
 * Claude Code and Codex transcripts in ../shared/fixtures, added to each corpus.
 *
 * Usage: npm run bench:recall [-- --out FILE]
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { parseAnyTranscript } from '../src/agents/transcripts.js';
import { DEFAULT_LIMITS, turnToRecord } from '../src/capture/turn.js';
import { encodeEntry } from '../src/export/jsonl.js';
import { DEFAULT_MIN_COVERAGE, DEFAULT_MIN_RARE_WORDS, formatRecall, listingAsked, recall, recallCandidates, selectRecalled } from '../src/search/recall.js';
import { openCache } from '../src/store/cache.js';
import type { MemoryRecord } from '../src/types.js';
import { ORDINARY_EN, ORDINARY_JA } from './ordinary-prompts.js';
import { EVAL, jsquad, longMemEval, type Corpus } from './quality.js';

export const FIXTURES = resolve(EVAL, '..', 'fixtures', 'transcripts');

/** The real Claude Code and Codex transcripts in ../shared, parsed (none when it is not there), by agent and file name. */
export function fixtureTranscripts(): Array<{ agent: string; parsed: ReturnType<typeof parseAnyTranscript> }> {
  const out: Array<{ agent: string; parsed: ReturnType<typeof parseAnyTranscript> }> = [];
  for (const agent of ['claude-code', 'codex']) {
    const dir = join(FIXTURES, agent);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl.gz')).sort()) {
      out.push({ agent, parsed: parseAnyTranscript(gunzipSync(readFileSync(join(dir, f))).toString('utf8'), DEFAULT_LIMITS, (s) => s) });
    }
  }
  return out;
}

/** Memories of the real transcripts in ../shared (coding sessions, English). */
function codingMemories(): MemoryRecord[] {
  return fixtureTranscripts().flatMap(({ parsed: p }) => p.turns.map((t) => turnToRecord(t, { machine: 'eval', project: 'coding', now: '2026-06-01T00:00:00.000Z', source: p.source })));
}

/**
 * Each real session's prompts replayed in order, as the hook sees them (its own turns left out),
 * at the default floor: what is injected when every prompt is matched afresh, and when a memory
 * the session was given is not given again (app/session/given.ts).
 */
function sessionReplay(store: ReturnType<typeof openCache>['store'], coding: MemoryRecord[], now: number): string[] {
  const sessions = new Map<string, MemoryRecord[]>();
  for (const r of coding) {
    const turns = sessions.get(r.session_id ?? '') ?? [];
    turns.push(r);
    sessions.set(r.session_id ?? '', turns);
  }
  const rules = { afresh: { memories: 0, again: 0, chars: 0 }, once: { memories: 0, again: 0, chars: 0 } };
  let prompts = 0;
  for (const [sessionId, turns] of sessions) {
    const seen = { afresh: new Set<string>(), once: new Set<string>() };
    for (const t of turns) {
      prompts++;
      for (const rule of ['afresh', 'once'] as const) {
        const hits = recall(store, { prompt: t.question, sessionId, project: 'coding', maxItems: 3, minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: DEFAULT_MIN_RARE_WORDS, now, ...(rule === 'once' ? { given: seen.once } : {}) });
        const shown: string[] = [];
        rules[rule].chars += Array.from(formatRecall(hits, 2000, undefined, shown)).length;
        rules[rule].memories += shown.length;
        rules[rule].again += shown.filter((id) => seen[rule].has(id)).length;
        for (const id of shown) seen[rule].add(id);
      }
    }
  }
  return [
    `The real sessions in ../shared/fixtures (${sessions.size}, ${prompts} prompts), replayed prompt by prompt, as the hook sees them (the session's own turns left out), at the default floor:`,
    '',
    '| rule | memories injected | of them given earlier in the same session | characters injected |',
    '|---|---:|---:|---:|',
    `| every prompt matched afresh (before) | ${rules.afresh.memories} | ${rules.afresh.again} | ${rules.afresh.chars} |`,
    `| each memory once per session (now) | ${rules.once.memories} | ${rules.once.again} | ${rules.once.chars} |`,
  ];
}

/**
 * Code a person pastes before asking: slices of this repository's own source (about 30 lines),
 * one per prompt in turn, fenced as a chat shows them.
 */
function pastedCode(): string[] {
  const dir = resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'src', 'search');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .flatMap((text) => [text.slice(0, 1200), text.slice(1200, 2400)].filter((c) => c.length > 400))
    .map((c) => `\`\`\`ts\n${c}\n\`\`\``);
}

/**
 * The same code pasted as it is, no fence (a terminal prompt, where nothing renders markdown):
 * whole lines, as an editor's selection gives them.
 */
function pastedPlain(): string[] {
  return pastedCode().map((c) => {
    const body = c.replace(/^```ts\n|\n```$/g, '');
    const lines = body.split('\n');
    // A slice that starts or ends inside a line: that line left out.
    return lines.slice(body.startsWith('/**') ? 0 : 1, -1).join('\n');
  });
}

/** Each prompt after a block of pasted code (the question below it, as people ask); fenced, or as it is. */
function afterCode(prompts: PromptSet['prompts'], fenced = true): PromptSet['prompts'] {
  const code = fenced ? pastedCode() : pastedPlain();
  return prompts.map((p, i) => ({ ...p, text: `${code[i % code.length] as string}\n${p.text}` }));
}

interface PromptSet {
  name: string;
  prompts: Array<{ text: string; gold?: Set<string>; now?: number }>;
}

interface Row {
  set: string;
  coverage: number;
  rare: number;
  n: number;
  injected: number;
  memories: number;
  evidence: number;
  /** Prompts with gold where an evidence memory was injected. */
  found: number;
}

export function openCorpus(records: MemoryRecord[]): { store: ReturnType<typeof openCache>['store']; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'memory-recall-bench-'));
  const exportDir = join(dir, 'export');
  mkdirSync(exportDir);
  writeFileSync(join(exportDir, '2026-11_eval.jsonl'), `${records.map((r) => encodeEntry(r)).join('\n')}\n`);
  const { store } = openCache({ dbPath: join(dir, 'memory.db'), exportDir, model: 'none', dim: 0 });
  return { store, cleanup: () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
}

/** (min_coverage, min_rare_words) pairs measured; the default among them. */
export const FLOORS: Array<[number, number]> = [
  [0.6, 0], [0.7, 0], [0.5, 1.5], [0.5, 2], [DEFAULT_MIN_COVERAGE, DEFAULT_MIN_RARE_WORDS], [0.5, 2.5], [0.6, 2], [0.6, 2.25], [0.7, 2],
];

export function runRecallQuality(): string | undefined {
  if (!existsSync(EVAL)) return undefined;
  const now = Date.parse('2026-11-29T12:00:00.000Z');
  const coding = codingMemories();
  const corpora: Array<{ c: Corpus; sets: PromptSet[] }> = [];
  const en = longMemEval(now);
  corpora.push({
    c: en,
    sets: [
      { name: 'LongMemEval questions (answer in memory)', prompts: en.queries.map((q) => ({ text: q.text, gold: q.gold, ...(q.now !== undefined ? { now: q.now } : {}) })) },
      { name: 'LongMemEval abstention questions (answer in no memory)', prompts: (en.unanswerable ?? []).map((text) => ({ text })) },
      { name: 'ordinary coding requests, English', prompts: ORDINARY_EN.map((text) => ({ text })) },
      { name: 'LongMemEval questions after pasted code', prompts: afterCode(en.queries.map((q) => ({ text: q.text, gold: q.gold, ...(q.now !== undefined ? { now: q.now } : {}) }))) },
      { name: 'ordinary coding requests after pasted code, English', prompts: afterCode(ORDINARY_EN.map((text) => ({ text }))) },
      { name: 'LongMemEval questions after pasted code, no fence', prompts: afterCode(en.queries.map((q) => ({ text: q.text, gold: q.gold, ...(q.now !== undefined ? { now: q.now } : {}) })), false) },
      { name: 'ordinary coding requests after pasted code, no fence, English', prompts: afterCode(ORDINARY_EN.map((text) => ({ text })), false) },
    ],
  });
  const ja = jsquad(now);
  corpora.push({
    c: ja,
    sets: [
      { name: 'JSQuAD questions (answer in memory)', prompts: ja.queries.map((q) => ({ text: q.text, gold: q.gold })) },
      { name: 'ordinary coding requests, Japanese', prompts: ORDINARY_JA.map((text) => ({ text })) },
    ],
  });
  const rows: Row[] = [];
  const asking: Array<{ set: string; n: number; listed: number }> = [];
  let replay: string[] = [];
  for (const { c, sets } of corpora) {
    const { store, cleanup } = openCorpus([...c.records, ...coding]);
    try {
      if (c === en && coding.length > 0) replay = sessionReplay(store, coding, now);
      for (const set of sets) {
        // The hook lists the project's memories of the time for these instead of matching (recall.ts listingAsked).
        asking.push({ set: set.name, n: set.prompts.length, listed: set.prompts.filter((p) => listingAsked(p.text, p.now ?? now) !== undefined).length });
        // Candidates once per prompt; each floor is a filter over them (as `recall` applies it).
        const scored = set.prompts.map((p) => ({ p, ...recallCandidates(store, { prompt: p.text, now: p.now ?? now }) }));
        for (const [coverage, rare] of FLOORS) {
          const row: Row = { set: `${set.name} — ${c.records.length + coding.length} memories`, coverage, rare, n: set.prompts.length, injected: 0, memories: 0, evidence: 0, found: 0 };
          for (const { p, cands, terms, latest } of scored) {
            const hits = selectRecalled(cands, terms, { maxItems: 3, minCoverage: coverage, minRareWords: rare, ...(latest ? { latest } : {}) });
            if (hits.length === 0) continue;
            row.injected++;
            row.memories += hits.length;
            const ev = p.gold ? hits.filter((h) => p.gold?.has(h.row.id)).length : 0;
            row.evidence += ev;
            if (ev > 0) row.found++;
          }
          rows.push(row);
        }
      }
    } finally {
      cleanup();
    }
    process.stderr.write(`recall: ${c.name} done\n`);
  }
  const pct = (x: number, n: number) => (n === 0 ? '-' : `${((100 * x) / n).toFixed(1)} %`);
  const lines = [
    `Coding memories from ../shared/fixtures added to each corpus: ${coding.length}. Keyword recall, at most 3 memories per prompt. Default floor: min_coverage ${DEFAULT_MIN_COVERAGE}, min_rare_words ${DEFAULT_MIN_RARE_WORDS}.`,
    '',
    '| prompts | min_coverage | min_rare_words | n | prompts injected | memories injected | of them evidence | prompts given evidence |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const answerable = !/abstention|ordinary/.test(r.set);
      const mark = r.coverage === DEFAULT_MIN_COVERAGE && r.rare === DEFAULT_MIN_RARE_WORDS ? ' **(default)**' : '';
      return `| ${r.set} | ${r.coverage} | ${r.rare}${mark} | ${r.n} | ${pct(r.injected, r.n)} | ${r.memories} | ${answerable ? pct(r.evidence, r.memories) : '-'} | ${answerable ? pct(r.found, r.n) : '-'} |`;
    }),
    '',
    'Prompts that ask only what was done at a time ("what did we do last time", 前回何をしたっけ): the hook lists this project\'s memories of that time for them, newest first, instead of matching their words (the table above counts them as matched).',
    '',
    '| prompts | n | asking only what was done at a time |',
    '|---|---:|---:|',
    ...asking.map((a) => `| ${a.set} | ${a.n} | ${a.listed} |`),
    ...(replay.length > 0 ? ['', ...replay] : []),
  ];
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const table = runRecallQuality();
  if (table === undefined) process.stdout.write(`bench:recall: no development set at ${EVAL}; nothing measured\n`);
  else {
    process.stdout.write(`${table}\n`);
    const i = process.argv.indexOf('--out');
    if (i >= 0 && process.argv[i + 1]) writeFileSync(process.argv[i + 1] as string, `${table}\n`);
  }
}
