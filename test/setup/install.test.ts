import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { addHooks, removeHooks, type Settings } from '../../src/agents/hooks-json.js';
import { claudeCodeHooks as ourHooks } from '../../src/agents/claude-code/install.js';
import { CLI, makeWorld, runCli, type World } from '../support/helpers.js';

let w: World;
let claude: string;
/** PATH of the commands under test: a folder holding (or not) a stand-in `claude` command. */
let bin: string;
beforeEach(() => {
  w = makeWorld();
  claude = join(w.dir, 'claude-config');
  mkdirSync(claude);
  bin = join(w.dir, 'bin');
  mkdirSync(bin);
});
afterEach(() => w.cleanup());

const cli = (...args: string[]) => runCli(['-c', w.config, ...args], { env: { CLAUDE_CONFIG_DIR: claude, PATH: bin } });

/** A stand-in for the `claude` command line at the rim: it records its arguments, one call per line. */
function fakeClaude(): string {
  const log = join(w.dir, 'claude-calls.txt');
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(log)}\n[ "$2" = remove ] && exit 1\nexit 0\n`, { mode: 0o755 });
  return log;
}
const settingsPath = () => join(claude, 'settings.json');

const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard' }] }],
  },
};

describe('memory install --claude-code', () => {
  it('adds the hooks and the skill, keeps everything else, and is idempotent', () => {
    writeFileSync(settingsPath(), JSON.stringify(USER_SETTINGS, null, 2));
    const r = cli('install', '--claude-code');
    assert.equal(r.code, 0, r.stderr);
    const first = readFileSync(settingsPath(), 'utf8');
    const s = JSON.parse(first) as Settings & typeof USER_SETTINGS;
    assert.equal(s.model, 'opus');
    assert.deepEqual(s.permissions, USER_SETTINGS.permissions);
    assert.deepEqual(s.hooks?.PreToolUse, USER_SETTINGS.hooks.PreToolUse);
    assert.equal(s.hooks?.Stop?.[0]?.hooks?.[0]?.command, 'notify-send done', 'the user\'s own Stop hook stays first');
    const commands = Object.values(s.hooks ?? {}).flat().flatMap((g) => g.hooks ?? []).map((h) => h.command ?? '');
    const start = commands.find((c) => c.includes('session-start --inject'));
    assert.ok(start?.includes(`"${process.execPath}"`), 'absolute node path');
    assert.ok(start?.includes(`"${CLI}"`), 'absolute path of this checkout');
    assert.ok(start?.includes(`--config "${w.config}"`), 'a non-default config travels with the hook');
    assert.equal(commands.filter((c) => c.endsWith(' session-end')).length, 2, 'Stop and SessionEnd');
    assert.deepEqual(s.hooks?.UserPromptSubmit?.[0]?.hooks?.map((h) => h.command), [`"${process.execPath}" "${CLI}" --config "${w.config}" recall`], 'per-prompt recall');
    assert.ok(readdirSync(claude).some((f) => f.startsWith('settings.json.bak-')), 'a backup was written first');

    const skill = readFileSync(join(claude, 'skills', 'memory-recall', 'SKILL.md'), 'utf8');
    assert.match(skill, /^---\nname: memory-recall\ndescription: .*remember.*前に話した.*思い出して/s);
    assert.ok(skill.includes(`"${CLI}"`) && skill.includes(' search "<what you are looking for>"'));

    const again = cli('install', '--claude-code');
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already installed, unchanged/);
    assert.equal(readFileSync(settingsPath(), 'utf8'), first, 'running twice changes nothing');
  });

  it('uninstall removes exactly what install added', () => {
    writeFileSync(settingsPath(), JSON.stringify(USER_SETTINGS, null, 2));
    cli('install', '--claude-code');
    const r = cli('uninstall', '--claude-code');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(readFileSync(settingsPath(), 'utf8')), USER_SETTINGS);
    assert.ok(!existsSync(join(claude, 'skills', 'memory-recall')));
  });

  it('works without an existing settings.json, and --dry-run writes nothing', () => {
    const dry = cli('install', '--claude-code', '--dry-run');
    assert.equal(dry.code, 0);
    assert.match(dry.stdout, /would add hooks/);
    assert.ok(!existsSync(settingsPath()));
    assert.equal(cli('install', '--claude-code').code, 0);
    assert.ok(existsSync(settingsPath()));
    assert.equal(cli('uninstall', '--claude-code').code, 0);
    assert.deepEqual(JSON.parse(readFileSync(settingsPath(), 'utf8')), {});
  });

  it('refuses a settings file that is not valid JSON, and leaves it alone', () => {
    writeFileSync(settingsPath(), '{ "hooks": { oops');
    const r = cli('install', '--claude-code');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /settings\.json is not valid JSON/);
    assert.equal(readFileSync(settingsPath(), 'utf8'), '{ "hooks": { oops');
  });

  it('asks which agent', () => {
    const r = cli('install');
    assert.equal(r.code, 2, 'a usage error');
    assert.match(r.stderr, /--claude-code/);
  });

  it('uninstall leaves a user-written skill of the same name alone', () => {
    mkdirSync(join(claude, 'skills', 'memory-recall'), { recursive: true });
    writeFileSync(join(claude, 'skills', 'memory-recall', 'SKILL.md'), 'my own');
    cli('uninstall', '--claude-code');
    assert.equal(readFileSync(join(claude, 'skills', 'memory-recall', 'SKILL.md'), 'utf8'), 'my own');
  });
});

describe('the MCP server for Claude Code', () => {
  it('install registers it for the user scope through `claude mcp add`; uninstall removes it', () => {
    const log = fakeClaude();
    const r = cli('install', '--claude-code');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /registered the MCP server "memory-engine" for Claude Code/);
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), [
      'mcp remove --scope user memory-engine',
      `mcp add --scope user memory-engine -- ${process.execPath} ${CLI} --config ${w.config} mcp`,
    ]);
    const u = cli('uninstall', '--claude-code');
    assert.equal(u.code, 0, u.stderr);
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').at(-1), 'mcp remove --scope user memory-engine');
  });

  it('without the `claude` command, install prints the exact command to run', () => {
    const r = cli('install', '--claude-code');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /`claude` command is not on PATH/);
    assert.ok(r.stdout.includes(`claude mcp add --scope user memory-engine -- ${process.execPath} ${CLI} --config ${w.config} mcp`), r.stdout);
  });
});

describe('hook merging (pure)', () => {
  const specs = ourHooks('/usr/bin/node', '/opt/memory/dist/src/cli/main.js');
  it('add then remove is the identity', () => {
    const added = addHooks(USER_SETTINGS, specs);
    assert.ok(added.changed);
    assert.equal(addHooks(added.settings, specs).changed, false);
    const removed = removeHooks(added.settings, specs, '/opt/memory/dist/src/cli/main.js');
    assert.deepEqual(removed.settings, USER_SETTINGS);
  });
  it('remove also finds our hooks installed with another node binary', () => {
    const old = addHooks({}, ourHooks('/old/node', '/opt/memory/dist/src/cli/main.js')).settings;
    assert.deepEqual(removeHooks(old, specs, '/opt/memory/dist/src/cli/main.js').settings, {});
  });
});
