/**
 * `memory mcp` end to end: the SDK's own client spawns the server over stdio (a real
 * process, real cache, real git with a bare remote, the real tiny model for hybrid search).
 */
import { git as fixtureGit, initRepo } from '../support/git-fixture.js';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, makeWorld, rec, runCli, tempDir, writeJsonl } from '../support/helpers.js';

type Result = { content: Array<{ type: string; text: string }>; isError?: boolean };

function textOf(r: unknown): string {
  return (r as Result).content.map((c) => c.text).join('\n');
}

describe('memory mcp (stdio, SDK client)', () => {
  it('lists four tools with instructions; search, show, remember, forget work; every failure is a tool error', async () => {
    const w = makeWorld({ extra: '[sync]\nremote_url = ""' });
    const git = (...a: string[]) => fixtureGit(w.dir, ...a);
    const elsewhere = tempDir();
    const work = join(elsewhere.dir, 'shop');
    mkdirSync(work);
    fixtureGit(work, 'init', '-q'); // the project the server runs in
    initRepo(w.dir, 't');
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
      rec({ id: 'aaaa1111bbbb2222cccc3333dddd4444', project: 'shop', question: 'Why does the cart total round wrong for JPY?', answer: 'JPY has no minor unit; fixed with a currency exponent table in src/money.ts.' }),
      rec({ id: 'aaaa1111eeee5555ffff6666aaaa7777', project: 'api', question: 'How do we deploy the staging API?', answer: 'Push to the staging branch; the pipeline runs the migrations first.' }),
    ]);
    git('add', '-A');
    git('commit', '-qm', 'seed');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd: work, env: { ...process.env, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test', version: '1.0.0' });
    const started = Date.now();
    await client.connect(transport);
    try {
      const ready = Date.now() - started;
      assert.ok(ready < 10_000, `started in ${ready} ms (Codex waits 10 s)`);
      const instructions = client.getInstructions() ?? '';
      assert.match(instructions, /memory_search/);
      assert.ok(Buffer.byteLength(instructions) <= 2048);
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, ['memory_forget', 'memory_remember', 'memory_search', 'memory_show']);

      const s = await client.callTool({ name: 'memory_search', arguments: { query: 'JPY cart rounding', mode: 'keyword' } });
      assert.ok(!(s as Result).isError, textOf(s));
      const found = JSON.parse((s as Result).content[0]!.text) as { hits: Array<{ id: string; date: string; machine: string; project: string; source: string | null; question: string; answer: string }> };
      assert.equal(found.hits[0]?.id, 'aaaa1111bbbb2222cccc3333dddd4444');
      assert.deepEqual(Object.keys(found.hits[0]!), ['id', 'date', 'machine', 'project', 'source', 'question', 'answer']);

      // A time in the question: the agent is told whether that period's memories lead, or none of them is on this.
      type Dated = { period?: string; period_note?: string; hits: Array<{ id: string }> };
      const ask = async (query: string) => JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { query, mode: 'keyword' } })) as Result).content[0]!.text) as Dated;
      const november = await ask('JPY cart rounding in November 2026');
      assert.equal(november.period, '2026-11-01 – 2026-11-30');
      assert.equal(november.period_note, '2026-11-01 – 2026-11-30 first');
      assert.equal(november.hits[0]?.id, 'aaaa1111bbbb2222cccc3333dddd4444');
      const longAgo = await ask('JPY cart rounding in 1990');
      assert.equal(longAgo.period_note, 'no memories from 1990-01-01 – 1990-12-31: the best matches of any time');
      assert.equal(longAgo.hits[0]?.id, 'aaaa1111bbbb2222cccc3333dddd4444', 'the best match of any time, said to be so');
      // A period with memories, none on this: the agent is told how to list them (the person's words may not be the ones said then).
      const offTopicRaw = (await client.callTool({ name: 'memory_search', arguments: { query: 'kubernetes autoscaler on 2026-11-20', mode: 'keyword' } })) as Result;
      assert.match(textOf(offTopicRaw), /No memories found on this\. List that period's memories as period_note says/);
      const offTopic = await ask('kubernetes autoscaler on 2026-11-20');
      assert.deepEqual([offTopic.period_note, offTopic.hits.length], ['nothing on this from 2026-11-20 (memory_search with since "2026-11-20", until "2026-11-20" and no query lists its memories)', 0]);
      const thatDay = JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { since: '2026-11-20', until: '2026-11-20' } })) as Result).content[0]!.text) as Dated;
      assert.deepEqual(thatDay.hits.map((h) => h.id).sort(), ['aaaa1111bbbb2222cccc3333dddd4444', 'aaaa1111eeee5555ffff6666aaaa7777']);
      assert.equal((await ask('JPY cart rounding')).period_note, undefined);
      // Asked for the last time: the agent is told the newest on the topic lead.
      const last = JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { query: 'what did we decide last time about JPY cart rounding', mode: 'keyword' } })) as Result).content[0]!.text) as Dated & { latest_note?: string };
      assert.deepEqual([last.latest_note, last.period, last.hits[0]?.id], ['the latest first: the memories on this, newest first', undefined, 'aaaa1111bbbb2222cccc3333dddd4444']);
      assert.equal(((await ask('JPY cart rounding')) as Dated & { latest_note?: string }).latest_note, undefined);

      // The aliases models reach for, and hybrid search with the model loaded on demand.
      const alias = await client.callTool({ name: 'memory_search', arguments: { q: 'staging deploy', limit: '1', after: '2026-01-01', before: '2026-12-31' } });
      const a = JSON.parse((alias as Result).content[0]!.text) as { hits: Array<{ id: string }> };
      assert.deepEqual(a.hits.map((h) => h.id), ['aaaa1111eeee5555ffff6666aaaa7777']);

      const show = await client.callTool({ name: 'memory_show', arguments: { id: 'aaaa1111bbbb' } });
      assert.match(textOf(show), /currency exponent table in src\/money\.ts/);

      const note = await client.callTool({ name: 'memory_remember', arguments: { text: 'Remember: the release train leaves on Thursdays at 15:00; token ghp_abcdefghijklmnopqrstuvwxyz0123456789 is the bot\'s.' } });
      assert.ok(!(note as Result).isError, textOf(note));
      assert.match(textOf(note), /project shop/);
      assert.match(textOf(note), /1 secret\(s\) redacted/);
      const again = await client.callTool({ name: 'memory_search', arguments: { query: 'release train Thursdays', mode: 'keyword' } });
      const noteHit = (JSON.parse((again as Result).content[0]!.text) as { hits: Array<{ id: string; source: string; question: string }> }).hits[0];
      assert.equal(noteHit?.source, 'note');
      assert.ok(!noteHit?.question.includes('ghp_'), 'redacted');
      assert.match(git('log', '-1', '--format=%s'), /a note/);

      const forget = await client.callTool({ name: 'memory_forget', arguments: { ids: ['aaaa1111bbbb2222cccc3333dddd4444', noteHit!.id] } });
      assert.ok(!(forget as Result).isError, textOf(forget));
      assert.match(textOf(forget), /Forgot 2 memories .* on every machine/);
      const gone = await client.callTool({ name: 'memory_search', arguments: { query: 'JPY cart rounding release train', mode: 'keyword' } });
      assert.deepEqual((JSON.parse((gone as Result).content[0]!.text) as { hits: unknown[] }).hits, []);
      assert.match(git('log', '-1', '--format=%s'), /forget 2 memories/);

      for (const [name, args, msg] of [
        ['memory_show', { id: 'nosuchid00' }, /no memory with id "nosuchid00"/],
        ['memory_show', {}, /id is required/],
        ['memory_search', {}, /query is required/],
        ['memory_search', { query: 'x', top_k: 'lots' }, /top_k must be a whole number/],
        ['memory_search', { query: 'x', mode: 'psychic' }, /mode must be hybrid, keyword or vector/],
        ['memory_search', { query: 'x', since: 'someday' }, /since/],
        ['memory_forget', { ids: ['aaaa1111eeee5555ffff6666aaaa7777', 'unknown-id-1'] }, /no memory with id "unknown-id-1"/],
        ['memory_forget', {}, /ids is required/],
        ['memory_remember', { text: '   ' }, /the note is empty/],
      ] as Array<[string, Record<string, unknown>, RegExp]>) {
        const r = (await client.callTool({ name, arguments: args })) as Result;
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is a tool error`);
        assert.match(textOf(r), msg);
      }
      // A bad argument type is a tool error too (the SDK's validation), never a crash.
      const typed = (await client.callTool({ name: 'memory_forget', arguments: { ids: 42 } })) as Result;
      assert.equal(typed.isError, true);
      // Nothing was forgotten by the failed call: the staging memory is still there.
      const still = await client.callTool({ name: 'memory_search', arguments: { query: 'staging deploy', mode: 'keyword' } });
      assert.equal((JSON.parse((still as Result).content[0]!.text) as { hits: Array<{ id: string }> }).hits[0]?.id, 'aaaa1111eeee5555ffff6666aaaa7777');
    } finally {
      await client.close();
    }
    // The CLI sees what the server did.
    const r = runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', 'staging deploy']);
    assert.equal((JSON.parse(r.stdout) as { hits: Array<{ id: string }> }).hits[0]?.id, 'aaaa1111eeee5555ffff6666aaaa7777');
    // So does the CLI: its first line, and --json.
    const said = runCli(['--config', w.config, 'search', '--mode', 'keyword', 'staging deploy in 1990']);
    assert.equal(said.stdout.split('\n')[0], 'no memories from 1990-01-01 – 1990-12-31: the best matches of any time');
    assert.match(said.stdout, /Push to the staging branch/);
    assert.equal(runCli(['--config', w.config, 'search', '--mode', 'keyword', 'staging deploy in November 2026']).stdout.split('\n')[0], '2026-11-01 – 2026-11-30 first');
    const offTopic = runCli(['--config', w.config, 'search', '--mode', 'keyword', 'kubernetes autoscaler on 2026-11-20']);
    assert.equal(offTopic.stdout.split('\n')[0], 'nothing on this from 2026-11-20 (memory search --since 2026-11-20 --until 2026-11-20 lists its memories)');
    const thatDay = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--since', '2026-11-20', '--until', '2026-11-20']).stdout) as { hits: Array<{ id: string }> };
    assert.deepEqual(thatDay.hits.map((h) => h.id), ['aaaa1111eeee5555ffff6666aaaa7777'], 'the day\'s memories (the other was forgotten)');
    const bare = runCli(['--config', w.config, 'search']);
    assert.deepEqual([bare.code, /memory search --since yesterday/.test(bare.stderr)], [2, true]);
    const json = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', 'staging deploy in 1990']).stdout) as { period: { label: string; on_topic: boolean; held?: string } };
    assert.deepEqual([json.period.label, json.period.on_topic, json.period.held], ['1990-01-01 – 1990-12-31', false, 'empty']);
    const day = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', 'on 2026-11-20']).stdout) as { period: { on_topic: boolean; held?: string }; hits: Array<{ id: string }> };
    assert.deepEqual([day.period.on_topic, day.period.held, day.hits.map((h) => h.id)], [true, 'listed', ['aaaa1111eeee5555ffff6666aaaa7777']]);
    // Asked for the last time: said on the first line, and in --json.
    const last = runCli(['--config', w.config, 'search', '--mode', 'keyword', 'what did we decide last time about the staging deploy']);
    assert.deepEqual(last.stdout.split('\n')[0], 'the latest first: the memories on this, newest first');
    assert.match(last.stdout, /Push to the staging branch/);
    const lastJson = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', '前回の staging deploy']).stdout) as { latest?: string; period?: unknown };
    assert.deepEqual([lastJson.latest, lastJson.period], ['first', undefined]);
    w.cleanup();
    elsewhere.cleanup();
  });
});

describe('a listing from the agent\'s folder', () => {
  it('"what did we do last time" lists the memories of the folder\'s project first, then the other projects\' (MCP and CLI), and says so; from a folder with no memories, the newest of all', async () => {
    const w = makeWorld({ extra: '[sync]\nremote_url = ""' });
    const elsewhere = tempDir();
    try {
      const work = join(elsewhere.dir, 'shop');
      mkdirSync(work);
      fixtureGit(work, 'init', '-q');
      const nowhere = join(elsewhere.dir, 'notes');
      mkdirSync(nowhere);
      initRepo(w.dir, 't');
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
        rec({ id: 'shop0000aaaa1111bbbb2222cccc3333', project: 'shop', timestamp: '2026-11-18T10:00:00.000Z', question: 'Why does the cart total round wrong for JPY?', answer: 'JPY has no minor unit.' }),
        rec({ id: 'api00000aaaa1111bbbb2222cccc3333', project: 'api', timestamp: '2026-11-19T10:00:00.000Z', question: 'How do we deploy the staging API?', answer: 'Push to the staging branch.' }),
        rec({ id: 'api00000bbbb1111bbbb2222cccc3333', project: 'api', timestamp: '2026-11-20T10:00:00.000Z', question: 'Which port does the API listen on?', answer: '8080.' }),
      ]);
      fixtureGit(w.dir, 'add', '-A');
      fixtureGit(w.dir, 'commit', '-qm', 'seed');
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd: work, env: { ...process.env, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const listed = JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { query: 'what did we do last time' } })) as Result).content[0]!.text) as { latest_note?: string; project_first?: string; hits: Array<{ id: string; project: string }> };
        assert.deepEqual([listed.hits.map((h) => h.project), listed.latest_note, listed.project_first], [['shop', 'api', 'api'], "the latest memories, newest first: shop's first", 'shop']);
        // The agent names the project: that one's only.
        const named = JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { query: 'what did we do last time', project: 'api' } })) as Result).content[0]!.text) as { latest_note?: string; hits: Array<{ project: string }> };
        assert.deepEqual([named.hits.map((h) => h.project), named.latest_note], [['api', 'api'], 'the latest memories, newest first']);
      } finally {
        await client.close();
      }
      // The CLI (and the skill, which runs it in the agent's folder): the same, on its first line and in --json.
      const here = runCli(['--config', w.config, 'search', '--mode', 'keyword', 'what did we do last time'], { cwd: work });
      assert.deepEqual(here.stdout.split('\n')[0], "the latest memories, newest first: shop's first");
      const hereJson = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--since', '2026-11-01'], { cwd: work }).stdout) as { project_first?: string; hits: Array<{ id: string }> };
      assert.deepEqual([hereJson.project_first, hereJson.hits[0]?.id], ['shop', 'shop0000aaaa1111bbbb2222cccc3333']);
      const away = JSON.parse(runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', '前回何をしたっけ'], { cwd: nowhere }).stdout) as { latest?: string; project_first?: string; hits: Array<{ id: string }> };
      assert.deepEqual([away.latest, away.project_first, away.hits.map((h) => h.id)], ['listed', undefined, ['api00000bbbb1111bbbb2222cccc3333', 'api00000aaaa1111bbbb2222cccc3333', 'shop0000aaaa1111bbbb2222cccc3333']]);
    } finally {
      w.cleanup();
      elsewhere.cleanup();
    }
  });
});

describe('memory mcp in an excluded project\'s folder', () => {
  it('searches, shows and remembers nothing there, and says why; the same server elsewhere works', async () => {
    const w = makeWorld({ extra: '[privacy]\nexclude_projects = ["client-*"]' });
    const elsewhere = tempDir();
    try {
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
        rec({ id: 'bbbb2222cccc3333dddd4444eeee5555', project: 'shop', question: 'Which payment provider did we pick for the shop?', answer: 'The one with local card schemes; the contract renews yearly.' }),
      ]);
      const connect = async (folder: string) => {
        const cwd = join(elsewhere.dir, folder);
        mkdirSync(cwd, { recursive: true });
        const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd, env: { ...process.env, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(transport);
        return client;
      };
      const inside = await connect('client-acme');
      try {
        for (const [name, args] of [['memory_search', { query: 'payment provider', mode: 'keyword' }], ['memory_show', { id: 'bbbb2222cccc' }], ['memory_remember', { text: 'Remember: the acme deploy key lives in the vault' }]] as const) {
          const r = (await inside.callTool({ name, arguments: args })) as Result;
          assert.equal(r.isError, true, name);
          assert.match(r.content[0]!.text, /memory is off in this folder: project "client-acme" is excluded/, name);
        }
      } finally {
        await inside.close();
      }
      const ids = (JSON.parse(runCli(['-c', w.config, 'search', '--json', '--mode', 'keyword', 'acme deploy key vault']).stdout) as { hits: unknown[] }).hits;
      assert.deepEqual(ids, [], 'nothing was remembered');
      const outside = await connect('shop');
      try {
        const r = (await outside.callTool({ name: 'memory_search', arguments: { query: 'payment provider', mode: 'keyword' } })) as Result;
        assert.ok(!r.isError, r.content[0]?.text);
        assert.match(r.content[0]!.text, /bbbb2222cccc3333dddd4444eeee5555/);
      } finally {
        await outside.close();
      }
    } finally {
      w.cleanup();
      elsewhere.cleanup();
    }
  });
});
