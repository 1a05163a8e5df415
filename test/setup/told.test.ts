/**
 * Told where it matters (issue 26): whatever turns memory off or weakens it reaches the person
 * inside the agent as a SessionStart `systemMessage`, at most once a day per cause — first from
 * the command line as the hooks run it, then in real Claude Code sessions. Also `memory doctor`
 * and the command line's manners (usage errors exit 2, `| head` ends quietly).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brokenNativeCopy, CLI, rec, REPO, tempDir } from '../support/helpers.js';
import { encodeEntry } from '../../src/export/jsonl.js';
import { clientBin, clientMissing, hookResponses, runAsync } from '../clients/clients.js';
import { startStandIn, type StandIn } from '../clients/stand-in.js';
import { git, homeMachine, type HomeMachine } from '../support/homes.js';

const START = JSON.stringify({ session_id: 's-told', cwd: '/home/u/app', hook_event_name: 'SessionStart' });

function systemMessage(stdout: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as { systemMessage?: string }).systemMessage : undefined;
}

/** A port on loopback that nothing listens on (bound, then closed): a host that is out of reach. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function oldNode(): string | undefined {
  const r = spawnSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return r.status === 0 && Number(r.stdout.trim().split('.')[0]) < 22 ? '/usr/bin/node' : undefined;
}

describe('told at session start, once a day per cause', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-told-')));
  after(() => cleanup());

  it('a type error in this machine\'s config.local.toml: the session start says memory is off and which key; the next start that day says nothing; recall stays silent', () => {
    const m = homeMachine(root, 'cfg');
    mkdirSync(m.home, { recursive: true });
    writeFileSync(join(m.home, 'config.local.toml'), '[search]\ntop_k = "five"\n');
    const first = m.cli(['session-start', '--inject'], { input: START });
    assert.equal(first.code, 0);
    assert.match(systemMessage(first.stdout) ?? '', /^memory: memory is off for this session — invalid configuration: .*config\.local\.toml: search\.top_k: expected an integer, got the string "five"/);
    const again = m.cli(['session-start', '--inject'], { input: START });
    assert.equal(again.code, 0);
    assert.equal(again.stdout, '', 'told once a day');
    assert.match(again.stderr, /search\.top_k/, 'still in the log and on stderr');
    const recall = m.cli(['recall'], { input: JSON.stringify({ prompt: 'how do we deploy the billing api', hook_event_name: 'UserPromptSubmit' }) });
    assert.equal(recall.code, 0);
    assert.equal(recall.stdout, '');
  });

  it('a type error in the shared config.toml: memory stays on (the defaults, before any good version was committed), and the session start names the file, the line and the key, once a day', () => {
    const m = homeMachine(root, 'cfg-shared');
    mkdirSync(m.home, { recursive: true });
    writeFileSync(join(m.home, 'config.toml'), '[search]\ntop_k = "five"\n');
    const first = m.cli(['session-start', '--inject'], { input: START });
    assert.equal(first.code, 0, first.stderr);
    assert.match(systemMessage(first.stdout) ?? '', /config\.toml \(line 2, key search\.top_k\): search\.top_k: expected an integer, got the string "five"\. Until it is fixed, the defaults apply on this machine/);
    assert.doesNotMatch(systemMessage(first.stdout) ?? '', /memory is off/);
    assert.doesNotMatch(systemMessage(m.cli(['session-start', '--inject'], { input: START }).stdout) ?? '', /config\.toml/, 'told once a day');
  });

  it('no model: the download starts by itself, named with its host; when it fails, the next start says what else works', async () => {
    const port = await closedPort();
    const m = homeMachine(root, 'model', { env: { MEMORY_EMBEDDING_MODEL: 'test-org/tiny-model', MEMORY_EMBEDDING_REMOTE_HOST: `http://127.0.0.1:${port}/`, MEMORY_EMBEDDING_ALLOW_REMOTE: 'true' } });
    const first = m.cli(['session-start'], { input: START });
    assert.equal(first.code, 0, first.stderr);
    assert.match(systemMessage(first.stdout) ?? '', new RegExp(`downloading the embedding model test-org/tiny-model from http://127\\.0\\.0\\.1:${port}/ in the background .*meanwhile memories are found by keywords`));
    // The background fetch fails (nothing listens); its outcome waits for the next start.
    const state = join(m.home, '.cache', 'model-fetch.json');
    for (let i = 0; i < 100 && !/"failed"/.test(spawnSync('cat', [state], { encoding: 'utf8' }).stdout); i++) await new Promise((r) => setTimeout(r, 100));
    const second = m.cli(['session-start'], { input: START });
    const told = systemMessage(second.stdout) ?? '';
    assert.match(told, new RegExp(`could not be downloaded from http://127\\.0\\.0\\.1:${port}/`));
    assert.match(told, /a mirror of the hub: \[embedding\] remote_host/);
    assert.match(told, /a folder that holds the model/);
    assert.doesNotMatch(told, /model pull/, 'never the command that just failed');
    const third = m.cli(['session-start'], { input: START });
    assert.doesNotMatch(third.stdout, /could not be downloaded/, 'once a day');
    const search = m.cli(['search', 'anything']);
    assert.equal(search.code, 0, 'keyword search works meanwhile');
  });

  it('a native module with no binary here: the session start says so, the hook exits 0', () => {
    const m = homeMachine(root, 'native');
    const copy = tempDir('memory-told-native-');
    try {
      const main = brokenNativeCopy(copy.dir);
      const r = spawnSync(process.execPath, [main, 'session-start'], { input: START, env: { ...process.env, ...m.env }, encoding: 'utf8' });
      assert.equal(r.status, 0);
      assert.match(systemMessage(r.stdout) ?? '', /memory is off for this session — the SQLite native module \(better-sqlite3\) has no binary for this platform/);
    } finally {
      copy.cleanup();
    }
  });

  it('a Node.js older than 22: said once a day, never a crash', { skip: oldNode() ? false : 'no Node.js older than 22 at /usr/bin/node on this machine' }, () => {
    const m = homeMachine(root, 'oldnode');
    const run = () => spawnSync(oldNode() as string, [CLI, 'session-start'], { input: START, env: { ...process.env, ...m.env }, encoding: 'utf8' });
    const r = run();
    assert.equal(r.status, 0, r.stderr);
    assert.match(systemMessage(r.stdout) ?? '', /memory is off — memory-engine needs Node\.js 22 or newer; this is v\d+/);
    assert.equal(run().stdout, '');
  });
});

describe('the plugins\' Node.js finder', () => {
  it('with no Node.js 22+ anywhere it looks: memory is off, said at session start once a day, exit 0', { skip: oldNode() || !spawnSync('sh', ['-c', 'command -v node'], { env: { PATH: '/usr/bin:/bin' } }).stdout.length ? false : 'no older Node.js here to hide the newer one behind' }, () => {
    const { dir, cleanup } = tempDir('memory-nonode-');
    try {
      const env = { PATH: '/usr/bin:/bin', HOME: dir, CLAUDE_PLUGIN_DATA: join(dir, 'data') };
      const run = () => spawnSync('sh', [join(REPO, 'plugin', 'node.sh'), 'session-start', '--inject'], { env, input: START, encoding: 'utf8' });
      const r = run();
      assert.equal(r.status, 0);
      assert.match(systemMessage(r.stdout) ?? '', /^memory-engine: memory is off — it needs Node\.js 22 or newer and found none \(looked at: .*node\)\. Install Node\.js 22\+/);
      assert.equal(run().stdout, '', 'once a day');
      const recall = spawnSync('sh', [join(REPO, 'plugin', 'node.sh'), 'recall'], { env, input: '{}', encoding: 'utf8' });
      assert.equal(recall.status, 0);
      assert.equal(recall.stdout, '');
    } finally {
      cleanup();
    }
  });
});

describe('the plugins\' Node.js finder, with a Node.js found before', () => {
  // A wrapper in place of node: it logs each time it is started, then runs the real one.
  const wrapper = (dir: string, real: string): { path: string; starts: () => string[] } => {
    const path = join(dir, 'node-logged');
    const log = join(dir, 'starts.log');
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    return { path, starts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
  };

  it('runs the recorded Node.js without starting it once more for a version check', () => {
    const { dir, cleanup } = tempDir('memory-noderec-');
    try {
      const node = wrapper(dir, process.execPath);
      const data = join(dir, 'data');
      mkdirSync(data);
      writeFileSync(join(data, 'node-path'), `${node.path}\n`);
      const env = { PATH: '/usr/bin:/bin', HOME: dir, CLAUDE_PLUGIN_DATA: data };
      const r = spawnSync('sh', [join(REPO, 'plugin', 'node.sh'), 'recall'], { env, input: '{}', encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, '');
      assert.deepEqual(node.starts(), [`${join(REPO, 'plugin', 'run.mjs')} recall`], 'one start: the run itself');
    } finally {
      cleanup();
    }
  });

  it('a recorded Node.js that is too old now is forgotten, and the search finds a newer one for the same hook', { skip: oldNode() ? false : 'no Node.js older than 22 at /usr/bin/node on this machine' }, () => {
    const { dir, cleanup } = tempDir('memory-noderec-old-');
    try {
      const old = wrapper(dir, oldNode() as string);
      const data = join(dir, 'data');
      mkdirSync(data);
      writeFileSync(join(data, 'node-path'), `${old.path}\n`);
      // The newer one on PATH, as an agent started from a shell with it would have.
      const env = { PATH: `${dirname(process.execPath)}${delimiter}/usr/bin:/bin`, HOME: dir, CLAUDE_PLUGIN_DATA: data };
      const r = spawnSync('sh', [join(REPO, 'plugin', 'node.sh'), 'recall', '--json', '--prompt', 'what did we decide about the parser'], { env, input: '{}', encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(old.starts().length, 1, 'the old one started once, and handed over');
      assert.equal(readFileSync(join(data, 'node-path'), 'utf8').trim(), process.execPath, 'the newer one recorded instead');
      assert.doesNotMatch(r.stderr, /needs Node\.js 22/);
    } finally {
      cleanup();
    }
  });
});

describe('the plugins\' launcher keeps its built copy current', () => {
  it('builds on first use, then trusts its files\' stamp; a new mtime alone is checked by content, a changed source rebuilds', () => {
    const { dir, cleanup } = tempDir('memory-launcher-');
    try {
      // A plugin folder as an agent lays it out: the committed files, the dependencies beside them.
      const plugin = join(dir, 'plugin-root');
      for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'config.toml', 'src', 'skills', 'ui', 'bin', 'plugin']) cpSync(join(REPO, f), join(plugin, f), { recursive: true });
      symlinkSync(join(REPO, 'node_modules'), join(plugin, 'node_modules'), 'dir');
      const data = join(dir, 'data');
      const env = { PATH: `${dirname(process.execPath)}${delimiter}/usr/bin:/bin`, HOME: dir, CLAUDE_PLUGIN_DATA: data, MEMORY_ENGINE_CLI: '1' };
      const run = () => {
        const r = spawnSync(process.execPath, [join(plugin, 'plugin', 'run.mjs'), '--version'], { env, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim(), JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
        return r.stderr;
      };
      const filesStamp = join(data, 'app', 'dist', '.plugin-files');
      assert.match(run(), /set up in/, 'built on first use');
      assert.doesNotMatch(run(), /set up in/, 'then run as built');
      const recorded = readFileSync(filesStamp, 'utf8');
      assert.doesNotMatch(run(), /set up in/);
      assert.equal(readFileSync(filesStamp, 'utf8'), recorded, 'the files\' stamp holds');

      // A copy of the same sources with new mtimes (an agent's update of the folder): read, found the same, no build.
      const source = join(plugin, 'src', 'cli', 'main.ts');
      const later = new Date(Date.now() + 60_000);
      utimesSync(source, later, later);
      assert.doesNotMatch(run(), /set up in/, 'the same content is not built again');
      assert.notEqual(readFileSync(filesStamp, 'utf8'), recorded, 'the new stamp recorded');

      // A changed source: built again.
      writeFileSync(source, `${readFileSync(source, 'utf8')}\n// changed\n`);
      assert.match(run(), /set up in/, 'a changed source is built');
      assert.doesNotMatch(run(), /set up in/);
    } finally {
      cleanup();
    }
  });
});

describe('memory doctor', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-doctor-')));
  after(() => cleanup());

  it('a healthy machine: every link ok, exit 0', () => {
    const m = homeMachine(root, 'well');
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const r = m.cli(['doctor', '--offline', '--json']);
    assert.equal(r.code, 0, r.stdout);
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks;
    assert.deepEqual(checks.map((c) => c.name), ['Node.js', 'SQLite', 'git', 'configuration', 'memory home', 'embedding model', 'memory repository', 'Claude Code']);
    assert.ok(checks.every((c) => c.ok), JSON.stringify(checks));
    assert.match(checks.find((c) => c.name === 'Claude Code')?.detail ?? '', /hooks in settings\.json: SessionStart, UserPromptSubmit, Stop, SessionEnd/);
  });

  it('Codex runs hooks unless its config turns them off: after install --codex with no [features], doctor says ok; `hooks = false` (or the older `codex_hooks = false`) is a FAIL naming what to remove', () => {
    const m = homeMachine(root, 'codex-default');
    assert.equal(m.cli(['install', '--codex']).code, 0);
    assert.equal(m.cli(['install', '--claude-code']).code, 0, 'the home has a ~/.claude: its check passes too');
    const config = join(m.user, '.codex', 'config.toml');
    assert.doesNotMatch(readFileSync(config, 'utf8'), /\[features\]/);
    const codex = () => {
      const r = m.cli(['doctor', '--offline', '--json']);
      return { code: r.code, check: (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; level: string; detail: string; fix?: string }> }).checks.find((c) => c.name === 'Codex') };
    };
    const fine = codex();
    assert.deepEqual([fine.code, fine.check?.ok, fine.check?.level], [0, true, 'ok'], JSON.stringify(fine));
    assert.match(fine.check?.detail ?? '', /hooks on/);
    const theirs = readFileSync(config, 'utf8');
    for (const off of ['hooks = false', 'codex_hooks = false']) {
      writeFileSync(config, `${theirs}\n[features]\n${off}\n`);
      const r = codex();
      assert.deepEqual([r.code, r.check?.ok, r.check?.level], [1, false, 'fail'], off);
      assert.match(r.check?.detail ?? '', /hooks off in config\.toml/);
      assert.match(r.check?.fix ?? '', /remove `hooks = false` under \[features\] in .*config\.toml, or set it to true/);
    }
    writeFileSync(config, `${theirs}\n[features]\nhooks = true\n`);
    assert.equal(codex().check?.level, 'ok');
  });

  it('an install made before the file hook covered Codex\'s shell or its MCP tools (or before it existed, or covered Bash or the MCP tools, in Claude Code): a note naming the install to run again, exit 0', () => {
    const m = homeMachine(root, 'older');
    assert.equal(m.cli(['install', '--codex']).code, 0);
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    writeFileSync(join(m.user, '.codex', 'config.toml'), `${readFileSync(join(m.user, '.codex', 'config.toml'), 'utf8')}\n[features]\nhooks = true\n`);
    const checks = () => {
      const r = m.cli(['doctor', '--offline', '--json']);
      assert.equal(r.code, 0, r.stdout);
      return (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; level: string; fix?: string }> }).checks;
    };
    const now = checks();
    assert.equal(now.find((c) => c.name === 'Codex')?.level, 'ok', JSON.stringify(now));
    assert.equal(now.find((c) => c.name === 'Claude Code')?.level, 'ok');
    // What the earlier installs wrote: the file hook on apply_patch alone; in Claude Code, none.
    const codexHooks = join(m.user, '.codex', 'hooks.json');
    const codexNow = readFileSync(codexHooks, 'utf8');
    const codexMcp = '|mcp__.*memory_engine__memory_search|mcp__.*memory_engine__memory_show"';
    assert.ok(codexNow.includes(`"apply_patch|Bash${codexMcp}`), codexNow);
    // Before the MCP tools (what Codex's memory_search showed): told too.
    writeFileSync(codexHooks, codexNow.replace(`"apply_patch|Bash${codexMcp}`, '"apply_patch|Bash"'));
    const beforeMcp = checks().find((c) => c.name === 'Codex');
    assert.equal(beforeMcp?.level, 'note', JSON.stringify(beforeMcp));
    assert.match(beforeMcp?.fix ?? '', /trust the changed file hook \(\/hooks in codex\), for the memories of a file when Codex reads it with a shell command, and what its memory searches showed it/);
    writeFileSync(codexHooks, codexNow);
    // Before the MCP server was passed the shell's settings (env_vars): told too.
    const codexToml = join(m.user, '.codex', 'config.toml');
    const tomlNow = readFileSync(codexToml, 'utf8');
    const envVars = /\n# Codex passes[^\n]*\nenv_vars = \[[^\]]*\]/.exec(tomlNow)?.[0];
    assert.ok(envVars, tomlNow);
    writeFileSync(codexToml, tomlNow.replace(envVars, ''));
    const beforeVars = checks().find((c) => c.name === 'Codex');
    assert.equal(beforeVars?.level, 'note', JSON.stringify(beforeVars));
    assert.ok(beforeVars?.ok, 'not broken');
    assert.match(beforeVars?.fix ?? '', /run `memory install --codex` again, so that the MCP server in .*config\.toml is passed MEMORY_HOME and the MEMORY_\* settings your shell sets/);
    writeFileSync(codexToml, tomlNow);
    writeFileSync(codexHooks, codexNow.replace(`"apply_patch|Bash${codexMcp}`, '"apply_patch"'));
    const settingsPath = join(m.user, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { hooks: Record<string, unknown> };
    const fileHook = JSON.stringify(settings.hooks.PostToolUse);
    delete settings.hooks.PostToolUse;
    writeFileSync(settingsPath, JSON.stringify(settings));
    const before = checks();
    const codex = before.find((c) => c.name === 'Codex');
    assert.equal(codex?.level, 'note');
    assert.ok(codex?.ok, 'not broken');
    assert.match(codex?.fix ?? '', /run `memory install --codex` again, then trust the changed file hook/);
    assert.match(before.find((c) => c.name === 'Claude Code')?.fix ?? '', /run `memory install --claude-code` again for the file hook/);
    // The file hook as installed before it ran after Bash (a file moved there), or after the MCP tools (what a search showed): told the same way.
    const mcpTools = '|mcp__.*memory-engine__memory_search|mcp__.*memory-engine__memory_show"';
    assert.ok(fileHook.includes(`|Bash${mcpTools}`), fileHook);
    for (const [earlier, by] of [['"', 'before Bash'], ['|Bash"', 'before the MCP tools']] as const) {
      writeFileSync(settingsPath, JSON.stringify({ ...settings, hooks: { ...settings.hooks, PostToolUse: JSON.parse(fileHook.replace(`|Bash${mcpTools}`, earlier)) as unknown } }));
      const older = checks().find((c) => c.name === 'Claude Code');
      assert.equal(older?.level, 'note', by);
      assert.match(older?.fix ?? '', /again for the file hook \(the memories of a file when Claude reads, edits or moves it, and what its memory searches showed it\)/, by);
    }
    assert.equal(m.cli(['install', '--codex']).code, 0);
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const after = checks();
    for (const name of ['Codex', 'Claude Code']) assert.equal(after.find((c) => c.name === name)?.level, 'ok', `${name} after install again`);
  });

  it('a missing model and an unreachable remote: FAIL with the fix, exit 1', async () => {
    const port = await closedPort();
    const m = homeMachine(root, 'sick', { env: { MEMORY_EMBEDDING_MODEL: 'test-org/absent-model' } });
    assert.equal(m.cli(['session-start', '--no-pull'], { input: '{}', env: { MEMORY_EMBEDDING_ALLOW_REMOTE: 'false' } }).code, 0);
    git(m.home, 'remote', 'add', 'memory', `http://127.0.0.1:${port}/memories.git`);
    writeFileSync(join(m.home, 'config.local.toml'), `[sync]\nremote_url = "http://127.0.0.1:${port}/memories.git"\n`);
    const r = m.cli(['doctor']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /FAIL {2}embedding model {4}test-org\/absent-model is not on this machine and downloads are off \(\[embedding\] allow_remote = false\); search is by keywords only\n\s+fix: where it can come from: a mirror of the hub/);
    assert.doesNotMatch(r.stdout, /model pull/, 'never a command that cannot work now');
    assert.match(r.stdout, /FAIL {2}memory remote {6}http:\/\/127\.0\.0\.1:\d+\/memories\.git: .*\n\s+fix: check the URL and your credentials/);
  });
});

describe('command-line manners', () => {
  it('usage errors exit 2; `| head` ends quietly; --version', async () => {
    const { dir, cleanup } = tempDir('memory-manners-');
    try {
      const m = homeMachine(dir, 'manners');
      for (const args of [['search'], ['search', '--top-k', 'x', 'y'], ['show', 'abcd'], ['forget'], ['nosuchcommand']]) {
        const r = m.cli(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      }
      assert.match(m.cli(['show', 'abcd']).stderr, /needs 6 or more characters/);
      assert.match(m.cli(['import', '--project-dir', join(dir, 'nope')]).stderr, /no such folder: /);
      assert.equal(m.cli(['--version']).stdout.trim(), JSON.parse(spawnSync('cat', [join(REPO, 'package.json')], { encoding: 'utf8' }).stdout).version);
      // A reader that stops after the first bytes: no EPIPE trace, exit 0.
      const child = spawn(process.execPath, [CLI, 'search', '--help'], { env: { ...process.env, ...m.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((r) => child.on('close', r));
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /EPIPE|Error/);
    } finally {
      cleanup();
    }
  });
});

describe('told inside a real Claude Code session', () => {
  let root: string;
  let cleanup: () => void;
  let standIn: StandIn;
  const missing = clientMissing('claude');
  before(async () => {
    ({ dir: root, cleanup } = tempDir('memory-told-real-'));
    standIn = await startStandIn(() => 'Stand-in answer: noted, nothing else to add here today.');
  });
  after(async () => {
    await standIn.close();
    cleanup();
  });

  async function sessionStartMessage(m: HomeMachine, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    const project = join(m.user, 'work');
    mkdirSync(project, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, ...m.env, ...extraEnv, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    for (const k of ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_PROJECT_DIR', 'MEMORY_CONFIG']) delete env[k];
    const r = await runAsync(clientBin('claude'), ['-p', 'What is on the list for today?', '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: project, env });
    assert.equal(r.code, 0, r.stderr);
    const start = hookResponses(r.stdout).filter((h) => h.event === 'SessionStart');
    assert.ok(start.length > 0 && start.every((h) => h.outcome === 'success' && h.exit_code === 0), JSON.stringify(start));
    return start.map((h) => systemMessage(h.stdout ?? '') ?? '').join('\n');
  }

  it('each cause reaches the person as a systemMessage, every hook still succeeding', { skip: missing }, async () => {
    // A config error.
    const cfg = homeMachine(root, 'r-cfg');
    assert.equal(cfg.cli(['install', '--claude-code']).code, 0);
    mkdirSync(cfg.home, { recursive: true });
    writeFileSync(join(cfg.home, 'config.local.toml'), '[search]\ntop_k = "five"\n');
    assert.match(await sessionStartMessage(cfg), /memory is off for this session — invalid configuration: .*search\.top_k/);
    // The same typo in the shared config.toml: memory stays on, the file, line and key told.
    const shared = homeMachine(root, 'r-shared');
    assert.equal(shared.cli(['install', '--claude-code']).code, 0);
    mkdirSync(shared.home, { recursive: true });
    writeFileSync(join(shared.home, 'config.toml'), '[search]\ntop_k = "five"\n');
    assert.match(await sessionStartMessage(shared), /config\.toml \(line 2, key search\.top_k\): .*the defaults apply on this machine/);

    // No model, its host out of reach.
    const port = await closedPort();
    const model = homeMachine(root, 'r-model', { env: { MEMORY_EMBEDDING_MODEL: 'test-org/tiny-model', MEMORY_EMBEDDING_REMOTE_HOST: `http://127.0.0.1:${port}/`, MEMORY_EMBEDDING_ALLOW_REMOTE: 'true' } });
    assert.equal(model.cli(['install', '--claude-code']).code, 0);
    assert.match(await sessionStartMessage(model), new RegExp(`downloading the embedding model test-org/tiny-model from http://127\\.0\\.0\\.1:${port}/`));

    // An export folder that is not a memory repository (a config naming a project's folder).
    const repoless = homeMachine(root, 'r-repo');
    const project = join(repoless.user, 'proj');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'main.ts'), 'export {};\n');
    git(repoless.user, 'init', '-q', project);
    git(project, 'add', '-A');
    git(project, 'commit', '-qm', 'project');
    writeFileSync(join(project, 'memory.toml'), '[general]\nexport_dir = "memories"\n');
    assert.equal(repoless.cli(['-c', join(project, 'memory.toml'), 'install', '--claude-code']).code, 0);
    assert.match(await sessionStartMessage(repoless), /never committed on a branch you work on/);

    // The native module without a binary for this platform.
    const native = homeMachine(root, 'r-native');
    const main = brokenNativeCopy(join(root, 'broken-copy'));
    const inst = spawnSync(process.execPath, [main, 'install', '--claude-code'], { env: { ...process.env, ...native.env }, encoding: 'utf8' });
    assert.equal(inst.status, 0, inst.stderr);
    assert.match(await sessionStartMessage(native), /the SQLite native module \(better-sqlite3\) has no binary for this platform/);

    // A memory an earlier version stored with what today's redaction rules remove.
    const leak = homeMachine(root, 'r-leak');
    assert.equal(leak.cli(['install', '--claude-code']).code, 0);
    mkdirSync(join(leak.home, 'export'), { recursive: true });
    const pw = ['Kq7', 'Lm2', '!Zx9'].join(''); // assembled: no scanner hit on this file
    writeFileSync(join(leak.home, 'export', '2026-11_r-leak.jsonl'), `${encodeEntry(rec({ id: 'leaky', machine: 'r-leak', timestamp: '2026-11-02T10:00:00.000Z', question: `本番のパスワードは ${pw} です`, answer: '了解です。' }))}\n`);
    assert.match(await sessionStartMessage(leak), /1 memory in the memory repository holds what today's redaction rules remove \(secret\), stored before those rules/);

    // A Node.js older than 22 behind the hooks.
    const old = oldNode();
    if (old) {
      const o = homeMachine(root, 'r-node');
      assert.equal(spawnSync(process.execPath, [CLI, 'install', '--claude-code'], { env: { ...process.env, ...o.env, PATH: `${dirname(old)}${delimiter}${process.env.PATH}` }, encoding: 'utf8' }).status, 0);
      const settings = join(o.user, '.claude', 'settings.json');
      writeFileSync(settings, spawnSync('cat', [settings], { encoding: 'utf8' }).stdout.split(JSON.stringify(process.execPath).slice(1, -1)).join(old));
      assert.match(await sessionStartMessage(o), /memory is off — memory-engine needs Node\.js 22 or newer/);
    }
  });
});
