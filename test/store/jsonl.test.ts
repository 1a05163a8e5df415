import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeLine, encodeEmbedding, MAX_CLOCK_SKEW_MS, encodeEntry, liveRecords, monthFileName, monthOf, orderTime, parseMonthFileName, resolveEntries,
} from '../../src/export/jsonl.js';
import { isTombstone, type MemoryRecord } from '../../src/types.js';

const base = { v: 1, id: 'x1', machine: 'laptop', timestamp: '2026-03-25T14:32:11.000Z', question: 'How do we fix it?', answer: 'Like this.' };

describe('JSONL codec', () => {
  it('round-trips a record with a base64 float32 embedding, losslessly', () => {
    const emb = Float32Array.from([0.1, -0.25, 1 / 3, 1e-7]);
    const r: MemoryRecord = { ...base, v: 1, project: 'main', updated_at: '2026-03-25T14:40:02.120Z', files: ['src/db.ts'], model: 'm', embedding: emb };
    const line = encodeEntry(r);
    const d = decodeLine(line);
    assert.ok(d.ok);
    const back = d.entry as MemoryRecord;
    assert.deepEqual(Array.from(back.embedding ?? []), Array.from(emb));
    assert.equal(back.dim, 4);
    assert.equal(encodeEntry(back), line, 'encode(decode(line)) is byte-identical');
    assert.equal(JSON.parse(line).embedding, encodeEmbedding(emb));
  });

  it('accepts the seed format: embedding as a JSON number array', () => {
    const d = decodeLine(JSON.stringify({ ...base, embedding: [0.5, 0.25, -1] }));
    assert.ok(d.ok);
    assert.deepEqual(Array.from((d.entry as MemoryRecord).embedding ?? []), [0.5, 0.25, -1]);
  });

  it('keeps a record without embedding as pending, and a damaged vector costs only the vector', () => {
    const pending = decodeLine(JSON.stringify(base));
    assert.ok(pending.ok && !(pending.entry as MemoryRecord).embedding);
    const damaged = decodeLine(JSON.stringify({ ...base, embedding: 'abc', dim: 384 }));
    assert.ok(damaged.ok);
    assert.equal((damaged.entry as MemoryRecord).embedding, undefined);
    assert.equal((damaged.entry as MemoryRecord).question, base.question);
  });

  it('keeps unknown fields and writes fields in a fixed order', () => {
    const d = decodeLine(JSON.stringify({ zeta: 1, ...base, custom: { a: 1 } }));
    assert.ok(d.ok);
    const line = encodeEntry(d.entry);
    assert.deepEqual(Object.keys(JSON.parse(line)), ['v', 'id', 'machine', 'timestamp', 'question', 'answer', 'zeta', 'custom']);
  });

  for (const [name, patch] of [
    ['missing id', { id: undefined }],
    ['empty id', { id: '' }],
    ['numeric question', { question: 42 }],
    ['missing answer', { answer: undefined }],
    ['bad timestamp', { timestamp: 'yesterday' }],
    ['missing machine', { machine: undefined }],
    ['files not strings', { files: [1] }],
    ['project not a string', { project: 7 }],
    ['v = 0', { v: 0 }],
  ] as const) {
    it(`rejects ${name} as invalid-record`, () => {
      const d = decodeLine(JSON.stringify({ ...base, ...patch }));
      assert.equal(d.ok, false);
      if (!d.ok) assert.equal(d.reason, 'invalid-record');
    });
  }

  it('reports a newer format version distinctly', () => {
    const d = decodeLine(JSON.stringify({ ...base, v: 2 }));
    assert.ok(!d.ok && d.reason === 'unknown-version');
  });

  it('rejects non-objects and invalid JSON', () => {
    for (const line of ['[1,2]', '"text"', 'null', '42']) {
      const d = decodeLine(line);
      assert.ok(!d.ok && d.reason === 'invalid-record', line);
    }
    const d = decodeLine('{"v":1,');
    assert.ok(!d.ok && d.reason === 'invalid-json');
  });

  it('keeps a time in the future (a clock that ran ahead) as a memory; a year no clock writes is not a time', () => {
    const base = { v: 1, id: 'f', machine: 'm', question: 'q', answer: 'a' };
    const ahead = decodeLine(JSON.stringify({ ...base, timestamp: '2027-11-29T05:00:00.000Z' }));
    assert.ok(ahead.ok && !isTombstone(ahead.entry) && ahead.entry.timestamp === '2027-11-29T05:00:00.000Z', 'a year ahead is still a memory');
    const tomb = decodeLine(JSON.stringify({ v: 1, id: 'f', machine: 'm', deleted: true, updated_at: '2027-12-01T00:00:00.000Z' }));
    assert.ok(tomb.ok && isTombstone(tomb.entry), 'and so is its tombstone');
    const far = decodeLine(JSON.stringify({ ...base, timestamp: '+275760-09-13T00:00:00.000Z' }));
    assert.equal(!far.ok && far.reason, 'invalid-record');
    const upd = decodeLine(JSON.stringify({ ...base, timestamp: '2026-11-01T00:00:00.000Z', updated_at: '+010000-01-01T00:00:00.000Z' }));
    assert.equal(!upd.ok && upd.reason, 'invalid-record');
  });

  it('orders a time beyond the skew bound as of when it was read; a time within it as written', () => {
    const now = Date.parse('2026-11-29T00:00:00.000Z');
    assert.equal(orderTime('2027-11-29T00:00:00.000Z', now), now);
    assert.equal(orderTime('2026-11-29T05:00:00.000Z', now), Date.parse('2026-11-29T05:00:00.000Z'), 'a few hours of skew are fine');
    assert.equal(orderTime('2026-10-01T00:00:00.000Z', now), Date.parse('2026-10-01T00:00:00.000Z'));
    assert.ok(now + MAX_CLOCK_SKEW_MS > Date.parse('2026-11-29T05:00:00.000Z'));
  });

  it('decodes tombstones', () => {
    const d = decodeLine('{"v":1,"id":"x1","deleted":true,"updated_at":"2026-04-01T00:00:00Z","machine":"desk"}');
    assert.ok(d.ok && isTombstone(d.entry));
    const bad = decodeLine('{"v":1,"id":"x1","deleted":true,"machine":"desk"}');
    assert.equal(bad.ok, false);
  });

  it('names month files by UTC month', () => {
    assert.equal(monthOf('2026-03-31T23:30:00-02:00'), '2026-04');
    assert.equal(monthFileName('2026-04', 'laptop'), '2026-04_laptop.jsonl');
    assert.deepEqual(parseMonthFileName('2026-04_lap.top-1.jsonl'), { month: '2026-04', machine: 'lap.top-1' });
    assert.equal(parseMonthFileName('notes.jsonl'), undefined);
  });
});

describe('last-write-wins and tombstones', () => {
  const v = (machine: string, updated_at: string, answer: string): MemoryRecord => ({ ...base, v: 1, machine, updated_at, answer });

  it('greatest updated_at wins regardless of order', () => {
    const a = v('laptop', '2026-03-25T15:00:00Z', 'new');
    const b = v('laptop', '2026-03-25T14:00:00Z', 'old');
    assert.equal((resolveEntries([a, b]).get('x1') as MemoryRecord).answer, 'new');
    assert.equal((resolveEntries([b, a]).get('x1') as MemoryRecord).answer, 'new');
  });

  it('tie on updated_at: greater machine wins, then the later line', () => {
    const t = '2026-03-25T15:00:00Z';
    assert.equal((resolveEntries([v('server', t, 's'), v('desktop', t, 'd')]).get('x1') as MemoryRecord).answer, 's');
    assert.equal((resolveEntries([v('desktop', t, 'd'), v('server', t, 's')]).get('x1') as MemoryRecord).answer, 's');
    assert.equal((resolveEntries([v('desktop', t, 'first'), v('desktop', t, 'second')]).get('x1') as MemoryRecord).answer, 'second');
  });

  it('a newer tombstone removes the memory; an older one does not', () => {
    const live = v('laptop', '2026-03-25T15:00:00Z', 'kept');
    const newer = { v: 1 as const, id: 'x1', deleted: true as const, machine: 'desk', updated_at: '2026-03-26T00:00:00Z' };
    const older = { ...newer, updated_at: '2026-03-24T00:00:00Z' };
    assert.equal(liveRecords([live, newer]).length, 0);
    assert.equal(liveRecords([newer, live]).length, 0, 'an older copy read later cannot bring it back');
    assert.equal(liveRecords([live, older]).length, 1);
  });
});
