/**
 * A file's earlier names (changes/renames.ts): the renames read out of real git history (names
 * with spaces and non-ASCII letters, chains, a history rewritten), the map brought up to a new
 * HEAD with only the commits since, and the time each name belonged to the file.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLOCK_SLACK_MS, folderNamesOf, movesPath, namesIn, namesOf, noteStagedRenames, parseRenameLog, readMoves, readRenameMap, recordMoves, refreshRenameMap, renameMapHead, renameMapPath, renamesOf, scanRenames, type Rename } from '../../src/changes/renames.js';
import { contentLines, pairBySimilarity, similarity, unstagedMoves } from '../../src/changes/tree-moves.js';
import { recordedAs } from '../../src/search/search.js';
import { workInProgress } from '../../src/project/work-tree.js';
import { git, initRepo, renamingHistory } from '../support/git-fixture.js';
import { tempDir } from '../support/helpers.js';

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
    assert.equal(renameMapHead(home, 'github.com/acme/api', dir), h2);
    // One more commit: the map takes the renames since its HEAD, and keeps the others.
    mkdirSync(join(dir, 'src', 'pay'));
    git(dir, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    const h3 = commitAt(dir, T + 300, 'into pay');
    const grown = refreshRenameMap(home, dir, 'github.com/acme/api', h3, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(grown?.renames.map((r) => `${r.from} -> ${r.to}`), ['src/checkout.ts -> src/pay/checkout.ts', 'src/a b.ts -> src/ü c.ts', 'checkout.js -> src/checkout.ts']);
    assert.equal(readRenameMap(home, 'github.com/acme/api', dir)?.head, h3);
    // History rewritten (the last commit replaced by another): read again whole, the rename that is gone is gone.
    git(dir, 'reset', '-q', '--hard', h2);
    git(dir, 'mv', 'src/checkout.ts', 'src/billing.ts');
    const h4 = commitAt(dir, T + 400, 'into billing instead');
    const rewritten = refreshRenameMap(home, dir, 'github.com/acme/api', h4, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(rewritten?.renames.map((r) => r.to), ['src/billing.ts', 'src/ü c.ts', 'src/checkout.ts']);
    assert.equal(rewritten?.complete, true);
    // A head git does not know: nothing written, the map as it was.
    assert.equal(refreshRenameMap(home, dir, 'github.com/acme/api', 'f'.repeat(40), { timeoutMs: 10_000, maxCommits: 1000 }), undefined);
    assert.equal(renameMapHead(home, 'github.com/acme/api', dir), h4);
    // A worktree on a branch that left before: its own map, its own branch's renames; the first checkout's stays as it was.
    const side = join(root, 'api-side');
    git(dir, 'worktree', 'add', '-q', '-b', 'side', side, h2);
    git(side, 'mv', 'src/checkout.ts', 'src/side.ts');
    const h5 = commitAt(side, T + 500, 'to the side');
    assert.deepEqual(refreshRenameMap(home, side, 'github.com/acme/api', h5, { timeoutMs: 10_000, maxCommits: 1000 })?.renames.map((r) => r.to), ['src/side.ts', 'src/ü c.ts', 'src/checkout.ts']);
    assert.equal(renameMapHead(home, 'github.com/acme/api', side), h5);
    assert.equal(renameMapHead(home, 'github.com/acme/api', dir), h4, 'the other checkout\'s map untouched');
    const now = (T + 600) * 1000;
    assert.deepEqual(namesIn(home, 'github.com/acme/api', 'src/billing.ts', now, dir).map((n) => n.path), ['src/billing.ts', 'src/checkout.ts', 'checkout.js']);
    assert.deepEqual(namesIn(home, 'github.com/acme/api', 'src/billing.ts', now, side).map((n) => n.path), ['src/billing.ts'], 'no rename into it on this branch');
    assert.equal(readRenameMap(home, 'github.com/acme/api')?.head, h5, 'a reader naming no checkout: the map written last');
    // Nothing new at its HEAD: not read again.
    assert.equal(refreshRenameMap(home, side, 'github.com/acme/api', h5, { timeoutMs: 10_000, maxCommits: 1000 })?.head, h5);
    // The worktree removed: the next map written in the repository takes its map away, and the one
    // map from before maps were a checkout's; a map naming no checkout, and another repository's, stay.
    const mapOf = (repo: string, top?: string) => renameMapPath(home, repo, top);
    writeFileSync(mapOf('github.com/acme/api'), `${JSON.stringify({ v: 1, repo: 'github.com/acme/api', head: h2, renames: [], complete: true })}\n`);
    const unnamed = mapOf('github.com/acme/api', join(root, 'api-unnamed'));
    writeFileSync(unnamed, `${JSON.stringify({ v: 1, repo: 'github.com/acme/api', head: h2, renames: [], complete: true })}\n`);
    const gateway = mapOf('github.com/acme/api-gateway', join(root, 'gone-gateway'));
    writeFileSync(gateway, `${JSON.stringify({ v: 1, repo: 'github.com/acme/api-gateway', head: h2, renames: [], complete: true, top: join(root, 'gone-gateway') })}\n`);
    assert.equal(readRenameMap(home, 'github.com/acme/api', side)?.top, side, 'a map names its checkout');
    git(dir, 'worktree', 'remove', '--force', side);
    assert.equal(existsSync(mapOf('github.com/acme/api', side)), true, 'nothing is taken away while no map is written');
    git(dir, 'mv', 'src/billing.ts', 'src/invoice.ts');
    const h6 = commitAt(dir, T + 700, 'billing is invoices');
    assert.deepEqual(refreshRenameMap(home, dir, 'github.com/acme/api', h6, { timeoutMs: 10_000, maxCommits: 1000 })?.renames.map((r) => r.to), ['src/invoice.ts', 'src/billing.ts', 'src/ü c.ts', 'src/checkout.ts']);
    assert.deepEqual([existsSync(mapOf('github.com/acme/api', side)), existsSync(`${mapOf('github.com/acme/api', side)}.head`)], [false, false], 'the removed worktree\'s map and its HEAD');
    assert.equal(existsSync(mapOf('github.com/acme/api')), false, 'the single map of before');
    assert.deepEqual([existsSync(mapOf('github.com/acme/api', dir)), existsSync(unnamed), existsSync(gateway)], [true, true, true]);
    assert.equal(renameMapHead(home, 'github.com/acme/api', dir), h6);
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
    assert.equal(renameMapHead(home, 'github.com/acme/big', dir), head);
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
    // A file renamed away and back: one file all along, its own name for all its time (no other file ever had it), b.ts between.
    const back: Rename[] = [
      { from: 'b.ts', to: 'a.ts', atMs: ms(20) },
      { from: 'a.ts', to: 'b.ts', atMs: ms(10) },
    ];
    assert.deepEqual(namesOf(back, 'a.ts'), [{ path: 'a.ts' }, { path: 'b.ts', beforeMs: edge(20) }]);
    // What is at b.ts now came later: a file of its own.
    assert.deepEqual(namesOf(back, 'b.ts'), [{ path: 'b.ts', afterMs: edge(20) }]);
    // Away and back twice, another file at a.ts before all of it: each stretch of a.ts that was this file's, and no earlier.
    const twice: Rename[] = [
      { from: 'b.ts', to: 'a.ts', atMs: ms(40) },
      { from: 'a.ts', to: 'b.ts', atMs: ms(30) },
      { from: 'b.ts', to: 'a.ts', atMs: ms(20) },
      { from: 'a.ts', to: 'b.ts', atMs: ms(10) },
      { from: 'a.ts', to: 'old/a.ts', atMs: ms(5) },
    ];
    assert.deepEqual(namesOf(twice, 'a.ts'), [{ path: 'a.ts', afterMs: edge(5) }, { path: 'b.ts', beforeMs: edge(40) }]);
  });

  it('a folder\'s earlier names: its own when moved whole, a folder moved into it, each file renamed into it from outside with the names it had; renames inside it add nothing; a hit under an earlier name says which', () => {
    const t = (h: number) => Date.parse('2026-11-01T00:00:00Z') + h * 3_600_000;
    const renames: Rename[] = [
      { from: 'vendor/money/', to: 'src/billing/money/', atMs: t(5) },
      { from: 'src/billing/a.ts', to: 'src/billing/b.ts', atMs: t(4) },
      { from: 'src/pay/', to: 'src/billing/', atMs: t(3) },
      { from: 'lib/tax.ts', to: 'src/pay/tax.ts', atMs: t(2) },
      { from: 'x.ts', to: 'y.ts', atMs: t(2) - 1 },
      { from: 'old/tax.js', to: 'lib/tax.ts', atMs: t(1) },
    ];
    assert.deepEqual(folderNamesOf(renames, 'src/billing/'), [
      { path: 'vendor/money/', folder: true, beforeMs: t(5) + CLOCK_SLACK_MS },
      { path: 'src/pay/', folder: true, beforeMs: t(3) + CLOCK_SLACK_MS },
      { path: 'lib/tax.ts', beforeMs: t(2) + CLOCK_SLACK_MS },
      { path: 'old/tax.js', beforeMs: t(1) + CLOCK_SLACK_MS },
    ]);
    // A folder inside: the one moved there, and its place's name before the folder around it moved.
    assert.deepEqual(folderNamesOf(renames, 'src/billing/money/'), [
      { path: 'vendor/money/', folder: true, beforeMs: t(5) + CLOCK_SLACK_MS },
      { path: 'src/pay/money/', folder: true, beforeMs: t(3) + CLOCK_SLACK_MS },
    ]);
    assert.deepEqual(folderNamesOf(renames, 'docs/'), [], 'a folder nothing was moved into');
    // A folder moved as git's history holds it (a rename a file): each file's earlier name.
    const committed: Rename[] = ['a.ts', 'b.ts'].map((f, i) => ({ from: `src/pay/${f}`, to: `src/billing/${f}`, atMs: t(6) - i }));
    assert.deepEqual(folderNamesOf(committed, 'src/billing/').map((n) => n.path), ['src/pay/a.ts', 'src/pay/b.ts']);
    // Bounded: a folder that took in 1,000 files names 200 of them.
    const many: Rename[] = Array.from({ length: 1000 }, (_, i) => ({ from: `old/f${i}.ts`, to: `src/f${i}.ts`, atMs: t(7) - i }));
    assert.equal(folderNamesOf(many, 'src/').length, 200);
    // What a search under the folder says of each memory: the name it recorded, when not under the folder asked.
    const billing = { repo: 'r', path: 'src/billing/', folder: true, names: folderNamesOf(renames, 'src/billing/') };
    assert.equal(recordedAs(['src/billing/b.ts', 'README.md'], t(9), billing), undefined, 'under the folder asked');
    assert.equal(recordedAs(['README.md', 'src/pay/tax.ts'], t(2.5), billing), 'src/pay/tax.ts', 'under its name before the folder moved');
    assert.equal(recordedAs(['lib/tax.ts'], t(1.5), billing), 'lib/tax.ts', 'a file moved into it, by its name then');
    assert.equal(recordedAs(['src/pay/tax.ts'], t(9), billing), undefined, 'a name the memory held after its time matches no name (the store would not have listed it)');
    // A file: its name now says nothing; an earlier one, that name, for its time only.
    const file = { repo: 'r', path: 'src/billing/tax.ts', names: namesOf(renames, 'src/billing/tax.ts') };
    assert.deepEqual(file.names.map((n) => n.path), ['src/billing/tax.ts', 'src/pay/tax.ts', 'lib/tax.ts', 'old/tax.js']);
    assert.equal(recordedAs(['src/billing/tax.ts'], t(9), file), undefined);
    assert.equal(recordedAs(['old/tax.js', 'src/other.ts'], t(0.5), file), 'old/tax.js');
    assert.equal(recordedAs(['old/tax.js'], t(0.5), { repo: 'r', path: 'src/billing/tax.ts' }), undefined, 'no names asked: nothing to say');
  });

  it('files moved without git, paired by content: the deleted path whose blob the index holds and the one untracked file that holds it whole; else the one that keeps most of its lines (edited after the move) when no other comes as close; not a rewritten one, an empty one, a short one, or one two files could be', () => {
    const dir = join(root, 'tree-moves');
    initRepo(dir, 't');
    // A file of some length: its lines say what it is (a function of its own, each step named).
    const LONG = (name: string, steps = 6) => `export function ${name}(order) {\n${Array.from({ length: steps }, (_, i) => `  const ${name}Step${i} = order.items.map((x) => x.${name}${i});\n`).join('')}  return order;\n}\n`;
    const files: Array<[string, string]> = [
      ['src/a.ts', BODY('a')],
      ['src/b.ts', LONG('bill')],
      ['src/e.ts', ''],
      ['src/c.ts', BODY('c')],
      ['src/d ü.ts', BODY('d')],
      ['src/f.ts', LONG('freight')],
      ['src/g.ts', LONG('gift')],
      ['src/h.ts', 'export const h = 1;\n'],
    ];
    for (const [p, body] of files) put(dir, p, body);
    git(dir, 'add', '-A');
    commitAt(dir, T, 'eight files');
    mkdirSync(join(dir, 'lib'));
    renameSync(join(dir, 'src', 'a.ts'), join(dir, 'lib', 'a.ts'));
    // Renamed in the editor, then edited: two of its eight lines changed, one added.
    rmSync(join(dir, 'src', 'b.ts'));
    writeFileSync(join(dir, 'lib', 'invoice.ts'), `${LONG('bill').replace('billStep0', 'billStepFirst').replace('billStep5', 'billStepLast')}export const billed = true;\n`);
    renameSync(join(dir, 'src', 'e.ts'), join(dir, 'lib', 'e.ts'));
    renameSync(join(dir, 'src', 'c.ts'), join(dir, 'lib', 'c.ts'));
    writeFileSync(join(dir, 'lib', 'c-copy.ts'), BODY('c'));
    renameSync(join(dir, 'src', 'd ü.ts'), join(dir, 'lib', 'd ü.ts'));
    // Rewritten: fewer than half its lines kept.
    rmSync(join(dir, 'src', 'f.ts'));
    writeFileSync(join(dir, 'lib', 'shipping.ts'), LONG('freight').split('\n').map((l, i) => (i >= 2 && i <= 6 ? `  // ${l.trim()} (gone)` : l)).join('\n'));
    // Edited into two copies alike: neither is the file.
    rmSync(join(dir, 'src', 'g.ts'));
    writeFileSync(join(dir, 'lib', 'gift-a.ts'), `${LONG('gift')}export const a = 1;\n`);
    writeFileSync(join(dir, 'lib', 'gift-b.ts'), `${LONG('gift')}export const b = 2;\n`);
    // Too short to tell by its lines.
    rmSync(join(dir, 'src', 'h.ts'));
    writeFileSync(join(dir, 'lib', 'h2.ts'), 'export const h = 2;\n');
    const wip = workInProgress(dir);
    assert.ok(wip);
    assert.deepEqual(wip.deleted.sort(), ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d ü.ts', 'src/e.ts', 'src/f.ts', 'src/g.ts', 'src/h.ts']);
    assert.deepEqual(unstagedMoves(dir, wip, { timeoutMs: 10_000 }).sort((x, y) => x.from.localeCompare(y.from)), [{ from: 'src/a.ts', to: 'lib/a.ts' }, { from: 'src/b.ts', to: 'lib/invoice.ts' }, { from: 'src/d ü.ts', to: 'lib/d ü.ts' }]);
    assert.deepEqual(unstagedMoves(dir, { deleted: wip.deleted, untracked: [] }, { timeoutMs: 10_000 }), [], 'nothing untracked: git is not asked');
    // Git itself, once the person stages it all, sees the same edited rename.
    git(dir, 'add', '-A');
    assert.deepEqual(workInProgress(dir)?.renamed.find((r) => r.from === 'src/b.ts'), { from: 'src/b.ts', to: 'lib/invoice.ts' });
  });

  it('likeness by lines: shared lines as a share of both, short files not told; each pair the best both ways, ties none', () => {
    const lines = (...ls: string[]) => contentLines(ls.join('\n'));
    const a = lines('alpha line one', 'beta line two', 'gamma line three', 'delta line four');
    assert.equal(similarity(a, a), 1);
    assert.equal(similarity(a, lines('alpha line one', 'beta line two', 'other', 'another one')), 0.5, 'two of four kept');
    assert.equal(similarity(a, lines('alpha line one', '{', '}', '')), 0, 'too short to tell');
    const d = new Map([['old/x.ts', a]]);
    const close = lines('alpha line one', 'beta line two', 'gamma line three', 'epsilon five');
    const far = lines('alpha line one', 'zeta', 'theta line', 'iota line');
    assert.deepEqual(pairBySimilarity(d, new Map([['new/far.ts', far], ['new/x.ts', close]])), [{ from: 'old/x.ts', to: 'new/x.ts' }]);
    assert.deepEqual(pairBySimilarity(d, new Map([['new/x.ts', close], ['new/x2.ts', close]])), [], 'two alike: neither');
    assert.deepEqual(pairBySimilarity(new Map([['old/x.ts', a], ['old/x-copy.ts', a]]), new Map([['new/x.ts', close]])), [], 'closest to two deleted files alike: neither');
    assert.deepEqual(pairBySimilarity(d, new Map([['new/far.ts', far]])), [], 'below half: no pair');
  });

  it('a rename seen twice (the hook\'s move, then the commit that holds it, in either order) counts once; a folder moved whole renames every file in it', () => {
    const ms = (s: number) => s * 1000;
    const edge = (s: number) => ms(s) + CLOCK_SLACK_MS;
    const moveThenCommit: Rename[] = [
      { from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: ms(200) },
      { from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: ms(100) },
    ];
    assert.deepEqual(namesOf(moveThenCommit, 'src/pay/checkout.ts'), [{ path: 'src/pay/checkout.ts' }, { path: 'src/checkout.ts', beforeMs: edge(200) }], 'the older sighting does not end the file\'s time at its old name');
    // A commit dated before the move (the committer's clock behind): the same.
    assert.deepEqual(namesOf([...moveThenCommit].reverse().sort((a, b) => b.atMs - a.atMs), 'src/pay/checkout.ts').length, 2);
    const folders: Rename[] = [
      { from: 'src/pay/', to: 'src/billing/', atMs: ms(300) },
      { from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: ms(200) },
      { from: 'src/pay/', to: 'src/old-pay/', atMs: ms(50) },
    ];
    assert.deepEqual(namesOf(folders, 'src/billing/checkout.ts'), [
      { path: 'src/billing/checkout.ts' },
      { path: 'src/pay/checkout.ts', beforeMs: edge(300), afterMs: edge(50) },
      { path: 'src/checkout.ts', beforeMs: edge(200) },
    ]);
    assert.deepEqual(namesOf(folders, 'src/billing/cart.ts'), [{ path: 'src/billing/cart.ts' }, { path: 'src/pay/cart.ts', beforeMs: edge(300), afterMs: edge(50) }]);
    assert.deepEqual(namesOf(folders, 'src/pay/checkout.ts'), [{ path: 'src/pay/checkout.ts', afterMs: edge(300) }], 'made again in the folder\'s old place: another file');
    assert.deepEqual(namesOf(folders, 'src/billing.ts'), [{ path: 'src/billing.ts' }], 'a name that only begins like the folder');
  });

  it('the moves the hook saw: kept beside the map, newest first with the map\'s renames; the newest 200 kept, a month\'s worth; a line cut short passed over; no home, nothing written', () => {
    const home = join(root, 'moves-home');
    mkdirSync(home);
    const repo = 'github.com/acme/moves';
    const now = Date.parse('2026-12-05T10:00:00Z');
    const day = 86_400_000;
    recordMoves(home, repo, [{ from: 'src/a.ts', to: 'src/b.ts', atMs: now - 40 * day }]);
    recordMoves(home, repo, [{ from: 'src/b.ts', to: 'src/c.ts', atMs: now - 2 * day }]);
    appendFileSync(movesPath(home, repo), '{"from":"src/c.ts","to":"src/');
    appendFileSync(movesPath(home, repo), '\n');
    recordMoves(home, repo, [{ from: 'src/c.ts', to: 'src/d.ts', atMs: now - day }]);
    assert.deepEqual(readMoves(home, repo, now).map((m) => m.to), ['src/d.ts', 'src/c.ts'], 'newest first; the one of 40 days ago counts no more; the cut line passed over');
    assert.deepEqual(namesIn(home, repo, 'src/d.ts', now).map((n) => n.path), ['src/d.ts', 'src/c.ts', 'src/b.ts']);
    // With a map: both, by time.
    const dir = join(root, 'moves-repo');
    initRepo(dir, 't');
    writeFileSync(join(dir, 'x.ts'), 'x\n');
    git(dir, 'add', '-A');
    commitAt(dir, Math.floor((now - 3 * day) / 1000), 'x');
    mkdirSync(join(dir, 'src'));
    git(dir, 'mv', 'x.ts', 'src/a.ts');
    const head = commitAt(dir, Math.floor((now - 3 * day) / 1000) + 60, 'x moved');
    refreshRenameMap(home, dir, repo, head, { timeoutMs: 10_000, maxCommits: 1000 });
    assert.deepEqual(renamesOf(home, repo, now).map((r) => `${r.from}>${r.to}`), ['src/c.ts>src/d.ts', 'src/b.ts>src/c.ts', 'x.ts>src/a.ts']);
    // Many moves: the newest 200 read; the file, past 64 KB, cut to them.
    const deep = 'packages/checkout/src/payments/providers/'.repeat(3);
    for (let i = 0; i < 450; i++) recordMoves(home, repo, [{ from: `${deep}m${i}.ts`, to: `${deep}n${i}.ts`, atMs: now - 1000 + i }]);
    const kept = readMoves(home, repo, now);
    assert.equal(kept.length, 200);
    assert.equal(kept[0]?.to, `${deep}n449.ts`, 'the newest kept');
    assert.equal(kept[199]?.to, `${deep}n250.ts`);
    const size = readFileSync(movesPath(home, repo), 'utf8').length;
    assert.ok(size <= 64 * 1024 + 400, `bounded: ${size}`);
    recordMoves(join(root, 'no-such-home'), repo, [{ from: 'a', to: 'b', atMs: now }]);
    assert.equal(existsSync(join(root, 'no-such-home')), false, 'a home that is not there is not made');
  });

  it('renames staged in the checkout, noted at session start: each pair once, dated after the newest move; what the noting answers is what a reading finds after it; nothing to note, nothing read', () => {
    const home = join(root, 'staged-home');
    mkdirSync(home);
    const repo = 'github.com/acme/staged';
    const now = Date.parse('2026-12-05T10:00:00Z');
    const day = 86_400_000;
    const dir = join(root, 'staged');
    const other = join(root, 'staged-other');
    initRepo(dir, 't');
    mkdirSync(other);
    put(dir, 'src/checkout.ts', BODY('capture'));
    git(dir, 'add', '-A');
    commitAt(dir, Math.floor(now / 1000) - day / 1000, 'one file');
    mkdirSync(join(dir, 'src', 'pay'));
    git(dir, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    // Before: one too old, one of another checkout, and one of this checkout dated ahead of this clock (a clock set back).
    recordMoves(home, repo, [
      { from: 'src/old.ts', to: 'src/older.ts', atMs: now - 40 * day, top: dir },
      { from: 'src/cart.ts', to: 'src/basket.ts', atMs: now - day, top: other },
      { from: 'src/gone.ts', to: 'src/went.ts', atMs: now + 5000, top: dir },
    ]);
    const lines = () => readFileSync(movesPath(home, repo), 'utf8').trim().split('\n').length;
    assert.equal(noteStagedRenames(home, repo, dir, [], now), undefined, 'nothing to note: the file is not read');
    const noted = noteStagedRenames(home, repo, dir, [{ from: 'src/checkout.ts', to: 'src/pay/checkout.ts' }], now);
    assert.deepEqual(noted?.map((m) => `${m.from}>${m.to} ${m.atMs - now}`), ['src/checkout.ts>src/pay/checkout.ts 5001', 'src/gone.ts>src/went.ts 5000'], 'the staged rename first, dated after the newest move; the other checkout\'s and the old one not there');
    assert.deepEqual(noted, readMoves(home, repo, now, dir), 'what a reading finds');
    assert.equal(lines(), 4);
    // Noted again (the next session start, the rename still staged): not added twice; the answer is the reading's.
    const again = noteStagedRenames(home, repo, dir, [{ from: 'src/checkout.ts', to: 'src/pay/checkout.ts' }], now + 60_000);
    assert.deepEqual(again, readMoves(home, repo, now + 60_000, dir));
    assert.equal(again?.length, 2);
    assert.equal(lines(), 4, 'not written again');
    assert.deepEqual(renamesOf(home, repo, now, dir, noted), renamesOf(home, repo, now, dir), 'renamesOf with the moves handed in is renamesOf reading them');
    // No home: nothing written, and the answer is what stands (none).
    assert.deepEqual(noteStagedRenames(join(root, 'no-staged-home'), repo, dir, [{ from: 'src/checkout.ts', to: 'src/pay/checkout.ts' }], now), []);
    assert.equal(existsSync(join(root, 'no-staged-home')), false);
  });

  it('a move put back in its checkout (`git reset --hard`, `git stash`) no longer counts: the file keeps its own sessions; a move in one worktree is none in another; the moves of a checkout gone stop counting', () => {
    const home = join(root, 'putback-home');
    mkdirSync(home);
    const repo = 'github.com/acme/putback';
    const now = Date.parse('2026-12-05T10:00:00Z');
    const dir = join(root, 'putback');
    initRepo(dir, 't');
    put(dir, 'src/checkout.ts', BODY('capture'));
    put(dir, 'src/cart.ts', BODY('cart'));
    git(dir, 'add', '-A');
    commitAt(dir, Math.floor(now / 1000) - 86_400, 'two files');
    const worktree = join(root, 'putback-wt');
    git(dir, 'worktree', 'add', '-q', worktree);
    // The agent's `git mv` in the main checkout, as the file hook records it (its checkout named).
    mkdirSync(join(dir, 'src', 'pay'));
    git(dir, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    recordMoves(home, repo, [{ from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: now - 60_000, top: dir }]);
    const moved = (here?: string) => readMoves(home, repo, now, here).map((m) => `${m.from}>${m.to}`);
    assert.deepEqual(moved(dir), ['src/checkout.ts>src/pay/checkout.ts'], 'standing in its checkout');
    assert.deepEqual(moved(), ['src/checkout.ts>src/pay/checkout.ts'], 'a reader naming no checkout (the viewer): every move standing');
    assert.deepEqual(namesIn(home, repo, 'src/pay/checkout.ts', now, dir).map((n) => n.path), ['src/pay/checkout.ts', 'src/checkout.ts']);
    // The other worktree never moved it: its src/checkout.ts is the file it always was, all its sessions its own.
    assert.deepEqual(moved(worktree), []);
    assert.deepEqual(namesIn(home, repo, 'src/checkout.ts', now, worktree), [{ path: 'src/checkout.ts' }]);
    assert.equal(namesIn(home, repo, 'src/checkout.ts', now, dir)[0]?.afterMs !== undefined, true, 'in the checkout that moved it, the name is another file\'s from the move on');
    // Put back by the person: the move is gone at once, whoever reads.
    git(dir, 'reset', '-q', '--hard');
    assert.equal(existsSync(join(dir, 'src', 'checkout.ts')), true);
    assert.deepEqual(moved(dir), []);
    assert.deepEqual(moved(), []);
    assert.deepEqual(namesIn(home, repo, 'src/checkout.ts', now, dir), [{ path: 'src/checkout.ts' }], 'its sessions its own again, from the first');
    // Made again: it counts again, from the new move on.
    mkdirSync(join(dir, 'src', 'pay'), { recursive: true });
    git(dir, 'mv', 'src/checkout.ts', 'src/pay/checkout.ts');
    recordMoves(home, repo, [{ from: 'src/checkout.ts', to: 'src/pay/checkout.ts', atMs: now - 1000, top: dir }]);
    assert.deepEqual(namesIn(home, repo, 'src/pay/checkout.ts', now, dir).map((n) => `${n.path} ${n.beforeMs === undefined ? 'now' : 'until the move'}`), ['src/pay/checkout.ts now', 'src/checkout.ts until the move']);
    assert.equal(namesIn(home, repo, 'src/pay/checkout.ts', now, dir)[1]?.beforeMs, now - 1000 + CLOCK_SLACK_MS, 'the newest move, the one standing');
    // A folder moved and put back with `git stash`: the same.
    git(dir, 'reset', '-q', '--hard');
    git(dir, 'mv', 'src', 'lib');
    recordMoves(home, repo, [{ from: 'src/', to: 'lib/', atMs: now - 500, top: dir }]);
    assert.deepEqual(namesIn(home, repo, 'lib/cart.ts', now, dir).map((n) => n.path), ['lib/cart.ts', 'src/cart.ts']);
    git(dir, 'stash', '-q');
    assert.deepEqual(moved(dir), []);
    // A checkout gone (a worktree removed): what it had not committed went with it; its moves stop counting, whoever reads.
    git(worktree, 'mv', 'src/cart.ts', 'src/basket.ts');
    recordMoves(home, repo, [{ from: 'src/cart.ts', to: 'src/basket.ts', atMs: now - 100, top: worktree }]);
    assert.deepEqual(moved(), ['src/cart.ts>src/basket.ts'], 'while it is there, a reader naming no checkout follows it');
    assert.deepEqual(moved(dir), []);
    git(dir, 'worktree', 'remove', '--force', worktree);
    assert.deepEqual(moved(dir), []);
    assert.deepEqual(moved(), []);
    // Moved on again in a checkout that is there (both names of the first move missing): both moves stand.
    const chained = 'github.com/acme/putback-chain';
    git(dir, 'mv', 'src/cart.ts', 'src/basket.ts');
    git(dir, 'mv', 'src/basket.ts', 'src/trolley.ts');
    recordMoves(home, chained, [{ from: 'src/cart.ts', to: 'src/basket.ts', atMs: now - 90, top: dir }, { from: 'src/basket.ts', to: 'src/trolley.ts', atMs: now - 80, top: dir }]);
    assert.deepEqual(namesIn(home, chained, 'src/trolley.ts', now, dir).map((n) => n.path), ['src/trolley.ts', 'src/basket.ts', 'src/cart.ts']);
    git(dir, 'reset', '-q', '--hard');
    // A move written before moves named their checkout holds everywhere, as it did.
    appendFileSync(movesPath(home, repo), `${JSON.stringify({ from: 'src/cart.ts', to: 'src/trolley.ts', atMs: now - 50 })}\n`);
    assert.deepEqual(moved(dir), ['src/cart.ts>src/trolley.ts']);
  });
});
