/**
 * Sync health told as it is (the settings issue's probe findings): the memory remote's own
 * refusal reason, errors cleared once the same kind of operation works again, and two homes
 * that named one empty remote before either pushed joining in the capture worker, as session
 * start joins them. Real bare remotes, real homes, the built CLI.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../support/helpers.js';
import { git, homeMachine, questions } from '../support/homes.js';

describe('sync health', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-synchealth-')));
  after(() => cleanup());

  it('a push the memory remote\'s own hook refuses: its reason is shown, not the progress lines', () => {
    const remote = join(root, 'guarded.git');
    git(root, 'init', '-q', '--bare', remote);
    const m = homeMachine(root, 'guarded');
    assert.equal(m.cli(['init', '--remote', remote]).code, 0);
    const hook = join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "quota exceeded for the memories repository: 2 GB used of 2 GB" >&2\necho "ask your admin to raise it" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    assert.equal(m.capture('g1', [['Which bucket holds the signed release artifacts?', 'The releases bucket, versioned.']]).code, 0);
    const r = m.cli(['sync']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /the memory remote refused the push: quota exceeded for the memories repository: 2 GB used of 2 GB \| ask your admin to raise it/);
    assert.doesNotMatch(r.stdout, /Enumerating objects|Counting objects|Writing objects|a git hook refused/);
    const status = m.cli(['status']).stdout;
    assert.match(status, /sync error .*quota exceeded/);
  });

  it('status clears an error once the same kind of operation works again; a home made by init shows none', () => {
    const remote = join(root, 'fresh.git');
    git(root, 'init', '-q', '--bare', remote);
    const m = homeMachine(root, 'fresh');
    const init = m.cli(['init', '--remote', remote]);
    assert.equal(init.code, 0, init.stderr);
    const s1 = JSON.parse(m.cli(['status', '--json']).stdout) as { sync: { last_error: unknown } };
    assert.equal(s1.sync.last_error, null, 'init of an empty home leaves no commit error ("pathspec \'export\' did not match")');
    // A push that fails (the remote is gone), then works again.
    const away = `${remote}.away`;
    git(root, 'init', '-q', '--bare', away);
    writeFileSync(join(m.home, 'config.local.toml'), `[sync]\nremote_url = ${JSON.stringify(away.replace('.away', '.missing'))}\n`);
    assert.equal(m.capture('f1', [['Where do we keep the staging TLS keys?', 'In the staging vault.']]).code, 0);
    assert.equal(m.cli(['sync']).code, 1);
    assert.notEqual((JSON.parse(m.cli(['status', '--json']).stdout) as { sync: { last_error: unknown } }).sync.last_error, null);
    writeFileSync(join(m.home, 'config.local.toml'), `[sync]\nremote_url = ${JSON.stringify(remote)}\n`);
    assert.equal(m.cli(['sync']).code, 0);
    const s2 = JSON.parse(m.cli(['status', '--json']).stdout) as { sync: { last_error: unknown; failing_since: unknown } };
    assert.deepEqual([s2.sync.last_error, s2.sync.failing_since], [null, null]);
  });

  it('two homes that named one empty remote before either pushed: the second one\'s capture worker joins the first one\'s branch and pushes (no session start needed)', () => {
    const remote = join(root, 'race.git');
    git(root, 'init', '-q', '--bare', remote);
    const a = homeMachine(root, 'race-a');
    const b = homeMachine(root, 'race-b');
    // B's home exists and names the remote while it is still empty (as its init did).
    assert.equal(b.cli(['session-start', '--no-pull'], { input: '{}' }).code, 0);
    writeFileSync(join(b.home, 'config.local.toml'), `[sync]\nremote_url = ${JSON.stringify(remote)}\n`);
    git(b.home, 'remote', 'add', 'memory', remote);
    // A pushes first.
    assert.equal(a.cli(['init', '--remote', remote]).code, 0);
    assert.equal(a.capture('r1', [['How do we rotate the race-a signing key?', 'With the rotate-key job.']]).code, 0);
    assert.equal(a.cli(['sync']).code, 0);
    // B captures: its worker meets A's unrelated branch.
    const captured = b.capture('r2', [['How do we rotate the race-b signing key?', 'Also with the rotate-key job.']]);
    assert.equal(captured.code, 0, captured.stderr);
    const onRemote = git(root, '--git-dir', remote, 'log', '-p', 'memories');
    assert.match(onRemote, /race-b signing key/, 'B\'s capture reached the remote');
    assert.match(onRemote, /race-a signing key/, 'A\'s is still there');
    assert.equal(a.cli(['sync']).code, 0);
    assert.deepEqual(questions(a, 'signing key'), ['How do we rotate the race-a signing key?', 'How do we rotate the race-b signing key?']);
  });
});
