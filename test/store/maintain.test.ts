/** monthly-merge, forget, show and model migration, on real git with several machines. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeEntry } from '../../src/export/jsonl.js';
import { conversation, CWD, git, gitWorld, placeTranscript, remoteLog, type GitWorld, type Machine } from '../support/gitworld.js';
import { CLI, TINY_MODEL, rec } from '../support/helpers.js';

function capture(m: Machine, session: string, pairs: Array<[string, string]>, startIso = '2026-03-25T14:00:00.000Z'): string {
  const p = placeTranscript(m, conversation(session, pairs, { startIso }));
  endSession(m, p);
  return p;
}

function endSession(m: Machine, p: string): void {
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
  assert.equal(r.code, 0, r.stderr);
}

function hits(m: Machine, q: string): Array<{ id: string; question: string }> {
  const r = m.cli(['search', '--mode', 'keyword', '--json', '--half-life', '0', q]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hits: Array<{ id: string; question: string }> }).hits;
}

const start = (m: Machine) => assert.equal(m.cli(['session-start'], { input: JSON.stringify({ cwd: CWD }) }).code, 0);
const files = (m: Machine) => readdirSync(m.exportDir).filter((f) => f.endsWith('.jsonl')).sort();

let world: GitWorld;
before(() => (world = gitWorld()));
after(() => world.cleanup());

describe('monthly-merge', () => {
  it('folds closed months deterministically; the second machine finds nothing left to do', () => {
    const a = world.machine('alpha');
    const b = world.machine('beta');
    capture(a, 'm-a1', [['Alpha question about the heron deploy script', 'The heron deploy script needs --prod.']], '2026-03-10T10:00:00.000Z');
    capture(a, 'm-a2', [['Alpha question about the heron logs in April', 'Heron logs go to /var/log/heron.']], '2026-04-02T10:00:00.000Z');
    capture(b, 'm-b1', [['Beta question about the heron database size', 'The heron database is 40 GB.']], '2026-03-12T10:00:00.000Z');
    start(a);
    assert.deepEqual(files(a), ['2026-03_alpha.jsonl', '2026-03_beta.jsonl', '2026-04_alpha.jsonl']);

    const dry = a.cli(['monthly-merge', '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stderr);
    const plan = JSON.parse(dry.stdout) as { months: Array<{ month: string; records: number; removed: string[] }> };
    assert.deepEqual(plan.months.map((m) => [m.month, m.records, m.removed.length]), [['2026-03', 2, 2], ['2026-04', 1, 1]]);
    assert.deepEqual(files(a), ['2026-03_alpha.jsonl', '2026-03_beta.jsonl', '2026-04_alpha.jsonl'], 'dry run changes nothing');

    const r = a.cli(['monthly-merge']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /folded 2026-03: 2 files → archive\/2026-03\.jsonl \(2 memories/);
    assert.deepEqual(files(a), []);
    assert.deepEqual(readdirSync(join(a.exportDir, 'archive')).sort(), ['2026-03.jsonl', '2026-04.jsonl']);
    assert.match(remoteLog(world)[0] ?? '', /^memory: monthly-merge 2026-03, 2026-04 \(3 memories, by alpha\)/);
    const archive = readFileSync(join(a.exportDir, 'archive', '2026-03.jsonl'), 'utf8');
    const ts = archive.trim().split('\n').map((l) => (JSON.parse(l) as { timestamp: string }).timestamp);
    assert.deepEqual(ts, [...ts].sort(), 'sorted by timestamp');
    assert.equal(hits(a, 'heron').length, 3, 'the cache absorbed the archive');

    const again = b.cli(['monthly-merge', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(again.stdout) as { months: unknown[] }).months, []);
    assert.equal(readFileSync(join(b.exportDir, 'archive', '2026-03.jsonl'), 'utf8'), archive, 'byte-identical on every machine');
    assert.equal(hits(b, 'heron').length, 3);
  });

  it('two machines merging at the same time both succeed with identical archives', async () => {
    const c = world.machine('gamma');
    const d = world.machine('delta');
    capture(c, 'm-c1', [['Gamma question on the ibis queue backlog', 'Ibis backlog cleared by adding two workers.']], '2026-05-03T10:00:00.000Z');
    capture(d, 'm-d1', [['Delta question on the ibis queue retries', 'Ibis retries capped at five.']], '2026-05-04T10:00:00.000Z');
    start(c);
    start(d);
    const run = (m: Machine) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [CLI, '-c', m.config, 'monthly-merge'], { stdio: 'ignore' });
        child.on('exit', resolve);
      });
    const codes = await Promise.all([run(c), run(d)]);
    assert.deepEqual(codes, [0, 0]);
    start(c);
    start(d);
    const ac = readFileSync(join(c.exportDir, 'archive', '2026-05.jsonl'), 'utf8');
    assert.equal(readFileSync(join(d.exportDir, 'archive', '2026-05.jsonl'), 'utf8'), ac);
    assert.equal(ac.trim().split('\n').length, 2);
    assert.equal(git(c.repo, 'rev-parse', 'HEAD'), git(d.repo, 'rev-parse', 'HEAD'), 'both machines converge on one history');
    assert.equal(git(c.repo, 'status', '--porcelain'), '');
  });

  it('an archive half-written by a merge that was killed is never committed, and is removed at the next commit', () => {
    const own = gitWorld(); // its July memories stay out of the other tests' months
    try {
      const m = own.machine('theta');
      capture(m, 'm-t1', [['Theta question about the okapi exporter', 'The okapi exporter writes Parquet.']], '2026-07-03T10:00:00.000Z');
      // What a monthly-merge killed inside its write leaves: the archive's temporary file, its process gone.
      const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
      mkdirSync(join(m.exportDir, 'archive'), { recursive: true });
      const half = join(m.exportDir, 'archive', `2026-07.jsonl.tmp-${dead}`);
      writeFileSync(half, `${encodeEntry(rec({ id: 'half-1', question: 'half of an archive', answer: 'half' }))}\n{"v":1,"id":"half-2","quest`);
      // A file of a live process (its own write going on) is not touched.
      const live = join(m.exportDir, 'archive', `2026-08.jsonl.tmp-${process.pid}`);
      writeFileSync(live, 'being written');
      capture(m, 'm-t2', [['Theta question about the okapi retention', 'Okapi keeps 90 days.']], '2026-07-04T10:00:00.000Z');
      const tracked = git(m.repo, 'ls-files', 'export').split('\n');
      assert.ok(tracked.includes('export/2026-07_theta.jsonl'), 'the captures are committed');
      assert.ok(!tracked.some((f) => f.includes('.tmp-')), `no temporary file committed: ${tracked.join(', ')}`);
      assert.ok(!existsSync(half), 'the dead merge\'s file removed');
      assert.ok(existsSync(live), 'the live one kept');
      assert.equal(hits(m, 'okapi').length, 2);
      rmSync(live);
    } finally {
      own.cleanup();
    }
  });

  it('a late line for an archived month lands in a new per-machine file and is folded next time', () => {
    const e = world.machine('epsilon');
    start(e);
    assert.ok(existsSync(join(e.exportDir, 'archive', '2026-03.jsonl')));
    capture(e, 'm-late', [['Late question about the heron deploy from March', 'Late answer: the heron deploy moved to Fridays.']], '2026-03-20T10:00:00.000Z');
    assert.ok(files(e).includes('2026-03_epsilon.jsonl'));
    const r = e.cli(['monthly-merge', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { months: Array<{ month: string }> }).months.map((m) => m.month), ['2026-03']);
    assert.ok(!files(e).includes('2026-03_epsilon.jsonl'));
    const archive = readFileSync(join(e.exportDir, 'archive', '2026-03.jsonl'), 'utf8');
    assert.ok(archive.includes('heron deploy moved to Fridays'));
    assert.equal(hits(e, 'Fridays').length, 1);
    assert.equal(hits(e, 'heron').length, 4, 'three from before, one late');
  });

  it('a late line appended while another machine archived that month is not lost (rebase settles it)', () => {
    const f = world.machine('zeta');
    const g = world.machine('eta');
    capture(f, 'm-z1', [['Zeta question about the jackal cluster in June', 'The jackal cluster has 3 nodes.']], '2026-06-05T10:00:00.000Z');
    start(g);
    // eta archives June while zeta, not yet pulled, appends a late June line to its own file.
    assert.equal(g.cli(['monthly-merge']).code, 0);
    capture(f, 'm-z2', [['Zeta late question about the jackal backups', 'Jackal backups run nightly.']], '2026-06-06T10:00:00.000Z');
    start(f);
    start(g);
    for (const m of [f, g]) assert.equal(hits(m, 'jackal').length, 2, `${m.name} has both June memories`);
    assert.equal(g.cli(['monthly-merge']).code, 0);
    start(f);
    assert.equal(hits(f, 'jackal').length, 2);
    assert.ok(!files(f).some((x) => x.startsWith('2026-06')));
  });
});

describe('monthly-merge never deletes what it cannot read', () => {
  it('unusable lines (NaN time, a time in the future, broken JSON) are kept verbatim in the month\'s rejects file', () => {
    const m = world.machine('keeper-of-rejects');
    start(m);
    const good = encodeEntry(rec({ id: 'rj-good', machine: 'keeper-of-rejects', timestamp: '2026-05-02T10:00:00.000Z', question: 'Good May question about the ermine job', answer: 'The ermine job runs at noon.' }));
    const nan = JSON.stringify({ v: 1, id: 'rj-nan', machine: 'keeper-of-rejects', timestamp: '2026-05-03T10:00:00.000Z', updated_at: 'NaN', question: 'A valid memory with a broken updated_at', answer: 'Kept for a later reader.' });
    const future = JSON.stringify({ v: 1, id: 'rj-future', machine: 'keeper-of-rejects', timestamp: '+275760-09-13T00:00:00.000Z', question: 'A memory from the far future', answer: 'It would rank first for ever.' });
    const broken = '{"v":1,"id":"rj-broken","question":"half a line';
    writeFileSync(join(m.exportDir, '2026-05_keeper-of-rejects.jsonl'), `${[good, nan, future, broken].join('\n')}\n`);
    const st0 = JSON.parse(m.cli(['status', '--json']).stdout) as { records: number; skipped_lines: number };
    assert.equal(st0.skipped_lines >= 3, true, 'the cache skips and counts them');
    assert.deepEqual(hits(m, 'far future').map((h) => h.id), [], 'a future time never ranks');
    const r = m.cli(['monthly-merge', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(join(m.exportDir, '2026-05_keeper-of-rejects.jsonl')));
    const archive = readFileSync(join(m.exportDir, 'archive', '2026-05.jsonl'), 'utf8');
    assert.ok(archive.includes('rj-good'));
    const rejects = readFileSync(join(m.exportDir, 'archive', '2026-05.rejects.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(rejects, [broken, future, nan].sort(), 'every unusable line, byte for byte');
    const st = JSON.parse(m.cli(['status', '--json']).stdout) as { rejected_lines: number };
    assert.equal(st.rejected_lines, 3);
    assert.match(m.cli(['status']).stdout, /rejects +3 unreadable lines kept verbatim/);
    assert.ok(git(world.root, '--git-dir', world.remote, 'ls-tree', '-r', '--name-only', 'main').includes('export/archive/2026-05.rejects.jsonl'), 'pushed like any memory file');
    assert.equal(m.cli(['monthly-merge', '--json']).code, 0);
    assert.deepEqual(readFileSync(join(m.exportDir, 'archive', '2026-05.rejects.jsonl'), 'utf8').trim().split('\n'), rejects, 'a second run changes nothing');
  });
});

describe('scrub', () => {
  it('re-applies today\'s rules to every field; its replacement file removes every secret from every blob in history', () => {
    const m = world.machine('scrubber');
    start(m);
    const token = `ghp_${'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8N'}`; // assembled: no scanner hit on this file
    const pem = ['-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow"IBAAK\\CAQEA\n-----END RSA ', 'PRIVATE KEY-----'].join('');
    // What an older version stored unredacted, already pushed: quotes, a backslash and newlines in the secrets.
    const old = rec({
      id: 'leaky', machine: 'scrubber', timestamp: '2026-11-02T10:00:00.000Z',
      question: 'How do we connect to the billing database?',
      answer: `Use postgres://admin:p"a\\ss@db.internal/billing and this key:\n${pem}`,
      cwd: `/home/u/${token}-checkout`, git_branch: `fix/${token}`, files: [`/home/u/${token}-checkout/db.ts`],
    });
    writeFileSync(join(m.exportDir, '2026-11_scrubber.jsonl'), `${encodeEntry(old)}\n`);
    git(m.repo, 'add', '-A');
    git(m.repo, 'commit', '-q', '-m', 'an old, leaky capture');
    const r = m.cli(['scrub', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { changed: number; counts: Record<string, number>; replacements: string };
    assert.equal(out.changed, 1);
    assert.ok(out.counts['url-password'] === 1 && out.counts['private-key'] === 1 && (out.counts['github-token'] ?? 0) >= 3, JSON.stringify(out.counts));
    const shown = JSON.parse(m.cli(['show', '--json', 'leaky']).stdout) as { answer: string; cwd: string; git_branch: string; files: string[] };
    assert.ok(!JSON.stringify(shown).includes('ghp_') && !shown.answer.includes('BEGIN RSA') && !shown.answer.includes('p"a'), 'the live version is clean in every field');
    // Apply the replacement file to every blob git holds, as git filter-repo --replace-text would.
    const pairs = readFileSync(out.replacements, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => l.split('==>') as [string, string]);
    const blobs = git(m.repo, 'rev-list', '--all', '--objects').split('\n').map((l) => l.split(' ')[0] as string)
      .filter((sha) => git(m.repo, 'cat-file', '-t', sha) === 'blob');
    let checked = 0;
    for (const sha of blobs) {
      let text = git(m.repo, 'cat-file', '-p', sha);
      for (const [from, to] of pairs) text = text.split(from).join(to);
      for (const leak of [token, 'p\\"a\\\\ss', 'MIIEow', 'BEGIN RSA PRIVATE']) assert.ok(!text.includes(leak), `${leak} survives in blob ${sha}`);
      checked++;
    }
    assert.ok(checked >= 3, `${checked} blobs checked`);
  });
});

describe('forget and show', () => {
  it('forget on one machine: gone at once there, on the other after session-start, and for good', () => {
    const a = world.machine('keeper');
    const b = world.machine('other');
    const session = capture(a, 'f-1', [['What is the kestrel staging password policy?', 'Kestrel staging passwords rotate monthly.'], ['Which kestrel region do we use?', 'Kestrel runs in eu-west-1.']]);
    start(b);
    const target = hits(a, 'kestrel password policy')[0];
    assert.ok(target);
    assert.equal(hits(b, 'kestrel password policy')[0]?.id, target.id);

    const show = a.cli(['show', target.id.slice(0, 8)]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /Kestrel staging passwords rotate monthly\./);
    const sj = JSON.parse(a.cli(['show', '--json', target.id]).stdout) as { id: string; answer: string; embedding?: unknown };
    assert.equal(sj.id, target.id);
    assert.equal(sj.embedding, undefined);

    const r = a.cli(['forget', target.id.slice(0, 10)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Forgot 1 memories/);
    assert.ok(!hits(a, 'kestrel password policy').some((h) => h.id === target.id), 'gone on this machine at once');
    assert.ok(hits(a, 'kestrel region').length > 0, 'the other memory stays');
    assert.equal(a.cli(['show', target.id]).code, 1);

    start(b);
    assert.ok(!hits(b, 'kestrel password policy').some((h) => h.id === target.id), 'gone on the other machine after session-start');
    // The same transcript is captured again (the Stop hook fires after every turn): the
    // forgotten turn must not come back.
    endSession(a, session);
    assert.deepEqual(hits(a, 'kestrel password policy').filter((h) => h.question.includes('password')), [], 'not re-captured');
    assert.equal(b.cli(['monthly-merge']).code, 0);
    start(a);
    assert.equal(a.cli(['rebuild', '--full']).code, 0);
    assert.ok(!hits(a, 'kestrel password policy').some((h) => h.id === target.id), 'still gone after merge and full rebuild');
    const archive = readFileSync(join(a.exportDir, 'archive', '2026-03.jsonl'), 'utf8');
    assert.ok(!archive.includes('rotate monthly'), 'monthly-merge purged the forgotten text from the archive');
    assert.ok(archive.includes('eu-west-1'));
    const tombstoneFile = readdirSync(a.exportDir).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(a.exportDir, f), 'utf8')).join('');
    assert.ok(tombstoneFile.includes(`"id":"${target.id}","deleted":true`), 'the tombstone stays (folded into its own month once that month closes)');
  });

  it('an unknown id is a clear error and writes nothing', () => {
    const m = world.machine('careful');
    const before = git(m.repo, 'rev-parse', 'HEAD');
    const r = m.cli(['forget', 'no-such-id-123']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no memory with id "no-such-id-123"/);
    assert.match(r.stderr, /nothing was forgotten/);
    assert.equal(git(m.repo, 'rev-parse', 'HEAD'), before);
    assert.equal(git(m.repo, 'status', '--porcelain'), '');
  });

  it('forget --query lists first and forgets only with --yes', () => {
    const m = world.machine('querier');
    capture(m, 'q-1', [['Our old marmot api key leaked in the logs', 'Rotated the marmot key and scrubbed logs.']]);
    const list = m.cli(['forget', '--query', 'marmot']);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /Would forget 1 memories/);
    assert.equal(hits(m, 'marmot').length, 1);
    const done = m.cli(['forget', '--query', 'marmot', '--yes']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(hits(m, 'marmot').length, 0);
  });
});

describe('model migration', () => {
  it('a new model: keyword search keeps working, status counts what needs re-embedding, rebuild --with-model fixes it', () => {
    const m = world.machine('migrator');
    const records = [
      rec({ id: 'mig-1', machine: 'migrator', question: 'How do we tune the otter cache eviction?', answer: 'Use LRU with a 10k entry cap for the otter cache.' }),
      rec({ id: 'mig-2', machine: 'migrator', question: 'Where is the otter dashboard?', answer: 'Grafana, folder otter.' }),
    ];
    writeFileSync(join(m.exportDir, '2026-11_migrator.jsonl'), records.map((r) => `${encodeEntry(r)}\n`).join(''));
    assert.equal(m.cli(['rebuild', '--with-model']).code, 0);
    let st = JSON.parse(m.cli(['status', '--json']).stdout) as { pending: number; model: string; records: number };
    const baseline = st.records;
    assert.equal(st.model, 'tiny-model');

    const newModel = join(world.root, 'tiny-model-v2');
    cpSync(TINY_MODEL, newModel, { recursive: true });
    writeFileSync(m.config, readFileSync(m.config, 'utf8').replace(JSON.stringify(TINY_MODEL), JSON.stringify(newModel)));
    st = JSON.parse(m.cli(['status', '--json']).stdout) as { pending: number; model: string; records: number };
    assert.equal(st.model, 'tiny-model-v2');
    assert.equal(st.records, baseline);
    assert.equal(st.pending, baseline, 'every memory waits for a vector of the new model');
    assert.equal(hits(m, 'otter cache eviction')[0]?.id, 'mig-1', 'keyword search works meanwhile');
    const vec = m.cli(['search', '--mode', 'vector', 'otter']);
    assert.equal(vec.code, 1, 'no vectors of the new model yet');

    const r = m.cli(['rebuild', '--with-model', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { embedded: number; pending: number }).pending, 0);
    const v = m.cli(['search', '--mode', 'vector', '--json', 'otter cache eviction']);
    assert.equal(v.code, 0, v.stderr);
    assert.ok((JSON.parse(v.stdout) as { hits: unknown[] }).hits.length > 0);
  });
});
