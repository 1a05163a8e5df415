/**
 * Hook registrations in a JSON settings file: Claude Code's settings.json and Codex's
 * hooks.json share the shape `{"hooks":{"<Event>":[{"matcher"?,"hooks":[{"type":"command",…}]}]}}`.
 * Pure merge functions plus the file I/O around them; each agent says which hooks it wants.
 */
import { writeKeepingMode } from '../config/paths.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';

export interface HookSpec {
  event: 'SessionStart' | 'UserPromptSubmit' | 'Stop' | 'SessionEnd' | 'PostToolUse';
  command: string;
  timeout: number;
  /** Tool hooks: the tools (a regular expression over their names) it runs for. */
  matcher?: string;
}

type HookEntry = { type?: string; command?: string; timeout?: number; [k: string]: unknown };
type Group = { matcher?: string; hooks?: HookEntry[]; [k: string]: unknown };
export type Settings = { hooks?: Record<string, Group[]>; [k: string]: unknown };

export const q = (s: string) => `"${s.replace(/(["\\$`])/g, '\\$1')}"`;

/** Ours: one of the commands we install, or any command that runs our main.js (an older version's). */
function isOurs(cmd: string | undefined, specs: HookSpec[], mainJs: string): boolean {
  if (!cmd) return false;
  if (specs.some((s) => s.command === cmd)) return true;
  return cmd.includes(q(mainJs));
}

/**
 * Our hooks in `settings`: each spec's command present once, and every older registration of
 * ours that is not one of them (another node, a `--config` an earlier version wrote) gone — so a
 * second install changes no byte, and an install over an older one replaces it.
 */
export function addHooks(settings: Settings, specs: HookSpec[], mainJs?: string): { settings: Settings; changed: boolean } {
  let out: Settings = structuredClone(settings);
  let changed = false;
  if (mainJs) {
    const wanted = new Set(specs.map((s) => s.command));
    const stale = removeHooks(out, [], mainJs, (cmd) => !wanted.has(cmd));
    if (stale.changed) ({ settings: out, changed } = stale);
  }
  for (const spec of specs) {
    out.hooks ??= {};
    const groups = (out.hooks[spec.event] ??= []);
    if (groups.some((g) => g.hooks?.some((h) => h.command === spec.command) && g.matcher === spec.matcher)) continue;
    // The same command under another matcher (an older install's): replaced.
    for (const g of groups) if (g.matcher !== spec.matcher && g.hooks?.some((h) => h.command === spec.command)) g.hooks = g.hooks.filter((h) => h.command !== spec.command);
    out.hooks[spec.event] = groups.filter((g) => (g.hooks?.length ?? 0) > 0 || !Array.isArray(g.hooks));
    out.hooks[spec.event]?.push({ ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}), hooks: [{ type: 'command', command: spec.command, timeout: spec.timeout }] });
    changed = true;
  }
  return { settings: out, changed };
}

export function removeHooks(settings: Settings, specs: HookSpec[], mainJs: string, only: (cmd: string) => boolean = () => true): { settings: Settings; changed: boolean } {
  const out: Settings = structuredClone(settings);
  let changed = false;
  if (!out.hooks) return { settings: out, changed };
  for (const [event, groups] of Object.entries(out.hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept: Group[] = [];
    for (const g of groups) {
      const hooks = Array.isArray(g.hooks) ? g.hooks : [];
      const remaining = hooks.filter((h) => !(isOurs(h.command, specs, mainJs) && only(h.command ?? '')));
      if (remaining.length !== hooks.length) changed = true;
      if (remaining.length > 0 || hooks.length === 0) kept.push({ ...g, hooks: remaining });
    }
    if (kept.length > 0) out.hooks[event] = kept;
    else delete out.hooks[event];
  }
  if (Object.keys(out.hooks).length === 0) delete out.hooks;
  return { settings: out, changed };
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

/** Replace an agent's file, keeping a backup of the previous one first. Returns the backup path. */
export function writeWithBackup(path: string, text: string, now: Date): string | undefined {
  mkdirSync(dirname(path), { recursive: true });
  let backup: string | undefined;
  if (existsSync(path)) {
    backup = `${path}.bak-${now.toISOString().replace(/[:.]/g, '-')}`;
    copyFileSync(path, backup);
  }
  // Renamed over the original (a crash never leaves a half-written file), with its mode.
  writeKeepingMode(path, text);
  return backup;
}

export function writeSettings(path: string, settings: Settings, now: Date): string | undefined {
  return writeWithBackup(path, `${JSON.stringify(settings, null, 2)}\n`, now);
}
