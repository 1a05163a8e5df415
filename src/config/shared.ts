/**
 * The shared layer of the settings (`config.toml` of a memory home) is data that travels: every
 * machine that pulls it applies it. One that does not parse, or fails validation, must neither
 * turn memory off here nor travel: the last good version committed stays in force (never
 * the broken text), and the person is told where it broke — the line and the key.
 *
 * Read only on that failure path (one `git log` and a `git show` per version tried), and
 * remembered in `.cache/` by the broken text's hash, so a hook does not ask git again until
 * the file changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { errorMessage } from '../errors.js';
import { later, sha1 } from '../later.js';
import { ensurePrivateDir, workDirFor, writeKeepingMode } from './paths.js';
import { validateLayer, type Layer, type Problem } from './validate.js';
import { localDay } from '../days.js';

const childProcess = later<typeof import('node:child_process')>('node:child_process');

/** Where the shared settings broke, and what is in force instead. */
export interface SettingsProblem {
  file: string;
  line?: number;
  key?: string;
  /** One sentence: what is wrong. */
  message: string;
  /** What applies meanwhile: `the version committed on 2026-11-30 (1a2b3c4)`, or `the defaults`. */
  inForce: string;
}

export interface ReadLayer {
  layer: Layer;
  errors: Problem[];
  warnings: Problem[];
  /** The TOML did not parse: where and why. */
  parseError?: { line?: number; message: string };
}

/** Parse and validate one layer's text; never throws. */
export function readLayerText(text: string, file: string): ReadLayer {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number };
    const first = (errorMessage(err).split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    return { layer: new Map(), errors: [], warnings: [], parseError: { ...(typeof e.line === 'number' ? { line: e.line } : {}), message: first } };
  }
  return validateLayer(doc, file);
}

/** `[section] key` as written on line `line` (1-based) of a TOML text, for telling where it broke. */
export function keyAtLine(text: string, line: number): string | undefined {
  const lines = text.split('\n');
  const here = lines[line - 1] ?? '';
  const m = /^\s*([A-Za-z0-9_.-]+)\s*=/.exec(here);
  let section = '';
  for (let i = Math.min(line - 1, lines.length - 1); i >= 0; i--) {
    const h = /^\s*\[+\s*([^\]]+?)\s*\]+/.exec(lines[i] as string);
    if (h) {
      section = h[1] as string;
      break;
    }
  }
  if (m) return section ? `${section}.${m[1]}` : m[1];
  // A table header: as written when it closes (`[privacy]`, defined twice), cut where it breaks otherwise (`[search`).
  const header = /^\s*(\[+)\s*([^\]]*?)\s*(\]+)?\s*(?:#.*)?$/.exec(here);
  if (header) return `${header[1]}${header[2] ?? ''}${header[3] ?? ''}`;
  return /^\s*\[/.test(here) ? `[${here.trim().slice(1).trim()}` : section || undefined;
}

/** The line a key is set on (its section's header first), for validation problems. */
export function lineOfKey(text: string, dotted: string): number | undefined {
  const [section, key] = dotted.includes('.') ? (dotted.split('.') as [string, string]) : [dotted, undefined];
  const lines = text.split('\n');
  let inSection = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const h = /^\s*\[\s*([^\]]+?)\s*\]/.exec(l);
    if (h) {
      inSection = h[1] === section;
      if (inSection && key === undefined) return i + 1;
      continue;
    }
    if (inSection && key !== undefined && new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=`).test(l)) return i + 1;
  }
  return undefined;
}

/** Whether `file` is the committed settings of a git repository (a memory home): it travels, so it falls back. */
export function isSharedSettings(file: string): boolean {
  return basename(file) === 'config.toml' && existsSync(join(dirname(file), '.git'));
}

function git(dir: string, args: string[]): string {
  return childProcess().execFileSync('git', ['-c', 'core.quotePath=false', ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000, maxBuffer: 8 * 1024 * 1024 });
}

interface LastGood {
  commit: string;
  date: string;
  text: string;
}

/** Only this many committed versions are tried (newest first): the settings change rarely. */
const VERSIONS_TRIED = 30;

/** The newest committed version of `file` that parses and validates, or undefined (none; no git). */
export function lastGoodVersion(file: string): LastGood | undefined {
  const dir = dirname(file);
  let log: string;
  try {
    log = git(dir, ['log', `-n${VERSIONS_TRIED}`, '--format=%H %cI', '--', basename(file)]);
  } catch {
    return undefined; // no git, no commit yet
  }
  for (const line of log.split('\n')) {
    const [commit, date] = line.split(' ');
    if (!commit || !date) continue;
    let text: string;
    try {
      text = git(dir, ['show', `${commit}:${basename(file)}`]);
    } catch {
      continue; // deleted in that commit
    }
    const r = readLayerText(text, file);
    if (!r.parseError && r.errors.length === 0) return { commit, date, text };
  }
  return undefined;
}

const CACHE_NAME = 'settings-last-good.json';

/** lastGoodVersion, remembered for this broken text. */
function lastGoodFor(file: string, brokenText: string): LastGood | undefined {
  const hash = sha1().update(brokenText).digest('hex');
  const cache = join(workDirFor(dirname(file)), CACHE_NAME);
  try {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { broken?: string; good?: LastGood | null };
    if (c.broken === hash) return c.good ?? undefined;
  } catch {
    /* not remembered yet */
  }
  const good = lastGoodVersion(file);
  try {
    ensurePrivateDir(workDirFor(dirname(file)));
    writeKeepingMode(cache, `${JSON.stringify({ broken: hash, good: good ?? null })}\n`);
  } catch {
    /* asked again next time */
  }
  return good;
}

/**
 * The shared layer as it applies: the file when it is good; else its last good committed
 * version (or nothing: the defaults), with what is wrong. Never throws for the file's content.
 */
export function sharedLayer(file: string, text: string): { read: ReadLayer; problem?: SettingsProblem; usedCommit?: string } {
  const read = readLayerText(text, file);
  if (!read.parseError && read.errors.length === 0) return { read };
  const first = read.errors[0];
  const line = read.parseError?.line ?? (first ? lineOfKey(text, first.key) : undefined);
  const key = read.parseError ? (read.parseError.line ? keyAtLine(text, read.parseError.line) : undefined) : first?.key;
  const message = read.parseError ? `it does not parse: ${read.parseError.message}` : `${first?.key}: ${first?.message}`;
  const good = lastGoodFor(file, text);
  const problem: SettingsProblem = {
    file,
    ...(line !== undefined ? { line } : {}),
    ...(key ? { key } : {}),
    message,
    inForce: good ? `the version committed on ${localDay(good.date)} (${good.commit.slice(0, 7)})` : 'the defaults',
  };
  if (!good) return { read: { layer: new Map(), errors: [], warnings: read.warnings }, problem };
  return { read: readLayerText(good.text, file), problem, usedCommit: good.commit };
}

/** One sentence for the person: where the shared settings broke and what applies meanwhile. */
export function describeSettingsProblem(p: SettingsProblem): string {
  const where = [p.line !== undefined ? `line ${p.line}` : undefined, p.key ? `key ${p.key}` : undefined].filter(Boolean).join(', ');
  const applies = p.inForce === 'the defaults' ? 'the defaults apply' : `${p.inForce} applies`;
  return `${p.file}${where ? ` (${where})` : ''}: ${p.message}. Until it is fixed, ${applies} on this machine, and the file is neither committed nor pushed; capture goes on`;
}

/** The shared settings' problem as the file stands now (after a pull brought another machine's), or undefined. */
export function settingsProblemNow(file: string): SettingsProblem | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return sharedLayer(file, text).problem;
}
