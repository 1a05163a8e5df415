/**
 * The whole loop on real git: a bare remote, clones as machines, the built CLI as the hooks.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { classify } from '../../src/sync/process.js';
import { conversation, CWD, git, gitOr, gitWorld, placeTranscript, remoteLog, type GitWorld, type Machine } from '../support/gitworld.js';
import { CLI, parseJsonLines, TRACER } from '../support/helpers.js';
import { assistant, text, user } from '../support/transcript-builder.js';

const place = placeTranscript;

function exportLines(m: Machine): Array<{ id: string; answer?: string; machine: string; deleted?: boolean }> {
  if (!existsSync(m.exportDir)) return [];
  return readdirSync(m.exportDir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => parseJsonLines(readFileSync(join(m.exportDir, f), 'utf8'))) as Array<{ id: string; answer?: string; machine: string }>;
}

function searchIds(m: Machine, query: string): string[] {
  const r = m.cli(['search', '--mode', 'keyword', '--json', '--half-life', '0', query]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hits: Array<{ question: string }> }).hits.map((h) => h.question);
}

function end(m: Machine, path: string, extra: string[] = []) {
  const r = m.cli(['session-end', '--foreground', '--json', '--transcript', path, '--cwd', CWD, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { added: number; updated: number; unchanged: number; pending: number; embedded: number; sync: { committed: boolean; push?: { status: string } } | null };
}

async function waitFor(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let world: GitWorld;
before(() => (world = gitWorld()));
after(() => world.cleanup());

describe('two machines share one memory through git', () => {
  it('each captures its own sessions; after session-start each finds both', () => {
    const laptop = world.machine('laptop');
    const desktop = world.machine('desktop');
    const a = place(laptop, conversation('s-laptop', [['How do we rotate the zebra signing keys?', 'Run the rotate-keys script, then redeploy the zebra service.']]));
    const b = place(desktop, conversation('s-desktop', [['Why does the quokka build fail on arm64?', 'The quokka native addon lacked an arm64 prebuild; building from source fixed it.']]));
    const ra = end(laptop, a);
    assert.equal(ra.added, 1);
    assert.equal(ra.embedded, 1);
    assert.equal(ra.sync?.push?.status, 'pushed');
    const rb = end(desktop, b);
    assert.equal(rb.added, 1);
    assert.equal(rb.sync?.push?.status, 'pushed', 'desktop was behind: rejected, rebased, pushed');

    for (const m of [laptop, desktop]) {
      const s = m.cli(['session-start', '--cwd', CWD], { input: '' });
      assert.equal(s.code, 0, s.stderr);
      assert.deepEqual(searchIds(m, 'zebra signing keys'), ['How do we rotate the zebra signing keys?']);
      assert.deepEqual(searchIds(m, 'quokka arm64'), ['Why does the quokka build fail on arm64?']);
    }
    assert.equal(git(desktop.repo, 'log', '--merges', '--format=%h'), '', 'history stays linear');
    assert.ok(existsSync(join(laptop.exportDir, '2026-03_laptop.jsonl')));
    assert.ok(existsSync(join(laptop.exportDir, '2026-03_desktop.jsonl')));
    const st = JSON.parse(laptop.cli(['status', '--json']).stdout) as { machines: string[]; records: number; unpushed_commits: number; repository: string };
    assert.deepEqual(st.machines, ['desktop', 'laptop']);
    assert.equal(st.records, 2);
    assert.equal(st.unpushed_commits, 0);
    assert.equal(st.repository, laptop.repo);
  });
});

describe('session-end on one machine', () => {
  it('the same transcript twice changes nothing; a growing one appends only what is new', () => {
    const m = world.machine('grow');
    const t = conversation('s-grow', [['Set up the penguin cache for the API', 'Added an LRU penguin cache in front of the API.']]);
    const p = place(m, t);
    assert.equal(end(m, p).added, 1);
    const commits = git(m.repo, 'rev-list', '--count', 'HEAD');
    const second = end(m, p);
    assert.deepEqual([second.added, second.updated, second.unchanged, second.sync?.committed], [0, 0, 1, false]);
    assert.equal(git(m.repo, 'rev-list', '--count', 'HEAD'), commits, 'no new commit');

    // The answer grows (hours of work after a "continue") and a new turn starts.
    user(t, 'continue');
    assistant(t, [{ text: 'Also set a 5 minute TTL on the penguin cache.' }]);
    user(t, 'Now document the penguin cache settings');
    assistant(t, [{ text: 'Documented TTL and size in docs/cache.md.' }]);
    writeFileSync(p, text(t));
    const third = end(m, p);
    assert.deepEqual([third.added, third.updated, third.unchanged], [1, 1, 0]);
    const lines = exportLines(m).filter((l) => l.machine === 'grow');
    assert.equal(lines.length, 3, 'one original, one grown version, one new turn');
    const st = JSON.parse(m.cli(['status', '--json']).stdout) as { records: number };
    assert.equal(st.records, 2 + 2, 'two of this machine, plus the two pulled from earlier machines');
    const hit = JSON.parse(m.cli(['search', '--mode', 'keyword', '--json', 'penguin cache TTL']).stdout) as { hits: Array<{ answer: string }> };
    assert.ok(hit.hits.some((h) => h.answer.includes('5 minute TTL')));
  });

  it('four hook invocations at once lose and duplicate nothing', async () => {
    const m = world.machine('busy');
    const paths = [0, 1, 2, 3].map((i) =>
      place(m, conversation(`s-busy-${i}`, [[`Question ${i} about the walrus migration plan`, `Answer ${i}: migrate the walrus tables in batches.`], [`Follow-up ${i} on walrus indexes please`, `Answer ${i}b: add the walrus indexes afterwards.`]])),
    );
    const started = Date.now();
    const runs = paths.map(
      (p, i) =>
        new Promise<{ code: number | null; ms: number }>((resolve) => {
          const child = spawn(process.execPath, [CLI, '-c', m.config, 'session-end'], { stdio: ['pipe', 'ignore', 'pipe'] });
          child.stdin.end(JSON.stringify({ session_id: `s-busy-${i}`, transcript_path: p, cwd: CWD, hook_event_name: 'Stop', stop_hook_active: false }));
          child.on('exit', (code) => resolve({ code, ms: Date.now() - started }));
        }),
    );
    const results = await Promise.all(runs);
    for (const r of results) assert.equal(r.code, 0);
    const commitsBefore = Number(git(m.repo, 'rev-list', '--count', 'HEAD'));
    await waitFor(() => exportLines(m).filter((l) => l.machine === 'busy').length >= 8, 'the four transcripts captured');
    const mine = exportLines(m).filter((l) => l.machine === 'busy');
    assert.equal(mine.length, 8);
    assert.equal(new Set(mine.map((l) => l.id)).size, 8, 'no duplicates');
    // The session ends: whatever the batch still holds is committed and pushed at once.
    const endHook = spawn(process.execPath, [CLI, '-c', m.config, 'session-end'], { stdio: ['pipe', 'ignore', 'pipe'] });
    endHook.stdin.end(JSON.stringify({ session_id: 's-busy-0', transcript_path: paths[0], cwd: CWD, hook_event_name: 'SessionEnd' }));
    await waitFor(() => git(m.repo, 'status', '--porcelain', 'export') === '' && gitOr(m.repo, 'rev-list', '--count', 'memory/main..HEAD') === '0', 'everything committed and pushed');
    await waitFor(() => !existsSync(join(m.home, '.cache', 'worker.lock')), 'the worker to exit');
    const commits = Number(git(m.repo, 'rev-list', '--count', 'HEAD')) - commitsBefore;
    assert.ok(commits >= 1 && commits <= 2, `four Stops and a SessionEnd made ${commits} commits (batched: at most 2)`);
    assert.ok(remoteLog(world).some((s) => s.startsWith('memory: busy captures')));
  });
});

describe('when the remote misbehaves', () => {
  it('unreachable: the commit is kept and pushed on the next run', () => {
    const m = world.machine('offline');
    m.setRemoteUrl(join(world.root, 'no-such-remote.git'));
    const p = place(m, conversation('s-off', [['What port does the narwhal service use?', 'The narwhal service listens on port 7411.']]));
    const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', CWD]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /push: remote unreachable, commits kept/);
    assert.match(git(m.repo, 'log', '-1', '--format=%s'), /^memory: offline \+1/);
    assert.equal((JSON.parse(m.cli(['status', '--json']).stdout) as { unpushed_commits: number }).unpushed_commits, 1);
    assert.ok(!remoteLog(world).some((s) => s.startsWith('memory: offline')));
    m.setRemoteUrl(world.remote);
    const again = end(m, p);
    assert.equal(again.added, 0);
    assert.equal(again.sync?.push?.status, 'pushed');
    assert.ok(remoteLog(world).some((s) => s.startsWith('memory: offline')));
  });

  it('session-start with the remote gone warns and serves local memories', () => {
    const m = world.machine('lonely');
    const lonely = '/home/u/lonely-app';
    const p = place(m, conversation('s-lonely', [['Where are the capybara backups stored?', 'In the capybara bucket, rotated weekly.']], { cwd: lonely }));
    assert.equal(m.cli(['session-end', '--foreground', '--no-push', '--transcript', p, '--cwd', lonely]).code, 0);
    m.setRemoteUrl(join(world.root, 'gone.git'));
    const r = m.cli(['session-start', '--inject', '--cwd', lonely], { input: '{}' });
    assert.equal(r.code, 0);
    assert.match(r.stderr, /pull: remote unreachable|pull failed/);
    assert.ok(JSON.parse(r.stdout).hookSpecificOutput.additionalContext.includes('capybara'));
  });
});

describe('hook input', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['empty stdin: nothing names a transcript', '', /no transcript given/],
    ['not JSON', 'this is not json', /not JSON/],
    ['a transcript that does not exist', JSON.stringify({ transcript_path: '/nope/x.jsonl', cwd: CWD }), /transcript \/nope\/x\.jsonl does not exist/],
    ['a directory as transcript', JSON.stringify({ transcript_path: '/tmp', cwd: CWD }), /is not a file/],
    ['unknown fields and wrong types', JSON.stringify({ transcript_path: 42, weird: true, cwd: '/nowhere/at/all' }), /no transcript found for \/nowhere/],
  ];
  for (const [name, input, re] of cases) {
    it(`session-end: ${name} → exit 0 and one clear stderr line`, () => {
      const m = world.machine(`in-${name.replace(/[^a-z]/g, '').slice(0, 12)}`);
      const r = m.cli(['session-end'], { input });
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, re);
    });
  }

  it('session-start: broken config still exits 0 with a clear line, and tells the person in the agent', () => {
    const m = world.machine('badcfg');
    writeFileSync(m.config, '[search]\ntop_k = "x"\n');
    const r = m.cli(['session-start', '--inject'], { input: 'garbage' });
    assert.equal(r.code, 0);
    assert.match(JSON.parse(r.stdout).systemMessage, /^memory: memory is off for this session — invalid configuration: .*search\.top_k/);
    assert.match(r.stderr, /search\.top_k/);
  });
});

describe('session-start --inject', () => {
  it('prints valid hook JSON under 10,000 characters, for this project only, without loading the model', () => {
    const m = world.machine('inject');
    const long = 'detail '.repeat(1500);
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 12; i++) pairs.push([`Long question number ${i} about the ocelot service ${'x'.repeat(500)}`, `Answer ${i}: ${long}`]);
    end(m, place(m, conversation('s-inject', pairs)));
    const trace = join(world.root, 'trace-inject.txt');
    writeFileSync(trace, '');
    const r = m.cli(['session-start', '--inject'], {
      input: JSON.stringify({ session_id: 'new', cwd: CWD, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { TRACE_IMPORTS_FILE: trace, NODE_OPTIONS: `--import ${TRACER}` },
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
    const ctx = out.hookSpecificOutput.additionalContext;
    assert.ok(ctx.length < 10_000, `${ctx.length} characters`);
    assert.match(ctx, /Reference material/);
    assert.match(ctx, /## 2026-03-25 · inject/);
    assert.ok(ctx.includes('ocelot'));
    assert.ok(!/huggingface|onnxruntime/.test(readFileSync(trace, 'utf8')), 'session-start never loads the model');
    assert.ok(readFileSync(trace, 'utf8').includes('better-sqlite3'));

    const other = m.cli(['session-start', '--inject', '--no-pull', '--cwd', '/home/u/other-project'], { input: '' });
    assert.equal(other.code, 0);
    assert.equal(other.stdout, '', 'nothing to inject for a project without memories');
  });

  it('an excluded project is neither captured nor injected', () => {
    const m = world.machine('private', { extra: '[privacy]\nexclude_projects = ["app"]' });
    const r = end(m, place(m, conversation('s-private', [['Secret plans for the lynx merger deal', 'Keep the lynx merger confidential until May.']])));
    assert.equal(r.added, 0);
    assert.ok(!exportLines(m).some((l) => l.machine === 'private'));
    const s = m.cli(['session-start', '--inject', '--cwd', CWD], { input: '' });
    assert.equal(s.stdout, '');
  });

  it('by hand, the project is the transcript\'s own cwd, never the folder the command runs in; exclusions see it', () => {
    const m = world.machine('byhand', { extra: '[privacy]\nexclude_projects = ["secret-*"]' });
    // Run from the memory checkout (the test runner's folder), as the README shows.
    const pub = place(m, conversation('s-hand', [['Which port does the pelican service use?', 'The pelican service listens on 8443.']], { cwd: '/home/u/pelican' }));
    const r = m.cli(['session-end', '--foreground', '--json', '--transcript', pub]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { added: number }).added, 1);
    assert.deepEqual(exportLines(m).filter((l) => l.machine === 'byhand').map((l) => (l as unknown as { project: string }).project), ['pelican']);
    // A folder named like an excluded pattern inside another repository: excluded.
    const secret = place(m, conversation('s-hand-2', [['Notes on the client contract renewal', 'The renewal is due in March.']], { cwd: '/home/u/mono/secret-y' }));
    const r2 = m.cli(['session-end', '--foreground', '--json', '--transcript', secret]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal((JSON.parse(r2.stdout) as { added: number; excluded: number }).added, 0);
    assert.ok(!exportLines(m).some((l) => (l as unknown as { question?: string }).question?.includes('contract renewal')));
    // What was withheld is told: by the run itself, and by status since install.
    const token = `ghp_${'Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2Mm'}`;
    const leak = place(m, conversation('s-hand-3', [['Why does the pelican deploy fail with 401?', `The deploy used the revoked token ${token}; a new one fixed it.`]], { cwd: '/home/u/pelican' }));
    const r3 = m.cli(['session-end', '--foreground', '--transcript', leak]);
    assert.equal(r3.code, 0, r3.stderr);
    assert.match(r3.stderr, /redacted 1 github-token/);
    const st = JSON.parse(m.cli(['status', '--json']).stdout) as { privacy: { redactions: Record<string, number>; excluded_sessions: number } };
    assert.deepEqual(st.privacy.redactions, { 'github-token': 1 });
    assert.equal(st.privacy.excluded_sessions, 1);
    assert.match(m.cli(['status']).stdout, /withheld +1 github-token; 1 excluded sessions/);
  });
});

describe('import', () => {
  it('backfills every transcript once, in one commit, skipping subagent files', () => {
    const m = world.machine('importer');
    place(m, conversation('s-imp-1', [['First imported question about the yak shaving', 'The yak was shaved with the new script.']]));
    place(m, conversation('s-imp-2', [['Second imported question about the yak barn', 'The yak barn needs a new roof.']]));
    const sub = join(m.projects, encodeProjectDir(CWD), 's-imp-1', 'subagents');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'agent-1.jsonl'), text(conversation('s-imp-1', [['Subagent prompt about the yak', 'Subagent answer about the yak.']])));
    const before = Number(git(m.repo, 'rev-list', '--count', 'HEAD'));
    const r = m.cli(['import', '--all', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { added: number; transcripts: number; committed: boolean };
    assert.deepEqual([out.added, out.transcripts, out.committed], [2, 2, true]);
    assert.equal(Number(git(m.repo, 'rev-list', '--count', 'HEAD')), before + 1);
    const again = JSON.parse(m.cli(['import', '--all', '--json']).stdout) as { added: number; committed: boolean };
    assert.deepEqual([again.added, again.committed], [0, false]);
    assert.ok(!exportLines(m).some((l) => (l.answer ?? '').includes('Subagent answer')));
  });

  it('no transcripts: a clear error', () => {
    const m = world.machine('empty');
    const r = m.cli(['import']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no transcripts found/);
  });
});

describe('what git said, classified', () => {
  it('a remote path that holds the digits 403 is unreachable, not refused credentials; an HTTP 403 is refused credentials', () => {
    const gone = new Error("fatal: '/tmp/memory-git-R40338/no-such-remote.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.");
    assert.equal(classify(gone).kind, 'offline');
    assert.equal(classify(new Error("fatal: unable to access 'https://git.example.com/acme/memories.git/': The requested URL returned error: 403")).kind, 'auth');
    assert.equal(classify(new Error("remote: Permission to acme/memories.git denied to bob.\nfatal: unable to access 'https://git.example.com/acme/memories.git/': The requested URL returned error: 403")).kind, 'auth');
  });
});
