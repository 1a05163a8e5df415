/**
 * Sync against what git and the remote really do: a remote branch rewound or deleted and
 * recreated by a machine that was behind, a remote rewritten to unrelated history, a remote
 * commit that drops memories, the person's own paused rebase and detached HEAD, our own
 * interrupted git commands. Real bare remote, real clones, the built CLI. In every case no
 * memory is lost, nothing goes where it must not, and the person is told.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { liveRecords } from '../src/export/jsonl.js';
import { readEntries } from '../src/export/read.js';
import type { ExportEntry } from '../src/types.js';
import { conversation, CWD, git, gitOr, gitWorld, placeTranscript, type GitWorld, type Machine } from './gitworld.js';

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const n of readdirSync(d, { withFileTypes: true })) {
      if (n.isDirectory()) walk(join(d, n.name));
      else if (n.name.endsWith('.jsonl') && !n.name.endsWith('.rejects.jsonl')) out.push(join(d, n.name));
    }
  };
  walk(dir);
  return out;
}

/** The live memories' questions in a folder of JSONL files, sorted. */
function liveIn(dir: string): string[] {
  const entries: ExportEntry[] = [];
  for (const f of jsonlFiles(dir)) readEntries(f, { onEntry: (e) => entries.push(e) });
  return liveRecords(entries).map((r) => r.question).sort();
}

/** What the remote's branch holds: a throwaway clone of it. */
function liveOnRemote(world: GitWorld, name: string): string[] {
  const dir = join(world.root, `inspect-${name}`);
  git(world.root, 'clone', '-q', world.remote, dir);
  return liveIn(join(dir, 'export'));
}

let counter = 0;
/** One captured turn, committed and pushed by the foreground capture. */
function capture(m: Machine, topic: string): string {
  counter++;
  const q = `Question ${counter} about the ${topic} service`;
  const p = placeTranscript(m, conversation(`s-${m.name}-${counter}`, [[q, `The ${topic} service answer number ${counter}.`]], { startIso: '2026-11-20T09:00:00.000Z' }));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
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

function sessionStart(m: Machine): { systemMessage?: string } {
  const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ cwd: CWD, hook_event_name: 'SessionStart' }) });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { systemMessage?: string };
}

const remoteHead = (world: GitWorld) => git(world.root, '--git-dir', world.remote, 'rev-parse', 'main');

describe('a remote branch moved back', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('rewound by a force-push of an older state: nothing is lost anywhere, and the lost commits are pushed again', () => {
    const a = world.machine('rw-a');
    const b = world.machine('rw-b');
    const asked: string[] = [];
    asked.push(capture(a, 'alpaca'), capture(a, 'alpaca'));
    const older = remoteHead(world);
    asked.push(capture(a, 'alpaca'), capture(b, 'bison'));
    syncOk(a);
    syncOk(b);
    assert.deepEqual(liveIn(a.exportDir), asked.slice().sort());
    // The remote is restored from an older backup: two pushes gone.
    git(world.root, '--git-dir', world.remote, 'update-ref', 'refs/heads/main', older);
    assert.ok(liveOnRemote(world, 'rewound').length < asked.length, 'the rewind did drop memories from the remote');
    asked.push(capture(b, 'bison'));
    for (const m of [b, a, b]) {
      const r = sync(m);
      assert.equal(r.code, 0, `${m.name}: ${r.stdout}${r.stderr}`);
    }
    sessionStart(a);
    for (const m of [a, b]) assert.deepEqual(liveIn(m.exportDir), asked.slice().sort(), `${m.name} keeps every memory`);
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
