/**
 * `memory install --codex` / `uninstall --codex`: hooks.json, the marked blocks in
 * config.toml (everything else byte for byte), the skill; and the registered MCP command
 * really serves (the SDK client starts it exactly as Codex would).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'smol-toml';
import { claudeCodeHooks } from '../../src/agents/claude-code/install.js';
import { addCodexBlocks, codexHooks, removeCodexBlocks } from '../../src/agents/codex/install.js';
import { settingVariables } from '../../src/config/load.js';
import { CLI, makeWorld, REPO, runCli, type World } from '../support/helpers.js';

let w: World;
let home: string;
beforeEach(() => {
  w = makeWorld();
  home = join(w.dir, 'codex-home');
  mkdirSync(home);
});
afterEach(() => w.cleanup());

const cli = (...args: string[]) => runCli(['-c', w.config, ...args], { env: { CODEX_HOME: home, PATH: join(w.dir, 'no-bin') } });

const USER_TOML = `# my Codex settings
model = "gpt-5"
approval_policy = "on-request"   # keep asking

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "gpt-5-mini"
`;
const USER_HOOKS = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard' }] }] } };

describe('memory install --codex', () => {
  it('registers hooks, the MCP server, notify and the skill; says how to trust the hooks; idempotent; uninstall restores every byte', async () => {
    writeFileSync(join(home, 'config.toml'), USER_TOML);
    writeFileSync(join(home, 'hooks.json'), JSON.stringify(USER_HOOKS, null, 2));
    const r = cli('install', '--codex');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /type \/hooks/);
    const toml = readFileSync(join(home, 'config.toml'), 'utf8');
    assert.ok(toml.includes(USER_TOML), 'the user\'s text is kept byte for byte');
    const cfg = parse(toml) as { model: string; notify: string[]; mcp_servers: Record<string, { command: string; args: string[] }>; profiles: unknown };
    assert.equal(cfg.model, 'gpt-5');
    assert.deepEqual({ ...cfg.mcp_servers.docs }, { command: 'npx', args: ['-y', 'docs-mcp'] });
    assert.deepEqual(cfg.mcp_servers['memory-engine']?.command, process.execPath);
    assert.deepEqual(cfg.mcp_servers['memory-engine']?.args, [CLI, '--config', w.config, 'mcp']);
    assert.deepEqual(cfg.notify, [process.execPath, CLI, '--config', w.config, 'codex-notify']);
    const hooks = JSON.parse(readFileSync(join(home, 'hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    assert.deepEqual(hooks.hooks.PreToolUse, USER_HOOKS.hooks.PreToolUse);
    const base = `"${process.execPath}" "${CLI}" --config "${w.config}"`;
    assert.deepEqual(hooks.hooks.SessionStart?.[0]?.hooks.map((h) => h.command), [`${base} session-start --inject`]);
    assert.deepEqual(hooks.hooks.UserPromptSubmit?.[0]?.hooks.map((h) => h.command), [`${base} recall`]);
    assert.deepEqual(hooks.hooks.Stop?.[0]?.hooks.map((h) => h.command), [`${base} session-end --agent codex`]);
    assert.ok(readFileSync(join(home, 'skills', 'memory-recall', 'SKILL.md'), 'utf8').includes(`"${CLI}"`));
    assert.ok(readdirSync(home).some((f) => f.startsWith('config.toml.bak-')), 'a backup first');

    // The registered command serves MCP, started the way Codex starts it.
    const server = cfg.mcp_servers['memory-engine'] as { command: string; args: string[] };
    const client = new Client({ name: 'codex-standin', version: '1' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, stderr: 'pipe' }));
    try {
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'memory_search'));
    } finally {
      await client.close();
    }

    const again = cli('install', '--codex');
    assert.equal(again.code, 0);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), toml, 'twice is once');
    const u = cli('uninstall', '--codex');
    assert.equal(u.code, 0, u.stderr);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), USER_TOML);
    assert.deepEqual(JSON.parse(readFileSync(join(home, 'hooks.json'), 'utf8')), USER_HOOKS);
    assert.ok(!existsSync(join(home, 'skills', 'memory-recall')));
  });

  it('the door into Codex\'s own memory: memories/extensions/memory-engine/instructions.md names how to search; twice changes nothing; uninstall removes exactly it', () => {
    const ext = join(home, 'memories', 'extensions');
    // Another extension of the person's, and Codex's own memory files: never touched.
    mkdirSync(join(ext, 'ad_hoc', 'notes'), { recursive: true });
    writeFileSync(join(ext, 'ad_hoc', 'notes', 'mine.md'), 'my note\n');
    writeFileSync(join(home, 'memories', 'MEMORY.md'), '# What Codex remembers\n');
    assert.equal(cli('install', '--codex').code, 0);
    const path = join(ext, 'memory-engine', 'instructions.md');
    const text = readFileSync(path, 'utf8');
    assert.match(text, /verbatim/);
    assert.match(text, /memory_search/);
    assert.ok(text.includes(`"${CLI}" --config "${w.config}" search`), 'the command as this install runs it');
    assert.match(text, /last time/);
    assert.match(text, /`file` \(src\/checkout\.ts\) keeps the sessions that worked on that file/, 'and how to ask for a file\'s sessions');
    const again = cli('install', '--codex');
    assert.match(again.stdout, /memory extension already written, unchanged/);
    assert.equal(readFileSync(path, 'utf8'), text);
    assert.equal(cli('uninstall', '--codex').code, 0);
    assert.ok(!existsSync(join(ext, 'memory-engine')), 'its file and folder gone');
    assert.equal(readFileSync(join(ext, 'ad_hoc', 'notes', 'mine.md'), 'utf8'), 'my note\n');
    assert.equal(readFileSync(join(home, 'memories', 'MEMORY.md'), 'utf8'), '# What Codex remembers\n');
    // A file of that name the person wrote themselves is not ours to remove.
    mkdirSync(join(ext, 'memory-engine'), { recursive: true });
    writeFileSync(path, 'my own instructions\n');
    assert.equal(cli('uninstall', '--codex').code, 0);
    assert.equal(readFileSync(path, 'utf8'), 'my own instructions\n');
  });

  it('keeps a notify program of the user\'s own; --dry-run writes nothing; no config.toml yet is fine', () => {
    const own = 'notify = ["terminal-notifier"]\n';
    writeFileSync(join(home, 'config.toml'), own);
    const dry = cli('install', '--codex', '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), own);
    assert.ok(!existsSync(join(home, 'hooks.json')));
    const r = cli('install', '--codex');
    assert.match(r.stdout, /already has a notify program: kept/);
    assert.deepEqual([...(parse(readFileSync(join(home, 'config.toml'), 'utf8')) as { notify: string[] }).notify], ['terminal-notifier']);
    cli('uninstall', '--codex');
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), own);

    const empty = join(w.dir, 'fresh-home');
    const f = runCli(['-c', w.config, 'install', '--codex'], { env: { CODEX_HOME: empty, PATH: join(w.dir, 'no-bin') } });
    assert.equal(f.code, 0, f.stderr);
    assert.ok(existsSync(join(empty, 'config.toml')) && existsSync(join(empty, 'hooks.json')));
  });

  it('refuses a config.toml that is not valid TOML, or one with its own [mcp_servers.memory-engine], and changes nothing', () => {
    writeFileSync(join(home, 'config.toml'), 'model = "gpt-5\n');
    const r = cli('install', '--codex');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /config\.toml is not valid TOML/);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), 'model = "gpt-5\n');
    const theirs = '[mcp_servers.memory-engine]\ncommand = "elsewhere"\n';
    writeFileSync(join(home, 'config.toml'), theirs);
    assert.match(cli('install', '--codex').stderr, /already defines \[mcp_servers\.memory-engine\]/);
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), theirs);
  });

  it('the blocks (pure): add then remove is the identity, with or without a final newline in the middle of edits', () => {
    const d = { nodePath: '/usr/bin/node', mainJs: '/opt/m/dist/src/cli/main.js' };
    for (const text of [USER_TOML, '', 'model = "x"\n', '[a]\nb = 1\n']) {
      const { text: added } = addCodexBlocks(text, d);
      assert.equal(removeCodexBlocks(added), text);
      assert.equal(addCodexBlocks(added, d).text, added);
    }
  });

  it('each plugin registers what install registers: the same events, tool matchers and commands', () => {
    type Groups = Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>>;
    const fromPlugin = (groups: Groups) =>
      Object.entries(groups).flatMap(([event, gs]) => gs.flatMap((g) => g.hooks.map((h) => [event, g.matcher ?? '', (h.command.split('node.sh" ')[1] ?? h.command).trim()].join(' · ')))).sort();
    const fromInstall = (specs: Array<{ event: string; matcher?: string; command: string }>) => specs.map((h) => [h.event, h.matcher ?? '', h.command.split('"MAIN" ')[1] as string].join(' · ')).sort();
    const codexPlugin = JSON.parse(readFileSync(join(REPO, 'plugin', 'codex-hooks.json'), 'utf8')) as { hooks: Groups };
    assert.deepEqual(fromPlugin(codexPlugin.hooks), fromInstall(codexHooks({ nodePath: 'NODE', mainJs: 'MAIN' })));
    assert.ok(fromPlugin(codexPlugin.hooks).includes('PostToolUse · apply_patch|Bash|mcp__.*memory_engine__memory_search|mcp__.*memory_engine__memory_show · file-recall'), 'Codex\'s patches, shell reads and memory searches');
    const claudePlugin = JSON.parse(readFileSync(join(REPO, '.claude-plugin', 'plugin.json'), 'utf8')) as { hooks: Groups };
    assert.deepEqual(fromPlugin(claudePlugin.hooks), fromInstall(claudeCodeHooks('NODE', 'MAIN')));
  });

  it('Codex\'s MCP server is passed every variable that decides where memory is and how it behaves, by install and by the plugin alike', () => {
    const wanted = settingVariables();
    for (const name of ['MEMORY_HOME', 'MEMORY_CONFIG', 'XDG_DATA_HOME', 'MEMORY_MACHINE_NAME', 'MEMORY_SEARCH_TOP_K', 'MEMORY_PRIVACY_EXCLUDE_PROJECTS', 'GIT_CONFIG_GLOBAL', 'SSH_AUTH_SOCK', 'HTTPS_PROXY', 'https_proxy']) assert.ok(wanted.includes(name), name);
    assert.equal(new Set(wanted).size, wanted.length, 'each once');
    const installed = parse(addCodexBlocks(USER_TOML, { nodePath: '/usr/bin/node', mainJs: '/opt/m/main.js' }).text) as { mcp_servers: Record<string, { env_vars?: string[] }> };
    assert.deepEqual(installed.mcp_servers['memory-engine']?.env_vars, wanted);
    assert.equal(installed.mcp_servers.docs?.env_vars, undefined, 'the person\'s own servers untouched');
    const plugin = JSON.parse(readFileSync(join(REPO, '.codex-plugin', 'plugin.json'), 'utf8')) as { mcpServers: Record<string, { env_vars?: string[] }> };
    assert.deepEqual(plugin.mcpServers['memory-engine']?.env_vars, wanted, '.codex-plugin/plugin.json lists what settingVariables() lists');
  });
});
