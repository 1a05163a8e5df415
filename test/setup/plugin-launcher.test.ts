/**
 * The plugins' launcher (plugin/launcher.mjs, plugin/run.mjs): its state table, and each way a
 * first use goes — the MCP server setting up first while capture hooks arrive, a capture parked
 * after a set-up replayed, Claude Code's session start setting up inside the hook, Codex's in the
 * background. A plugin folder laid out as an agent lays it out (the committed files, the
 * dependencies beside them), its own data folder, a memory home; the real built copy.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, tempDir } from '../support/helpers.js';
import { conversation, CWD } from '../support/gitworld.js';
import { homeMachine, questions, type HomeMachine } from '../support/homes.js';
import { text } from '../support/transcript-builder.js';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';

interface Facts {
  nodeOk: boolean;
  setUpChild: boolean;
  current: boolean;
  terminal: boolean;
  command: string;
  agent: string;
}
type Launcher = { nextStep: (f: Facts) => string; canStripTypes: (v: string) => boolean };
const launcherUrl = new URL(`file://${join(REPO, 'plugin', 'launcher.mjs')}`).href;

describe('the launcher\'s state table', () => {
  it('names one step for every case', async () => {
    const { nextStep, canStripTypes } = (await import(launcherUrl)) as Launcher;
    const base: Facts = { nodeOk: true, setUpChild: false, current: false, terminal: false, command: 'session-end', agent: 'claude-code' };
    const cases: Array<[Partial<Facts>, string]> = [
      [{ nodeOk: false, current: true }, 'too-old'],
      [{ setUpChild: true }, 'set-up-child'],
      [{ current: true }, 'run'],
      [{ current: true, command: 'session-start' }, 'run'],
      [{ terminal: true, command: 'status' }, 'set-up-now'],
      [{ command: 'mcp' }, 'set-up-behind-and-wait'],
      [{ command: 'mcp', agent: 'codex' }, 'set-up-behind-and-wait'],
      [{ command: 'session-start' }, 'set-up-in-hook'],
      [{ command: 'session-start', agent: 'codex' }, 'park-and-set-up-behind'],
      [{ command: 'session-end' }, 'park-and-set-up-behind'],
      [{ command: 'recall' }, 'park-and-set-up-behind'],
      [{ command: 'codex-notify', agent: 'codex' }, 'park-and-set-up-behind'],
    ];
    for (const [over, want] of cases) assert.equal(nextStep({ ...base, ...over }), want, JSON.stringify(over));
    assert.equal(canStripTypes('22.12.0'), false);
    assert.equal(canStripTypes('22.13.0'), true);
    assert.equal(canStripTypes('24.1.0'), true);
  });
});

describe('a plugin\'s first use', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-launcher-')));
  after(() => cleanup());

  /** A plugin folder as an agent lays it out, its data folder, and a machine whose memory home it serves. */
  function plugin(name: string): { dir: string; data: string; m: HomeMachine; env: (agent: string) => NodeJS.ProcessEnv; hook: (agent: string, args: string[], input: unknown) => { code: number | null; stdout: string; stderr: string } } {
    const dir = join(root, `${name}-plugin`);
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'config.toml', 'src', 'skills', 'ui', 'bin', 'plugin', '.claude-plugin']) cpSync(join(REPO, f), join(dir, f), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const data = join(root, `${name}-data`);
    const m = homeMachine(root, name);
    const env = (agent: string): NodeJS.ProcessEnv => {
      const e: NodeJS.ProcessEnv = { ...process.env, ...m.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, CLAUDE_PLUGIN_DATA: data, MEMORY_ENGINE_PLUGIN: agent, ...(agent === 'claude-code' ? { CLAUDE_PLUGIN_ROOT: dir } : {}) };
      for (const k of ['MEMORY_ENGINE_CLI', 'CLAUDECODE', 'CLAUDE_PROJECT_DIR', 'MEMORY_CONFIG']) delete e[k];
      return e;
    };
    const hook = (agent: string, args: string[], input: unknown) => {
      const r = spawnSync(process.execPath, [join(dir, 'plugin', 'run.mjs'), ...args], { env: env(agent), input: typeof input === 'string' ? input : JSON.stringify(input), cwd: m.user, encoding: 'utf8', timeout: 180_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    return { dir, data, m, env, hook };
  }

  function transcriptFor(m: HomeMachine, session: string, q: string): string {
    const t = conversation(session, [[q, `The answer to: ${q}`]], { startIso: new Date(Date.now() - 600_000).toISOString() });
    const d = join(m.projects, encodeProjectDir(CWD));
    mkdirSync(d, { recursive: true });
    const p = join(d, `${session}.jsonl`);
    writeFileSync(p, text(t));
    return p;
  }

  async function eventually<T>(check: () => T | undefined, ms = 60_000): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      const v = check();
      if (v !== undefined) return v;
      if (Date.now() > until) throw new Error(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('the MCP server sets up first: a Stop and a SessionEnd that arrive meanwhile are parked, then captured when it is done', async () => {
    const p = plugin('mcp-first');
    // Someone holds the set-up lock (the MCP server starting, as Claude Code starts it with the session).
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    mkdirSync(join(p.data, '.plugin-build.lock'), { recursive: true });
    writeFileSync(join(p.data, '.plugin-build.lock', 'pid'), String(holder.pid));
    try {
      const q1 = 'Which queue drains the invoice exports on Sundays?';
      const q2 = 'Where are the invoice export retries configured?';
      for (const [session, q, event] of [['mcp-1', q1, 'Stop'], ['mcp-2', q2, 'SessionEnd']] as const) {
        const r = p.hook('claude-code', ['session-end'], { session_id: session, transcript_path: transcriptFor(p.m, session, q), cwd: CWD, hook_event_name: event });
        assert.equal(r.code, 0, r.stderr);
      }
      assert.equal(readdirSync(join(p.data, '.plugin-pending')).length, 2, 'both parked');
      // The MCP server: it waits for the set-up lock, sets up behind it, which replays; then it serves.
      const mcp = spawn(process.execPath, [join(p.dir, 'plugin', 'run.mjs'), 'mcp'], { env: p.env('claude-code'), cwd: p.m.user, stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      mcp.stderr.on('data', (d: Buffer) => (err += d.toString()));
      holder.kill();
      const found = await eventually(() => {
        const qs = existsSync(join(p.m.home, 'export')) ? questions(p.m, 'invoice export') : [];
        return qs.length === 2 ? qs : undefined;
      }, 120_000);
      assert.deepEqual(found, [q2, q1].sort());
      assert.equal(readdirSync(join(p.data, '.plugin-pending')).length, 0, 'nothing left parked');
      mcp.stdin.end();
      mcp.kill();
      assert.match(readFileSync(join(p.data, '.plugin-setup.log'), 'utf8'), /^set up in/, err);
      const cli = join(p.data, 'app', 'dist', 'src', 'cli');
      for (const hook of ['file-recall-hook', 'recall-hook', 'stop-hook']) assert.ok(existsSync(join(cli, `${hook}.bundle.cjs`)), `${hook}: bundled at set-up`);
    } finally {
      holder.kill();
    }
  });

  it('the MCP server ended by its client (kill -9) while the set-up runs: the set-up goes on behind it, and the capture parked meanwhile is kept; the next server serves at once', async () => {
    const p = plugin('mcp-killed');
    const q = 'Which worker renames the invoice archive on the first of the month?';
    // A client starts the server and the session's hooks at once: the server first, here, with
    // the few variables a client gives its servers (Codex: HOME, PATH, …), none of memory's own.
    const full = p.env('claude-code');
    const few: NodeJS.ProcessEnv = { PATH: full.PATH, HOME: join(root, 'elsewhere'), CLAUDE_PLUGIN_DATA: full.CLAUDE_PLUGIN_DATA, CLAUDE_PLUGIN_ROOT: full.CLAUDE_PLUGIN_ROOT, MEMORY_ENGINE_PLUGIN: 'claude-code' };
    const mcp = spawn(process.execPath, [join(p.dir, 'plugin', 'run.mjs'), 'mcp'], { env: few, cwd: p.m.user, stdio: ['pipe', 'pipe', 'pipe'] });
    await eventually(() => (existsSync(join(p.data, '.plugin-build.lock', 'pid')) ? true : undefined), 10_000);
    const r = p.hook('claude-code', ['session-end'], { session_id: 'killed-1', transcript_path: transcriptFor(p.m, 'killed-1', q), cwd: CWD, hook_event_name: 'Stop' });
    assert.equal(r.code, 0, r.stderr);
    // The client is done (Codex's `exec`): it ends its server, set-up or not.
    mcp.kill('SIGKILL');
    // Replayed as the hook ran: into its memory home, under its machine's name.
    assert.deepEqual(await eventually(() => (questions(p.m, 'invoice archive').length > 0 ? questions(p.m, 'invoice archive') : undefined), 120_000), [q]);
    assert.ok(readdirSync(join(p.m.home, 'export')).some((f) => f.endsWith('_mcp-killed.jsonl')), readdirSync(join(p.m.home, 'export')).join(', '));
    assert.equal(existsSync(join(root, 'elsewhere', '.local', 'share', 'memory-engine')), false, 'no memory home made from the server\'s variables');
    assert.match(readFileSync(join(p.data, '.plugin-setup.log'), 'utf8'), /^set up in/);
    assert.equal(readdirSync(join(p.data, '.plugin-pending')).length, 0, 'nothing left parked');
    // The next session's server: built, it answers at once.
    const next = spawnSync(process.execPath, [join(p.dir, 'plugin', 'run.mjs'), 'mcp'], { env: p.env('claude-code'), cwd: p.m.user, input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`, encoding: 'utf8', timeout: 60_000 });
    assert.match(next.stdout, /"serverInfo":\{"name":"memory-engine"/, next.stderr);
  });

  it('a capture parked after the set-up replayed (it was finishing) is replayed by the next hook, whatever it is', async () => {
    const p = plugin('late-park');
    const built = spawnSync(process.execPath, [join(p.dir, 'plugin', 'run.mjs'), '--version'], { env: { ...p.env('claude-code'), MEMORY_ENGINE_CLI: '1' }, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const q = 'Why does the invoice PDF renderer run out of memory?';
    mkdirSync(join(p.data, '.plugin-pending'), { recursive: true });
    writeFileSync(join(p.data, '.plugin-pending', `${Date.now() - 5000}-1.json`), JSON.stringify({ args: ['session-end'], input: JSON.stringify({ session_id: 'late', transcript_path: transcriptFor(p.m, 'late', q), cwd: CWD, hook_event_name: 'SessionEnd' }), cwd: p.m.user }));
    const recall = p.hook('claude-code', ['recall'], { session_id: 'other', cwd: CWD, hook_event_name: 'UserPromptSubmit', prompt: 'hello there, general question' });
    assert.equal(recall.code, 0, recall.stderr);
    assert.equal(readdirSync(join(p.data, '.plugin-pending')).length, 0);
    assert.deepEqual(await eventually(() => (questions(p.m, 'invoice PDF renderer').length > 0 ? questions(p.m, 'invoice PDF renderer') : undefined)), [q]);
  });

  it('Claude Code\'s first session start sets up inside the hook and injects; Codex\'s sets up in the background', () => {
    const p = plugin('first-start');
    assert.equal(p.m.capture('fs-1', [['How do we warm the invoice cache after a deploy?', 'A post-deploy job requests the top invoices.']]).code, 0);
    const start = p.hook('claude-code', ['session-start', '--inject'], { session_id: 'first', cwd: CWD, hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(start.code, 0, start.stderr);
    const out = JSON.parse(start.stdout) as { systemMessage?: string; hookSpecificOutput?: { additionalContext?: string } };
    assert.match(out.systemMessage ?? '', /^memory-engine: set up on first use in [\d.]+ s; memory is on from this session\./);
    assert.match(out.hookSpecificOutput?.additionalContext ?? '', /warm the invoice cache/, 'the first session is injected');
    assert.ok(existsSync(join(p.data, 'app', 'dist', 'src', 'cli', 'main.js')));
    assert.equal(existsSync(join(p.data, 'app', 'dist', 'test')), false, 'only what runs');

    const c = plugin('codex-first');
    const cs = c.hook('codex', ['session-start', '--inject'], { session_id: 'cx', cwd: CWD, hook_event_name: 'SessionStart' });
    assert.equal(cs.code, 0, cs.stderr);
    assert.match(JSON.parse(cs.stdout).systemMessage as string, /setting up on first use .* in the background/);
  });
});
