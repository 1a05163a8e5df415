/** The memory-recall skill, installed for each agent with `memory …` spelled as absolute commands. */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { q } from './hooks-json.js';

export const SKILL_NAME = 'memory-recall';
export const SKILL_MARKER = '<!-- installed by memory-engine -->';

/** The skill text with `memory …` commands spelled as absolute invocations. */
export function renderSkill(template: string, nodePath: string, mainJs: string, configPath?: string): string {
  const cmd = `${q(nodePath)} ${q(mainJs)}${configPath ? ` --config ${q(configPath)}` : ''}`;
  // Commands in code (inline or at the start of a line in a block) become absolute.
  return `${template.replace(/(^|`)memory (?=[a-z-]+)/gm, (_m, lead: string) => `${lead}${cmd} `).trimEnd()}\n\n${SKILL_MARKER}\n`;
}

export function installSkill(target: string, text: string): boolean {
  if (existsSync(target) && readFileSync(target, 'utf8') === text) return false;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  return true;
}

export function uninstallSkill(target: string): boolean {
  if (!existsSync(target)) return false;
  if (!readFileSync(target, 'utf8').includes(SKILL_MARKER)) return false; // the user's own file
  rmSync(target);
  const dir = dirname(target);
  if (readdirSync(dir).length === 0) rmdirSync(dir);
  return true;
}
