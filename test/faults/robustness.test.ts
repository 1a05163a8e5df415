/** Bad input never loses data or breaks a session: files, cache, crashes, concurrency, git, queries. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeEntry } from '../../src/export/jsonl.js';
import { acquireLock, acquireLockAsync, processStart } from '../../src/export/lock.js';
import { openCache } from '../../src/store/cache.js';
import { buildKeywordQuery } from '../../src/search/query.js';
import { conversation, CWD, git, gitWorld, placeTranscript, remoteLog, type GitWorld, type Machine } from '../support/gitworld.js';
import { CLI, makeWorld, rec, runCli, tempDir, writeJsonl } from '../support/helpers.js';

const place = (m: Machine, session: string, pairs: Array<[string, string]>) => placeTranscript(m, conversation(session, pairs));

function liveIds(m: Machine): string[] {
  const { store } = openCache({ dbPath: join(m.repo, '.cache', 'memory.db'), exportDir: m.exportDir, model: 'tiny-model', dim: 0 });
  try {
    return store.recent(undefined, 100_000).filter((r) => r.machine === m.name).map((r) => r.id).sort();
  } finally {
    store.close();
  }
}

function validLines(m: Machine): Array<{ id: string; updated_at: string; deleted?: boolean }> {
  return readdirSync(m.exportDir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(m.exportDir, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as { id: string; updated_at: string; machine: string }];
          } catch {
            return [];
          }
        }),
    )
    .filter((r) => (r as { machine?: string }).machine === m.name);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let world: GitWorld;
before(() => (world = gitWorld()));
after(() => world.cleanup());

describe('JSONL that is damaged in every way', () => {
  it('rebuild finishes, counts what it skipped, and keeps every valid memory', () => {
    const w = makeWorld();
    try {
      const good = (id: string) => encodeEntry(rec({ id, question: `question ${id} about llamas`, answer: `answer ${id} about llamas` }));
      const invalidUtf8 = Buffer.from(`${good('utf8').replace('about llamas', 'about ZZ llamas')}\n`);
      invalidUtf8[invalidUtf8.indexOf('ZZ')] = 0xc3; // a lone lead byte
      writeFileSync(join(w.exportDir, '2026-11_laptop.jsonl'), Buffer.concat([
        Buffer.from(`${good('a')}\n{"v":1,"id":"wrong","machine":"laptop","timestamp":"2026-11-01T00:00:00Z","question":5,"answer":"x"}\n`),
        Buffer.from(`{"v":9,"id":"future","machine":"laptop"}\n${good('dup')}\n`),
        Buffer.from(`${encodeEntry(rec({ id: 'dup', updated_at: '2026-11-21T00:00:00Z', question: 'question dup about llamas', answer: 'newer dup answer about llamas' }))}\n`),
        invalidUtf8,
        Buffer.from(`{"v":1,"id":"big","machine":"laptop","timestamp":"2026-11-01T00:00:00Z","question":"q","answer":"${'y'.repeat(50 * 1024 * 1024)}"}\n`),
        Buffer.from(`${good('b')}\n{"v":1,"id":"torn","question":"que`),
      ]));
      writeFileSync(join(w.exportDir, '2026-10_laptop.jsonl'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
      writeFileSync(join(w.exportDir, '2026-09_laptop.jsonl'), '');
      writeFileSync(join(w.exportDir, '2026-08_laptop.jsonl'), '# not jsonl at all\nhello world\n');
      const r = runCli(['-c', w.config, 'rebuild', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { records: number; skipped_lines: number; repaired_utf8_lines: number; skipped_by_reason: Record<string, number> };
      assert.equal(out.records, 4, 'a, b, dup (newest), utf8');
      assert.equal(out.repaired_utf8_lines, 1);
      const by = out.skipped_by_reason;
      assert.ok((by['invalid-record'] ?? 0) >= 1, JSON.stringify(by));
      assert.equal(by['unknown-version'], 1, JSON.stringify(by));
      assert.equal(by.oversize, 1, JSON.stringify(by));
      assert.equal(by['torn-tail'], 2, `the torn record, and the garbage file's last fragment: ${JSON.stringify(by)}`);
      assert.ok((by['invalid-json'] ?? 0) >= 2, 'the garbage files');
      assert.equal(out.skipped_lines, Object.values(by).reduce((a, b) => a + b, 0));
      const hits = JSON.parse(runCli(['-c', w.config, 'search', '--mode', 'keyword', '--json', '--top-k', '10', 'llamas']).stdout) as { hits: Array<{ id: string; answer: string }> };
      assert.deepEqual(hits.hits.map((h) => h.id).sort(), ['a', 'b', 'dup', 'utf8']);
      assert.equal(hits.hits.find((h) => h.id === 'dup')?.answer, 'newer dup answer about llamas');
    } finally {
      w.cleanup();
    }
  });
});

describe('the cache', () => {
  it('locked by another process: a search waits its turn and answers', async () => {
    const w = makeWorld();
    try {
      writeFileSync(join(w.exportDir, '2026-11_laptop.jsonl'), `${encodeEntry(rec({ id: 'x', question: 'how to feed the alpaca', answer: 'alpacas eat hay' }))}\n`);
      assert.equal(runCli(['-c', w.config, 'rebuild']).code, 0);
      writeFileSync(join(w.exportDir, '2026-11_laptop.jsonl'), `${encodeEntry(rec({ id: 'y', question: 'alpaca shearing season', answer: 'shear alpacas in spring' }))}\n`, { flag: 'a' });
      const holder = spawn(process.execPath, ['-e', `
        const Database = require(${JSON.stringify(join(process.cwd(), 'node_modules', 'better-sqlite3'))});
        const db = new Database(${JSON.stringify(join(w.dir, '.cache', 'memory.db'))});
        db.exec('BEGIN EXCLUSIVE'); process.stdout.write('locked\\n');
        setTimeout(() => { db.exec('COMMIT'); db.close(); }, 2500);`], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const c = spawn(process.execPath, [CLI, '-c', w.config, 'search', '--mode', 'keyword', '--json', 'alpaca'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        c.stdout.on('data', (d: Buffer) => (out += d.toString()));
        c.on('exit', (code) => resolve({ code, out }));
      });
      assert.equal(r.code, 0);
      assert.deepEqual((JSON.parse(r.out) as { hits: Array<{ id: string }> }).hits.map((h) => h.id).sort(), ['x', 'y']);
    } finally {
      w.cleanup();
    }
  });
});

describe('crash safety', () => {
  it('a worker killed (SIGKILL) at random points while appending and in git loses and doubles nothing', async () => {
    const m = world.machine('crashy');
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 120; i++) pairs.push([`Crash test question ${i} about the bison herd`, `Crash test answer ${i}: the bison herd moved north. ${'More detail. '.repeat(20)}`]);
    const p = place(m, 's-crash', pairs);
    // How long the whole capture takes on this machine (a twin in a world of its own, run to the
    // end): the kills fall inside a run, not after it, however fast the machine.
    const twinWorld = gitWorld();
    let whole: number;
    try {
      const twin = twinWorld.machine('crashy');
      const twinP = place(twin, 's-crash', pairs);
      const t0 = Date.now();
      assert.equal(twin.cli(['session-end', '--foreground', '--transcript', twinP, '--cwd', CWD]).code, 0);
      whole = Date.now() - t0;
    } finally {
      twinWorld.cleanup();
    }
    const deadline = Date.now() + 12_000;
    let kills = 0;
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    while (Date.now() < deadline && kills < 12) {
      const child = spawn(process.execPath, [CLI, '-c', m.config, 'session-end', '--foreground', '--transcript', p, '--cwd', CWD], { stdio: 'ignore' });
      // The first run somewhere in its first half; then anywhere in a whole run's time.
      await sleep(Math.floor(whole * (kills === 0 ? 0.05 + rand() * 0.45 : 0.05 + rand() * 0.9)));
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        kills++;
      }
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on('exit', r)));
    }
    await sleep(2100); // an index.lock left by a killed git is stale after 2 s
    const final = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
    assert.equal(final.code, 0, final.stderr);
    assert.ok(kills > 0, 'at least one run was killed');
    assert.equal(liveIds(m).length, 120, 'every turn is a memory');
    const lines = validLines(m);
    assert.equal(new Set(lines.map((l) => `${l.id} ${l.updated_at}`)).size, lines.length, 'no line written twice');
    assert.equal(new Set(lines.map((l) => l.id)).size, 120);
    assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '', 'everything whole is committed');
    assert.ok(!existsSync(join(m.repo, '.git', 'rebase-merge')) && !existsSync(join(m.repo, '.git', 'rebase-apply')));
    assert.equal(git(m.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0', 'and pushed');
  });

  it('a full rebuild killed (SIGKILL) half-way leaves no file behind for long: the next rebuild removes it and loses nothing', async () => {
    const w = makeWorld();
    try {
      const lines = [];
      for (let i = 0; i < 6000; i++) lines.push(rec({ id: `kill-${i}`, question: `Question ${i} about the walrus colony and its ${i % 97} keepers`, answer: `Answer ${i}: ${'the walrus colony counts its keepers each morning. '.repeat(8)}` }));
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), lines);
      const cacheDir = join(w.dir, '.cache');
      const builds = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.includes('.building-')) : []);
      const child = spawn(process.execPath, [CLI, '-c', w.config, 'rebuild', '--full'], { stdio: 'ignore' });
      const deadline = Date.now() + 30_000;
      while (builds().length === 0 && child.exitCode === null && Date.now() < deadline) await sleep(5);
      await sleep(50);
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on('exit', r)));
      assert.equal(child.signalCode, 'SIGKILL', 'killed while it was building');
      assert.ok(builds().includes(`memory.db.building-${child.pid}`), 'its half-built file is there');
      // A build of a live process (its lock taken over) is not touched.
      writeFileSync(join(cacheDir, `memory.db.building-${process.pid}`), 'a live build');
      const r = runCli(['-c', w.config, 'rebuild', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as { records: number }).records, 6000, 'every memory, from the JSONL');
      assert.deepEqual(builds(), [`memory.db.building-${process.pid}`], 'the dead build removed, the live one kept');
    } finally {
      w.cleanup();
    }
  });

  it('a lock left by a dead process is taken over at once', () => {
    const m = world.machine('stale');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(m.repo, '.git', 'memory-engine.lock'), JSON.stringify({ pid: Number(dead.stdout), host: hostname(), since: '2026-01-01T00:00:00Z' }));
    const started = Date.now();
    const r = m.cli(['session-end', '--foreground', '--transcript', place(m, 's-stale', [['Stale lock question about the moose', 'The moose answer is here.']]), '--cwd', CWD]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 20_000);
    assert.equal(liveIds(m).length, 1);
  });
});

describe('lock owners are judged alive by pid and start time, not by age', () => {
  it('a live pid with another start time (reused) is taken over; a live owner of any age is not', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const lock = join(dir, 'x.lock');
      const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        const pid = sleeper.pid as number;
        const start = processStart(pid);
        assert.ok(start, 'this system tells a process start time');
        const old = new Date(Date.now() - 3 * 3600_000);
        // Live, same start, three hours old: still held (a long push is not taken over).
        writeFileSync(lock, JSON.stringify({ pid, host: hostname(), since: old.toISOString(), start }));
        utimesSync(lock, old, old);
        assert.throws(() => acquireLock(lock, { timeoutMs: 100 }), /is busy/);
        await assert.rejects(acquireLockAsync(lock, { timeoutMs: 100 }), /is busy/);
        // The same pid recorded with another start time: a reused pid, the owner is gone.
        writeFileSync(lock, JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), start: String(Number(start) - 1) }));
        const release = await acquireLockAsync(lock, { timeoutMs: 100 });
        assert.equal((JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid, process.pid);
        release();
        assert.ok(!existsSync(lock));
      } finally {
        sleeper.kill();
      }
    } finally {
      cleanup();
    }
  });
});

describe('concurrency', () => {
  it('four session-end workers and a monthly-merge at once are serialised; nothing is lost', async () => {
    const m = world.machine('crowd');
    const paths = [0, 1, 2, 3].map((i) => place(m, `s-crowd-${i}`, [[`Crowd question ${i} about the caribou`, `Crowd answer ${i} about the caribou.`]]));
    const procs = [
      ...paths.map((p) => [CLI, '-c', m.config, 'session-end', '--foreground', '--transcript', p, '--cwd', CWD]),
      [CLI, '-c', m.config, 'monthly-merge'],
    ].map(
      (args) =>
        new Promise<number | null>((resolve) => {
          const c = spawn(process.execPath, args, { stdio: 'ignore' });
          c.on('exit', resolve);
        }),
    );
    assert.deepEqual(await Promise.all(procs), [0, 0, 0, 0, 0]);
    assert.equal(m.cli(['session-start'], { input: '{}' }).code, 0);
    assert.equal(liveIds(m).length, 4);
    assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '');
  });
});

describe('git in bad shapes: hooks exit 0, nothing is lost, no force-push, no open rebase', () => {
  it('detached HEAD: nothing is committed onto it (that commit would be stranded); queued, said so, committed once back on the branch', () => {
    const m = world.machine('detached');
    const head = git(m.repo, 'rev-parse', 'HEAD');
    git(m.repo, 'checkout', '-q', '--detach');
    const r = m.cli(['session-end', '--foreground', '--transcript', place(m, 's-det', [['Detached question about the wombat', 'Detached answer about the wombat.']]), '--cwd', CWD]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /HEAD is detached/);
    assert.equal(git(m.repo, 'rev-parse', 'HEAD'), head, 'no commit on the detached HEAD');
    assert.equal(git(m.repo, 'status', '--porcelain'), '', 'nothing written into the work tree');
    git(m.repo, 'checkout', '-q', 'main');
    const s = m.cli(['sync']);
    assert.equal(s.code, 0, s.stdout + s.stderr);
    assert.equal(liveIds(m).length, 1, 'captured once back on the branch');
    assert.match(git(m.repo, 'log', '-1', '--format=%s'), /^memory: detached/);
    assert.equal(git(m.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0', 'and pushed');
  });

  it('no remote at all: committed locally with a note', () => {
    const m = world.machine('noremote', { named: false });
    git(m.repo, 'remote', 'remove', 'origin');
    const r = m.cli(['session-end', '--foreground', '--transcript', place(m, 's-nr', [['No remote question about the koala', 'No remote answer about the koala.']]), '--cwd', CWD]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /committed on this machine only: no memory remote is named \(run `memory init --remote/);
    assert.match(git(m.repo, 'log', '-1', '--format=%s'), /^memory: noremote/);
    assert.ok(!remoteLog(world).some((s) => s.startsWith('memory: noremote')));
  });

  it('authentication refused: commit kept, said so, exit 0', () => {
    const m = world.machine('authfail');
    // A git remote helper for the scheme "deny://" that refuses like a server rejecting credentials.
    const bin = join(world.root, 'deny-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'git-remote-deny'), "#!/bin/sh\necho \"fatal: Authentication failed for '$2'\" >&2\nexit 128\n", { mode: 0o755 });
    m.setRemoteUrl('deny://memory.example/repo.git');
    const r = m.cli(['session-end', '--foreground', '--transcript', place(m, 's-auth', [['Auth failure question about the puffin', 'Auth failure answer about the puffin.']]), '--cwd', CWD], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    assert.equal(r.code, 0);
    assert.match(r.stderr, /push: git refused the credentials \(.*Authentication failed.*\); commits kept locally/);
    assert.match(git(m.repo, 'log', '-1', '--format=%s'), /^memory: authfail/);
    assert.equal(liveIds(m).length, 1);
  });

  it('a dirty export folder (a stray file, an uncommitted edit) does not block capture', () => {
    const m = world.machine('dirty');
    writeFileSync(join(m.exportDir, 'notes.txt'), 'my scratch notes');
    const r = m.cli(['session-end', '--foreground', '--transcript', place(m, 's-dirty', [['Dirty tree question about the lemur', 'Dirty tree answer about the lemur.']]), '--cwd', CWD]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(liveIds(m).length, 1);
    assert.ok(remoteLog(world).some((s) => s.startsWith('memory: dirty')));
  });

  it('diverged history that cannot rebase: aborted, local commit kept, said so', () => {
    const a = world.machine('div-a');
    const b = world.machine('div-b');
    // Both machines change the same shared file differently: a real conflict.
    for (const [m, text] of [[a, 'from a\n'], [b, 'from b\n']] as const) {
      writeFileSync(join(m.exportDir, 'README.txt'), text);
    }
    assert.equal(a.cli(['session-end', '--foreground', '--transcript', place(a, 's-div-a', [['Diverged question from a about otters', 'Answer from a about otters.']]), '--cwd', CWD]).code, 0);
    const r = b.cli(['session-end', '--foreground', '--transcript', place(b, 's-div-b', [['Diverged question from b about otters', 'Answer from b about otters.']]), '--cwd', CWD]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /push: a conflict that is not on memory files; rebase aborted, commits kept locally \(.*README\.txt/);
    assert.ok(!existsSync(join(b.repo, '.git', 'rebase-merge')) && !existsSync(join(b.repo, '.git', 'rebase-apply')), 'no rebase left open');
    assert.match(git(b.repo, 'log', '-1', '--format=%s'), /^memory: div-b/);
    assert.equal(liveIds(b).length, 1);
    assert.ok(!remoteLog(world).some((s) => s.startsWith('memory: div-b')), 'nothing forced onto the remote');
    // Told at once, not after a day: a conflict does not heal by itself.
    const st = JSON.parse(b.cli(['status', '--json']).stdout) as { sync: { last_error: { status: string } | null } };
    assert.equal(st.sync.last_error?.status, 'conflict');
    const s = b.cli(['session-start'], { input: JSON.stringify({ cwd: CWD }) });
    assert.equal(s.code, 0);
    assert.match((JSON.parse(s.stdout) as { systemMessage?: string }).systemMessage ?? '', /stopped on a git conflict outside the memory files.*README\.txt/);
    assert.ok(!existsSync(join(b.repo, '.git', 'rebase-merge')), 'session start aborted its own attempt too');
  });
});

describe('search input fuzz', () => {
  it('random unicode, operators, quotes, NUL and 100 KB queries never throw or fail in SQL', () => {
    const { dir, cleanup } = tempDir();
    try {
      const exportDir = join(dir, 'export');
      mkdirSync(exportDir);
      writeFileSync(join(exportDir, '2026-11_laptop.jsonl'), `${encodeEntry(rec({ id: 'f', question: 'fuzz target 認証 DB "quoted"', answer: 'NEAR AND OR NOT * : - ( ) 🔥' }))}\n`);
      const { store } = openCache({ dbPath: join(dir, 'db', 'm.db'), exportDir, model: 'm', dim: 0 });
      const pieces = ['"', "'", '*', ':', '-', '(', ')', '^', 'NEAR', 'AND', 'OR', 'NOT', '\u0000', '🔥', '認証', 'DB', 'ｆｕｌｌ', '\uD800', '\u200B', '\\', '%', '_', '{', '}', ' ', '\n', 'a', 'zz', 'sqlite'];
      let seed = 7;
      const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
      const deadline = Date.now() + 4000;
      let n = 0;
      while (Date.now() < deadline && n < 3000) {
        let q = '';
        const len = Math.floor(rand() * 30);
        for (let i = 0; i < len; i++) q += rand() < 0.3 ? String.fromCodePoint(Math.floor(rand() * 0x2ffff)) : (pieces[Math.floor(rand() * pieces.length)] as string);
        const kq = buildKeywordQuery(q);
        if (kq.match) store.fts(kq.match, {}, 10);
        n++;
      }
      const huge = buildKeywordQuery('x'.repeat(50_000) + ' 認証'.repeat(20_000));
      if (huge.match) store.fts(huge.match, {}, 10);
      assert.ok(n > 100, `${n} random queries ran`);
      store.close();
    } finally {
      cleanup();
    }
  });
});
