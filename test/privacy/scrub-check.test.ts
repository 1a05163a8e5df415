/**
 * Memories stored before today's redaction rules (captured by an earlier version or by another
 * machine still running one, or before a secret format was added): read once against today's
 * rules, and told to the person at session start, once a day, until they are scrubbed, here or
 * on another machine. Real git (a bare remote, machines as clones), the real CLI as the hooks
 * run it, and the real background check a session start starts.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { encodeEntry } from '../../src/export/jsonl.js';
import { conversation, CWD, git, gitWorld, placeTranscript, type GitWorld, type Machine } from '../support/gitworld.js';
import { rec } from '../support/helpers.js';

const START = JSON.stringify({ session_id: 's-scrub-check', cwd: CWD, hook_event_name: 'SessionStart' });
const pw = ['Kq7', 'Lm2', '!Zx9'].join(''); // assembled: no scanner hit on this file

function systemMessage(stdout: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as { systemMessage?: string }).systemMessage : undefined;
}

/** A session start as the hook runs it: what it tells the person. */
function told(m: Machine, env: NodeJS.ProcessEnv = {}): string | undefined {
  const r = m.cli(['session-start'], { input: START, env });
  assert.equal(r.code, 0, r.stderr);
  return systemMessage(r.stdout);
}

/** What is told once a day is told again the next day. */
const nextDay = (m: Machine) => rmSync(join(m.home, '.cache', 'told-today.json'), { force: true });

/** What an earlier version stored: written as it would have, committed and pushed. */
function storedEarlier(m: Machine, records: ReturnType<typeof rec>[]): void {
  writeFileSync(join(m.exportDir, `2026-11_${m.name}.jsonl`), records.map((r) => `${encodeEntry(r)}\n`).join(''));
  git(m.repo, 'add', '-A');
  git(m.repo, 'commit', '-q', '-m', `memory: ${m.name} captures (an earlier version)`);
  assert.equal(m.cli(['sync']).code, 0);
}

function leaky(m: Machine, id: string) {
  return rec({ id, machine: m.name, timestamp: '2026-11-02T10:00:00.000Z', question: `ステージングDBのパスワードは ${pw} です。接続を確認して`, answer: '接続できました。マイグレーションも通ります。' });
}

function checkState(m: Machine): { rules?: string; after: number; ids: string[]; more: number; running?: unknown } | undefined {
  const db = new Database(join(m.repo, '.cache', 'memory.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'scrub_check'").get();
    return row ? (JSON.parse(row.value) as { rules?: string; after: number; ids: string[]; more: number; running?: unknown }) : undefined;
  } finally {
    db.close();
  }
}

/** The check's state once the background reading is done (it is given 30 s). */
async function checked(m: Machine): Promise<ReturnType<typeof checkState>> {
  let state = checkState(m);
  for (let i = 0; i < 300 && state?.running; i++) {
    await new Promise((r) => setTimeout(r, 100));
    state = checkState(m);
  }
  return state;
}

let world: GitWorld;
before(() => (world = gitWorld()));
after(() => world.cleanup());

describe('memories stored under earlier redaction rules', () => {
  it('a password told in Japanese, pushed by an older version on another machine: told at session start, once a day, until scrubbed there', () => {
    const old = world.machine('old-laptop');
    const desk = world.machine('desk');
    assert.equal(told(old), undefined);
    assert.equal(told(desk), undefined, 'nothing stored: nothing to tell');
    storedEarlier(old, [leaky(old, 'leaky-ja'), rec({ id: 'clean-1', machine: old.name, timestamp: '2026-11-03T10:00:00.000Z', question: 'パスワードは bcrypt でハッシュ化する?', answer: 'はい、bcrypt のコストは 12 です。' })]);

    const msg = told(desk);
    assert.match(msg ?? '', /^memory: 1 memory in the memory repository holds what today's redaction rules remove \(secret\), stored before those rules \(by an earlier version, or before a secret format was added\) — `memory scrub` writes redacted versions/);
    assert.equal(told(desk), undefined, 'told once a day');
    const status = desk.cli(['status']);
    assert.match(status.stdout, /^unscrubbed {4}1 memory holds what today's redaction rules remove \(stored before them\): `memory scrub` writes redacted versions$/m);
    nextDay(desk);
    assert.match(told(desk) ?? '', /^memory: 1 memory in the memory repository holds/, 'the next day again: still there');

    // The person scrubs on the machine that captured it; the redacted version reaches this one.
    const scrub = old.cli(['scrub', '--json']);
    assert.equal(scrub.code, 0, scrub.stderr);
    assert.equal((JSON.parse(scrub.stdout) as { changed: number }).changed, 1);
    nextDay(desk);
    assert.equal(told(desk), undefined, 'scrubbed elsewhere, pulled here: nothing to tell');
    const shown = JSON.parse(desk.cli(['show', '--json', 'leaky-ja']).stdout) as { question: string };
    assert.equal(shown.question, 'ステージングDBのパスワードは [REDACTED:secret] です。接続を確認して');
    nextDay(old);
    assert.equal(told(old), undefined, 'nor on the machine that scrubbed');
    assert.equal((JSON.parse(desk.cli(['status', '--json']).stdout) as { unscrubbed: number | null }).unscrubbed, 0);
  });

  it('a memory pushed since by a machine still on an older version is read at the next session start; `scrub --dry-run` counts it, `scrub` ends it', () => {
    const stale = world.machine('stale');
    const here = world.machine('here');
    assert.equal(told(here), undefined);
    storedEarlier(stale, [leaky(stale, 'leaky-2')]);
    assert.match(told(here) ?? '', /^memory: 1 memory in the memory repository holds/);
    const dry = here.cli(['scrub', '--dry-run', '--json']);
    assert.equal((JSON.parse(dry.stdout) as { changed: number }).changed, 1);
    assert.equal(here.cli(['scrub']).code, 0);
    nextDay(here);
    assert.equal(told(here), undefined, 'scrubbed here: nothing to tell');
  });

  it('more memories than a session start reads: a check in the background reads them, and the next start tells what it found', async () => {
    const big = world.machine('big');
    assert.equal(told(big), undefined);
    const many = Array.from({ length: 260 }, (_, i) => rec({ id: `plain-${i}`, machine: big.name, timestamp: '2026-11-04T10:00:00.000Z', question: `How do we rotate the heron log file number ${i}?`, answer: 'With logrotate, weekly.' }));
    storedEarlier(big, [...many.slice(0, 130), leaky(big, 'leaky-big'), ...many.slice(130)]);
    // The start that found 261 new memories leaves them to the background.
    assert.equal(told(big), undefined);
    // Left to the background (the start itself told nothing): still running, or on a quick
    // machine already done there, with what it found.
    const started = checkState(big);
    assert.ok(started?.running !== undefined || started?.ids.includes('leaky-big') === true, JSON.stringify(started));
    let state = await checked(big);
    assert.equal(state?.running, undefined, 'the background check finished');
    assert.deepEqual([state?.ids, state?.more], [['leaky-big'], 0]);
    assert.match(told(big) ?? '', /^memory: 1 memory in the memory repository holds what today's redaction rules remove \(secret\)/);

    // Another version of the rules (an upgrade): every memory is read again, in the background.
    const db = new Database(join(big.repo, '.cache', 'memory.db'));
    db.prepare("UPDATE meta SET value = json_set(value, '$.rules', 'an-older-version') WHERE key = 'scrub_check'").run();
    db.close();
    assert.equal(told(big), undefined, 'told today already');
    const again = checkState(big);
    assert.ok(again?.running !== undefined ? again.after === 0 : again?.rules !== 'an-older-version' && again?.ids.includes('leaky-big') === true, JSON.stringify(again));
    state = await checked(big);
    assert.deepEqual([state?.ids, state?.more], [['leaky-big'], 0], 'the same found again');

    // A check killed before it finished (its process gone): the next start starts another.
    const db2 = new Database(join(big.repo, '.cache', 'memory.db'));
    db2.prepare("UPDATE meta SET value = json_set(value, '$.after', 0, '$.ids', json('[]'), '$.running', json(?)) WHERE key = 'scrub_check'").run(JSON.stringify({ pid: 2 ** 22 + 7, at: new Date().toISOString() }));
    db2.close();
    told(big);
    const restarted = checkState(big) as { running?: { pid?: number } };
    assert.ok(restarted.running?.pid !== 2 ** 22 + 7, JSON.stringify(restarted));
    state = await checked(big);
    assert.deepEqual([state?.ids, state?.more, state?.running], [['leaky-big'], 0, undefined]);
  });

  it('a secret format of one\'s own, added to config.toml: a memory from before that holds one is told; a turn captured after is stored redacted', () => {
    const own = gitWorld();
    try {
      const m = own.machine('own');
      assert.equal(told(m), undefined);
      const key = ['acme_live_', 'Q7fZk29Lm', 'Xp4Rt8Wn3Vb'].join(''); // assembled: no scanner hit on this file
      storedEarlier(m, [leaky(m, 'leaky-own'), rec({ id: 'acme-old', machine: m.name, timestamp: '2026-11-05T10:00:00.000Z', question: 'How do we deploy the billing worker?', answer: `With the deploy key ${key}, then check the queue.` })]);
      assert.match(told(m) ?? '', /^memory: 1 memory in the memory repository holds what today's redaction rules remove \(secret\)/, 'no public rule knows the format');
      appendFileSync(m.config, '[privacy]\nsecret_formats = ["acme_live_*"]\n');
      assert.match(told(m) ?? '', /^memory: 2 memories in the memory repository hold what today's redaction rules remove \(custom, secret\)/, 'more found: told the same day');
      assert.equal(told(m), undefined, 'the same count: once a day');
      const p = placeTranscript(m, conversation('acme-new', [['Which key does the billing worker use now?', `The rotated one: ${key}.`]], { startIso: '2026-12-01T10:00:00.000Z' }));
      assert.equal(m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]).code, 0);
      const stored = readFileSync(join(m.exportDir, readdirSync(m.exportDir).find((f) => f.startsWith('2026-12')) ?? ''), 'utf8');
      assert.match(stored, /The rotated one: \[REDACTED:custom\]\./);
      assert.ok(!stored.includes('Q7fZk29Lm'));
      assert.equal(m.cli(['scrub']).code, 0);
      nextDay(m);
      assert.equal(told(m), undefined, 'scrubbed: nothing to tell');
    } finally {
      own.cleanup();
    }
  });

  it('a secret format that would match ordinary words, or take long on one line, is refused with the reason', () => {
    const m = world.machine('formats');
    for (const [bad, why] of [['*', /spells out 0 character/], ['ab?', /spells out 2 character/], ['acme *', /holds a space/], ['acme_*_*', /more than one \*/]] as const) {
      writeFileSync(join(m.home, 'config.local.toml'), `[privacy]\nsecret_formats = [${JSON.stringify(bad)}]\n`);
      const r = m.cli(['status']);
      assert.equal(r.code, 1, bad);
      assert.match(r.stderr, /privacy\.secret_formats/);
      assert.match(r.stderr, why);
    }
  });

  it('with redaction turned off, nothing is read and nothing told', () => {
    const off = world.machine('off', { extra: '[privacy]\nredact = false\n' });
    storedEarlier(off, [leaky(off, 'leaky-off')]);
    assert.equal(told(off), undefined);
    assert.equal(checkState(off), undefined);
  });
});
