/**
 * One truth for the settings (the settings issue): every surface reads the same layers —
 * defaults, the memory home's config.toml, config.local.toml, MEMORY_*, flags — whatever ran
 * first; `--config` names a whole configuration; install writes the same commands whether the
 * home exists or not, and a second install changes no byte.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configFileFor } from '../../src/config/paths.js';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { tempDir } from '../support/helpers.js';
import { conversation, jsonlFiles } from '../support/gitworld.js';
import { git, homeMachine, type HomeMachine } from '../support/homes.js';
import { text } from '../support/transcript-builder.js';

type Settings = { hooks?: Record<string, Array<{ hooks?: Array<{ command?: string }> }>> };

/** Every command registered for `event` in a hooks file. */
function commandsOf(path: string, event: string): string[] {
  const s = JSON.parse(readFileSync(path, 'utf8')) as Settings;
  return (s.hooks?.[event] ?? []).flatMap((g) => g.hooks ?? []).map((h) => h.command ?? '');
}

/** A hook command run as the agent runs it: through `sh -c`, the event's JSON on stdin. */
function runHook(m: HomeMachine, command: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', command], { input: JSON.stringify(input), env: { ...process.env, ...m.env, ...env }, cwd: m.user, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function checkout(m: HomeMachine, folder: string, origin: string): string {
  const dir = join(m.user, 'src', folder);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', origin);
  return dir;
}

/** A Claude Code transcript of a session in `cwd`, where Claude Code keeps it; its path. */
function transcriptIn(m: HomeMachine, cwd: string, session: string, pairs: Array<[string, string]>): string {
  const t = conversation(session, pairs, { cwd, startIso: new Date(Date.now() - 3_600_000).toISOString() });
  const dir = join(m.projects, encodeProjectDir(cwd));
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${session}.jsonl`);
  writeFileSync(p, text(t));
  return p;
}

const allQuestions = (m: HomeMachine): string[] =>
  jsonlFiles(join(m.home, 'export')).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { question?: string }).question ?? ''));

describe('--config names a whole configuration', () => {
  it('naming config.local.toml means its folder\'s configuration: config.toml is read under it, each file listed once', () => {
    const t = tempDir();
    try {
      const local = join(t.dir, 'config.local.toml');
      assert.deepEqual(configFileFor(local, {}, t.dir), { file: join(t.dir, 'config.toml'), explicit: true, named: local });
      const m = homeMachine(t.dir, 'solo');
      delete m.env.MEMORY_MACHINE_NAME; // a fresh machine: its name is fixed at first use, in config.local.toml
      assert.equal(m.cli(['status']).code, 0);
      writeFileSync(join(m.home, 'config.toml'), '[search]\ntop_k = 3\n');
      const r = m.cli(['status', '--json', '--config', join(m.home, 'config.local.toml')]);
      assert.equal(r.code, 0, r.stderr);
      const sources = (JSON.parse(r.stdout) as { config: string[] }).config.filter((s) => !s.startsWith('env:'));
      assert.deepEqual(sources, [join(m.home, 'config.toml'), join(m.home, 'config.local.toml')]);
    } finally {
      t.cleanup();
    }
  });
});

describe('a fresh machine, in the order a newcomer takes it', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-settings-')));
  after(() => cleanup());

  it('status and doctor first, then install: the hooks, run as the agents run them, honour the home\'s config.toml; a second install changes no byte', () => {
    const m = homeMachine(root, 'newcomer');
    delete m.env.MEMORY_MACHINE_NAME; // a fresh machine: its name is fixed at first use, in config.local.toml
    for (const args of [['status'], ['doctor', '--offline']]) {
      const r = m.cli(args);
      assert.ok(r.code === 0 || args[0] === 'doctor', `${args[0]}: ${r.stderr}`);
    }
    assert.ok(existsSync(join(m.home, 'config.local.toml')), 'status fixed this machine\'s name in its own layer');
    const files = [join(m.user, '.claude', 'settings.json'), join(m.user, '.codex', 'hooks.json'), join(m.user, '.codex', 'config.toml'), join(m.home, 'config.toml')];
    const install = () => {
      for (const agent of ['--claude-code', '--codex']) {
        const r = m.cli(['install', agent]);
        assert.equal(r.code, 0, r.stderr);
      }
      return files.map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : '(none)'));
    };
    const first = install();
    const backups = (dir: string) => readdirSync(dir).filter((f) => f.includes('.bak-')).length;
    const before2 = [backups(join(m.user, '.claude')), backups(join(m.user, '.codex'))];
    assert.deepEqual(install(), first, 'a second install changes no byte of settings.json, hooks.json or either config.toml');
    assert.deepEqual([backups(join(m.user, '.claude')), backups(join(m.user, '.codex'))], before2, 'and writes no backup');
    const settings = files[0] as string;
    for (const path of [settings, files[1] as string]) {
      for (const c of commandsOf(path, 'SessionStart')) assert.doesNotMatch(c, /--config/, `${path}: the memory home is found by the hooks themselves: ${c}`);
    }
    assert.doesNotMatch(readFileSync(files[2] as string, 'utf8'), /--config/, 'nor does Codex\'s MCP server or notify name a layer');

    // The shared settings, as the person writes them in the home's config.toml.
    const shared = join(m.home, 'config.toml');
    // Nothing has made the memory repository yet (no session ran): the person writes the file.
    assert.equal(existsSync(join(m.home, '.git')), false);
    writeFileSync(shared, '[privacy]\nexclude_projects = ["api"]\n\n[inject]\nrecent = 1\n');
    const api = checkout(m, 'api', 'https://github.com/acme/api.git');
    const web = checkout(m, 'web', 'https://github.com/acme/web.git');
    const stop = commandsOf(settings, 'Stop')[0] as string;
    const end = commandsOf(settings, 'SessionEnd')[0] as string;
    const start = commandsOf(settings, 'SessionStart')[0] as string;
    const sessions: Array<[string, string, Array<[string, string]>]> = [
      [web, 'web-1', [['How do we paginate the web search results page?', 'Cursor pagination keyed by the last id, 50 per page.']]],
      [web, 'web-2', [['Which CDN caches the web assets in production?', 'The assets are cached at the edge for one day.']]],
      [api, 'api-1', [['Why does the api rate limiter reset at midnight UTC?', 'The limiter buckets are keyed by the UTC day.']]],
    ];
    for (const [cwd, session, pairs] of sessions) {
      const path = transcriptIn(m, cwd, session, pairs);
      for (const [cmd, event] of [[stop, 'Stop'], [end, 'SessionEnd']] as const) {
        const r = runHook(m, cmd, { session_id: session, transcript_path: path, cwd, hook_event_name: event });
        assert.equal(r.code, 0, r.stderr);
      }
    }
    // No memory remote yet: sync commits what the hooks queued here, and says it pushed nothing.
    const synced = m.cli(['sync']);
    assert.match(synced.stderr, /pending captures were committed on this machine/, synced.stderr);
    const kept = allQuestions(m);
    assert.ok(kept.includes('How do we paginate the web search results page?') && kept.includes('Which CDN caches the web assets in production?'), `web's sessions are captured: ${kept.join(' | ')}`);
    assert.ok(!kept.some((q) => q.includes('rate limiter')), 'the excluded project\'s session is not captured');
    assert.doesNotMatch(git(m.home, 'log', '-p', '--all'), /rate limiter/, 'nor committed');

    const inWeb = runHook(m, start, { session_id: 'web-3', cwd: web, hook_event_name: 'SessionStart' });
    assert.equal(inWeb.code, 0, inWeb.stderr);
    const context = (JSON.parse(inWeb.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    assert.equal(context.match(/^## /gm)?.length, 1, `[inject] recent = 1 from config.toml: ${context}`);
    const inApi = runHook(m, start, { session_id: 'api-2', cwd: api, hook_event_name: 'SessionStart' });
    assert.equal(inApi.code, 0, inApi.stderr);
    assert.doesNotMatch(inApi.stdout, /additionalContext/, 'nothing is injected into a session of an excluded project');
    const recall = runHook(m, commandsOf(settings, 'UserPromptSubmit')[0] as string, { session_id: 'api-2', cwd: api, hook_event_name: 'UserPromptSubmit', prompt: 'How do we paginate the web search results page?' });
    assert.equal(recall.stdout, '', 'nor recalled');
  });

  it('hooks an earlier install registered with config.local.toml alone are rewritten by the next session start, which says so once', () => {
    const m = homeMachine(root, 'upgraded');
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const settings = join(m.user, '.claude', 'settings.json');
    const local = join(m.home, 'config.local.toml');
    // What 0.2.0 wrote after `memory status` on a fresh machine.
    const old = readFileSync(settings, 'utf8').replace(/main\.js\\" /g, `main.js\\" --config \\"${local}\\" `);
    writeFileSync(settings, old);
    const start = commandsOf(settings, 'SessionStart')[0] as string;
    assert.match(start, /--config ".*config\.local\.toml"/);
    const first = runHook(m, start, { session_id: 's1', cwd: m.user, hook_event_name: 'SessionStart' });
    assert.equal(first.code, 0, first.stderr);
    assert.match((JSON.parse(first.stdout) as { systemMessage?: string }).systemMessage ?? '', /read .*config\.local\.toml alone.*they read the whole configuration now/);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd']) {
      for (const c of commandsOf(settings, event)) assert.doesNotMatch(c, /--config/, c);
    }
    const again = runHook(m, commandsOf(settings, 'SessionStart')[0] as string, { session_id: 's2', cwd: m.user, hook_event_name: 'SessionStart' });
    assert.doesNotMatch(again.stdout, /alone/, 'told once');
  });
});
