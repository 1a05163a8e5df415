/**
 * Sync against what git and the remote really do: a remote branch rewound or deleted and
 * recreated by a machine that was behind, a remote rewritten to unrelated history, a remote
 * commit that drops memories, the person's own paused rebase and detached HEAD, our own
 * interrupted git commands. Real bare remote, real clones, the built CLI. In every case no
 * memory is lost, nothing goes where it must not, and the person is told.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processStart } from '../../src/export/lock.js';
import { enqueue, queueDirFor } from '../../src/app/capture/queue.js';
import { CLI } from '../support/helpers.js';
import { conversation, CWD, git, gitOr, gitWorld, jsonlFiles, liveIn, placeTranscript, sessionStart, type GitWorld, type Machine } from '../support/gitworld.js';

/** What the remote's branch holds: a throwaway clone of it. */
function liveOnRemote(world: GitWorld, name: string): string[] {
  const dir = join(world.root, `inspect-${name}`);
  git(world.root, 'clone', '-q', world.remote, dir);
  return liveIn(join(dir, 'export'));
}

let counter = 0;
/** One captured turn, committed and pushed by the foreground capture. */
function capture(m: Machine, topic: string, push = true): string {
  counter++;
  const q = `Question ${counter} about the ${topic} service`;
  const p = placeTranscript(m, conversation(`s-${m.name}-${counter}`, [[q, `The ${topic} service answer number ${counter}.`]], { startIso: '2026-11-20T09:00:00.000Z' }));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD, ...(push ? [] : ['--no-push'])]);
  assert.equal(r.code, 0, r.stderr);
  return q;
}

function sync(m: Machine): { code: number; stdout: string; stderr: string } {
  return m.cli(['sync']);
}

function syncOk(m: Machine, why = ''): void {
  const r = sync(m);
  assert.equal(r.code, 0, `${m.name} ${why}: ${r.stdout}${r.stderr}`);
}


const remoteHead = (world: GitWorld) => git(world.root, '--git-dir', world.remote, 'rev-parse', 'main');

describe('a remote branch moved back', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('rewound by a force-push of an older state, then pushed to by a machine that was behind: nothing is lost anywhere, and the lost commits are pushed again', () => {
    const a = world.machine('rw-a');
    const b = world.machine('rw-b');
    const c = world.machine('rw-c');
    const asked: string[] = [];
    asked.push(capture(a, 'alpaca'), capture(a, 'alpaca'));
    syncOk(c); // c stops here: it is behind from now on
    const older = remoteHead(world);
    asked.push(capture(a, 'alpaca'), capture(b, 'bison'), capture(b, 'bison'));
    syncOk(a);
    syncOk(b);
    assert.deepEqual(liveIn(a.exportDir), asked.slice().sort());
    // The remote is restored from an older backup: three pushes gone ...
    git(world.root, '--git-dir', world.remote, 'update-ref', 'refs/heads/main', older);
    assert.ok(liveOnRemote(world, 'rewound').length < asked.length, 'the rewind did drop memories from the remote');
    // ... and the machine that was behind pushes on top of it, so the others must replay.
    asked.push(capture(c, 'camel'));
    asked.push(capture(b, 'bison'));
    for (const m of [b, a, c, b]) syncOk(m);
    sessionStart(a);
    for (const m of [a, b, c]) assert.deepEqual(liveIn(m.exportDir), asked.slice().sort(), `${m.name} keeps every memory`);
    assert.deepEqual(liveOnRemote(world, 'after-rewind'), asked.slice().sort(), 'the remote has them all again');
  });

  it('deleted, then recreated by a machine that was behind: the others push their latest again', () => {
    const a = world.machine('del-a');
    const b = world.machine('del-b');
    syncOk(a);
    syncOk(b);
    const base = liveIn(a.exportDir);
    const latest = [capture(a, 'caracal'), capture(a, 'caracal')];
    git(world.root, '--git-dir', world.remote, 'update-ref', '-d', 'refs/heads/main');
    const fromB = capture(b, 'dingo'); // b was behind: its push recreates main without a's latest
    syncOk(b);
    syncOk(a, 'replays what the remote lost');
    syncOk(b);
    const all = [...base, ...latest, fromB].sort();
    for (const m of [a, b]) assert.deepEqual(liveIn(m.exportDir), all, m.name);
    assert.deepEqual(liveOnRemote(world, 'after-delete'), all);
  });
});

describe('a remote that must not be joined', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('a remote commit that drops memories: sync keeps this machine\'s state, pushes nothing, and tells', () => {
    const a = world.machine('drop-a');
    const fresh = join(world.root, 'fresh-remote.git');
    git(world.root, 'init', '-q', '--bare', '-b', 'main', fresh);
    a.setRemoteUrl(fresh);
    const kept = [capture(a, 'ferret'), capture(a, 'ferret')];
    syncOk(a);
    // Another clone rewrites a memory file without a tombstone (a bad tool, a hand edit).
    const c = join(world.root, 'dropper');
    git(world.root, 'clone', '-q', fresh, c);
    const file = jsonlFiles(join(c, 'export'))[0]!;
    writeFileSync(file, `${readFileSync(file, 'utf8').split('\n')[0]}\n`);
    git(c, 'add', '-A');
    git(c, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'trim');
    git(c, 'push', '-q', 'origin', 'main');
    const headBefore = git(a.repo, 'rev-parse', 'HEAD');
    const r = sync(a);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /would drop 1 memory/);
    assert.equal(git(a.repo, 'rev-parse', 'HEAD'), headBefore, 'local state as it was');
    assert.deepEqual(liveIn(a.exportDir), kept.slice().sort());
    assert.match(sessionStart(a).systemMessage ?? '', /would drop 1 memory/);
  });

  it('init onto a repository with unrelated history is refused and records nothing', () => {
    const a = world.machine('init-a', { named: false });
    const other = join(world.root, 'hosted.git');
    git(world.root, 'init', '-q', '--bare', '-b', 'main', other);
    const seed = join(world.root, 'hosted-seed');
    git(world.root, 'clone', '-q', other, seed);
    writeFileSync(join(seed, 'README.md'), '# my-memories\nGenerated by the host.\n');
    git(seed, 'add', '-A');
    git(seed, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'Initial commit');
    git(seed, 'push', '-q', 'origin', 'main');
    const theirs = git(world.root, '--git-dir', other, 'rev-parse', 'main');
    capture(a, 'gecko');
    for (const extra of [[], ['--yes']]) {
      const r = a.cli(['init', '--remote', other, ...extra]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /shares no history/);
      assert.match(r.stderr, /empty/);
    }
    assert.equal(git(world.root, '--git-dir', other, 'rev-parse', 'main'), theirs, 'nothing pushed');
    assert.equal(gitOr(a.repo, 'remote', 'get-url', 'memory'), undefined, 'no git remote recorded');
    const local = join(a.home, 'config.local.toml');
    assert.ok(!existsSync(local) || !readFileSync(local, 'utf8').includes(other), 'remote_url not recorded');
    // The same machine can then name an empty repository.
    const empty = join(world.root, 'empty.git');
    git(world.root, 'init', '-q', '--bare', '-b', 'main', empty);
    const ok = a.cli(['init', '--remote', empty]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(gitOr(a.repo, 'remote', 'get-url', 'memory'), empty);
  });
});

describe('a remote rewritten to another history', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('rewritten to an unrelated history: sync refuses, pushes nothing, exits 1, and session start says so', () => {
    const a = world.machine('un-a');
    const mine = capture(a, 'emu');
    // Someone replaces the memory repository with something else entirely.
    const other = join(world.root, 'unrelated');
    git(world.root, 'init', '-q', '-b', 'main', other);
    writeFileSync(join(other, 'README.md'), '# something else\n');
    git(other, 'add', '-A');
    git(other, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'unrelated');
    git(other, 'push', '-q', '--force', world.remote, 'main');
    const theirs = remoteHead(world);
    capture(a, 'emu');
    const r = sync(a);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /shares no history/);
    assert.equal(remoteHead(world), theirs, 'nothing was pushed over it');
    assert.ok(liveIn(a.exportDir).includes(mine), 'local memories kept');
    assert.match(sessionStart(a).systemMessage ?? '', /shares no history/);
  });
});

async function waitFor(cond: () => boolean, what: string, ms = 60_000, state?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${state ? `: ${state()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The CLI run asynchronously (the test's own servers keep answering meanwhile). */
function cliAsync(m: Machine, args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '-c', m.config, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: m.home, CLAUDE_CONFIG_DIR: m.claudeDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t }));
    child.stdin.end(input);
  });
}

describe('the person\'s own git work and our interrupted work', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('a paused interactive rebase of theirs: the Stop hook commits nothing onto it; after --abort nothing is lost, session start commits and pushes', async () => {
    const m = world.machine('rb');
    capture(m, 'heron');
    // The person's own commits, then `git rebase -i` paused on an `edit` step.
    writeFileSync(join(m.repo, 'notes.txt'), 'one\n');
    git(m.repo, 'add', 'notes.txt');
    git(m.repo, 'commit', '-q', '-m', 'notes one');
    writeFileSync(join(m.repo, 'notes.txt'), 'one\ntwo\n');
    git(m.repo, 'commit', '-q', '-am', 'notes two');
    const theirs = git(m.repo, 'rev-parse', 'HEAD');
    execFileSync('git', ['rebase', '-i', 'HEAD~2'], { cwd: m.repo, env: { ...process.env, GIT_SEQUENCE_EDITOR: "sed -i -e '1s/^pick/edit/'" }, stdio: 'ignore' });
    assert.ok(existsSync(join(m.repo, '.git', 'rebase-merge')), 'the rebase is paused');
    const pausedAt = git(m.repo, 'rev-parse', 'HEAD');
    // Four turns end while it is paused: through the real Stop hook and its worker.
    const questions: string[] = [];
    for (let i = 0; i < 4; i++) {
      const q = `Paused rebase question ${i} about the ibis importer`;
      questions.push(q);
      const p = placeTranscript(m, conversation(`s-rb-${i}`, [[q, `Ibis importer answer ${i}.`]], { startIso: '2026-11-21T09:00:00.000Z' }));
      const r = m.cli(['session-end'], { input: JSON.stringify({ session_id: `s-rb-${i}`, transcript_path: p, cwd: CWD, hook_event_name: 'Stop' }) });
      assert.equal(r.code, 0, r.stderr);
    }
    const log = join(m.repo, '.cache', 'memory.log');
    await waitFor(() => existsSync(log) && /captures deferred/.test(readFileSync(log, 'utf8')), 'the worker to defer');
    assert.equal(git(m.repo, 'rev-parse', 'HEAD'), pausedAt, 'nothing committed onto the rebase');
    assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '', 'nothing written into the work tree');
    assert.match(sessionStart(m).systemMessage ?? '', /rebase of yours is in progress/);
    git(m.repo, 'rebase', '--abort');
    assert.equal(git(m.repo, 'rev-parse', 'HEAD'), theirs, 'their branch as it was');
    // The next session start picks the queue up (no further turn needed).
    const said = sessionStart(m).systemMessage ?? '';
    assert.match(said, /waited since/);
    await waitFor(() => questions.every((q) => liveIn(m.exportDir).includes(q)) && git(m.repo, 'status', '--porcelain', 'export') === '', 'the deferred captures to be committed', 60_000, () => `${git(m.repo, 'status', '--porcelain', 'export')} | ${liveIn(m.exportDir).filter((q) => q.startsWith('Paused')).length} live | ${existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-12).join('\n') : ''}`);
    await waitFor(() => gitOr(m.repo, 'rev-list', '--count', 'memory/main..HEAD') === '0', 'and pushed');
    assert.deepEqual(liveOnRemote(world, 'after-rebase').filter((q) => q.startsWith('Paused rebase')), questions.slice().sort());
  });

  it('our pull keeps the person\'s staged change staged and their unstaged change unstaged', () => {
    const a = world.machine('stage-a');
    const b = world.machine('stage-b');
    capture(b, 'jackal');
    syncOk(b);
    writeFileSync(join(a.repo, 'notes.txt'), 'first\n');
    git(a.repo, 'add', 'notes.txt');
    git(a.repo, 'commit', '-q', '-m', 'notes of mine');
    capture(a, 'kiwi', false); // diverged: a must replay onto b's push
    writeFileSync(join(a.repo, '.gitignore'), `${readFileSync(join(a.repo, '.gitignore'), 'utf8')}# a staged edit\n`);
    git(a.repo, 'add', '.gitignore');
    writeFileSync(join(a.repo, 'notes.txt'), 'first\nsecond, not staged\n');
    const before = git(a.repo, 'status', '--porcelain', '--untracked-files=no');
    assert.equal(before, 'M  .gitignore\n M notes.txt');
    syncOk(a);
    assert.equal(git(a.repo, 'status', '--porcelain', '--untracked-files=no'), before);
    assert.equal(git(a.repo, 'diff', '--cached', '--name-only'), '.gitignore');
    assert.ok(liveIn(a.exportDir).some((q) => q.includes('jackal')), 'pulled');
  });

  it('their uncommitted change that cannot be put back after our pull: kept in the stash, said so, the tree left clean, sync goes on', () => {
    const a = world.machine('pop-a');
    const b = world.machine('pop-b');
    writeFileSync(join(a.repo, 'pop-notes.txt'), 'first\n');
    git(a.repo, 'add', 'pop-notes.txt');
    git(a.repo, 'commit', '-q', '-m', 'notes of mine');
    syncOk(a);
    syncOk(b);
    // b's person changes the same line and pushes; a's person has it changed, not committed.
    writeFileSync(join(b.repo, 'pop-notes.txt'), 'first, as b has it\n');
    git(b.repo, 'commit', '-q', '-am', 'notes from b');
    capture(b, 'quokka');
    syncOk(b);
    writeFileSync(join(a.repo, 'pop-notes.txt'), 'first, as a has it\n');
    const r = sync(a);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /could not be put back.*git stash list/s);
    assert.match(git(a.repo, 'stash', 'list'), /memory-engine: before replaying onto the remote/);
    assert.match(git(a.repo, 'stash', 'show', '-p', 'stash@{0}'), /first, as a has it/, 'their change is in the stash, whole');
    assert.equal(git(a.repo, 'diff', '--name-only', '--diff-filter=U'), '', 'no conflict left in the tree');
    assert.ok(liveIn(a.exportDir).some((q) => q.includes('quokka')), 'pulled');
    capture(a, 'quokka');
    syncOk(a, 'our commits still go through');
  });

  it('a stale index.lock and a queue a crashed worker left: sync clears the one and commits the other', () => {
    const m = world.machine('idx');
    const p = placeTranscript(m, conversation('s-idx', [['Index lock question about the lemur queue', 'Lemur queue answer.']], { startIso: '2026-11-22T09:00:00.000Z' }));
    enqueueLike(m, p);
    const lock = join(m.repo, '.git', 'index.lock');
    writeFileSync(lock, '');
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const r = sync(m);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /commit +pending captures committed/);
    assert.ok(!existsSync(lock), 'the stale lock is gone');
    assert.ok(liveIn(m.exportDir).includes('Index lock question about the lemur queue'));
    assert.equal(git(m.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0');
  });

  it('our own rebase left open by a killed run is aborted and redone, not reported as the person\'s', () => {
    const a = world.machine('ours-a');
    const b = world.machine('ours-b');
    capture(b, 'marmot');
    syncOk(b);
    capture(a, 'newt', false);
    // A rebase of ours, interrupted as kill -9 leaves it: marker written, rebase paused open.
    git(a.repo, 'fetch', '-q', world.remote, 'main');
    writeFileSync(join(a.repo, '.git', 'memory-engine-rebase'), '999999');
    execFileSync('git', ['rebase', '-i', 'FETCH_HEAD'], { cwd: a.repo, env: { ...process.env, GIT_SEQUENCE_EDITOR: "sed -i -e '1s/^pick/edit/'" }, stdio: 'ignore' });
    assert.ok(existsSync(join(a.repo, '.git', 'rebase-merge')));
    const status = a.cli(['status']).stdout;
    assert.doesNotMatch(status, /rebase of yours/, 'status does not call it theirs');
    assert.match(status, /interrupted\s+a rebase memory-engine started was cut short/);
    const said = sessionStart(a).systemMessage ?? '';
    assert.doesNotMatch(said, /rebase of yours|detached/);
    assert.ok(!existsSync(join(a.repo, '.git', 'rebase-merge')), 'no rebase left open');
    assert.equal(git(a.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0', 'synced');
    assert.ok(liveIn(a.exportDir).some((q) => q.includes('marmot')) && liveIn(a.exportDir).some((q) => q.includes('newt')));
  });
});

/** What a Stop hook whose worker died leaves: a queue entry, no worker. */
function enqueueLike(m: Machine, transcript: string): void {
  enqueue(queueDirFor(join(m.home)), { transcript, session_id: 's-idx', cwd: CWD, push: true, flush: false, at: new Date().toISOString() });
}

describe('a remote that accepts the connection and never answers', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('sync ends within the silence limit with every git process gone, keeps the commit, and forget does not wait behind it', async () => {
    const sockets: Socket[] = [];
    const server = createServer((s) => sockets.push(s)); // accepts, reads nothing, says nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const m = world.machine('silent', { extra: 'network_silence_s = 2' });
      const q = capture(m, 'okapi');
      const url = `http://127.0.0.1:${port}/memories.git`;
      m.setRemoteUrl(url);
      const head = git(m.repo, 'rev-parse', 'HEAD');
      const [s, f] = await Promise.all([
        cliAsync(m, ['sync']),
        new Promise<{ code: number | null; ms: number; stdout: string; stderr: string }>((r) => setTimeout(() => void cliAsync(m, ['forget', '--query', 'okapi', '--yes']).then(r), 300)),
      ]);
      assert.equal(s.code, 1, s.stdout + s.stderr);
      assert.match(s.stdout, /pull +timeout: timed out: no answer from the remote for 2 s/);
      assert.ok(s.ms < 20_000, `sync took ${s.ms} ms`);
      assert.ok(f.ms < 20_000, `forget waited ${f.ms} ms`);
      assert.equal(f.code, 0, f.stderr);
      assert.match(f.stderr, /timed out/, `the person is told the push did not go through: ${f.stderr}`);
      assert.ok(!liveIn(m.exportDir).includes(q), 'forgotten');
      assert.notEqual(git(m.repo, 'rev-parse', 'HEAD'), head, 'the tombstone is committed here');
      const left = spawnSync('pgrep', ['-f', `127.0.0.1:${port}`], { encoding: 'utf8' }).stdout.trim();
      assert.equal(left, '', 'no git, remote helper or ssh left running');
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});

describe('a damaged month file (a full disk, a cut)', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('a file cut mid-record is restored from git and never commits a torn line; the cut line is kept in the rejects file', () => {
    const m = world.machine('torn');
    const asked = [capture(m, 'quokka'), capture(m, 'quokka'), capture(m, 'quokka')];
    const file = jsonlFiles(m.exportDir).find((f) => f.includes('_torn.jsonl'))!;
    const text = readFileSync(file, 'utf8');
    // What a full disk leaves: the file ends in the middle of its second record.
    const cut = text.indexOf('\n') + 1 + Math.floor((text.indexOf('\n', text.indexOf('\n') + 1) - text.indexOf('\n')) / 2);
    writeFileSync(file, text.slice(0, cut));
    asked.push(capture(m, 'quokka'));
    for (const f of jsonlFiles(m.exportDir)) {
      for (const line of readFileSync(f, 'utf8').split('\n').filter((l) => l.length > 0)) assert.doesNotThrow(() => JSON.parse(line), `${f}: ${line.slice(0, 60)}`);
    }
    assert.deepEqual(liveIn(m.exportDir), asked.slice().sort(), 'every memory, the cut ones restored');
    assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '');
    const committed = git(m.repo, 'show', `HEAD:export/${file.slice(file.lastIndexOf('/') + 1)}`);
    for (const line of committed.split('\n')) assert.doesNotThrow(() => JSON.parse(line), 'no torn line committed');
    assert.deepEqual(liveOnRemote(world, 'torn'), asked.slice().sort());
  });

  it('a torn last line that was never committed goes to the rejects file and the capture writes its record again', () => {
    const m = world.machine('torn2');
    const first = capture(m, 'rhea');
    const file = jsonlFiles(m.exportDir).find((f) => f.includes('_torn2.jsonl'))!;
    appendFileSync(file, '{"v":1,"id":"half-written","question":"Question abo');
    const second = capture(m, 'rhea');
    assert.deepEqual(liveIn(m.exportDir).filter((q) => q.includes('rhea')), [first, second].sort());
    const rejects = join(m.exportDir, 'archive', '2026-11.rejects.jsonl');
    assert.equal(readFileSync(rejects, 'utf8'), '{"v":1,"id":"half-written","question":"Question abo\n');
    assert.match(m.cli(['status']).stdout, /rejects +1 unreadable line/);
  });
});

describe('a repository lock held for minutes', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('session start does not wait for it, starts on local memories, and says so', () => {
    const m = world.machine('held');
    capture(m, 'tapir');
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = sleeper.pid as number;
      const since = new Date(Date.now() - 5 * 60_000).toISOString();
      writeFileSync(join(m.repo, '.git', 'memory-engine.lock'), JSON.stringify({ pid, host: hostname(), since, start: processStart(pid) }));
      const t = Date.now();
      const said = sessionStart(m).systemMessage ?? '';
      assert.ok(Date.now() - t < 15_000);
      assert.ok(said.includes(`locked since ${since}`), said);
    } finally {
      sleeper.kill();
    }
  });
});

describe('reads never write', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('status (the viewer\'s overview) changes neither config.local.toml nor the git remote; sync, a writer, does', () => {
    const m = world.machine('reader');
    capture(m, 'urial');
    git(m.repo, 'remote', 'set-url', 'memory', join(world.root, 'somewhere-else.git'));
    const local = join(m.home, 'config.local.toml');
    const before = existsSync(local) ? readFileSync(local, 'utf8') : undefined;
    const st = m.cli(['status', '--json']);
    assert.equal(st.code, 0, st.stderr);
    assert.equal((JSON.parse(st.stdout) as { sync: { memory_remote: { url: string } } }).sync.memory_remote.url, world.remote, 'status reports what the config says');
    assert.equal(git(m.repo, 'remote', 'get-url', 'memory'), join(world.root, 'somewhere-else.git'), 'the git remote untouched');
    assert.equal(existsSync(local) ? readFileSync(local, 'utf8') : undefined, before, 'config.local.toml untouched');
    syncOk(m);
    assert.equal(git(m.repo, 'remote', 'get-url', 'memory'), world.remote, 'a writer points the git remote where the config says');
  });
});
