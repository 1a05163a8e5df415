/**
 * A file's earlier names (changes/renames.ts): the renames read out of real git history (names
 * with spaces and non-ASCII letters, chains, a history rewritten), the map brought up to a new
 * HEAD with only the commits since, and the time each name belonged to the file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLOCK_SLACK_MS, namesOf, parseRenameLog, readRenameMap, refreshRenameMap, renameMapHead, scanRenames, type Rename } from '../src/changes/renames.js';
import { git, initRepo, renamingHistory } from './git-fixture.js';
import { tempDir } from './helpers.js';

let root: string;
let cleanup: () => void;

/** A commit at a given time (seconds), author and committer alike. */
function commitAt(dir: string, seconds: number, message: string): string {
  const when = `@${seconds} +0000`;
  process.env.GIT_AUTHOR_DATE = when;
  process.env.GIT_COMMITTER_DATE = when;
  try {
    git(dir, 'commit', '-q', '-m', message);
  } finally {
    delete process.env.GIT_AUTHOR_DATE;
    delete process.env.GIT_COMMITTER_DATE;
  }
  return git(dir, 'rev-parse', 'HEAD');
}

function put(dir: string, path: string, body: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), body);
}

const BODY = (name: string) => `export function ${name}() {\n  // enough lines for git to see the same file under another name\n  return 42;\n}\n`;
const T = 1_790_000_000; // 2026-09

describe('renames: a file\'s earlier names', () => {
  before(() => ({ dir: root, cleanup } = tempDir('memory-renames-')));
  after(() => cleanup());

  it('reads the renames of real history, newest first, names with spaces and non-ASCII letters whole; the map grows by the commits since its HEAD and is read again whole when history was rewritten', () => {
    const dir = join(root, 'api');
    initRepo(dir, 't');
    put(dir, 'checkout.js', BODY('capture'));
    put(dir, 'src/a b.ts', BODY('spaced'));
    put(dir, 'src/other.ts', BODY('other'));
    git(dir, 'add', '-A');
    commitAt(dir, T, 'seed');
    git(dir, 'mv', 'checkout.js', 'src/checkout.ts');
    commitAt(dir, T + 100, 'to ts');
    put(dir, 'src/other.ts', `${BODY('other')}// edited, not renamed\n`);
    git(dir, 'mv', 'src/a b.ts', 'src/ü c.ts');
    git(dir, 'add', '-A');
    const h2 = commitAt(dir, T + 200, 'unicode');
    const scanned = scanRenames(dir, h2, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(scanned, {
      complete: true,
      renames: [
        { from: 'src/a b.ts', to: 'src/ü c.ts', atMs: (T + 200) * 1000 },
        { from: 'checkout.js', to: 'src/checkout.ts', atMs: (T + 100) * 1000 },
      ],
    });
    // Since a time: only what came after it.
    assert.deepEqual(scanRenames(dir, h2, { sinceMs: (T + 150) * 1000, timeoutMs: 10_000, maxCommits: 1000 })?.renames.map((r) => r.to), ['src/ü c.ts']);

    const home = join(root, 'home');
    mkdirSync(join(home, '.cache'), { recursive: true });
    const first = refreshRenameMap(home, dir, 'github.com/acme/api', h2, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.equal(first?.renames.length, 2);
    assert.equal(renameMapHead(home, 'github.com/acme/api'), h2);
    // One more commit: the map takes the renames since its HEAD, and keeps the others.
    mkdirSync(join(dir, 'src', 'pay'));
    git(dir, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    const h3 = commitAt(dir, T + 300, 'into pay');
    const grown = refreshRenameMap(home, dir, 'github.com/acme/api', h3, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(grown?.renames.map((r) => `${r.from} -> ${r.to}`), ['src/checkout.ts -> src/pay/checkout.ts', 'src/a b.ts -> src/ü c.ts', 'checkout.js -> src/checkout.ts']);
    assert.equal(readRenameMap(home, 'github.com/acme/api')?.head, h3);
    // History rewritten (the last commit replaced by another): read again whole, the rename that is gone is gone.
    git(dir, 'reset', '-q', '--hard', h2);
    git(dir, 'mv', 'src/checkout.ts', 'src/billing.ts');
    const h4 = commitAt(dir, T + 400, 'into billing instead');
    const rewritten = refreshRenameMap(home, dir, 'github.com/acme/api', h4, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(rewritten?.renames.map((r) => r.to), ['src/billing.ts', 'src/ü c.ts', 'src/checkout.ts']);
    assert.equal(rewritten?.complete, true);
    // A head git does not know: nothing written, the map as it was.
    assert.equal(refreshRenameMap(home, dir, 'github.com/acme/api', 'f'.repeat(40), { timeoutMs: 10_000, maxCommits: 1000 }), undefined);
    assert.equal(renameMapHead(home, 'github.com/acme/api'), h4);
  });

  it('a reading cut by its time limit, or stopped at its commit limit, keeps what it read, newest first, marked incomplete, and is not read again at that HEAD', async () => {
    const dir = join(root, 'big');
    await renamingHistory(dir, 20_000, 2000);
    const head = git(dir, 'rev-parse', 'HEAD');
    const whole = scanRenames(dir, head, { timeoutMs: 120_000, maxCommits: 50_000 });
    assert.deepEqual([whole?.complete, whole?.renames.length], [true, 499]);
    const home = join(root, 'home-cut');
    mkdirSync(join(home, '.cache'), { recursive: true });
    // 20 ms: git is stopped long before it reads 20,000 commits (about 0.3 s here).
    const cut = refreshRenameMap(home, dir, 'github.com/acme/big', head, { timeoutMs: 20, maxCommits: 50_000 });
    assert.equal(cut?.complete, false);
    assert.ok((cut?.renames.length ?? 0) < 499);
    assert.deepEqual(cut?.renames, whole?.renames.slice(0, cut?.renames.length), 'what it kept is the newest of the whole reading');
    assert.equal(renameMapHead(home, 'github.com/acme/big'), head);
    assert.equal(refreshRenameMap(home, dir, 'github.com/acme/big', head, { timeoutMs: 120_000, maxCommits: 50_000 })?.complete, false, 'kept as it is at that HEAD');
    // The commit limit: the newest 100 renaming commits, and said to be a part.
    const some = scanRenames(dir, head, { timeoutMs: 120_000, maxCommits: 100 });
    assert.deepEqual([some?.complete, some?.renames], [false, whole?.renames.slice(0, 100)]);
  });

  it('a log cut off mid-commit keeps the whole commits before the cut', () => {
    const whole = '\u00011790000300\0\nR100\0src/checkout.ts\0src/pay/checkout.ts\0\u00011790000100\0\nR097\0checkout.js\0src/checkout.ts\0';
    assert.equal(parseRenameLog(whole).length, 2);
    assert.deepEqual(parseRenameLog(whole.slice(0, whole.indexOf('checkout.js') + 4)).map((r) => r.to), ['src/pay/checkout.ts']);
    assert.deepEqual(parseRenameLog(''), []);
  });

  it('the names of a file and when it held each: followed back through a chain; a file made later under an old name, or one that had it before, is another file', () => {
    const ms = (s: number) => s * 1000;
    // Newest first, as the map keeps them.
    const renames: Rename[] = [
      { from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: ms(300) },
      { from: 'checkout.js', to: 'src/checkout.ts', atMs: ms(100) },
      { from: 'legacy/checkout.js', to: 'checkout.js', atMs: ms(50) },
      { from: 'checkout.js', to: 'old/checkout.js', atMs: ms(20) },
    ];
    // Each edge an hour after its commit: a memory dated by a clock ahead of the committer's still counts.
    const edge = (s: number) => ms(s) + CLOCK_SLACK_MS;
    assert.equal(CLOCK_SLACK_MS, 3_600_000);
    assert.deepEqual(namesOf(renames, 'src/pay/checkout.ts'), [
      { path: 'src/pay/checkout.ts' },
      { path: 'src/checkout.ts', beforeMs: edge(300) },
      // checkout.js held this file from 20 s (another file left that name then) until 100 s.
      { path: 'checkout.js', beforeMs: edge(100), afterMs: edge(20) },
      { path: 'legacy/checkout.js', beforeMs: edge(50) },
    ]);
    // src/checkout.ts made again after the rename: its memories from then on, none of the old file's.
    assert.deepEqual(namesOf(renames, 'src/checkout.ts'), [{ path: 'src/checkout.ts', afterMs: edge(300) }]);
    // A file no rename touched; no map at all.
    assert.deepEqual(namesOf(renames, 'src/cart.ts'), [{ path: 'src/cart.ts' }]);
    assert.deepEqual(namesOf(undefined, 'src/cart.ts'), [{ path: 'src/cart.ts' }]);
    // A file renamed away and back: each name once.
    const back: Rename[] = [
      { from: 'b.ts', to: 'a.ts', atMs: ms(20) },
      { from: 'a.ts', to: 'b.ts', atMs: ms(10) },
    ];
    assert.deepEqual(namesOf(back, 'a.ts').map((n) => n.path), ['a.ts', 'b.ts']);
  });
});
