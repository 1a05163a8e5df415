/** The capture pipeline in process, with the clock and the model handed in as arguments. */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { loadEmbedder } from '../../src/embed/embedder.js';
import { captureTranscripts } from '../../src/app/capture/capture.js';
import { fileLogger } from '../../src/app/log.js';
import { openCache } from '../../src/store/cache.js';
import { makeWorld, type World } from '../support/helpers.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';
import { rollout, text as rolloutLines, turn } from '../support/codex-builder.js';

let w: World;
beforeEach(() => (w = makeWorld()));
afterEach(() => w.cleanup());

function run(transcriptPath: string, now: Date, loadModel = true) {
  return runMany([transcriptPath], now, loadModel);
}

function runMany(transcriptPaths: string[], now: Date, loadModel = true) {
  const { config } = loadConfig({ configPath: w.config, env: {} });
  const cache = { dbPath: config.general.db_path, exportDir: config.general.export_dir, model: 'tiny-model', dim: 0 };
  const { store } = openCache(cache);
  return captureTranscripts(
    {
      config,
      store,
      now: () => now,
      loadEmbedder: loadModel
        ? () => loadEmbedder({ model: config.embedding.model, dtype: 'fp32', queryPrefix: '', documentPrefix: '', cacheDir: join(w.dir, 'models'), allowRemote: false, batchSize: 8 })
        : () => Promise.reject(new Error('model offline')),
      log: fileLogger(join(w.dir, 'test.log')),
    },
    transcriptPaths.map((path) => ({ path })),
  ).finally(() => {
    store.close();
    openCache(cache).store.close();
  });
}

describe('capture pipeline', () => {
  it('a grown answer wins even when the clock stepped back since the first capture', async () => {
    const t = transcript('clock', '/home/u/app');
    user(t, 'Plan the heron database migration please');
    assistant(t, [{ text: 'Step one: snapshot the heron database.' }]);
    const p = join(w.dir, 'clock.jsonl');
    writeFileSync(p, text(t));
    const first = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(first.added, 1);
    user(t, 'go on');
    assistant(t, [{ text: 'Step two: run the heron migration scripts.' }]);
    writeFileSync(p, text(t));
    const second = await run(p, new Date('2026-05-01T12:00:00Z'));
    assert.equal(second.updated, 1);
    const { config } = loadConfig({ configPath: w.config, env: {} });
    const { store } = openCache({ dbPath: config.general.db_path, exportDir: config.general.export_dir, model: 'tiny-model', dim: 0 });
    try {
      const row = store.recent(undefined, 5)[0];
      assert.ok(row?.answer.includes('Step two'), 'the grown version is the live one');
      assert.equal(row?.updated_at, '2026-06-01T12:00:00.001Z');
    } finally {
      store.close();
    }
  });

  it('every stored field is redacted, and on the whole text before it is cut', async () => {
    const key = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`; // assembled: no scanner hit on this file
    const t = transcript('fields', `/home/u/${key}-checkout`);
    // The prompt is cut at 2,000 characters; the token straddles the cut.
    user(t, `${'Please review this deployment log carefully. '.repeat(44)}token ${key} and more text after it`, { gitBranch: `fix/${key}` });
    const webhook = ['T04K2QZ7L', 'B05M9XJ3N', 'q8Lw2ZrT5vNx7YbP3kHd9sFa'].join('/'); // a Slack webhook's path, no host
    assistant(t, [{ tool: 'Edit', input: { file_path: `/home/u/${key}-checkout/src/app.ts` } }, { tool: 'Read', input: { file_path: `/tmp/hooks/${webhook}.json` } }, { text: 'Reviewed the deployment log: the rollout is fine.' }]);
    const p = join(w.dir, 'fields.jsonl');
    writeFileSync(p, text(t));
    const out = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(out.added, 1);
    const line = readFileSync(join(w.exportDir, '2026-03_laptop.jsonl'), 'utf8');
    assert.ok(!line.includes('ghp_'), `no part of the token is left anywhere, not even its prefix at the cut: ${line.slice(line.indexOf('ghp_') - 80, line.indexOf('ghp_') + 60)}`);
    const rec = JSON.parse(line.trim()) as { question: string; cwd: string; git_branch: string; files: string[] };
    assert.equal(rec.cwd, '/home/u/[REDACTED:github-token]-checkout');
    assert.equal(rec.git_branch, 'fix/[REDACTED:github-token]');
    assert.deepEqual(rec.files, ['/home/u/[REDACTED:github-token]-checkout/src/app.ts', '/tmp/hooks/[REDACTED:slack-webhook].json']);
    assert.ok(!line.includes('q8Lw2ZrT5vNx7YbP3kHd9sFa'));
    assert.ok(rec.question.endsWith('[…]'), 'the question was cut');
    assert.ok(out.redactions >= 3);
  });

  it('a password told in Japanese is redacted in the question and the answer; what is said of passwords stays', async () => {
    const pw = ['Kq7', 'Lm2', '!Zx9'].join(''); // assembled: no scanner hit on this file
    const token = ['Rt3Yu7', 'Io1Pa5', 'Sd9Fg2'].join('');
    const t = transcript('ja-secret', '/home/u/app');
    user(t, `ステージングDBのパスワードは ${pw} です。APIキー: ${token} も使って接続を確認して`);
    assistant(t, [{ text: `接続できました。パスワードは「${pw}」のままで、パスワードは bcrypt でハッシュ化されています。トークンは localStorage に保存しない方針です。` }]);
    const p = join(w.dir, 'ja-secret.jsonl');
    writeFileSync(p, text(t));
    const out = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(out.added, 1);
    const line = readFileSync(join(w.exportDir, '2026-03_laptop.jsonl'), 'utf8');
    assert.ok(!line.includes(pw) && !line.includes(token), line);
    const rec = JSON.parse(line.trim()) as { question: string; answer: string };
    assert.equal(rec.question, 'ステージングDBのパスワードは [REDACTED:secret] です。APIキー: [REDACTED:secret] も使って接続を確認して');
    assert.equal(rec.answer, '接続できました。パスワードは「[REDACTED:secret]」のままで、パスワードは bcrypt でハッシュ化されています。トークンは localStorage に保存しない方針です。');
    assert.equal(out.redactions, 3);
  });

  it('a password typed because the agent asked for it is redacted wherever the session repeats it: a short reply in Claude Code, a longer one in Codex', async () => {
    const pw = ['hun', 'ter', '22'].join(''); // assembled: no scanner hit on this file
    const t = transcript('asked', '/home/u/app');
    user(t, 'Install the heron exporter on the staging box');
    assistant(t, [{ text: 'The install needs root. What is the sudo password?' }]);
    // Shorter than a question (min_question_chars): the turn goes on, and its answer grows.
    user(t, pw);
    assistant(t, [{ text: `Logged in with ${pw}; the heron exporter is installed and running.` }]);
    user(t, `Did the exporter start on boot, and is ${pw} still the password there?`);
    assistant(t, [{ text: 'Yes: it is enabled as a systemd unit.' }]);
    const p = join(w.dir, 'asked.jsonl');
    writeFileSync(p, text(t));
    const claude = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(claude.added, 2);
    const r = rollout('019e-sess-asked');
    turn(r, 'Deploy the heron dashboard to staging', () => {}, 'The deploy needs the staging database password. What is it?');
    turn(r, `it's ${['sun', 'shine', '42'].join('')} please`, () => {}, 'Connected; the heron dashboard is deployed.');
    const q = join(w.dir, 'asked-codex.jsonl');
    writeFileSync(q, rolloutLines(r));
    const codex = await run(q, new Date('2026-06-01T12:00:00Z'));
    assert.equal(codex.added, 2);
    const stored = readdirSync(w.exportDir).map((f) => readFileSync(join(w.exportDir, f), 'utf8')).join('');
    assert.ok(!stored.includes(pw) && !stored.includes(['sun', 'shine', '42'].join('')), stored);
    const recs = stored.trim().split('\n').map((l) => JSON.parse(l) as { question: string; answer: string });
    // Positively: the rest stays verbatim.
    assert.deepEqual(
      recs.map((x) => [x.question, x.answer]).sort(),
      [
        ['Deploy the heron dashboard to staging', 'The deploy needs the staging database password. What is it?'],
        ['Did the exporter start on boot, and is [REDACTED:secret] still the password there?', 'Yes: it is enabled as a systemd unit.'],
        ['Install the heron exporter on the staging box', 'The install needs root. What is the sudo password?\n\nLogged in with [REDACTED:secret]; the heron exporter is installed and running.'],
        ["it's [REDACTED:secret] please", 'Connected; the heron dashboard is deployed.'],
      ].sort(),
    );
    assert.equal(claude.redactions + codex.redactions, 3);
  });

  it('a turn with broken UTF-16 (a lone surrogate) is stored once, not "updated" on every Stop', async () => {
    const t = transcript('surrogate', '/home/u/app');
    user(t, `Why does the log show \uD83D garbage in the heron report?`);
    assistant(t, [{ text: `A truncated emoji \uDE00 from the exporter: fixed by cutting on code points.` }]);
    const p = join(w.dir, 'surrogate.jsonl');
    writeFileSync(p, text(t));
    const first = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(first.added, 1);
    const again = await run(p, new Date('2026-06-01T12:05:00Z'));
    assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 1]);
    assert.ok(readFileSync(join(w.exportDir, '2026-03_laptop.jsonl'), 'utf8').includes('\uFFFD'));
  });

  it('a huge tool output line is read with its long text cut; the real turn is captured', async () => {
    const t = transcript('huge', '/home/u/app');
    user(t, 'Summarise the heron incident log for me please');
    assistant(t, [{ tool: 'Read', input: { file_path: '/var/log/heron.log' } }]);
    user(t, [{ type: 'tool_result', content: 'x'.repeat(20 * 1024 * 1024) }]);
    assistant(t, [{ text: 'The heron incident was a full disk at 03:10.' }]);
    const p = join(w.dir, 'huge.jsonl');
    writeFileSync(p, text(t));
    const out = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(out.added, 1);
    assert.equal(out.badLines, 0);
    const stored = readFileSync(join(w.exportDir, '2026-03_laptop.jsonl'), 'utf8');
    assert.ok(stored.includes('The heron incident was a full disk at 03:10.'));
    assert.ok(stored.includes('/var/log/heron.log'));
    assert.ok(!stored.includes('x'.repeat(5000)), 'the tool output is not a memory');
  });

  it('a 10 MB answer is kept cut with the visible mark; a 5 MB pasted prompt is a turn of its own, not glued onto the one before', async () => {
    const t = transcript('big-turns', '/home/u/app');
    user(t, 'Show me the whole kestrel build log please');
    assistant(t, [{ text: `Kestrel log follows. ${'k'.repeat(10 * 1024 * 1024)}` }]);
    user(t, `Why does this osprey stack trace fail? ${'o'.repeat(5 * 1024 * 1024)}`);
    assistant(t, [{ text: 'The osprey trace fails on a null config.' }]);
    const p = join(w.dir, 'big-turns.jsonl');
    writeFileSync(p, text(t));
    const out = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(out.added, 2, JSON.stringify(out));
    const recs = readFileSync(join(w.exportDir, '2026-03_laptop.jsonl'), 'utf8').split('\n').filter((l) => l.includes('big-turns')).map((l) => JSON.parse(l) as { question: string; answer: string });
    const kestrel = recs.find((r) => r.question.startsWith('Show me the whole kestrel'));
    const osprey = recs.find((r) => r.question.startsWith('Why does this osprey'));
    assert.ok(kestrel && osprey, JSON.stringify(recs.map((r) => r.question.slice(0, 40))));
    assert.ok(kestrel.answer.startsWith('Kestrel log follows.') && kestrel.answer.includes('[…]'), 'cut, with the mark');
    assert.ok(kestrel.answer.length <= 4000 + 10);
    assert.ok(!kestrel.answer.includes('osprey'), 'nothing of the next turn glued on');
    assert.ok(osprey.question.includes('[…]') && osprey.question.length <= 2000 + 10);
    assert.equal(osprey.answer, 'The osprey trace fails on a null config.');
  });

  it('a Codex turn stored under the id an older version derived is the same memory, not a second one', async () => {
    const r = rollout('019e-sess-upgrade');
    // A rollout without turn ids (0.146+ writes none): keyed by the record's ordinal today.
    turn(r, 'How do we rotate the osprey signing keys?', () => {}, 'Run rotate-osprey, then redeploy.');
    const rolloutText = rolloutLines(r).split('\n').map((l) => l.replace(/"turn_id":"[^"]*",?/g, '')).join('\n');
    const p = join(w.dir, 'rollout-2026-05-11T08-00-00-019e-sess-upgrade.jsonl');
    writeFileSync(p, rolloutText);
    const first = await run(p, new Date('2026-06-01T12:00:00Z'));
    assert.equal(first.added, 1);
    // As an older version wrote it: the same turn under another id.
    const file = join(w.exportDir, '2026-05_laptop.jsonl');
    const line = readFileSync(file, 'utf8').trim();
    const old = JSON.parse(line) as { id: string; prompt_uuid?: string };
    assert.ok(old.prompt_uuid, 'the turn key is stored');
    writeFileSync(file, `${JSON.stringify({ ...old, id: 'an-id-of-an-older-version', prompt_uuid: '019e-sess-upgrade#1' })}\n`);
    const again = await run(p, new Date('2026-06-02T12:00:00Z'));
    assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 1]);
    const ids = readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    assert.deepEqual(ids, ['an-id-of-an-older-version'], 'stored once');
  });

  for (const copiedUnder of ['the new session id', 'the original session id']) {
    it(`a resumed session that copies earlier turns (under ${copiedUnder}) adds only its new turn`, async () => {
      const original = transcript('orig-session', '/home/u/app');
      user(original, 'How do we rotate the heron signing keys?');
      assistant(original, [{ text: 'Run rotate-keys, then redeploy the heron signer.' }]);
      user(original, 'And where are the old heron keys archived?');
      assistant(original, [{ text: 'In the vault under heron/archive, for 90 days.' }]);
      const p1 = join(w.dir, 'orig-session.jsonl');
      writeFileSync(p1, text(original));
      assert.equal((await run(p1, new Date('2026-06-01T12:00:00Z'))).added, 2);
      // claude --resume: a new transcript that starts with copies of the earlier entries.
      const resumed = transcript('new-session', '/home/u/app');
      resumed.clock = original.clock + 60_000;
      const copies = original.lines.map((l) => {
        const e = JSON.parse(l) as Record<string, unknown>;
        if (copiedUnder === 'the new session id') e.sessionId = 'new-session';
        return JSON.stringify(e);
      });
      user(resumed, 'Now schedule the next heron key rotation');
      assistant(resumed, [{ text: 'Scheduled for the first Monday of next month.' }]);
      const p2 = join(w.dir, 'new-session.jsonl');
      writeFileSync(p2, `${[...copies, ...resumed.lines].join('\n')}\n`);
      const second = await run(p2, new Date('2026-06-02T12:00:00Z'));
      assert.deepEqual([second.added, second.updated, second.unchanged], [1, 0, 2]);
      // Both transcripts read in one run (import): still no double.
      rmSync(w.exportDir, { recursive: true, force: true });
      mkdirSync(w.exportDir);
      rmSync(join(w.dir, '.cache'), { recursive: true, force: true });
      const both = await runMany([p1, p2], new Date('2026-06-03T12:00:00Z'));
      assert.equal(both.added, 3);
    });
  }

  it('a model that cannot load writes the memories pending, and says so', async () => {
    const t = transcript('offline', '/home/u/app');
    user(t, 'Why is the heron queue stuck on Mondays?');
    assistant(t, [{ text: 'A cron job locks the heron queue every Monday at 03:00.' }]);
    const p = join(w.dir, 'offline.jsonl');
    writeFileSync(p, text(t));
    const out = await run(p, new Date('2026-06-01T12:00:00Z'), false);
    assert.equal(out.added, 1);
    assert.equal(out.pending, 1);
    assert.equal(out.embedded, 0);
    assert.match(out.problems[0] ?? '', /model offline; 1 memories saved without embedding/);
  });
});
