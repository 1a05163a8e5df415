/**
 * Machines that keep their memories in a memory home (no --config): each with its own HOME,
 * its own global git config (identity, and whatever default branch the test gives it), the
 * committed tiny model through MEMORY_* variables, and the built CLI run from a folder that is
 * not a memory repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { runCli, TINY_MODEL, type CliResult } from './helpers.js';
import { conversation, CWD } from './gitworld.js';
import { assistant, text, transcript, user } from './transcript-builder.js';

export interface HomeMachine {
  name: string;
  /** The person's HOME. */
  user: string;
  /** The memory home: where the memory repository lives (the default data folder under HOME). */
  home: string;
  projects: string;
  env: NodeJS.ProcessEnv;
  cli: (args: string[], opts?: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv }) => CliResult;
  /** A Claude Code session of question/answer pairs, captured now as the Stop hook's worker would. */
  capture: (session: string, pairs: Array<[string, string]>) => CliResult;
}

export { git } from './git-fixture.js';

/** Settings every home machine gets from its environment: the tiny model, no downloads. */
export function testModelEnv(): NodeJS.ProcessEnv {
  return {
    MEMORY_EMBEDDING_MODEL: TINY_MODEL,
    MEMORY_EMBEDDING_DTYPE: 'fp32',
    MEMORY_EMBEDDING_ALLOW_REMOTE: 'false',
    MEMORY_EMBEDDING_QUERY_PREFIX: '',
    MEMORY_EMBEDDING_DOCUMENT_PREFIX: '',
  };
}

/**
 * A person's global git config: an identity, signing off, and `defaultBranch` as given (a
 * machine on `master` and one on `main` must still share one memory branch).
 */
export function globalGitConfig(user: string, name: string, defaultBranch = 'main', extra = ''): string {
  const file = join(user, '.gitconfig');
  writeFileSync(file, `[user]\n\tname = ${name}\n\temail = ${name}@example.com\n[init]\n\tdefaultBranch = ${defaultBranch}\n[commit]\n\tgpgsign = false\n${extra}`);
  return file;
}

export function homeMachine(root: string, name: string, opts: { defaultBranch?: string; env?: NodeJS.ProcessEnv } = {}): HomeMachine {
  const user = join(root, `${name}-user`);
  const projects = join(user, '.claude', 'projects');
  mkdirSync(projects, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    HOME: user,
    XDG_DATA_HOME: '',
    XDG_CACHE_HOME: '',
    MEMORY_HOME: '',
    CLAUDE_CONFIG_DIR: join(user, '.claude'),
    CODEX_HOME: join(user, '.codex'),
    GIT_CONFIG_GLOBAL: globalGitConfig(user, name, opts.defaultBranch),
    MEMORY_MACHINE_NAME: name,
    MEMORY_GENERAL_CLAUDE_PROJECTS_DIR: projects,
    MEMORY_SYNC_PULL_TIMEOUT_MS: '20000',
    ...testModelEnv(),
    ...opts.env,
  };
  const cli = (args: string[], o: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}) => runCli(args, { ...o, env: { ...env, ...o.env } });
  const m: HomeMachine = {
    name,
    user,
    home: join(user, '.local', 'share', 'memory-engine'),
    projects,
    env,
    cli,
    capture: (session, pairs) => {
      const t = conversation(session, pairs);
      const dir = join(projects, encodeProjectDir(t.cwd));
      mkdirSync(dir, { recursive: true });
      const p = join(dir, `${session}.jsonl`);
      writeFileSync(p, text(t));
      return cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
    },
  };
  return m;
}

/** The questions of every live memory a machine finds by keyword, sorted. */
export function questions(m: HomeMachine, query: string): string[] {
  const r = m.cli(['search', '--mode', 'keyword', '--json', '--top-k', '50', query]);
  if (r.code !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question).sort();
}

/**
 * A Claude Code session in `cwd` from `start`: each turn reads its files (absolute paths, as
 * Claude Code records them), on `branch`; captured as the Stop hook's worker would.
 */
export function sessionReading(m: HomeMachine, id: string, cwd: string, start: string | number, turns: Array<{ q: string; a: string; read?: string[] }>, branch = 'main'): void {
  const t = transcript(id, cwd);
  t.clock = typeof start === 'number' ? start : Date.parse(start);
  for (const turn of turns) {
    user(t, turn.q, { gitBranch: branch });
    assistant(t, [...(turn.read ?? []).map((f) => ({ tool: 'Read', input: { file_path: join(cwd, f) } })), { text: turn.a }], { gitBranch: branch });
  }
  const dir = join(m.projects, encodeProjectDir(cwd));
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${id}.jsonl`);
  writeFileSync(p, text(t));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', cwd]);
  if (r.code !== 0) throw new Error(`capture of ${id} on ${m.name} exited ${r.code}: ${r.stderr}`);
}
