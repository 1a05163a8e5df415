import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { appendEntries } from '../../src/export/files.js';
import { encodeEntry } from '../../src/export/jsonl.js';
import { readAllEntries, readEntries } from '../../src/export/read.js';
import type { MemoryRecord } from '../../src/types.js';
import { rec, tempDir } from '../support/helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const good = (id: string) => encodeEntry(rec({ id, question: `question ${id}`, answer: `answer ${id}` }));

describe('JSONL reader', () => {
  it('skips and counts every kind of bad line, keeping every good one', () => {
    const file = join(dir, '2026-11_laptop.jsonl');
    const lines = [
      good('a'),
      'this is not json',
      '{"v":1,"id":"b","machine":"laptop"}', // wrong types: no timestamp/question/answer
      '[1,2,3]',
      '',
      '   ',
      good('c'),
      JSON.stringify({ v: 1, id: 'big', machine: 'laptop', timestamp: '2026-11-01T00:00:00Z', question: 'q'.repeat(20), answer: 'x'.repeat(5000) }),
      '{"v":7,"id":"future","machine":"laptop"}',
      good('d'),
    ];
    writeFileSync(file, `${lines.join('\n')}\n{"v":1,"id":"torn","mach`);
    const { entries, result } = readAllEntries(file, 4096);
    assert.deepEqual(entries.map((e) => e.id), ['a', 'c', 'd']);
    assert.deepEqual(result.skipped.map((s) => s.reason), ['invalid-json', 'invalid-record', 'invalid-record', 'oversize', 'unknown-version', 'torn-tail']);
    assert.equal(result.lines, 9);
    assert.equal(result.tornTail, true);
    assert.equal(result.endOffset, Buffer.byteLength(`${lines.join('\n')}\n`), 'the torn tail is not consumed');
    assert.deepEqual(result.skipped.map((s) => s.line), [2, 3, 4, 6, 7, 9]);
  });

  it('reads a complete record that merely lacks its final newline, without consuming it', () => {
    const file = join(dir, 'x.jsonl');
    writeFileSync(file, `${good('a')}\n${good('b')}`);
    const { entries, result } = readAllEntries(file);
    assert.deepEqual(entries.map((e) => e.id), ['a', 'b']);
    assert.equal(result.tornTail, true);
    assert.equal(result.skipped.length, 0);
    assert.equal(result.endOffset, Buffer.byteLength(`${good('a')}\n`));
  });

  it('keeps a line with invalid UTF-8 bytes (replacement characters) and counts it', () => {
    const file = join(dir, 'x.jsonl');
    const bad = Buffer.from(`${good('a').replace('question a', 'question ZZ')}\n`);
    const at = bad.indexOf('ZZ');
    bad[at] = 0xff;
    bad[at + 1] = 0xfe;
    writeFileSync(file, Buffer.concat([bad, Buffer.from(`${good('b')}\n`)]));
    const { entries, result } = readAllEntries(file);
    assert.deepEqual(entries.map((e) => e.id), ['a', 'b']);
    assert.equal(result.repairedUtf8, 1);
    assert.ok((entries[0] as MemoryRecord).question.includes('\uFFFD'));
  });

  it('tolerates CRLF line endings', () => {
    const file = join(dir, 'x.jsonl');
    writeFileSync(file, `${good('a')}\r\n${good('b')}\r\n`);
    assert.deepEqual(readAllEntries(file).entries.map((e) => e.id), ['a', 'b']);
  });

  it('resumes from an offset and reads only what was appended', () => {
    const file = join(dir, 'x.jsonl');
    writeFileSync(file, `${good('a')}\n${good('b')}\n`);
    const first = readAllEntries(file).result;
    appendFileSync(file, `${good('c')}\n`);
    const seen: string[] = [];
    const second = readEntries(file, { fromOffset: first.endOffset, onEntry: (e) => seen.push(e.id) });
    assert.deepEqual(seen, ['c']);
    assert.equal(second.endOffset, readFileSync(file).length);
  });

  it('survives a line far over the cap spread across many chunks', () => {
    const file = join(dir, 'x.jsonl');
    writeFileSync(file, `${good('a')}\n{"v":1,"id":"huge","pad":"${'z'.repeat(3 * 1024 * 1024)}"}\n${good('b')}\n`);
    const { entries, result } = readAllEntries(file, 1024 * 1024);
    assert.deepEqual(entries.map((e) => e.id), ['a', 'b']);
    assert.deepEqual(result.skipped.map((s) => s.reason), ['oversize']);
  });
});

describe('appending', () => {
  it('cuts a torn final line off into the month\'s rejects file before appending: no garbage line is ever written into the month file', () => {
    const name = '2026-11_laptop.jsonl';
    const file = join(dir, name);
    writeFileSync(file, `${good('a')}\n{"v":1,"id":"torn","que`);
    appendEntries(dir, name, [rec({ id: 'b', question: 'question b', answer: 'answer b' })]);
    const { entries, result } = readAllEntries(file);
    assert.deepEqual(entries.map((e) => e.id), ['a', 'b']);
    assert.deepEqual(result.skipped, [], 'every line of the month file is a whole record');
    assert.equal(readFileSync(file, 'utf8'), `${good('a')}\n${encodeEntry(rec({ id: 'b', question: 'question b', answer: 'answer b' }))}\n`);
    assert.equal(readFileSync(join(dir, 'archive', '2026-11.rejects.jsonl'), 'utf8'), '{"v":1,"id":"torn","que\n', 'kept verbatim, never deleted');
  });

  it('completes a whole record that lacked its newline instead of corrupting it', () => {
    const name = 'x.jsonl';
    writeFileSync(join(dir, name), good('a'));
    appendEntries(dir, name, [rec({ id: 'b', question: 'question b', answer: 'answer b' })]);
    assert.deepEqual(readAllEntries(join(dir, name)).entries.map((e) => e.id), ['a', 'b']);
  });
});
