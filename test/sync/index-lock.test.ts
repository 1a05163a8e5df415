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
import { commitExport } from '../../src/sync/commit.js';
import { findRepo, type Repo } from '../../src/sync/process.js';
import { tempDir } from '../support/helpers.js';

/** A repository holding one uncommitted memory file, with `.git/index.lock` taken as a person's git would. */
async function lockedRepo(dir: string): Promise<{ repo: Repo; exportDir: string; lock: string }> {
  execFileSync('git', ['init', '-q', '-b', 'memory', dir]);
  const exportDir = join(dir, 'export');
  mkdirSync(exportDir);
  writeFileSync(join(exportDir, '2026-11_laptop.jsonl'), '{"v":1,"id":"m-1"}\n');
  const repo = await findRepo(dir);
  assert.ok(repo);
  const lock = join(repo.gitDir, 'index.lock');
  writeFileSync(lock, '');
  return { repo, exportDir, lock };
}

describe('a memory commit and a git of the person\'s', () => {
  it('waits for an index.lock held for a moment, then commits', async () => {
    const { dir, cleanup } = tempDir('memory-indexlock-');
    try {
      const { repo, exportDir, lock } = await lockedRepo(dir);
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
      const { repo, exportDir } = await lockedRepo(dir);
      await assert.rejects(commitExport(repo, exportDir, 'memories', 'laptop'), /index\.lock/);
      assert.ok(existsSync(join(dir, 'export', '2026-11_laptop.jsonl')), 'the memory file is untouched');
    } finally {
      cleanup();
    }
  });
});
