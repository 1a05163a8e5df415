/**
 * Projects named in any script: a folder or repository named in Japanese (or Cyrillic, Hangul…)
 * keeps a name of its own, file-name safe, and is shown as it is written. Before, every such name
 * lost all its letters and became `machine`: two Japanese folders were one project, and a session
 * in one was given the other's memories.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sanitizeName } from '../../src/config/validate.js';
import { machineName, projectLabel, projectName } from '../../src/project/label.js';
import { candidateNames, assignNames } from '../../src/project/names.js';
import { projectRef } from '../../src/app/team/team.js';
import { tempDir } from '../support/helpers.js';
import { CWD, jsonlFiles } from '../support/gitworld.js';
import { git, homeMachine, sessionReading, type HomeMachine } from '../support/homes.js';

const SAFE = /^[A-Za-z0-9._-]+$/;

const records = (m: HomeMachine): Array<{ question: string; project?: string }> =>
  jsonlFiles(join(m.home, 'export')).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { question: string; project?: string }));
const storedProjects = (m: HomeMachine): string[] => records(m).map((r) => r.project ?? '');

describe('a project name of letters beyond ASCII', () => {
  it('is kept, file-name safe, and reads back as written; ASCII and accented names are what they were', () => {
    for (const [raw, was] of [['api', 'api'], ['my app', 'my-app'], ['café-app', 'cafe--app'], ['Résumé', 'Re-sume'], ['v1.2_beta', 'v1.2_beta']] as const) {
      assert.equal(projectName(raw), was, raw);
      assert.equal(projectName(raw), sanitizeName(raw), `${raw}: the name it had`);
      assert.equal(projectLabel(projectName(raw)), was, `${raw}: shown as it is`);
    }
    const seen = new Set<string>();
    for (const [raw, shown] of [['決済', '決済'], ['メモ', 'メモ'], ['日記', '日記'], ['Проект', 'проект'], ['한국어', '한국어'], ['プロジェクト 決済 (v2)', 'プロジェクト-決済-v2'], ['ﾃｽﾄ', 'テスト'], ['決済-api', '決済-api']] as const) {
      const name = projectName(raw);
      assert.match(name, SAFE, raw);
      assert.ok(name.length <= 64, raw);
      assert.equal(projectLabel(name), shown, `${raw} → ${name}`);
      assert.notEqual(name, 'machine');
      seen.add(name);
    }
    assert.equal(seen.size, 8, 'every one a name of its own');
    // Too long for a name: the words that fit, still read back.
    const long = projectName(`${'決済処理'.repeat(8)} ${'請求'.repeat(10)}`);
    assert.match(long, SAFE);
    assert.ok(long.length <= 64, long);
    assert.equal(projectLabel(long), '決済処理'.repeat(8));
    const oneWord = projectName('あ'.repeat(100));
    assert.ok(oneWord.length <= 64 && oneWord.length > 20, oneWord);
    assert.match(projectLabel(oneWord), /^あ+$/);
    // A name that only looks encoded is shown as it is.
    assert.equal(projectLabel('xn--not-really'), 'xn--not-really');
  });

  it('a repository\'s names all read back, its name from before is still its own, and two such repositories are told apart', () => {
    const key = 'github.com/acme/決済';
    const names = candidateNames(key);
    assert.deepEqual(names.slice(0, 3).map((n) => projectLabel(n)), ['決済', 'acme-決済', 'github-com-acme-決済']);
    assert.ok(names.every((n) => SAFE.test(n)), names.join(' '));
    assert.match(projectLabel(names[3] as string), /^決済-[0-9a-f]{6}$/, 'the hashed name reads back too');
    assert.ok(names.includes('machine'), 'the name a capture gave it before: memories under it are the repository\'s');
    const local = candidateNames('folder:決済');
    assert.deepEqual(local.slice(0, 2).map((n) => projectLabel(n)), ['決済', '決済-local']);
    // A team's folder for it: named as the person's memories are, never `-`.
    assert.deepEqual(projectRef('https://github.com/acme/決済.git', new Map()), { name: projectName('決済'), repo: key });
    assert.deepEqual(projectRef('決済', new Map([[key, projectName('決済')]])), { name: projectName('決済'), repo: key }, 'named as people read it');
    assert.deepEqual(projectRef('決済', new Map(), [{ name: projectName('決済'), repo: key }]), { name: projectName('決済'), repo: key }, 'a project the team accepts');
    const given = assignNames([{ key, first: 1 }, { key: 'github.com/acme/請求', first: 2 }, { key: 'github.com/other/決済', first: 3 }]);
    assert.deepEqual([...given.values()].map((n) => projectLabel(n)), ['決済', '請求', 'other-決済']);
  });
});

describe('folders and repositories named in Japanese, through the CLI and the hooks', () => {
  let root: string;
  let cleanup: () => void;
  let m: HomeMachine;
  before(() => {
    ({ dir: root, cleanup } = tempDir('memory-names-'));
    m = homeMachine(root, 'laptop');
    // The memory home as an earlier version left it: made by a first session start.
    assert.equal(m.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: 'first', cwd: m.user, hook_event_name: 'SessionStart' }) }).code, 0);
  });
  after(() => cleanup());

  const folder = (name: string): string => {
    const dir = join(m.user, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  /** A line as an earlier version wrote it for a turn in `cwd`: the project `machine` (a name of no letters left). */
  const legacy = (id: string, cwd: string, question: string, answer: string): void => {
    const at = '2026-10-05T09:00:00.000Z';
    appendFileSync(join(m.home, 'export', '2026-10_laptop.jsonl'), `${JSON.stringify({ v: 1, id, session_id: id, project: 'machine', machine: 'laptop', timestamp: at, updated_at: at, question, answer, source: 'claude-code', cwd })}\n`);
  };
  const start = (cwd: string, session: string): string => {
    const r = m.cli(['session-start', '--inject'], { cwd, input: JSON.stringify({ session_id: session, cwd, hook_event_name: 'SessionStart', source: 'startup' }) });
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout.trim();
    return out ? ((JSON.parse(out) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '') : '';
  };

  it('two folders named in Japanese are two projects: a session in one is not given the other\'s memories; each is shown, searched and listed by its own name', () => {
    const memo = folder('メモ');
    const diary = folder('日記');
    // What an earlier version wrote for a turn in each: the project `machine`, both.
    legacy('old-memo-1', memo, 'Where do the memo attachments go?', 'Into the attachments folder beside each memo.');
    legacy('old-diary-1', diary, 'How are the diary entries backed up?', 'Copied nightly to the second disk.');
    sessionReading(m, 'memo-1', memo, '2026-11-02T10:00:00Z', [{ q: 'How should the memo index be sorted?', a: 'By the date of the last edit, newest first.' }]);
    sessionReading(m, 'diary-1', diary, '2026-11-03T10:00:00Z', [{ q: 'Which font does the diary export use?', a: 'Noto Serif JP at 11 pt.' }]);

    const inDiary = start(diary, 'diary-2');
    assert.match(inDiary, /recent memories of project "日記"/);
    assert.match(inDiary, /diary export/, 'its own memory is injected');
    assert.match(inDiary, /diary entries backed up/, 'and its own from before');
    assert.doesNotMatch(inDiary, /memo (index|attachments)/, 'the other folder\'s are not');
    const inMemo = start(memo, 'memo-2');
    assert.match(inMemo, /memo index/);
    assert.match(inMemo, /memo attachments/);
    assert.doesNotMatch(inMemo, /diary (export|entries)/);

    const found = m.cli(['search', '--mode', 'keyword', 'memo index sorted']);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /project:メモ /, found.stdout);
    for (const [given, want, not] of [['メモ', /memo index/, /diary export/], ['日記', /diary export/, /memo index/]] as const) {
      const r = m.cli(['search', '--mode', 'keyword', '--project', given, 'memo index diary export']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, want, `--project ${given}`);
      assert.doesNotMatch(r.stdout, not, `--project ${given}`);
    }
    const listed = m.cli(['projects']);
    assert.match(listed.stdout, new RegExp(`メモ \\(${projectName('メモ')}\\)`), listed.stdout);
    assert.match(listed.stdout, new RegExp(`日記 \\(${projectName('日記')}\\)`));
    // What the new records hold is the file-name-safe name (the old ones keep theirs: no line is rewritten).
    assert.deepEqual(storedProjects(m).sort(), ['machine', 'machine', projectName('メモ'), projectName('日記')].sort());
  });

  it('a project named in Japanese in config.local.toml: every session files under it, shown, searched and listed as written', () => {
    const desk = homeMachine(root, 'desk');
    mkdirSync(desk.home, { recursive: true });
    writeFileSync(join(desk.home, 'config.local.toml'), '[general]\nproject = "決済チーム"\n');
    const work = join(desk.user, 'work');
    mkdirSync(work, { recursive: true });
    sessionReading(desk, 'pay-1', work, '2026-11-04T10:00:00Z', [{ q: 'Which retry limit do we use for card payments?', a: 'Three retries with backoff, then the order is held.' }]);
    assert.deepEqual(storedProjects(desk), [projectName('決済チーム')]);
    const found = desk.cli(['search', '--mode', 'keyword', '--project', '決済チーム', 'retry limit card payments']);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /project:決済チーム /);
    assert.match(found.stdout, /Three retries/);
    assert.match(desk.cli(['projects']).stdout, new RegExp(`決済チーム \\(${projectName('決済チーム')}\\)`));
  });

  it('a repository named in Japanese: its memories from before (filed under `machine`) and after are one project, and an exclusion written as people read it holds', () => {
    const repo = folder(join('src', 'kessai'));
    git(repo, 'init', '-q');
    git(repo, 'remote', 'add', 'origin', 'https://github.com/acme/決済.git');
    // What an earlier version wrote for a turn in this repository: the project `machine`.
    const at = '2026-10-06T09:00:00.000Z';
    appendFileSync(join(m.home, 'export', '2026-10_laptop.jsonl'), `${JSON.stringify({ v: 1, id: 'old-kessai-1', session_id: 'old', project: 'machine', machine: 'laptop', timestamp: at, updated_at: at, question: 'How many times do we retry a declined card?', answer: 'Never: a decline is final.', source: 'claude-code', cwd: repo, extra: { repo: 'github.com/acme/決済' } })}\n`);
    sessionReading(m, 'kessai-1', repo, '2026-11-04T10:00:00Z', [{ q: 'Where is the refund webhook verified?', a: 'In the signature middleware before the router.' }]);

    const listed = m.cli(['projects', '--json']);
    const rows = (JSON.parse(listed.stdout) as { projects: Array<{ project: string; memories: number }> }).projects;
    const kessai = rows.find((p) => p.project === projectName('決済'));
    assert.ok(kessai, listed.stdout);
    assert.equal(kessai.memories, 2, 'the memory from before and the new one, one project');
    assert.ok(!rows.some((p) => p.project === 'machine'), listed.stdout);
    // The registry changed (a repository is new): every memory is filed again, and the folders' stay theirs.
    const diaryNow = m.cli(['search', '--mode', 'keyword', '--project', '日記', 'diary entries backed up']);
    assert.match(diaryNow.stdout, /diary entries backed up/, diaryNow.stdout);
    assert.match(diaryNow.stdout, /project:日記 /);
    const inRepo = start(repo, 'kessai-2');
    assert.match(inRepo, /project "決済"/);
    assert.match(inRepo, /declined card/);
    assert.match(inRepo, /refund webhook/);
    assert.ok(storedProjects(m).includes(projectName('決済')), 'the new turn is recorded under the new name');

    // `exclude_projects = ["決済"]`: the name as it is written, though the checkout's folder is `kessai`.
    const config = join(m.home, 'config.toml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^exclude_projects = \[\]/m, 'exclude_projects = ["決済"]'));
    assert.match(readFileSync(config, 'utf8'), /^exclude_projects = \["決済"\]/m);
    sessionReading(m, 'kessai-3', repo, '2026-11-05T10:00:00Z', [{ q: 'Should refunds be idempotent by the charge id?', a: 'Yes, keyed by the charge id.' }]);
    assert.doesNotMatch(records(m).map((r) => r.question).join('\n'), /idempotent/, 'not captured');
    const kept = m.cli(['search', '--mode', 'keyword', 'refunds idempotent charge']);
    assert.doesNotMatch(kept.stdout, /idempotent/, 'not captured');
    assert.equal(start(repo, 'kessai-4'), '', 'nothing injected');

    // A folder a Mac made in Finder, its name decomposed, inside a repository of another name;
    // the pattern typed composed.
    const mono = folder(join('src', 'mono'));
    git(mono, 'init', '-q');
    git(mono, 'remote', 'add', 'origin', 'https://github.com/acme/mono.git');
    const client = join(mono, '顧客データ'.normalize('NFD'));
    mkdirSync(client);
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^exclude_projects = \["決済"\]/m, 'exclude_projects = ["決済", "顧客データ"]'));
    sessionReading(m, 'client-1', client, '2026-11-06T10:00:00Z', [{ q: 'Where do we keep the client contract scans?', a: 'On the encrypted share only.' }]);
    assert.doesNotMatch(records(m).map((r) => r.question).join('\n'), /contract scans/, 'a folder excluded by its name, whatever its spelling, is not captured');

    // `projects merge` takes both names as people read them.
    const merged = m.cli(['projects', 'merge', 'メモ', '日記', '--no-push']);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, /Project "メモ" is now filed under "日記" \(2 memories moved/, merged.stdout);
    const memoNow = m.cli(['search', '--mode', 'keyword', '--project', '日記', 'memo attachments']);
    assert.match(memoNow.stdout, /memo attachments/, memoNow.stdout);
  });
});

describe('machines named in Japanese, through the CLI, the hooks and a real remote', () => {
  it('会社 and 自宅 are two machines: each writes its own files, both are shown, listed and searched as written, and neither is told another clone writes as it', () => {
    const { dir: root, cleanup } = tempDir('memory-machines-');
    try {
      const remote = join(root, 'memories.git');
      git(root, 'init', '-q', '--bare', remote);
      // One named in its config.local.toml, as a person does; one through the environment.
      const office = homeMachine(root, 'office');
      delete office.env.MEMORY_MACHINE_NAME;
      mkdirSync(office.home, { recursive: true });
      writeFileSync(join(office.home, 'config.local.toml'), '[general]\nmachine_name = "会社"\n');
      const house = homeMachine(root, '自宅');
      assert.equal(office.capture('s-office', [['Which queue does the invoice export use?', 'The invoice export runs on the slow queue at night.']]).code, 0);
      assert.equal(house.capture('s-house', [['Why did the invoice export time out?', 'The invoice export timed out on the 30 s gateway limit.']]).code, 0);
      for (const [m, args] of [[office, ['init', '--remote', remote]], [house, ['init', '--remote', remote]], [office, ['sync']]] as const) {
        const r = m.cli([...args]);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout}`);
      }
      const stored = [machineName('会社'), machineName('自宅')];
      assert.ok(stored.every((n) => SAFE.test(n) && n !== 'machine') && stored[0] !== stored[1], stored.join(' '));
      const files = jsonlFiles(join(office.home, 'export')).map((f) => f.slice(f.lastIndexOf('/') + 1));
      for (const n of stored) assert.ok(files.some((f) => f.endsWith(`_${n}.jsonl`)), `a file of ${n}: ${files.join(', ')}`);

      const found = office.cli(['search', '--mode', 'keyword', 'invoice export']);
      assert.equal(found.code, 0, found.stderr);
      assert.match(found.stdout, / \/ 会社 \/ project:/, found.stdout);
      assert.match(found.stdout, / \/ 自宅 \/ project:/, found.stdout);
      for (const [given, want, not] of [['自宅', /gateway limit/, /slow queue/], [machineName('会社'), /slow queue/, /gateway limit/]] as const) {
        const r = office.cli(['search', '--mode', 'keyword', '--machine', given, 'invoice export']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, want, `--machine ${given}`);
        assert.doesNotMatch(r.stdout, not, `--machine ${given}`);
      }
      const status = office.cli(['status']);
      assert.match(status.stdout, /machines +.*会社.*\(this one: 会社\)/, status.stdout);
      assert.match(status.stdout, /machines +.*自宅/);
      assert.doesNotMatch(status.stdout + status.stderr, /another clone also writes/);
      const listed = office.cli(['projects']);
      assert.match(listed.stdout, /(会社, 自宅|自宅, 会社)/, listed.stdout);
      const start = office.cli(['session-start', '--inject', '--no-pull'], { input: JSON.stringify({ session_id: 'next', cwd: CWD, hook_event_name: 'SessionStart', source: 'startup' }) });
      assert.equal(start.code, 0, start.stderr);
      assert.match(start.stdout, /## \d{4}-\d{2}-\d{2} · 自宅 · /, start.stdout);
    } finally {
      cleanup();
    }
  });
});
