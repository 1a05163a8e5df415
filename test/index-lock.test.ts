/**
 * A git of the person's holding .git/index.lock for a moment (an editor refreshing its status,
 * a `rebase --abort`) while a memory commit runs: the commit waits for it instead of leaving
 * the memories for some later run. Real git, a real repository.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { commitExport, findRepo } from '../src/sync/git.js';
import { tempDir } from './helpers.js';

function repoWithMemory(dir: string): string {
  execFileSync('git', ['init', '-q', '-b', 'memory', dir]);
  mkdirSync(join(dir, 'export'));
  writeFileSync(join(dir, 'export', '2026-11_laptop.jsonl'), '{"v":1,"id":"m-1"}\n');
  return join(dir, 'export');
}

describe('a memory commit and a git of the person\'s', () => {
  it('waits for an index.lock held for a moment, then commits', async () => {
    const { dir, cleanup } = tempDir('memory-indexlock-');
    try {
      const exportDir = repoWithMemory(dir);
      const repo = await findRepo(dir);
      assert.ok(repo);
      const lock = join(repo.gitDir, 'index.lock');
      writeFileSync(lock, '');
      const released = new Promise<void>((r) => setTimeout(() => { rmSync(lock); r(); }, 600));
      const c = await commitExport(repo, exportDir, 'memories', 'laptop');
      await released;
      assert.equal(c.committed, true);
      assert.equal(execFileSync('git', ['-C', dir, 'log', '--format=%s', '-1']).toString().trim(), 'memories');
      assert.equal(execFileSync('git', ['-C', dir, 'status', '--porcelain']).toString(), '');
    } finally {
      cleanup();
    }
  });

  it('a lock that stays is still an error after the waits (the next run commits)', async () => {
    const { dir, cleanup } = tempDir('memory-indexlock-');
    try {
      const exportDir = repoWithMemory(dir);
      const repo = await findRepo(dir);
      assert.ok(repo);
      writeFileSync(join(repo.gitDir, 'index.lock'), '');
      await assert.rejects(commitExport(repo, exportDir, 'memories', 'laptop'), /index\.lock/);
      assert.ok(existsSync(join(dir, 'export', '2026-11_laptop.jsonl')), 'the memory file is untouched');
    } finally {
      cleanup();
    }
  });
});
