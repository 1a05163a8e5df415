/**
 * `memory install --claude-code`: merge our hooks into Claude Code's settings.json and put
 * the recall skill in place. Pure merge functions plus the file I/O around them.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UserError } from '../errors.js';

export interface HookSpec {
  event: 'SessionStart' | 'Stop' | 'SessionEnd';
  command: string;
  timeout: number;
}

type HookEntry = { type?: string; command?: string; timeout?: number; [k: string]: unknown };
type Group = { matcher?: string; hooks?: HookEntry[]; [k: string]: unknown };
export type Settings = { hooks?: Record<string, Group[]>; [k: string]: unknown };

const q = (s: string) => `"${s.replace(/(["\\$`])/g, '\\$1')}"`;

/** Our hook commands: absolute node and script paths, so PATH inside the agent does not matter. */
export function ourHooks(nodePath: string, mainJs: string, configPath?: string): HookSpec[] {
  const base = `${q(nodePath)} ${q(mainJs)}${configPath ? ` --config ${q(configPath)}` : ''}`;
  return [
    { event: 'SessionStart', command: `${base} session-start --inject`, timeout: 30 },
    { event: 'Stop', command: `${base} session-end`, timeout: 15 },
    { event: 'SessionEnd', command: `${base} session-end`, timeout: 15 },
  ];
}

function isOurs(cmd: string | undefined, specs: HookSpec[], mainJs: string): boolean {
  if (!cmd) return false;
  if (specs.some((s) => s.command === cmd)) return true;
  return cmd.includes(q(mainJs)) && / session-(start|end)\b/.test(cmd);
}

export function addHooks(settings: Settings, specs: HookSpec[]): { settings: Settings; changed: boolean } {
  const out: Settings = structuredClone(settings);
  let changed = false;
  for (const spec of specs) {
    out.hooks ??= {};
    const groups = (out.hooks[spec.event] ??= []);
    if (groups.some((g) => g.hooks?.some((h) => h.command === spec.command))) continue;
    groups.push({ hooks: [{ type: 'command', command: spec.command, timeout: spec.timeout }] });
    changed = true;
  }
  return { settings: out, changed };
}

export function removeHooks(settings: Settings, specs: HookSpec[], mainJs: string): { settings: Settings; changed: boolean } {
  const out: Settings = structuredClone(settings);
  let changed = false;
  if (!out.hooks) return { settings: out, changed };
  for (const [event, groups] of Object.entries(out.hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept: Group[] = [];
    for (const g of groups) {
      const hooks = Array.isArray(g.hooks) ? g.hooks : [];
      const remaining = hooks.filter((h) => !isOurs(h.command, specs, mainJs));
      if (remaining.length !== hooks.length) changed = true;
      if (remaining.length > 0 || hooks.length === 0) kept.push({ ...g, hooks: remaining });
    }
    if (kept.length > 0) out.hooks[event] = kept;
    else delete out.hooks[event];
  }
  if (Object.keys(out.hooks).length === 0) delete out.hooks;
  return { settings: out, changed };
}

export function claudeDir(env: NodeJS.ProcessEnv, home = homedir()): string {
  return env.CLAUDE_CONFIG_DIR ? env.CLAUDE_CONFIG_DIR : join(home, '.claude');
}

export function readSettings(path: string): Settings {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, 'utf8');
  if (text.trim().length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${path} is not valid JSON (${(err as Error).message}); not touching it`, 'fix or move that file, then run install again');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${path} does not hold a JSON object; not touching it`);
  return v as Settings;
}

/** Write settings, keeping a backup of the previous file first. Returns the backup path. */
export function writeSettings(path: string, settings: Settings, now: Date): string | undefined {
  mkdirSync(dirname(path), { recursive: true });
  let backup: string | undefined;
  if (existsSync(path)) {
    backup = `${path}.bak-${now.toISOString().replace(/[:.]/g, '-')}`;
    copyFileSync(path, backup);
  }
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(settings, null, 2)}\n`);
  // Renamed over the original: a crash never leaves a half-written settings.json.
  renameSync(tmp, path);
  return backup;
}

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
