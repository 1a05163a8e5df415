/**
 * The upgrade from the layout before the memory home (issue 25), on a world laid out as
 * today's release leaves it: two machines, each a clone of the tool whose export/ holds the
 * memories, committed on the checkout's branch (with Memory-Machine trailers) and pushed to a
 * `memory` remote that also holds the tool's history; config.local.toml names the machine and
 * the remote. One machine upgrades (automatically, through a config in its checkout), keeps
 * working; the other goes on with the old layout for days, then upgrades with one command.
 * Nothing is lost on either, nothing is doubled, the checkouts are left as they were.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeEntry } from '../../src/export/jsonl.js';
import { MEMORY_BRANCH } from '../../src/home/place.js';
import { daysAgo, rec, tempDir } from '../support/helpers.js';
import { git, homeMachine, questions, type HomeMachine } from '../support/homes.js';
import { cloneRepo } from '../support/git-fixture.js';

interface OldCheckout {
  dir: string;
  name: string;
  remember: (question: string, answer: string, opts?: { commit?: boolean }) => void;
}

const month = daysAgo(0).slice(0, 7);

/** A clone of the tool as today's release runs it, its memory remote named by `memory init`. */
function oldCheckout(root: string, upstream: string, memoryRemote: string, name: string): OldCheckout {
  const dir = join(root, `${name}-memory`);
  cloneRepo(upstream, dir, name);
  writeFileSync(join(dir, 'config.local.toml'), `[general]\nmachine_name = "${name}"\n[sync]\nremote_url = ${JSON.stringify(memoryRemote)}\n`);
  git(dir, 'remote', 'add', 'memory', memoryRemote);
  if (git(memoryRemote, 'for-each-ref', 'refs/heads/main') !== '') {
    git(dir, 'fetch', '-q', 'memory', 'main');
    git(dir, 'merge', '-q', '--ff-only', 'memory/main');
  }
  let n = 0;
  return {
    dir,
    name,
    remember: (question, answer, opts = {}) => {
      const file = join(dir, 'export', `${month}_${name}.jsonl`);
      appendFileSync(file, `${encodeEntry(rec({ id: `${name}-${++n}-${question.length}`, machine: name, question, answer, timestamp: daysAgo(1) }))}\n`);
      if (opts.commit === false) return;
      git(dir, 'add', 'export');
      git(dir, 'commit', '-q', '-m', `memory: ${name} capture`, '-m', `Memory-Machine: ${name}`);
      git(dir, 'fetch', '-q', 'memory');
      if (git(dir, 'for-each-ref', 'refs/remotes/memory/main') !== '') git(dir, '-c', 'merge.renames=false', 'rebase', '-q', 'memory/main');
      git(dir, 'push', '-q', 'memory', 'HEAD:main');
    },
  };
}

describe('upgrading from memories committed in the tool checkout', () => {
  let root: string;
  let cleanup: () => void;
  let upstream: string;
  let memoryRemote: string;
  let laptopOld: OldCheckout;
  let desktopOld: OldCheckout;
  let laptop: HomeMachine;
  let desktop: HomeMachine;

  before(() => {
    ({ dir: root, cleanup } = tempDir('memory-upgrade-'));
    // The tool's own repository, as people cloned it.
    upstream = join(root, 'upstream.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', upstream);
    const src = join(root, 'tool-src');
    git(root, 'clone', '-q', upstream, src);
    mkdirSync(join(src, 'src'), { recursive: true });
    mkdirSync(join(src, 'export'), { recursive: true });
    writeFileSync(join(src, 'package.json'), JSON.stringify({ name: 'memory-engine', version: '0.1.0' }));
    writeFileSync(join(src, 'src', 'index.ts'), 'export const tool = true;\n');
    writeFileSync(join(src, 'config.toml'), '[general]\nexport_dir = "export"\ndb_path = ".cache/memory.db"\n[search]\ntop_k = 7\n');
    writeFileSync(join(src, 'export', '.gitkeep'), '');
    writeFileSync(join(src, '.gitignore'), '.cache/\nconfig.local.toml\n');
    git(src, 'add', '-A');
    git(src, '-c', 'user.name=dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'the tool');
    git(src, 'push', '-q', 'origin', 'main');
    memoryRemote = join(root, 'memory.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', memoryRemote);
    laptopOld = oldCheckout(root, upstream, memoryRemote, 'laptop');
    laptopOld.remember('How did we fix the flaky websocket reconnect test?', 'We waited for the close event before reconnecting in the websocket test.');
    desktopOld = oldCheckout(root, upstream, memoryRemote, 'desktop');
    desktopOld.remember('Which websocket library does the gateway use?', 'The gateway uses the ws package with permessage-deflate off.');
    laptopOld.remember('Why is the websocket heartbeat 25 seconds?', 'The load balancer drops idle websocket connections after 30 seconds.');
    // Captured but not committed yet when the tool was updated (the batch had not run).
    laptopOld.remember('Where are websocket metrics exported?', 'Websocket metrics go to the /metrics endpoint of the gateway.', { commit: false });
    laptop = homeMachine(root, 'laptop');
    desktop = homeMachine(root, 'desktop');
  });
  after(() => cleanup());

  it('the first writer after the update moves everything into the home, says so once, and leaves the checkout as it was', () => {
    const statusBefore = git(laptopOld.dir, 'status', '--porcelain');
    const headBefore = git(laptopOld.dir, 'rev-parse', 'HEAD');
    const config = join(laptopOld.dir, 'config.toml');
    const st = JSON.parse(laptop.cli(['-c', config, 'status', '--json']).stdout) as { pending_move: string | null; home: string };
    assert.equal(st.pending_move, laptopOld.dir, 'status names the move that is coming');
    assert.equal(st.home, laptop.home);
    const start = laptop.cli(['-c', config, 'session-start', '--inject'], { input: JSON.stringify({ cwd: '/home/u/app', hook_event_name: 'SessionStart' }) });
    assert.equal(start.code, 0, start.stderr);
    const out = JSON.parse(start.stdout) as { systemMessage?: string; hookSpecificOutput?: { additionalContext: string } };
    assert.match(out.systemMessage ?? '', new RegExp(`memories moved from ${laptopOld.dir}/export into the memory home ${laptop.home}`));
    assert.match(out.systemMessage ?? '', /still holds 3 memory commit\(s\)/);
    assert.deepEqual(questions(laptop, 'websocket'), [
      'How did we fix the flaky websocket reconnect test?',
      'Where are websocket metrics exported?',
      'Which websocket library does the gateway use?',
      'Why is the websocket heartbeat 25 seconds?',
    ]);
    // The machine keeps its name (its files), the shared settings and the memory remote came along.
    const after = JSON.parse(laptop.cli(['status', '--json']).stdout) as { machine: string; sync: { memory_remote: { url: string } | null }; pending_move: string | null };
    assert.equal(after.machine, 'laptop');
    assert.equal(after.sync.memory_remote?.url, memoryRemote);
    assert.equal(after.pending_move, null);
    assert.match(readFileSync(join(laptop.home, 'config.toml'), 'utf8'), /top_k = 7/);
    // Pushed beside the old branch, memory data only; the old branch is as it was.
    const files = git(memoryRemote, 'ls-tree', '-r', '--name-only', MEMORY_BRANCH).split('\n');
    assert.ok(files.includes(`export/${month}_laptop.jsonl`) && files.includes(`export/${month}_desktop.jsonl`), files.join(', '));
    assert.ok(files.every((f) => f.startsWith('export/') || ['config.toml', '.gitattributes', '.gitignore'].includes(f)), files.join(', '));
    assert.equal(git(memoryRemote, 'log', '--format=%s', '-1', 'main'), 'memory: laptop capture');
    // The checkout: not a byte of its tracked files or history changed; only the marker in .cache/.
    assert.equal(git(laptopOld.dir, 'rev-parse', 'HEAD'), headBefore);
    assert.equal(git(laptopOld.dir, 'status', '--porcelain'), statusBefore);
    assert.ok(existsSync(join(laptopOld.dir, '.cache', 'memory-home.json')));
    // Told once.
    const again = laptop.cli(['session-start'], { input: '{}' });
    assert.doesNotMatch(again.stdout, /memories moved/);
  });

  it('the other machine goes on with the old layout, then upgrades with one command days later: nothing lost anywhere', () => {
    desktopOld.remember('How do we drain websocket connections before a deploy?', 'Send a going-away close frame and wait up to ten seconds.');
    // The laptop keeps capturing in its home meanwhile.
    assert.equal(laptop.capture('s-late', [['What websocket close code means going away?', 'Close code 1001 means the endpoint is going away.']]).code, 0);
    assert.equal(laptop.cli(['sync']).code, 0);
    const up = desktop.cli(['upgrade', '--from', desktopOld.dir]);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, new RegExp(`memories moved from ${desktopOld.dir}/export into the memory home ${desktop.home}`));
    const all = [
      'How did we fix the flaky websocket reconnect test?',
      'How do we drain websocket connections before a deploy?',
      'What websocket close code means going away?',
      'Where are websocket metrics exported?',
      'Which websocket library does the gateway use?',
      'Why is the websocket heartbeat 25 seconds?',
    ];
    assert.deepEqual(questions(desktop, 'websocket'), all);
    assert.equal(laptop.cli(['sync']).code, 0);
    assert.deepEqual(questions(laptop, 'websocket'), all, 'the laptop gets what the desktop kept in its checkout');
    const again = desktop.cli(['upgrade', '--from', desktopOld.dir]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing to move: the memories of .* already moved/);
    // Each memory once: no line doubled by moving or joining.
    for (const m of [laptop, desktop]) {
      const file = join(m.home, 'export', `${month}_desktop.jsonl`);
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      assert.equal(new Set(lines).size, lines.length, `${m.name}: a line twice in ${file}`);
    }
  });
});

describe('an upgrade that is compared, never trusted', () => {
  let root: string;
  let cleanup: () => void;
  let upstream: string;
  before(() => {
    ({ dir: root, cleanup } = tempDir('memory-upgrade2-'));
    upstream = join(root, 'upstream.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', upstream);
    const src = join(root, 'tool-src');
    git(root, 'clone', '-q', upstream, src);
    mkdirSync(join(src, 'export'), { recursive: true });
    writeFileSync(join(src, 'package.json'), JSON.stringify({ name: 'memory-engine', version: '0.1.0' }));
    writeFileSync(join(src, 'config.toml'), '[general]\nexport_dir = "export"\n');
    writeFileSync(join(src, 'export', '.gitkeep'), '');
    writeFileSync(join(src, '.gitignore'), '.cache/\nconfig.local.toml\n');
    git(src, 'add', '-A');
    git(src, '-c', 'user.name=dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'the tool');
    git(src, 'push', '-q', 'origin', 'main');
  });
  after(() => cleanup());

  function world(name: string): { old: OldCheckout; m: HomeMachine; memoryRemote: string } {
    const memoryRemote = join(root, `${name}-memory.git`);
    git(root, 'init', '-q', '--bare', '-b', 'main', memoryRemote);
    const old = oldCheckout(root, upstream, memoryRemote, name);
    old.remember(`Why does the ${name} cron start at 04:10?`, 'To run after the nightly backup has finished.');
    return { old, m: homeMachine(root, name), memoryRemote };
  }

  it('lines the old checkout received after `upgrade --from` (an old hook, a scheduler) are moved by the next run', () => {
    const { old, m } = world('later');
    const first = m.cli(['upgrade', '--from', old.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /1 line\(s\) in 1 file\(s\)/);
    old.remember('Which host runs the later cron?', 'The batch host, batch-2.', { commit: false });
    const second = m.cli(['upgrade', '--from', old.dir]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /memories moved from .* \(2 line\(s\) in 1 file\(s\)\)/, second.stdout);
    assert.deepEqual(questions(m, 'later cron'), ['Which host runs the later cron?', 'Why does the later cron start at 04:10?']);
    assert.match(m.cli(['upgrade', '--from', old.dir]).stdout, /nothing to move/, 'then nothing new');
  });

  it('an old memory remote that cannot be read: the checkout is not marked as moved, the person is told and never told to delete the old branch; the next run moves what it holds', () => {
    const { old, m, memoryRemote } = world('offline');
    // Another machine still on the old layout pushed a memory this checkout never pulled.
    const other = oldCheckout(root, upstream, memoryRemote, 'offline-other');
    other.remember('What does the offline-other machine back up?', 'Its /srv/media folder, weekly.');
    const hidden = `${memoryRemote}.away`;
    renameSync(memoryRemote, hidden);
    const first = m.cli(['upgrade', '--from', old.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /The old memory remote could not be read/);
    assert.doesNotMatch(first.stdout, /can be deleted/);
    assert.ok(!questions(m, 'offline-other machine back up').includes('What does the offline-other machine back up?'), 'not moved: it could not be read');
    renameSync(hidden, memoryRemote);
    const second = m.cli(['upgrade', '--from', old.dir]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /1 from the old memory remote/, second.stdout);
    assert.match(second.stdout, /can be deleted/);
    assert.ok(questions(m, 'offline-other machine back up').includes('What does the offline-other machine back up?'));
  });

  it('a re-run of an upgrade killed after it united the lines counts them', () => {
    const { old, m } = world('killed');
    old.remember('Where does the killed job write its report?', 'To /var/reports/killed.txt.');
    // What the killed run did: the lines are in the home, nothing committed, no marker.
    const file = `${month}_killed.jsonl`;
    assert.equal(m.cli(['status']).code, 0);
    mkdirSync(join(m.home, 'export'), { recursive: true });
    writeFileSync(join(m.home, 'export', file), readFileSync(join(old.dir, 'export', file), 'utf8'));
    const r = m.cli(['upgrade', '--from', old.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\(2 line\(s\) in 1 file\(s\)\)/, r.stdout);
    assert.doesNotMatch(r.stdout, /\(0 line/);
  });
});
