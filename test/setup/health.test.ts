/**
 * What breaks around memory is told where the person is (the settings issue): shared settings
 * that do not parse never travel and never stop a capture; git missing, a model folder that
 * does not exist, a memory home that cannot be used or is a project — each a systemMessage at
 * session start, a clear CLI error (exit 1, never 70), a `doctor` check. Real git, real files,
 * the built CLI.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { tempDir } from '../support/helpers.js';
import { git, homeMachine, questions, type HomeMachine } from '../support/homes.js';
import { CWD } from '../support/gitworld.js';

/** The session start as the agent runs it (hook JSON on stdin); its parsed output. */
function sessionStart(m: HomeMachine, env: NodeJS.ProcessEnv = {}): { code: number; out: { systemMessage?: string; hookSpecificOutput?: { additionalContext?: string } }; stderr: string } {
  // In the project the machine's captures ran in (support/homes.ts capture: CWD).
  const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: `s-${Date.now()}`, cwd: CWD, hook_event_name: 'SessionStart' }), env });
  return { code: r.code, out: r.stdout.trim() ? (JSON.parse(r.stdout) as { systemMessage?: string }) : {}, stderr: r.stderr };
}

/** Every commit of a branch of a bare remote: its config.toml (if it changed) and whether it touched export/. */
function remoteCommits(remote: string, branch = 'memories'): Array<{ sha: string; subject: string; files: string[] }> {
  const log = git(remote, 'log', '--format=%H%x09%s', branch);
  return log.split('\n').filter(Boolean).map((l) => {
    const [sha, subject] = l.split('\t') as [string, string];
    const files = git(remote, 'show', '--name-only', '--format=', sha).split('\n').filter(Boolean);
    return { sha, subject, files };
  });
}

describe('a shared config.toml that does not parse', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-health-')));
  after(() => cleanup());

  it('is told at session start (file, line, key), never committed or pushed; the last good version applies and capture goes on; fixed, it travels in a commit of its own', () => {
    const remote = join(root, 'settings.git');
    git(root, 'init', '-q', '--bare', remote);
    const a = homeMachine(root, 'cfg-a');
    const b = homeMachine(root, 'cfg-b');
    assert.equal(a.capture('s1', [['How do we rotate the staging TLS certificates?', 'A cron job renews them every sixty days.']]).code, 0);
    assert.equal(a.cli(['init', '--remote', remote]).code, 0);
    const shared = join(a.home, 'config.toml');
    // A good change first: it travels, alone.
    writeFileSync(shared, readFileSync(shared, 'utf8').replace(/^top_k = 5/m, 'top_k = 4'));
    assert.equal(a.cli(['sync']).code, 0);
    // Then a typo.
    const broken = readFileSync(shared, 'utf8').replace(/^\[search\]$/m, '[search').replace(/^top_k = 4/m, 'top_k = four');
    writeFileSync(shared, broken);
    const start = sessionStart(a);
    assert.equal(start.code, 0, start.stderr);
    const told = start.out.systemMessage ?? '';
    assert.match(told, /config\.toml \(line \d+, key /, told);
    assert.match(told, /does not parse/);
    assert.match(told, /neither committed nor pushed/);
    assert.match(start.out.hookSpecificOutput?.additionalContext ?? '', /TLS certificates/, 'memory is on: the session got its memories');
    // Capture goes on, by hand too, and is pushed; the broken file is not.
    const kept = a.capture('s2', [['Which bucket keeps the nightly database dumps?', 'The dumps go to the cold-storage bucket.']]);
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(a.cli(['sync']).code, 0);
    const status = JSON.parse(a.cli(['status', '--json']).stdout) as { problems: Array<{ kind: string; path: string }>; config: string[] };
    assert.deepEqual(status.problems.map((p) => [p.kind, p.path]), [['settings', shared]]);
    assert.ok(status.config.some((s) => /as committed in [0-9a-f]{7}/.test(s)), status.config.join(' | '));
    const doctor = a.cli(['doctor', '--offline']);
    assert.match(doctor.stdout, /FAIL\s+configuration\s+.*config\.toml/);
    // Machine B joins: it gets the memories and the last good settings, never the broken text.
    assert.equal(b.cli(['init', '--remote', remote]).code, 0);
    assert.deepEqual(questions(b, 'nightly dumps bucket'), ['Which bucket keeps the nightly database dumps?']);
    assert.match(readFileSync(join(b.home, 'config.toml'), 'utf8'), /^top_k = 4$/m);
    // Fixed: the settings go in a commit of their own.
    writeFileSync(shared, broken.replace('[search\n', '[search]\n').replace('top_k = four', 'top_k = 6'));
    assert.equal(a.cli(['sync']).code, 0);
    const commits = remoteCommits(remote);
    for (const c of commits) {
      const touchesSettings = c.files.includes('config.toml');
      assert.ok(!(touchesSettings && c.files.some((f) => f.startsWith('export/'))), `${c.subject}: config.toml and export/ in one commit`);
      if (touchesSettings) {
        assert.match(c.subject, /^settings: /, c.subject);
        assert.doesNotThrow(() => parseToml(git(remote, 'show', `${c.sha}:config.toml`)), `${c.subject}: a config.toml that does not parse`);
      }
    }
    assert.ok(commits.some((c) => c.files.includes('config.toml') && git(remote, 'show', `${c.sha}:config.toml`).includes('top_k = 6')), 'the fixed file travelled');
    assert.doesNotMatch(sessionStart(a).out.systemMessage ?? '', /config\.toml/, 'nothing more to tell');
  });

  it('pulled from another machine (written there by hand, pushed by git), it is not applied here: the last good version is, and the person is told', () => {
    const remote = join(root, 'pulled.git');
    git(root, 'init', '-q', '--bare', remote);
    const a = homeMachine(root, 'pull-a');
    assert.equal(a.capture('p1', [['Where do the feature flags for checkout live?', 'In the flags service, project checkout.']]).code, 0);
    const shared = join(a.home, 'config.toml');
    writeFileSync(shared, readFileSync(shared, 'utf8').replace(/^recent = 5/m, 'recent = 2'));
    assert.equal(a.cli(['init', '--remote', remote]).code, 0);
    // Someone edits it in a clone of the memory remote and pushes with plain git.
    const other = join(root, 'pull-hand');
    git(root, 'clone', '-q', '-b', 'memories', remote, other);
    writeFileSync(join(other, 'config.toml'), readFileSync(join(other, 'config.toml'), 'utf8').replace(/^recent = 2/m, 'recent = "two"'));
    git(other, 'commit', '-q', '-am', 'tweak', '--author', 'x <x@example.com>');
    git(other, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'push', '-q', 'origin', 'memories');
    const start = sessionStart(a);
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.out.systemMessage ?? '', /config\.toml \(line \d+, key inject\.recent\): inject\.recent: expected an integer/);
    const status = JSON.parse(a.cli(['status', '--json']).stdout) as { config: string[] };
    assert.ok(status.config.some((s) => s.includes('as committed in')), status.config.join(' | '));
    assert.equal(a.capture('p2', [['What resets the checkout flags cache?', 'Publishing a flag change resets it.']]).code, 0);
    assert.deepEqual(questions(a, 'checkout flags'), ['What resets the checkout flags cache?', 'Where do the feature flags for checkout live?']);
  });
});

describe('health told where the person is', () => {
  let root: string;
  let cleanup: () => void;
  before(() => ({ dir: root, cleanup } = tempDir('memory-health2-')));
  after(() => cleanup());

  /** A PATH with node and nothing else: no git. */
  function pathWithoutGit(): string {
    const bin = join(root, 'only-node-bin');
    if (!existsSync(bin)) {
      mkdirSync(bin);
      symlinkSync(process.execPath, join(bin, 'node'));
    }
    return bin;
  }

  it('without git on PATH: session start says so naming git, capture keeps the turn, sync and doctor exit 1 naming git; with git back, it is committed', () => {
    const m = homeMachine(root, 'nogit');
    const env = { PATH: pathWithoutGit() };
    const start = sessionStart(m, env);
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.out.systemMessage ?? '', /git is not installed, or not on the PATH/);
    assert.equal(sessionStart(m, env).out.systemMessage ?? '', '', 'told once a day');
    const q = 'Why did the payments webhook retry storm happen on Friday?';
    const captured = m.cli(['session-end', '--foreground', '--transcript', writeTranscript(m, q), '--cwd', m.user], { env });
    assert.equal(captured.code, 0, captured.stderr);
    assert.deepEqual(questions(m, 'payments webhook retry storm'), [q], 'kept and found without git');
    const sync = m.cli(['sync'], { env });
    assert.equal(sync.code, 1);
    assert.match(sync.stderr, /^memory: git is not installed/m);
    assert.doesNotMatch(sync.stderr, /not inside a git repository|git init/);
    const doctor = m.cli(['doctor', '--offline'], { env });
    assert.equal(doctor.code, 1);
    assert.match(doctor.stdout, /FAIL\s+git\s+git is not installed/);
    // git is back: the next session start makes the repository and commits what was kept.
    assert.equal(sessionStart(m).code, 0);
    assert.match(git(m.home, 'log', '-p', '--all'), /payments webhook retry storm/);
  });

  it('a model folder that does not exist: session start says so, naming it; doctor calls it broken; hybrid search still answers by keywords', () => {
    const m = homeMachine(root, 'nomodel');
    const missing = join(root, 'models', 'my-e5');
    const env = { MEMORY_EMBEDDING_MODEL: missing };
    const start = sessionStart(m, env);
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.out.systemMessage ?? '', new RegExp(`the embedding model folder ${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} does not exist`));
    const doctor = m.cli(['doctor', '--offline'], { env });
    assert.equal(doctor.code, 1);
    assert.match(doctor.stdout, /FAIL\s+embedding model\s+the embedding model folder .* does not exist/);
  });

  it('MEMORY_HOME naming a file: status and doctor exit 1 naming the memory home and MEMORY_HOME; session start exits 0 and tells it in the agent', () => {
    const m = homeMachine(root, 'homefile');
    const file = join(root, 'not-a-folder');
    writeFileSync(file, 'x');
    const env = { MEMORY_HOME: file };
    for (const args of [['status'], ['search', 'anything']]) {
      const r = m.cli(args, { env });
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^memory: the memory home ${file} \\(set by MEMORY_HOME\\) cannot be used: it is a file`), r.stderr);
      assert.doesNotMatch(r.stderr, /unexpected error|report it/);
    }
    const doctor = m.cli(['doctor', '--offline'], { env });
    assert.equal(doctor.code, 1);
    assert.match(doctor.stdout, /ok\s+Node\.js/);
    assert.match(doctor.stdout, /FAIL\s+memory home\s+the memory home .* cannot be used: it is a file/);
    const start = sessionStart(m, env);
    assert.equal(start.code, 0);
    assert.match(start.out.systemMessage ?? '', /memory is off for this session — the memory home .* \(set by MEMORY_HOME\) cannot be used: it is a file, not a folder — point MEMORY_HOME at a folder of its own/);
    assert.equal(sessionStart(m, env).out.systemMessage ?? '', '', 'once a day');
    const stop = m.cli(['session-end'], { input: JSON.stringify({ session_id: 'x', transcript_path: join(root, 'none.jsonl'), hook_event_name: 'Stop' }), env });
    assert.equal(stop.code, 0, 'the Stop hook never breaks the agent');
  });

  it('MEMORY_HOME naming a project repository: refused, nothing written or committed there; told at session start and by doctor', () => {
    const m = homeMachine(root, 'homeproj');
    const project = join(root, 'shop');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'main.ts'), 'export {};\n');
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'add', '-A');
    git(project, '-c', 'user.name=p', '-c', 'user.email=p@example.com', 'commit', '-q', '-m', 'shop');
    const before = git(project, 'log', '--format=%H');
    const env = { MEMORY_HOME: project };
    const start = sessionStart(m, env);
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.out.systemMessage ?? '', /MEMORY_HOME names .*shop, a git repository that holds other files than memories \(src\/main\.ts\)/);
    const captured = m.cli(['session-end', '--foreground', '--transcript', writeTranscript(m, 'Should the shop keep its cart in local storage?'), '--cwd', m.user], { env });
    const stop = m.cli(['session-end'], { input: JSON.stringify({ session_id: 'hp', transcript_path: writeTranscript(m, 'Should the shop keep its cart in local storage?'), cwd: m.user, hook_event_name: 'Stop' }), env });
    assert.equal(stop.code, 0, 'the Stop hook never breaks the agent');
    assert.equal(git(project, 'log', '--format=%H'), before, 'no commit on the project');
    assert.equal(existsSync(join(project, 'export')), false, 'no export folder in the project');
    assert.equal(git(project, 'status', '--porcelain', '--ignored'), '', 'nothing written there, not even a cache');
    assert.equal(captured.code, 1, 'a capture by hand is refused, naming why');
    assert.match(captured.stderr, /MEMORY_HOME names/);
    const doctor = m.cli(['doctor', '--offline'], { env });
    assert.equal(doctor.code, 1);
    assert.match(doctor.stdout, /FAIL\s+memory home\s+MEMORY_HOME names/);
  });

  it('an export folder inside a project repository: doctor calls it broken (it said ok)', () => {
    const m = homeMachine(root, 'exportproj');
    const project = join(root, 'api');
    mkdirSync(join(project, 'lib'), { recursive: true });
    writeFileSync(join(project, 'lib', 'x.ts'), 'export {};\n');
    git(project, 'init', '-q', '-b', 'main');
    git(project, 'add', '-A');
    git(project, '-c', 'user.name=p', '-c', 'user.email=p@example.com', 'commit', '-q', '-m', 'api');
    const cfg = join(root, 'own.toml');
    writeFileSync(cfg, `[general]\nexport_dir = ${JSON.stringify(join(project, 'memories'))}\n`);
    const doctor = m.cli(['--config', cfg, 'doctor', '--offline']);
    assert.equal(doctor.code, 1, doctor.stdout);
    assert.match(doctor.stdout, /FAIL\s+memory repository\s+the export folder .* is inside the git repository/);
  });

  it('a value of the wrong type in the environment is quoted as typed, in one sentence', () => {
    const m = homeMachine(root, 'envtype');
    const r = m.cli(['search', 'x'], { env: { MEMORY_SEARCH_TOP_K: 'five' } });
    assert.equal(r.code, 1);
    assert.equal(r.stderr.split('\n')[0], 'memory: invalid configuration: MEMORY_SEARCH_TOP_K is "five", but search.top_k takes an integer');
    assert.doesNotMatch(r.stderr, /NaN|\(see/);
  });

  it('the first run\'s model, not downloaded yet, is a note, not a failure', () => {
    const m = homeMachine(root, 'firstrun');
    assert.equal(m.cli(['install', '--claude-code']).code, 0);
    const env = { MEMORY_EMBEDDING_MODEL: 'Xenova/multilingual-e5-small', MEMORY_EMBEDDING_ALLOW_REMOTE: 'true', MEMORY_EMBEDDING_DTYPE: 'q8' };
    const doctor = m.cli(['doctor', '--offline'], { env });
    assert.match(doctor.stdout, /note\s+embedding model\s+Xenova\/multilingual-e5-small is not downloaded yet/);
    assert.doesNotMatch(doctor.stdout, /FAIL/);
    assert.equal(doctor.code, 0, doctor.stdout);
  });
});

/** A Claude Code transcript of one turn in the machine's HOME; its path. */
function writeTranscript(m: HomeMachine, question: string): string {
  const dir = join(m.projects, 'by-hand');
  mkdirSync(dir, { recursive: true });
  const p = join(dir, 'hand.jsonl');
  const at = new Date(Date.now() - 60_000).toISOString();
  const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd: m.user, sessionId: 'hand', version: '2.1.332', gitBranch: 'main' };
  writeFileSync(
    p,
    [
      JSON.stringify({ ...base, type: 'user', uuid: 'u-1', timestamp: at, message: { role: 'user', content: question } }),
      JSON.stringify({ ...base, type: 'assistant', uuid: 'a-1', timestamp: at, message: { id: 'm1', type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text: 'A flapping health check made the webhook retry every second.' }] } }),
    ].join('\n') + '\n',
  );
  return p;
}
