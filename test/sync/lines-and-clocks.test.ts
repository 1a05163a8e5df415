/**
 * No single bad line or clock stops or hides anything on another machine (issue 27): a line a
 * person broke by hand and pushed, a half-written last line, a machine whose clock runs a
 * year ahead. Real bare remote, real clones, the built CLI; the wrong clock is libfaketime on
 * that machine alone.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CWD, conversation, git, gitWorld, jsonlFiles, liveIn, placeTranscript, sessionStart, type GitWorld, type Machine } from '../support/gitworld.js';

let counter = 0;
/** One captured turn, committed and pushed by the foreground capture; returns its question. */
function capture(m: Machine, topic: string, env: NodeJS.ProcessEnv = {}): string {
  counter++;
  const q = `Question ${counter} about the ${topic} pipeline`;
  const start = new Date(Date.now() - 3600_000 + counter * 1000).toISOString();
  const p = placeTranscript(m, conversation(`lc-${m.name}-${counter}`, [[q, `The ${topic} pipeline answer number ${counter}.`]], { startIso: start }));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD], { env });
  assert.equal(r.code, 0, r.stderr);
  return q;
}

function sync(m: Machine, env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  return m.cli(['sync'], { env });
}


function searchIds(m: Machine, query: string, env: NodeJS.ProcessEnv = {}): Array<{ id: string; question: string }> {
  const r = m.cli(['search', query, '--json', '--mode', 'keyword', '-k', '20'], { env });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hits: Array<{ id: string; question: string }> }).hits;
}

/** Lines of the month's rejects files under an export folder. */
function rejected(exportDir: string): string[] {
  const dir = join(exportDir, 'archive');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => n.endsWith('.rejects.jsonl')).flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n').filter((l) => l.length > 0));
}

/** Every committed line of every memory file at HEAD parses, and every file ends with a newline. */
function committedLinesParse(m: Machine): void {
  const files = git(m.repo, 'ls-tree', '-r', '--name-only', 'HEAD', '--', 'export').split('\n').filter((f) => f.endsWith('.jsonl') && !f.endsWith('.rejects.jsonl'));
  assert.ok(files.length > 0);
  for (const f of files) {
    const text = git(m.repo, 'show', `HEAD:${f}`) + '\n';
    for (const line of text.split('\n').filter((l) => l.length > 0)) assert.doesNotThrow(() => JSON.parse(line), `${f}: ${line.slice(0, 80)}`);
  }
}

/** Another person's clone edits a line of a memory file by hand and pushes it. */
function handEdit(world: GitWorld, name: string, question: string, edit: (line: string) => string): string {
  const c = join(world.root, name);
  git(world.root, 'clone', '-q', world.remote, c);
  for (const f of jsonlFiles(join(c, 'export'))) {
    const lines = readFileSync(f, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes(question));
    if (i === -1) continue;
    const bad = edit(lines[i] as string);
    assert.notEqual(bad, lines[i]);
    lines[i] = bad;
    writeFileSync(f, lines.join('\n'));
    git(c, 'add', '-A');
    git(c, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'fix a typo');
    git(c, 'push', '-q', 'origin', 'main');
    return bad;
  }
  throw new Error(`no line holds ${question}`);
}

describe('a line broken by hand on one machine and pushed', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('"answer":" → "answer": — every machine keeps the memory (its last good version), the line is set aside and told, sync goes on', () => {
    const a = world.machine('edit-a');
    const b = world.machine('edit-b');
    const kept = [capture(a, 'heron'), capture(a, 'heron')];
    assert.equal(sync(b).code, 0);
    assert.equal(searchIds(b, 'heron').length, 2, 'b has both before the edit');
    const bad = handEdit(world, 'editor-1', kept[0] as string, (l) => l.replace('"answer":"', '"answer":'));

    const r = sync(a);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(liveIn(a.exportDir), [...kept].sort(), 'a: both memories in its files');
    assert.deepEqual(searchIds(a, 'heron').map((h) => h.question).sort(), [...kept].sort(), 'a: both found');
    assert.ok(rejected(a.exportDir).includes(bad), 'the damaged line is kept verbatim in the rejects file');
    committedLinesParse(a);
    const told = sessionStart(a).systemMessage ?? '';
    assert.match(told, /no longer parsed/);
    assert.match(told, /last good version of 1 memory/);
    assert.match(a.cli(['status']).stdout, /set aside/);

    // b pulls after a's repair: nothing is missing there either, and new captures still go through.
    assert.equal(sync(b).code, 0);
    const more = capture(b, 'heron');
    assert.deepEqual(searchIds(b, 'heron').map((h) => h.question).sort(), [...kept, more].sort());
  });

  it('a garbled id — the pull is not refused; the memory stays, the line is set aside, and captures go on (whatever the person\'s diff settings)', () => {
    const a = world.machine('id-a');
    const b = world.machine('id-b');
    // The person's diff settings must not change how a pull is read: no a/ b/ prefixes, an external diff, colour.
    writeFileSync(join(b.home, '.gitconfig'), '[diff]\n\tnoprefix = true\n\texternal = /bin/false\n[color]\n\tui = always\n');
    const kept = [capture(a, 'osprey'), capture(a, 'osprey')];
    assert.equal(sync(b).code, 0);
    const bad = handEdit(world, 'editor-2', kept[1] as string, (l) => l.replace('"id":"', '"id":'));

    const rb = sync(b);
    assert.equal(rb.code, 0, `not refused: ${rb.stdout}${rb.stderr}`);
    assert.doesNotMatch(rb.stdout + rb.stderr, /would drop/);
    assert.deepEqual(liveIn(b.exportDir).filter((q) => q.includes('osprey')), [...kept].sort());
    assert.ok(rejected(b.exportDir).includes(bad));
    const more = capture(b, 'osprey');
    const ra = sync(a);
    assert.equal(ra.code, 0, ra.stdout + ra.stderr);
    assert.deepEqual(searchIds(a, 'osprey').map((h) => h.question).sort(), [...kept, more].sort(), 'a has all three, none twice');
    committedLinesParse(a);
  });

  it('an id changed by hand (valid JSON, a later line of a 14-turn file), pushed: no second memory on any machine, the line set aside', () => {
    const a = world.machine('reid-a');
    const b = world.machine('reid-b');
    const kept = Array.from({ length: 14 }, () => capture(a, 'grebe'));
    assert.equal(sync(b).code, 0);
    const target = kept[11] as string;
    const bad = handEdit(world, 'editor-3', target, (l) => l.replace(/"id":"([^"]*)"/, (_m, id: string) => `"id":"${id.slice(0, -4)}beef"`));
    assert.doesNotThrow(() => JSON.parse(bad), 'the edited line still parses');
    for (const m of [b, a]) {
      const r = sync(m);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const found = searchIds(m, 'grebe');
      assert.deepEqual(found.map((h) => h.question).sort(), [...kept].sort(), `${m.name}: each memory once`);
      assert.ok(rejected(m.exportDir).includes(bad), `${m.name}: the edited line is kept in the rejects file`);
      assert.deepEqual(liveIn(m.exportDir).filter((q) => q === target), [target]);
    }
  });

  it('an id changed by hand in this machine\'s own work tree: the committed line is kept, the edit set aside, no second memory', () => {
    const a = world.machine('reid-own');
    const q = capture(a, 'avocet');
    const file = jsonlFiles(a.exportDir).find((f) => readFileSync(f, 'utf8').includes(q)) as string;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"id":"([^"]*)"/, (_m, id: string) => `"id":"${id}x"`));
    sessionStart(a);
    assert.equal(sync(a).code, 0);
    assert.deepEqual(searchIds(a, 'avocet').map((h) => h.question), [q]);
    assert.deepEqual(liveIn(a.exportDir).filter((x) => x.includes('avocet')), [q]);
    assert.doesNotMatch(git(a.repo, 'show', 'HEAD:' + file.slice(a.repo.length + 1)), /x","/);
  });

  it('edited in this machine\'s own work tree: the committed line is kept, the edit set aside, nothing damaged committed', () => {
    const a = world.machine('own-a');
    const q = capture(a, 'plover');
    const file = jsonlFiles(a.exportDir).find((f) => readFileSync(f, 'utf8').includes(q)) as string;
    const text = readFileSync(file, 'utf8');
    const broken = text.replace('"question":"', '"question":');
    writeFileSync(file, broken);
    sessionStart(a);
    committedLinesParse(a);
    assert.deepEqual(liveIn(a.exportDir).filter((x) => x.includes('plover')), [q]);
    assert.equal(rejected(a.exportDir).length > 0, true);
    assert.deepEqual(searchIds(a, 'plover').map((h) => h.question), [q]);
  });
});

describe('a half-written last line', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('is never committed: not by session start, not after the next append, not "restored" later', () => {
    const a = world.machine('torn-a');
    const first = capture(a, 'kestrel');
    const file = jsonlFiles(a.exportDir)[0] as string;
    const half = '{"v":1,"id":"torn-1","machine":"torn-a","timestamp":"2026-11-30T10:00:00.000Z","question":"half a rec';
    appendFileSync(file, half); // a writer killed mid-line
    sessionStart(a);
    committedLinesParse(a);
    assert.ok(rejected(a.exportDir).includes(half), 'kept verbatim in the rejects file');
    const second = capture(a, 'kestrel');
    sessionStart(a);
    sessionStart(a);
    committedLinesParse(a);
    const b = world.machine('torn-b');
    assert.equal(sync(b).code, 0);
    assert.deepEqual(liveIn(b.exportDir).filter((q) => q.includes('kestrel')), [first, second].sort());
    committedLinesParse(b);
    assert.equal(rejected(a.exportDir).filter((l) => l === half).length, 1, 'set aside once');
  });

  it('a whole record that only lacks its newline is committed with it, not set aside', () => {
    const a = world.machine('nl-a');
    capture(a, 'merlin');
    const file = jsonlFiles(a.exportDir)[0] as string;
    const whole = JSON.stringify({ v: 1, id: 'nl-1', machine: 'nl-a', timestamp: '2026-11-30T10:00:00.000Z', question: 'A merlin line without its newline', answer: 'Kept.' });
    appendFileSync(file, whole);
    sessionStart(a);
    committedLinesParse(a);
    assert.ok(liveIn(a.exportDir).includes('A merlin line without its newline'));
    assert.ok(!rejected(a.exportDir).includes(whole));
  });
});

const FAKETIME_LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((p) => existsSync(p));

describe('a machine whose clock runs a year ahead', () => {
  let world: GitWorld;
  before(() => (world = gitWorld()));
  after(() => world.cleanup());

  it('its memories are memories everywhere, its forgetting takes effect, forgetting them works, and both machines are told', (t) => {
    if (!FAKETIME_LIB) {
      t.skip('libfaketime is not installed (apt-get install faketime): the wrong clock cannot be made');
      return;
    }
    // The wrong clock, for node and for the git it runs (commit dates).
    const ahead: NodeJS.ProcessEnv = { LD_PRELOAD: FAKETIME_LIB, FAKETIME: '+365d', FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_DONT_RESET: '1' };
    const x = world.machine('skew-x');
    const y = world.machine('skew-y');
    const early = capture(y, 'avocet');
    assert.equal(sync(x, ahead).code, 0);
    const fromX = [capture(x, 'avocet', ahead), capture(x, 'avocet', ahead)];
    const r = sync(y);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const onY = searchIds(y, 'avocet');
    assert.deepEqual(onY.map((h) => h.question).sort(), [early, ...fromX].sort(), 'y finds the memories dated next year');
    const toldY = sessionStart(y).systemMessage ?? '';
    // About a year (the suite itself may run under faketime, which moves this machine's clock too).
    const aheadDays = Number(/skew-x dates its commits up to (\d+) days after this machine's clock/.exec(toldY)?.[1]);
    assert.ok(aheadDays > 300, toldY);
    assert.match(y.cli(['status']).stdout, /clock\s+skew-x dates/);

    // y forgets one of them: its tombstone (dated now, on y's clock) still takes effect.
    const gone = onY.find((h) => h.question === fromX[0]) as { id: string };
    const f = y.cli(['forget', gone.id]);
    assert.equal(f.code, 0, f.stdout + f.stderr);
    assert.deepEqual(searchIds(y, 'avocet').map((h) => h.question).sort(), [early, fromX[1]].sort());
    // x forgets y's early memory: its tombstone, dated next year, takes effect on y.
    assert.equal(sync(x, ahead).code, 0);
    const earlyId = (searchIds(x, 'avocet', ahead).find((h) => h.question === early) as { id: string }).id;
    assert.equal(x.cli(['forget', earlyId], { env: ahead }).code, 0);
    assert.equal(sync(x, ahead).code, 0);
    assert.equal(sync(y).code, 0);
    assert.deepEqual(searchIds(y, 'avocet').map((h) => h.question), [fromX[1]], 'both forgettings hold on y');
    assert.deepEqual(searchIds(x, 'avocet', ahead).map((h) => h.question), [fromX[1]], 'and on x');

    // y writes after x: x sees y's later commit dated a year earlier, and is told its clock is ahead.
    capture(y, 'avocet');
    assert.equal(sync(x, ahead).code, 0);
    const toldX = sessionStart(x, ahead).systemMessage ?? '';
    const seenDays = Number(/this machine's clock seems to run (\d+) days ahead of skew-y's/.exec(toldX)?.[1]);
    assert.ok(seenDays > 300, toldX);
  });
});
