/**
 * Newer transcript shapes, built here from what the shapes are (no real session copied):
 * Claude Code 2.1.79–2.1.139 and Codex 0.146–0.155 / the desktop app. Every shape is
 * handled on purpose; text the agent wrote itself is never an answer; what the parser does
 * not know is counted and shown, never fatal.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseTranscript } from '../../src/agents/claude-code/transcript.js';
import { parseCodexRollout } from '../../src/agents/codex/rollout.js';
import { parseAnyTranscript } from '../../src/agents/transcripts.js';
import { DEFAULT_LIMITS } from '../../src/capture/turn.js';
import { desktopRollout, desktopTurn, record, rollout, text as rolloutText, turn } from '../support/codex-builder.js';
import { makeWorld, runCli } from '../support/helpers.js';
import { assistant, raw, text, transcript, user } from '../support/transcript-builder.js';

const T0 = '2026-04-02T10:00:00.000Z';

/** An assistant entry Claude Code writes itself (`model: "<synthetic>"`). */
function synthetic(t: ReturnType<typeof transcript>, textOf: string, extra: Record<string, unknown> = {}): void {
  t.clock += 1000;
  raw(t, {
    parentUuid: null, isSidechain: false, userType: 'external', cwd: t.cwd, sessionId: t.session, version: '2.1.104', gitBranch: 'main', type: 'assistant',
    uuid: `syn-${t.clock}`, timestamp: new Date(t.clock).toISOString(),
    message: { id: `msg_syn_${t.clock}`, model: '<synthetic>', role: 'assistant', type: 'message', content: [{ type: 'text', text: textOf }] }, ...extra,
  });
}

describe('synthetic text is never an answer (Claude Code)', () => {
  it('after an interrupt, "No response requested." is not glued onto the real answer', () => {
    const t = transcript('s-int');
    user(t, 'Refactor the invoice exporter to stream rows');
    assistant(t, [{ text: 'I started streaming the rows through a cursor; the exporter now writes CSV chunks.' }]);
    user(t, [{ type: 'text', text: '[Request interrupted by user]' }]);
    synthetic(t, 'No response requested.');
    const turns = parseTranscript(text(t)).turns;
    assert.equal(turns.length, 1);
    assert.equal(turns[0]!.answer, 'I started streaming the rows through a cursor; the exporter now writes CSV chunks.');
  });

  it('an API error as the only reply keeps no memory; the request sent again after /login is one memory with the real answer', () => {
    const t = transcript('s-401');
    user(t, 'Explain why the nightly export job fails on Sundays');
    synthetic(t, 'Please run /login · API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', { isApiErrorMessage: true, error: 'authentication_failed' });
    user(t, '<command-name>/login</command-name>\n<command-message>login</command-message>\n<command-args></command-args>');
    user(t, '<local-command-stdout>Login successful</local-command-stdout>');
    user(t, 'Explain why the nightly export job fails on Sundays');
    assistant(t, [{ text: 'The cron expression uses day 0 twice, so Sunday runs overlap and the lock times out.' }]);
    const turns = parseTranscript(text(t)).turns;
    assert.deepEqual(turns.map((x) => x.answer), ['The cron expression uses day 0 twice, so Sunday runs overlap and the lock times out.']);
    assert.ok(!turns.some((x) => /API Error|Please run \/login|No response requested/.test(x.answer)));
  });

  it('an API error flagged only by isApiErrorMessage (a real model name) is not an answer either', () => {
    const t = transcript('s-529');
    user(t, 'Summarise the failing integration tests please');
    assistant(t, [{ text: 'API Error: 529 Overloaded. Retrying is advised.' }], { isApiErrorMessage: true });
    assert.equal(parseTranscript(text(t)).turns.length, 0);
  });
});

describe('Claude Code 2.1.79–2.1.139 shapes, each handled on purpose', () => {
  function newerSession(): { t: ReturnType<typeof transcript>; asked: string[] } {
    const t = transcript('s-new');
    const asked: string[] = [];
    // 2.1.131 opens with last-prompt (leafUuid); permission-mode has no uuid or timestamp.
    raw(t, { type: 'last-prompt', lastPrompt: 'what was the last thing', leafUuid: 'leaf-1', sessionId: t.session });
    raw(t, { type: 'permission-mode', permissionMode: 'acceptEdits', sessionId: t.session });
    for (const a of ['task_reminder', 'plan_mode_exit', 'deferred_tools_delta', 'skill_listing', 'mcp_instructions_delta', 'hook_success', 'hook_additional_context', 'hook_system_message']) {
      raw(t, { type: 'attachment', uuid: `att-${a}`, timestamp: T0, sessionId: t.session, version: '2.1.104', attachment: { type: a, content: 'harness context' } });
    }
    // A built-in command recorded as a system entry: never a request, whatever its arguments.
    raw(t, { type: 'system', subtype: 'local_command', uuid: 'sys-mcp', timestamp: T0, sessionId: t.session, version: '2.1.104', content: '<command-name>/mcp</command-name>\n<command-args>list servers</command-args>', level: 'info' });
    asked.push('Why does the cart badge count lag behind the cart?');
    user(t, asked[0]!, { promptId: 'p-1', entrypoint: 'sdk-cli', version: '2.1.139' });
    assistant(t, [{ text: 'The badge reads a cached count; invalidating it on add fixes the lag.' }]);
    raw(t, { type: 'system', subtype: 'turn_duration', uuid: 'sys-td', timestamp: T0, sessionId: t.session, durationMs: 5230 });
    raw(t, { type: 'system', subtype: 'stop_hook_summary', uuid: 'sys-sh', timestamp: T0, sessionId: t.session, hookCount: 1 });
    raw(t, { type: 'pr-link', prNumber: 42, prUrl: 'https://git.example.com/acme/shop/pull/42', sessionId: t.session });
    // A background task's output, injected as a user entry with a promptId: not a request.
    raw(t, { type: 'queue-operation', operation: 'enqueue', content: '<task-notification>build finished</task-notification>', sessionId: t.session, timestamp: T0 });
    user(t, '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>build finished</summary>\n</task-notification>', { promptId: 'p-2' });
    assistant(t, [{ text: 'The background build finished without errors.' }]);
    // A pasted block (its text is not in the file) with the person's words after it.
    asked.push('[Pasted text #1 +36 lines] no painel da conta o saldo aparece duplicado');
    user(t, asked[1]!, { promptId: 'p-3' });
    assistant(t, [{ text: 'O saldo duplicado vem de duas assinaturas do mesmo evento; removi a segunda.' }]);
    // An image block, then Claude Code's own isMeta line naming it.
    asked.push('What is wrong with the layout in this screenshot?');
    user(t, [{ type: 'text', text: asked[2]! }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk' } }], { promptId: 'p-4' });
    user(t, '[Image: source: /tmp/screenshot.png]', { isMeta: true });
    assistant(t, [{ text: 'The sidebar overflows because its width is fixed at 320px; a min() width fixes it.' }]);
    return { t, asked };
  }

  it('captures exactly the person\'s requests, with the real answers, and counts no shape as unknown', () => {
    const { t, asked } = newerSession();
    const parsed = parseTranscript(text(t));
    assert.deepEqual(parsed.turns.map((x) => x.question), asked);
    // A background task reporting back continues the work of the request before it (as a
    // "continue" does): its reply is the end of that request's answer, not a memory of its own.
    assert.equal(parsed.turns[0]!.answer, 'The badge reads a cached count; invalidating it on add fixes the lag.\n\nThe background build finished without errors.');
    assert.equal(parsed.unknownShapes, undefined, JSON.stringify(parsed.unknownShapes));
    assert.equal(parsed.agentVersion, '2.1.38', 'the version of the newest entry (the builder writes 2.1.38)');
    assert.equal(parsed.badLines, 0);
  });

  it('a fork\'s copies of earlier prompts are those prompts (forkedFrom.messageUuid); its new turns are new', () => {
    const original = transcript('s-orig');
    const firstUuid = user(original, 'How do we rotate the signing keys without downtime?');
    assistant(original, [{ text: 'Publish the new key first, sign with it after a day, retire the old one after a week.' }]);
    const fork = transcript('s-fork');
    user(fork, 'How do we rotate the signing keys without downtime?', { forkedFrom: { sessionId: 's-orig', messageUuid: firstUuid } });
    assistant(fork, [{ text: 'Publish the new key first, sign with it after a day, retire the old one after a week.' }], { forkedFrom: { sessionId: 's-orig', messageUuid: 'm-a' } });
    user(fork, 'And how do we revoke a leaked key at once?');
    assistant(fork, [{ text: 'Remove it from the key set and bump the cache version so verifiers reload.' }]);
    const turns = parseTranscript(text(fork)).turns;
    assert.equal(turns[0]!.promptUuid, firstUuid, 'maps onto the memory it came from');
    assert.notEqual(turns[1]!.promptUuid, firstUuid);
    // End to end: capture both; the fork adds one memory, not two.
    const w = makeWorld();
    try {
      const write = (name: string, body: string) => {
        const p = join(w.dir, `${name}.jsonl`);
        writeFileSync(p, body);
        return p;
      };
      const a = runCli(['-c', w.config, 'session-end', '--foreground', '--json', '--transcript', write('s-orig', text(original)), '--cwd', '/home/u/app']);
      assert.equal(a.code, 0, a.stderr);
      assert.equal((JSON.parse(a.stdout) as { added: number }).added, 1);
      const b = runCli(['-c', w.config, 'session-end', '--foreground', '--json', '--transcript', write('s-fork', text(fork)), '--cwd', '/home/u/app']);
      assert.equal(b.code, 0, b.stderr);
      const out = JSON.parse(b.stdout) as { added: number; unchanged: number };
      assert.equal(out.added, 1, 'only the new turn');
      assert.equal(out.unchanged, 1, 'the copied turn is the original memory');
    } finally {
      w.cleanup();
    }
  });
});

describe('Claude Code 2.1.332: a current, working setup shows no drift', () => {
  it('its harness entries and attachments are known shapes: nothing counted, the requests captured', () => {
    const t = transcript('s-332');
    const v = { sessionId: t.session, version: '2.1.332' };
    raw(t, { type: 'atis-latch', atis: '', sessionId: t.session });
    raw(t, { type: 'mode', mode: 'normal', sessionId: t.session });
    for (const a of ['environment', 'model', 'agent_listing_delta', 'session_context', 'date', 'remote_session_change', 'prompt_snapshot']) {
      raw(t, { type: 'attachment', uuid: `att-${a}`, timestamp: T0, ...v, attachment: { type: a } });
    }
    raw(t, { type: 'api-request-shape', shapeHash: 'h1', timestamp: T0, ...v, shape: { system: [] } });
    // The request Claude Code records of its own call: the reminders it sent as a "user" message, never a prompt.
    raw(t, { type: 'api-request-blob', hash: 'b1', ...v, message: { role: 'user', content: [{ type: 'text', text: '<system-reminder>context</system-reminder>' }] } });
    raw(t, { type: 'api-request', id: 'r1', timestamp: T0, ...v, querySource: 'sdk', params: {} });
    user(t, 'Why does the checkout page time out when the quote service is slow?', { version: '2.1.332' });
    assistant(t, [{ text: 'The page waits on the quote call without a deadline; a 2 s timeout fixes it.' }], { version: '2.1.332' });
    raw(t, { type: 'cost-state', totalCostUSD: 0.001, ...v });
    const parsed = parseTranscript(text(t));
    assert.deepEqual(parsed.turns.map((x) => x.question), ['Why does the checkout page time out when the quote service is slow?']);
    assert.equal(parsed.unknownShapes, undefined, JSON.stringify(parsed.unknownShapes));
  });
});

describe('format drift made visible', () => {
  it('an unknown entry type and subtype are counted per agent and version, nothing is lost, and status and session-end say so', () => {
    const t = transcript('s-drift');
    raw(t, { type: 'hologram', uuid: 'h1', sessionId: t.session, version: '2.1.150' });
    raw(t, { type: 'hologram', uuid: 'h2', sessionId: t.session, version: '2.1.150' });
    raw(t, { type: 'attachment', uuid: 'x1', sessionId: t.session, version: '2.1.150', attachment: { type: 'xyz' } });
    user(t, 'Which retry policy did we pick for the webhook sender?', { version: '2.1.150' });
    assistant(t, [{ text: 'Exponential backoff from 1 s, capped at 10 minutes, eight attempts.' }], { version: '2.1.150' });
    const parsed = parseTranscript(text(t));
    assert.equal(parsed.turns.length, 1, 'nothing lost');
    assert.deepEqual(parsed.unknownShapes, { hologram: 2, 'attachment/xyz': 1 });
    assert.equal(parsed.agentVersion, '2.1.150');

    const w = makeWorld();
    try {
      const p = join(w.dir, 's-drift.jsonl');
      writeFileSync(p, text(t));
      for (let i = 0; i < 2; i++) {
        // Captured twice (as every Stop re-reads a transcript): counted once.
        const r = runCli(['-c', w.config, 'session-end', '--foreground', '--transcript', p, '--cwd', '/home/u/app']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /transcript shapes not recognised: hologram ×2 \(Claude Code 2\.1\.150\), attachment\/xyz ×1 \(Claude Code 2\.1\.150\)/);
        assert.equal(r.stderr.split('not recognised').length - 1, 1, 'said once per command');
      }
      const imported = runCli(['-c', w.config, 'import', '--project-dir', w.dir]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal(imported.stderr.split('not recognised').length - 1, 1, `import says it once: ${imported.stderr}`);
      const st = runCli(['-c', w.config, 'status']);
      assert.match(st.stdout, /formats +transcript shapes not recognised: hologram ×2 \(Claude Code 2\.1\.150\), attachment\/xyz ×1 \(Claude Code 2\.1\.150\)/);
      const json = JSON.parse(runCli(['-c', w.config, 'status', '--json']).stdout) as { records: number; unknown_transcript_shapes: string };
      assert.equal(json.records, 1);
      assert.match(json.unknown_transcript_shapes, /hologram ×2/);
    } finally {
      w.cleanup();
    }
  });

  it('Codex: an unknown record or event is counted with the CLI version; the known new ones are not', () => {
    const r = desktopRollout('thr-drift');
    desktopTurn(r, 'Add a health check endpoint to the worker service', 'Added GET /healthz returning the queue depth and uptime.');
    record(r, 'event_msg', { type: 'entered_review_mode', target: 'diff' });
    record(r, 'event_msg', { type: 'guardian_assessment', verdict: 'ok' });
    record(r, 'event_msg', { type: 'thread_goal_updated', goal: 'x' });
    record(r, 'event_msg', { type: 'collab_agent_spawn_end', agent: 'a' });
    record(r, 'response_item', { type: 'image_generation_call', id: 'img' });
    record(r, 'compacted', { message: 'summary' });
    record(r, 'event_msg', { type: 'teleport_started' });
    record(r, 'mystery', {});
    const parsed = parseAnyTranscript(rolloutText(r), DEFAULT_LIMITS, (s) => s);
    assert.equal(parsed.source, 'codex', 'told apart although world_state comes first');
    assert.deepEqual(parsed.unknownShapes, { 'event_msg/teleport_started': 1, mystery: 1 });
    assert.equal(parsed.agentVersion, '0.152.0');
    assert.equal(parsed.turns.length, 1);
  });
});

describe('Codex desktop app and newer CLI rollouts (no event_msg user_message)', () => {
  it('prompts come from UserMessage items, without the injected context or the desktop preamble; answers from AgentMessage; ids from turn_id', () => {
    const r = desktopRollout('thr-desk');
    const t1 = desktopTurn(r, 'Why is the websocket reconnect loop spinning?', 'The backoff resets on every failed attempt; it now doubles up to 30 s.', { commentary: 'Looking at the reconnect code first.' });
    const t2 = desktopTurn(r, 'Add a test for the reconnect backoff', 'Added a fake-timer test that checks 1, 2, 4 … 30 s.');
    const parsed = parseCodexRollout(rolloutText(r));
    assert.equal(parsed.sessionId, 'thr-desk', 'session_meta.session_id');
    assert.deepEqual(parsed.turns.map((x) => x.question), ['Why is the websocket reconnect loop spinning?', 'Add a test for the reconnect backoff']);
    assert.deepEqual(parsed.turns.map((x) => x.answer), ['The backoff resets on every failed attempt; it now doubles up to 30 s.', 'Added a fake-timer test that checks 1, 2, 4 … 30 s.']);
    assert.deepEqual(parsed.turns.map((x) => x.promptUuid), [t1, t2]);
    assert.equal(parsed.unknownShapes, undefined, JSON.stringify(parsed.unknownShapes));
  });

  it('a shell command as a CommandExecution item (Codex 0.17x): the file Codex read it as naming, and the command with its folder (a file: URL) for capture to look at', () => {
    const r = desktopRollout('thr-cmd', '/home/u/shop');
    desktopTurn(r, 'Why does the cart total round wrong for JPY?', 'JPY has no minor unit.', { command: { cmd: 'sed -n 1,80p src/money.ts', read: 'src/money.ts' } });
    desktopTurn(r, 'Move the money helpers under lib, please.', 'Moved: lib/money.ts.', { command: { cmd: 'mkdir -p lib && git mv src/money.ts lib/money.ts' } });
    const turns = parseCodexRollout(rolloutText(r)).turns;
    assert.deepEqual(turns.map((t) => t.files), [['src/money.ts'], []], 'Codex\'s reading: a read names its file, a move nothing');
    assert.deepEqual(turns.map((t) => t.commands), [
      [{ command: ['/bin/bash', '-lc', 'sed -n 1,80p src/money.ts'], cwd: '/home/u/shop' }],
      [{ command: ['/bin/bash', '-lc', 'mkdir -p lib && git mv src/money.ts lib/money.ts'], cwd: '/home/u/shop' }],
    ]);
  });

  it('without a turn_id, the id is the rollout\'s own ordinal of the prompt, stable when the rollout grows', () => {
    const r = desktopRollout('thr-ord');
    desktopTurn(r, 'Rename the config loader to loadSettings', 'Renamed it and updated the eleven call sites.', { turnId: false });
    const first = parseCodexRollout(rolloutText(r)).turns[0]!.promptUuid;
    assert.match(first, /^thr-ord#\d+$/);
    desktopTurn(r, 'Now remove the old alias export', 'Removed the alias; nothing imported it any more.', { turnId: false });
    const again = parseCodexRollout(rolloutText(r)).turns;
    assert.equal(again[0]!.promptUuid, first);
    assert.notEqual(again[1]!.promptUuid, first);
  });

  it('the same conversation as a 0.12x CLI rollout and as a desktop rollout gives the same questions and answers', () => {
    const cli = rollout('thr-cli');
    turn(cli, 'Why is the websocket reconnect loop spinning?', () => {}, 'The backoff resets on every failed attempt; it now doubles up to 30 s.');
    const desk = desktopRollout('thr-desk2');
    desktopTurn(desk, 'Why is the websocket reconnect loop spinning?', 'The backoff resets on every failed attempt; it now doubles up to 30 s.');
    const qa = (x: string) => parseCodexRollout(x).turns.map((t) => [t.question, t.answer]);
    assert.deepEqual(qa(rolloutText(desk)), qa(rolloutText(cli)));
  });
});
