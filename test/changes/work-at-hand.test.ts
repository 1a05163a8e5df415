/**
 * Recall where the work is: the memories of a file when the agent touches it (the tool hook
 * `install` registers, run exactly as the agent runs it), and session start by the working tree
 * (files changed, the branch). Two machines, each with its own home, checkout folder and URL
 * spelling of one repository, a memory remote of bare git; real git for the code too.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { movesPath, renameMapHead } from '../../src/changes/renames.js';
import { sessionGiven, tidySessions } from '../../src/app/session/given.js';
import { projectLabel } from '../../src/project/label.js';
import { parseStatus } from '../../src/project/work-tree.js';
import { cloneCode, codeOrigin } from '../support/git-fixture.js';
import { rollout, shell, text as rolloutText, turn as codexTurn } from '../support/codex-builder.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO, TRACER, tempDir } from '../support/helpers.js';
import { http, startUi } from '../support/viewer-process.js';
import { git, homeMachine, sessionReading, type HomeMachine } from '../support/homes.js';

let root: string;
let cleanup: () => void;

/** The MCP server as the agent starts it, in `cwd` on machine `m`, for `use`; closed after. */
async function withMcp(m: HomeMachine, cwd: string, use: (client: Client) => Promise<void>): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd, env: { ...process.env, ...m.env } as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await use(client);
  } finally {
    await client.close();
  }
}

const FILES: Record<string, string> = {
  'src/checkout.ts': 'export function capture(p) { return retryOnce(p); }\n',
  'src/cart.ts': 'export const cart = [];\n',
  'src/search.ts': 'export function search() {}\n',
  'src/shipping.ts': 'export function quote() {}\n',
  'src/tax.ts': 'export const rate = 0.2;\n',
  'src/users.ts': 'export function user() {}\n',
  'src/orders.ts': 'export function order() {}\n',
  'src/invoice.ts': 'export function invoice() {}\n',
  'src/untouched.ts': 'export {};\n',
};

/** The command `install --claude-code` registered for an event (and a tool), from the machine's settings.json. */
function registered(m: HomeMachine, event: string, tool?: string): string {
  const settings = JSON.parse(readFileSync(join(m.user, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
  const group = settings.hooks[event]?.find((g) => tool === undefined || (g.matcher !== undefined && new RegExp(`^(?:${g.matcher})$`).test(tool)));
  const cmd = group?.hooks.find((h) => h.command.includes('main.js'))?.command;
  assert.ok(cmd, `no ${event} hook for ${tool ?? 'any tool'} in settings.json`);
  return cmd;
}

/** The moves the file hook recorded on machine `m` for acme/<repo>. */
const movesOf = (m: HomeMachine, repo: string) => movesPath(m.home, `github.com/acme/${repo}`);

/** Run a registered hook as Claude Code does: through a shell, the JSON on stdin, in the session's folder. */
function runHook(m: HomeMachine, command: string, input: Record<string, unknown>, cwd: string): { code: number | null; stdout: string; stderr: string; context: string } {
  const r = spawnSync('sh', ['-c', command], { input: JSON.stringify(input), cwd, env: { ...process.env, ...m.env, CLAUDE_PROJECT_DIR: cwd }, encoding: 'utf8' });
  const out = r.stdout.trim();
  const context = out ? ((JSON.parse(out) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '') : '';
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, context };
}

describe('recall by file: the tool hook', () => {
  before(() => ({ dir: root, cleanup } = tempDir('memory-work-')));
  after(() => cleanup());

  it('on machine B, a Read of src/checkout.ts brings A\'s October turn on it (dated, machine named) and none of the later sessions on other files; once per session; nothing for a file no memory touched', () => {
    const remote = join(root, 'memories.git');
    git(root, 'init', '-q', '--bare', remote);
    const origin = codeOrigin(root, 'api', FILES);
    const a = homeMachine(root, 'laptop');
    const b = homeMachine(root, 'desktop');
    for (const m of [a, b]) assert.equal(m.cli(['init', '--remote', remote]).code, 0);
    const apiA = cloneCode(origin, join(a.user, 'src', 'api'), 'https://github.com/acme/api');
    const apiB = cloneCode(origin, join(b.user, 'work', 'acme-api'), 'git@github.com:acme/api.git');
    // Captured as it happened (the Stop hook's way): the file's state then is known.
    const t0 = Date.now();
    const day = new Date(t0).toISOString().slice(0, 10);
    sessionReading(a, 'first', apiA, t0, [{ q: 'Why does checkout retry the payment capture only once?', a: 'A second retry double-charged cards when the gateway was slow; once, then the reconciliation job.', read: ['src/checkout.ts'] }]);
    const others = ['cart', 'search', 'shipping', 'tax', 'users', 'orders', 'invoice'];
    others.forEach((f, i) => sessionReading(a, `later-${i}`, apiA, t0 + (i + 1) * 60_000, [{ q: `How is the ${f} module organised now?`, a: `The ${f} module keeps one exported function per concern.`, read: [`src/${f}.ts`] }]));
    // An older memory of the file, captured long after (its state then unknown): given too, without a note.
    sessionReading(a, 'oct-1', apiA, '2026-10-14T09:00:00Z', [{ q: 'Should checkout log the full card token on failures?', a: 'Never: only the last four digits.', read: ['src/checkout.ts'] }]);
    assert.equal(a.cli(['sync']).code, 0);
    assert.equal(b.cli(['install', '--claude-code']).code, 0);
    // B's session starts in its checkout (pull, cache), then the agent reads the file.
    const start = runHook(b, registered(b, 'SessionStart'), { session_id: 'b-1', cwd: apiB, hook_event_name: 'SessionStart', source: 'startup' }, apiB);
    assert.equal(start.code, 0, start.stderr);
    const hook = registered(b, 'PostToolUse', 'Read');
    assert.equal(registered(b, 'PostToolUse', 'Edit'), hook, 'one hook for the file tools');
    const read = (sessionId: string, file: string) =>
      runHook(b, hook, { session_id: sessionId, cwd: apiB, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(apiB, file) }, tool_response: { type: 'text' } }, apiB);
    const first = read('b-1', 'src/checkout.ts');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.context, /earlier sessions on src\/checkout\.ts/);
    assert.match(first.context, new RegExp(`## ${day} · laptop · id [0-9a-f]{12}\\n\\(src/checkout\\.ts is unchanged since this memory\\)\\nQ: Why does checkout retry the payment capture only once\\?`));
    assert.match(first.context, /## 2026-10-14 · laptop · id [0-9a-f]{12}\nQ: Should checkout log the full card token/, 'the older one, its state then not known: no note');
    assert.ok(first.context.indexOf('retry the payment capture') < first.context.indexOf('full card token'), 'newest first');
    for (const f of others) assert.doesNotMatch(first.context, new RegExp(`${f} module`), `${f}'s session is not about this file`);
    assert.ok(Array.from(first.context).length <= 1200, 'within 1,200 characters');
    assert.equal(read('b-1', 'src/checkout.ts').stdout.trim(), '', 'the same memory once per session');
    assert.equal(read('b-1', 'src/untouched.ts').stdout.trim(), '', 'a file no memory touched: nothing');
    // What a Read gave, a prompt of the same session does not give again; another session's prompt does.
    const ask = (sessionId: string) => runHook(b, registered(b, 'UserPromptSubmit'), { session_id: sessionId, cwd: apiB, hook_event_name: 'UserPromptSubmit', prompt: 'Should checkout log the full card token on failures, or only part of it?' }, apiB);
    assert.doesNotMatch(ask('b-1').context, /full card token/, 'given by the Read already');
    assert.match(ask('b-3').context, /Q: Should checkout log the full card token/, 'another session');
    // A new session, the file changed here since: said.
    writeFileSync(join(apiB, 'src', 'checkout.ts'), 'export function capture(p) { return retryTwice(p); }\n');
    assert.match(read('b-2', 'src/checkout.ts').context, /src\/checkout\.ts changed since this memory/);
  });

  it('a file named in Japanese is one file on every machine: a memory that recorded it decomposed (macOS) is given for a Read of it composed (Linux), and the other way', () => {
    const composed = 'src/データ処理.ts';
    const decomposed = composed.normalize('NFD');
    assert.notEqual(decomposed, composed, 'the two spellings differ');
    const origin = codeOrigin(root, 'kana', { [composed]: 'export const rows = [];\n', 'src/ガイド.md': '# guide\n' });
    const mac = homeMachine(root, 'kana-mac');
    const linux = homeMachine(root, 'kana-linux');
    const remote = join(root, 'kana-memories.git');
    git(root, 'init', '-q', '--bare', remote);
    for (const m of [mac, linux]) assert.equal(m.cli(['init', '--remote', remote]).code, 0);
    const onMac = cloneCode(origin, join(mac.user, 'src', 'kana'), 'https://github.com/acme/kana');
    const onLinux = cloneCode(origin, join(linux.user, 'src', 'kana'), 'https://github.com/acme/kana');
    // The Mac's agent names the files as Finder made them: decomposed (this Linux file system keeps
    // both spellings apart, so the Mac's copy is made under that name: its state is recorded).
    writeFileSync(join(onMac, decomposed), 'export const rows = [];\n');
    sessionReading(mac, 'mac-1', onMac, Date.now() - 60_000, [{ q: 'Why does the data processing batch rows by 500?', a: 'The driver caps one statement at 999 parameters.', read: [decomposed] }]);
    sessionReading(mac, 'mac-2', onMac, '2026-11-21T09:00:00Z', [{ q: 'Who reads the guide first?', a: 'New contributors, before the setup page.', read: ['src/ガイド.md'] }]);
    assert.equal(mac.cli(['sync']).code, 0);
    // The Mac's checkout is on another machine: not here to be compared against.
    rmSync(onMac, { recursive: true, force: true });
    assert.equal(linux.cli(['install', '--claude-code']).code, 0);
    // An earlier session's start (this one's would have given both memories, and a Read again nothing).
    assert.equal(runHook(linux, registered(linux, 'SessionStart'), { session_id: 'l-0', cwd: onLinux, hook_event_name: 'SessionStart', source: 'startup' }, onLinux).code, 0);
    const hook = registered(linux, 'PostToolUse', 'Read');
    const read = (session: string, file: string) =>
      runHook(linux, hook, { session_id: session, cwd: onLinux, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(onLinux, file) }, tool_response: { type: 'text' } }, onLinux);
    const got = read('l-1', composed);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.context, /batch rows by 500/, got.stdout);
    assert.match(got.context, /src\/データ処理\.ts is unchanged since this memory/, 'the file as recorded is found in its other spelling: unchanged, not deleted');
    assert.match(read('l-2', 'src/ガイド.md'.normalize('NFD')).context, /reads the guide first/, 'a Read named decomposed finds the memory named composed');
    // Search by file (the MCP tool's and the viewer's filter) alike.
    const byFile = linux.cli(['search', '--json', '--mode', 'keyword', '--file', composed, 'batch rows'], { cwd: onLinux });
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.deepEqual((JSON.parse(byFile.stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question), ['Why does the data processing batch rows by 500?']);
  });

  it('a repository known by its folder (its origin a local path), the folder named in Japanese: the Mac\'s decomposed name and Linux\'s composed one are one repository — for a memory captured now and one an earlier version stored under the decomposed key', () => {
    const name = 'デモ設計';
    const decomposed = name.normalize('NFD');
    assert.notEqual(decomposed, name, 'the two spellings differ');
    const origin = codeOrigin(root, 'demo-local', FILES);
    const mac = homeMachine(root, 'folder-mac');
    const linux = homeMachine(root, 'folder-linux');
    const remote = join(root, 'folder-memories.git');
    git(root, 'init', '-q', '--bare', remote);
    for (const m of [mac, linux]) assert.equal(m.cli(['init', '--remote', remote]).code, 0);
    // The origin is a path on a shared drive: no identity two machines share, so the key is the folder's name.
    const onMac = cloneCode(origin, join(mac.user, 'src', decomposed), '/Volumes/nas/demo.git');
    const onLinux = cloneCode(origin, join(linux.user, 'src', name), '/mnt/nas/demo.git');
    sessionReading(mac, 'mac-now', onMac, Date.now() - 60_000, [{ q: 'Why does checkout retry the capture only once in the demo?', a: 'A second retry double-charged cards.', read: ['src/checkout.ts'] }]);
    sessionReading(mac, 'mac-before', onMac, '2026-10-02T09:00:00Z', [{ q: 'Which card digits may the demo log?', a: 'Only the last four.', read: ['src/checkout.ts'] }]);
    // What an earlier version stored on the Mac: the key as the folder was spelt there, decomposed.
    const files = readdirSync(join(mac.home, 'export'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl')).map((f) => join(mac.home, 'export', f));
    const oct = files.find((f) => readFileSync(f, 'utf8').includes('Which card digits'));
    assert.ok(oct, `the October memory's month file among ${files.join(', ')}`);
    const before = readFileSync(oct, 'utf8');
    assert.ok(before.includes(`"repo":"folder:${name}"`), 'captured now: the key composed');
    writeFileSync(oct, before.replaceAll(`"repo":"folder:${name}"`, `"repo":"folder:${decomposed}"`));
    assert.equal(mac.cli(['sync']).code, 0);
    assert.equal(linux.cli(['install', '--claude-code']).code, 0);
    assert.equal(runHook(linux, registered(linux, 'SessionStart'), { session_id: 'f-0', cwd: onLinux, hook_event_name: 'SessionStart', source: 'startup' }, onLinux).code, 0);
    const got = runHook(linux, registered(linux, 'PostToolUse', 'Read'), { session_id: 'f-1', cwd: onLinux, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(onLinux, 'src/checkout.ts') }, tool_response: { type: 'text' } }, onLinux);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.context, /retry the capture only once in the demo/, got.stdout);
    assert.match(got.context, /Which card digits may the demo log/, 'the memory stored under the decomposed key');
    const byFile = linux.cli(['search', '--json', '--mode', 'keyword', '--file', 'src/checkout.ts', 'demo'], { cwd: onLinux });
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.deepEqual((JSON.parse(byFile.stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question).sort(), ['Which card digits may the demo log?', 'Why does checkout retry the capture only once in the demo?']);
    // One project, by one name, on both machines' memories.
    const projects = linux.cli(['projects', '--json']);
    assert.equal(projects.code, 0, projects.stderr);
    const listed = (JSON.parse(projects.stdout) as { projects: Array<{ project: string; memories: number; repos: string[] }> }).projects;
    assert.deepEqual(listed.map((p) => [projectLabel(p.project), p.memories, p.repos]), [[name, 2, [`folder:${name}`]]], projects.stdout);
  });

  /** A machine `name` with its own checkout of acme/<repo>, one earlier session (`session`) on its src/checkout.ts, `install --claude-code`: the file hook it registered. */
  function oneCheckout(name: string, repo: string, session1: { id: string; at: string; q: string; a: string }): { m: HomeMachine; dir: string; hook: string } {
    const m = homeMachine(root, name);
    const dir = cloneCode(codeOrigin(root, repo, FILES), join(m.user, 'src', repo), `https://github.com/acme/${repo}`);
    sessionReading(m, session1.id, dir, session1.at, [{ q: session1.q, a: session1.a, read: ['src/checkout.ts'] }]);
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    assert.equal(m.cli(['rebuild']).code, 0);
    return { m, dir, hook: registered(m, 'PostToolUse', 'Read') };
  }

  it('nothing from the session in progress, nothing in an excluded project; recall.files = false turns it off', () => {
    const { m, dir: vault, hook } = oneCheckout('solo', 'vault', { id: 'v-1', at: '2026-11-02T09:00:00Z', q: 'Why does checkout keep the capture idempotency key for a day?', a: 'Gateways retry webhooks for up to 24 hours.' });
    const input = (sessionId: string) => ({ session_id: sessionId, cwd: vault, hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: join(vault, 'src', 'checkout.ts'), old_string: 'a', new_string: 'b' } });
    assert.match(runHook(m, hook, input('v-2'), vault).context, /idempotency key for a day/, 'another session: given (a positive check)');
    assert.equal(runHook(m, hook, input('v-1'), vault).stdout.trim(), '', 'the session in progress: never');
    const off = spawnSync('sh', ['-c', hook], { input: JSON.stringify(input('v-3')), cwd: vault, env: { ...process.env, ...m.env, MEMORY_RECALL_FILES: 'false' }, encoding: 'utf8' });
    assert.equal(off.stdout.trim(), '');
    const excluded = spawnSync('sh', ['-c', hook], { input: JSON.stringify(input('v-4')), cwd: vault, env: { ...process.env, ...m.env, MEMORY_PRIVACY_EXCLUDE_PROJECTS: 'vault' }, encoding: 'utf8' });
    assert.equal(excluded.status, 0);
    assert.equal(excluded.stdout.trim(), '', 'an excluded project: nothing');
  });

  it('in Codex, a shell command naming the file brings its memories (cat, sed -n, nl | sed, rg over two files, a cd first); a command naming no file or a file no memory touched: nothing', () => {
    const { m, dir: depot } = oneCheckout('shell', 'depot', { id: 'd-1', at: '2026-11-04T09:00:00Z', q: 'Why does checkout hold the order lock while capturing?', a: 'Two captures of one order raced on a slow gateway; the lock makes the second wait.' });
    assert.equal(m.cli(['install', '--codex']).code, 0);
    const hooks = JSON.parse(readFileSync(join(m.user, '.codex', 'hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
    const group = hooks.hooks.PostToolUse?.find((g) => g.matcher !== undefined && new RegExp(`^(?:${g.matcher})$`).test('Bash'));
    assert.ok(group, 'install --codex registers the file hook for Codex\'s shell');
    assert.ok(new RegExp(`^(?:${group.matcher})$`).test('apply_patch'), 'and for its patches, one hook');
    const hook = group.hooks[0]?.command as string;
    // Exactly as Codex 0.171 gives it: tool_name Bash, the command as the model wrote it.
    const shell = (sessionId: string, command: string) => runHook(m, hook, { session_id: sessionId, cwd: depot, hook_event_name: 'PostToolUse', model: 'gpt-5.5', tool_name: 'Bash', tool_input: { command }, tool_response: 'x', tool_use_id: 'call_1' }, depot);
    for (const [i, command] of ["sed -n '1,120p' src/checkout.ts", 'nl -ba src/checkout.ts | sed -n 1,40p', 'cat src/checkout.ts', 'cd src && cat checkout.ts'].entries()) {
      const r = shell(`codex-${i}`, command);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.context, /earlier sessions on src\/checkout\.ts/, command);
      assert.match(r.context, /hold the order lock while capturing/, command);
    }
    // Two files named, one with a memory: that one has all the characters (its answer whole).
    const two = shell('codex-9', 'rg -n "lock" src/cart.ts src/checkout.ts');
    assert.match(two.context, /the lock makes the second wait\./);
    assert.doesNotMatch(two.context, /src\/cart\.ts/);
    assert.equal(shell('codex-9', 'cat src/checkout.ts').stdout.trim(), '', 'once per session, whichever tool named it');
    for (const command of ['npm test', 'cat src/untouched.ts', 'ls src', 'echo hi > src/checkout.ts.bak', 'cat src/*.ts', 'cat $HOME/src/depot/src/checkout.ts']) {
      const r = shell('codex-10', command);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), '', command);
    }
    assert.match(shell('codex-10', 'head src/checkout.ts').context, /hold the order lock/, 'the same session, still given once the file is named (a positive check)');
  });

  it('what the agent\'s own search gave it is given to its session: after the MCP tool memory_search (its real result, as Claude Code or Codex passes it) or the skill\'s `memory search` in the shell, neither a prompt nor a Read of the file brings those memories again; another session\'s prompt does; another server\'s tool notes nothing', async () => {
    const { m, dir: book } = oneCheckout('searched', 'yenbook', { id: 'l-1', at: '2026-11-03T09:00:00Z', q: 'Why does checkout round the JPY total before the tax?', a: 'JPY has no minor unit: rounding after the tax left a one-yen gap on the receipt.' });
    sessionReading(m, 'l-2', book, '2026-11-04T09:00:00Z', [{ q: 'Should the ledger export keep the yen rounding note?', a: 'Yes: auditors asked where the one-yen gap came from.', read: ['src/cart.ts'] }]);
    assert.equal(m.cli(['rebuild']).code, 0);
    const post = registered(m, 'PostToolUse', 'mcp__memory-engine__memory_search');
    assert.equal(registered(m, 'PostToolUse', 'mcp__plugin_memory-engine_memory-engine__memory_show'), post, 'the plugin\'s server too, and memory_show');
    const prompt = (sessionId: string) => runHook(m, registered(m, 'UserPromptSubmit'), { session_id: sessionId, cwd: book, hook_event_name: 'UserPromptSubmit', prompt: 'Why is the JPY total rounded before the tax, and does the ledger export keep the yen rounding note?' }, book);
    const read = (sessionId: string) => runHook(m, registered(m, 'PostToolUse', 'Read'), { session_id: sessionId, cwd: book, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(book, 'src', 'checkout.ts') }, tool_response: { type: 'text' } }, book);
    // Without a search first: both memories recalled by the prompt, the checkout one by the Read (positive checks).
    assert.match(prompt('s-0').context, /round the JPY total before the tax[\s\S]*yen rounding note|yen rounding note[\s\S]*round the JPY total before the tax/);
    assert.match(read('s-00').context, /round the JPY total before the tax/);
    // The MCP tool: Claude Code passes the tool's content blocks as tool_response.
    let mcpResult: unknown;
    await withMcp(m, book, async (client) => {
      mcpResult = (await client.callTool({ name: 'memory_search', arguments: { query: 'JPY rounding yen', mode: 'keyword' } })).content;
    });
    assert.match(JSON.stringify(mcpResult), /round the JPY total[\s\S]*yen rounding note|yen rounding note[\s\S]*round the JPY total/, 'the search found both');
    const fromMcp = runHook(m, post, { session_id: 's-1', cwd: book, hook_event_name: 'PostToolUse', tool_name: 'mcp__memory-engine__memory_search', tool_input: { query: 'JPY rounding yen', mode: 'keyword' }, tool_response: mcpResult }, book);
    assert.equal(fromMcp.code, 0, fromMcp.stderr);
    assert.equal(fromMcp.stdout.trim(), '', 'nothing added to the tool\'s own result');
    assert.doesNotMatch(prompt('s-1').context, /JPY total before the tax|yen rounding note/, 'the prompt after the search: neither again');
    assert.equal(read('s-1').stdout.trim(), '', 'the Read of the file after it: nothing new');
    // The skill's way: `memory search` in Claude Code's Bash, its stdout as the client passes it.
    const cli = m.cli(['search', 'JPY rounding yen'], { cwd: book });
    assert.equal(cli.code, 0, cli.stderr);
    const fromShell = runHook(m, registered(m, 'PostToolUse', 'Bash'), { session_id: 's-2', cwd: book, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'memory search "JPY rounding yen"', description: 'Search memory' }, tool_response: { stdout: cli.stdout, stderr: '', interrupted: false, isImage: false } }, book);
    assert.equal(fromShell.code, 0, fromShell.stderr);
    assert.doesNotMatch(prompt('s-2').context, /JPY total before the tax|yen rounding note/, 'after the skill\'s search: neither again');
    // Codex's name for the same tool (our server's `-` written `_`), its result as Codex passes it: the content blocks in `content`.
    const fromCodex = runHook(m, post, { session_id: 's-4', turn_id: 't-4', cwd: book, hook_event_name: 'PostToolUse', model: 'gpt-5.5', tool_name: 'mcp__memory_engine__memory_search', tool_input: { query: 'JPY rounding yen' }, tool_response: { content: mcpResult }, tool_use_id: 'call_1' }, book);
    assert.equal(fromCodex.code, 0, fromCodex.stderr);
    assert.doesNotMatch(prompt('s-4').context, /JPY total before the tax|yen rounding note/, 'after Codex\'s MCP search: neither again');
    // The same text from a command that is not our search, or another server's tool: nothing noted.
    runHook(m, registered(m, 'PostToolUse', 'Bash'), { session_id: 's-3', cwd: book, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'cat notes.txt' }, tool_response: { stdout: cli.stdout } }, book);
    runHook(m, post, { session_id: 's-3', cwd: book, hook_event_name: 'PostToolUse', tool_name: 'mcp__other__memory_search', tool_input: {}, tool_response: mcpResult }, book);
    assert.match(prompt('s-3').context, /round the JPY total before the tax/, 'another session, or a search not ours: recalled');
  });

  it('memory search --file and the MCP tool\'s file: only the sessions on that file (or on any file under a folder), from any checkout folder; with no words, all of them, newest first; a query narrows them in every mode; a file outside a checkout is a clear error', async () => {
    const { m, dir: kiosk } = oneCheckout('filesearch', 'kiosk', { id: 't-1', at: '2026-10-20T09:00:00Z', q: 'Why does checkout keep the capture idempotency key for a day?', a: 'Gateways retry webhooks for up to 24 hours.' });
    sessionReading(m, 't-2', kiosk, '2026-11-05T09:00:00Z', [{ q: 'Should checkout retry the capture on a 503 from the gateway?', a: 'Once, after two seconds; then the reconciliation job.', read: ['src/checkout.ts'] }]);
    // Another file's session that matches the words far better: never in a search of checkout's.
    sessionReading(m, 't-3', kiosk, '2026-11-06T09:00:00Z', [{ q: 'Cart retry retry retry: how does the cart retry a 503 retry?', a: 'The cart retries a 503 three times, retry after retry.', read: ['src/cart.ts'] }]);
    assert.equal(m.cli(['rebuild']).code, 0);
    const ids = (args: string[], cwd = kiosk) => {
      const r = m.cli(['search', '--json', ...args], { cwd });
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question.slice(0, 40));
    };
    const retry = 'Should checkout retry the capture on a 5';
    const key = 'Why does checkout keep the capture idemp';
    assert.deepEqual(ids(['--file', 'src/checkout.ts']), [retry, key], 'both sessions on the file, newest first; not the cart\'s');
    assert.deepEqual(ids(['--file', join(kiosk, 'src', 'checkout.ts'), '--mode', 'keyword']), [retry, key], 'an absolute path: the same');
    for (const mode of ['keyword', 'hybrid', 'vector']) {
      const found = ids(['--file', 'src/checkout.ts', '--mode', mode, 'retry a 503']);
      assert.ok(found.length > 0 && found.every((q) => q === retry || q === key), `${mode}: ${JSON.stringify(found)}`);
      assert.ok(!found.some((q) => q.startsWith('Cart retry')), mode);
    }
    assert.equal(ids(['--file', 'src/checkout.ts', '--mode', 'keyword', 'retry a 503'])[0], retry);
    const vector = m.cli(['search', '--json', '--mode', 'vector', '--file', 'src/checkout.ts', 'webhooks for a day'], { cwd: kiosk });
    assert.equal(vector.stderr, '', 'the vectors themselves, the model loaded (nothing degraded)');
    assert.equal((JSON.parse(vector.stdout) as { hits: unknown[] }).hits.length, 2, 'each of the file\'s memories by its distance');
    assert.ok(ids(['--mode', 'keyword', 'retry a 503']).some((q) => q.startsWith('Cart retry')), 'without --file the cart\'s session is found (a positive check)');
    assert.deepEqual(ids(['--file', 'checkout.ts'], join(kiosk, 'src')), [retry, key], 'read from where you are');
    assert.deepEqual(ids(['--file', 'src/untouched.ts']), [], 'a file no session worked on: nothing');
    // A folder: the sessions on any file under it, newest first; a query narrows them.
    const cart = 'Cart retry retry retry: how does the car';
    assert.deepEqual(ids(['--file', 'src']), [cart, retry, key]);
    assert.deepEqual(ids(['--file', 'src/', '--mode', 'keyword', 'idempotency webhooks']), [key]);
    assert.deepEqual(ids(['--file', 'sr/']), [], 'a folder that is not there, by its name: nothing (src/ is not under it)');
    mkdirSync(join(kiosk, 'src', 'pay'));
    assert.deepEqual(ids(['--file', 'src/pay']), [], 'a folder no session worked in: nothing');
    const outside = m.cli(['search', '--file', join(root, 'nowhere.ts'), 'retry'], { cwd: root });
    assert.notEqual(outside.code, 0);
    assert.match(outside.stderr, /--file .*nowhere\.ts: not a file or folder inside a git checkout/);
    // The agent's way: the MCP tool, its server started in the checkout.
    await withMcp(m, kiosk, async (client) => {
      const r = (await client.callTool({ name: 'memory_search', arguments: { file: 'src/checkout.ts' } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.ok(!r.isError, r.content[0]?.text);
      const hits = (JSON.parse(r.content[0]?.text as string) as { hits: Array<{ question: string }> }).hits.map((h) => h.question.slice(0, 40));
      assert.deepEqual(hits, [retry, key]);
      const folder = (await client.callTool({ name: 'memory_search', arguments: { file: 'src/' } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.deepEqual((JSON.parse(folder.content[0]?.text as string) as { hits: Array<{ question: string }> }).hits.map((h) => h.question.slice(0, 40)), ['Cart retry retry retry: how does the car', retry, key]);
      const none = (await client.callTool({ name: 'memory_search', arguments: {} })) as { isError?: boolean; content: Array<{ text: string }> };
      assert.ok(none.isError, 'neither words nor a file: a tool error');
      assert.match(none.content[0]?.text ?? '', /query is required/);
    });
  });

  it('a renamed file brings the sessions on its earlier name: session start reads the renames in the background, the Read of the new path and search --file find them, said so; a file made later under the old name is another file', async () => {
    const t0 = Date.now() - 4 * 3_600_000;
    const { m, dir: atlas, hook } = oneCheckout('renamer', 'atlas', { id: 'r-1', at: new Date(t0).toISOString(), q: 'Why does checkout retry the capture only once?', a: 'A second retry double-charged cards on a slow gateway.' });
    // Committed an hour later: src/checkout.ts moved into src/pay/; then a new src/checkout.ts, and a session on it.
    const commitAt = (ms: number, message: string) => {
      const when = `@${Math.floor(ms / 1000)} +0000`;
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', message], { cwd: atlas, env: { ...process.env, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    };
    mkdirSync(join(atlas, 'src', 'pay'));
    git(atlas, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    commitAt(t0 + 3_600_000, 'checkout into pay');
    writeFileSync(join(atlas, 'src', 'checkout.ts'), 'export * from "./pay/checkout";\n');
    git(atlas, 'add', 'src/checkout.ts');
    commitAt(t0 + 4_000_000, 'a shim where it was');
    // Ten minutes after the rename commit by this memory's clock (a machine whose clock runs ahead): still the moved file's.
    sessionReading(m, 'r-1b', atlas, t0 + 3_600_000 + 600_000, [{ q: 'Should checkout log the card token on a failed capture?', a: 'Only its last four digits.', read: ['src/checkout.ts'] }]);
    sessionReading(m, 'r-2', atlas, t0 + 3 * 3_600_000, [{ q: 'What does the checkout shim re-export?', a: 'Everything of pay/checkout, for the old imports.', read: ['src/checkout.ts'] }]);
    assert.equal(m.cli(['rebuild']).code, 0);
    const head = git(atlas, 'rev-parse', 'HEAD');
    const read = (sessionId: string, file: string) => runHook(m, hook, { session_id: sessionId, cwd: atlas, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(atlas, file) } }, atlas);
    assert.equal(read('r-3', 'src/pay/checkout.ts').stdout.trim(), '', 'before any session start has read the renames: nothing under the new path');
    // Session start, as Claude Code runs it: the renames read in the background (it does not wait).
    // (Session r-4's Reads come after another session's start: a start gives the project's few memories, and a Read in that session nothing again.)
    const start = runHook(m, registered(m, 'SessionStart'), { session_id: 'r-3s', cwd: atlas, hook_event_name: 'SessionStart', source: 'startup' }, atlas);
    assert.equal(start.code, 0, start.stderr);
    for (let i = 0; i < 200 && renameMapHead(m.home, 'github.com/acme/atlas', realpathSync(atlas)) !== head; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(renameMapHead(m.home, 'github.com/acme/atlas', realpathSync(atlas)), head, 'the rename map, up to HEAD');
    const moved = read('r-4', 'src/pay/checkout.ts');
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.context, /earlier sessions on src\/pay\/checkout\.ts/);
    assert.match(moved.context, /\(recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since\)\nQ: Why does checkout retry the capture only once\?/);
    assert.match(moved.context, /\(recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since\)\nQ: Should checkout log the card token/, 'a clock ahead of the commit\'s by minutes');
    assert.doesNotMatch(moved.context, /shim/, 'the file made later under the old name is another file');
    const shim = read('r-5', 'src/checkout.ts').context;
    assert.match(shim, /What does the checkout shim re-export\?/);
    assert.doesNotMatch(shim, /retry the capture only once|card token/, 'the old file\'s sessions went with it');
    const byFile = (file: string) => (JSON.parse(m.cli(['search', '--json', '--file', file], { cwd: atlas }).stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
    assert.deepEqual(byFile('src/pay/checkout.ts'), ['Should checkout log the card token on a failed capture?', 'Why does checkout retry the capture only once?']);
    assert.deepEqual(byFile('src/checkout.ts'), ['What does the checkout shim re-export?']);
    // Each says which name it recorded the file by, in JSON and in text; the shim's, under the name asked, says nothing.
    const recordedAs = (file: string) => (JSON.parse(m.cli(['search', '--json', '--file', file], { cwd: atlas }).stdout) as { hits: Array<{ recorded_as?: string }> }).hits.map((h) => h.recorded_as ?? '-');
    assert.deepEqual(recordedAs('src/pay/checkout.ts'), ['src/checkout.ts', 'src/checkout.ts']);
    assert.deepEqual(recordedAs('src/checkout.ts'), ['-']);
    assert.deepEqual(recordedAs('src/'), ['-', '-', '-'], 'under the folder asked whatever their names');
    const text = m.cli(['search', '--file', 'src/pay/', 'card token'], { cwd: atlas });
    assert.match(text.stdout, /\n\(recorded as src\/checkout\.ts, renamed since\)\nQ: Should checkout log the card token/);
    // The folder it was moved into: its sessions from before the move too; not the shim's, made after under the old name outside it.
    assert.deepEqual(byFile('src/pay/'), ['Should checkout log the card token on a failed capture?', 'Why does checkout retry the capture only once?']);
    // The viewer, which runs in no checkout, follows the rename too: the file and its folder, as a memory's detail links them.
    const ui = await startUi({}, m.env);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const inViewer = async (file: string) => {
        const r = await http(ui.port, `/api/search?repo=github.com%2Facme%2Fatlas&file=${encodeURIComponent(file)}`, { headers: { cookie } });
        assert.equal(r.status, 200, r.body);
        return (JSON.parse(r.body) as { hits: Array<{ question: string; recorded_as?: string }> }).hits.map((h) => `${h.question}${h.recorded_as ? ` (as ${h.recorded_as})` : ''}`);
      };
      assert.deepEqual(await inViewer('src/pay/checkout.ts'), ['Should checkout log the card token on a failed capture? (as src/checkout.ts)', 'Why does checkout retry the capture only once? (as src/checkout.ts)']);
      assert.deepEqual(await inViewer('src/pay/'), ['Should checkout log the card token on a failed capture? (as src/checkout.ts)', 'Why does checkout retry the capture only once? (as src/checkout.ts)']);
      assert.deepEqual(await inViewer('src/'), ['What does the checkout shim re-export?', 'Should checkout log the card token on a failed capture?', 'Why does checkout retry the capture only once?']);
    } finally {
      ui.child.kill('SIGINT');
    }
    // The agent's MCP tool says it too.
    await withMcp(m, atlas, async (client) => {
      const r = (await client.callTool({ name: 'memory_search', arguments: { file: 'src/pay/checkout.ts' } })) as { content: Array<{ text: string }>; isError?: boolean };
      assert.ok(!r.isError, r.content[0]?.text);
      assert.deepEqual((JSON.parse(r.content[0]?.text as string) as { hits: Array<{ recorded_as?: string }> }).hits.map((h) => h.recorded_as), ['src/checkout.ts', 'src/checkout.ts']);
    });
    // Session start with the moved file changed: its earlier work is injected, saying why.
    writeFileSync(join(atlas, 'src', 'pay', 'checkout.ts'), 'export function capture(p) { return retryTwice(p); }\n');
    const again = runHook(m, registered(m, 'SessionStart'), { session_id: 'r-6', cwd: atlas, hook_event_name: 'SessionStart', source: 'startup' }, atlas);
    assert.match(again.context, /· you are changing src\/pay\/checkout\.ts\n[^#]*retry the capture only once/);
    // By hand: what was read.
    const told = m.cli(['renames'], { cwd: atlas });
    assert.equal(told.code, 0, told.stderr);
    assert.match(told.stdout, /^1 rename in github\.com\/acme\/atlas up to [0-9a-f]{12}\.$/m);
  });

  it('a file the agent moves brings its sessions at once, before any commit: Claude Code\'s Bash `git mv`, a folder moved with `mv`, a Codex patch\'s Move to; moved back, one file still; committed, nothing counted twice', async () => {
    const t0 = Date.now() - 2 * 3_600_000;
    const { m, dir: orbit, hook } = oneCheckout('mover', 'orbit', { id: 'o-1', at: new Date(t0).toISOString(), q: 'Why does checkout retry the capture only once?', a: 'A second retry double-charged cards on a slow gateway.' });
    sessionReading(m, 'o-2', orbit, t0 + 60_000, [{ q: 'How is the cart module organised now?', a: 'One exported function per concern.', read: ['src/cart.ts'] }]);
    assert.equal(m.cli(['rebuild']).code, 0);
    assert.equal(registered(m, 'PostToolUse', 'Bash'), hook, 'install --claude-code runs the file hook after Bash too: one hook');
    // As Claude Code 2.1.332 gives a Bash call after it ran: the command as the model wrote it, in the session's folder.
    const bash = (sessionId: string, command: string) => {
      const ran = spawnSync('sh', ['-c', command], { cwd: orbit, encoding: 'utf8' });
      const r = runHook(m, hook, { session_id: sessionId, cwd: orbit, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command, description: 'move it' }, tool_response: { stdout: ran.stdout, stderr: ran.stderr, interrupted: false } }, orbit);
      assert.equal(r.code, 0, r.stderr);
      return r;
    };
    const read = (sessionId: string, file: string) => runHook(m, hook, { session_id: sessionId, cwd: orbit, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(orbit, file) } }, orbit);
    const retry = /Why does checkout retry the capture only once\?/;
    // A move that failed (no such file) is no move: the file read after is found under no other name.
    bash('o-3', 'git mv src/nothing.ts src/pay.ts 2>/dev/null; true');
    assert.equal(existsSync(movesOf(m, 'orbit')), false, 'nothing recorded');
    const moved = bash('o-3', 'mkdir -p src/pay && git mv src/checkout.ts src/pay/checkout.ts');
    assert.match(moved.context, /earlier sessions on src\/pay\/checkout\.ts/, 'at the move itself: the file it names is there');
    assert.match(moved.context, /\(recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since\)\nQ: Why does checkout retry/);
    assert.match(read('o-4', 'src/pay/checkout.ts').context, retry, 'another session, the move still not committed');
    assert.doesNotMatch(read('o-4', 'src/cart.ts').context, retry, 'another file keeps its own');
    const byFile = (file: string) => (JSON.parse(m.cli(['search', '--json', '--file', file], { cwd: orbit }).stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
    assert.deepEqual(byFile('src/pay/checkout.ts'), ['Why does checkout retry the capture only once?']);
    // The whole folder moved, plainly: nothing to say then (no file named), the file in it found after.
    assert.equal(bash('o-5', 'mv src/pay src/billing').stdout.trim(), '');
    assert.match(read('o-6', 'src/billing/checkout.ts').context, /\(recorded as src\/checkout\.ts, renamed to src\/billing\/checkout\.ts since\)\nQ: Why does checkout retry/);
    assert.deepEqual(byFile('src/billing/'), ['Why does checkout retry the capture only once?'], 'the folder it is in now: through both moves');
    // Moved back where it was (git has not seen the folder's move: a plain mv): the same file, its sessions under its own name again.
    bash('o-7', 'mv src/billing/checkout.ts src/checkout.ts');
    const back = read('o-8', 'src/checkout.ts').context;
    assert.match(back, /## [0-9-]+ · mover · id [0-9a-f]{12}\n(?:\([^)]*\)\n)?Q: Why does checkout retry/);
    assert.doesNotMatch(back, /recorded as/);
    assert.equal(read('o-8', 'src/billing/checkout.ts').stdout.trim(), '', 'a path no file has: nothing');
    // A Codex patch moving it (Update File, then Move to), applied: the same.
    mkdirSync(join(orbit, 'lib'));
    renameSync(join(orbit, 'src', 'checkout.ts'), join(orbit, 'lib', 'checkout.ts'));
    const patch = '*** Begin Patch\n*** Update File: src/checkout.ts\n*** Move to: lib/checkout.ts\n@@\n-export function capture(p) { return retryOnce(p); }\n+export function capture(p) { return retryOnce(p, 1); }\n*** End Patch\n';
    const patched = runHook(m, hook, { session_id: 'o-9', cwd: orbit, hook_event_name: 'PostToolUse', tool_name: 'apply_patch', tool_input: { command: patch } }, orbit);
    assert.match(patched.context, /\(recorded as src\/checkout\.ts, renamed to lib\/checkout\.ts since\)\nQ: Why does checkout retry/);
    // Committed, and the renames read: the move and its commit are one rename, the file's sessions once.
    git(orbit, 'add', '-A');
    git(orbit, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'checkout into lib');
    const told = m.cli(['renames'], { cwd: orbit });
    assert.equal(told.code, 0, told.stderr);
    assert.match(told.stdout, /^1 rename in github\.com\/acme\/orbit up to [0-9a-f]{12}\.\n4 moves seen in sessions or in the working tree, not committed/);
    assert.deepEqual(byFile('lib/checkout.ts'), ['Why does checkout retry the capture only once?']);
    assert.match(read('o-10', 'lib/checkout.ts').context, retry);
    const lines = readFileSync(movesOf(m, 'orbit'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { from: string; to: string });
    assert.deepEqual(lines.map((l) => `${l.from} > ${l.to}`), ['src/checkout.ts > src/pay/checkout.ts', 'src/pay/ > src/billing/', 'src/billing/checkout.ts > src/checkout.ts', 'src/checkout.ts > lib/checkout.ts']);
    // The moves cannot be written (a folder where the file goes): the move is not followed, said on stderr; the other file's memories still come.
    rmSync(movesOf(m, 'orbit'));
    mkdirSync(movesOf(m, 'orbit'));
    const blocked = bash('o-11', 'git mv lib/checkout.ts lib/capture.ts && cat src/cart.ts');
    assert.match(blocked.stderr, /cannot note the move of .*lib\/checkout\.ts/);
    assert.match(blocked.context, /How is the cart module organised now\?/);
  });

  it('a move the person puts back (`git reset --hard`) gives the file its sessions again at once; a move in one worktree leaves another worktree\'s file its own', () => {
    const { m, dir: quay, hook } = oneCheckout('undoer', 'quay', { id: 'q-1', at: new Date(Date.now() - 3_600_000).toISOString(), q: 'Why does checkout retry the capture only once?', a: 'A second retry double-charged cards on a slow gateway.' });
    const other = join(m.user, 'src', 'quay-hotfix');
    git(quay, 'worktree', 'add', '-q', other);
    const bash = (sessionId: string, dir: string, command: string) => {
      const ran = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
      assert.equal(ran.status, 0, ran.stderr);
      const r = runHook(m, hook, { session_id: sessionId, cwd: dir, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: ran.stdout, stderr: ran.stderr, interrupted: false } }, dir);
      assert.equal(r.code, 0, r.stderr);
      return r;
    };
    const read = (sessionId: string, dir: string, file: string) => runHook(m, hook, { session_id: sessionId, cwd: dir, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(dir, file) } }, dir).context;
    const retry = /Why does checkout retry the capture only once\?/;
    assert.match(bash('q-2', quay, 'mkdir -p src/pay && git mv src/checkout.ts src/pay/checkout.ts').context, retry, 'the move followed');
    // The hotfix worktree never moved it: its src/checkout.ts keeps its sessions, in the hook and in search --file.
    assert.match(read('q-3', other, 'src/checkout.ts'), retry);
    const byFile = (dir: string, file: string) => (JSON.parse(m.cli(['search', '--json', '--file', file], { cwd: dir }).stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
    assert.deepEqual(byFile(other, 'src/checkout.ts'), ['Why does checkout retry the capture only once?']);
    // A file made anew at the old name in the checkout that moved it is another file, as before.
    writeFileSync(join(quay, 'src', 'checkout.ts'), 'export * from "./pay/checkout";\n');
    assert.doesNotMatch(read('q-4', quay, 'src/checkout.ts'), retry);
    // The person puts it all back in a terminal; no hook sees it. The next Read of the file brings its sessions again.
    git(quay, 'reset', '-q', '--hard');
    rmSync(join(quay, 'src', 'pay'), { recursive: true, force: true });
    assert.match(read('q-5', quay, 'src/checkout.ts'), retry);
    assert.deepEqual(byFile(quay, 'src/checkout.ts'), ['Why does checkout retry the capture only once?']);
    const told = m.cli(['renames'], { cwd: quay });
    assert.equal(told.code, 0, told.stderr);
    assert.doesNotMatch(told.stdout, /moves? seen/, 'no move standing');
    // Session start with the put-back file changed: its earlier work is injected as the file's own.
    writeFileSync(join(quay, 'src', 'checkout.ts'), 'export function capture(p) { return retryTwice(p); }\n');
    const start = runHook(m, registered(m, 'SessionStart'), { session_id: 'q-6', cwd: quay, hook_event_name: 'SessionStart', source: 'startup' }, quay);
    assert.match(start.context, /· you are changing src\/checkout\.ts\n[^#]*retry the capture only once/);
  });

  it('a turn\'s shell commands record the files they name, once captured: Claude Code\'s Bash (`sed -n`, a test run on a file, a `git mv`) and what Codex\'s own reading of a command leaves out (`sed -i`); nothing outside the repository, nothing missing', () => {
    const { m, dir: dock, hook } = oneCheckout('sheller', 'dock', { id: 'k-0', at: '2026-11-01T09:00:00Z', q: 'Why does checkout retry the capture only once?', a: 'A second retry double-charged cards on a slow gateway.' });
    // Claude Code: the agent works through Bash only (the move run first, as it was).
    git(dock, 'mv', 'src/orders.ts', 'src/purchase.ts');
    const t = transcript('k-1', dock);
    t.clock = Date.parse('2026-11-02T09:00:00Z');
    user(t, 'Why is the shipping quote cached per postcode?');
    assistant(t, [
      { tool: 'Bash', input: { command: "sed -n '1,40p' src/shipping.ts", description: 'read it' } },
      { tool: 'Bash', input: { command: 'npm test -- src/users.ts 2>&1 | tail -5' } },
      { tool: 'Bash', input: { command: 'cat /etc/hostname src/missing.ts' } },
      { tool: 'Bash', input: { command: 'git mv src/orders.ts src/purchase.ts' } },
      { text: 'The carrier prices by postcode zone; a quote holds for the whole zone.' },
    ]);
    const dir = join(m.projects, encodeProjectDir(dock));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'k-1.jsonl'), text(t));
    const captured = m.cli(['session-end', '--foreground', '--transcript', join(dir, 'k-1.jsonl'), '--cwd', dock]);
    assert.equal(captured.code, 0, captured.stderr);
    // Codex: `sed -i`, which its parsed command calls unknown (no path).
    const r = rollout('019e-k-2', dock);
    codexTurn(r, 'Make the invoice total round half up, please.', (x) => shell(x, "sed -i 's/round/roundHalfUp/' src/invoice.ts"), 'Done: the invoice total now rounds half up.');
    writeFileSync(join(root, 'rollout-2026-05-11T08-00-00-019e-k-2.jsonl'), rolloutText(r));
    assert.equal(m.cli(['session-end', '--foreground', '--transcript', join(root, 'rollout-2026-05-11T08-00-00-019e-k-2.jsonl')]).code, 0);
    const records = readdirSync(join(m.home, 'export')).filter((f) => f.endsWith('.jsonl')).flatMap((f) => readFileSync(join(m.home, 'export', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { question: string; files?: string[]; repo_files?: string[]; extra?: { repo_files?: string[] } }));
    const filesOf = (q: RegExp) => records.filter((x) => q.test(x.question)).map((x) => ({ files: x.files ?? [], repo: x.repo_files ?? x.extra?.repo_files ?? [] }));
    assert.deepEqual(filesOf(/shipping quote cached/), [{ files: [], repo: ['src/shipping.ts', 'src/users.ts', 'src/purchase.ts'] }], 'its tools named no file; its commands three in the repository (the missing one and /etc/hostname not)');
    assert.deepEqual(filesOf(/invoice total round/), [{ files: [], repo: ['src/invoice.ts'] }]);
    assert.deepEqual(filesOf(/retry the capture/), [{ files: [join(dock, 'src', 'checkout.ts')], repo: ['src/checkout.ts'] }], 'a Read, as before');
    // Found by file, as any file's memory: in search --file and at the next Read.
    assert.equal(m.cli(['rebuild']).code, 0);
    const byFile = (file: string) => (JSON.parse(m.cli(['search', '--json', '--file', file], { cwd: dock }).stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
    assert.deepEqual(byFile('src/purchase.ts'), ['Why is the shipping quote cached per postcode?']);
    assert.deepEqual(byFile('src/invoice.ts'), ['Make the invoice total round half up, please.']);
    const read = runHook(m, hook, { session_id: 'k-3', cwd: dock, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(dock, 'src', 'shipping.ts') } }, dock);
    assert.match(read.context, /earlier sessions on src\/shipping\.ts[\s\S]*Q: Why is the shipping quote cached per postcode\?/);
  });

  it('runs from its bundle, one file, when the build made one, and the modules themselves give the same answer', () => {
    const { m, dir: ledger, hook } = oneCheckout('bundled', 'ledger', { id: 'l-1', at: '2026-11-03T09:00:00Z', q: 'Why does checkout round the tax per line?', a: 'The auditors reconcile line by line.' });
    const input = (sessionId: string, file = join(ledger, 'src', 'checkout.ts')) => ({ session_id: sessionId, cwd: ledger, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: file } });
    const trace = join(root, 'bundled-trace.txt');
    const traced = (command: string, sessionId: string, file?: string) => {
      writeFileSync(trace, '');
      const r = spawnSync('sh', ['-c', command], { input: JSON.stringify(input(sessionId, file)), cwd: ledger, env: { ...process.env, ...m.env, NODE_OPTIONS: `--import ${TRACER}`, TRACE_IMPORTS_FILE: trace }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const all = readFileSync(trace, 'utf8').split('\n');
      return { context: r.stdout.trim() ? ((JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext) : '', loaded: all.filter((u) => u.includes('/dist/src/')), builtins: all.filter((u) => u.startsWith('node:')) };
    };
    const bundled = traced(hook, 'l-2');
    assert.match(bundled.context, /round the tax per line/);
    // A file no memory touched, the usual Read: node:crypto is never loaded (it costs ~5 ms).
    writeFileSync(join(ledger, 'src', 'untouched.ts'), 'export const x = 1;\n');
    const untouched = traced(hook, 'l-4', join(ledger, 'src', 'untouched.ts'));
    assert.equal(untouched.context, '');
    assert.ok(untouched.builtins.includes('node:fs') && !untouched.builtins.includes('node:crypto'), untouched.builtins.join(' '));
    // The same package without its bundles: esbuild not installed when it was built.
    const plain = join(root, 'plain-package');
    cpSync(join(REPO, 'dist', 'src'), join(plain, 'dist', 'src'), { recursive: true, filter: (f) => !f.endsWith('.bundle.cjs') });
    for (const f of ['package.json', 'config.toml']) cpSync(join(REPO, f), join(plain, f));
    symlinkSync(join(REPO, 'node_modules'), join(plain, 'node_modules'), 'dir');
    const mainJs = join(REPO, 'dist', 'src', 'cli', 'main.js');
    assert.ok(hook.includes(mainJs), hook);
    const modules = traced(hook.replace(mainJs, join(plain, 'dist', 'src', 'cli', 'main.js')), 'l-3');
    assert.equal(modules.context, bundled.context, 'the same memory, the same words');
    assert.ok(modules.loaded.some((u) => u.endsWith('/store/file-index.js')), 'the modules, one by one');
    // A damaged bundle (a copy cut short): the modules serve, the hook says so on stderr and exits 0.
    writeFileSync(join(plain, 'dist', 'src', 'cli', 'file-recall-hook.bundle.cjs'), '"use strict";\nconst x = (');
    const damaged = spawnSync('sh', ['-c', hook.replace(mainJs, join(plain, 'dist', 'src', 'cli', 'main.js'))], { input: JSON.stringify(input('l-5')), cwd: ledger, env: { ...process.env, ...m.env }, encoding: 'utf8' });
    assert.equal(damaged.status, 0, damaged.stderr);
    assert.match(damaged.stderr, /file-recall-hook\.bundle\.cjs does not load .*; running its modules/);
    assert.match(damaged.stdout, /round the tax per line/, 'the memory given all the same');
    let esbuildThere = true;
    try {
      createRequire(join(REPO, 'package.json')).resolve('esbuild');
    } catch {
      esbuildThere = false;
    }
    if (esbuildThere) {
      const own = bundled.loaded.map((u) => u.slice(u.indexOf('/dist/src/') + '/dist/src/'.length)).sort();
      assert.deepEqual(own, ['agents/plugin.js', 'cli/file-recall-hook.bundle.cjs', 'cli/main.js'], 'main.js, what it reads first, then one file');
    } else {
      assert.deepEqual(bundled.loaded, modules.loaded.map((u) => u.replace(plain, REPO)), 'no bundle built without esbuild: the modules serve');
    }
  });

  it("a file hashed by one session's Read is not hashed again by the next while it is unchanged; a cache another process is writing neither stops nor holds the hook", () => {
    const { m, dir: till, hook } = oneCheckout('hasher', 'till', { id: 't-1', at: new Date().toISOString(), q: 'Why does checkout void the payment after ten minutes?', a: 'An authorisation older than that is released by the bank anyway.' });
    const file = join(till, 'src', 'checkout.ts');
    const trace = join(root, 'hasher-trace.txt');
    const read = (sessionId: string, timeout?: number) => {
      writeFileSync(trace, '');
      const input = { session_id: sessionId, cwd: till, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: file } };
      const r = spawnSync('sh', ['-c', hook], { input: JSON.stringify(input), cwd: till, env: { ...process.env, ...m.env, NODE_OPTIONS: `--import ${TRACER}`, TRACE_IMPORTS_FILE: trace, TRACE_OPENS: file }, encoding: 'utf8', ...(timeout ? { timeout } : {}) });
      assert.equal(r.status, 0, r.stderr);
      const context = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      assert.match(context, /\(src\/checkout\.ts is unchanged since this memory\)\nQ: Why does checkout void the payment/, 'compared with the file as it is');
      const lines = readFileSync(trace, 'utf8').split('\n');
      // The hook reads the file whole only to hash it.
      return { hashed: lines.includes(`open ${file}`), crypto: lines.includes('node:crypto') };
    };
    // The same bytes written again: what capture kept of the file no longer matches its state.
    const touch = (s: number) => utimesSync(file, new Date(Date.now() + s * 1000), new Date(Date.now() + s * 1000));
    touch(10);
    const first = read('t-2');
    assert.equal(first.hashed, true, 'hashed once (a positive check of the trace)');
    assert.equal(first.crypto, false, 'a small file is hashed without node:crypto (its start costs ~6 ms)');
    assert.equal(read('t-3').hashed, false, 'the next session: the hash kept in the cache serves');
    // Another process in the middle of a write to the cache: the hook neither waits for it nor fails.
    const status = m.cli(['status', '--json']);
    const writer = new Database((JSON.parse(status.stdout) as { db_path: string }).db_path);
    try {
      writer.prepare('BEGIN IMMEDIATE').run();
      touch(20);
      assert.equal(read('t-4', 8_000).hashed, true, 'answered while the cache was held (its wait would be 10 s)');
      assert.equal(read('t-5', 8_000).hashed, true, 'nothing was kept meanwhile');
    } finally {
      writer.close();
    }
    assert.equal(read('t-6').hashed, true);
    assert.equal(read('t-7').hashed, false, 'kept once the cache was free');
  });

  it("the sessions' files: those over for 3 days removed at a session's first, the folder looked at once a day", () => {
    const dir = join(root, 'tidy');
    mkdirSync(dir);
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    const file = (name: string, age: number) => {
      writeFileSync(join(dir, name), '[]');
      utimesSync(join(dir, name), days(age), days(age));
    };
    file('over.json', 4);
    file('yesterday.json', 1);
    file('now.json', 0);
    tidySessions(dir, join(dir, 'now.json'));
    assert.deepEqual(readdirSync(dir).sort(), ['.tidied', 'now.json', 'yesterday.json'], 'the session over for 3 days removed, the live ones kept');
    // Tidied an hour ago: a session over since is left for tomorrow's look.
    file('over-2.json', 5);
    utimesSync(join(dir, '.tidied'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    tidySessions(dir, join(dir, 'now.json'));
    assert.ok(existsSync(join(dir, 'over-2.json')), 'not looked at again within a day');
    // A day later, or a mark from the future (a clock that was wrong): looked at again.
    utimesSync(join(dir, '.tidied'), days(1.5), days(1.5));
    tidySessions(dir, join(dir, 'now.json'));
    assert.ok(!existsSync(join(dir, 'over-2.json')), 'a day later: removed');
    file('over-3.json', 6);
    utimesSync(join(dir, '.tidied'), days(-2), days(-2));
    tidySessions(dir, join(dir, 'now.json'));
    assert.deepEqual(readdirSync(dir).sort(), ['.tidied', 'now.json', 'yesterday.json']);
    // The session file dated by a clock 5 days ahead of the one that dates a file just written
    // (a mounted folder's server, a faked clock): the mark is dated as the session file, and stays.
    const ahead = join(root, 'tidy-ahead');
    mkdirSync(ahead);
    writeFileSync(join(ahead, 'now.json'), '[]');
    utimesSync(join(ahead, 'now.json'), days(-5), days(-5));
    tidySessions(ahead, join(ahead, 'now.json'));
    assert.deepEqual(readdirSync(ahead).sort(), ['.tidied', 'now.json'], 'the mark is not tidied away as a file of 5 days ago');
    assert.ok(Math.abs(statSync(join(ahead, '.tidied')).mtimeMs - statSync(join(ahead, 'now.json')).mtimeMs) < 1, 'dated as the session file');
  });

  it("a session's record of what it was given: two hooks writing at once lose none, a restart (a compaction) replaces it, no session id keeps nothing", () => {
    const base = join(root, 'given-home');
    // Both read the record before either writes, as two tool hooks of parallel calls do.
    const first = sessionGiven(base, 'par-1');
    const second = sessionGiven(base, 'par-1');
    first.add(['mem-a', 'mem-b']);
    second.add(['mem-c', 'mem-a']);
    assert.deepEqual([...sessionGiven(base, 'par-1').given].sort(), ['mem-a', 'mem-b', 'mem-c']);
    assert.deepEqual([...sessionGiven(base, 'par-2').given], [], 'another session holds none of it');
    sessionGiven(base, 'par-1').add(['mem-d'], true);
    assert.deepEqual([...sessionGiven(base, 'par-1').given], ['mem-d'], 'a compaction starts it again');
    const files = readdirSync(join(base, '.cache', 'given')).sort();
    assert.deepEqual(files, ['.tidied', 'par-1.ids']);
    sessionGiven(base, undefined).add(['mem-e']);
    assert.deepEqual(readdirSync(join(base, '.cache', 'given')).sort(), files, 'nothing kept without a session id');
  });

  it("a forked session holds what its parent was given: Codex names the parent in the rollout's first line; Claude Code's fork is found by the prompt it copied, once its transcript is written", () => {
    const base = join(root, 'fork-home');
    sessionGiven(base, 'parent-cx').add(['mem-a', 'mem-b']);
    // Codex: the fork's rollout, there at its start, names its parent.
    const rolloutPath = join(root, 'rollout-fork.jsonl');
    writeFileSync(rolloutPath, `${JSON.stringify({ type: 'session_meta', payload: { id: 'fork-cx', forked_from_id: 'parent-cx', cwd: '/w' } })}\n`);
    const cx = sessionGiven(base, 'fork-cx', rolloutPath, { forked: true });
    assert.deepEqual([cx.inherited, [...cx.given].sort()], ['parent-cx', ['mem-a', 'mem-b']]);
    cx.add(['mem-c']);
    assert.deepEqual([...sessionGiven(base, 'fork-cx', rolloutPath).given].sort(), ['mem-a', 'mem-b', 'mem-c'], 'its own record from then on');
    assert.deepEqual([...sessionGiven(base, 'parent-cx').given].sort(), ['mem-a', 'mem-b'], 'the parent keeps its own');
    // Claude Code: the parent's transcript and the fork's beside it, which copies the parent's prompts (their uuids) under its own id.
    const projects = join(root, 'projects', '-w');
    mkdirSync(projects, { recursive: true });
    const prompt = (session: string, uuid: string) => JSON.stringify({ type: 'user', uuid, sessionId: session, message: { role: 'user', content: 'why does the printer jam?' } });
    writeFileSync(join(projects, 'parent-cc.jsonl'), `${prompt('parent-cc', '11111111-2222-4333-8444-555555555555')}\n`);
    writeFileSync(join(projects, 'other-cc.jsonl'), `${prompt('other-cc', '99999999-2222-4333-8444-555555555555')}\n`);
    sessionGiven(base, 'parent-cc').add(['mem-x']);
    sessionGiven(base, 'other-cc').add(['mem-y']);
    const forkPath = join(projects, 'fork-cc.jsonl');
    // Its start: no transcript yet. A mark is left; nothing inherited; the start records what it injects.
    const atStart = sessionGiven(base, 'fork-cc', forkPath, { forked: true });
    assert.deepEqual([atStart.inherited, [...atStart.given]], [undefined, []]);
    atStart.add(['mem-z']);
    assert.ok(existsSync(join(base, '.cache', 'given', 'fork-cc.fork')));
    // Its next hook, the transcript written: the parent's record joins its own, the mark goes.
    writeFileSync(forkPath, `${JSON.stringify({ type: 'mode', mode: 'normal', sessionId: 'fork-cc' })}\n${prompt('fork-cc', '11111111-2222-4333-8444-555555555555')}\n`);
    const later = sessionGiven(base, 'fork-cc', forkPath);
    assert.deepEqual([later.inherited, [...later.given].sort()], ['parent-cc', ['mem-x', 'mem-z']]);
    assert.ok(!existsSync(join(base, '.cache', 'given', 'fork-cc.fork')));
    // A fork whose first prompt no transcript beside it holds: looked for once, the mark gone, its own record kept.
    const lonePath = join(projects, 'lone-cc.jsonl');
    sessionGiven(base, 'lone-cc', lonePath, { forked: true }).add(['mem-l']);
    assert.ok(existsSync(join(base, '.cache', 'given', 'lone-cc.fork')));
    writeFileSync(lonePath, `${prompt('lone-cc', '77777777-2222-4333-8444-555555555555')}\n`);
    assert.deepEqual([...sessionGiven(base, 'lone-cc', lonePath).given], ['mem-l']);
    assert.ok(!existsSync(join(base, '.cache', 'given', 'lone-cc.fork')), 'no later hook searches again');
    // A session that is no fork never looks for a parent.
    writeFileSync(join(projects, 'plain-cc.jsonl'), `${prompt('plain-cc', '11111111-2222-4333-8444-555555555555')}\n`);
    assert.deepEqual([...sessionGiven(base, 'plain-cc', join(projects, 'plain-cc.jsonl')).given], []);
  });
});

describe('session start by the work in progress', () => {
  before(() => ({ dir: root, cleanup } = tempDir('memory-wip-')));
  after(() => cleanup());

  const start = (m: HomeMachine, cwd: string, env: NodeJS.ProcessEnv = {}) => {
    const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: `s-${Date.now()}`, cwd, hook_event_name: 'SessionStart' }), env });
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  };

  /** Machine `name`'s checkout of acme/<repo>: a September session on src/checkout.ts, then `newer` sessions on src/cart.ts; `[inject] recent` = `recent`. */
  function olderWorkOnCheckout(name: string, repo: string, newer: number, recent: number): { m: HomeMachine; dir: string } {
    const m = homeMachine(root, name, { env: { MEMORY_INJECT_RECENT: String(recent) } });
    const dir = cloneCode(codeOrigin(root, repo, FILES), join(m.user, 'src', repo), `https://github.com/acme/${repo}`);
    sessionReading(m, 'old-checkout', dir, '2026-09-03T09:00:00Z', [{ q: 'Why does checkout round the tax before the discount?', a: 'The auditors asked for tax on the list price; the discount applies after.', read: ['src/checkout.ts'] }]);
    for (let i = 0; i < newer; i++) sessionReading(m, `newer-${i}`, dir, `2026-11-${String(1 + i).padStart(2, '0')}T09:00:00Z`, [{ q: `Newer question ${i} about the cart totals`, a: `Newer answer ${i}.`, read: ['src/cart.ts'] }]);
    return { m, dir };
  }

  it('src/checkout.ts changed (uncommitted) and 21 newer memories on other files, recent = 5: the earlier work on src/checkout.ts is injected, saying why; a clean tree gives the most recent as before', () => {
    const { m, dir: shop } = olderWorkOnCheckout('wip', 'shop', 21, 5);
    const clean = start(m, shop);
    assert.match(clean, /recent memories of project "shop"/);
    assert.doesNotMatch(clean, /round the tax before the discount/, 'a clean tree: the five most recent, as before');
    assert.match(clean, /Newer question 20/);
    writeFileSync(join(shop, 'src', 'checkout.ts'), 'export function capture(p) { return retryTwice(p); }\n');
    const changed = start(m, shop);
    assert.match(changed, /round the tax before the discount/);
    assert.match(changed, /· you are changing src\/checkout\.ts/);
    assert.match(changed, /Newer question 20/, 'then the most recent');
    assert.equal((changed.match(/^## /gm) ?? []).length, 5, 'still five');
  });

  it('a branch that is not the mainline: its memories first, headed "branch …"; with 10,000 untracked files too', () => {
    const origin = codeOrigin(root, 'crm', FILES);
    const m = homeMachine(root, 'branchy', { env: { MEMORY_INJECT_RECENT: '3' } });
    const crm = cloneCode(origin, join(m.user, 'src', 'crm'), 'https://github.com/acme/crm');
    git(crm, 'checkout', '-q', '-b', 'feature/retry');
    sessionReading(m, 'on-branch', crm, '2026-10-01T09:00:00Z', [{ q: 'How should the retry back-off grow on the feature branch?', a: 'Exponentially from 200 ms, capped at 30 s.' }], 'feature/retry');
    git(crm, 'checkout', '-q', 'main');
    for (let i = 0; i < 5; i++) sessionReading(m, `main-${i}`, crm, `2026-11-${String(1 + i).padStart(2, '0')}T09:00:00Z`, [{ q: `Mainline question ${i} about the contacts page`, a: `Mainline answer ${i}.` }]);
    assert.doesNotMatch(start(m, crm), /retry back-off grow/, 'on main: the most recent');
    git(crm, 'checkout', '-q', 'feature/retry');
    const onBranch = start(m, crm);
    assert.match(onBranch, /retry back-off grow/);
    assert.match(onBranch, /· branch feature\/retry/);
    // A huge working tree: read up to its bound (parseStatus below), the branch still counts.
    const many = join(crm, 'generated');
    mkdirSync(many);
    for (let i = 0; i < 10_000; i++) writeFileSync(join(many, `f${i}.txt`), `${i}\n`);
    assert.match(start(m, crm), /retry back-off grow/);
  });

  it('a rename staged in a terminal, not committed (`git mv`): session start notes it, injects the old name\'s work as the work in progress, and the Read of the new path in that session brings it', () => {
    const { m, dir: mall } = olderWorkOnCheckout('staged', 'mall', 6, 3);
    assert.doesNotMatch(start(m, mall), /round the tax/, 'a clean tree: the most recent (a positive check of the world)');
    mkdirSync(join(mall, 'src', 'pay'));
    git(mall, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    const injected = start(m, mall);
    assert.match(injected, /· you are changing src\/pay\/checkout\.ts\n[^#]*round the tax before the discount/);
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const read = runHook(m, registered(m, 'PostToolUse', 'Read'), { session_id: 'staged-2', cwd: mall, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(mall, 'src', 'pay', 'checkout.ts') } }, mall);
    assert.match(read.context, /\(recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since\)\nQ: Why does checkout round the tax/);
    // Each session start finds it again: noted once.
    start(m, mall);
    const moves = readFileSync(movesOf(m, 'mall'), 'utf8').trim().split('\n');
    assert.deepEqual(moves.map((l) => (JSON.parse(l) as { from: string; to: string }).to), ['src/pay/checkout.ts']);
    // Where the moves go cannot be written: session start injects all the same (the staged rename not followed), the log says why.
    rmSync(movesOf(m, 'mall'));
    mkdirSync(movesOf(m, 'mall'));
    const blocked = start(m, mall);
    assert.match(blocked, /recent memories of project "mall"|you are changing src\/pay\/checkout\.ts/);
    assert.match(readFileSync(join(m.home, '.cache', 'memory.log'), 'utf8'), /cannot note the renames staged in .*mall/);
  });

  it('a file moved without git (an editor\'s rename, a plain `mv`, not staged): session start pairs the deleted path and the untracked one by content, injects the old name\'s work, and the Read of the new path brings it; staged later, noted once; one edited after the move, paired by its lines', () => {
    const { m, dir: arcade } = olderWorkOnCheckout('editor', 'arcade', 6, 3);
    mkdirSync(join(arcade, 'src', 'pay'));
    renameSync(join(arcade, 'src', 'checkout.ts'), join(arcade, 'src', 'pay', 'checkout.ts'));
    const injected = start(m, arcade);
    assert.match(injected, /· you are changing src\/pay\/checkout\.ts\n[^#]*round the tax before the discount/);
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const read = runHook(m, registered(m, 'PostToolUse', 'Read'), { session_id: 'editor-2', cwd: arcade, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(arcade, 'src', 'pay', 'checkout.ts') } }, arcade);
    assert.match(read.context, /\(recorded as src\/checkout\.ts, renamed to src\/pay\/checkout\.ts since\)\nQ: Why does checkout round the tax/);
    // Staged afterwards (now a rename git sees): the same pair, noted once.
    git(arcade, 'add', '-A');
    start(m, arcade);
    const moves = readFileSync(movesOf(m, 'arcade'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { from: string; to: string });
    assert.deepEqual(moves.map((l) => `${l.from} > ${l.to}`), ['src/checkout.ts > src/pay/checkout.ts']);
    // Renamed in the editor and then edited: paired by its lines, as git would pair it once staged.
    const vat = ['export const rates = {', '  standard: 0.2,', '  reduced: 0.05,', '  zero: 0,', '};', 'export function vatOf(net, kind) {', '  return net * rates[kind];', '}', ''].join('\n');
    writeFileSync(join(arcade, 'src', 'tax.ts'), vat);
    git(arcade, 'add', 'src/tax.ts');
    git(arcade, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'rates');
    sessionReading(m, 'old-tax', arcade, '2026-09-10T09:00:00Z', [{ q: 'Is the reduced VAT rate really five percent?', a: 'Yes, 0.05 for children\'s car seats and home energy.', read: ['src/tax.ts'] }]);
    rmSync(join(arcade, 'src', 'tax.ts'));
    writeFileSync(join(arcade, 'src', 'pay', 'vat.ts'), vat.replace('  zero: 0,', '  zero: 0,\n  exempt: null,'));
    assert.match(start(m, arcade), /· you are changing src\/pay\/vat\.ts\n[^#]*reduced VAT rate really five percent/);
    const edited = readFileSync(movesOf(m, 'arcade'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { from: string; to: string });
    assert.deepEqual(edited.map((l) => `${l.from} > ${l.to}`), ['src/checkout.ts > src/pay/checkout.ts', 'src/tax.ts > src/pay/vat.ts']);
  });

  it('git status read: the branch, changed and untracked paths, a rename\'s new path and the rename itself; at most maxFiles of them (pure)', () => {
    const out = ['## feature/x...origin/feature/x [ahead 1]', ' M src/a.ts', 'A  src/b.ts', '?? notes/c.md', 'R  src/new.ts', 'src/old.ts', 'C  src/copy.ts', 'src/a.ts', ''].join('\0');
    assert.deepEqual(parseStatus(out, 10), { branch: 'feature/x', changed: ['src/a.ts', 'src/b.ts', 'notes/c.md', 'src/new.ts', 'src/copy.ts'], more: false, renamed: [{ from: 'src/old.ts', to: 'src/new.ts' }], deleted: [], untracked: ['notes/c.md'] });
    assert.deepEqual(parseStatus(out, 2), { branch: 'feature/x', changed: ['src/a.ts', 'src/b.ts'], more: true, renamed: [], deleted: [], untracked: [] });
    // A plain mv: the old path deleted (not staged), the new one untracked.
    assert.deepEqual(parseStatus(['## main', ' D src/checkout.ts', 'D  src/gone.ts', '?? src/pay/checkout.ts', '?? build/', ''].join('\0'), 10), { branch: 'main', changed: ['src/checkout.ts', 'src/gone.ts', 'src/pay/checkout.ts'], more: false, renamed: [], deleted: ['src/checkout.ts'], untracked: ['src/pay/checkout.ts'] });
    assert.equal(parseStatus('## HEAD (no branch)\0 M a\0', 5).branch, undefined);
    assert.equal(parseStatus('## No commits yet on main\0', 5).branch, 'main');
  });
});
