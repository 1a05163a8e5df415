/**
 * Repository identity read from `.git` with node:fs (project/repository.ts) against real git:
 * remote URL spellings, worktrees, local-path remotes, HEAD in every state, blob ids.
 */
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assignNames, candidateNames, nameForNew } from '../../src/project/names.js';
import { placeOf } from '../../src/project/place.js';
import { headCommit, normalizeRemoteUrl, repoIdentity } from '../../src/project/repository.js';
import { gitBlobId, JS_HASH_MAX_BYTES, pathInRepo } from '../../src/changes/git-files.js';
import { tempDir } from '../support/helpers.js';
import { cleanRecordFields, cleanText } from '../../src/privacy/redact.js';
import { parseAliases } from '../../src/project/aliases.js';

import { git, initRepo } from '../support/git-fixture.js';

/** A repository with one commit, origin set to `url` (never contacted). */
function repoAt(dir: string, url?: string): string {
  initRepo(dir, 't');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'sse.ts'), 'export const sse = 1;\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'one');
  if (url) git(dir, 'remote', 'add', 'origin', url);
  return realpathSync(dir);
}

describe('remote URLs: one repository, one key', () => {
  it('gives scp, ssh (with a port and a user), https (with and without .git, credentials, a trailing slash) and git:// the same key', () => {
    const same = [
      'git@git.example.com:acme/api.git',
      'git@git.example.com:acme/api',
      'git.example.com:acme/api.git',
      'ssh://git@git.example.com/acme/api.git',
      'ssh://git@git.example.com:2222/acme/api',
      'git+ssh://git@git.example.com/acme/api.git',
      'https://git.example.com/acme/api',
      'https://git.example.com/acme/api.git',
      'https://git.example.com/acme/api/',
      'https://user:tok3n@git.example.com/acme/api.git',
      'https://Git.Example.com/Acme/API.git',
      'git://git.example.com/acme/api.git',
    ];
    for (const u of same) assert.equal(normalizeRemoteUrl(u), 'git.example.com/acme/api', u);
  });

  it('keeps what tells repositories apart: the host, the whole path (groups), the owner', () => {
    assert.equal(normalizeRemoteUrl('git@gitlab.com:group/sub/api.git'), 'gitlab.com/group/sub/api');
    assert.equal(normalizeRemoteUrl('https://gitlab.example.com:8443/group/api.git'), 'gitlab.example.com/group/api');
    assert.notEqual(normalizeRemoteUrl('git@git.example.com:other/api.git'), normalizeRemoteUrl('git@git.example.com:acme/api.git'));
    assert.equal(normalizeRemoteUrl('ssh://[::1]:22/acme/api.git'), '[::1]/acme/api');
  });

  it('gives no key for a local path or file:// (nothing another machine shares)', () => {
    for (const u of ['/srv/git/api.git', './api', '../api.git', 'file:///srv/git/api.git', 'C:\\repos\\api', 'C:/repos/api', '', 'https://git.example.com/']) {
      assert.equal(normalizeRemoteUrl(u), undefined, u);
    }
  });

  it('spells a path in letters beyond ASCII composed, however the URL was written (a Mac may decompose it)', () => {
    const composed = 'git@git.example.jp:チーム/デザイン.git';
    assert.equal(normalizeRemoteUrl(composed), 'git.example.jp/チーム/デザイン');
    assert.equal(normalizeRemoteUrl(composed.normalize('NFD')), 'git.example.jp/チーム/デザイン');
    assert.equal(normalizeRemoteUrl('https://git.example.com/équipe/café'.normalize('NFD')), 'git.example.com/équipe/café');
  });
});

describe('repository identity on real checkouts', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-repo-')));
  after(() => cleanup());

  it('is the same for differently named clones, a linked worktree and a subfolder; and differs for a same-named repository', () => {
    const laptop = repoAt(join(root, 'laptop', 'api'), 'git@git.example.com:acme/api.git');
    const desktop = repoAt(join(root, 'desktop', 'acme-api-2'), 'https://git.example.com/acme/api');
    const porter = repoAt(join(root, 'server', 'api-port'), 'ssh://git@git.example.com:2222/acme/api.git');
    git(laptop, 'worktree', 'add', '-q', '-b', 'feat-x', join(laptop, '.claude', 'worktrees', 'feat-x'));
    const other = repoAt(join(root, 'laptop', 'other', 'api'), 'git@git.example.com:other/api.git');
    const ids = [laptop, desktop, porter, join(laptop, '.claude', 'worktrees', 'feat-x'), join(laptop, 'src')].map((d) => repoIdentity(d));
    for (const id of ids) {
      assert.equal(id?.key, 'git.example.com/acme/api');
      assert.equal(id?.short, 'api');
    }
    assert.equal(ids[3]?.top, realpathSync(join(laptop, '.claude', 'worktrees', 'feat-x')), 'a worktree is its own checkout');
    assert.equal(ids[4]?.top, laptop);
    assert.equal(repoIdentity(other)?.key, 'git.example.com/other/api');
    // What git itself says the top is.
    assert.equal(ids[3]?.top, git(join(laptop, '.claude', 'worktrees', 'feat-x'), 'rev-parse', '--show-toplevel'));
  });

  it('falls back to the main worktree folder for a local-path remote or none, worktrees included', () => {
    const origin = repoAt(join(root, 'bare-src', 'notes'));
    const clone = join(root, 'clones', 'notes-copy');
    git(root, 'clone', '-q', origin, clone);
    assert.equal(repoIdentity(clone)?.key, 'folder:notes-copy', 'a local-path origin is no shared identity');
    const wt = join(root, 'elsewhere', 'wt-notes');
    git(clone, 'worktree', 'add', '-q', '-b', 'side', wt);
    assert.equal(repoIdentity(wt)?.key, 'folder:notes-copy', 'a worktree is filed under its main worktree');
    assert.equal(repoIdentity(wt)?.short, 'notes-copy');
    const plain = join(root, 'plain', 'scratch');
    mkdirSync(plain, { recursive: true });
    assert.equal(repoIdentity(plain), undefined);
    assert.deepEqual(placeOf(plain, undefined), { name: 'scratch' });
    assert.equal(placeOf(clone, 'configured').name, 'configured', 'a configured project wins');
  });

  it('names a folder a Mac spelt decomposed as Linux spells it: one key and one name for both checkouts', () => {
    const composed = repoAt(join(root, 'linux', 'デザイン'));
    const decomposed = repoAt(join(root, 'mac', 'デザイン'.normalize('NFD')));
    for (const dir of [composed, decomposed]) {
      assert.equal(repoIdentity(dir)?.key, 'folder:デザイン', dir);
      assert.equal(repoIdentity(dir)?.short, 'デザイン', dir);
    }
    assert.equal(placeOf(decomposed, undefined).name, placeOf(composed, undefined).name);
  });

  it('reads HEAD as git does: a loose branch, a packed one, a detached HEAD, a worktree, an unborn branch', () => {
    const dir = repoAt(join(root, 'heads', 'h'), 'git@git.example.com:acme/h.git');
    const id = repoIdentity(dir);
    assert.ok(id);
    assert.equal(headCommit(id), git(dir, 'rev-parse', 'HEAD'));
    git(dir, 'pack-refs', '--all');
    writeFileSync(join(dir, 'b.txt'), 'b\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'two');
    assert.equal(headCommit(id), git(dir, 'rev-parse', 'HEAD'), 'loose ref after packing');
    git(dir, 'pack-refs', '--all');
    assert.equal(headCommit(id), git(dir, 'rev-parse', 'HEAD'), 'packed ref');
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    assert.equal(headCommit(id), git(dir, 'rev-parse', 'HEAD'), 'detached');
    git(dir, 'checkout', '-q', 'main');
    const wt = join(root, 'heads', 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'wtb', wt, 'HEAD~1');
    const wid = repoIdentity(wt);
    assert.ok(wid);
    assert.equal(headCommit(wid), git(wt, 'rev-parse', 'HEAD'));
    assert.notEqual(headCommit(wid), headCommit(id));
    const unborn = join(root, 'heads', 'unborn');
    mkdirSync(unborn);
    git(unborn, 'init', '-q');
    const uid = repoIdentity(unborn);
    assert.ok(uid);
    assert.equal(headCommit(uid), undefined);
  });

  it('computes the blob id git computes, and places recorded paths inside the work tree only', () => {
    const dir = repoAt(join(root, 'blobs', 'b'));
    for (const content of ['', 'hello\n', 'ünïcødé 日本語\r\n', '\0binary\xff']) {
      const p = join(dir, 'f.bin');
      writeFileSync(p, Buffer.from(content, 'latin1'));
      assert.equal(gitBlobId(Buffer.from(content, 'latin1')), git(dir, 'hash-object', 'f.bin'));
    }
    // Hashed in JavaScript up to JS_HASH_MAX_BYTES, by node:crypto above: the same ids either side.
    for (const size of [JS_HASH_MAX_BYTES - 1, JS_HASH_MAX_BYTES, JS_HASH_MAX_BYTES + 1, 300_000]) {
      const content = randomBytes(size);
      const p = join(dir, 'f.bin');
      writeFileSync(p, content);
      assert.equal(gitBlobId(content), git(dir, 'hash-object', 'f.bin'), `${size} bytes`);
    }
    assert.equal(pathInRepo(join(dir, 'src', 'sse.ts'), dir, undefined), 'src/sse.ts');
    assert.equal(pathInRepo('src/sse.ts', dir, dir), 'src/sse.ts');
    assert.equal(pathInRepo('../x.ts', dir, join(dir, 'src')), 'x.ts');
    assert.equal(pathInRepo('/etc/hosts', dir, dir), undefined);
    assert.equal(pathInRepo(join(dir, '.git', 'config'), dir, dir), undefined);
    assert.equal(pathInRepo('src/sse.ts', dir, undefined), undefined, 'a relative path without a folder to read it from');
  });
});

describe('project names', () => {
  it('gives the short name to the repository remembered first and a longer one to the next, alike everywhere', () => {
    const a = { key: 'git.example.com/acme/api', first: 100 };
    const b = { key: 'git.example.com/other/api', first: 200 };
    const c = { key: 'folder:api', first: 300 };
    const names = assignNames([c, b, a]);
    assert.equal(names.get(a.key), 'api');
    assert.equal(names.get(b.key), 'other-api');
    assert.equal(names.get(c.key), 'api-local');
    assert.deepEqual(assignNames([a, b, c]), names, 'input order does not matter');
    assert.equal(new Set(names.values()).size, 3);
    assert.deepEqual(candidateNames('git.example.com/acme/api').slice(0, 3), ['api', 'acme-api', 'git.example.com-acme-api']);
    // Two repositories whose every spelled-out name collides still get different names.
    const x = assignNames([{ key: 'h/a-b/c', first: 1 }, { key: 'h/a/b-c', first: 2 }, { key: 'h-a/b/c', first: 3 }, { key: 'h/a/b/c', first: 4 }]);
    assert.equal(new Set(x.values()).size, 4);
    // The last resort, a hash of the key: the same on every machine, and only when every name from the path is taken.
    const hashOf = (k: string) => createHash('sha1').update(k).digest('hex').slice(0, 6);
    assert.deepEqual(candidateNames('git.example.com/acme/api'), ['api', 'acme-api', 'git.example.com-acme-api', `api-${hashOf('git.example.com/acme/api')}`]);
    assert.deepEqual(candidateNames('folder:api'), ['api', 'api-local', `api-${hashOf('folder:api')}`]);
    const y = assignNames([{ key: 'h/api', first: 1 }, { key: 'api', first: 2 }]);
    assert.deepEqual([...y.entries()], [['h/api', 'api'], ['api', `api-${hashOf('api')}`]]);
    assert.equal(nameForNew('api', new Map([['h/api', 'api']])), `api-${hashOf('api')}`);
    assert.equal(nameForNew('h/api', new Map([['api', `api-${hashOf('api')}`]])), 'api');
  });
});

describe('file states and privacy', () => {
  it('cleans the file paths of file states like the files they name (scrub reaches them)', () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const file = `/home/u/api/notes/${token}.md`;
    const r = cleanRecordFields(
      { v: 1, id: 'x', machine: 'm', timestamp: '2026-11-01T00:00:00.000Z', question: 'q', answer: 'a', files: [file], extra: { repo: 'git.example.com/acme/api', file_blobs: [{ file, path: `notes/${token}.md`, blob: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391' }] } },
      (x) => cleanText(x, true).text,
    );
    const blobs = r.extra?.file_blobs as Array<{ file: string; path: string; blob: string }>;
    assert.equal(blobs[0]?.file, r.files?.[0]);
    assert.ok(!JSON.stringify(r).includes(token));
    assert.equal(blobs[0]?.blob, 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    assert.equal(r.extra?.repo, 'git.example.com/acme/api');
  });
});

describe('project aliases', () => {
  const line = (from: string, to: string, at: string) => JSON.stringify({ v: 1, from, to, machine: 'm', at });
  const map = (lines: string[]) => Object.fromEntries([...parseAliases(lines.join('\n'))].map(([k, a]) => [k, a.to]));
  it('keeps the latest merge of a name, in time order whatever the line order (union merges interleave lines)', () => {
    assert.deepEqual(map([line('a', 'b', '2026-11-02'), line('a', 'c', '2026-11-01')]), { a: 'b' });
    assert.deepEqual(map([line('a', 'b', '2026-11-01'), line('b', 'c', '2026-11-02')]), { a: 'b', b: 'c' });
  });
  it('lets a later merge back retire the link that would close a cycle, and a merge onto itself undo one', () => {
    assert.deepEqual(map([line('a', 'b', '2026-11-01'), line('b', 'a', '2026-11-02')]), { b: 'a' });
    assert.deepEqual(map([line('a', 'b', '2026-11-01'), line('b', 'c', '2026-11-02'), line('c', 'a', '2026-11-03')]), { a: 'b', c: 'a' });
    assert.deepEqual(map([line('a', 'b', '2026-11-01'), line('a', 'a', '2026-11-02')]), {});
    assert.deepEqual(map(['not json', '{"from":1}', line('a', 'b', '2026-11-01')]), { a: 'b' });
  });
});
