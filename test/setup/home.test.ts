/**
 * Memories in a repository of their own (issue 25): the memory home made on first use, on a
 * fixed branch whatever the person's init.defaultBranch; joined by a second machine through
 * `memory init` or a plain `git clone`; never committed into a repository the person works in.
 * Real git (a bare remote, one HOME per machine), the built CLI, the tiny model.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MEMORY_BRANCH } from '../../src/home/place.js';
import { tempDir } from '../support/helpers.js';
import { git, homeMachine, questions } from '../support/homes.js';

function remoteFiles(remote: string, branch = MEMORY_BRANCH): string[] {
  return git(remote, 'ls-tree', '-r', '--name-only', branch).split('\n').filter(Boolean).sort();
}

describe('the memory home', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-home-')));
  after(() => cleanup());

  it('is made on first use on the memory branch, holds memory data only, and commits locally without a remote', () => {
    const a = homeMachine(root, 'solo', { defaultBranch: 'master' });
    const start = a.cli(['session-start', '--no-pull'], { input: '{}' });
    assert.equal(start.code, 0, start.stderr);
    assert.match(JSON.parse(start.stdout).systemMessage, /no memory remote is named\. Run: memory init --remote/);
    assert.equal(git(a.home, 'symbolic-ref', '--short', 'HEAD'), MEMORY_BRANCH, 'not the person\'s init.defaultBranch');
    const cap = a.capture('s-solo', [['How do we rotate the staging TLS certificate?', 'Run certbot renew on the staging proxy, then reload nginx.']]);
    assert.equal(cap.code, 0, cap.stderr);
    const tracked = git(a.home, 'ls-files').split('\n').sort();
    assert.deepEqual(tracked.filter((f) => !f.startsWith('export/')), ['.gitattributes', '.gitignore', 'config.toml']);
    assert.equal(tracked.filter((f) => f.startsWith('export/') && f.endsWith('_solo.jsonl')).length, 1, tracked.join(', '));
    assert.equal(git(a.home, 'status', '--porcelain'), '', 'nothing left uncommitted (cache, local settings ignored)');
    assert.deepEqual(questions(a, 'staging certificate'), ['How do we rotate the staging TLS certificate?']);
    const status = JSON.parse(a.cli(['status', '--json']).stdout) as { home: string; repository: string };
    assert.equal(status.home, a.home);
    assert.equal(status.repository, a.home);
    const text = a.cli(['status']).stdout;
    assert.match(text, new RegExp(`home +${a.home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('a second machine joins through memory init, even with memories of its own and another default branch', () => {
    const remote = join(root, 'memories.git');
    git(root, 'init', '-q', '--bare', remote);
    const laptop = homeMachine(root, 'laptop', { defaultBranch: 'master' });
    const desktop = homeMachine(root, 'desktop', { defaultBranch: 'main' });
    assert.equal(laptop.capture('s-l', [['Which port does the billing service listen on?', 'Billing listens on 8443 behind the gateway.']]).code, 0);
    const initA = laptop.cli(['init', '--remote', remote]);
    assert.equal(initA.code, 0, initA.stderr);
    assert.deepEqual(git(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads'), MEMORY_BRANCH);
    const onRemote = remoteFiles(remote);
    assert.ok(onRemote.every((f) => f.startsWith('export/') || ['.gitattributes', '.gitignore', 'config.toml'].includes(f)), `memory data only: ${onRemote.join(', ')}`);
    assert.ok(!onRemote.some((f) => f.startsWith('src/') || f === 'package.json'), 'never the tool\'s source');
    // The desktop remembered something before it was told about the remote.
    assert.equal(desktop.capture('s-d', [['Why does the billing cron skip weekends?', 'The billing cron reads the holiday calendar and skips Saturday and Sunday.']]).code, 0);
    const initB = desktop.cli(['init', '--remote', remote]);
    assert.equal(initB.code, 0, initB.stderr);
    assert.deepEqual(questions(desktop, 'billing'), ['Which port does the billing service listen on?', 'Why does the billing cron skip weekends?']);
    const sync = laptop.cli(['sync']);
    assert.equal(sync.code, 0, sync.stderr + sync.stdout);
    assert.deepEqual(questions(laptop, 'billing'), ['Which port does the billing service listen on?', 'Why does the billing cron skip weekends?']);
    assert.equal(git(desktop.home, 'symbolic-ref', '--short', 'HEAD'), MEMORY_BRANCH);
    assert.equal(git(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads'), MEMORY_BRANCH, 'one branch for both machines');
  });

  it('a machine that simply git-clones the memory remote into its home is joining it', () => {
    const remote = join(root, 'memories.git');
    const server = homeMachine(root, 'server');
    mkdirSync(join(server.home, '..'), { recursive: true });
    git(root, 'clone', '-q', remote, server.home);
    const start = server.cli(['session-start', '--no-pull'], { input: '{}' });
    assert.equal(start.code, 0, start.stderr);
    assert.doesNotMatch(start.stdout, /no memory remote is named/, 'origin is the memory remote');
    assert.deepEqual(questions(server, 'billing'), ['Which port does the billing service listen on?', 'Why does the billing cron skip weekends?']);
    assert.equal(server.capture('s-s', [['Where are the billing invoices archived?', 'Invoices go to the cold-storage bucket after ninety days.']]).code, 0);
    const sync = server.cli(['sync']);
    assert.equal(sync.code, 0, sync.stderr + sync.stdout);
    assert.ok(remoteFiles(remote).some((f) => f.endsWith('_server.jsonl')), 'pushed to the remote it was cloned from');
  });

  it('a clone whose remote HEAD names another branch is put on the memory branch', () => {
    const remote = join(root, 'memories.git');
    git(remote, 'symbolic-ref', 'HEAD', 'refs/heads/master'); // as a bare `git init` leaves it
    const vm = homeMachine(root, 'vm');
    git(root, 'clone', '-q', remote, vm.home);
    assert.equal(existsSync(join(vm.home, 'export')), false, 'git could not check anything out');
    assert.equal(vm.cli(['session-start', '--no-pull'], { input: '{}' }).code, 0);
    assert.equal(git(vm.home, 'symbolic-ref', '--short', 'HEAD'), MEMORY_BRANCH);
    assert.ok(questions(vm, 'billing').includes('Where are the billing invoices archived?'));
  });

  it('a config inside a checkout of the tool means the memory home: nothing is written into the checkout', () => {
    const checkout = join(root, 'tool-clone');
    mkdirSync(join(checkout, 'export'), { recursive: true });
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'memory-engine', version: '0.0.0' }));
    writeFileSync(join(checkout, 'config.toml'), '[general]\nexport_dir = "export"\n');
    git(root, 'init', '-q', checkout);
    writeFileSync(join(checkout, 'export', '.gitkeep'), '');
    git(checkout, 'add', '-A');
    git(checkout, '-c', 'user.name=dev', '-c', 'user.email=dev@example.com', 'commit', '-qm', 'the tool');
    const dev = homeMachine(root, 'dev');
    assert.equal(dev.cli(['-c', join(checkout, 'config.toml'), 'session-start', '--no-pull'], { input: '{}' }).code, 0);
    assert.equal(dev.capture('s-dev', [['What does the contributor guide say about commits?', 'Small commits with honest messages, tests with each change.']]).code, 0);
    assert.deepEqual(readdirSync(join(checkout, 'export')), ['.gitkeep'], 'no memory in the checkout');
    assert.equal(git(checkout, 'status', '--porcelain'), '', 'nothing a habitual `git add -A && git push --all` could carry');
    assert.equal(git(checkout, 'rev-list', '--count', '--all'), '1', 'no commit of ours on any branch');
    const status = JSON.parse(dev.cli(['-c', join(checkout, 'config.toml'), 'status', '--json']).stdout) as { home: string; records: number };
    assert.equal(status.home, dev.home);
    assert.equal(status.records, 1);
  });

  it('an export folder inside a repository the person works in is refused with what to do, and nothing is written', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'app.ts'), 'export {};\n');
    git(root, 'init', '-q', project);
    git(project, '-c', 'user.name=p', '-c', 'user.email=p@example.com', 'add', '-A');
    git(project, '-c', 'user.name=p', '-c', 'user.email=p@example.com', 'commit', '-qm', 'app');
    const config = join(project, 'memory.toml');
    writeFileSync(config, `[general]\nexport_dir = "memories"\n`);
    const p = homeMachine(root, 'projecty');
    const r = p.cli(['-c', config, 'init', '--remote', join(root, 'memories.git')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is inside the git repository .*project, which holds other files than memories \(src\/app\.ts\): memories are never committed on a branch you work on/);
    assert.match(r.stderr, /hint: point \[general\] export_dir to a folder of its own/);
    const start = p.cli(['-c', config, 'session-start', '--no-pull'], { input: '{}' });
    assert.equal(start.code, 0, 'a hook never breaks the agent');
    assert.match(JSON.parse(start.stdout).systemMessage, /never committed on a branch you work on/);
    assert.equal(git(project, 'rev-list', '--count', 'HEAD'), '1', 'no commit of ours');
    assert.equal(readFileSync(join(project, 'src', 'app.ts'), 'utf8'), 'export {};\n');
  });
});
