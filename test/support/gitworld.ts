/** Real git worlds: a bare repository as the remote, clones as machines, each with its own config. */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { liveRecords } from '../../src/export/jsonl.js';
import { readEntries } from '../../src/export/read.js';
import type { ExportEntry } from '../../src/types.js';
import { join } from 'node:path';
import { homeMarkerPath } from '../../src/home/place.js';
import { TINY_MODEL, runCli, tempDir, type CliResult } from './helpers.js';
import { assistant, text, transcript, user, type T } from './transcript-builder.js';

export { git, gitOr } from './git-fixture.js';
import { cloneRepo, git } from './git-fixture.js';

/** Git objects in KiB as git counts them (`count-objects -v`), not disk blocks: loose, and loose + packed. */
export function gitObjectsKb(repo: string): { loose: number; total: number } {
  const out = git(repo, 'count-objects', '-v');
  const v = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
  return { loose: v('size'), total: v('size') + v('size-pack') };
}


export interface Machine {
  name: string;
  repo: string;
  exportDir: string;
  config: string;
  /** The machine's home folder (config.local.toml lands beside the config there). */
  home: string;
  claudeDir: string;
  projects: string;
  cli: (args: string[], opts?: { input?: string; env?: NodeJS.ProcessEnv }) => CliResult;
  /** Point the memory remote (the config's remote_url) elsewhere. */
  setRemoteUrl: (url: string) => void;
}

export interface GitWorld {
  root: string;
  remote: string;
  /** `named: false`: no memory remote in the config (as after a plain clone, before `memory init`); `model`: other than the tiny test model. */
  machine: (name: string, opts?: { extra?: string; named?: boolean; machineName?: string | null; model?: string }) => Machine;
  cleanup: () => void;
}

export function gitWorld(): GitWorld {
  const { dir: root, cleanup } = tempDir('memory-git-');
  const remote = join(root, 'remote.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  // Seed the remote with a first commit, as a user would after creating the private repo.
  const seed = join(root, 'seed');
  cloneRepo(remote, seed, 'seed');
  mkdirSync(join(seed, 'export'));
  writeFileSync(join(seed, 'export', '.gitkeep'), '');
  writeFileSync(join(seed, '.gitignore'), '.cache/\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'init');
  git(seed, 'push', '-q', 'origin', 'main');

  const machine = (name: string, opts: { extra?: string; named?: boolean; machineName?: string | null; model?: string } = {}): Machine => {
    const repo = join(root, name);
    cloneRepo(remote, repo, name);
    // A memory repository memory-engine has used: files the person adds later (the faults
    // tests' notes.txt) do not make it a repository they work in.
    writeFileSync(homeMarkerPath(join(repo, '.git')), 'memory-engine memory repository (test world)\n');
    const home = join(root, `${name}-home`);
    const claudeDir = join(home, '.claude');
    const projects = join(claudeDir, 'projects');
    mkdirSync(projects, { recursive: true });
    const config = join(home, 'memory.toml');
    writeFileSync(
      config,
      [
        '[general]',
        ...(opts.machineName === null ? [] : [`machine_name = "${opts.machineName ?? name}"`]),
        `export_dir = ${JSON.stringify(join(repo, 'export'))}`,
        `db_path = ${JSON.stringify(join(repo, '.cache', 'memory.db'))}`,
        `claude_projects_dir = ${JSON.stringify(projects)}`,
        '[embedding]',
        `model = ${JSON.stringify(opts.model ?? TINY_MODEL)}`,
        'dtype = "fp32"',
        'allow_remote = false',
        'query_prefix = ""',
        'document_prefix = ""',
        `local_model_path = ${JSON.stringify(join(home, 'models'))}`,
        '[sync]',
        'pull_timeout_ms = 20000',
        ...(opts.named === false ? [] : [`remote_url = ${JSON.stringify(remote)}`]),
        opts.extra ?? '',
        '',
      ].join('\n'),
    );
    return {
      name, repo, exportDir: join(repo, 'export'), config, home, claudeDir, projects,
      setRemoteUrl: (url) => writeFileSync(config, readFileSync(config, 'utf8').replace(/^remote_url = .*$/m, `remote_url = ${JSON.stringify(url)}`)),
      cli: (args, o = {}) => runCli(['-c', config, ...args], { ...o, env: { CLAUDE_CONFIG_DIR: claudeDir, HOME: home, ...o.env } }),
    };
  };
  return { root, remote, machine, cleanup };
}

export function remoteLog(world: GitWorld): string[] {
  return git(world.root, '--git-dir', world.remote, 'log', '--format=%s', 'main').split('\n');
}

export const CWD = '/home/u/app';

/** A transcript of question/answer pairs in the real format. */
export function conversation(session: string, pairs: Array<[string, string]>, opts: { cwd?: string; startIso?: string } = {}): T {
  const t = transcript(session, opts.cwd ?? CWD);
  if (opts.startIso) t.clock = Date.parse(opts.startIso);
  for (const [q, a] of pairs) {
    user(t, q);
    assistant(t, [{ text: a }]);
  }
  return t;
}

/** Session start as Claude Code runs it on that machine (`env`: a wrong clock, for one); its hook output. */
export function sessionStart(m: Machine, env: NodeJS.ProcessEnv = {}): { systemMessage?: string } {
  const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ cwd: CWD, hook_event_name: 'SessionStart' }), env });
  if (r.code !== 0) throw new Error(`session start on ${m.name} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { systemMessage?: string };
}

/** Write a transcript where Claude Code would keep it on that machine; returns its path. */
export function placeTranscript(m: Machine, t: T): string {
  const dir = join(m.projects, encodeProjectDir(t.cwd));
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${t.session}.jsonl`);
  writeFileSync(p, text(t));
  return p;
}

/** Every memory file (not rejects files) under a folder. */
export function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const n of readdirSync(d, { withFileTypes: true })) {
      if (n.isDirectory()) walk(join(d, n.name));
      else if (n.name.endsWith('.jsonl') && !n.name.endsWith('.rejects.jsonl')) out.push(join(d, n.name));
    }
  };
  walk(dir);
  return out;
}

/** The live memories' questions in a folder of JSONL files, sorted. */
export function liveIn(dir: string): string[] {
  const entries: ExportEntry[] = [];
  for (const f of jsonlFiles(dir)) readEntries(f, { onEntry: (e) => entries.push(e) });
  return liveRecords(entries).map((r) => r.question).sort();
}

