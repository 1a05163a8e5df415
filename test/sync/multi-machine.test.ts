/**
 * Several machines writing the same month through one git remote: monthly-merge while
 * others append late lines, two clones under one machine name, default machine names,
 * naming the memory remote (init), and sync health. Real git, real clones, the built CLI.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { liveRecords } from '../../src/export/jsonl.js';
import { readEntries } from '../../src/export/read.js';
import type { ExportEntry } from '../../src/types.js';
import { conversation, CWD, git, gitOr, gitWorld, placeTranscript, remoteLog, type GitWorld, type Machine } from '../support/gitworld.js';
import { assistant, text, user } from '../support/transcript-builder.js';

/** Every JSONL file under a machine's export folder (archive and rejects included). */
function jsonlFiles(m: Machine): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const n of readdirSync(dir, { withFileTypes: true })) {
      if (n.isDirectory()) walk(join(dir, n.name));
      else if (n.name.endsWith('.jsonl')) out.push(join(dir, n.name));
    }
  };
  walk(m.exportDir);
  return out.sort();
}

/** No conflict marker and no line that fails to parse, in any memory file. */
function assertAllLinesValid(m: Machine): void {
  for (const f of jsonlFiles(m)) {
    const text = readFileSync(f, 'utf8');
    assert.ok(!/^(<<<<<<<|=======|>>>>>>>)/m.test(text), `${m.name}: conflict marker in ${f}`);
    for (const line of text.split('\n').filter((l) => l.length > 0)) {
      assert.doesNotThrow(() => JSON.parse(line), `${m.name}: unparseable line in ${f}: ${line.slice(0, 80)}`);
    }
  }
}

/** The live memories (after last-write-wins and tombstones) a machine holds: their questions, sorted. */
function liveQuestions(m: Machine): string[] {
  const entries: ExportEntry[] = [];
  for (const f of jsonlFiles(m)) if (!f.endsWith('.rejects.jsonl')) readEntries(f, { onEntry: (e) => entries.push(e) });
  return liveRecords(entries).map((r) => r.question).sort();
}

function end(m: Machine, session: string, pairs: Array<[string, string]>, startIso: string): string {
  const p = placeTranscript(m, conversation(session, pairs, { startIso }));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
  assert.equal(r.code, 0, r.stderr);
  return p;
}

function start(m: Machine): { code: number; stdout: string; stderr: string } {
  const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ cwd: CWD, hook_event_name: 'SessionStart' }) });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

function status(m: Machine): { records: number; machine: string; sync: { memory_remote: { url: string } | null; ahead: number | null; last_error: unknown; shared_machine_name: boolean; last_push: string | null } } {
  const r = m.cli(['status', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function assertSettled(m: Machine): void {
  assert.equal(git(m.repo, 'status', '--porcelain', 'export'), '', `${m.name}: nothing left uncommitted`);
  assert.ok(!existsSync(join(m.repo, '.git', 'rebase-merge')) && !existsSync(join(m.repo, '.git', 'rebase-apply')), `${m.name}: no rebase left open`);
  assert.equal(gitOr(m.repo, 'rev-list', '--count', 'memory/main..HEAD'), '0', `${m.name}: nothing left unpushed`);
}

describe('three machines write the same month; one merges it while the others append late lines', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('every machine converges on the same memories, nothing lost, no conflict marker, no machine wedged', () => {
    const [a, b, c] = ['alpha', 'bravo', 'charlie'].map((n) => world.machine(n)) as [Machine, Machine, Machine];
    const june = '2026-06-10T09:00:00.000Z';
    end(a, 'a-june', [['Alpha June question about the lynx rollout', 'Alpha: the lynx rollout starts Monday.']], june);
    const tb = conversation('b-june', [['Bravo June question about the lynx metrics', 'Bravo: lynx metrics go to the new dashboard.']], { startIso: june });
    const pb = placeTranscript(b, tb);
    assert.equal(b.cli(['session-end', '--foreground', '--transcript', pb, '--cwd', CWD]).code, 0);
    end(c, 'c-june', [['Charlie June question about the lynx alerts', 'Charlie: lynx alerts page the on-call.']], june);
    for (const m of [a, b, c]) start(m);
    assert.ok(existsSync(join(b.exportDir, '2026-06_alpha.jsonl')) && existsSync(join(b.exportDir, '2026-06_charlie.jsonl')));

    // alpha folds June into the archive and pushes; bravo and charlie have not pulled yet.
    const merge = a.cli(['monthly-merge', '--json']);
    assert.equal(merge.code, 0, merge.stderr);
    assert.ok(remoteLog(world).some((s) => s.startsWith('memory: monthly-merge 2026-06')));

    // bravo: a grown answer keeps its prompt's month, so a late line lands in its own June file.
    user(tb, 'Bravo late June question about lynx retention');
    assistant(tb, [{ text: 'Bravo: keep lynx metrics for 90 days.' }]);
    writeFileSync(pb, text(tb));
    const rb = b.cli(['session-end', '--foreground', '--json', '--transcript', pb, '--cwd', CWD]);
    assert.equal(rb.code, 0, rb.stderr);
    assert.equal((JSON.parse(rb.stdout) as { sync: { push: { status: string } } }).sync.push.status, 'pushed', `the modify/delete is settled, not a conflict: ${rb.stdout}`);
    // charlie: a late June memory and one of this month.
    end(c, 'c-june-2', [['Charlie late June question about lynx canaries', 'Charlie: canaries take 5 percent of lynx traffic.']], '2026-06-28T09:00:00.000Z');
    end(c, 'c-now', [['Charlie November question about the lynx retro', 'Charlie: the lynx retro is on Friday.']], '2026-11-20T09:00:00.000Z');

    for (let round = 0; round < 2; round++) for (const m of [a, b, c]) start(m);
    // The next merge (on another machine this time) folds the late lines.
    const again = b.cli(['monthly-merge', '--json']);
    assert.equal(again.code, 0, again.stderr);
    for (let round = 0; round < 2; round++) for (const m of [a, b, c]) start(m);

    const expected = [
      'Alpha June question about the lynx rollout',
      'Bravo June question about the lynx metrics',
      'Bravo late June question about lynx retention',
      'Charlie June question about the lynx alerts',
      'Charlie November question about the lynx retro',
      'Charlie late June question about lynx canaries',
    ];
    for (const m of [a, b, c]) {
      assertAllLinesValid(m);
      assert.deepEqual(liveQuestions(m), expected, `${m.name} holds every memory`);
      assert.equal(status(m).records, expected.length, `${m.name}'s cache agrees`);
      assertSettled(m);
      assert.equal(status(m).sync.last_error, null, `${m.name} reports no sync error`);
    }
    assert.deepEqual(readdirSync(a.exportDir).filter((f) => f.startsWith('2026-06')), [], 'June lives only in the archive');
    // The memory repository (here not the checkout the code runs from) merges memory files as lines.
    assert.match(readFileSync(join(b.repo, '.git', 'info', 'attributes'), 'utf8'), /^\/export\/\*\*\/\*\.jsonl merge=union$/m);
    assert.equal(git(b.repo, 'check-attr', 'merge', '--', 'export/archive/2026-06.jsonl'), 'export/archive/2026-06.jsonl: merge: union');
    assert.equal(git(a.repo, 'rev-parse', 'HEAD'), git(c.repo, 'rev-parse', 'HEAD'), 'one history');
  });
});

describe('two clones under one machine name', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('lose nothing, corrupt nothing, and are told once', () => {
    const one = world.machine('twin-one', { machineName: 'twin' });
    const two = world.machine('twin-two', { machineName: 'twin' });
    const nov = '2026-11-21T09:00:00.000Z';
    end(one, 's-one', [['First twin question about the otter queue', 'Twin one: the otter queue is FIFO.']], nov);
    // Same file name, different content: an add/add conflict that the union merge settles.
    const r = two.cli(['session-end', '--foreground', '--json', '--transcript', placeTranscript(two, conversation('s-two', [['Second twin question about otter retries', 'Twin two: otter retries back off exponentially.']], { startIso: nov })), '--cwd', CWD]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { sync: { push: { status: string } } }).sync.push.status, 'pushed');
    const first = start(one);
    const second = start(two);
    for (const m of [one, two]) {
      assertAllLinesValid(m);
      assert.deepEqual(liveQuestions(m), ['First twin question about the otter queue', 'Second twin question about otter retries']);
      assertSettled(m);
    }
    const shared = /another clone also writes memories as machine "twin"/;
    for (const out of [first, second]) {
      const o = JSON.parse(out.stdout) as { systemMessage?: string; hookSpecificOutput?: { additionalContext: string } };
      assert.match(o.systemMessage ?? '', shared, 'told at session start, shown to the user');
      assert.doesNotMatch(o.hookSpecificOutput?.additionalContext ?? '', shared, 'never in the agent context');
      assert.match(out.stderr, shared);
    }
    const later = JSON.parse(start(one).stdout) as { systemMessage?: string };
    assert.doesNotMatch(later.systemMessage ?? '', shared, 'told once');
    assert.equal(status(one).sync.shared_machine_name, true, 'status keeps saying it');
    assert.match(one.cli(['status']).stdout, shared);
  });

  it('without a configured name, two clones on one host get distinct names, fixed at first use', () => {
    const x = world.machine('host-x', { machineName: null });
    const y = world.machine('host-y', { machineName: null });
    const nx = status(x).machine;
    const ny = status(y).machine;
    assert.notEqual(nx, ny);
    for (const [m, n] of [[x, nx], [y, ny]] as const) {
      assert.match(n, /-[0-9a-f]{4}$/);
      assert.match(readFileSync(join(m.home, 'config.local.toml'), 'utf8'), new RegExp(`machine_name = "${n}"`));
      assert.equal(status(m).machine, n, 'stable across runs');
    }
  });
});

describe('the memory remote is one the user named', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('before init: capture commits locally, never pushes, and says how to name a remote', () => {
    const m = world.machine('fresh', { named: false });
    const before = remoteLog(world);
    end(m, 's-fresh', [['Fresh clone question about the ibis cache', 'The ibis cache lives in Redis.']], '2026-11-22T09:00:00.000Z');
    assert.deepEqual(remoteLog(world), before, 'nothing pushed anywhere');
    assert.match(git(m.repo, 'log', '-1', '--format=%s'), /^memory: fresh/);
    assert.equal(status(m).sync.memory_remote, null);
    assert.match(m.cli(['status']).stdout, /no memory remote|none: memories are committed on this machine only \(run `memory init --remote/);
    const s = start(m);
    const o = JSON.parse(s.stdout) as { systemMessage?: string; hookSpecificOutput?: { additionalContext: string } };
    assert.match(o.systemMessage ?? '', /no memory remote is named\. Run: memory init --remote/);
    assert.ok(o.hookSpecificOutput?.additionalContext.includes('ibis cache'), 'memories are still injected');
    assert.doesNotMatch(o.hookSpecificOutput?.additionalContext ?? '', /memory init/);
    const sync = m.cli(['sync']);
    assert.notEqual(sync.code, 0);
    assert.match(sync.stderr, /no memory remote is named/);
  });

  it('init on the URL the checkout was cloned from asks for --yes and writes nothing without it', () => {
    const m = world.machine('careless', { named: false });
    const r = m.cli(['init', '--remote', world.remote]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Everyone who can read that repository will read every conversation/);
    assert.match(r.stderr, /--yes/);
    assert.ok(!existsSync(join(m.home, 'config.local.toml')) || !readFileSync(join(m.home, 'config.local.toml'), 'utf8').includes('remote_url'));
    assert.equal(gitOr(m.repo, 'remote', 'get-url', 'memory'), undefined);
    const yes = m.cli(['init', '--remote', world.remote, '--yes']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(git(m.repo, 'remote', 'get-url', 'memory'), world.remote);
  });

  it('init on a private remote: first machine pushes; the second pulls its memories first; both sync after', () => {
    const priv = join(world.root, 'private.git');
    git(world.root, 'init', '-q', '--bare', '-b', 'main', priv);
    const a = world.machine('first', { named: false });
    const b = world.machine('second', { named: false });
    end(a, 's-first', [['First machine question about the okapi build', 'Okapi builds with make -j4.']], '2026-11-23T09:00:00.000Z');
    const ia = a.cli(['init', '--remote', priv]);
    assert.equal(ia.code, 0, ia.stderr);
    assert.match(ia.stdout, /memory remote +memory → .*private\.git/);
    assert.match(readFileSync(join(a.home, 'config.local.toml'), 'utf8'), /remote_url = ".*private\.git"/);
    assert.equal(a.cli(['init', '--remote', priv]).code, 0, 'idempotent');
    assert.ok(git(world.root, '--git-dir', priv, 'log', '--format=%s', 'main').includes('memory: first'));
    end(b, 's-second', [['Second machine question about the okapi deploy', 'Okapi deploys on Tuesdays.']], '2026-11-23T10:00:00.000Z');
    const ib = b.cli(['init', '--remote', priv, '--json']);
    assert.equal(ib.code, 0, ib.stderr);
    assert.equal((JSON.parse(ib.stdout) as { pull: string }).pull, 'pulled', 'joined what the first machine pushed');
    start(a);
    for (const m of [a, b]) {
      assert.deepEqual(liveQuestions(m), ['First machine question about the okapi build', 'Second machine question about the okapi deploy']);
      assertSettled(m);
      assert.ok(status(m).sync.last_push, `${m.name} knows when it last pushed`);
    }
    const s = a.cli(['sync']);
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stdout, /pull +(up-to-date|pulled)/);
    assert.ok(!remoteLog(world).some((x) => /memory: (first|second)/.test(x)), 'nothing went to the project remote');
  });

  it('a checkout that already pushed its memories to origin (the old README) counts as initialized', () => {
    const m = world.machine('legacy', { named: false });
    end(m, 's-legacy', [['Legacy question about the tapir importer', 'The tapir importer runs hourly.']], '2026-11-24T09:00:00.000Z');
    git(m.repo, 'push', '-q', 'origin', 'main'); // what the old version did on its own
    end(m, 's-legacy-2', [['Legacy follow-up about tapir retries', 'Tapir retries three times.']], '2026-11-24T10:00:00.000Z');
    assert.ok(remoteLog(world).some((s) => s.startsWith('memory: legacy') && s.includes('s-legacy-2')), 'still pushed where it always went');
    assert.equal(status(m).sync.memory_remote?.url, world.remote);
  });
});

describe('sync health', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('status shows the failure; after a day of failures session start tells the user; a good sync clears it', () => {
    const m = world.machine('flaky');
    end(m, 's-flaky', [['Flaky question about the gecko scheduler', 'The gecko scheduler runs every minute.']], '2026-11-25T09:00:00.000Z');
    m.setRemoteUrl(join(world.root, 'unreachable.git'));
    const fail = m.cli(['sync']);
    assert.notEqual(fail.code, 0);
    const st = status(m);
    assert.ok(st.sync.last_error, 'the failure is recorded');
    assert.match(m.cli(['status']).stdout, /sync error .*pull/);
    // A day and more of failures (the state file is this clone's own record of them).
    const stateFile = join(m.repo, '.git', 'memory-engine-sync.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { failing_since: string };
    state.failing_since = new Date(Date.now() - 30 * 3600_000).toISOString();
    writeFileSync(stateFile, JSON.stringify(state));
    const s = start(m);
    // Each process's clock starts anew under faketime: the session start may read an
    // earlier time than this test did, so the hours are a range, not one number.
    const told = /sync has been failing for (\d+) hours/.exec((JSON.parse(s.stdout) as { systemMessage?: string }).systemMessage ?? '');
    assert.ok(told && Number(told[1]) >= 24 && Number(told[1]) <= 30, `told after a day: ${s.stdout}`);
    m.setRemoteUrl(world.remote);
    const ok = m.cli(['sync']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(status(m).sync.last_error, null);
    assert.equal((JSON.parse(start(m).stdout) as { systemMessage?: string }).systemMessage, undefined);
  });
});
