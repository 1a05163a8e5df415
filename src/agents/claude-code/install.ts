/** Claude Code: where its settings live and what memory-engine registers there. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookSpec } from '../hooks-json.js';
import { commandPrefix, MCP_NAME, mcpArgv, setupHookFile, setupSkill, type SetupDeps, type SetupMode } from '../setup.js';

/**
 * Claude Code's tools that read, change or move a file (Bash: `cat`, `sed -n`, `git mv`), and those
 * that show memories (the MCP server's, under install's name or a plugin's; Bash runs the skill's
 * `memory search`): the file-recall hook runs after them.
 */
export const CLAUDE_FILE_TOOLS = 'Read|Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*memory-engine__memory_search|mcp__.*memory-engine__memory_show';

export function claudeCodeHooks(nodePath: string, mainJs: string, configPath?: string): HookSpec[] {
  const base = commandPrefix({ nodePath, mainJs, ...(configPath ? { configArg: configPath } : {}) });
  return [
    { event: 'SessionStart', command: `${base} session-start --inject`, timeout: 30 },
    { event: 'UserPromptSubmit', command: `${base} recall`, timeout: 5 },
    { event: 'PostToolUse', matcher: CLAUDE_FILE_TOOLS, command: `${base} file-recall`, timeout: 5 },
    { event: 'Stop', command: `${base} session-end`, timeout: 15 },
    { event: 'SessionEnd', command: `${base} session-end`, timeout: 15 },
  ];
}

export function claudeDir(env: NodeJS.ProcessEnv, home = homedir()): string {
  return env.CLAUDE_CONFIG_DIR ? env.CLAUDE_CONFIG_DIR : join(home, '.claude');
}

/** `claude mcp add` for the user scope: every project of this user sees the server. */
export function claudeMcpAddArgs(d: Pick<SetupDeps, 'nodePath' | 'mainJs' | 'configArg'>): string[] {
  return ['mcp', 'add', '--scope', 'user', MCP_NAME, '--', d.nodePath, ...mcpArgv(d)];
}

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function setupMcp(mode: SetupMode, d: SetupDeps): string[] {
  const add = claudeMcpAddArgs(d);
  const remove = ['mcp', 'remove', '--scope', 'user', MCP_NAME];
  const args = mode === 'install' ? add : remove;
  const printed = `claude ${args.map(shellWord).join(' ')}`;
  if (d.dryRun) return [`would run: ${printed}`];
  // Added again on every install, so a moved checkout or a new --config takes effect.
  const before = d.runAgentCli?.('claude', remove);
  if (before === undefined) {
    return mode === 'install'
      ? ['the `claude` command is not on PATH: register the MCP server yourself with', `  ${printed}`]
      : [`the \`claude\` command is not on PATH: if you registered the MCP server, remove it with`, `  ${printed}`];
  }
  if (mode === 'uninstall') return [before.status === 0 ? `removed the MCP server "${MCP_NAME}" (claude mcp remove)` : `no MCP server "${MCP_NAME}" registered in Claude Code`];
  const r = d.runAgentCli?.('claude', add);
  if (r && r.status === 0) return [`registered the MCP server "${MCP_NAME}" for Claude Code (user scope): ${printed}`];
  return [`\`${printed}\` failed (${(r?.output ?? '').trim().split('\n')[0] ?? 'no output'}); run it yourself`];
}

export function setupClaudeCode(mode: SetupMode, d: SetupDeps): string[] {
  const dir = claudeDir(d.env);
  const lines = [
    ...setupHookFile(join(dir, 'settings.json'), claudeCodeHooks(d.nodePath, d.mainJs, d.configArg), mode, d),
    ...setupSkill(join(dir, 'skills'), mode, d),
    ...setupMcp(mode, d),
  ];
  if (mode === 'install' && !d.dryRun) {
    lines.push('', 'Next: `memory import --all` saves the transcripts Claude Code still has (it deletes them after 30 days).');
  }
  return lines;
}
