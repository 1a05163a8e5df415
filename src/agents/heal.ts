/**
 * Installs made by an earlier version named the machine's layer alone in every command they
 * registered (`--config <home>/config.local.toml`), so the shared settings never reached those
 * hooks. Such a name now means the whole configuration (config/paths.ts); the first session
 * start that runs with it also rewrites the commands to what `install` writes today — in
 * Claude Code's settings.json, Codex's hooks.json and config.toml — so they say what they mean.
 * Everything else in those files is kept; each is backed up first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeDir } from './claude-code/install.js';
import { codexHome } from './codex/sessions.js';
import { q, readSettings, writeSettings, writeWithBackup, type Settings } from './hooks-json.js';

/** `command` with ` --config "<named>"` replaced by the configuration's own argument (or none). */
export function healCommand(command: string, named: string, replacement: string | undefined): string {
  return command.split(` --config ${q(named)}`).join(replacement ? ` --config ${q(replacement)}` : '');
}

function healSettings(settings: Settings, named: string, replacement: string | undefined): boolean {
  let changed = false;
  for (const groups of Object.values(settings.hooks ?? {})) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      for (const h of Array.isArray(g.hooks) ? g.hooks : []) {
        if (typeof h.command !== 'string') continue;
        const next = healCommand(h.command, named, replacement);
        if (next !== h.command) {
          h.command = next;
          changed = true;
        }
      }
    }
  }
  return changed;
}

/** Codex's config.toml: the MCP server's args and the notify argv (TOML arrays of JSON-quoted strings). */
export function healCodexToml(text: string, named: string, replacement: string | undefined): string {
  const from = `, ${JSON.stringify('--config')}, ${JSON.stringify(named)}`;
  return text.split(from).join(replacement ? `, ${JSON.stringify('--config')}, ${JSON.stringify(replacement)}` : '');
}

/** Rewrite every registration that names `named`; the files changed. */
export function healNamedLayer(env: NodeJS.ProcessEnv, named: string, replacement: string | undefined, now: Date): string[] {
  const changed: string[] = [];
  for (const path of [join(claudeDir(env), 'settings.json'), join(codexHome(env), 'hooks.json')]) {
    if (!existsSync(path)) continue;
    const settings = readSettings(path);
    if (!healSettings(settings, named, replacement)) continue;
    writeSettings(path, settings, now);
    changed.push(path);
  }
  const toml = join(codexHome(env), 'config.toml');
  if (existsSync(toml)) {
    const text = readFileSync(toml, 'utf8');
    const next = healCodexToml(text, named, replacement);
    if (next !== text) {
      writeWithBackup(toml, next, now);
      changed.push(toml);
    }
  }
  return changed;
}
