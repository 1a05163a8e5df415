import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../config/load.js';
import { UserError } from '../../errors.js';
import {
  addHooks, claudeDir, installSkill, ourHooks, readSettings, removeHooks, renderSkill, SKILL_NAME, uninstallSkill, writeSettings,
} from '../../maintain/install.js';
import type { Context } from '../context.js';
import type { Runner } from '../program.js';

interface Flags {
  claudeCode?: boolean;
  dryRun?: boolean;
}

export function registerInstall(program: Command, run: Runner): void {
  program
    .command('install')
    .description('set up the agent integration: hooks in settings.json (backed up first) and the memory-recall skill')
    .option('--claude-code', 'install into Claude Code (respects CLAUDE_CONFIG_DIR)')
    .option('--dry-run', 'show what would change, change nothing')
    .action((flags: Flags) => run((ctx) => install(ctx, flags, 'install')));
  program
    .command('uninstall')
    .description('remove exactly what install added')
    .option('--claude-code', 'uninstall from Claude Code')
    .option('--dry-run', 'show what would change, change nothing')
    .action((flags: Flags) => run((ctx) => install(ctx, flags, 'uninstall')));
}

async function install(ctx: Context, flags: Flags, mode: 'install' | 'uninstall'): Promise<number> {
  if (!flags.claudeCode) throw new UserError(`say which agent: memory ${mode} --claude-code`);
  const dir = claudeDir(ctx.io.env);
  const settingsPath = join(dir, 'settings.json');
  const skillPath = join(dir, 'skills', SKILL_NAME, 'SKILL.md');
  const mainJs = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  const explicitConfig = ctx.config.sources.find((s) => !s.startsWith('env:'));
  const defaultConfig = join(packageRoot(), 'config.toml');
  const configArg = explicitConfig && explicitConfig !== defaultConfig ? explicitConfig : undefined;
  const specs = ourHooks(process.execPath, mainJs, configArg);
  const settings = readSettings(settingsPath);
  const res = mode === 'install' ? addHooks(settings, specs) : removeHooks(settings, specs, mainJs);
  const lines: string[] = [];
  const verb = flags.dryRun ? 'would ' : '';
  if (res.changed) {
    if (!flags.dryRun) {
      const backup = writeSettings(settingsPath, res.settings, ctx.io.now());
      if (backup) lines.push(`Backed up ${settingsPath} to ${backup}`);
    }
    lines.push(`${mode === 'install' ? `${verb}add` : `${verb}remove`} hooks in ${settingsPath}:`);
    for (const s of specs) lines.push(`  ${s.event}: ${s.command}`);
  } else {
    lines.push(`${settingsPath}: hooks already ${mode === 'install' ? 'installed' : 'absent'}, unchanged`);
  }
  if (mode === 'install') {
    const text = renderSkill(readFileSync(join(packageRoot(), 'skills', SKILL_NAME, 'SKILL.md'), 'utf8'), process.execPath, mainJs, configArg);
    const changed = flags.dryRun ? true : installSkill(skillPath, text);
    lines.push(changed ? `${verb}install the skill ${skillPath}` : `${skillPath}: skill already installed, unchanged`);
  } else {
    const removed = flags.dryRun ? false : uninstallSkill(skillPath);
    lines.push(removed ? `removed the skill ${skillPath}` : flags.dryRun ? `would remove the skill ${skillPath} if installed by memory-engine` : `${skillPath}: no skill of ours to remove`);
  }
  if (mode === 'install' && !flags.dryRun) {
    lines.push('', 'Next: `npx memory import --all` saves the transcripts Claude Code still has (it deletes them after 30 days).');
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
