/**
 * `memory doctor`: the whole chain a memory needs, each link checked and, when it fails, the
 * fix printed — Node.js, the native SQLite module and sqlite-vec, git, the configuration (the
 * shared config.toml parsing), the memory home, the embedding model, the memory repository
 * (never a project's) and its remote, and what is registered in each agent (hooks, plugin,
 * both). A note is worth knowing (the model on its way at first run); exit 1 only when a link
 * is broken. It runs even when the configuration cannot be loaded. It reads; it changes nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type Context, type IO } from '../../app/context.js';
import { readFetchState } from '../../app/session/model-fetch.js';
import { claudeDir } from '../../agents/claude-code/install.js';
import { codexHome } from '../../agents/codex/sessions.js';
import { codexServerName, serverMissesSettings } from '../../agents/codex/install.js';
import { configuredMemoryRemote, networkLimits } from '../../app/sync/sync-run.js';
import { localModelProblem, modelAlternatives, modelHost, modelIdOf, modelIsCached } from '../../embed/embedder.js';
import { errorMessage, HealthError, UserError } from '../../errors.js';
import { describeSettingsProblem } from '../../config/shared.js';
import { memoryRepository } from '../../home/target.js';
import { MEMORY_BRANCH } from '../../home/place.js';
import { currentBranch, gitProgram, type Repo } from '../../sync/process.js';
import { probeRemote } from '../../sync/remote.js';
import { CLAUDE_PLUGIN_ID, NODE_MAJOR_NEEDED } from '../../agents/plugin.js';
import { MCP_NAME } from '../../agents/setup.js';
import { printJson } from '../render.js';
import type { Runner } from '../runner.js';

export interface Check {
  name: string;
  /** Not broken: `note` is worth knowing (the model is fetched on first use), never a failure. */
  ok: boolean;
  level: 'ok' | 'note' | 'fail';
  /** What was found. */
  detail: string;
  /** What to do, when not ok (or a note when ok but worth knowing). */
  fix?: string;
}

const ok = (name: string, detail: string, fix?: string): Check => ({ name, ok: true, level: 'ok', detail, ...(fix ? { fix } : {}) });
const note = (name: string, detail: string, fix?: string): Check => ({ name, ok: true, level: 'note', detail, ...(fix ? { fix } : {}) });
const fail = (name: string, detail: string, fix?: string): Check => ({ name, ok: false, level: 'fail', detail, ...(fix ? { fix } : {}) });

export function registerDoctor(program: Command, run: Runner): void {
  program
    .command('doctor')
    .description('check everything memory needs (Node.js, SQLite, git, the settings, the model, the memory home, repository and remote, the agents\' hooks and plugins) and print the fix for each problem')
    .option('--offline', 'do not ask the memory remote whether it answers')
    .option('--json', 'print the checks as JSON')
    .action((flags: { offline?: boolean; json?: boolean }) =>
      run((ctx) => doctor(ctx.io, flags, runChecks(ctx, flags.offline === true)), undefined, {
        // A configuration that cannot be loaded (a memory home that is a file, a broken local layer)
        // is one of the things doctor reports, with everything that does not need it.
        orElse: (err, io) => doctor(io, flags, basicChecks().then(async (checks) => [...checks, fail(err instanceof HealthError && err.kind === 'home' ? 'memory home' : 'configuration', errorMessage(err).split('\n').join(' '), err instanceof UserError ? err.hint : undefined)])),
      }),
    );
}

async function doctor(io: IO, flags: { json?: boolean }, pending: Promise<Check[]>): Promise<number> {
  const checks = await pending;
  if (flags.json) printJson(io, { ok: checks.every((c) => c.ok), checks });
  else {
    const mark = { ok: 'ok  ', note: 'note', fail: 'FAIL' } as const;
    const lines = checks.flatMap((c) => [`${mark[c.level]}  ${c.name.padEnd(18)} ${c.detail}`, ...(c.fix ? [`      ${''.padEnd(18)} ${c.ok ? 'note' : 'fix'}: ${c.fix}`] : [])]);
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  // Non-zero only for what is broken: a note (the model on its way) is the normal first run.
  return checks.every((c) => c.ok) ? 0 : 1;
}

/** What needs no configuration: Node.js, the SQLite module, git. */
async function basicChecks(): Promise<Check[]> {
  const major = Number(process.versions.node.split('.')[0]);
  const node = major >= NODE_MAJOR_NEEDED ? ok('Node.js', `${process.version} (${process.execPath})`) : fail('Node.js', `${process.version} (${process.execPath})`, `install Node.js ${NODE_MAJOR_NEEDED} or newer`);
  const g = gitProgram();
  const git = g.ok ? ok('git', g.version) : fail('git', g.detail, 'install git (or put it on the PATH): without it memories are kept in the export folder but never committed or synced');
  return [node, await sqliteCheck(), git];
}

async function runChecks(ctx: Context, offline: boolean): Promise<Check[]> {
  const checks = await basicChecks();
  const settings = ctx.config.settingsProblem;
  checks.push(settings ? fail('configuration', describeSettingsProblem(settings), 'fix config.toml: until it parses, it is neither applied nor committed') : ok('configuration', ctx.config.sources.join(', ') || 'defaults only'));
  if (ctx.config.home) checks.push(ok('memory home', `${ctx.config.home}${ctx.io.env.MEMORY_HOME ? ' (MEMORY_HOME)' : ''}`));
  checks.push(modelCheck(ctx));
  let repo: Repo | undefined;
  try {
    repo = await memoryRepository(ctx.config, { make: false, env: ctx.io.env });
  } catch (err) {
    checks.push(fail('memory repository', errorMessage(err), err instanceof UserError ? err.hint : undefined));
    checks.push(...agentChecks(ctx));
    return checks;
  }
  if (!repo) {
    const made = ctx.config.home !== undefined;
    checks.push(made || !g(checks) ? note('memory repository', made ? `${ctx.config.home} (made at the first capture or session start)` : `${ctx.config.general.export_dir}: not committed (git is missing)`) : fail('memory repository', `${ctx.config.general.export_dir} is not in a git repository`, 'memories stay uncommitted on this machine: leave [general] export_dir unset to use the memory home, or `git init` that folder'));
  } else {
    const branch = await currentBranch(repo);
    checks.push(ctx.config.home && branch !== MEMORY_BRANCH ? note('memory repository', `${repo.root} (branch ${branch ?? 'detached'})`, `a memory home works on branch ${MEMORY_BRANCH}; this one is on ${branch ?? 'no branch'}`) : ok('memory repository', `${repo.root} (branch ${branch ?? 'detached'})`));
    checks.push(await remoteCheck(ctx, repo, offline));
  }
  checks.push(...agentChecks(ctx));
  return checks;
}

/** Whether the git check passed. */
function g(checks: Check[]): boolean {
  return checks.find((c) => c.name === 'git')?.ok === true;
}

async function sqliteCheck(): Promise<Check> {
  try {
    const { openDatabase } = await import('../../store/store.js');
    const { KEYWORD_TOKENIZER } = await import('../../store/schema.js');
    const db = openDatabase(':memory:');
    const v = db.prepare('select vec_version() as vec, sqlite_version() as sqlite').get() as { vec: string; sqlite: string };
    db.exec(`create virtual table t using fts5(a, tokenize = '${KEYWORD_TOKENIZER}')`);
    db.close();
    return ok('SQLite', `better-sqlite3 with SQLite ${v.sqlite}, FTS5, sqlite-vec ${v.vec}`);
  } catch (err) {
    const hint = (err as { hint?: string }).hint;
    return fail('SQLite', errorMessage(err).split('\n')[0] ?? '', hint ?? 'reinstall memory-engine (npm install -g memory-engine --ignore-scripts)');
  }
}

function modelCheck(ctx: Context): Check {
  const cfg = ctx.embedderConfig();
  const id = modelIdOf(cfg.model);
  const local = localModelProblem(cfg);
  if (local) return fail('embedding model', local, 'fix [embedding] model (a folder with config.json, tokenizer.json and onnx/), or remove it to use the default model');
  if (modelIsCached(cfg)) return ok('embedding model', `${id} (${cfg.model.startsWith('/') ? cfg.model : join(cfg.cacheDir, cfg.model)})`);
  const state = readFetchState(ctx.config.baseDir);
  if (state?.status === 'running') return note('embedding model', `${id}: downloading from ${state.host} since ${state.at.slice(0, 16).replace('T', ' ')}`, 'keyword search works meanwhile');
  if (!cfg.allowRemote) {
    return fail('embedding model', `${id} is not on this machine and downloads are off ([embedding] allow_remote = false); search is by keywords only`, `where it can come from${modelAlternatives(cfg).replace(/^ \([^;]*; /, ': ').replace(/\)$/, '')}; or allow downloads: [embedding] allow_remote = true`);
  }
  if (state?.status === 'failed') {
    return fail('embedding model', `${id} is not on this machine: the download from ${state.host} failed (${state.error ?? ''}); search is by keywords only`, `where that host is out of reach${modelAlternatives(cfg).replace(/^ \([^;]*; /, ': ').replace(/\)$/, '')}; \`memory model pull\` tries again`);
  }
  // The first run: not downloaded yet is normal (the first session starts the download).
  return note('embedding model', `${id} is not downloaded yet: the first session start fetches it in the background (keyword search works meanwhile)`, `\`memory model pull\` fetches it now from ${modelHost(cfg)}, with progress`);
}

async function remoteCheck(ctx: Context, repo: { root: string; gitDir: string }, offline: boolean): Promise<Check> {
  const remote = await configuredMemoryRemote(ctx, repo);
  if (!remote) return note('memory remote', 'none: memories are committed on this machine only', 'to share them with your other machines: memory init --remote <url of an empty private repository>');
  if (offline) return ok('memory remote', `${remote.url} (not asked: --offline)`);
  const probe = await probeRemote(repo, remote.url, { ...networkLimits(ctx), totalMs: 15_000 });
  if (!probe.ok) return fail('memory remote', `${remote.url}: ${probe.detail ?? 'no answer'}`, 'check the URL and your credentials (`git ls-remote <url>` must work); memories wait here meanwhile');
  return ok('memory remote', `${remote.url} answers (${probe.branches.includes(MEMORY_BRANCH) ? `branch ${MEMORY_BRANCH} there` : `branches: ${probe.branches.join(', ') || 'none yet'}`})`);
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const OUR_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop'];

/** Events whose hooks run one of our commands (`… session-start`, `… recall`, `… session-end`). */
function ourHookEvents(settings: Record<string, unknown> | undefined): string[] {
  const hooks = (settings?.hooks ?? {}) as Record<string, Array<{ hooks?: Array<{ command?: string }> }>>;
  return Object.entries(hooks)
    .filter(([, groups]) => groups.some((g) => (g.hooks ?? []).some((h) => /main\.js"? (--config "[^"]*" )?(session-start|recall|session-end)/.test(h.command ?? ''))))
    .map(([event]) => event);
}

/**
 * Whether the file hook (`… file-recall`) is registered for `tool`: an install made before it
 * existed, or before it covered Codex's shell, Claude Code's Bash or the MCP tools, registered none or fewer tools.
 */
function fileHookCovers(settings: Record<string, unknown> | undefined, tool: string): boolean {
  const groups = ((settings?.hooks ?? {}) as Record<string, Array<{ matcher?: string; hooks?: Array<{ command?: string }> }>>).PostToolUse ?? [];
  return groups.some((g) => {
    if (!(g.hooks ?? []).some((h) => /main\.js"? (--config "[^"]*" )?file-recall/.test(h.command ?? ''))) return false;
    try {
      return g.matcher === undefined || new RegExp(`^(?:${g.matcher})$`).test(tool);
    } catch {
      return false;
    }
  });
}

function agentChecks(ctx: Context): Check[] {
  const out: Check[] = [];
  const cdir = claudeDir(ctx.io.env);
  const settings = readJson(join(cdir, 'settings.json'));
  const events = ourHookEvents(settings);
  const plugin = (settings?.enabledPlugins as Record<string, unknown> | undefined)?.[CLAUDE_PLUGIN_ID] === true;
  const missing = OUR_EVENTS.filter((e) => !events.includes(e));
  if (plugin || events.length > 0 || existsSync(cdir)) {
    const detail = [plugin ? `plugin ${CLAUDE_PLUGIN_ID} enabled` : undefined, events.length > 0 ? `hooks in settings.json: ${events.join(', ')}` : undefined].filter(Boolean).join('; ') || 'nothing registered';
    const noFileHook = !plugin && missing.length === 0 && !['Read', 'Bash', `mcp__${MCP_NAME}__memory_search`].every((tool) => fileHookCovers(settings, tool));
    out.push({
      name: 'Claude Code',
      ok: plugin || missing.length === 0,
      level: plugin || missing.length === 0 ? (noFileHook ? 'note' : 'ok') : 'fail',
      detail,
      ...(plugin && events.length > 0
        ? { fix: 'both the plugin and `memory install --claude-code`: the settings hooks step aside while the plugin is enabled (`memory uninstall --claude-code` removes them)' }
        : !plugin && missing.length > 0
          ? { fix: `claude plugin install memory-engine@memory-engine (after claude plugin marketplace add <this repository>), or memory install --claude-code${events.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}` }
          : noFileHook
            ? { fix: 'an earlier install: run `memory install --claude-code` again for the file hook (the memories of a file when Claude reads, edits or moves it, and what its memory searches showed it)' }
            : {}),
    });
  }
  const chome = codexHome(ctx.io.env);
  const hooksJson = readJson(join(chome, 'hooks.json'));
  const cevents = ourHookEvents(hooksJson);
  let config = '';
  try {
    config = readFileSync(join(chome, 'config.toml'), 'utf8');
  } catch {
    /* no Codex config */
  }
  const cplugin = /\[plugins\."memory-engine@memory-engine"\][^[]*enabled\s*=\s*true/.test(config);
  if (cplugin || cevents.length > 0 || existsSync(chome)) {
    // Codex 0.171 runs hooks unless `[features] hooks = false` (or the older `codex_hooks = false`) turns them off.
    const hooksOn = !/\[features\][^[]*\b(codex_)?hooks\s*=\s*false/.test(config);
    const cmissing = OUR_EVENTS.filter((e) => !cevents.includes(e));
    const fine = (cplugin || cmissing.length === 0) && hooksOn;
    const shellFiles = cplugin || cmissing.length > 0 || ['Bash', `mcp__${codexServerName()}__memory_search`].every((tool) => fileHookCovers(hooksJson, tool));
    const serverFine = cplugin || !serverMissesSettings(config);
    out.push({
      name: 'Codex',
      ok: fine,
      level: fine ? (shellFiles && serverFine ? 'ok' : 'note') : 'fail',
      detail: [cplugin ? 'plugin memory-engine enabled' : undefined, cevents.length > 0 ? `hooks in hooks.json: ${cevents.join(', ')}` : undefined, hooksOn ? 'hooks on' : 'hooks off in config.toml'].filter(Boolean).join('; '),
      ...(!hooksOn
        ? { fix: `remove \`hooks = false\` under [features] in ${join(chome, 'config.toml')}, or set it to true (Codex runs no hook while it is false)` }
        : !fine
          ? { fix: 'codex plugin add memory-engine@memory-engine (after codex plugin marketplace add <this repository>), or memory install --codex' }
          : !shellFiles
            ? { fix: 'an earlier install: run `memory install --codex` again, then trust the changed file hook (/hooks in codex), for the memories of a file when Codex reads it with a shell command, and what its memory searches showed it' }
            : !serverFine
              ? { fix: `an earlier install: run \`memory install --codex\` again, so that the MCP server in ${join(chome, 'config.toml')} is passed MEMORY_HOME and the MEMORY_* settings your shell sets (Codex passes a server only HOME, PATH and a few more)` }
              : {}),
    });
  }
  return out;
}
