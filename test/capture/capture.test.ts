import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { CUT_MARK, cutQuestion, DEFAULT_LIMITS, joinAnswer, memoryId, shrinkJsonLine, turnToRecord } from '../../src/capture/turn.js';
import { parseTranscript } from '../../src/agents/claude-code/transcript.js';
import { encodeEntry } from '../../src/export/jsonl.js';
import { REPO, SHARED_FIXTURES } from '../support/helpers.js';
import { assistant, raw, text, transcript, user } from '../support/transcript-builder.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'transcripts');
const GOLDEN = join(REPO, 'test', 'golden');
// `UPDATE_GOLDEN=1 npm test` rewrites the expected files after an intended change.
const UPDATE = process.env.UPDATE_GOLDEN === '1';

function records(name: string): string {
  const parsed = parseTranscript(readFileSync(join(FIXTURES, name), 'utf8'));
  const lines = parsed.turns.map((t) => encodeEntry(turnToRecord(t, { machine: 'laptop', project: 'golden', now: '2026-04-01T00:00:00.000Z' })));
  return `${JSON.stringify({ badLines: parsed.badLines, duplicates: parsed.duplicates, turns: parsed.turns.length })}\n${lines.join('\n')}\n`;
}

describe('golden: transcript → records', () => {
  for (const name of ['basic.jsonl', 'resumed.jsonl', 'long.jsonl']) {
    it(name, () => {
      const actual = records(name);
      const file = join(GOLDEN, name.replace('.jsonl', '.records.jsonl'));
      if (UPDATE || !existsSync(file)) writeFileSync(file, actual);
      assert.equal(actual, readFileSync(file, 'utf8'));
    });
  }

  it('basic: only the two real prompts become memories, with their whole answers', () => {
    const p = parseTranscript(readFileSync(join(FIXTURES, 'basic.jsonl'), 'utf8'));
    assert.equal(p.turns.length, 2);
    assert.equal(p.badLines, 1);
    const [lock, auth] = p.turns;
    assert.equal(lock?.question, 'How do we stop the sqlite database lock timeouts in the worker?');
    assert.ok(lock?.answer.startsWith('Let me look at the connection setup.'));
    assert.ok(lock?.answer.endsWith('the lock errors are gone.'), 'the answer continues past tool calls and a "continue"');
    assert.ok(!lock?.answer.includes('Let me think about WAL'), 'thinking is not part of the answer');
    assert.deepEqual(lock?.files, ['/home/u/api/src/db.ts']);
    assert.deepEqual(lock?.tools, ['Read', 'Edit']);
    assert.equal(lock?.gitBranch, 'main');
    assert.equal(auth?.question, '認証エラーの原因を調べて', 'system reminders are stripped from a prompt');
    assert.ok(!p.turns.some((t) => /Subagent|Caveat|command-name|continued from/.test(t.question + t.answer)));
  });

  it('a turn\'s Bash commands are kept as given, with the folder they ran in, at most 100; the files they name are looked at on capture, not here', () => {
    const t = transcript('bash-1', '/home/u/api');
    user(t, 'Move the db helpers under lib and run their tests.');
    assistant(t, [
      { tool: 'Bash', input: { command: 'mkdir -p lib && git mv src/db.ts lib/db.ts', description: 'move' } },
      { tool: 'Bash', input: {} },
      ...Array.from({ length: 120 }, (_, i) => ({ tool: 'Bash', input: { command: `npm test -- lib/db.test.ts # run ${i}` } })),
      { text: 'Moved to lib/db.ts; its tests pass.' },
    ]);
    const [turn] = parseTranscript(text(t)).turns;
    assert.deepEqual(turn?.commands?.[0], { command: 'mkdir -p lib && git mv src/db.ts lib/db.ts', cwd: '/home/u/api' });
    assert.equal(turn?.commands?.length, 100, 'a command with no text is none; at most 100');
    assert.deepEqual(turn?.files, [], 'no tool named a file');
  });

  it('resumed: copied entries do not double a memory', () => {
    const p = parseTranscript(readFileSync(join(FIXTURES, 'resumed.jsonl'), 'utf8'));
    assert.equal(p.turns.length, 2);
    assert.equal(p.duplicates, 2);
  });

  it('long: the conclusion survives the cut, which is marked', () => {
    const [t] = parseTranscript(readFileSync(join(FIXTURES, 'long.jsonl'), 'utf8')).turns;
    assert.ok(t);
    assert.ok(Array.from(t.answer).length <= DEFAULT_LIMITS.maxAnswer);
    assert.ok(t.answer.endsWith('jest and babel-jest were removed from package.json.'));
    assert.ok(t.answer.startsWith('Step 0: converting batch 0'));
    assert.ok(t.answer.includes(`\n\n${CUT_MARK}\n\n`));
  });
});

describe('capture rules', () => {
  it('a slash command typed with arguments is a request: "/name args"; without arguments it stays a wrapper', () => {
    const t = transcript('slash', '/home/u/app');
    user(t, '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>check the auth middleware for token leaks</command-args>');
    assistant(t, [{ text: 'The auth middleware logs the raw header on errors; I removed that line.' }]);
    user(t, '<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>');
    user(t, 'Now explain how the session cookie is signed');
    assistant(t, [{ text: 'It is signed with HMAC-SHA256 using the key from the vault.' }]);
    const p = parseTranscript(text(t));
    assert.deepEqual(p.turns.map((x) => x.question), ['/review check the auth middleware for token leaks', 'Now explain how the session cookie is signed']);
    assert.equal(p.turns[0]?.answer, 'The auth middleware logs the raw header on errors; I removed that line.', 'its own answer, not appended to an earlier turn');
  });

  it('a short prompt with no earlier turn is dropped; after one, it continues that turn', () => {
    const t = transcript();
    user(t, 'yes');
    assistant(t, [{ text: 'An answer to nothing in particular.' }]);
    user(t, 'Refactor the payment webhook retry queue');
    assistant(t, [{ text: 'Started the refactor.' }]);
    user(t, 'go on');
    assistant(t, [{ text: 'Done: retries now use exponential backoff.' }]);
    const p = parseTranscript(text(t));
    assert.equal(p.turns.length, 1);
    assert.equal(p.turns[0]?.answer, 'Started the refactor.\n\nDone: retries now use exponential backoff.');
  });

  it('a turn whose answer is too short is not kept', () => {
    const t = transcript();
    user(t, 'Please run the whole test suite now');
    assistant(t, [{ tool: 'Bash', input: { command: 'npm test' } }, { text: 'Done.' }]);
    assert.equal(parseTranscript(text(t)).turns.length, 0);
  });

  it('limits come from the caller', () => {
    const t = transcript();
    user(t, 'short q');
    assistant(t, [{ text: 'ab' }]);
    assert.equal(parseTranscript(text(t), { minQuestion: 3, maxQuestion: 2000, minAnswer: 2, maxAnswer: 4000 }).turns.length, 1);
  });

  it('cuts long questions visibly', () => {
    assert.equal(cutQuestion('x'.repeat(30), 20), `${'x'.repeat(16)} ${CUT_MARK}`);
    assert.equal(Array.from(cutQuestion('あ'.repeat(30), 20)).length, 20);
  });

  it('joinAnswer keeps the final blocks whole and marks the cut', () => {
    const blocks = ['A'.repeat(50), 'B'.repeat(50), 'C'.repeat(30)];
    const out = joinAnswer(blocks, 100);
    assert.ok(out.length <= 100);
    assert.ok(out.endsWith('C'.repeat(30)));
    assert.ok(out.startsWith('A'));
    assert.ok(out.includes(CUT_MARK));
    assert.equal(joinAnswer(['short', 'answer'], 100), 'short\n\nanswer');
    const single = joinAnswer(['Z'.repeat(500)], 100);
    assert.equal(Array.from(single).length, 100);
    assert.ok(single.endsWith(CUT_MARK));
  });

  it('ids are deterministic per source, session and prompt', () => {
    assert.equal(memoryId('claude-code', 's', 'u'), memoryId('claude-code', 's', 'u'));
    assert.notEqual(memoryId('claude-code', 's', 'u'), memoryId('claude-code', 's', 'v'));
    assert.notEqual(memoryId('claude-code', 's', 'u'), memoryId('codex', 's', 'u'));
    assert.match(memoryId('a', 'b', 'c'), /^[0-9a-f]{32}$/);
  });

  it('non-object lines are counted, never fatal', () => {
    const t = transcript();
    raw(t, '[1,2]');
    raw(t, 'null');
    raw(t, '{"type":');
    user(t, 'A question that is long enough');
    assistant(t, [{ text: 'An answer that is long enough' }]);
    const p = parseTranscript(text(t));
    assert.equal(p.badLines, 3);
    assert.equal(p.turns.length, 1);
  });
});

const CLAUDE_FIXTURES = join(SHARED_FIXTURES, 'transcripts', 'claude-code');
// A user's clone has no ../shared beside it: the suite says why it did not run.
const noShared = existsSync(CLAUDE_FIXTURES) ? false : `no real transcripts at ${CLAUDE_FIXTURES} (../shared is beside the project only in its own workspace and CI)`;

describe('conformance: real Claude Code transcripts (../shared/fixtures)', { skip: noShared }, () => {
  const dir = CLAUDE_FIXTURES;
  const files = noShared ? [] : readdirSync(dir).filter((f) => f.endsWith('.jsonl.gz'));
  it('the fixtures are there', () => assert.ok(files.length >= 5));
  for (const f of files) {
    it(f, () => {
      const body = gunzipSync(readFileSync(join(dir, f))).toString('utf8');
      const p = parseTranscript(body);
      const again = parseTranscript(body);
      assert.ok(p.turns.length >= 1, 'every fixture has at least one real turn');
      assert.equal(p.badLines, 0);
      const ids = p.turns.map((t) => memoryId('claude-code', t.sessionId, t.promptUuid));
      assert.equal(new Set(ids).size, ids.length, 'one memory per prompt');
      assert.deepEqual(again.turns, p.turns, 'parsing is deterministic');
      for (const t of p.turns) {
        assert.ok(Array.from(t.question).length >= 10 && Array.from(t.question).length <= 2000);
        assert.ok(Array.from(t.answer).length >= 10 && Array.from(t.answer).length <= 4000);
        assert.ok(!/^<(command-name|command-message|local-command-stdout|task-notification)>/.test(t.question), t.question.slice(0, 60));
        assert.ok(!t.question.startsWith('[Request interrupted'));
        assert.ok(!t.question.startsWith('Caveat:'));
        assert.ok(!t.question.includes('<system-reminder>'));
        assert.ok(!Number.isNaN(Date.parse(t.timestamp)));
      }
    });
  }
  // What a person reading each session would name as its requests, in order: the first 32
  // characters of the request and a digest of the last 80 characters of its final answer
  // (no copies of the fixture text). A slash command typed with arguments is a request
  // ("/handgemacht:create-beads websearch …" in spotter-subagent); one without is not.
  const REQUESTS: Record<string, Array<[string, string]>> = {
  "session-196820da.jsonl.gz": [
    ["ultrathink there is logic that t", "889bec1856"],
    ["it's good, but the issue is that", "b7d36a8fd6"],
    ["we don't control claude code pro", "664b2250df"],
    ["don't produce code, design solut", "edbcef2de1"],
    ["more context: the issue must be ", "1e693c4c61"],
    ["analyze history.jsonl. /clear co", "cdbca703df"],
    ["great, but there is existing log", "8c4eafa873"],
    ["there is no need to track existi", "ca5ee0e267"],
    ["not getting about finalizing all", "b6c1597074"],
    ["the main idea is fine, however s", "0c1c62dea7"],
    ["great, but keep in mind that new", "5ec99542b6"],
    ["great, prepare focused step by s", "014d7ce8f3"],
    ["create document in /specs folder", "35f8b4ec7e"],
  ],
  "session-3fe1b6bc.jsonl.gz": [
    ["analyze existing codex folder fo", "6e34bd00ce"],
    ["a - run codex exec command to ch", "dff1ec3e2a"],
    ["doublecheck 019b7f04-0b04-7cd3-b", "0f00b11328"],
    ["TODO is not acceptable, implemen", "e8d1a79f8f"],
  ],
  "session-624a4a58.jsonl.gz": [
    ["@src/providers/plugins/sso/ARCHI", "88ddcdb05f"],
    ["it's bad idea, since entire conv", "7acf888ee0"],
    ["track it in the same file as met", "56c59efc06"],
    ["don't create separate documents.", "3a31d89ccf"],
    ["no, it's not phase 1 there bunch", "55af13fc26"],
    ["ir's not jsonl file. it's json f", "c93c42a8f3"],
    ["I think that processedRecordIds ", "ecd08fcf69"],
    ["don't add notes, looks like ther", "039a5ab586"],
    ["what about edge cases and error ", "6d683b278c"],
    ["before providing proposal for ph", "36e36e5b1e"],
    ["show me json strcuture for sessi", "335f73f18a"],
    ["there are no tracking of failure", "7c9e66071b"],
    ["conversationId is the same as se", "1ecb1ef5a2"],
    ["update phase 4.1 document", "674551bcc7"],
  ],
  "session-9eda1058.jsonl.gz": [
    ["show tools and store response in", "e53e658947"],
    ["explore more of current repo", "e417962e0c"],
    ["what else?", "73c681525d"],
  ],
  "spotter-short.jsonl.gz": [
    ["mix phx.server doesnt seem to st", "b471ec7241"],
  ],
  "spotter-subagent.jsonl.gz": [
    ["/handgemacht:create-beads websea", "f555d0e8ed"],
    ["create the beads", "7e5cedc398"],
  ],
  "spotter-tool_heavy.jsonl.gz": [
    ["start phoenix in background", "4e5fbfc116"],
  ],
  };
  const digest = (s: string) => createHash('sha1').update(Array.from(s).slice(-80).join('')).digest('hex').slice(0, 10);
  it('every fixture is listed', () => assert.deepEqual(files.slice().sort(), Object.keys(REQUESTS).sort()));
  for (const [f, expected] of Object.entries(REQUESTS)) {
    it(`${f}: each request a person would name is exactly one memory, with its final answer`, () => {
      const p = parseTranscript(gunzipSync(readFileSync(join(dir, f))).toString('utf8'));
      assert.deepEqual(
        p.turns.map((t) => [Array.from(t.question).slice(0, 32).join(''), digest(t.answer)]),
        expected,
      );
    });
  }

  it('subagent traffic (isSidechain) never becomes a memory', () => {
    const body = gunzipSync(readFileSync(join(dir, 'spotter-subagent.jsonl.gz'))).toString('utf8');
    const sidechainPrompts = body
      .split('\n')
      .filter((l) => l.includes('"isSidechain":true') && l.includes('"type":"user"'))
      .map((l) => JSON.parse(l) as { message?: { content?: unknown } })
      .map((e) => (typeof e.message?.content === 'string' ? e.message.content : ''))
      .filter((s) => s.length > 0);
    const p = parseTranscript(body);
    for (const s of sidechainPrompts) assert.ok(!p.turns.some((t) => t.question === s.trim()));
  });
});

describe('a transcript line too long to parse whole', () => {
  it('keeps its JSON shape with each long string cut, escapes whole, short strings and non-strings as they were', () => {
    const obj = { type: 'user', uuid: 'u-1', n: 42, ok: true, message: { content: [{ type: 'text', text: `a\\b"c\u00e9${'x'.repeat(200)}` }, { type: 'text', text: 'short' }] } };
    const line = JSON.stringify(obj);
    const cut = JSON.parse(shrinkJsonLine(line, 50)) as typeof obj;
    assert.equal(cut.uuid, 'u-1');
    assert.equal(cut.n, 42);
    assert.equal(cut.ok, true);
    assert.equal(cut.message.content[1]?.text, 'short');
    const first = cut.message.content[0]?.text ?? '';
    assert.ok(first.startsWith('a\\b"cé') && first.length < 60 && first.length > 30, first);
    assert.equal(shrinkJsonLine(line, 10_000), line, 'nothing long: unchanged');
  });

  it('never cuts inside an escape, wherever the limit falls', () => {
    const value = '\\"\u2603\n'.repeat(40);
    const line = JSON.stringify({ text: value, after: 'kept' });
    for (let max = 4; max < 60; max++) {
      const parsed = JSON.parse(shrinkJsonLine(line, max)) as { text: string; after: string };
      assert.ok(value.startsWith(parsed.text), `max ${max}`);
      assert.equal(parsed.after, 'kept');
    }
  });

  it('a line that is not JSON stays not JSON; an unterminated string is left alone', () => {
    assert.throws(() => JSON.parse(shrinkJsonLine(`{"text": "${'y'.repeat(100)}`, 10)));
    assert.equal(shrinkJsonLine('no quotes at all', 3), 'no quotes at all');
  });
});
