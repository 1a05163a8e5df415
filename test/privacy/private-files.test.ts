/**
 * Private files stay private: what we rewrite keeps its mode (settings files that hold API
 * keys are often 0600); what we create that holds conversations or settings is 0600 in 0700
 * folders — and a cache an earlier version left readable is tightened.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { makeWorld, runCli, type World } from '../support/helpers.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';

const modeOf = (p: string) => statSync(p).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

let w: World;
beforeEach(() => {
  // A permissive umask, as on many shared hosts: only our own modes can keep files private.
  process.umask(0o022);
  w = makeWorld();
});
afterEach(() => w.cleanup());

describe('files we rewrite keep their mode', () => {
  for (const original of [0o600, 0o640]) {
    it(`Claude Code settings.json (${octal(original)}) through install and uninstall; its backup too`, () => {
      const claude = join(w.dir, 'claude');
      mkdirSync(claude);
      const settings = join(claude, 'settings.json');
      writeFileSync(settings, JSON.stringify({ env: { ANTHROPIC_API_KEY: 'sk-ant-example' } }));
      chmodSync(settings, original);
      const env = { CLAUDE_CONFIG_DIR: claude, PATH: join(w.dir, 'no-bin') };
      assert.equal(runCli(['-c', w.config, 'install', '--claude-code'], { env }).code, 0);
      assert.equal(octal(modeOf(settings)), octal(original), 'after install');
      const backups = readdirSync(claude).filter((f) => f.startsWith('settings.json.bak-'));
      assert.ok(backups.length > 0);
      for (const b of backups) assert.equal(octal(modeOf(join(claude, b))), octal(original), `backup ${b}`);
      assert.equal(runCli(['-c', w.config, 'uninstall', '--claude-code'], { env }).code, 0);
      assert.equal(octal(modeOf(settings)), octal(original), 'after uninstall');
    });
  }

  it('Codex config.toml and hooks.json (0600) through install and uninstall', () => {
    const home = join(w.dir, 'codex');
    mkdirSync(home);
    const toml = join(home, 'config.toml');
    const hooks = join(home, 'hooks.json');
    writeFileSync(toml, 'model = "gpt-5"\n[shell_environment_policy]\nset = { OPENAI_API_KEY = "sk-example" }\n');
    writeFileSync(hooks, '{"hooks":{}}\n');
    chmodSync(toml, 0o600);
    chmodSync(hooks, 0o600);
    const env = { CODEX_HOME: home, PATH: join(w.dir, 'no-bin') };
    for (const cmd of ['install', 'uninstall']) {
      assert.equal(runCli(['-c', w.config, cmd, '--codex'], { env }).code, 0);
      assert.equal(octal(modeOf(toml)), '0600', `config.toml after ${cmd}`);
      assert.equal(octal(modeOf(hooks)), '0600', `hooks.json after ${cmd}`);
    }
  });
});

describe('files we create are this user\'s only', () => {
  function capture(): void {
    // No machine name in the config: the first command fixes one in config.local.toml.
    writeFileSync(w.config, readFileSync(w.config, 'utf8').replace(/^machine_name = .*$/m, ''));
    const t = transcript('s-private', '/home/u/app');
    user(t, 'Where do we keep the staging database password?');
    assistant(t, [{ text: 'In the team vault under staging/db; the app reads it from the environment.' }]);
    const p = join(w.dir, 's-private.jsonl');
    writeFileSync(p, text(t));
    // The Stop hook's queue, then a capture by hand: log, cache, local config, stats.
    const hook = runCli(['-c', w.config, 'session-end', '--no-push'], { input: JSON.stringify({ session_id: 's-private', transcript_path: p, cwd: '/home/u/app', hook_event_name: 'Stop' }) });
    assert.equal(hook.code, 0, hook.stderr);
    const r = runCli(['-c', w.config, 'session-end', '--foreground', '--transcript', p, '--cwd', '/home/u/app']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(runCli(['-c', w.config, 'search', '--mode', 'keyword', 'staging password']).code, 0);
  }

  function assertPrivate(): void {
    const cache = join(w.dir, '.cache');
    assert.equal(octal(modeOf(cache)), '0700', '.cache/');
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) {
          assert.equal(octal(modeOf(p)), '0700', p);
          walk(p);
        } else files.push(p);
      }
    };
    walk(cache);
    const named = (n: string) => files.find((f) => f.endsWith(n));
    for (const n of ['memory.db', 'memory.log']) assert.ok(named(n), `${n} exists: ${files.join(', ')}`);
    for (const f of files.filter((x) => /memory\.db(-wal|-shm)?$|memory\.log$|\.json$/.test(x))) assert.equal(octal(modeOf(f)), '0600', f);
    const local = join(w.dir, 'config.local.toml');
    assert.ok(existsSync(local), 'the machine name was fixed at first use');
    assert.equal(octal(modeOf(local)), '0600', 'config.local.toml');
  }

  it('the cache and its WAL, the log, the queue, the tallies and config.local.toml: 0600 in 0700', () => {
    capture();
    assertPrivate();
  });

  it('a cache folder and database an earlier version left readable by others are tightened', () => {
    capture();
    const cache = join(w.dir, '.cache');
    chmodSync(cache, 0o755);
    for (const f of readdirSync(cache)) if (f.startsWith('memory.db')) chmodSync(join(cache, f), 0o644);
    assert.equal(runCli(['-c', w.config, 'search', '--mode', 'keyword', 'staging password']).code, 0);
    assertPrivate();
  });
});
