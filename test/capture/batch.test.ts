/**
 * Batched commits: Stop fires after every turn, but commits and pushes come at most once
 * per interval, and the history stays small. In process, with the clock handed in, on real
 * git and the real capture pipeline (tiny model). The Stop hook itself: light, and queued.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { makeContext, type IO } from '../../src/app/context.js';
import { runtimeOf } from '../../src/app/context.js';
import { lazyEmbedder } from '../../src/embed/embedder.js';
import { queueDirFor, readQueue } from '../../src/app/capture/queue.js';
import { recordStop } from '../../src/app/capture/stop.js';
import { drainOnce } from '../../src/app/capture/worker.js';
import { conversation, CWD, git, gitObjectsKb, gitWorld, placeTranscript, type GitWorld } from '../support/gitworld.js';
import { CLI, TRACER, tempDir } from '../support/helpers.js';
import { homeMachine } from '../support/homes.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';

function exportBytes(dir: string): number {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
}

let world: GitWorld;
before(() => (world = gitWorld()));
after(() => world.cleanup());

describe('batched commits', () => {
  it('300 Stops of a long session: commits once per interval, .git grows by at most 3x the export; SessionEnd commits the rest at once', async () => {
    const m = world.machine('longday');
    let clock = Date.parse('2026-11-10T08:00:00.000Z');
    const io: IO = {
      stdout: new PassThrough(), stderr: new PassThrough() as unknown as NodeJS.WriteStream, stdin: new PassThrough(),
      // A small repack threshold so that this session crosses it a few times.
      env: { HOME: m.home, MEMORY_SYNC_REPACK_LOOSE_KB: '512' }, cwd: m.repo, now: () => new Date(clock),
    };
    const ctx = await makeContext({ config: m.config }, io);
    const rt = runtimeOf(ctx, { quiet: true });
    const loadEmbedder = lazyEmbedder(ctx.embedderConfig()); // as the worker does: loaded once
    const where = { baseDir: ctx.config.baseDir, projectsDir: () => ctx.config.general.claude_projects_dir };
    const t = conversation('s-longday', [], { startIso: '2026-11-10T08:00:00.000Z' });
    const path = placeTranscript(m, t);
    const commitsBefore = Number(git(m.repo, 'rev-list', '--count', 'HEAD'));
    const gitBefore = gitObjectsKb(m.repo).total;
    const exportBefore = exportBytes(m.exportDir);
    let started = 0;
    const STOPS = 300;
    for (let i = 0; i < STOPS; i++) {
      user(t, `Turn ${i}: how should the pelican importer handle batch ${i} of the nightly load?`);
      assistant(t, [{ text: `For batch ${i}, the pelican importer retries twice, then parks the rows in pelican_dead_${i % 7}. ${'It logs the row ids and the error. '.repeat(6)}` }]);
      writeFileSync(path, text(t));
      const r = await recordStop(where, { transcript: path, sessionId: 's-longday', cwd: CWD, push: true, flush: false }, { now: io.now, spawnWorker: () => (started++, undefined) });
      assert.equal(r.queued, path);
      await drainOnce(rt, { loadEmbedder });
      clock += 20_000; // a turn every 20 s: 100 minutes in all
    }
    const batched = Number(git(m.repo, 'rev-list', '--count', 'HEAD')) - commitsBefore;
    // 100 minutes at one commit per 300 s: about 20 (the first turn commits at once).
    assert.ok(batched >= 15 && batched <= 22, `${batched} commits for ${STOPS} Stops`);
    assert.equal(started, STOPS, 'no worker held the lock, so each Stop tried to start one (the test drains in process)');
    assert.notEqual(git(m.repo, 'status', '--porcelain', 'export'), '', 'the last turns wait for the next batch');

    await recordStop(where, { transcript: path, sessionId: 's-longday', cwd: CWD, push: true, flush: true }, { now: io.now, spawnWorker: () => undefined });
    const last = await drainOnce(rt, { loadEmbedder });
    assert.equal(last.commit, 'committed', 'SessionEnd commits at once');
    assert.equal(last.pushed, 'pushed');
    assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '');
    assert.equal(git(m.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0');
    assert.equal(readQueue(queueDirFor(ctx.config.baseDir)).length, 0);

    const lines = readFileSync(join(m.exportDir, '2026-11_longday.jsonl'), 'utf8').trim().split('\n');
    assert.equal(new Set(lines.map((l) => (JSON.parse(l) as { id: string }).id)).size, STOPS, 'every turn is a memory');
    const gitGrowth = gitObjectsKb(m.repo).total - gitBefore;
    const exportGrowth = (exportBytes(m.exportDir) - exportBefore) / 1024;
    assert.ok(gitGrowth <= 3 * exportGrowth, `.git grew ${gitGrowth} KiB for ${exportGrowth.toFixed(0)} KiB of memories`);
    const loose = gitObjectsKb(m.repo).loose;
    assert.ok(loose < 512, `${loose} KiB of loose objects left`);
  });
});

describe('a new home\'s first capture', () => {
  it('init\'s commit of the shared settings starts no batch: the first capture is committed and pushed at once (another machine has it), the next one within the interval waits for its batch', async () => {
    const { dir, cleanup } = tempDir('memory-first-');
    try {
      const remote = join(dir, 'memories.git');
      git(dir, 'init', '-q', '--bare', remote);
      const m = homeMachine(dir, 'newcomer');
      const init = m.cli(['init', '--remote', remote]);
      assert.equal(init.code, 0, init.stderr);
      assert.match(git(m.home, 'log', '--format=%s', '-1'), /^settings: /, 'init committed the shared settings');
      let clock = Date.now() + 20_000; // the first session's first turn, 20 s after init
      const io: IO = { stdout: new PassThrough(), stderr: new PassThrough() as unknown as NodeJS.WriteStream, stdin: new PassThrough(), env: m.env, cwd: m.user, now: () => new Date(clock) };
      const ctx = await makeContext({}, io);
      const rt = runtimeOf(ctx, { quiet: true });
      const loadEmbedder = lazyEmbedder(ctx.embedderConfig());
      const where = { baseDir: ctx.config.baseDir, projectsDir: () => ctx.config.general.claude_projects_dir };
      const t = transcript('s-first', m.user);
      t.clock = clock;
      const path = join(m.projects, 's-first.jsonl');
      const turn = async (q: string, a: string) => {
        user(t, q);
        assistant(t, [{ text: a }]);
        writeFileSync(path, text(t));
        await recordStop(where, { transcript: path, sessionId: 's-first', cwd: m.user, push: true, flush: false }, { now: io.now, spawnWorker: () => undefined });
        return drainOnce(rt, { loadEmbedder });
      };
      const first = await turn('How do we rotate the heron signing key without downtime?', 'Publish the new key first, sign with it a day later, then retire the old one.');
      assert.deepEqual([first.commit, first.pushed], ['committed', 'pushed']);
      const other = homeMachine(dir, 'desktop');
      assert.equal(other.cli(['init', '--remote', remote]).code, 0);
      const found = other.cli(['search', '--json', '--mode', 'keyword', 'heron signing key']);
      assert.ok((JSON.parse(found.stdout) as { hits: Array<{ question: string }> }).hits.some((h) => h.question.startsWith('How do we rotate the heron signing key')), found.stdout);
      clock += 20_000;
      const second = await turn('And the old key: how long do we keep verifying with it?', 'A week, for tokens signed just before the switch.');
      assert.equal(second.commit, 'waiting', 'the batch started by the first capture');
      assert.notEqual(git(m.home, 'status', '--porcelain', 'export'), '');
    } finally {
      cleanup();
    }
  });
});

describe('the Stop hook', () => {
  it('queues the transcript, starts one worker, imports no SQLite, git, model or node:crypto, and the worker commits at SessionEnd', async () => {
    const m = world.machine('quick');
    const t = conversation('s-quick', [['Quick question about the heron pipeline', 'The heron pipeline runs nightly.']], { startIso: '2026-11-11T08:00:00.000Z' });
    const p = placeTranscript(m, t);
    const trace = join(world.root, 'stop-trace.txt');
    writeFileSync(trace, '');
    const r = spawnSync(process.execPath, [CLI, '-c', m.config, 'session-end'], {
      input: JSON.stringify({ session_id: 's-quick', transcript_path: p, cwd: CWD, hook_event_name: 'Stop' }),
      encoding: 'utf8',
      env: { ...process.env, HOME: m.home, TRACE_IMPORTS_FILE: trace, NODE_OPTIONS: `--import ${TRACER}` },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    const loaded = readFileSync(trace, 'utf8');
    assert.match(loaded, /cli\/stop-hook(\.bundle\.cjs|\.js)/, 'the fast path ran (its bundle, or its modules when none was built)');
    for (const heavy of ['better-sqlite3', 'sqlite-vec', 'simple-git', 'huggingface', 'onnxruntime', 'program.js', 'node:crypto']) {
      assert.ok(!loaded.includes(heavy), `the Stop hook loaded ${heavy}`);
    }
    const deadline = Date.now() + 60_000;
    const captured = () => existsSync(join(m.exportDir, '2026-11_quick.jsonl'));
    while (!captured() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    assert.ok(captured(), 'the worker captured the turn');
    // SessionEnd: the worker (still waiting for its batch, or a new one) commits and pushes now.
    user(t, 'One more quick question about heron retries');
    assistant(t, [{ text: 'Heron retries three times.' }]);
    writeFileSync(p, text(t));
    const e = spawnSync(process.execPath, [CLI, '-c', m.config, 'session-end'], {
      input: JSON.stringify({ session_id: 's-quick', transcript_path: p, cwd: CWD, hook_event_name: 'SessionEnd' }),
      encoding: 'utf8',
      env: { ...process.env, HOME: m.home },
    });
    assert.equal(e.status, 0, e.stderr);
    const pushed = () => {
      try {
        return git(m.repo, 'status', '--porcelain', 'export') === '' && git(m.repo, 'rev-list', '--count', 'memory/main..HEAD') === '0' && readFileSync(join(m.exportDir, '2026-11_quick.jsonl'), 'utf8').includes('Heron retries');
      } catch {
        return false;
      }
    };
    const workerGone = () => !existsSync(join(m.home, '.cache', 'worker.lock'));
    while (!(workerGone() && pushed()) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    assert.ok(workerGone(), 'the worker exits when nothing is left');
    assert.ok(pushed(), 'committed and pushed after SessionEnd');
  });
});
