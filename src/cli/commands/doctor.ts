/**
 * `memory doctor`: the whole chain a memory needs, each link checked and, when it fails, the
 * fix printed — Node.js, the native SQLite module and sqlite-vec, the configuration, the
 * embedding model, the memory repository and its remote, and what is registered in each agent
 * (hooks, plugin, both). Exit 1 when a link is broken. It reads; it changes nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type Context } from '../../app/context.js';
import { readFetchState } from '../../app/model-fetch.js';
import { claudeDir } from '../../agents/claude-code/install.js';
import { codexHome } from '../../agents/codex/sessions.js';
import { configuredMemoryRemote, networkLimits } from '../../app/sync-run.js';
import { modelAlternatives, modelHost, modelIdOf, modelIsCached } from '../../embed/embedder.js';
import { errorMessage } from '../../errors.js';
import { MEMORY_BRANCH } from '../../home/place.js';
import { currentBranch, findRepo, probeRemote } from '../../sync/git.js';
import { CLAUDE_PLUGIN_ID, NODE_MAJOR_NEEDED } from '../../agents/plugin.js';
import { printJson } from '../render.js';
import type { Runner } from '../runner.js';

export interface Check {
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** What to do, when not ok (or a note when ok but worth knowing). */
  fix?: string;
}

export function registerDoctor(program: Command, run: Runner): void {
  program
    .command('doctor')
    .description('check everything memory needs (Node.js, SQLite, the model, the memory repository and remote, the agents\' hooks and plugins) and print the fix for each problem')
    .option('--offline', 'do not ask the memory remote whether it answers')
    .option('--json', 'print the checks as JSON')
    .action((flags: { offline?: boolean; json?: boolean }) => run((ctx) => doctor(ctx, flags)));
}

async function doctor(ctx: Context, flags: { offline?: boolean; json?: boolean }): Promise<number> {
  const checks = await runChecks(ctx, flags.offline === true);
  if (flags.json) printJson(ctx.io, { ok: checks.every((c) => c.ok), checks });
  else {
    const lines = checks.flatMap((c) => [`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(18)} ${c.detail}`, ...(c.fix ? [`      ${''.padEnd(18)} ${c.ok ? 'note' : 'fix'}: ${c.fix}`] : [])]);
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
  }
  return checks.every((c) => c.ok) ? 0 : 1;
}

async function runChecks(ctx: Context, offline: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({ name: 'Node.js', ok: major >= NODE_MAJOR_NEEDED, detail: `${process.version} (${process.execPath})`, ...(major >= NODE_MAJOR_NEEDED ? {} : { fix: `install Node.js ${NODE_MAJOR_NEEDED} or newer` }) });
  checks.push(await sqliteCheck());
  checks.push({ name: 'configuration', ok: true, detail: ctx.config.sources.join(', ') || 'defaults only' });
  checks.push(modelCheck(ctx));
  const repo = await findRepo(ctx.config.general.export_dir);
  if (!repo) {
    checks.push({
      name: 'memory repository',
      ok: ctx.config.home !== undefined,
      detail: ctx.config.home ? `${ctx.config.home} (made at the first capture or session start)` : `${ctx.config.general.export_dir} is not in a git repository`,
      ...(ctx.config.home ? {} : { fix: 'memories stay uncommitted on this machine: leave [general] export_dir unset to use the memory home, or `git init` that folder' }),
    });
  } else {
    const branch = await currentBranch(repo);
    checks.push({ name: 'memory repository', ok: true, detail: `${repo.root} (branch ${branch ?? 'detached'})`, ...(ctx.config.home && branch !== MEMORY_BRANCH ? { fix: `a memory home works on branch ${MEMORY_BRANCH}; this one is on ${branch ?? 'no branch'}` } : {}) });
    checks.push(await remoteCheck(ctx, repo, offline));
  }
  checks.push(...agentChecks(ctx));
  return checks;
}

async function sqliteCheck(): Promise<Check> {
  try {
    const { openDatabase } = await import('../../store/store.js');
    const { KEYWORD_TOKENIZER } = await import('../../store/schema.js');
    const db = openDatabase(':memory:');
    const v = db.prepare('select vec_version() as vec, sqlite_version() as sqlite').get() as { vec: string; sqlite: string };
    db.exec(`create virtual table t using fts5(a, tokenize = '${KEYWORD_TOKENIZER}')`);
    db.close();
    return { name: 'SQLite', ok: true, detail: `better-sqlite3 with SQLite ${v.sqlite}, FTS5, sqlite-vec ${v.vec}` };
  } catch (err) {
    const hint = (err as { hint?: string }).hint;
    return { name: 'SQLite', ok: false, detail: errorMessage(err).split('\n')[0] ?? '', fix: hint ?? 'reinstall memory-engine (npm install -g memory-engine --ignore-scripts)' };
  }
}

function modelCheck(ctx: Context): Check {
  const cfg = ctx.embedderConfig();
  const id = modelIdOf(cfg.model);
  if (modelIsCached(cfg)) return { name: 'embedding model', ok: true, detail: `${id} (${cfg.model.startsWith('/') ? cfg.model : join(cfg.cacheDir, cfg.model)})` };
  const state = readFetchState(ctx.config.baseDir);
  if (state?.status === 'running') return { name: 'embedding model', ok: true, detail: `${id}: downloading from ${state.host} since ${state.at.slice(0, 16).replace('T', ' ')}`, fix: 'keyword search works meanwhile' };
  return {
    name: 'embedding model',
    ok: false,
    detail: `${id} is not on this machine${state?.status === 'failed' ? `: the download from ${state.host} failed (${state.error ?? ''})` : ''}; search is by keywords only`,
    fix: `memory model pull downloads it from ${modelHost(cfg)} now, with progress; where that host is out of reach${modelAlternatives(cfg).replace(/^ \([^;]*; /, ': ').replace(/\)$/, '')}`,
  };
}

async function remoteCheck(ctx: Context, repo: { root: string; gitDir: string }, offline: boolean): Promise<Check> {
  const remote = await configuredMemoryRemote(ctx, repo);
  if (!remote) return { name: 'memory remote', ok: true, detail: 'none: memories are committed on this machine only', fix: 'to share them with your other machines: memory init --remote <url of an empty private repository>' };
  if (offline) return { name: 'memory remote', ok: true, detail: `${remote.url} (not asked: --offline)` };
  const probe = await probeRemote(repo, remote.url, { ...networkLimits(ctx), totalMs: 15_000 });
  if (!probe.ok) return { name: 'memory remote', ok: false, detail: `${remote.url}: ${probe.detail ?? 'no answer'}`, fix: 'check the URL and your credentials (`git ls-remote <url>` must work); memories wait here meanwhile' };
  return { name: 'memory remote', ok: true, detail: `${remote.url} answers (${probe.branches.includes(MEMORY_BRANCH) ? `branch ${MEMORY_BRANCH} there` : `branches: ${probe.branches.join(', ') || 'none yet'}`})` };
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

function agentChecks(ctx: Context): Check[] {
  const out: Check[] = [];
  const cdir = claudeDir(ctx.io.env);
  const settings = readJson(join(cdir, 'settings.json'));
  const events = ourHookEvents(settings);
  const plugin = (settings?.enabledPlugins as Record<string, unknown> | undefined)?.[CLAUDE_PLUGIN_ID] === true;
  const missing = OUR_EVENTS.filter((e) => !events.includes(e));
  if (plugin || events.length > 0 || existsSync(cdir)) {
    const detail = [plugin ? `plugin ${CLAUDE_PLUGIN_ID} enabled` : undefined, events.length > 0 ? `hooks in settings.json: ${events.join(', ')}` : undefined].filter(Boolean).join('; ') || 'nothing registered';
    out.push({
      name: 'Claude Code',
      ok: plugin || missing.length === 0,
      detail,
      ...(plugin && events.length > 0
        ? { fix: 'both the plugin and `memory install --claude-code`: the settings hooks step aside while the plugin is enabled (`memory uninstall --claude-code` removes them)' }
        : !plugin && missing.length > 0
          ? { fix: `claude plugin install memory-engine@memory-engine (after claude plugin marketplace add <this repository>), or memory install --claude-code${events.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}` }
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
    const hooksOn = /\[features\][^[]*\b(codex_)?hooks\s*=\s*true/.test(config);
    const cmissing = OUR_EVENTS.filter((e) => !cevents.includes(e));
    const ok = (cplugin || cmissing.length === 0) && hooksOn;
    out.push({
      name: 'Codex',
      ok,
      detail: [cplugin ? 'plugin memory-engine enabled' : undefined, cevents.length > 0 ? `hooks in hooks.json: ${cevents.join(', ')}` : undefined, hooksOn ? 'hooks on' : 'hooks off in config.toml'].filter(Boolean).join('; '),
      ...(!hooksOn
        ? { fix: `add \`hooks = true\` under [features] in ${join(chome, 'config.toml')} (Codex runs no hook without it)` }
        : !ok
          ? { fix: 'codex plugin add memory-engine@memory-engine (after codex plugin marketplace add <this repository>), or memory install --codex' }
          : {}),
    });
  }
  return out;
}
