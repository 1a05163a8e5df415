/**
 * Codex sessions: the rollout parser (golden on synthetic rollouts, conformance on the real
 * ones in ../shared), import --codex, the Stop hook and notify finding a rollout by its
 * session id, recall at session start, `search` showing the source.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { parseAnyTranscript } from '../../src/agents/transcripts.js';
import { codexPromptText, parseCodexRollout } from '../../src/agents/codex/rollout.js';
import { findRollout, listRollouts, rolloutMeta } from '../../src/agents/codex/sessions.js';
import { codexNotification } from '../../src/cli/stop-hook.js';
import { DEFAULT_LIMITS, memoryId, turnToRecord } from '../../src/capture/turn.js';
import { encodeEntry } from '../../src/export/jsonl.js';
import { commentary, legacyTurn, patch, rollout, shell, text, turn } from '../support/codex-builder.js';
import { makeWorld, parseJsonLines, REPO, runCli, SHARED_FIXTURES } from '../support/helpers.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'transcripts');
const GOLDEN = join(REPO, 'test', 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

describe('Codex rollout parser', () => {
  it('golden: codex-basic.jsonl → records', () => {
    const parsed = parseCodexRollout(readFileSync(join(FIXTURES, 'codex-basic.jsonl'), 'utf8'));
    const lines = parsed.turns.map((t) => encodeEntry(turnToRecord(t, { machine: 'laptop', project: 'golden', now: '2026-05-12T00:00:00.000Z', source: 'codex' })));
    const actual = `${JSON.stringify({ badLines: parsed.badLines, turns: parsed.turns.length })}\n${lines.join('\n')}\n`;
    const file = join(GOLDEN, 'codex-basic.records.jsonl');
    if (UPDATE || !existsSync(file)) writeFileSync(file, actual);
    assert.equal(actual, readFileSync(file, 'utf8'));
  });

  it('one memory per prompt: the user_message event, not its response_item copy nor the injected blocks', () => {
    const r = rollout('019e-sess-a', '/home/u/shop', { branch: 'feat/cart' });
    const t1 = turn(r, 'Why does the cart total round wrong for JPY?', (x) => {
      commentary(x, 'Looking at the money helpers first.');
      shell(x, 'sed -n 1,80p src/money.ts', 'src/money.ts');
      patch(x, 'src/money.ts');
    }, 'JPY has no minor unit: the helper divided by 100. Fixed in src/money.ts with a currency exponent table.');
    const p = parseCodexRollout(text(r));
    assert.equal(p.turns.length, 1);
    const [t] = p.turns;
    assert.equal(t?.question, 'Why does the cart total round wrong for JPY?');
    assert.equal(t?.answer, 'JPY has no minor unit: the helper divided by 100. Fixed in src/money.ts with a currency exponent table.', 'the final answer, not the commentary');
    assert.equal(t?.promptUuid, t1, 'keyed by the turn id');
    assert.equal(t?.sessionId, '019e-sess-a');
    assert.equal(t?.cwd, '/home/u/shop');
    assert.equal(t?.gitBranch, 'feat/cart');
    assert.deepEqual(t?.files, ['src/money.ts', '/home/u/shop/src/money.ts']);
    assert.deepEqual(t?.tools, ['exec_command', 'apply_patch']);
    assert.deepEqual(t?.commands, [{ command: ['/bin/sh', '-lc', 'sed -n 1,80p src/money.ts'] }], 'the command itself, for capture to look at');
  });

  it('a 5 MB pasted prompt and a 10 MB answer: each kept cut, in its own turn', () => {
    const r = rollout('019e-sess-big');
    turn(r, 'Explain the heron deploy script', () => {}, 'It builds, then rsyncs to the heron hosts.');
    turn(r, `Why does this stack trace fail? ${'t'.repeat(5 * 1024 * 1024)}`, () => {}, `Long answer. ${'a'.repeat(10 * 1024 * 1024)}`);
    const p = parseCodexRollout(text(r));
    assert.equal(p.oversizeLines > 0, true);
    assert.equal(p.turns.length, 2);
    assert.equal(p.turns[0]?.answer, 'It builds, then rsyncs to the heron hosts.', 'nothing glued onto the turn before');
    assert.ok(p.turns[1]?.question.startsWith('Why does this stack trace fail?') && p.turns[1].question.includes('[…]'));
    assert.ok(p.turns[1]?.answer.startsWith('Long answer.') && p.turns[1].answer.includes('[…]'));
  });

  it('short follow-ups continue the turn; each final answer is kept; a turn without an answer is not a memory', () => {
    const r = rollout('019e-sess-b');
    turn(r, 'Add retry with backoff to the webhook sender', () => {}, 'Should the retries be capped at 5?');
    turn(r, 'yes', () => {}, 'Done: 5 retries, exponential backoff from 200 ms, in src/webhook.ts.');
    turn(r, 'Now explain the idempotency keys we use', () => {}, undefined, { complete: true });
    const p = parseCodexRollout(text(r));
    assert.equal(p.turns.length, 1);
    assert.equal(p.turns[0]?.answer, 'Should the retries be capped at 5?\n\nDone: 5 retries, exponential backoff from 200 ms, in src/webhook.ts.');
  });

  it('task_complete.last_agent_message is the answer when no assistant message carries it', () => {
    const r = rollout('019e-sess-c');
    r.lines.push(JSON.stringify({ timestamp: '2026-05-11T09:00:00.000Z', type: 'event_msg', payload: { type: 'task_started', turn_id: 'T1' } }));
    r.lines.push(JSON.stringify({ timestamp: '2026-05-11T09:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'Which port does the dev server use?' } }));
    r.lines.push(JSON.stringify({ timestamp: '2026-05-11T09:00:05.000Z', type: 'event_msg', payload: { type: 'task_complete', turn_id: 'T1', last_agent_message: 'Port 5173 (vite default), set in vite.config.ts.' } }));
    const p = parseCodexRollout(text(r));
    assert.deepEqual(p.turns.map((t) => [t.question, t.answer, t.promptUuid, t.timestamp]), [['Which port does the dev server use?', 'Port 5173 (vite default), set in vite.config.ts.', 'T1', '2026-05-11T09:00:01.000Z']]);
  });

  it('older rollouts without user_message events: user response_items minus the injected blocks, keyed by ordinal', () => {
    const r = rollout('019e-sess-d');
    legacyTurn(r, 'List the flaky tests in the payments suite', 'Two: refund.spec.ts and webhook.spec.ts (timing).');
    legacyTurn(r, 'Quarantine both of them for now', 'Both are tagged @quarantine and skipped in CI.');
    const p = parseCodexRollout(text(r));
    assert.deepEqual(p.turns.map((t) => [t.question, t.promptUuid]), [
      ['List the flaky tests in the payments suite', '019e-sess-d#1'],
      ['Quarantine both of them for now', '019e-sess-d#2'],
    ]);
  });

  it('the desktop app\'s attached-files preamble is not the request', () => {
    assert.equal(codexPromptText('\n# Files mentioned by the user:\n\n## notes.vtt: /x/notes.vtt\n\n## My request for Codex:\nsummarize the action items\n'), 'summarize the action items');
    assert.equal(codexPromptText('<environment_context>\n<cwd>/x</cwd>\n</environment_context>'), undefined);
    assert.equal(codexPromptText('# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>…'), undefined);
    assert.equal(codexPromptText('<user_instructions>be terse</user_instructions>'), undefined);
  });

  it('bad lines are counted, a transcript is told apart by its first line, privacy runs before cutting', () => {
    const r = rollout('019e-sess-e');
    turn(r, 'Rotate the key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA please', () => {}, 'Rotated.  The old key is revoked.');
    const body = `${text(r)}not json\n`;
    const any = parseAnyTranscript(body, DEFAULT_LIMITS, (s) => s.replace(/sk-ant-[\w-]+/g, '[REDACTED:anthropic]'));
    assert.equal(any.source, 'codex');
    assert.equal(any.badLines, 1);
    assert.equal(any.turns[0]?.question, 'Rotate the key [REDACTED:anthropic] please');
    assert.equal(parseAnyTranscript('{"type":"user","message":{"content":"hi"}}\n', DEFAULT_LIMITS, (s) => s).source, 'claude-code');
  });

  it('codex-notify: only agent-turn-complete is ours', () => {
    assert.deepEqual(codexNotification(JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'abc-123', 'turn-id': 't', cwd: '/w', 'input-messages': ['x'], 'last-assistant-message': 'y' })), { session_id: 'abc-123', cwd: '/w', hook_event_name: 'Stop' });
    assert.equal(codexNotification(JSON.stringify({ type: 'approval-requested' })), undefined);
    assert.equal(codexNotification('not json'), undefined);
    assert.equal(codexNotification(undefined), undefined);
  });
});

/** A CODEX_HOME with rollouts in their dated folders. */
function codexHomeWith(dir: string, rollouts: Array<{ r: ReturnType<typeof rollout>; day: string }>): string {
  const home = join(dir, 'codex-home');
  for (const { r, day } of rollouts) {
    const [y, m, d] = day.split('-') as [string, string, string];
    const folder = join(home, 'sessions', y, m, d);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `rollout-${day}T08-00-00-${r.id}.jsonl`), text(r));
  }
  return home;
}

describe('Codex sessions end to end (CLI)', () => {
  it('import --codex: the current folder\'s sessions, or --all; idempotent; search shows the source', () => {
    const w = makeWorld();
    try {
      const proj = join(w.dir, 'shop');
      const other = join(w.dir, 'blog');
      mkdirSync(proj);
      mkdirSync(other);
      const a = rollout('019eaaaa-0000-7000-8000-000000000001', proj);
      turn(a, 'How do we stop the checkout double-submit?', () => patch(a, 'src/checkout.ts'), 'Disable the button on submit and make the POST idempotent with a key header.');
      const b = rollout('019ebbbb-0000-7000-8000-000000000002', other);
      turn(b, 'Which static site generator did we settle on?', () => {}, 'Astro: islands keep the blog fast and MDX works out of the box.');
      const home = codexHomeWith(w.dir, [{ r: a, day: '2026-05-10' }, { r: b, day: '2026-05-11' }]);
      assert.deepEqual(listRollouts(home).map((p) => rolloutMeta(p).id), [b.id, a.id], 'newest first');
      assert.equal(findRollout(home, a.id), listRollouts(home)[1]);
      const env = { CODEX_HOME: home };
      const here = runCli(['--config', w.config, 'import', '--codex', '--json', '--no-push'], { env, cwd: proj });
      assert.equal(here.code, 0, here.stderr);
      assert.equal((JSON.parse(here.stdout) as { added: number }).added, 1);
      const all = runCli(['--config', w.config, 'import', '--codex', '--all', '--json', '--no-push'], { env, cwd: w.dir });
      const rep = JSON.parse(all.stdout) as { added: number; unchanged: number };
      assert.deepEqual([rep.added, rep.unchanged], [1, 1]);
      const s = runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', 'checkout double submit']);
      const hits = (JSON.parse(s.stdout) as { hits: Array<{ id: string; source: string; project: string; question: string }> }).hits;
      assert.equal(hits[0]?.source, 'codex');
      assert.equal(hits[0]?.project, 'shop');
      assert.equal(hits[0]?.id, memoryId('codex', a.id, a.lines.length > 0 ? (JSON.parse(a.lines[1] as string) as { payload: { turn_id: string } }).payload.turn_id : ''));
      const text1 = runCli(['--config', w.config, 'search', '--mode', 'keyword', 'static site generator']);
      assert.match(text1.stdout, /\/ codex {2}\(score/);
      const none = runCli(['--config', w.config, 'import', '--codex', '--no-push'], { env: { CODEX_HOME: join(w.dir, 'nowhere') }, cwd: proj });
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no Codex sessions found/);
    } finally {
      w.cleanup();
    }
  });

  it('the Stop hook (--agent codex) and notify find the rollout by session id; session start recalls it in Codex', async () => {
    const w = makeWorld();
    try {
      const proj = join(w.dir, 'shop');
      mkdirSync(proj);
      const a = rollout('019ecccc-0000-7000-8000-000000000003', proj);
      turn(a, 'Where is the rate limiter configured?', () => {}, 'In config/limits.yaml: 100 requests a minute per token, burst 20.');
      const home = codexHomeWith(w.dir, [{ r: a, day: '2026-05-12' }]);
      const env = { CODEX_HOME: home };
      // Codex's Stop input may carry no transcript_path: the session id finds the rollout.
      const stop = runCli(['--config', w.config, 'session-end', '--agent', 'codex'], { env, input: JSON.stringify({ session_id: a.id, cwd: proj, hook_event_name: 'Stop', turn_id: 'x', stop_hook_active: false }) });
      assert.equal(stop.code, 0, stop.stderr);
      assert.equal(stop.stdout, '', 'the Stop hook prints nothing (Codex rejects unknown fields)');
      const fg = runCli(['--config', w.config, 'session-end', '--foreground', '--no-push', '--json', '--transcript', findRollout(home, a.id) as string]);
      assert.equal(fg.code, 0, fg.stderr);
      // notify: the JSON as the last argument.
      const b = rollout('019edddd-0000-7000-8000-000000000004', proj);
      turn(b, 'Which queue backs the email jobs?', () => {}, 'BullMQ on the shared Redis, queue name mail:outbox.');
      codexHomeWith(w.dir, [{ r: b, day: '2026-05-12' }]);
      const n = runCli(['--config', w.config, 'codex-notify', JSON.stringify({ type: 'agent-turn-complete', 'thread-id': b.id, 'turn-id': 't', cwd: proj })], { env });
      assert.equal(n.code, 0, n.stderr);
      const queue = join(w.dir, '.cache', 'queue');
      await waitFor(() => searchIds(w.config, 'email jobs queue').length > 0 || (existsSync(queue) && readdirSync(queue).length === 0 && searchIds(w.config, 'email jobs queue').length > 0), 60_000);
      const start = runCli(['--config', w.config, 'session-start', '--inject', '--no-pull'], { input: JSON.stringify({ session_id: 'new', cwd: proj, hook_event_name: 'SessionStart', source: 'startup', model: 'gpt-5', permission_mode: 'default', transcript_path: null }) });
      assert.equal(start.code, 0, start.stderr);
      const out = JSON.parse(start.stdout) as Record<string, unknown>;
      const hso = out.hookSpecificOutput as { hookEventName: string; additionalContext: string };
      assert.deepEqual(Object.keys(out).filter((k) => !['hookSpecificOutput', 'systemMessage'].includes(k)), [], 'only fields Codex accepts');
      assert.deepEqual(Object.keys(hso).sort(), ['additionalContext', 'hookEventName']);
      assert.match(hso.additionalContext, /rate limiter configured/);
      assert.match(hso.additionalContext, /mail:outbox/);
    } finally {
      w.cleanup();
    }
  });
});

function searchIds(config: string, q: string): string[] {
  const r = runCli(['--config', config, 'search', '--json', '--mode', 'keyword', q]);
  if (r.code !== 0) return [];
  return (JSON.parse(r.stdout) as { hits: Array<{ id: string }> }).hits.map((h) => h.id);
}

async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.fail('timed out waiting for the capture worker');
}

const CODEX_FIXTURES = join(SHARED_FIXTURES, 'transcripts', 'codex');
const noShared = existsSync(CODEX_FIXTURES) ? false : `no real rollouts at ${CODEX_FIXTURES} (../shared is beside the project only in its own workspace and CI)`;

describe('conformance: real Codex rollouts (../shared/fixtures)', { skip: noShared }, () => {
  // What a person reading each session would name as its requests: the first 32 characters
  // and a digest of the last 80 characters of its final answer (no copies of the fixtures).
  const REQUESTS: Record<string, Array<[string, string]>> = {
    'rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.gz': [
      ['show tools', 'da0cbe2c08'],
      ["let's update the defailt context", '42e8fe18c4'],
    ],
    'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl.gz': [
      ['analyze trascript and summarzie ', 'ea07bd9483'],
      ['there is a need for nikita to dr', 'b64b96b942'],
      ['use app tools to go to Analytics', 'a459d36a36'],
    ],
  };
  const digest = (s: string) => createHash('sha1').update(Array.from(s).slice(-80).join('')).digest('hex').slice(0, 10);
  const files = noShared ? [] : readdirSync(CODEX_FIXTURES).filter((f) => f.endsWith('.jsonl.gz'));
  it('the fixtures are there', () => assert.deepEqual(files.sort(), Object.keys(REQUESTS).sort()));
  for (const f of files) {
    it(f, () => {
      const body = gunzipSync(readFileSync(join(CODEX_FIXTURES, f))).toString('utf8');
      const p = parseAnyTranscript(body, DEFAULT_LIMITS, (s) => s);
      assert.equal(p.source, 'codex');
      assert.equal(p.badLines, 0);
      assert.deepEqual(p.turns.map((t) => [Array.from(t.question).slice(0, 32).join(''), digest(t.answer)]), REQUESTS[f]);
      assert.equal(p.sessionId, /-([0-9a-f-]{36})\.jsonl\.gz$/.exec(f)?.[1]);
      const ids = p.turns.map((t) => memoryId('codex', t.sessionId, t.promptUuid));
      assert.equal(new Set(ids).size, ids.length);
      for (const t of p.turns) {
        assert.ok(!/<environment_context>|AGENTS\.md instructions|My request for Codex/.test(t.question), t.question.slice(0, 60));
        assert.ok(!Number.isNaN(Date.parse(t.timestamp)));
        assert.ok(Array.from(t.answer).length <= DEFAULT_LIMITS.maxAnswer);
      }
      assert.deepEqual(parseCodexRollout(body).turns, p.turns, 'deterministic');
    });
  }
});

void parseJsonLines;
