/**
 * What `install`/`uninstall` share across agents: the commands they register (absolute
 * node and script paths, so PATH inside the agent does not matter), the hook file merge
 * with a backup, and the skill. Each agent's folder says where its files are and what it wants.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHooks, q, readSettings, removeHooks, writeSettings, type HookSpec } from './hooks-json.js';
import { installSkill, renderSkill, SKILL_NAME, uninstallSkill } from './skill.js';

export type SetupMode = 'install' | 'uninstall';

export interface SetupDeps {
  env: NodeJS.ProcessEnv;
  now: Date;
  nodePath: string;
  mainJs: string;
  /** A config file to pass to every command (when it is not the checkout's default). */
  configArg?: string;
  /** The skill's template (skills/memory-recall/SKILL.md of this package). */
  skillTemplate: string;
  dryRun: boolean;
  /**
   * Runs an agent's own command line (`claude mcp add …`): the exit status and output, or
   * undefined when that command is not installed.
   */
  runAgentCli?: (cmd: string, args: string[]) => { status: number; output: string } | undefined;
}

/** `"<node>" "<main.js>" [--config "<file>"]`: the prefix of every command we register. */
export function commandPrefix(d: Pick<SetupDeps, 'nodePath' | 'mainJs' | 'configArg'>): string {
  return `${q(d.nodePath)} ${q(d.mainJs)}${d.configArg ? ` --config ${q(d.configArg)}` : ''}`;
}

/** The argv of `memory mcp` as an MCP client starts it. */
export function mcpArgv(d: Pick<SetupDeps, 'mainJs' | 'configArg'>): string[] {
  return [d.mainJs, ...(d.configArg ? ['--config', d.configArg] : []), 'mcp'];
}

/** The MCP server's name in every agent's configuration. */
export const MCP_NAME = 'memory-engine';

/** Merge (or remove) our hooks in a JSON hooks file; lines saying what changed. */
export function setupHookFile(path: string, specs: HookSpec[], mode: SetupMode, d: SetupDeps): string[] {
  const settings = readSettings(path);
  const res = mode === 'install' ? addHooks(settings, specs, d.mainJs) : removeHooks(settings, specs, d.mainJs);
  const verb = d.dryRun ? 'would ' : '';
  if (!res.changed) return [`${path}: hooks already ${mode === 'install' ? 'installed' : 'absent'}, unchanged`];
  const lines: string[] = [];
  if (!d.dryRun) {
    const backup = writeSettings(path, res.settings, d.now);
    if (backup) lines.push(`Backed up ${path} to ${backup}`);
  }
  lines.push(`${verb}${mode === 'install' ? 'add' : 'remove'} hooks in ${path}:`);
  for (const s of specs) lines.push(`  ${s.event}: ${s.command}`);
  return lines;
}

/** Install or remove the memory-recall skill under `<skillsDir>/memory-recall/SKILL.md`. */
export function setupSkill(skillsDir: string, mode: SetupMode, d: SetupDeps): string[] {
  const path = join(skillsDir, SKILL_NAME, 'SKILL.md');
  const verb = d.dryRun ? 'would ' : '';
  if (mode === 'install') {
    const text = renderSkill(d.skillTemplate, d.nodePath, d.mainJs, d.configArg);
    const changes = d.dryRun ? !(existsSync(path) && readFileSync(path, 'utf8') === text) : installSkill(path, text);
    return [changes ? `${verb}install the skill ${path}` : `${path}: skill already installed, unchanged`];
  }
  if (d.dryRun) return [`would remove the skill ${path} if installed by memory-engine`];
  return [uninstallSkill(path) ? `removed the skill ${path}` : `${path}: no skill of ours to remove`];
}
