/** `memory install` / `memory uninstall`: the agent folders do the work; this gathers what they need. */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setupClaudeCode } from '../agents/claude-code/install.js';
import { setupCodex } from '../agents/codex/install.js';
import type { SetupDeps, SetupMode } from '../agents/setup.js';
import { SKILL_NAME } from '../agents/skill.js';
import { configFileFor, packageRoot } from '../config/load.js';
import { UsageError } from '../errors.js';
import type { Context } from '../app/context.js';
import { memoryRepoOf } from '../app/sync/locks.js';

export interface SetupFlags {
  claudeCode?: boolean;
  codex?: boolean;
  dryRun?: boolean;
}

/** An executable named `name` on the PATH of `env`, or undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The `--config` the registered commands carry: none for the memory home they find by
 * themselves (the default place); the whole configuration's `config.toml` otherwise (a
 * MEMORY_HOME of this shell is not in the agent's environment; a `--config` of one's own).
 * Decided by where the configuration is, never by which of its files exist yet, so install
 * writes the same commands before and after the first session.
 */
export function hookConfigArg(ctx: Pick<Context, 'config' | 'io'>): string | undefined {
  const defaultHome = configFileFor(undefined, { ...ctx.io.env, MEMORY_HOME: '', MEMORY_CONFIG: '' }, ctx.io.cwd).home;
  if (ctx.config.home !== undefined && ctx.config.home === defaultHome) return undefined;
  return ctx.config.file;
}

export async function runSetup(ctx: Context, flags: SetupFlags, mode: SetupMode): Promise<number> {
  if (!flags.claudeCode && !flags.codex) throw new UsageError(`say which agent: memory ${mode} --claude-code, --codex, or both`);
  const mainJs = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  const configArg = hookConfigArg(ctx);
  const env = ctx.io.env;
  // A memory home the commands name must be one when they first run (its config.toml may not exist yet).
  if (configArg && ctx.config.home && mode === 'install' && flags.dryRun !== true) await memoryRepoOf(ctx);
  const deps: SetupDeps = {
    env,
    now: ctx.io.now(),
    nodePath: process.execPath,
    mainJs,
    ...(configArg ? { configArg } : {}),
    skillTemplate: readFileSync(join(packageRoot(), 'skills', SKILL_NAME, 'SKILL.md'), 'utf8'),
    dryRun: flags.dryRun === true,
    runAgentCli: (cmd, args) => {
      const exe = onPath(cmd, env);
      if (!exe) return undefined;
      const r = spawnSync(exe, args, { env, encoding: 'utf8', timeout: 30_000 });
      return { status: r.status ?? 1, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
    },
  };
  const lines: string[] = [];
  if (flags.claudeCode) lines.push('Claude Code', ...setupClaudeCode(mode, deps).map((l) => (l ? `  ${l}` : l)));
  if (flags.codex) lines.push(...(lines.length > 0 ? [''] : []), 'Codex', ...setupCodex(mode, deps).map((l) => (l ? `  ${l}` : l)));
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
