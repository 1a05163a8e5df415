/**
 * Codex: hooks in `$CODEX_HOME/hooks.json` (Claude Code's shape), the MCP server and the
 * `notify` program in `$CODEX_HOME/config.toml` (marked blocks: everything else is kept
 * byte for byte, and a backup is written first), the skill under `$CODEX_HOME/skills/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { UserError } from '../../errors.js';
import { writeWithBackup, type HookSpec } from '../hooks-json.js';
import { commandPrefix, MCP_NAME, mcpArgv, setupHookFile, setupSkill, type SetupDeps, type SetupMode } from '../setup.js';
import { settingVariables } from '../../config/load.js';
import { codexHome } from './sessions.js';
import { setupCodexMemoryExtension } from './memory-extension.js';

/**
 * The Codex tools that touch files (its patches and its shell) and the MCP tools that show
 * memories (Codex names our server's tools `mcp__memory_engine__…`: its `-` written `_`).
 */
export const CODEX_FILE_TOOLS = `apply_patch|Bash|mcp__.*${codexServerName()}__memory_search|mcp__.*${codexServerName()}__memory_show`;

/** Our MCP server's name as Codex writes it in a tool's name: its `-` as `_` (`mcp__memory_engine__memory_search`). */
export function codexServerName(): string {
  return MCP_NAME.replace(/-/g, '_');
}

/**
 * Codex's hook output schemas reject unknown fields: SessionStart and UserPromptSubmit
 * print only `hookSpecificOutput` (+ `systemMessage`), the Stop hook prints nothing.
 */
export function codexHooks(d: Pick<SetupDeps, 'nodePath' | 'mainJs' | 'configArg'>): HookSpec[] {
  const base = commandPrefix(d);
  return [
    { event: 'SessionStart', command: `${base} session-start --inject`, timeout: 30 },
    { event: 'UserPromptSubmit', command: `${base} recall`, timeout: 5 },
    // Codex edits files through apply_patch (its input names them) and reads them with shell commands (`Bash`
    // in its hook input): the files such a command names that are there (capture/command-files.ts).
    { event: 'PostToolUse', matcher: CODEX_FILE_TOOLS, command: `${base} file-recall`, timeout: 5 },
    { event: 'Stop', command: `${base} session-end --agent codex`, timeout: 15 },
  ];
}

const BEGIN = '# >>> memory-engine';
const END = '# <<< memory-engine';
const tomlString = (s: string) => JSON.stringify(s);

function block(name: string, body: string[]): string {
  return [`${BEGIN} ${name} (added by \`memory install --codex\`; \`memory uninstall --codex\` removes it)`, ...body, `${END} ${name}`, ''].join('\n');
}

function blockRe(name: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\n?${esc(BEGIN)} ${esc(name)} [^\\n]*\\n[\\s\\S]*?${esc(END)} ${esc(name)}\\n?`);
}

/**
 * Codex gives an MCP server HOME, PATH and a few more of its own choosing: `env_vars` passes on
 * what decides where memory is and how it behaves, so a `MEMORY_HOME` or a setting exported in the
 * shell reaches the server as it reaches the hooks. A TOML array over lines of about 100 characters.
 */
function envVarsLines(): string[] {
  const lines = ['# Codex passes its MCP servers only a few variables: these carry the memory settings of your shell.', 'env_vars = ['];
  let line = ' ';
  for (const name of settingVariables().map(tomlString)) {
    if (line.length + name.length > 98) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name},`;
  }
  lines.push(line, ']');
  return lines;
}

/**
 * An install by an earlier version: config.toml registers our MCP server without passing it every
 * setting variable (envVarsLines), so a MEMORY_* set in the shell does not reach it. False when
 * the server is not ours to judge (absent, or the file does not parse).
 */
export function serverMissesSettings(configText: string): boolean {
  let server: { env_vars?: unknown } | undefined;
  try {
    server = (parseToml(configText) as { mcp_servers?: Record<string, { env_vars?: unknown }> }).mcp_servers?.[MCP_NAME];
  } catch {
    return false;
  }
  if (!server) return false;
  const passed = Array.isArray(server.env_vars) ? server.env_vars : [];
  return settingVariables().some((v) => !passed.includes(v));
}

/** Our blocks removed: the user's file as it was before install. */
export function removeCodexBlocks(text: string): string {
  // Install put the mcp block after a blank line and the notify block first: both go whole.
  return text.replace(blockRe('notify'), '').replace(blockRe('mcp'), '');
}

function parsed(text: string, path: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`${path} is not valid TOML (${(err as Error).message.split('\n')[0]}); not touching it`, 'fix that file, then run install again');
  }
}

/**
 * config.toml with our blocks: `[mcp_servers.memory-engine]` at the end; `notify` (a
 * top-level key, so it goes before every table) at the start unless the user has a notify
 * program of their own. Returns the new text and notes for the user.
 */
export function addCodexBlocks(original: string, d: Pick<SetupDeps, 'nodePath' | 'mainJs' | 'configArg'>, path = 'config.toml'): { text: string; notes: string[] } {
  const base = removeCodexBlocks(original);
  const cfg = parsed(base, path);
  const notes: string[] = [];
  const servers = cfg.mcp_servers as Record<string, unknown> | undefined;
  if (servers && MCP_NAME in servers) {
    throw new UserError(`${path} already defines [mcp_servers.${MCP_NAME}] outside memory-engine's block; not touching it`, 'remove that table (or rename it), then run install again');
  }
  const mcp = block('mcp', [`[mcp_servers.${MCP_NAME}]`, `command = ${tomlString(d.nodePath)}`, `args = [${mcpArgv(d).map(tomlString).join(', ')}]`, ...envVarsLines(), 'startup_timeout_sec = 20']);
  let text = base.length === 0 ? mcp : `${base}${base.endsWith('\n') ? '' : '\n'}\n${mcp}`;
  if (cfg.notify === undefined) {
    const argv = [d.nodePath, d.mainJs, ...(d.configArg ? ['--config', d.configArg] : []), 'codex-notify'];
    text = `${block('notify', [`notify = [${argv.map(tomlString).join(', ')}]`])}${text}`;
  } else {
    notes.push(`${path} already has a notify program: kept. Capture relies on the Stop hook (trust it, below).`);
  }
  parsed(text, path); // never write a file Codex could not read
  return { text, notes };
}

function setupConfigToml(path: string, mode: SetupMode, d: SetupDeps): string[] {
  const original = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const verb = d.dryRun ? 'would ' : '';
  let next: string;
  let notes: string[] = [];
  if (mode === 'install') ({ text: next, notes } = addCodexBlocks(original, d, path));
  else next = removeCodexBlocks(original);
  if (next === original) return [...notes, `${path}: MCP server and notify already ${mode === 'install' ? 'registered' : 'absent'}, unchanged`];
  const lines: string[] = [];
  if (!d.dryRun) {
    const backup = writeWithBackup(path, next, d.now);
    if (backup) lines.push(`Backed up ${path} to ${backup}`);
  }
  lines.push(`${verb}${mode === 'install' ? 'register' : 'remove'} the MCP server [mcp_servers.${MCP_NAME}]${mode === 'install' && notes.length > 0 ? '' : ' and the notify program'} in ${path}`);
  return [...lines, ...notes];
}

export function setupCodex(mode: SetupMode, d: SetupDeps): string[] {
  const home = codexHome(d.env);
  const lines = [
    ...setupHookFile(join(home, 'hooks.json'), codexHooks(d), mode, d),
    ...setupConfigToml(join(home, 'config.toml'), mode, d),
    ...setupSkill(join(home, 'skills'), mode, d),
    ...setupCodexMemoryExtension(home, mode, d),
  ];
  if (mode === 'install' && !d.dryRun) {
    lines.push(
      '',
      'One step is yours: Codex runs a new or changed hook only after you trust it. Start `codex`, type /hooks,',
      'and trust the four memory-engine hooks (SessionStart, UserPromptSubmit, PostToolUse, Stop). Until then the notify',
      'program still captures every turn, but nothing is recalled into Codex sessions. Codex runs hooks unless',
      '`hooks = false` under [features] in config.toml turns them off (earlier versions needed `hooks = true` there).',
      'Next: `memory import --codex --all` saves the Codex sessions you already have.',
    );
  }
  return lines;
}
