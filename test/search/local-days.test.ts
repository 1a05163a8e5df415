/**
 * Days as the person counts them. Records keep UTC; a date shown to the person or the agent and a
 * day typed in --since / --until are the machine's local calendar, as "yesterday" in a question
 * always was. Each child runs in the named time zone (TZ); the CLI and the hooks run as a whole
 * process on a real cache.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, clockAt, FAKETIME_LIB, makeWorld, rec, runCli, writeJsonl, type World } from '../support/helpers.js';

// 08:30 on 1 December in Tokyo, still 30 November in UTC.
const TOKYO_MORNING = rec({ id: 'tokyo-morning', project: 'shop', session_id: 's1', timestamp: '2026-11-30T23:30:00.000Z', question: 'Which cache policy did we pick for the image proxy?', answer: 'LRU with a 512 MB cap; the thumbnails are rebuilt on a miss.' });
// 17:00 on 1 December in San Francisco, already 2 December in UTC.
const SF_EVENING = rec({ id: 'sf-evening', project: 'shop', session_id: 's2', timestamp: '2026-12-02T01:00:00.000Z', question: 'What retry budget does the payment webhook get?', answer: 'Five retries with exponential backoff, then the dead-letter queue.' });
// 01:00 on 10 December in Tokyo, 9 December in UTC.
const TOKYO_LATE = rec({ id: 'tokyo-late', project: 'shop', session_id: 's3', timestamp: '2026-12-09T16:00:00.000Z', question: 'Why did the image proxy cache miss so often tonight?', answer: 'The cache key held the request id; it is the URL and size now.' });
const OLDER = rec({ id: 'older', project: 'shop', session_id: 's4', timestamp: '2026-11-20T10:00:00.000Z', question: 'Which image proxy did we choose?', answer: 'imgproxy behind the CDN, with a cache in front.' });

/** Thursday 10 December 2026, 12:00 UTC (21:00 in Tokyo). */
const THURSDAY = Date.UTC(2026, 11, 10, 12);

let w: World;
const inZone = (timeZone: string, args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) =>
  runCli(['--config', w.config, ...args], { env: { TZ: timeZone, ...extra }, ...(input !== undefined ? { input } : {}) });
const ids = (timeZone: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = inZone(timeZone, ['search', '--mode', 'keyword', '--json', ...args], extra);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hits: Array<{ id: string }> }).hits.map((h) => h.id).sort();
};

before(() => {
  w = makeWorld();
  writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [OLDER, TOKYO_MORNING]);
  writeJsonl(join(w.exportDir, '2026-12_laptop.jsonl'), [SF_EVENING, TOKYO_LATE]);
  // Built on that Thursday where the clock can be set: a memory more than a day ahead of the
  // clock is ordered at the clock's time (export/jsonl.ts orderTime), and 10 December may be ahead.
  const r = runCli(['--config', w.config, 'rebuild'], FAKETIME_LIB ? { env: clockAt(THURSDAY) } : {});
  assert.equal(r.code, 0, r.stderr);
});
after(() => w.cleanup());

describe('a day typed in --since and --until is a day of the local calendar', () => {
  it('in Tokyo, --since 2026-12-01 holds the memory of 08:30 that morning; in UTC that moment is the day before', () => {
    assert.deepEqual(ids('Asia/Tokyo', ['--since', '2026-12-01', '--until', '2026-12-01', 'cache policy image proxy']), ['tokyo-morning']);
    assert.deepEqual(ids('UTC', ['--since', '2026-12-01', '--until', '2026-12-01', 'cache policy image proxy']), []);
    assert.deepEqual(ids('UTC', ['--since', '2026-11-30', '--until', '2026-11-30', 'cache policy image proxy']), ['tokyo-morning']);
  });

  it('in San Francisco, --until 2026-12-01 holds the memory of 17:00 that day; in UTC it is the next day', () => {
    assert.deepEqual(ids('America/Los_Angeles', ['--since', '2026-12-01', '--until', '2026-12-01', 'retry budget webhook']), ['sf-evening']);
    assert.deepEqual(ids('UTC', ['--until', '2026-12-01', 'retry budget webhook']), []);
  });

  it('the CLI shows each memory under its local day; --json keeps the record\'s UTC time', () => {
    const tokyo = inZone('Asia/Tokyo', ['search', '--mode', 'keyword', 'cache policy image proxy']);
    assert.equal(tokyo.code, 0, tokyo.stderr);
    assert.match(tokyo.stdout, /\[\d\] 2026-12-01 \/ laptop \/ project:shop \/ claude-code {2}\(score [\d.]+, id tokyo-morning\)/);
    assert.doesNotMatch(tokyo.stdout, /2026-11-30/);
    const sf = inZone('America/Los_Angeles', ['search', '--mode', 'keyword', 'retry budget webhook']);
    assert.match(sf.stdout, /\[1\] 2026-12-01 \/ laptop .*id sf-evening\)/);
    assert.doesNotMatch(sf.stdout, /2026-12-02/, 'not dated the next day, which the agent would take for the future');
    const utc = inZone('UTC', ['search', '--mode', 'keyword', 'retry budget webhook']);
    assert.match(utc.stdout, /\[1\] 2026-12-02 \/ laptop .*id sf-evening\)/);
    // --json keeps the record's own time, in UTC, for programs.
    const json = JSON.parse(inZone('Asia/Tokyo', ['search', '--mode', 'keyword', '--json', 'cache policy image proxy']).stdout) as { hits: Array<{ id: string; timestamp: string }> };
    assert.equal(json.hits.find((h) => h.id === 'tokyo-morning')?.timestamp, '2026-11-30T23:30:00.000Z');
  });

  it('a day that does not exist is a usage error naming it, not a silent day in the next month', () => {
    for (const [value, re] of [
      ['2026-02-30', /--since: there is no day 2026-02-30; give a day like 2026-03-25/],
      ['2026-13-01', /--since: there is no day 2026-13-01/],
      ['someday', /--since must be a day like 2026-03-25, .* or words like yesterday, last week, 先週, 3月, got "someday"/],
      ['last week about the cache', /--since must be a day like/],
    ] as const) {
      const r = inZone('UTC', ['search', '--since', value, 'x']);
      assert.equal(r.code, 2, value);
      assert.match(r.stderr, re);
      assert.equal(r.stdout, '');
    }
  });
});

describe('--since and --until take the words a question names a time with', () => {
  it('Thursday 10 December in Tokyo: today, 今日, yesterday, last week, 先週, 先月, December, 11月, 2週間前 and an age', (t) => {
    if (!FAKETIME_LIB) {
      t.skip('libfaketime is not installed (apt-get install faketime): the clock cannot be fixed');
      return;
    }
    const tokyo = clockAt(THURSDAY, 'Asia/Tokyo');
    const q = ['image proxy cache webhook retry'];
    // Today in Tokyo began at 15:00 UTC the day before: 01:00 that night is today's.
    assert.deepEqual(ids('Asia/Tokyo', ['--since', 'today', ...q], tokyo), ['tokyo-late']);
    assert.deepEqual(ids('Asia/Tokyo', ['--since', '今日', ...q], tokyo), ['tokyo-late']);
    assert.deepEqual(ids('UTC', ['--since', 'today', ...q], clockAt(THURSDAY)), [], 'in UTC that memory is yesterday\'s');
    assert.deepEqual(ids('UTC', ['--since', 'yesterday', '--until', 'yesterday', ...q], clockAt(THURSDAY)), ['tokyo-late']);
    // Last week is Monday 30 November to Sunday 6 December, Tokyo's.
    for (const since of ['last week', 'Last Week', '先週']) {
      assert.deepEqual(ids('Asia/Tokyo', ['--since', since, '--until', since, ...q], tokyo), ['sf-evening', 'tokyo-morning'], since);
    }
    assert.deepEqual(ids('Asia/Tokyo', ['--since', 'last week', ...q], tokyo), ['sf-evening', 'tokyo-late', 'tokyo-morning'], 'since: up to now');
    assert.deepEqual(ids('Asia/Tokyo', ['--until', '先月', ...q], tokyo), ['older'], 'until last month: to the end of November, Tokyo\'s');
    assert.deepEqual(ids('Asia/Tokyo', ['--since', 'December', ...q], tokyo), ['sf-evening', 'tokyo-late', 'tokyo-morning'], 'a month alone');
    assert.deepEqual(ids('Asia/Tokyo', ['--since', '11月', '--until', '11月', ...q], tokyo), ['older']);
    assert.deepEqual(ids('Asia/Tokyo', ['--until', '2週間前', ...q], tokyo), ['older'], 'two weeks ago: the week holding 26 November (Monday 23 to Sunday 29)');
    assert.deepEqual(ids('Asia/Tokyo', ['--since', '2d', ...q], tokyo), ['tokyo-late'], 'an age stays a moment');
  });
});

describe('the agent reads the local day in what the hooks inject', () => {
  it('session start, per-prompt recall and the MCP hits date a Tokyo morning by its own day', async () => {
    const shop = join(w.dir, 'shop');
    mkdirSync(shop, { recursive: true });
    const start = inZone('Asia/Tokyo', ['session-start', '--inject', '--no-pull'], {}, JSON.stringify({ session_id: 'new', cwd: shop, hook_event_name: 'SessionStart', source: 'startup' }));
    assert.equal(start.code, 0, start.stderr);
    const injected = (JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(injected, /## 2026-12-01 · laptop · shop · id tokyo-mornin/);
    assert.match(injected, /## 2026-12-10 · laptop · shop · id tokyo-late/);
    assert.doesNotMatch(injected, /2026-11-30|2026-12-09/);

    const recall = inZone('Asia/Tokyo', ['recall'], {}, JSON.stringify({ session_id: 'next', transcript_path: '/tmp/t.jsonl', cwd: shop, hook_event_name: 'UserPromptSubmit', prompt: 'which cache policy did we pick for the image proxy thumbnails?' }));
    assert.equal(recall.code, 0, recall.stderr);
    const recalled = (JSON.parse(recall.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(recalled, /## 2026-12-01 · laptop · shop · id tokyo-mornin/);

    // The MCP server, which the agent asks: hits dated by the local day; its since takes words too.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd: shop, env: { ...process.env, MEMORY_CONFIG: '', TZ: 'Asia/Tokyo' } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'memory_search', arguments: { query: 'cache policy image proxy', mode: 'keyword', since: '2026-12-01', until: '2026-12-01' } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.ok(!r.isError, r.content[0]?.text);
      const hits = (JSON.parse(r.content[0]!.text) as { hits: Array<{ id: string; date: string }> }).hits;
      assert.deepEqual(hits.map((h) => [h.id, h.date]), [['tokyo-morning', '2026-12-01']]);
      const bad = (await client.callTool({ name: 'memory_search', arguments: { query: 'cache', since: '2026-02-30' } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]!.text, /there is no day 2026-02-30/);
    } finally {
      await client.close();
    }

    const utcStart = inZone('UTC', ['session-start', '--inject', '--no-pull'], {}, JSON.stringify({ session_id: 'new2', cwd: shop, hook_event_name: 'SessionStart', source: 'startup' }));
    assert.match((JSON.parse(utcStart.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /## 2026-11-30 · laptop · shop · id tokyo-mornin/);
  });
});
