/**
 * Our git is ours alone: a person whose global git config signs every commit (with a signer
 * that waits, then fails) and runs hooks that refuse (core.hooksPath) still gets every memory
 * committed and pushed, unsigned and without running those hooks. With `[sync]
 * my_git_settings = true` their signing applies, and a failure to sign is told as what it is.
 * Real git, the person's config in the machine's HOME (~/.gitconfig).
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CWD, conversation, git, gitWorld, placeTranscript, type GitWorld, type Machine } from '../support/gitworld.js';

function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The person's global git config: signing by a signer that waits a second and fails; hooks that refuse and leave a mark. */
function personalGitConfig(m: Machine): { marks: string } {
  const hooks = join(m.home, 'git-hooks');
  mkdirSync(hooks, { recursive: true });
  const marks = join(m.home, 'hook-ran');
  for (const h of ['pre-commit', 'commit-msg', 'pre-push', 'pre-rebase', 'post-commit']) script(join(hooks, h), `echo ${h} >> "${marks}"\nexit 1`);
  const signer = script(join(m.home, 'fake-gpg'), 'sleep 1\necho "gpg: signing failed: No secret key" >&2\nexit 2');
  writeFileSync(join(m.home, '.gitconfig'), `[commit]\n\tgpgsign = true\n[tag]\n\tgpgsign = true\n[gpg]\n\tprogram = ${signer}\n[core]\n\thooksPath = ${hooks}\n`);
  return { marks };
}

function capture(m: Machine, session: string, q: string, a: string) {
  const path = placeTranscript(m, conversation(session, [[q, a]]));
  const r = m.cli(['session-end', '--foreground', '--json', '--transcript', path, '--cwd', CWD]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { added: number; sync: { committed: boolean; push?: { status: string } } | null };
}

describe("the person's global git config", () => {
  let world: GitWorld;
  before(() => {
    world = gitWorld();
  });
  after(() => world.cleanup());

  it('signing and refusing hooks do not stop memory commits and pushes: unsigned, no hook run', () => {
    const m = world.machine('laptop');
    const { marks } = personalGitConfig(m);
    const out = capture(m, 's-laptop', 'How do we rotate the heron signing keys?', 'Run rotate-heron, then redeploy.');
    assert.equal(out.added, 1);
    assert.equal(out.sync?.committed, true, 'committed despite commit.gpgsign');
    assert.equal(out.sync?.push?.status, 'pushed', 'pushed despite a refusing pre-push hook');
    const s = m.cli(['sync']);
    assert.equal(s.code, 0, s.stdout + s.stderr);
    const remoteHead = git(world.root, '--git-dir', world.remote, 'log', '-1', '--format=%s%n%G?', 'main');
    assert.match(remoteHead, /^memory: /m, 'the memory commit is on the remote');
    assert.equal(remoteHead.split('\n')[1], 'N', 'and it is not signed');
    assert.equal(existsSync(marks), false, 'no hook of theirs ran');
    const hit = m.cli(['search', '--mode', 'keyword', '--json', 'heron signing keys']);
    assert.match(hit.stdout, /rotate-heron/);
  });

  it('with my_git_settings = true their signing applies, and a failure to sign is told as one, exit 1', () => {
    const m = world.machine('desktop', { extra: 'my_git_settings = true' });
    personalGitConfig(m);
    const out = capture(m, 's-desktop', 'Where is the osprey runbook?', 'In docs/osprey.md.');
    assert.equal(out.added, 1, 'captured into the export folder all the same');
    assert.equal(out.sync?.committed ?? false, false);
    const s = m.cli(['sync']);
    assert.equal(s.code, 1, s.stdout);
    assert.match(s.stdout, /commit\s+failed: .*(gpg|sign)/i, s.stdout);
    const st = JSON.parse(m.cli(['sync', '--json']).stdout) as { ok: boolean; commit_failed?: string };
    assert.equal(st.ok, false);
    assert.match(st.commit_failed ?? '', /gpg|sign/i);
    // The memory is kept, and found.
    assert.match(m.cli(['search', '--mode', 'keyword', '--json', 'osprey runbook']).stdout, /docs\/osprey\.md/);
  });
  it('with my_git_settings = true a refusing pre-push is told as a hook, tried once — not read as "rejected" and retried with a fetch and a rebase', () => {
    const m = world.machine('server', { extra: 'my_git_settings = true' });
    const hooks = join(m.home, 'git-hooks');
    mkdirSync(hooks, { recursive: true });
    const marks = join(m.home, 'hook-ran');
    script(join(hooks, 'pre-push'), `echo pre-push >> "${marks}"\necho "pre-push: refusing" >&2\nexit 1`);
    writeFileSync(join(m.home, '.gitconfig'), `[core]\n\thooksPath = ${hooks}\n`);
    const out = capture(m, 's-server', 'Where is the plover runbook?', 'In docs/plover.md.');
    assert.equal(out.sync?.committed, true, 'committed: no signing asked for');
    const r = JSON.parse(m.cli(['sync', '--json']).stdout) as { ok: boolean; push: { status: string; attempts: number; detail?: string } | null };
    assert.equal(r.ok, false);
    assert.equal(r.push?.status, 'failed');
    assert.equal(r.push?.attempts, 1, 'tried once');
    assert.match(r.push?.detail ?? '', /a git hook refused/);
    const ran = readFileSync(marks, 'utf8').trim().split('\n');
    assert.deepEqual(ran, ['pre-push', 'pre-push'], 'once by the capture, once by sync: never retried');
  });
  it("the suite's own world builder holds under a person's signing and refusing hooks (GIT_CONFIG_GLOBAL): seeds and edits unsigned, no hook run", () => {
    const dir = join(world.root, 'hostile');
    mkdirSync(dir, { recursive: true });
    const hooks = join(dir, 'hooks');
    mkdirSync(hooks);
    const marks = join(dir, 'hook-ran');
    for (const h of ['pre-commit', 'commit-msg', 'pre-push']) script(join(hooks, h), `echo ${h} >> "${marks}"\nexit 1`);
    const signer = script(join(dir, 'fake-gpg'), 'echo "gpg: signing failed" >&2\nexit 2');
    const hostile = join(dir, 'gitconfig');
    writeFileSync(hostile, `[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = ${signer}\n[core]\n\thooksPath = ${hooks}\n`);
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = hostile;
    const w2 = gitWorld();
    try {
      const m = w2.machine('hostile-laptop');
      const out = capture(m, 's-hostile', 'Where is the kestrel runbook?', 'In docs/kestrel.md.');
      assert.equal(out.sync?.push?.status, 'pushed');
      // A person's edit the suite plays, through the fixture's git.
      writeFileSync(join(m.repo, 'notes.txt'), 'x\n');
      git(m.repo, 'add', 'notes.txt');
      git(m.repo, 'commit', '-q', '-m', 'notes');
      assert.equal(git(m.repo, 'log', '-1', '--format=%G?'), 'N');
      assert.equal(existsSync(marks), false, 'no hook ran');
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
      w2.cleanup();
    }
  });
});
