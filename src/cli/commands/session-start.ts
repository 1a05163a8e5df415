/** `memory session-start`: the SessionStart hook (Claude Code and Codex). */
import type { Command } from 'commander';
import { sessionStartOutput } from '../../app/session/inject.js';
import { queueDirFor, readQueue } from '../../app/capture/queue.js';
import { runSessionStart } from '../../app/session/session-start.js';
import { sessionGiven } from '../../app/session/given.js';
import { spawnModelFetch, spawnRenames, spawnScrubCheck } from '../../app/session/model-fetch.js';
import { runtimeOf, type Context } from '../../app/context.js';
import type { Runtime } from '../../app/runtime.js';
import { errorMessage } from '../../errors.js';
import { configArgOf } from '../../config/load.js';
import type { HookRunner } from '../hook-runner.js';

async function healInstalls(ctx: Context, rt: Runtime): Promise<string[]> {
  try {
    const [{ healNamedLayer }, { hookConfigArg }] = await Promise.all([import('../../agents/heal.js'), import('../agent-setup.js')]);
    const files = healNamedLayer(ctx.io.env, ctx.config.named as string, hookConfigArg(ctx), ctx.io.now());
    if (files.length === 0) return [];
    rt.log.info(`rewrote the commands that named ${ctx.config.named} in ${files.join(', ')}`);
    return [`memory: the hooks an earlier \`memory install\` registered read ${ctx.config.named} alone, so the shared settings in config.toml (exclusions, [inject], [recall]) did not reach them; they read the whole configuration now (rewrote ${files.join(', ')}; backups beside them).`];
  } catch (err) {
    rt.log.warn(`cannot rewrite the hooks that name ${ctx.config.named}: ${errorMessage(err)}; they read the whole configuration anyway`);
    return [];
  }
}

/** The Codex memory extension, as this plugin's copy runs its commands; nothing when it is already so. */
async function codexPluginExtension(ctx: Context, rt: Runtime): Promise<void> {
  try {
    const [{ setupCodexMemoryExtension }, { codexHome }, { fileURLToPath }] = await Promise.all([import('../../agents/codex/memory-extension.js'), import('../../agents/codex/sessions.js'), import('node:url')]);
    const mainJs = fileURLToPath(new URL('../main.js', import.meta.url));
    const lines = setupCodexMemoryExtension(codexHome(ctx.io.env), 'install', { env: ctx.io.env, now: ctx.io.now(), nodePath: process.execPath, mainJs, skillTemplate: '', dryRun: false, ...(configArgOf(ctx.config) ? { configArg: configArgOf(ctx.config) as string } : {}) });
    if (!lines.every((l) => l.includes('unchanged') || l.includes('kept as it is'))) rt.log.info(lines.join('; '));
  } catch (err) {
    rt.log.warn(`cannot write the Codex memory extension: ${errorMessage(err)}`);
  }
}

export function registerSessionStart(program: Command, hook: HookRunner): void {
  program
    .command('session-start')
    .description('SessionStart hook: commit pending captures, git pull and push, incremental cache update (no model); with --inject, recent memories of this project for the agent')
    .option('--inject', 'print {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}')
    .option('--no-pull', 'do not git pull / push')
    .option('--cwd <dir>', 'the session\'s working folder (default: hook input, else the current folder)')
    .action((flags: { inject?: boolean; pull: boolean; cwd?: string }) =>
      hook(async (ctx, input) => {
        const rt = runtimeOf(ctx);
        // What the agent holds already: a resumed or forked session, its earlier context (any other start injects as ever); a compacted or cleared one, nothing.
        const afresh = input.source === 'compact' || input.source === 'clear';
        const session = flags.inject ? sessionGiven(ctx.config.baseDir, input.session_id, afresh ? undefined : input.transcript_path, { forked: input.source === 'fork' }) : undefined;
        const holds = session && (input.source === 'resume' || input.source === 'fork' || session.inherited !== undefined);
        const report = await runSessionStart(rt, { cwd: flags.cwd ?? input.cwd ?? ctx.io.cwd, inject: flags.inject === true, pull: flags.pull, ...(holds ? { given: session.given } : {}), spawnModelFetch: spawnModelFetch(configArgOf(ctx.config), ctx.io.env), spawnRenames: spawnRenames(configArgOf(ctx.config), ctx.io.env), spawnScrubCheck: spawnScrubCheck(configArgOf(ctx.config), ctx.io.env) });
        // The plugin's launcher set itself up inside this hook (plugin/run.mjs): said once, first.
        if (ctx.io.env.MEMORY_ENGINE_SET_UP) report.notices.unshift(ctx.io.env.MEMORY_ENGINE_SET_UP);
        // Hooks an earlier install registered with the machine's layer alone: rewritten once, and said.
        if (ctx.config.named && !ctx.io.env.MEMORY_ENGINE_PLUGIN) report.notices.push(...(await healInstalls(ctx, rt)));
        // The Codex plugin has no install step of ours: its door into Codex's own memory is written here.
        if (ctx.io.env.MEMORY_ENGINE_PLUGIN === 'codex') await codexPluginExtension(ctx, rt);
        const out = sessionStartOutput(flags.inject ? report.context : '', report.notices);
        if (out) ctx.io.stdout.write(`${out}\n`);
        // What the agent now holds, so that no route gives it again this session; a compacted or
        // cleared context starts the record again (a resumed one keeps what it was given).
        if (session) {
          try {
            session.add(report.given, afresh);
          } catch (err) {
            rt.log.warn(`cannot note what this session was given: ${errorMessage(err)}`);
          }
        }
        // Work a Stop queued while no worker could run (a crash, a reboot) is picked up now; so are
        // memories due to a team (the worker publishes them, the session does not wait).
        if (readQueue(queueDirFor(ctx.config.baseDir)).length > 0 || report.teamDue) await rt.startWorker?.();
        return 0;
      }, { tellInAgent: true }),
    );
}
