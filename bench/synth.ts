/**
 * Deterministic synthetic memories for benchmarks: realistic question/answer lengths,
 * mixed English and Japanese, unit-length random vectors. Same seed, same bytes.
 */
import { mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { encodeEntry, monthFileName, monthOf } from '../src/export/jsonl.js';
import type { MemoryRecord } from '../src/types.js';
import { prng } from '../test/tools/prng.js';

export { prng };

// Technical words a developer really types; they sit in the middle of the frequency curve.
const TECH = `cache database sqlite index query migration schema table lock timeout retry worker queue deploy build
test failing flaky fixed error stack trace memory leak performance latency config environment variable docker
container kubernetes pod service endpoint request response header token auth session cookie login user payment
invoice webhook event stream batch job cron schedule git branch rebase merge conflict commit push pull hook
typescript compiler type inference generic interface module import export bundle vite webpack eslint prettier
react component state render effect props router page layout css style responsive mobile api client server`.split(/\s+/);
const FUNCTION_WORDS = 'the a to of and in is it that for we this with on be as not but so was you can should'.split(' ');
const SYLLABLES = 'ka ri to mo ne sa lu vi pe do ran tel mor qua zen fi lo bra cus dex gon hal jin kor'.split(' ');
const KANJI = '日本語文字時間年月新古長短早電話開閉始終使作教習答問考知思言記録検索保存削除追加変更更新設定環境構成接続認証暗号鍵情報管理利用必要重要問題解決方法原因結果理由確認修正対応実装設計仕様機能画面表示入力出力処理実行停止起動失敗成功完了障害発生状態移行計画開発本番試験速度遅延容量数値配列型関数変数定義引数会議資料共有同期分散複製統合競合解消方針'.split('');
const KATAKANA = 'データベース キャッシュ エラー テスト デプロイ サーバー クライアント トークン セッション ログ スキーマ インデックス クエリ ワーカー キュー ブランチ コミット フック モデル ベクトル'.split(' ');
const JA_GLUE = ['の', 'を', 'に', 'で', 'が', 'は', 'と', 'について', 'しました', 'します', 'ですか', 'でした', 'ため', 'から'];

/** A Zipf-distributed vocabulary: a few very common words, a long tail of rare ones. */
function zipfPicker(rand: () => number, words: string[], s = 1.05): () => string {
  const weights = words.map((_, i) => 1 / (i + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  const cdf: number[] = [];
  let acc = 0;
  for (const w of weights) cdf.push((acc += w / total));
  return () => {
    const x = rand();
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] as string;
  };
}

function buildVocab(rand: () => number): { en: () => string; ja: () => string } {
  const pseudo: string[] = [];
  for (let i = 0; i < 12000; i++) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let j = 0; j < n; j++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    pseudo.push(w);
  }
  // Function words first (most frequent), tech words spread through ranks 30..2000, then the tail.
  const en = [...FUNCTION_WORDS, ...pseudo];
  TECH.forEach((t, i) => en.splice(30 + Math.floor((i * 2000) / TECH.length), 0, t));
  const jaWords: string[] = [...KATAKANA];
  for (let i = 0; i < 6000; i++) {
    const a = KANJI[Math.floor(rand() * KANJI.length)] as string;
    const b = KANJI[Math.floor(rand() * KANJI.length)] as string;
    jaWords.push(a + b);
  }
  return { en: zipfPicker(rand, en), ja: zipfPicker(rand, jaWords) };
}

function sentence(rand: () => number, vocab: { en: () => string; ja: () => string }, ja: boolean, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    if (ja) out.push(vocab.ja() + (JA_GLUE[Math.floor(rand() * JA_GLUE.length)] as string));
    else out.push(vocab.en());
  }
  return ja ? `${out.join('')}。` : `${out.join(' ')}.`;
}

function text(rand: () => number, vocab: { en: () => string; ja: () => string }, ja: boolean, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(rand() * (maxChars - minChars));
  let s = '';
  while (s.length < target) s += (s ? ' ' : '') + sentence(rand, vocab, ja, 6 + Math.floor(rand() * 10));
  return s.slice(0, maxChars);
}

export function unitVector(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    const x = rand() * 2 - 1;
    v[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] = (v[i] as number) / n;
  return v;
}

export interface SynthOptions {
  records: number;
  machines: string[];
  months: number;
  /** Last month of the history (YYYY-MM). */
  endMonth: string;
  dim: number;
  model: string;
  seed?: number;
  projects?: number;
  /** Share of records also written once more as an earlier, superseded version (same id). */
  duplicates?: number;
  /** Memories of a code repository: each records `perMemory` of its files with their blob ids (repo, file_blobs). */
  code?: { repo: string; cwd: string; files: Array<{ path: string; blob: string }>; perMemory: number; project?: string };
}

/** One record at a time, so 100k records never sit in memory at once. */
export function* synthRecords(o: SynthOptions): Generator<MemoryRecord> {
  const rand = prng(o.seed ?? 42);
  const vocab = buildVocab(prng((o.seed ?? 42) + 1));
  const [ey, em] = o.endMonth.split('-').map(Number) as [number, number];
  const end = Date.UTC(ey, em, 1) - 1;
  const start = Date.UTC(ey, em - o.months, 1);
  const projects = o.projects ?? 8;
  // Its own stream: the texts and vectors stay those of a run without files.
  const pick = prng((o.seed ?? 42) + 3);
  for (let i = 0; i < o.records; i++) {
    // Evenly spread, slightly jittered: timestamps increase with i.
    const ts = Math.floor(start + ((end - start) * (i + rand() * 0.5)) / o.records);
    const ja = rand() < 0.35;
    const machine = o.machines[i % o.machines.length] as string;
    const timestamp = new Date(ts).toISOString();
    const code = o.code;
    const blobs = code
      ? Array.from({ length: code.perMemory }, () => code.files[Math.floor(pick() * code.files.length)] as { path: string; blob: string }).map((f) => ({ file: `${code.cwd}/${f.path}`, path: f.path, blob: f.blob }))
      : undefined;
    yield {
      ...(code ? { extra: { repo: code.repo, file_blobs: blobs } } : {}),
      v: 1,
      id: `bench-${i.toString(36).padStart(6, '0')}`,
      session_id: `s-${Math.floor(i / 20)}`,
      project: ((p: string) => code?.project ?? p)(`proj-${Math.floor(rand() * projects)}`),
      machine,
      timestamp,
      updated_at: timestamp,
      question: text(rand, vocab, ja, 40, 300),
      answer: text(rand, vocab, ja, 200, 2400),
      cwd: code?.cwd ?? '/home/dev/work',
      git_branch: 'main',
      source: 'claude-code',
      model: o.model,
      dim: o.dim,
      embedding: unitVector(rand, o.dim),
    };
  }
}

/** Write per-machine month files; returns total bytes. */
export function writeSynthExport(dir: string, o: SynthOptions): { bytes: number; files: number } {
  mkdirSync(dir, { recursive: true });
  const fds = new Map<string, number>();
  const dupRand = prng((o.seed ?? 42) + 2);
  let bytes = 0;
  const write = (r: MemoryRecord) => {
    const name = monthFileName(monthOf(r.timestamp), r.machine);
    let fd = fds.get(name);
    if (fd === undefined) {
      fd = openSync(join(dir, name), 'w');
      fds.set(name, fd);
    }
    const line = `${encodeEntry(r)}\n`;
    bytes += Buffer.byteLength(line);
    writeSync(fd, line);
  };
  for (const r of synthRecords(o)) {
    if (o.duplicates && dupRand() < o.duplicates) {
      // The earlier version: a shorter answer, written a minute before the final one.
      const t = new Date(Date.parse(r.timestamp) - 60_000).toISOString();
      write({ ...r, updated_at: t, answer: r.answer.slice(0, Math.ceil(r.answer.length / 2)) });
      r.updated_at = r.timestamp;
    }
    write(r);
  }
  for (const fd of fds.values()) closeSync(fd);
  return { bytes, files: fds.size };
}
