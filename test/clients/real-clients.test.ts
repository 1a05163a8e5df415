/**
 * Inside the real agents (issue 25): Claude Code and Codex, installed from the npm registry,
 * run offline against the stand-in model server on loopback (the only fake). A real session
 * on machine A becomes a memory — the prompt verbatim, the final answer verbatim — is pushed,
 * pulled on machine B, and is in B's next model request. Machine A runs the packed package
 * installed with `npm install -g`, machine B the checkout (this clone's CLI); each registered
 * with `memory install`, and joined to one memory remote with `memory init --remote`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { renameMapHead } from '../../src/changes/renames.js';
import { CLI, clockAt, FAKETIME_LIB, REPO, tempDir } from '../support/helpers.js';
import { captured, winning, clientBin, clientMissing, memoryFileOnRemote, memoryFilesInHome, eventually, hookResponses, resultText, runAsync } from './clients.js';
import { claudeMemorySearch, codexMemorySearch, lastUserText, startStandIn, type StandIn, type ToolCall } from './stand-in.js';
import { git, homeMachine, type HomeMachine } from '../support/homes.js';

const ORIGIN = 'https://git.example.com/acme/shop.git';

/** The reply the stand-in gives: derived from the prompt, so each session's answer is its own. */
function replyTo(body: unknown): string {
  const asked = lastUserText(body).trim().split('\n').pop() ?? '';
  return `Stand-in answer: for "${asked.slice(0, 80)}" the fix was to pin the carrier API client to v3 and retry twice on 503.`;
}

/**
 * The stand-in's model: "Open <absolute path> …" asks for the Read tool first (the client runs
 * it, and its hooks); once a tool's result is in the conversation, or for any other prompt, a text reply.
 */
function model(body: unknown): string | ToolCall {
  // Once any tool result is in the conversation, the tool has run: a text reply (a hook's context
  // may come as a message of its own after the result).
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const toolDone = messages.some((m) => Array.isArray(m.content) && m.content.some((c) => (c as { type?: string }).type === 'tool_result'));
  const open = /^Open (\/\S+)/m.exec(lastUserText(body));
  if (open && !toolDone) return { tool: 'Read', input: { file_path: open[1] as string } };
  // Codex: "Patch src/… so that …" asks for apply_patch (retryOnce → retryTwice) until its output is back.
  const input = (body as { input?: Array<{ type?: string }> }).input ?? [];
  const patched = input.some((i) => i.type === 'custom_tool_call_output' || i.type === 'function_call_output');
  const patch = /^Patch (\S+)/m.exec(lastUserText(body));
  if (patch && !patched) {
    const file = patch[1] as string;
    return { tool: 'apply_patch', input: { patch: ['*** Begin Patch', `*** Update File: ${file}`, '@@', '-export function capture(p) { return retryOnce(p); }', '+export function capture(p) { return retryTwice(p); }', '*** End Patch', ''].join('\n') } };
  }
  // Codex: "Show src/…" reads it the way Codex reads files, with a shell command, until its output is back.
  const show = /^Show (\S+)/m.exec(lastUserText(body));
  if (show && !patched) return { tool: 'exec_command', input: { cmd: `sed -n '1,40p' ${show[1] as string}` } };
  // "Search memory: {…}": the MCP tool memory_search with those arguments, until its result is back.
  const claudeSearch = claudeMemorySearch(body);
  if (claudeSearch) return claudeSearch;
  const codexSearch = codexMemorySearch(body);
  if (codexSearch) return codexSearch;
  // "Run: <command>": the shell runs it (Claude Code: Bash; Codex: exec_command), until its output is back.
  const run = /^Run: (.+)$/m.exec(lastUserText(body));
  if (run && !toolDone && !patched) return 'messages' in (body as object) ? { tool: 'Bash', input: { command: run[1] as string, description: 'Run the command' } } : { tool: 'exec_command', input: { cmd: run[1] as string } };
  // "Install the heron exporter …", "Deploy the heron dashboard …": the agent asks for a password first.
  const asked = lastUserText(body).trim().split('\n').pop() ?? '';
  if (/^Install the heron exporter\b/.test(asked)) return 'The install needs root. What is the sudo password?';
  if (/^Deploy the heron dashboard\b/.test(asked)) return 'The deploy needs the staging database password. What is it?';
  return replyTo(body);
}

interface Agent {
  m: HomeMachine;
  /** `memory` as this machine has it: the installed package's bin, or node + the checkout's CLI. */
  memory: (args: string[]) => { code: number | null; stdout: string; stderr: string };
  /** The project checkout sessions run in (same origin on every machine: one project). */
  project: string;
  env: NodeJS.ProcessEnv;
}

/** Codex's own config in the machine's CODEX_HOME: the stand-in as its model provider; no [features] (Codex 0.171 runs hooks by default). */
function codexTalksTo(env: NodeJS.ProcessEnv, url: string, modelName = 'stand-in'): void {
  const codexHome = env.CODEX_HOME as string;
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [`model = "${modelName}"`, 'model_provider = "stub"', '', '[model_providers.stub]', 'name = "stub"', `base_url = "${url}/v1"`, 'env_key = "STUB_API_KEY"', 'wire_api = "responses"', ''].join('\n'),
  );
}

function projectCheckout(m: HomeMachine, folder: string): string {
  const dir = join(m.user, folder);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', ORIGIN);
  writeFileSync(join(dir, 'README.md'), '# shop\n');
  return dir;
}



describe('inside the real agents: a session on one machine is in the next session on another', () => {
  let root: string;
  let cleanup: () => void;
  let standIn: StandIn;
  let remote: string;
  let prefix: string;
  const missing = clientMissing('claude') ?? clientMissing('codex');

  before(async () => {
    ({ dir: root, cleanup } = tempDir('memory-clients-'));
    standIn = await startStandIn(model);
    if (missing) return;
    remote = join(root, 'memories.git');
    git(root, 'init', '-q', '--bare', remote);
    // The package as npm would publish it (dist is built by `npm test`), installed globally into
    // a prefix of its own with the install command the README gives.
    const packDir = join(root, 'pack');
    mkdirSync(packDir);
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { cwd: REPO, encoding: 'utf8' });
    assert.equal(pack.status, 0, pack.stderr);
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz')) as string);
    prefix = join(root, 'prefix');
    const install = spawnSync('npm', ['install', '-g', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, tarball], { encoding: 'utf8', timeout: 300_000 });
    assert.equal(install.status, 0, install.stderr);
  });
  after(async () => {
    await standIn.close();
    cleanup();
  });

  function agent(name: string, via: 'package' | 'checkout', folder: string): Agent {
    const m = homeMachine(root, name);
    // Node 22+ first on PATH, as the person's shell has it (the package's bin is `#!/usr/bin/env node`).
    const env: NodeJS.ProcessEnv = { ...process.env, ...m.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) };
    delete env.MEMORY_CONFIG;
    delete env.CLAUDECODE;
    delete env.CLAUDE_CODE_ENTRYPOINT;
    const bin = via === 'package' ? [join(prefix, 'bin', 'memory')] : [process.execPath, CLI];
    const memory = (args: string[]) => {
      const r = spawnSync(bin[0] as string, [...bin.slice(1), ...args], { env, cwd: m.user, encoding: 'utf8', timeout: 120_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    return { m, memory, project: projectCheckout(m, folder), env };
  }

  /**
   * Machines `<prefix>-laptop` (A) and `<prefix>-desktop` (B), each a checkout of the shop holding
   * src/checkout.ts, set up for their agent by `install`, then joined to one new memory remote.
   */
  function twoCheckouts(prefix: string, install: (x: Agent) => void): { a: Agent; b: Agent; fileRemote: string } {
    const a = agent(`${prefix}-laptop`, 'checkout', join('src', 'shop'));
    const b = agent(`${prefix}-desktop`, 'checkout', join('work', 'shop-b'));
    const fileRemote = join(root, `memories-${prefix}.git`);
    git(root, 'init', '-q', '--bare', fileRemote);
    for (const x of [a, b]) {
      mkdirSync(join(x.project, 'src'), { recursive: true });
      writeFileSync(join(x.project, 'src', 'checkout.ts'), 'export function capture(p) { return retryOnce(p); }\n');
      install(x);
      assert.equal(x.memory(['init', '--remote', fileRemote]).code, 0);
    }
    return { a, b, fileRemote };
  }

  /** Machines `<prefix>-codex` (Codex installed) and `<prefix>-claude` (Claude Code), each a checkout of the shop, joined to one new memory remote. */
  function codexAndClaude(prefix: string): { cx: Agent; cc: Agent; remote: string } {
    const cx = agent(`${prefix}-codex`, 'checkout', join('src', 'shop'));
    const cc = agent(`${prefix}-claude`, 'checkout', join('src', 'shop'));
    const remote = join(root, `memories-${prefix}.git`);
    git(root, 'init', '-q', '--bare', remote);
    codexTalksTo(cx.env, standIn.url);
    for (const [x, flag] of [[cx, '--codex'], [cc, '--claude-code']] as const) {
      assert.equal(x.memory(['install', flag]).code, 0);
      assert.equal(x.memory(['init', '--remote', remote]).code, 0);
    }
    return { cx, cc, remote };
  }

  /**
   * The tool hook's context for `file` in a model request (JSON): its heading to the end of that
   * text, not the rest of the request (a session start's injection holds memories too).
   */
  function fileContext(request: string | undefined, file: string): string | undefined {
    const i = request?.indexOf(`earlier sessions on ${file}`) ?? -1;
    return request === undefined || i < 0 ? undefined : /^(?:[^"\\]|\\.)*/.exec(request.slice(i))?.[0];
  }

  it('Claude Code: package on A, checkout on B', { skip: missing }, async () => {
    const a = agent('cc-laptop', 'package', join('src', 'shop'));
    const b = agent('cc-desktop', 'checkout', join('work', 'shop-2'));
    for (const x of [a, b]) {
      const inst = x.memory(['install', '--claude-code']);
      assert.equal(inst.code, 0, inst.stderr);
      const init = x.memory(['init', '--remote', remote]);
      assert.equal(init.code, 0, init.stderr);
    }
    const settingsA = readFileSync(join(a.m.user, '.claude', 'settings.json'), 'utf8');
    assert.ok(settingsA.includes(join(prefix, 'lib', 'node_modules', 'memory-engine', 'dist', 'src', 'cli', 'main.js')), 'A\'s hooks run the installed package');
    assert.ok(readFileSync(join(b.m.user, '.claude', 'settings.json'), 'utf8').includes(CLI), 'B\'s hooks run the checkout');
    const claudeEnv = (x: Agent) => ({ ...x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    const claude = (x: Agent, prompt: string) =>
      runAsync(clientBin('claude'), ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env: claudeEnv(x) });

    const prompt = 'Why did the checkout page time out when the shipping quote service was slow?';
    const first = await claude(a, prompt);
    assert.equal(first.code, 0, first.stderr);
    const answer = resultText(first.stdout);
    assert.equal(answer, replyTo({ messages: [{ role: 'user', content: prompt }] }));
    for (const h of hookResponses(first.stdout)) assert.deepEqual([h.event, h.outcome, h.exit_code], [h.event, 'success', 0], JSON.stringify(h));
    assert.deepEqual([...new Set(hookResponses(first.stdout).map((h) => h.event))].sort(), ['SessionStart', 'Stop', 'UserPromptSubmit']);

    // Captured verbatim and pushed (SessionEnd asks the worker to commit and push at once).
    const pushed = await eventually(() => {
      const text = memoryFileOnRemote(remote, 'cc-laptop');
      return text && captured(text).some((r) => r.question === prompt) ? text : undefined;
    });
    const memory = captured(pushed).find((r) => r.question === prompt);
    assert.deepEqual(memory && { question: memory.question, answer: memory.answer, source: memory.source, project: memory.project }, { question: prompt, answer, source: 'claude-code', project: 'shop' });
    // The transcript the real client wrote holds no shape the parser does not know: no drift line.
    assert.equal((JSON.parse(a.memory(['status', '--json']).stdout) as { unknown_transcript_shapes: string | null }).unknown_transcript_shapes, null);

    // Machine B's next session starts with it in the model's request.
    const seen = standIn.requests.length;
    const second = await claude(b, 'What should I check first in the shop service today?');
    assert.equal(second.code, 0, second.stderr);
    for (const h of hookResponses(second.stdout)) assert.equal(h.outcome, 'success', JSON.stringify(h));
    const bodies = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body));
    assert.ok(bodies.some((t) => t.includes(JSON.stringify(prompt).slice(1, -1)) && t.includes(JSON.stringify(answer).slice(1, -1))), 'A\'s memory, verbatim, in B\'s model request');

    // Asked only what was done last time (8 characters of Japanese): the per-prompt hook lists the project's latest, A's turn among them.
    const third = await claude(b, '前回何をしたっけ');
    assert.equal(third.code, 0, third.stderr);
    const listed = hookResponses(third.stdout).find((h) => h.event === 'UserPromptSubmit');
    assert.equal(listed?.outcome, 'success', JSON.stringify(listed));
    assert.ok(listed?.stdout?.includes("this project's latest sessions, newest first") && listed.stdout.includes(JSON.stringify(prompt.slice(0, 40)).slice(1, -1)), listed?.stdout);
  });

  it('Claude Code: the MCP server install registers (claude on PATH) answers a real tool call; a period with nothing on the question says so and names its listing, and the listing reaches the next model request; what it gave is not recalled again in that session', { skip: missing }, async () => {
    const x = agent('mcp-laptop', 'checkout', join('src', 'shop'));
    // The person's shell has `claude` on PATH: install registers the MCP server through it.
    x.env.PATH = [dirname(clientBin('claude')), x.env.PATH].join(delimiter);
    // Under faketime (the suite at a new month), `claude mcp add`, which install runs, fails in
    // libfaketime (the shared clock's semaphore, as runAsync notes): install, which reads no
    // clock that matters here, runs outside it.
    const faked = { LD_PRELOAD: x.env.LD_PRELOAD, FAKETIME_SHARED: x.env.FAKETIME_SHARED };
    delete x.env.LD_PRELOAD;
    delete x.env.FAKETIME_SHARED;
    const inst = x.memory(['install', '--claude-code']);
    for (const [k, v] of Object.entries(faked)) if (v !== undefined) x.env[k] = v;
    assert.equal(inst.code, 0, inst.stderr);
    assert.match(inst.stdout, /registered the MCP server "memory-engine" for Claude Code \(user scope\)/);
    const claudeEnv = { ...x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const claude = (prompt: string) => runAsync(clientBin('claude'), ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'mcp__memory-engine__memory_search'], { cwd: x.project, env: claudeEnv });
    // A real session, captured: the day's one memory.
    const prompt = 'Why did the label printer skip the customs form on large orders?';
    assert.equal((await claude(prompt)).code, 0);
    const kept = await eventually(() => {
      const r = x.memory(['search', '--json', '--mode', 'keyword', 'label printer customs form']);
      return r.code === 0 ? (JSON.parse(r.stdout) as { hits: Array<{ question: string; timestamp: string }> }).hits.find((h) => h.question === prompt) : undefined;
    });
    const at = new Date(kept.timestamp);
    const day = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
    // The agent asks about that day on another topic: told nothing of it is on this, and how to list it.
    const seen = standIn.requests.length;
    const asked = await claude(`Search memory: ${JSON.stringify({ query: `kubernetes autoscaler on ${day}`, mode: 'keyword' })}`);
    assert.equal(asked.code, 0, asked.stderr);
    // What the tool gave back, as the client sent it to the model: the text of its tool_result blocks.
    const toolResults = (from: number) =>
      standIn.requests.slice(from).filter((r) => r.path.endsWith('/v1/messages')).flatMap((r) => ((r.body as { messages?: Array<{ content: unknown }> }).messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : [])))
        .filter((c) => (c as { type?: string }).type === 'tool_result')
        .map((c) => { const content = (c as { content?: unknown }).content; return Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? '').join('\n') : String(content); })
        // ToolSearch's result (the deferred tool's schema, loaded) holds no text.
        .filter((t) => t.trim().length > 0);
    const first = toolResults(seen).map((t) => JSON.parse(t.slice(0, t.lastIndexOf('}') + 1)) as { period_note?: string; hits: unknown[] });
    assert.deepEqual(first.map((r) => [r.period_note, r.hits.length]), [[`nothing on this from ${day} (memory_search with since "${day}", until "${day}" and no query lists its memories)`, 0]]);
    assert.match(toolResults(seen)[0] as string, /No memories found on this\. List that period's memories as period_note says/);
    // The listing it names: the day's memory, verbatim, in the tool's result (not only in what session start injected).
    const listedSeen = standIn.requests.length;
    const listed = await claude(`Search memory: ${JSON.stringify({ since: day, until: day })}`);
    assert.equal(listed.code, 0, listed.stderr);
    const list = toolResults(listedSeen).map((t) => JSON.parse(t.slice(0, t.lastIndexOf('}') + 1)) as { hits: Array<{ question: string; date: string }> });
    // (The session that asked may be a memory of that day by now too.)
    assert.equal(list.length, 1);
    assert.ok(list[0]!.hits.some((h) => h.question === prompt), JSON.stringify(list));
    assert.deepEqual([...new Set(list[0]!.hits.map((h) => h.date))], [day]);
    // Asked for the last time: the newest memory on the topic first, and the agent is told so.
    const lastSeen = standIn.requests.length;
    const last = await claude(`Search memory: ${JSON.stringify({ query: 'what did we find last time about the label printer and the customs form', mode: 'keyword' })}`);
    assert.equal(last.code, 0, last.stderr);
    const latest = toolResults(lastSeen).map((t) => JSON.parse(t.slice(0, t.lastIndexOf('}') + 1)) as { latest_note?: string; hits: Array<{ question: string }> });
    assert.deepEqual([latest.length, latest[0]?.latest_note, latest[0]?.hits[0]?.question], [1, 'the latest first: the memories on this, newest first', prompt]);
    // What the tool gave the agent is in its context: a later prompt of that session does not recall it
    // again (session start injects nothing here, and the search's own prompt recalls nothing).
    const quiet = { ...claudeEnv, MEMORY_INJECT_RECENT: '0' };
    const searched = await runAsync(clientBin('claude'), ['-p', `Search memory: ${JSON.stringify({ query: 'label printer customs form', mode: 'keyword' })}`, '--output-format', 'stream-json', '--verbose', '--include-hook-events', '--allowedTools', 'mcp__memory-engine__memory_search'], { cwd: x.project, env: { ...quiet, MEMORY_RECALL_ENABLED: '0' } });
    assert.equal(searched.code, 0, searched.stderr);
    assert.equal(hookResponses(searched.stdout).find((h) => h.event === 'PostToolUse')?.outcome, 'success', 'the tool hook ran after the MCP tool');
    const again = 'Why did the label printer skip the customs form on large orders, once more?';
    const recalled = (run: { stdout: string }) => hookResponses(run.stdout).find((h) => h.event === 'UserPromptSubmit')?.stdout ?? '';
    const followUp = await runAsync(clientBin('claude'), ['-p', '--continue', again, '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env: quiet });
    assert.equal(followUp.code, 0, followUp.stderr);
    assert.ok(!recalled(followUp).includes(prompt), `the searched memory again: ${recalled(followUp)}`);
    const fresh = await runAsync(clientBin('claude'), ['-p', again, '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env: quiet });
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.ok(recalled(fresh).includes(prompt), `another session: recalled (a positive check): ${recalled(fresh)}`);
  });

  it('Claude Code: in a history of 1,500 memories the prompt\'s memory is recalled into the model request, its common words left out', { skip: missing }, async () => {
    const x = agent('cc-history', 'checkout', join('src', 'shop'));
    assert.equal(x.memory(['install', '--claude-code']).code, 0);
    // A memory remote of its own: nothing of the other tests' sessions comes with it.
    const own = join(root, 'history.git');
    git(root, 'init', '-q', '--bare', own);
    const init = x.memory(['init', '--remote', own]);
    assert.equal(init.code, 0, init.stderr);
    // Every memory says "order"; the one about the label printer is old (session start injects
    // the five newest, so it can only reach the model through recall).
    const lines: string[] = [];
    const memory = (i: number, question: string, answer: string, timestamp: string) =>
      lines.push(JSON.stringify({ v: 1, id: `hist-${i}`, machine: 'cc-history', project: 'shop', session_id: `hs-${Math.floor(i / 8)}`, timestamp, question, answer }));
    for (let i = 0; i < 1500; i++) memory(i, `order ${i} of the shop: totals for batch ${i * 7}`, `The order ${i} totals were recomputed.`, new Date(Date.UTC(2026, 9, 1) + i * 600_000).toISOString());
    const answer = 'Reseat the thermal head and switch the customs form template to 4x6 labels.';
    memory(1500, 'The label printer at the Rotterdam depot jams on customs forms for every order, why?', answer, '2025-03-04T09:00:00.000Z');
    mkdirSync(join(x.m.home, 'export'), { recursive: true });
    writeFileSync(join(x.m.home, 'export', '2026-10_cc-history.jsonl'), `${lines.join('\n')}\n`);
    const rebuilt = x.memory(['rebuild', '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.equal((JSON.parse(rebuilt.stdout) as { records: number }).records, 1501);

    const seen = standIn.requests.length;
    const env = { ...x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const run = await runAsync(clientBin('claude'), ['-p', 'Why does the Rotterdam label printer jam on the customs forms of an order?', '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env });
    assert.equal(run.code, 0, run.stderr);
    const recalled = hookResponses(run.stdout).find((h) => h.event === 'UserPromptSubmit');
    assert.equal(recalled?.outcome, 'success', JSON.stringify(recalled));
    assert.ok(recalled?.stdout?.includes('id hist-1500'), recalled?.stdout);
    const bodies = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body));
    assert.ok(bodies.some((t) => t.includes(answer)), 'the recalled memory, verbatim, in the model request');
    // The session goes on (`--continue`, the same session): asked again, the hook gives nothing it
    // gave already (each memory once per session), and the model request still holds it, once.
    const again = standIn.requests.length;
    const more = await runAsync(clientBin('claude'), ['-p', '--continue', 'And why does the Rotterdam label printer jam on the customs forms again?', '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env });
    assert.equal(more.code, 0, more.stderr);
    const second = hookResponses(more.stdout).find((h) => h.event === 'UserPromptSubmit');
    assert.equal(second?.outcome, 'success', JSON.stringify(second));
    assert.ok(!second?.stdout?.includes('id hist-1500'), `given again: ${second?.stdout}`);
    const next = standIn.requests.slice(again).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body));
    assert.ok(next.length > 0 && next.every((t) => t.split(answer).length === 2), 'the memory in the continued session\'s request once, from its first prompt');
    // Forked (`--continue --fork-session`: a new session id, the same history) and asked of something
    // else, then continued and asked again: the fork holds what its parent was given, so its hook
    // does not give it again. (Claude Code writes the fork's transcript after its first turn: a fork's
    // first hooks cannot know the parent, and its start injects as a new session's does.)
    const fork = await runAsync(clientBin('claude'), ['-p', '--continue', '--fork-session', 'Which carrier labels do we print at the depot?', '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env });
    assert.equal(fork.code, 0, fork.stderr);
    assert.ok(!hookResponses(fork.stdout).some((h) => h.stdout?.includes('id hist-1500')), 'the fork\'s first prompt is of something else');
    const forkAt = standIn.requests.length;
    const onFork = await runAsync(clientBin('claude'), ['-p', '--continue', 'Why does the Rotterdam label printer jam on the customs forms once more?', '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env });
    assert.equal(onFork.code, 0, onFork.stderr);
    const third = hookResponses(onFork.stdout).find((h) => h.event === 'UserPromptSubmit');
    assert.equal(third?.outcome, 'success', JSON.stringify(third));
    assert.ok(!third?.stdout?.includes('id hist-1500'), `given again in the fork: ${third?.stdout}`);
    const forked = standIn.requests.slice(forkAt).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body));
    assert.ok(forked.length > 0 && forked.every((t) => t.split(answer).length === 2), `the memory in the fork's request once, from its parent's history: ${forked.map((t) => t.split(answer).length - 1).join(', ')}`);
    // "order" is in every memory: the cache counts it among its common terms, which the ranking leaves out.
    const db = new Database(join(x.m.home, '.cache', 'memory.db'), { readonly: true });
    try {
      assert.equal(db.prepare<[], { docs: number }>("SELECT docs FROM term_docs WHERE term = 'order'").get()?.docs, 1501);
      assert.equal(db.prepare<[], { n: number }>("SELECT count(*) AS n FROM term_docs WHERE term = 'rotterdam'").get()?.n, 0);
    } finally {
      db.close();
    }
  });

  /**
   * src/checkout.ts of B's checkout moved to src/pay/checkout.ts and committed; then a real session
   * (`run`), whose session start reads the renames in the background: done when the map is at HEAD.
   */
  async function moveIntoPay(b: Agent, run: (prompt: string) => Promise<{ code: number | null; stderr: string }>): Promise<void> {
    const id = ['-c', 'user.name=b', '-c', 'user.email=b@example.com'];
    git(b.project, 'add', '-A');
    git(b.project, ...id, 'commit', '-q', '-m', 'shop');
    mkdirSync(join(b.project, 'src', 'pay'));
    git(b.project, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    git(b.project, ...id, 'commit', '-q', '-m', 'checkout into pay');
    const head = git(b.project, 'rev-parse', 'HEAD');
    const hello = await run('Say hello.');
    assert.equal(hello.code, 0, hello.stderr);
    assert.equal(await eventually(() => renameMapHead(b.m.home, 'git.example.com/acme/shop', realpathSync(b.project)) === head || undefined), true, 'the session start read the renames (in the background)');
  }

  it('recall by file: a real Read of src/checkout.ts on B runs the PostToolUse hook, and the model request after it carries A\'s turn on that file; after the file is renamed (committed), and after the agent moves it with Bash (not committed), under its new name', { skip: missing }, async () => {
    const { a, b, fileRemote } = twoCheckouts('rf', (x) => assert.equal(x.memory(['install', '--claude-code']).code, 0));
    // B's session starts inject nothing: what a start injected, a Read of that session does not give
    // again (each memory once per session), and the shop holds this one memory; this is the Read's test.
    b.env.MEMORY_INJECT_RECENT = '0';
    const claudeEnv = (x: Agent) => ({ ...x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    const claude = (x: Agent, prompt: string, tools = 'Read') => runAsync(clientBin('claude'), ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-hook-events', '--allowedTools', tools], { cwd: x.project, env: claudeEnv(x) });
    const promptA = `Open ${join(a.project, 'src', 'checkout.ts')} and tell me why the payment capture retries only once.`;
    const first = await claude(a, promptA);
    assert.equal(first.code, 0, `${first.stderr}\n${first.stdout.slice(-3000)}\n${standIn.requests.length} request(s) to the stand-in`);
    const pushed = await eventually(() => {
      const text = memoryFileOnRemote(fileRemote, 'rf-laptop');
      return text && captured(text).some((r) => r.question === promptA) ? text : undefined;
    });
    const memory = captured(pushed).find((r) => r.question === promptA) as unknown as { extra?: Record<string, unknown> } & Record<string, unknown>;
    assert.deepEqual((memory.repo_files ?? memory.extra?.repo_files) as unknown, ['src/checkout.ts'], 'the real transcript\'s Read recorded as a path in the repository');
    // B: a new session reads its own checkout's file.
    const seen = standIn.requests.length;
    const second = await claude(b, `Open ${join(b.project, 'src', 'checkout.ts')} and check the retry.`);
    assert.equal(second.code, 0, second.stderr);
    const post = hookResponses(second.stdout).filter((h) => h.event === 'PostToolUse');
    assert.ok(post.length > 0, `the PostToolUse hook ran: ${JSON.stringify(hookResponses(second.stdout).map((h) => h.event))}`);
    for (const h of post) assert.equal(h.outcome, 'success', JSON.stringify(h));
    const afterTool = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body)).filter((t) => t.includes('tool_result'));
    const carried = afterTool.find((t) => t.includes('earlier sessions on src/checkout.ts'));
    assert.ok(carried, 'the hook\'s context in the request after the Read');
    assert.ok(fileContext(carried, 'src/checkout.ts')?.includes(JSON.stringify(promptA).slice(1, -1)), 'A\'s turn on the file, verbatim, in the hook\'s context');
    assert.match(carried, /· rf-laptop · id /);
    // B moves the file (committed): a real session start reads the renames in the background, and
    // the next session's Read of the new path carries A's turn, recorded under the old one.
    await moveIntoPay(b, (prompt) => claude(b, prompt));
    const movedSeen = standIn.requests.length;
    const moved = await claude(b, `Open ${join(b.project, 'src', 'pay', 'checkout.ts')} and check the retry.`);
    assert.equal(moved.code, 0, moved.stderr);
    const movedCarried = standIn.requests.slice(movedSeen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body)).find((t) => t.includes('earlier sessions on src/pay/checkout.ts'));
    assert.ok(movedCarried, 'the hook\'s context in the request after the Read of the moved file');
    assert.ok(fileContext(movedCarried, 'src/pay/checkout.ts')?.includes(JSON.stringify(promptA).slice(1, -1)), 'A\'s turn on the file under its old name');
    assert.match(movedCarried, /recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since/);
    // B's agent moves it again itself, with Bash (`git mv`, not committed): the hook after the command carries A's turn at once, under the newest name.
    const mvSeen = standIn.requests.length;
    const mv = await claude(b, 'Run: mkdir -p src/billing && git mv src/pay/checkout.ts src/billing/checkout.ts', 'Read,Bash');
    assert.equal(mv.code, 0, mv.stderr);
    assert.ok(existsSync(join(b.project, 'src', 'billing', 'checkout.ts')), 'Claude Code ran the move');
    const mvPost = hookResponses(mv.stdout).filter((h) => h.event === 'PostToolUse');
    assert.ok(mvPost.length > 0 && mvPost.every((h) => h.outcome === 'success'), JSON.stringify(mvPost));
    const mvCarried = standIn.requests.slice(mvSeen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body)).find((t) => t.includes('earlier sessions on src/billing/checkout.ts'));
    assert.ok(mvCarried, 'the hook\'s context in the request after the Bash move');
    // The two newest sessions on the file, B's own by now, the older one two names ago.
    assert.match(fileContext(mvCarried, 'src/billing/checkout.ts') ?? '', /\(recorded as src\/checkout\.ts, renamed to src\/billing\/checkout\.ts since\)/, 'a turn on the file, two names ago');
    assert.match(mvCarried, /recorded as src\/checkout\.ts, renamed to src\/billing\/checkout\.ts since/);
    // That turn, captured at its Stop from the real transcript, records the file its Bash command moved: found by that file.
    const mvTurn = await eventually(() => {
      const r = b.memory(['search', '--json', '--file', join(b.project, 'src', 'billing', 'checkout.ts')]);
      return r.code === 0 ? (JSON.parse(r.stdout) as { hits: Array<{ question: string }> }).hits.find((h) => h.question.includes('git mv src/pay/checkout.ts src/billing/checkout.ts')) : undefined;
    });
    assert.equal(mvTurn.question, 'Run: mkdir -p src/billing && git mv src/pay/checkout.ts src/billing/checkout.ts');
  });

  it('team memory: a real turn of alice in api is published after its window and reaches bob\'s next model request, attributed', { skip: missing ?? (FAKETIME_LIB ? false : 'libfaketime is not installed (apt-get install faketime): the clock cannot be moved past the window') }, async () => {
    const alice = agent('tm-alice', 'checkout', join('src', 'shop'));
    const bob = agent('tm-bob', 'checkout', join('work', 'acme-shop'));
    const teamRemote = join(root, 'team-acme.git');
    git(root, 'init', '-q', '--bare', teamRemote);
    for (const x of [alice, bob]) assert.equal(x.memory(['install', '--claude-code']).code, 0);
    const created = alice.memory(['team', 'create', 'acme', '--remote', teamRemote, '--handle', 'alice', '--project', ORIGIN, '--review-delay', '1']);
    assert.equal(created.code, 0, created.stderr);
    const claudeEnv = (x: Agent) => ({ ...x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    const claude = (x: Agent, prompt: string) => runAsync(clientBin('claude'), ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-hook-events'], { cwd: x.project, env: claudeEnv(x) });
    const prompt = 'Why did the shop checkout start double-charging when the payment webhook retried?';
    const turn = await claude(alice, prompt);
    assert.equal(turn.code, 0, turn.stderr);
    const answer = resultText(turn.stdout) as string;
    // Captured (SessionEnd commits at once): in alice's home, waiting in her outbox.
    await eventually(() => ((JSON.parse(alice.memory(['search', '--json', '--mode', 'keyword', '--scope', 'mine', 'payment webhook retried']).stdout) as { hits: unknown[] }).hits.length > 0 ? true : undefined));
    const inside = alice.memory(['team', 'publish']);
    assert.equal(inside.code, 0, inside.stderr);
    assert.equal(memoryFileOnRemote(teamRemote, 'tm-alice'), undefined, 'inside the window: nothing on the team remote');
    const later = spawnSync(process.execPath, [CLI, 'team', 'publish'], { env: { ...alice.env, ...clockAt(Date.now() + 2 * 3_600_000) }, cwd: alice.m.user, encoding: 'utf8' });
    assert.equal(later.status, 0, later.stderr + later.stdout);
    const published = spawnSync('git', ['--git-dir', teamRemote, 'log', '-p', 'memories'], { encoding: 'utf8' }).stdout;
    assert.ok(published.includes(prompt), `after the window: published (publish said: ${later.stdout})`);
    assert.equal(bob.memory(['team', 'join', 'acme', '--remote', teamRemote, '--handle', 'bob']).code, 0);
    const seen = standIn.requests.length;
    const bobTurn = await claude(bob, 'What should I know before touching the shop checkout today?');
    assert.equal(bobTurn.code, 0, bobTurn.stderr);
    for (const h of hookResponses(bobTurn.stdout)) assert.equal(h.outcome, 'success', JSON.stringify(h));
    const bodies = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/v1/messages')).map((r) => JSON.stringify(r.body));
    const carried = bodies.find((t) => t.includes(JSON.stringify(prompt).slice(1, -1)) && t.includes(JSON.stringify(answer).slice(1, -1)));
    assert.ok(carried, 'alice\'s memory, verbatim, in bob\'s model request');
    assert.match(carried, /alice \(team acme\)/, 'attributed');
  });

  it('Codex: package on A, checkout on B', { skip: missing }, async () => {
    const a = agent('cx-laptop', 'package', join('src', 'shop'));
    const b = agent('cx-desktop', 'checkout', join('work', 'shop-2'));
    // B joins first: the first machine on a new remote commits the shared settings, and A joins a
    // remote that has them.
    for (const x of [b, a]) {
      codexTalksTo(x.env, standIn.url);
      const inst = x.memory(['install', '--codex']);
      assert.equal(inst.code, 0, inst.stderr);
      const init = x.memory(['init', '--remote', remote]);
      assert.equal(init.code, 0, init.stderr);
    }
    const codex = (x: Agent, prompt: string) =>
      runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', prompt], { cwd: x.project, env: { ...x.env, STUB_API_KEY: 'sk-test-stand-in' } });

    const prompt = 'How did we stop the inventory sync from double-counting returned parcels?';
    const first = await codex(a, prompt);
    assert.equal(first.code, 0, first.stderr);
    const answer = replyTo({ input: [{ role: 'user', content: prompt }] });
    assert.ok(first.stdout.includes(answer), first.stdout);
    for (const h of ['SessionStart', 'UserPromptSubmit', 'Stop']) assert.match(first.stderr, new RegExp(`hook: ${h} Completed`), first.stderr);
    assert.doesNotMatch(first.stderr, /hook: \w+ Failed/);

    const pushed = await eventually(() => {
      const text = memoryFileOnRemote(remote, 'cx-laptop');
      return text && captured(text).some((r) => r.question === prompt) ? text : undefined;
    });
    const memory = captured(pushed).filter((r) => r.question === prompt);
    assert.equal(memory.length, 1, 'captured once (the Stop hook and notify name the same turn)');
    assert.deepEqual({ question: memory[0]?.question, answer: memory[0]?.answer, source: memory[0]?.source, project: memory[0]?.project }, { question: prompt, answer, source: 'codex', project: 'shop' });
    assert.equal((JSON.parse(a.memory(['status', '--json']).stdout) as { unknown_transcript_shapes: string | null }).unknown_transcript_shapes, null, 'Codex 0.171\'s rollout: no drift line');

    const seen = standIn.requests.length;
    const second = await codex(b, 'What should I check first in the shop service today?');
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /hook: \w+ Failed/);
    const bodies = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body));
    assert.ok(bodies.some((t) => t.includes(JSON.stringify(prompt).slice(1, -1)) && t.includes(JSON.stringify(answer).slice(1, -1))), 'A\'s memory, verbatim, in B\'s model request');
    assert.ok(existsSync(join(b.m.home, '.git')), 'B keeps memories in its home');

    // "Let's continue where we left off": the per-prompt hook lists the project's latest, A's turn among them, into the next model request.
    const before = standIn.requests.length;
    const third = await codex(b, "let's continue where we left off");
    assert.equal(third.code, 0, third.stderr);
    assert.doesNotMatch(third.stderr, /hook: \w+ Failed/);
    const listed = standIn.requests.slice(before).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body));
    assert.ok(listed.some((t) => t.includes("this project's latest sessions, newest first") && t.includes(JSON.stringify(prompt).slice(1, -1))), 'the listing, with A\'s turn, in the model request');
    // That session resumed (`codex exec resume --last`), asked about A's turn by its words: neither
    // the resumed start nor the per-prompt hook gives again what the session holds (its start's
    // injection and the listing), so the model request holds A's turn as often as before.
    const answerInJson = JSON.stringify(answer).slice(1, -1);
    const held = (listed[listed.length - 1] ?? '').split(answerInJson).length - 1;
    assert.ok(held >= 1, 'the session holds A\'s turn');
    const resumedAt = standIn.requests.length;
    const resumed = await runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', 'resume', '--last', 'How did we stop the inventory sync from double-counting returned parcels again?'], { cwd: b.project, env: { ...b.env, STUB_API_KEY: 'sk-test-stand-in' } });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /hook: UserPromptSubmit Completed/, resumed.stderr);
    const after = standIn.requests.slice(resumedAt).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body));
    assert.ok(after.length > 0 && after.every((t) => t.split(answerInJson).length - 1 === held), `A's turn ${held} times before, in the resumed session's requests: ${after.map((t) => t.split(answerInJson).length - 1).join(', ')}`);
    // Forked (`codex exec fork <id>`: a new session holding the same history): not given again either.
    const parentId = /-([0-9a-f-]{36})\.jsonl$/.exec(spawnSync('sh', ['-c', `ls -t $(find ${b.env.CODEX_HOME ?? join(b.env.HOME as string, '.codex')} -name 'rollout-*.jsonl') | head -1`], { encoding: 'utf8' }).stdout.trim())?.[1] as string;
    const forkAt = standIn.requests.length;
    const forked = await runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', 'fork', parentId, 'How did we stop the inventory sync from double-counting returned parcels, once more?'], { cwd: b.project, env: { ...b.env, STUB_API_KEY: 'sk-test-stand-in' } });
    assert.equal(forked.code, 0, forked.stderr);
    const inFork = standIn.requests.slice(forkAt).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body));
    assert.ok(inFork.length > 0 && inFork.every((t) => t.split(answerInJson).length - 1 === held), `A's turn ${held} times before, in the forked session's requests: ${inFork.map((t) => t.split(answerInJson).length - 1).join(', ')}`);
  });

  it('a secret typed in a sentence — in Japanese and as a login pair in Codex, in English in Claude Code, one with digits and one a plain word — reaches neither the memory remote (any commit) nor the cache: redacted in the question and in the answer that repeats it, the rest verbatim', { skip: missing }, async () => {
    const { cx, cc, remote: secretRemote } = codexAndClaude('sec');
    const sessions = [
      { x: cx, machine: 'sec-codex', secret: 'Tr0ub4dor&3x', prompt: '本番DBのパスワードは Tr0ub4dor&3x です。接続が切れる原因は?', query: '接続が切れる原因' },
      { x: cc, machine: 'sec-claude', secret: 'Winter2024!', prompt: 'The staging password is Winter2024! and the login still fails after the reset: why?', query: 'login still fails after the reset' },
      // A password of one plain word, said as people say it.
      { x: cc, machine: 'sec-claude', secret: 'sunshine', prompt: 'The office wifi password is sunshine, and my laptop drops off it every hour: why?', query: 'laptop drops off every hour' },
      // A login written as a pair.
      { x: cx, machine: 'sec-codex', secret: 'Kq7pLm2x', prompt: 'The staging credentials are deploy:Kq7pLm2x and the deploy hangs at the migration step: why?', query: 'deploy hangs at the migration step' },
    ];
    for (const s of sessions) {
      const run =
        s.x === cx
          ? await runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', s.prompt], { cwd: s.x.project, env: { ...s.x.env, STUB_API_KEY: 'sk-test-stand-in' } })
          : await runAsync(clientBin('claude'), ['-p', s.prompt, '--output-format', 'stream-json', '--verbose'], { cwd: s.x.project, env: { ...s.x.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } });
      assert.equal(run.code, 0, run.stderr);
      const question = s.prompt.replace(s.secret, '[REDACTED:secret]');
      const answer = replyTo({ messages: [{ role: 'user', content: s.prompt }] });
      assert.ok(answer.includes(s.secret), 'the stand-in repeats the prompt, secret and all');
      // Captured by the Stop hook's worker; then pushed (within commit_interval_s, or now: `memory sync`).
      await eventually(() => captured(memoryFilesInHome(s.x.m.home, s.machine)).some((r) => r.question === question) || undefined).catch((err: unknown) => {
        throw new Error(`${String(err)}: ${s.machine} holds ${memoryFilesInHome(s.x.m.home, s.machine)}; stderr: ${run.stderr.slice(-2000)}`);
      });
      assert.equal(s.x.memory(['sync']).code, 0);
      const pushed = memoryFileOnRemote(secretRemote, s.machine) ?? '';
      const memory = captured(pushed).filter((r) => r.question === question);
      assert.deepEqual(memory.map((r) => r.answer), [answer.replace(s.secret, '[REDACTED:secret]')], 'captured once, the answer redacted too');
      // Not in any commit the remote holds, nor in the machine's cache.
      const history = spawnSync('git', ['--git-dir', secretRemote, 'log', '--all', '-p', '--format=%H %s'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal(history.status, 0, history.stderr);
      assert.ok(history.stdout.includes('[REDACTED:secret]'), 'the remote holds the memory');
      // No piece of it either: the password without its final mark.
      const core = s.secret.replace(/[!?.]+$/, '');
      assert.ok(!history.stdout.includes(core), `${core} in the remote's history`);
      const found = s.x.memory(['search', '--json', '--mode', 'keyword', s.query]);
      assert.equal(found.code, 0, found.stderr);
      const hit = (JSON.parse(found.stdout) as { hits: Array<{ question: string }> }).hits[0];
      assert.equal(hit?.question, question, found.stdout);
      assert.ok(!found.stdout.includes(core), found.stdout);
    }
  });

  it('a password typed because the agent asked for it — alone in Claude Code (`-p --continue`), in a sentence in Codex (`exec resume --last`) — reaches neither the memory remote nor the cache; the answer that repeats it is redacted, the rest kept verbatim', { skip: missing }, async () => {
    const { cx, cc, remote: askRemote } = codexAndClaude('ask');
    const claudeEnv = { ...cc.env, ANTHROPIC_API_KEY: 'sk-ant-test-stand-in', ANTHROPIC_BASE_URL: standIn.url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const codexEnv = { ...cx.env, STUB_API_KEY: 'sk-test-stand-in' };
    const pw = ['hun', 'ter', '22'].join('');
    const dbPw = ['sun', 'shine', '42'].join('');
    const claudeQ = 'Install the heron exporter on the staging box';
    const asked = await runAsync(clientBin('claude'), ['-p', claudeQ, '--output-format', 'stream-json', '--verbose'], { cwd: cc.project, env: claudeEnv });
    assert.equal(asked.code, 0, asked.stderr);
    // The turn as it stood, captured before it grows: the reply then makes a second version of it.
    await eventually(() => captured(memoryFilesInHome(cc.m.home, 'ask-claude')).some((r) => r.question === claudeQ) || undefined);
    const runs = [
      // Shorter than a question: Claude Code's session goes on, and the stand-in's answer repeats it.
      await runAsync(clientBin('claude'), ['-p', '--continue', pw, '--output-format', 'stream-json', '--verbose'], { cwd: cc.project, env: claudeEnv }),
      await runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', 'Deploy the heron dashboard to staging'], { cwd: cx.project, env: codexEnv }),
      await runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', 'resume', '--last', `it's ${dbPw} please`], { cwd: cx.project, env: codexEnv }),
    ];
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    assert.ok(replyTo({ messages: [{ role: 'user', content: pw }] }).includes(pw), 'the stand-in repeats the reply');
    const codexQ = `it's [REDACTED:secret] please`;
    for (const [x, machine, question] of [[cc, 'ask-claude', claudeQ], [cx, 'ask-codex', codexQ]] as const) {
      await eventually(() => captured(memoryFilesInHome(x.m.home, machine)).some((r) => r.question === question && (machine !== 'ask-claude' || r.answer.includes('Stand-in answer'))) || undefined).catch((err: unknown) => {
        throw new Error(`${String(err)}: ${machine} holds ${memoryFilesInHome(x.m.home, machine)}`);
      });
      assert.equal(x.memory(['sync']).code, 0);
    }
    const history = spawnSync('git', ['--git-dir', askRemote, 'log', '--all', '-p', '--format=%H %s'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(history.status, 0, history.stderr);
    assert.ok(!history.stdout.includes(pw) && !history.stdout.includes(dbPw), 'neither password in any commit of the remote');
    // Positively: what was said around them, verbatim.
    // The first run's capture came before the second grew the turn: the version that wins.
    const claudeTurn = winning(captured(memoryFileOnRemote(askRemote, 'ask-claude') ?? '')).filter((r) => r.question === claudeQ);
    assert.ok(captured(memoryFileOnRemote(askRemote, 'ask-claude') ?? '').filter((r) => r.question === claudeQ).length >= 2, 'the turn before the reply, and after it');
    assert.deepEqual(claudeTurn.map((r) => r.answer), [`The install needs root. What is the sudo password?\n\n${replyTo({ messages: [{ role: 'user', content: pw }] }).replace(pw, '[REDACTED:secret]')}`]);
    const codexTurns = winning(captured(memoryFileOnRemote(askRemote, 'ask-codex') ?? '')).map((r) => [r.question, r.answer]);
    assert.deepEqual(codexTurns.filter(([q]) => q === codexQ).map(([, a]) => a), [replyTo({ input: [{ role: 'user', content: `it's ${dbPw} please` }] }).replace(dbPw, '[REDACTED:secret]')]);
    assert.ok(codexTurns.some(([q, a]) => q === 'Deploy the heron dashboard to staging' && a === 'The deploy needs the staging database password. What is it?'), JSON.stringify(codexTurns));
    for (const [x, query] of [[cc, 'heron exporter staging box'], [cx, 'heron dashboard deployed staging']] as const) {
      const found = x.memory(['search', '--json', '--mode', 'keyword', query]);
      assert.equal(found.code, 0, found.stderr);
      assert.ok(JSON.parse(found.stdout).hits.length > 0 && !found.stdout.includes(pw) && !found.stdout.includes(dbPw), found.stdout);
    }
  });

  it('recall by file in Codex: a real apply_patch of src/checkout.ts on B, and a real shell read of it, each run the PostToolUse hook, and the model request after each carries A\'s turn on that file; after the file is renamed (committed), and after Codex moves it with its shell (not committed), under its new name', { skip: missing }, async () => {
    const { a, b, fileRemote } = twoCheckouts('rfx', (x) => {
      // A model Codex knows (gpt-5.5) is offered apply_patch; the stand-in answers for it.
      codexTalksTo(x.env, standIn.url, 'gpt-5.5');
      assert.equal(x.memory(['install', '--codex']).code, 0);
    });
    const codex = (x: Agent, prompt: string, sandbox = 'workspace-write') =>
      runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', '-s', sandbox, prompt], { cwd: x.project, env: { ...x.env, STUB_API_KEY: 'sk-test-stand-in' } });
    // Codex has no session end: A's captures go in batches, and the first of a home init just made at once.
    // B's session starts inject nothing and its prompts recall nothing: "Patch src/checkout.ts" would
    // recall A's turn by its words first, and a memory comes once per session; this is the tool hook's test.
    b.env.MEMORY_INJECT_RECENT = '0';
    b.env.MEMORY_RECALL_ENABLED = '0';
    const promptA = 'Patch src/checkout.ts so that the payment capture retries twice, not once.';
    const first = await codex(a, promptA);
    assert.equal(first.code, 0, first.stderr);
    assert.match(readFileSync(join(a.project, 'src', 'checkout.ts'), 'utf8'), /retryTwice/, 'Codex applied the patch');
    assert.match(first.stderr, /hook: PostToolUse Completed/, first.stderr);
    const pushed = await eventually(() => {
      const text = memoryFileOnRemote(fileRemote, 'rfx-laptop');
      return text && captured(text).some((r) => r.question === promptA) ? text : undefined;
    });
    const memory = captured(pushed).find((r) => r.question === promptA) as unknown as { extra?: Record<string, unknown> } & Record<string, unknown>;
    assert.deepEqual((memory.repo_files ?? memory.extra?.repo_files) as unknown, ['src/checkout.ts'], 'the rollout\'s patch recorded as a path in the repository');
    const seen = standIn.requests.length;
    const second = await codex(b, 'Patch src/checkout.ts so that it retries twice.');
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /hook: PostToolUse Completed/, second.stderr);
    assert.doesNotMatch(second.stderr, /hook: \w+ Failed/);
    const afterTool = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body)).filter((t) => t.includes('custom_tool_call_output'));
    const carried = afterTool.find((t) => t.includes('earlier sessions on src/checkout.ts'));
    assert.ok(carried, `the hook's context in the request after the patch: ${afterTool.length} request(s) after it`);
    assert.ok(fileContext(carried, 'src/checkout.ts')?.includes(promptA), 'A\'s turn on the file, verbatim, in the hook\'s context');
    assert.match(fileContext(carried, 'src/checkout.ts') ?? '', /· rfx-laptop · id /);
    // Codex reads a file with a shell command (`Bash` in its hook input): the memory comes with that too.
    const mark = standIn.requests.length;
    const third = await codex(b, 'Show src/checkout.ts so I can see the capture.');
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stderr, /sed -n .*src\/checkout\.ts/, 'Codex ran the read');
    assert.match(third.stderr, /hook: PostToolUse Completed/, third.stderr);
    const afterRead = standIn.requests.slice(mark).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body)).filter((t) => t.includes('function_call_output'));
    const read = afterRead.find((t) => t.includes('earlier sessions on src/checkout.ts'));
    assert.ok(read, `the hook's context in the request after the read: ${afterRead.length} request(s) after it`);
    assert.ok(fileContext(read, 'src/checkout.ts')?.includes(promptA), 'A\'s turn on the file, verbatim');
    // B moves the file (committed): Codex's session start reads the renames in the background, and
    // a shell read of the new path in the next session carries A's turn, recorded under the old one.
    await moveIntoPay(b, (prompt) => codex(b, prompt));
    const movedMark = standIn.requests.length;
    const moved = await codex(b, 'Show src/pay/checkout.ts so I can see the capture.');
    assert.equal(moved.code, 0, moved.stderr);
    const movedRead = standIn.requests.slice(movedMark).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body)).find((t) => t.includes('earlier sessions on src/pay/checkout.ts'));
    assert.ok(movedRead, 'the hook\'s context in the request after the read of the moved file');
    // The two newest sessions on the file: B's own by now, recorded under the old name.
    assert.match(fileContext(movedRead, 'src/pay/checkout.ts') ?? '', /recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since/);
    // Codex moves it again itself, with its shell (`mv`, not committed): the hook after the command carries A's turn at once.
    const mvMark = standIn.requests.length;
    // Outside Codex's sandbox: inside it libfaketime (the suite under `faketime`) cannot start the shell, and this move must run.
    const mv = await codex(b, 'Run: mkdir -p src/billing && mv src/pay/checkout.ts src/billing/checkout.ts', 'danger-full-access');
    assert.equal(mv.code, 0, mv.stderr);
    assert.ok(existsSync(join(b.project, 'src', 'billing', 'checkout.ts')), `Codex ran the move: ${mv.stderr.slice(-2000)}`);
    assert.doesNotMatch(mv.stderr, /hook: \w+ Failed/);
    const mvRead = standIn.requests.slice(mvMark).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body)).find((t) => t.includes('earlier sessions on src/billing/checkout.ts'));
    assert.ok(mvRead, 'the hook\'s context in the request after the shell\'s move');
    assert.match(fileContext(mvRead, 'src/billing/checkout.ts') ?? '', /recorded as src\/checkout\.ts, renamed to src\/billing\/checkout\.ts since/, 'a turn on the file, two names ago');
    // That turn, captured at its Stop from the real rollout, records the file its shell moved (Codex's own reading of `mv` names none).
    const mvTurn = await eventually(() => {
      const r = b.memory(['search', '--json', '--file', join(b.project, 'src', 'billing', 'checkout.ts')]);
      return r.code === 0 ? (JSON.parse(r.stdout) as { hits: Array<{ question: string }> }).hits.find((h) => h.question.includes('mv src/pay/checkout.ts src/billing/checkout.ts')) : undefined;
    });
    assert.equal(mvTurn.question, 'Run: mkdir -p src/billing && mv src/pay/checkout.ts src/billing/checkout.ts');
    // And the shell read before it (a CommandExecution item, Codex's parsed command naming the file): that turn is the file's too.
    const onFile = (JSON.parse(b.memory(['search', '--json', '--file', join(b.project, 'src', 'billing', 'checkout.ts')]).stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
    assert.ok(onFile.includes('Show src/pay/checkout.ts so I can see the capture.'), JSON.stringify(onFile));
  });

  it('Codex: what its shell\'s `memory search` (the skill\'s way) or the MCP tool memory_search gave the session is not recalled again by a later prompt of it (`exec resume <id>`); another session\'s prompt (the hook install registered) recalls it', { skip: missing }, async () => {
    const x = agent('cx-searched', 'package', join('src', 'ledger'));
    codexTalksTo(x.env, standIn.url);
    assert.equal(x.memory(['install', '--codex']).code, 0);
    // The person's shell finds `memory` (the package's bin) and Node 22+: Codex runs a command in a
    // login shell (`bash -lc`), which takes PATH from the profile.
    writeFileSync(join(x.m.user, '.bash_profile'), `export PATH="${join(prefix, 'bin')}:${dirname(process.execPath)}:$PATH"\n`);
    // A history of other work, as a person has (how rare a prompt's words are is judged against it).
    const topics = ['webhook retries', 'image thumbnails', 'search index', 'login throttling', 'cron schedule', 'email templates', 'cache headers', 'feature flags', 'audit log', 'docker build'];
    const history = Array.from({ length: 30 }, (_, i) => JSON.stringify({ v: 1, id: `older-${i}`, machine: 'laptop', project: 'shop', session_id: `older-s${i}`, timestamp: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(), question: `How should the ${topics[i % topics.length]} work in step ${i}?`, answer: `Step ${i} of the ${topics[i % topics.length]}: keep it simple.` }));
    mkdirSync(join(x.m.home, 'export'), { recursive: true });
    writeFileSync(join(x.m.home, 'export', '2026-10_laptop.jsonl'), `${history.join('\n')}\n`);
    assert.equal(x.memory(['rebuild']).code, 0);
    const codex = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', '-s', 'danger-full-access', ...args], { cwd: x.project, env: { ...x.env, STUB_API_KEY: 'sk-test-stand-in', ...env } });
    const prompt = 'Why did the ledger export round the yen totals before the tax?';
    assert.equal((await codex([prompt])).code, 0);
    await eventually(() => ((JSON.parse(x.memory(['search', '--json', '--mode', 'keyword', 'ledger export yen totals']).stdout) as { hits: Array<{ question: string }> }).hits.some((h) => h.question === prompt) ? true : undefined));
    // Session start injects nothing here, and the search's own prompt recalls nothing: only the tool hook can give it.
    const quiet = { MEMORY_INJECT_RECENT: '0' };
    const searchSeen = standIn.requests.length;
    const searched = await codex(['Run: memory search yen'], { ...quiet, MEMORY_RECALL_ENABLED: '0' });
    assert.equal(searched.code, 0, searched.stderr);
    const output = standIn.requests.slice(searchSeen).map((q) => JSON.stringify(q.body)).find((t) => t.includes('function_call_output'));
    assert.ok(output?.includes(JSON.stringify(prompt).slice(1, -1)), 'the search found the memory, and its output reached the model');
    assert.match(searched.stderr, /hook: PostToolUse Completed/, searched.stderr);
    await eventually(() => ((JSON.parse(x.memory(['search', '--json', '--mode', 'keyword', 'memory search yen']).stdout) as { hits: Array<{ question: string }> }).hits.some((h) => h.question === 'Run: memory search yen') ? true : undefined));
    const again = 'Why did the ledger export round the yen totals before the tax, once more?';
    const heading = 'earlier sessions that look relevant to this prompt';
    const requestsOf = async (run: Promise<{ code: number | null; stderr: string }>) => {
      const seen = standIn.requests.length;
      const r = await run;
      assert.equal(r.code, 0, r.stderr);
      return standIn.requests.slice(seen).filter((q) => q.path.endsWith('/responses')).map((q) => JSON.stringify(q.body));
    };
    // Another session's prompt, through the hook install registered, as Codex runs it: recalled (a positive check).
    const hooks = JSON.parse(readFileSync(join(x.env.CODEX_HOME as string, 'hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    const recallHook = hooks.hooks.UserPromptSubmit?.[0]?.hooks[0]?.command as string;
    const other = spawnSync('sh', ['-c', recallHook], { input: JSON.stringify({ session_id: 'another-session', cwd: x.project, hook_event_name: 'UserPromptSubmit', prompt: again }), cwd: x.project, env: { ...x.env, ...quiet }, encoding: 'utf8' });
    assert.equal(other.status, 0, other.stderr);
    assert.ok(other.stdout.includes(heading) && other.stdout.includes(JSON.stringify(prompt).slice(1, -1)), other.stdout + other.stderr);
    // The search's session, by its id.
    const searchSession = /session id: (\S+)/.exec(searched.stderr)?.[1];
    assert.ok(searchSession, searched.stderr);
    const resumed = await requestsOf(codex(['resume', searchSession, again], quiet));
    assert.ok(resumed.length > 0 && resumed.every((t) => !t.includes(heading)), 'the resumed session\'s prompt recalls nothing: its search gave it');
    // The MCP tool memory_search, as Codex calls it (the server install registered): the same.
    const mcpSeen = standIn.requests.length;
    const viaMcp = await codex(['Search memory: {"query":"ledger export yen totals","mode":"keyword"}'], { ...quiet, MEMORY_RECALL_ENABLED: '0' });
    assert.equal(viaMcp.code, 0, viaMcp.stderr);
    assert.match(viaMcp.stderr, /mcp: memory-engine\/memory_search \(completed\)[\s\S]*hook: PostToolUse Completed/, viaMcp.stderr);
    const mcpOutput = standIn.requests.slice(mcpSeen).map((q) => JSON.stringify(q.body)).find((t) => t.includes('function_call_output'));
    assert.ok(mcpOutput?.includes(JSON.stringify(JSON.stringify(prompt).slice(1, -1)).slice(1, -1)), 'the MCP search found the memory, and its result reached the model');
    const mcpSession = /session id: (\S+)/.exec(viaMcp.stderr)?.[1];
    assert.ok(mcpSession, viaMcp.stderr);
    // The memory is in the session's history as the tool's result. The first resumed session's turn (the
    // same words, captured by now or not) may be recalled; this memory is not given a second time.
    const mcpTurns = standIn.requests.slice(mcpSeen).filter((q) => q.path.endsWith('/responses')).map((q) => JSON.stringify(q.body));
    const held = (mcpTurns[mcpTurns.length - 1] ?? '').split(prompt).length - 1;
    assert.ok(held >= 1, 'the search\'s result is in the session\'s history');
    const afterMcp = await requestsOf(codex(['resume', mcpSession, again], quiet));
    assert.ok(afterMcp.length > 0 && afterMcp.every((t) => t.split(prompt).length - 1 === held), `the memory ${held} times before, in the resumed session's requests: ${afterMcp.map((t) => t.split(prompt).length - 1).join(', ')}`);
  });

  it('team memory in Codex: a real turn of carol in shop is published after its window and reaches dan\'s next model request, attributed', { skip: missing ?? (FAKETIME_LIB ? false : 'libfaketime is not installed (apt-get install faketime): the clock cannot be moved past the window') }, async () => {
    const carol = agent('tm-carol', 'package', join('src', 'shop'));
    const dan = agent('tm-dan', 'checkout', join('work', 'acme-shop'));
    const teamRemote = join(root, 'team-acme-codex.git');
    git(root, 'init', '-q', '--bare', teamRemote);
    for (const x of [carol, dan]) {
      codexTalksTo(x.env, standIn.url);
      assert.equal(x.memory(['install', '--codex']).code, 0);
    }
    const created = carol.memory(['team', 'create', 'acme', '--remote', teamRemote, '--handle', 'carol', '--project', ORIGIN, '--review-delay', '1']);
    assert.equal(created.code, 0, created.stderr);
    const codex = (x: Agent, prompt: string) =>
      runAsync(clientBin('codex'), ['exec', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', prompt], { cwd: x.project, env: { ...x.env, STUB_API_KEY: 'sk-test-stand-in' } });
    const prompt = 'Why does the shop refund job skip orders that are still in the fraud review queue?';
    const turn = await codex(carol, prompt);
    assert.equal(turn.code, 0, turn.stderr);
    const answer = replyTo({ input: [{ role: 'user', content: prompt }] });
    await eventually(() => ((JSON.parse(carol.memory(['search', '--json', '--mode', 'keyword', '--scope', 'mine', 'refund job fraud review']).stdout) as { hits: unknown[] }).hits.length > 0 ? true : undefined));
    assert.equal(carol.memory(['team', 'publish']).code, 0);
    assert.ok(!spawnSync('git', ['--git-dir', teamRemote, 'log', '-p', 'memories'], { encoding: 'utf8' }).stdout.includes(prompt), 'inside the window: nothing on the team remote');
    const later = spawnSync(process.execPath, [CLI, 'team', 'publish'], { env: { ...carol.env, ...clockAt(Date.now() + 2 * 3_600_000) }, cwd: carol.m.user, encoding: 'utf8' });
    assert.equal(later.status, 0, later.stderr + later.stdout);
    assert.ok(spawnSync('git', ['--git-dir', teamRemote, 'log', '-p', 'memories'], { encoding: 'utf8' }).stdout.includes(prompt), `after the window: published (publish said: ${later.stdout})`);
    assert.equal(dan.memory(['team', 'join', 'acme', '--remote', teamRemote, '--handle', 'dan']).code, 0);
    const seen = standIn.requests.length;
    const danTurn = await codex(dan, 'What should I know before touching the shop refunds today?');
    assert.equal(danTurn.code, 0, danTurn.stderr);
    assert.doesNotMatch(danTurn.stderr, /hook: \w+ Failed/);
    const bodies = standIn.requests.slice(seen).filter((r) => r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body));
    const carried = bodies.find((t) => t.includes(JSON.stringify(prompt).slice(1, -1)) && t.includes(JSON.stringify(answer).slice(1, -1)));
    assert.ok(carried, 'carol\'s memory, verbatim, in dan\'s model request');
    assert.match(carried, /carol \(team acme\)/, 'attributed');
  });
});
