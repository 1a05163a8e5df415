/** Test worlds: temp folders, config files, the built CLI, the committed tiny model. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeEntry } from '../../src/export/jsonl.js';
import type { ExportEntry, MemoryRecord } from '../../src/types.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/test/support
export const REPO = resolve(here, '..', '..', '..');
export const CLI = join(REPO, 'dist', 'src', 'cli', 'main.js');
export const TINY_MODEL = join(REPO, 'test', 'fixtures', 'tiny-model');
export const TRACER = join(REPO, 'dist', 'test', 'tools', 'trace-imports.js');
export const SHARED_FIXTURES = resolve(REPO, '..', 'shared', 'fixtures');

/** Debian's libfaketime, when installed: a child process's clock set by its environment. */
export const FAKETIME_LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((p) => existsSync(p));

/**
 * The environment of a child whose clock reads `ms` (and runs on from there): an absolute time, so
 * that it holds whatever clock the suite itself runs under (CI runs it under faketime too). The
 * child lives in `timeZone` (libfaketime reads its start time in the child's zone).
 */
export function clockAt(ms: number, timeZone = 'UTC'): NodeJS.ProcessEnv {
  if (!FAKETIME_LIB) throw new Error('libfaketime is not installed');
  const d = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(ms));
  return { LD_PRELOAD: FAKETIME_LIB, FAKETIME: `@${d}`, FAKETIME_DONT_FAKE_MONOTONIC: '1', TZ: timeZone };
}

export function tempDir(prefix = 'memory-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried: a detached capture worker a test started may still be finishing inside it.
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }) };
}

export interface World {
  dir: string;
  exportDir: string;
  config: string;
  cleanup: () => void;
}

/** A folder with config.toml (tiny model, no prefixes, no downloads) and an export/ folder. */
export function makeWorld(opts: { machine?: string; model?: string; extra?: string } = {}): World {
  const { dir, cleanup } = tempDir();
  const exportDir = join(dir, 'export');
  mkdirSync(exportDir, { recursive: true });
  const config = join(dir, 'config.toml');
  writeFileSync(
    config,
    [
      '[general]',
      `machine_name = "${opts.machine ?? 'laptop'}"`,
      '[embedding]',
      `model = ${JSON.stringify(opts.model ?? TINY_MODEL)}`,
      'dtype = "fp32"',
      'allow_remote = false',
      'query_prefix = ""',
      'document_prefix = ""',
      `local_model_path = ${JSON.stringify(join(dir, 'models'))}`,
      opts.extra ?? '',
      '',
    ].join('\n'),
  );
  return { dir, exportDir, config, cleanup };
}

export function writeJsonl(path: string, entries: Array<ExportEntry | string>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, entries.map((e) => (typeof e === 'string' ? e : encodeEntry(e))).join('\n') + '\n');
}

/**
 * A timestamp `days` before `now`. Tests that depend on age (recency, date filters, the
 * month file a command writes to) take their dates from the clock, never a fixed month.
 * Under faketime every process starts at the faked time, so a child's clock may run a
 * little behind the test's: compare ages in days, not seconds.
 */
export function daysAgo(days: number, now: number = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString();
}

let counter = 0;
export function rec(over: Partial<MemoryRecord> & { question: string; answer: string }): MemoryRecord {
  counter++;
  return {
    v: 1,
    id: over.id ?? `rec-${counter}`,
    machine: over.machine ?? 'laptop',
    project: over.project ?? 'app',
    timestamp: over.timestamp ?? '2026-11-20T10:00:00.000Z',
    ...over,
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; nodeArgs?: string[] } = {}): CliResult {
  const env = { ...process.env, ...opts.env };
  delete env.MEMORY_CONFIG;
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), CLI, ...args], {
    encoding: 'utf8',
    input: opts.input ?? '',
    env,
    cwd: opts.cwd ?? REPO,
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function parseJsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

/** A copy of the built package whose better-sqlite3 has no binary for this platform. */
export function brokenNativeCopy(dir: string): string {
  cpSync(join(REPO, 'dist', 'src'), join(dir, 'dist', 'src'), { recursive: true });
  for (const f of ['package.json', 'config.toml']) cpSync(join(REPO, f), join(dir, f));
  cpSync(join(REPO, 'skills'), join(dir, 'skills'), { recursive: true });
  const nm = join(dir, 'node_modules');
  mkdirSync(nm);
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name.startsWith('.')) continue;
    const real = join(REPO, 'node_modules', name);
    if (name === 'better-sqlite3') cpSync(real, join(nm, name), { recursive: true, filter: (src) => !/[/\\](build|deps|src|prebuilds)$/.test(src) });
    else symlinkSync(real, join(nm, name));
  }
  return join(dir, 'dist', 'src', 'cli', 'main.js');
}

