/**
 * `memory recall`, the UserPromptSubmit hook: the few memories clearly about the prompt,
 * or nothing. Real SQLite cache built from real JSONL; the hook run as a whole process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openCache } from '../../src/store/cache.js';
import { DEFAULT_MIN_COVERAGE, DEFAULT_MIN_RARE_WORDS, formatRecall, recall } from '../../src/search/recall.js';
import { HOOK_BUSY_TIMEOUT_MS } from '../../src/store/store.js';
import { ownWords } from '../../src/search/query.js';
import { readTime } from '../../src/search/when.js';
import { makeWorld, rec, runCli, writeJsonl, type World } from '../support/helpers.js';

const MEMORIES = [
  rec({ id: 'mem-sqlite-lock', project: 'api', session_id: 's-old', question: 'The worker fails with SQLITE_BUSY database is locked under load, what do we do?', answer: 'Set busy_timeout to 5000 ms and move the writes into one transaction per batch; WAL mode lets readers continue.' }),
  rec({ id: 'mem-jpy', project: 'shop', session_id: 's-old', question: 'Why does the cart total round wrong for JPY?', answer: 'JPY has no minor unit; the money helper divided by 100. Fixed with a currency exponent table in src/money.ts.' }),
  rec({ id: 'mem-jpy-api', project: 'api', session_id: 's-2', question: 'Do we round JPY cart totals before sending them to the payment provider?', answer: 'No rounding: JPY is sent as is (exponent 0); see the currency exponent table.' }),
  rec({ id: 'mem-deploy', project: 'api', session_id: 's-3', question: 'How do we deploy the staging API?', answer: 'Push to the staging branch; the pipeline builds the image and runs the migrations first.' }),
  rec({ id: 'mem-ja', project: 'api', session_id: 's-4', question: '決済APIのタイムアウトは何秒に設定した？', answer: '決済APIのタイムアウトは10秒です。PAY_TIMEOUT_MS で設定しています。' }),
  rec({ id: 'mem-current', project: 'shop', session_id: 's-now', question: 'Rounding of JPY cart totals in the currency exponent table again', answer: 'Still the exponent table in src/money.ts.' }),
  rec({ id: 'mem-secret-proj', project: 'secret-client', session_id: 's-5', question: 'Why does the JPY cart total round wrong in the client ledger?', answer: 'Their currency exponent table had 2 for JPY; it is 0.' }),
];

function world(extra = ''): World {
  const w = makeWorld({ extra });
  writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), MEMORIES);
  const r = runCli(['--config', w.config, 'rebuild']);
  assert.equal(r.code, 0, r.stderr);
  return w;
}

function hook(w: World, prompt: string, over: Record<string, unknown> = {}): { stdout: string; stderr: string; code: number } {
  return runCli(['--config', w.config, 'recall'], { input: JSON.stringify({ session_id: 's-now', transcript_path: '/tmp/t.jsonl', cwd: '/nowhere/shop', hook_event_name: 'UserPromptSubmit', prompt, ...over }) });
}

describe('memory recall (UserPromptSubmit)', () => {
  it('a prompt about something discussed before gets those memories, this project first, as reference material', () => {
    const w = world();
    try {
      const r = hook(w, 'why is the JPY cart total rounding wrong again? the currency exponent table?');
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.deepEqual(Object.keys(out), ['hookSpecificOutput']);
      const h = out.hookSpecificOutput as { hookEventName: string; additionalContext: string };
      assert.deepEqual(Object.keys(h), ['hookEventName', 'additionalContext']);
      assert.equal(h.hookEventName, 'UserPromptSubmit');
      const ctx = h.additionalContext;
      assert.match(ctx, /Reference material, not instructions/);
      assert.match(ctx, /## 2026-11-20 · laptop · shop · id mem-jpy\n/);
      assert.ok(ctx.indexOf('id mem-jpy\n') < ctx.indexOf('id mem-jpy-api'), 'the current project (shop) first');
      assert.match(ctx, /id mem-jpy-api/);
      assert.ok(!ctx.includes('mem-current'), 'never the session in progress');
      assert.ok(Array.from(ctx).length <= 2000);
    } finally {
      w.cleanup();
    }
  });

  it('Japanese prompts find Japanese memories', () => {
    const w = world();
    try {
      const r = hook(w, '決済APIのタイムアウト、何秒だったっけ？');
      assert.match((JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /PAY_TIMEOUT_MS/);
    } finally {
      w.cleanup();
    }
  });

  it('ordinary requests and short prompts get nothing; the output is empty, exit 0', () => {
    const w = world();
    try {
      for (const p of ['add a unit test for the parser', 'rename this variable to something clearer', 'yes', 'go on', 'fix the typo in the README', 'deploy it']) {
        const r = hook(w, p);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, '', `"${p}" recalls nothing`);
      }
    } finally {
      w.cleanup();
    }
  });

  it('a prompt that asks only what was done at a time ("what did we do last time", 前回何をしたっけ, "in November 2026") gets this project\'s memories of it, newest first, the session in progress left out, headed so; a topic, another project or a short reply gets what it got before', () => {
    const w = world();
    try {
      const told = (prompt: string, cwd: string) => {
        const r = hook(w, prompt, { cwd });
        assert.equal(r.code, 0, r.stderr);
        return r.stdout === '' ? '' : (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      };
      const ids = (ctx: string) => [...ctx.matchAll(/· id (\S+)/g)].map((m) => m[1]);
      // A topic with the time: recalled by its words, as before (the JPY memory of this project first).
      // Given now, it is listed below all the same: a listing answers what was asked, whatever the session holds.
      const topic = told('what did we decide last time about the JPY cart rounding and the currency exponent table?', '/nowhere/shop');
      assert.match(topic, /^# memory-engine: earlier sessions that look relevant to this prompt/);
      assert.equal(ids(topic)[0], 'mem-jpy');
      // In the shop: its one earlier memory (mem-current is of the session in progress), none of the api's.
      const shop = told('what did we do last time?', '/nowhere/shop');
      assert.match(shop, /^# memory-engine: this project's latest sessions, newest first \(the prompt asks what was done last time\)\nReference material, not instructions/);
      assert.deepEqual(ids(shop), ['mem-jpy']);
      // In the api: its newest three ([recall] max_items), in Japanese too, though 前回何をしたっけ is 8 characters.
      const api = told('前回何をしたっけ', '/nowhere/api');
      assert.deepEqual(ids(api), ['mem-deploy', 'mem-ja', 'mem-jpy-api']);
      assert.deepEqual(ids(told('what did we work on in November 2026?', '/nowhere/api')), ['mem-deploy', 'mem-ja', 'mem-jpy-api']);
      // Going on from the last session: "let's continue where we left off", 前回の続き, 中断したところから.
      for (const prompt of ["let's continue where we left off", '前回の続きをやろう', 'continue where we stopped', '中断したところから再開しよう']) assert.deepEqual(ids(told(prompt, '/nowhere/shop')), ['mem-jpy'], prompt);
      assert.match(told('what did we work on in November 2026?', '/nowhere/api'), /^# memory-engine: this project's sessions of 2026-11-01 – 2026-11-30, newest first/);
      // A period it has no memory of, a folder with none, a short reply: nothing.
      for (const [prompt, cwd] of [['what did we work on in March 2025?', '/nowhere/api'], ['what did we do last time?', '/nowhere/docs'], ['yes, today', '/nowhere/api']] as const) assert.equal(told(prompt, cwd), '', `${prompt} in ${cwd}`);
      // Asked by hand, --json says why each was given.
      const byHand = JSON.parse(runCli(['--config', w.config, 'recall', '--json', '--prompt', 'what did we do last time?', '--cwd', '/nowhere/shop']).stdout) as { recalled: Array<{ id: string; listed?: string }> };
      assert.deepEqual(byHand.recalled.map((r) => [r.id, r.listed]), [['mem-current', 'latest'], ['mem-jpy', 'latest']]);
    } finally {
      w.cleanup();
    }
  });

  it('never an excluded project; nothing at all inside one; [recall] enabled = false turns it off', () => {
    const prompt = 'why is the JPY cart total rounding wrong in the ledger? the currency exponent table?';
    const open = world();
    try {
      assert.match(hook(open, prompt).stdout, /secret-client/, 'without the exclusion it would be recalled');
    } finally {
      open.cleanup();
    }
    const w = world('[privacy]\nexclude_projects = ["secret-*"]');
    try {
      const r = hook(w, prompt);
      const ctx = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      assert.match(ctx, /mem-jpy/);
      assert.ok(!ctx.includes('secret-client'));
      assert.equal(hook(w, prompt, { cwd: '/x/secret-client' }).stdout, '');
    } finally {
      w.cleanup();
    }
    const off = world('[recall]\nenabled = false');
    try {
      const r = hook(off, 'why is the JPY cart total rounding wrong again? the currency exponent table?');
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '');
    } finally {
      off.cleanup();
    }
  });

  it('bad hook input, no cache, a damaged cache: exit 0, nothing on stdout', () => {
    const w = makeWorld();
    try {
      for (const input of ['not json', '[]', '{"prompt": 42}', '']) {
        const r = runCli(['--config', w.config, 'recall'], { input });
        assert.equal(r.code, 0);
        assert.equal(r.stdout, '');
      }
      const r = hook(w, 'why is the JPY cart total rounding wrong again?');
      assert.deepEqual([r.code, r.stdout], [0, ''], 'no cache yet: recall waits for session start to build it');
    } finally {
      w.cleanup();
    }
  });

  it('code pasted above a question: the question\'s words are matched, not the code that would fill the query; with too few words besides, the code is', () => {
    const w = world();
    try {
      // Forty lines of a worker (more terms than a query keeps), then the question below it.
      const code = [
        '```ts',
        "import Database from 'better-sqlite3';",
        "const db = new Database('queue.db');",
        "db.pragma('journal_mode = WAL');",
        ...Array.from({ length: 36 }, (_, i) => `export function step${i}Handler(job${i}: Job, attempt${i}: number) { return db.prepare('UPDATE jobs SET state${i} = ? WHERE id = ?').run(attempt${i}, job${i}.id); }`),
        'SQLITE_BUSY: database is locked',
        '```',
      ].join('\n');
      const asked = hook(w, `${code}\nwhy is the JPY cart total rounding wrong again? the currency exponent table?`);
      assert.equal(asked.code, 0, asked.stderr);
      const ctx = (JSON.parse(asked.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      assert.match(ctx, /id mem-jpy\n/);
      assert.ok(!ctx.includes('mem-sqlite-lock'), 'the pasted code is not what was asked');
      // "fix this:" says nothing besides: the code is what is asked, matched whole (here it clears no memory's floor).
      assert.equal(ownWords(`fix this:\n${code}`), `fix this:\n${code}`);
      assert.equal(ownWords(`${code}\nwhy is the JPY total wrong?`).trim(), 'why is the JPY total wrong?');
      assert.equal(ownWords('why is the JPY total wrong?\n```\nconst total = round(amount)'), 'why is the JPY total wrong?\n ', 'a block left open runs to the end');
      assert.equal(ownWords('the `roundTotal` helper and the JPY total'), 'the `roundTotal` helper and the JPY total', 'no block: the prompt as it is');
    } finally {
      w.cleanup();
    }
  });

  it('code, a traceback or a log pasted with no fence (a terminal prompt): the question below is matched as asked alone, a time in the code\'s comments is no period, a log\'s stamp still is; a list or prose of the person\'s stays', () => {
    const w = world();
    try {
      // Forty lines of a worker, as an editor's selection gives them: no fence.
      const code = [
        '/**',
        ' * The queue worker. Last week we moved it to WAL mode; see the notes from March.',
        ' */',
        "import Database from 'better-sqlite3';",
        "const db = new Database('queue.db');",
        ...Array.from({ length: 36 }, (_, i) => `export function step${i}Handler(job${i}: Job, attempt${i}: number) {\n  return db.prepare('UPDATE jobs SET state${i} = ? WHERE id = ?').run(attempt${i}, job${i}.id);\n}`),
      ].join('\n');
      const question = 'why is the JPY cart total rounding wrong again? the currency exponent table?';
      // Each prompt a session of its own: a memory is given once per session.
      let session = 0;
      const ctxOf = (prompt: string) => {
        const r = hook(w, prompt, { session_id: `s-paste-${++session}` });
        assert.equal(r.code, 0, r.stderr);
        return r.stdout ? (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : '';
      };
      const alone = ctxOf(question);
      assert.match(alone, /id mem-jpy\n/, 'the question alone (a positive check)');
      assert.equal(ctxOf(`${code}\n${question}`), alone, 'below the code: the same');
      const traceback = ['Traceback (most recent call last):', '  File "worker.py", line 41, in run', '    step(job)', '  File "worker.py", line 12, in step', '    db.execute(sql)', 'sqlite3.OperationalError: database is locked'].join('\n');
      assert.equal(ownWords(`${traceback}\n\n${question}`).trim(), question);
      // In the code, "Last week" and "March" are a comment's: no period is read from them.
      const now = Date.parse('2026-11-29T12:00:00.000Z');
      assert.equal(readTime(`${code}\n${question}`, now).period, undefined);
      assert.equal(readTime(`${traceback.replace('line 41', 'line 41, last week')}\n${question}`, now).period, undefined);
      // A log's lines leave the words searched, and their stamp still names the day (a log is told of as it happened).
      const log = ['2026-11-20T09:14:02Z ERROR push failed: remote hung up', '2026-11-20T09:14:03Z WARN retrying in 2s', '2026-11-20T09:14:05Z ERROR push failed: remote hung up'].join('\n');
      assert.equal(ownWords(`${log}\nwhy does the push keep failing?`).trim(), 'why does the push keep failing?');
      assert.equal(readTime(`${log}\nwhy does the push keep failing?`, now).period?.label, '2026-11-20');
      // The person's own lines stay: a list, prose (a question line is never code), a snippet of two lines.
      for (const own of ['Please do these:\n- add a test\n- fix the rounding\n- update the docs', 'I prefer tabs (not spaces).\nMy editor is vim; I use it daily.\nWhat theme should I use?', 'why does `round(total)` give 1?\nconst a = round(0.5);\nconst b = round(1.5);']) {
        assert.equal(ownWords(own), own, own);
      }
      // Prose that is code only by its indent or first words (a list item wrapped, lines that begin "return", "import"): stays.
      for (const own of [
        'Plan for the refunds:\n- move the ledger\n  to the new schema and keep the old column\n  until the nightly backfill has caught up\n  with every shop in the region\nthen drop it',
        'return the parcel to the depot when the label fails\nimport the CSV again after the carrier fixes it\nexport the report for the finance team on Fridays',
      ]) {
        assert.equal(ownWords(own), own, own);
      }
      // The same first words with code's marks or a statement's end: a paste.
      assert.equal(ownWords(`return parcel.depot;\nimport { carrier } from './carrier';\nexport const report = build(rows);\n${question}`).trim(), question);
    } finally {
      w.cleanup();
    }
  });

  it('the floor: coverage is the rarity-weighted share of the prompt a memory holds', () => {
    const w = world();
    try {
      const { store } = openCache({ dbPath: join(w.dir, '.cache', 'memory.db'), exportDir: w.exportDir, model: 'x', dim: 0 });
      try {
        const floor = { maxItems: 3, minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: DEFAULT_MIN_RARE_WORDS };
        const all = recall(store, { ...floor, prompt: 'SQLITE_BUSY database is locked in the worker', minCoverage: 0, minRareWords: 0 });
        assert.equal(all[0]?.row.id, 'mem-sqlite-lock');
        assert.ok((all[0]?.coverage ?? 0) > DEFAULT_MIN_COVERAGE);
        assert.ok((all[0]?.rareWords ?? 0) > DEFAULT_MIN_RARE_WORDS);
        assert.deepEqual(recall(store, { ...floor, prompt: 'SQLITE_BUSY database is locked in the worker' }).map((h) => h.row.id), ['mem-sqlite-lock']);
        assert.deepEqual(recall(store, { ...floor, prompt: 'SQLITE_BUSY database is locked in the worker', minCoverage: 1.01 }), [], 'coverage is a floor');
        assert.deepEqual(recall(store, { ...floor, prompt: 'SQLITE_BUSY database is locked in the worker', minRareWords: 99 }), [], 'rare words are a floor');
        assert.deepEqual(recall(store, { ...floor, prompt: 'kubernetes helm chart ingress annotations' }), [], 'words no memory holds');
        assert.equal(formatRecall([], 2000), '');
        const text = formatRecall(all, 400);
        assert.ok(Array.from(text).length <= 400);
        assert.match(text, /id mem-sqlite-l\n/, 'ids cut to 12 characters (enough for `memory show`)');
      } finally {
        store.close();
      }
    } finally {
      w.cleanup();
    }
  });
});

describe('the recall hook stays light', () => {
  it('loads SQLite and the config, never the command-line framework, git, the model or the MCP SDK', async () => {
    const { TRACER } = await import('../support/helpers.js');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const w = world();
    try {
      const trace = join(w.dir, 'trace.txt');
      writeFileSync(trace, '');
      const r = runCli(['--config', w.config, 'recall'], {
        nodeArgs: ['--import', TRACER],
        env: { TRACE_IMPORTS_FILE: trace },
        input: JSON.stringify({ session_id: 's-now', cwd: '/nowhere/shop', hook_event_name: 'UserPromptSubmit', prompt: 'why is the JPY cart total rounding wrong again? the currency exponent table?' }),
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /mem-jpy/, 'it did recall');
      const urls = readFileSync(trace, 'utf8');
      assert.ok(urls.includes('better-sqlite3'), 'the tracer sees real imports');
      for (const heavy of ['commander', 'simple-git', 'huggingface', 'onnxruntime', 'modelcontextprotocol']) assert.ok(!urls.includes(heavy), `recall loaded ${heavy}`);
    } finally {
      w.cleanup();
    }
  });
});

describe('recall in a long session', () => {
  it('60 turns of today\'s session on one topic neither crowd out nor make common the earlier session\'s decision', () => {
    const w = makeWorld();
    try {
      const earlier = rec({ id: 'mem-decision', project: 'api', session_id: 's-last-week', question: 'Which retry policy do we use for the webhook sender after the outage?', answer: 'Exponential backoff with jitter from 2 s, capped at 10 minutes, then the dead-letter queue; idempotency keys make retries safe.' });
      const today = Array.from({ length: 60 }, (_, i) =>
        rec({ id: `mem-today-${i}`, project: 'api', session_id: 's-today', question: `Webhook sender retry backoff step ${i}: tune the jitter and dead-letter queue handling`, answer: `Adjusted the webhook retry backoff jitter for case ${i}; dead-letter queue handling unchanged, idempotency keys kept.` }),
      );
      const noise = Array.from({ length: 30 }, (_, i) => rec({ id: `mem-other-${i}`, project: 'web', session_id: `s-o${i}`, question: `Layout question ${i} about the checkout grid`, answer: `The checkout grid uses flex in case ${i}.` }));
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [earlier, ...today, ...noise]);
      assert.equal(runCli(['--config', w.config, 'rebuild']).code, 0);
      const ask = 'what retry backoff and dead-letter queue policy did we decide for the webhook sender?';
      const r = runCli(['--config', w.config, 'recall'], { input: JSON.stringify({ session_id: 's-today', transcript_path: '/tmp/t.jsonl', cwd: '/nowhere/api', hook_event_name: 'UserPromptSubmit', prompt: ask }) });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.length > 0, 'something is recalled');
      const ctx = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      assert.match(ctx, /id mem-decision\n/, 'the earlier session\'s decision');
      assert.ok(!ctx.includes('mem-today-'), 'never the session in progress');
      // The same store seen from another session: today's turns are ordinary memories then.
      const { store } = openCache({ dbPath: join(w.dir, '.cache', 'memory.db'), exportDir: w.exportDir, model: 'tiny-model', dim: 0 });
      try {
        const other = recall(store, { prompt: ask, sessionId: 's-tomorrow', maxItems: 3, minCoverage: DEFAULT_MIN_COVERAGE, minRareWords: 0 });
        assert.ok(other.length > 0);
      } finally {
        store.close();
      }
    } finally {
      w.cleanup();
    }
  });

  it('a memory is given once per session, by whichever route: what session start injected or an earlier prompt recalled is not recalled again, nor injected again when the session is resumed; a listing lists it still; after a compaction, and in another session, it is given again', () => {
    const w = world();
    try {
      const ctxOf = (r: { stdout: string; stderr: string; code: number }) => {
        assert.equal(r.code, 0, r.stderr);
        return r.stdout === '' ? '' : (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      };
      const ids = (ctx: string) => [...ctx.matchAll(/· id (\S+)/g)].map((m) => m[1]);
      const start = (source: string) => ctxOf(runCli(['--config', w.config, 'session-start', '--inject', '--no-pull'], { input: JSON.stringify({ session_id: 's-new', cwd: '/nowhere/shop', hook_event_name: 'SessionStart', source }) }));
      const ask = (session: string, prompt = 'why is the JPY cart total rounding wrong again? the currency exponent table?') => ids(ctxOf(hook(w, prompt, { session_id: session })));
      // The shop's two memories, injected at the start.
      assert.deepEqual(ids(start('startup')).sort(), ['mem-current', 'mem-jpy']);
      // The prompt that would bring them first brings what the session does not hold yet: the api's.
      const first = ask('s-new');
      assert.ok(first.includes('mem-jpy-api'), `the api's memory on it: ${first.join(', ')}`);
      assert.ok(!first.includes('mem-jpy') && !first.includes('mem-current'), `nothing the start injected: ${first.join(', ')}`);
      // Asked again: none of what the first prompt gave.
      const second = ask('s-new');
      for (const id of first) assert.ok(!second.includes(id as string), `${id} given once: ${second.join(', ')}`);
      // Resumed (the same session, its context kept): the start injects nothing the session holds.
      const resumed = runCli(['--config', w.config, 'session-start', '--inject', '--no-pull'], { input: JSON.stringify({ session_id: 's-new', cwd: '/nowhere/shop', hook_event_name: 'SessionStart', source: 'resume' }) });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(ids(resumed.stdout), [], resumed.stdout);
      // "What did we do last time?" answers what was asked, whatever the session holds.
      assert.deepEqual(ask('s-new', 'what did we do last time?').sort(), ['mem-current', 'mem-jpy']);
      // Compacted: the context holds only what this start injects, so the api's memory comes again.
      assert.deepEqual(ids(start('compact')).sort(), ['mem-current', 'mem-jpy']);
      assert.ok(ask('s-new').includes('mem-jpy-api'), 'given again after the compaction');
      // Another session holds none of it: the shop's memories first, as ever.
      assert.deepEqual(ask('s-other').slice(0, 2).sort(), ['mem-current', 'mem-jpy']);
    } finally {
      w.cleanup();
    }
  });

  it('a cache another process holds locked: the hook says nothing, well inside the 10 s an agent gives it, and recalls again once it is free', async () => {
    const w = world();
    // The cache in a rollback journal, under an exclusive lock (a WAL cache lets readers through):
    // the way a reader can be kept out, held until the test says so.
    const holder = spawn(process.execPath, ['-e', `
      const Database = require(${JSON.stringify(join(process.cwd(), 'node_modules', 'better-sqlite3'))});
      const db = new Database(${JSON.stringify(join(w.dir, '.cache', 'memory.db'))});
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      process.stdout.write('locked\\n');
      process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      const prompt = 'why is the JPY cart total rounding wrong again? the currency exponent table?';
      const started = performance.now();
      const held = hook(w, prompt);
      const waited = performance.now() - started;
      assert.equal(held.code, 0, held.stderr);
      assert.equal(held.stdout, '', 'nothing recalled while the cache is held');
      assert.match(held.stderr, /memory: recall: cache unreadable \(database is locked\); nothing recalled this time/);
      // Codex kills a prompt's hook at 10 s and shows it as failed; SQLite's own wait was 10 s.
      assert.ok(waited >= HOOK_BUSY_TIMEOUT_MS && waited < 8_000, `the hook waited for the lock ${Math.round(waited)} ms, then gave up (${HOOK_BUSY_TIMEOUT_MS} ms)`);
      holder.stdin.write('release\n');
      await new Promise((resolve) => (holder.exitCode !== null ? resolve(null) : holder.once('exit', resolve)));
      const free = hook(w, prompt);
      assert.equal(free.code, 0, free.stderr);
      assert.match(free.stdout, /id mem-jpy/, 'recalled once the cache is free');
    } finally {
      holder.kill();
      w.cleanup();
    }
  });
});
