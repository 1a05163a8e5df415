/**
 * Team memory through git (the team-memory issue): several people, each with their own memory
 * home, git identity and personal remote, and a team remote of bare git. The opt-in boundary,
 * attribution, the review window, forget by the author and hide by anyone else, convergence of
 * ten clones that published while partitioned, a spoofed line set aside. Real git, real files,
 * the built CLI; the clock is libfaketime (an absolute time per command).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProjectDir } from '../../src/agents/claude-code/transcripts.js';
import { clockAt, FAKETIME_LIB, tempDir } from '../support/helpers.js';
import { conversation } from '../support/gitworld.js';
import { git, homeMachine, sessionReading, type HomeMachine } from '../support/homes.js';
import { text } from '../support/transcript-builder.js';
import { http, startUi } from '../support/viewer-process.js';

interface Hit {
  id: string;
  question: string;
  author?: string;
  team?: string;
}

let root: string;
let cleanup: () => void;
let seq = 0;

function person(name: string, opts: { env?: NodeJS.ProcessEnv } = {}): HomeMachine {
  const m = homeMachine(root, name, opts);
  return m;
}

function checkout(m: HomeMachine, folder: string, origin: string): string {
  const dir = join(m.user, 'src', folder);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', origin);
  return dir;
}

/** A Claude Code session in `cwd`, captured by hand (as the Stop hook's worker would), at `at`. */
function session(m: HomeMachine, cwd: string, pairs: Array<[string, string]>, env: NodeJS.ProcessEnv = {}, at = Date.now() - 600_000): void {
  const id = `team-s${++seq}`;
  const t = conversation(id, pairs, { cwd, startIso: new Date(at).toISOString() });
  const dir = join(m.projects, encodeProjectDir(cwd));
  mkdirSync(dir, { recursive: true });
  const p = join(dir, `${id}.jsonl`);
  writeFileSync(p, text(t));
  const r = m.cli(['session-end', '--foreground', '--transcript', p, '--cwd', cwd], { env });
  assert.equal(r.code, 0, r.stderr);
}

/** A session in `cwd` at `at` whose one turn reads `file` (as Claude Code records it), captured by hand. */
function reading(m: HomeMachine, cwd: string, q: string, a: string, file: string, at: number): void {
  sessionReading(m, `team-s${++seq}`, cwd, at, [{ q, a, read: [file] }]);
}

function ok(m: HomeMachine, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): string {
  const r = m.cli(args, { env, ...(cwd ? { cwd } : {}) });
  assert.equal(r.code, 0, `${m.name}: memory ${args.join(' ')}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function search(m: HomeMachine, query: string, cwd: string, extra: string[] = []): Hit[] {
  return (JSON.parse(ok(m, ['search', '--json', '--mode', 'keyword', '-k', '20', ...extra, query], {}, cwd)) as { hits: Hit[] }).hits;
}

/** Everything ever pushed to a bare remote, every branch, every commit, with patches. */
function wholeHistory(remote: string): string {
  return git(root, '--git-dir', remote, 'log', '-p', '--all', '--format=%H %an <%ae>%n%B');
}

function bare(name: string): string {
  const p = join(root, `${name}.git`);
  git(root, 'init', '-q', '--bare', p);
  return p;
}

describe('team memory', () => {
  before(() => ({ dir: root, cleanup } = tempDir('memory-team-')));
  after(() => cleanup());

  it('the opt-in boundary: only the shared, accepted project goes; another project, an excluded one, a <private> span, paths and the personal remote never reach the team remote\'s history', () => {
    const team = bare('boundary-team');
    const mine = bare('boundary-alice-mem');
    const alice = person('b-alice', { env: { MEMORY_PRIVACY_EXCLUDE_PROJECTS: 'secret-*' } });
    ok(alice, ['init', '--remote', mine]);
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    const web = checkout(alice, 'web', 'git@github.com:acme/web.git');
    const secret = checkout(alice, 'secret-vault', 'git@github.com:acme/secret-vault.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'https://github.com/acme/api', '--project', 'github.com/acme/secret-vault', '--review-delay', '0']);
    session(alice, api, [['Why does the api rate limiter use a sliding window?', 'A fixed window let bursts through at the boundary; the sliding log smooths them.']]);
    session(alice, api, [['Store the staging password <private>hunter2-staging-pw</private> in the api vault entry', 'Noted: the api vault entry is where the staging credentials live.']]);
    session(alice, web, [['How does the web carousel preload its images?', 'It preloads the next two slides with link rel=preload.']]);
    session(alice, secret, [['Which key wraps the vault master secret?', 'The HSM-held wrapping key of the vault project.']]);
    const review = ok(alice, ['team', 'review', '--json'], {}, api);
    const held = (JSON.parse(review) as { teams: Array<{ held: Array<{ question: string; held: string }> }> }).teams[0]?.held ?? [];
    assert.deepEqual(held.map((h) => h.held), ['a <private> span was removed from it'], review);
    const published = ok(alice, ['team', 'publish']);
    const history = wholeHistory(team);
    assert.match(history, /sliding window/, `the shared project's memory was published (a positive check): ${published}; review: ${review}`);
    for (const never of ['carousel', 'wraps the vault', 'hunter2', 'staging credentials', alice.user, mine, api]) {
      assert.ok(!history.includes(never), `the team history holds "${never}"`);
    }
    assert.doesNotMatch(history, /"cwd"/);
  });

  it('attribution: a teammate who joined finds the memory by search with author and team, and their session start in their own checkout (another URL spelling) carries it, attributed', () => {
    const team = bare('attr-team');
    const alice = person('a-alice');
    const bob = person('a-bob');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'git@github.com:acme/api.git', '--review-delay', '0']);
    session(alice, api, [['How do we shard the api job queue by tenant?', 'Consistent hashing on the tenant id over 64 virtual nodes.']]);
    ok(alice, ['team', 'publish']);
    ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    const bobApi = checkout(bob, 'acme-api', 'https://github.com/acme/api');
    const start = bob.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: 'bob-1', cwd: bobApi, hook_event_name: 'SessionStart' }) });
    assert.equal(start.code, 0, start.stderr);
    const context = (JSON.parse(start.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    assert.match(context, /teammates' notes on project "api" \(team acme\)/);
    assert.match(context, /## \d{4}-\d{2}-\d{2} · alice \(team acme\) · a-alice · id alice\//);
    assert.match(context, /shard the api job queue by tenant/);
    const hits = search(bob, 'shard job queue tenant', bobApi);
    assert.equal(hits.length, 1);
    assert.deepEqual([hits[0]?.author, hits[0]?.team, hits[0]?.question], ['alice', 'acme', 'How do we shard the api job queue by tenant?']);
    assert.deepEqual(search(bob, 'shard job queue tenant', bobApi, ['--scope', 'mine']), [], '--scope mine: his own only');
    // Alice sees her own memory once (the personal copy), not twice.
    const own = search(alice, 'shard job queue tenant', api);
    assert.equal(own.length, 1);
    assert.equal(own[0]?.author, undefined);
    // Per-prompt recall gives it as someone else's note.
    const recall = bob.cli(['recall'], { input: JSON.stringify({ prompt: 'how should we shard the job queue by tenant id', cwd: bobApi, hook_event_name: 'UserPromptSubmit' }) });
    assert.match(recall.stdout, /alice's note \(team acme, someone else's session\)/);
    // Asked what he did last time, with no memory of his own here: nothing — a teammate's latest is not what he did.
    const last = bob.cli(['recall'], { input: JSON.stringify({ prompt: 'what did we do last time?', cwd: bobApi, hook_event_name: 'UserPromptSubmit' }) });
    assert.deepEqual([last.code, last.stdout], [0, '']);
    // Alice, asked the same in her checkout: her own memory, listed.
    const hers = alice.cli(['recall'], { input: JSON.stringify({ prompt: 'what did we do last time?', cwd: api, hook_event_name: 'UserPromptSubmit' }) });
    assert.match(hers.stdout, /this project's latest sessions, newest first[\s\S]*shard the api job queue by tenant/);
  });

  it('recall by file: a teammate\'s session on src/checkout.ts comes with a Read of it, attributed, after the person\'s own, once a session; hidden by them, never again; their own published copy never twice; search --file and the viewer\'s file filter find it', async () => {
    const team = bare('file-team');
    const alice = person('fr-alice');
    const bob = person('fr-bob');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    const bobApi = checkout(bob, 'api', 'https://github.com/acme/api');
    for (const dir of [api, bobApi]) {
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'src', 'checkout.ts'), 'export function capture(p) { return retryOnce(p); }\n');
      writeFileSync(join(dir, 'src', 'cart.ts'), 'export const cart = [];\n');
    }
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
    const t0 = Date.now() - 3_600_000;
    reading(alice, api, 'Why does checkout retry the payment capture only once?', 'A second retry double-charged cards on a slow gateway.', 'src/checkout.ts', t0);
    reading(alice, api, 'How is the cart kept between visits?', 'In a signed cookie, never in the session store.', 'src/cart.ts', t0 + 60_000);
    ok(alice, ['team', 'publish']);
    ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    reading(bob, bobApi, 'Should checkout log the full card token on failures?', 'Never: only the last four digits.', 'src/checkout.ts', t0 - 86_400_000);
    assert.equal(bob.cli(['session-start'], { input: JSON.stringify({ session_id: 'bob-f0', cwd: bobApi, hook_event_name: 'SessionStart' }) }).code, 0);
    const read = (m: HomeMachine, cwd: string, sessionId: string, file: string) => {
      const r = m.cli(['file-recall'], { cwd, input: JSON.stringify({ session_id: sessionId, cwd, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: join(cwd, file) } }) });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim() ? ((JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext) : '';
    };
    const first = read(bob, bobApi, 'bob-f1', 'src/checkout.ts');
    assert.match(first, /## \d{4}-\d{2}-\d{2} · fr-bob · id [0-9a-f]{12}\nQ: Should checkout log the full card token/, 'his own first');
    assert.match(first, /## \d{4}-\d{2}-\d{2} · alice's note \(a teammate's session\) · fr-alice · id alice\/[0-9a-f]{12}\n(?:\([^)]*\)\n)?Q: Why does checkout retry the payment capture only once\?/, 'then alice\'s, attributed');
    assert.ok(first.indexOf('full card token') < first.indexOf('retry the payment capture'));
    assert.doesNotMatch(first, /signed cookie/, 'her session on another file: not here');
    assert.equal(read(bob, bobApi, 'bob-f1', 'src/checkout.ts'), '', 'once a session, hers too');
    // search --file: both, hers attributed; --scope mine: his own.
    const byFile = (extra: string[]) => (JSON.parse(ok(bob, ['search', '--json', '--file', 'src/checkout.ts', ...extra], {}, bobApi)) as { hits: Hit[] }).hits;
    assert.deepEqual(byFile([]).map((h) => [h.author, h.question]), [
      ['alice', 'Why does checkout retry the payment capture only once?'],
      [undefined, 'Should checkout log the full card token on failures?'],
    ]);
    assert.deepEqual(byFile(['--scope', 'mine']).map((h) => h.question), ['Should checkout log the full card token on failures?']);
    // The viewer's file filter (a memory's file link): both too, hers attributed, her detail naming the file.
    const ui = await startUi({}, bob.env);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const listed = JSON.parse((await http(ui.port, '/api/search?repo=github.com%2Facme%2Fapi&file=src%2Fcheckout.ts', { headers: { cookie } })).body) as { mode: string; hits: Hit[] };
      assert.deepEqual(listed.hits.map((h) => [h.author, h.question]), byFile([]).map((h) => [h.author, h.question]), 'the same as search --file, newest first');
      const detail = JSON.parse((await http(ui.port, `/api/memory/${encodeURIComponent(listed.hits[0]?.id as string)}`, { headers: { cookie } })).body) as { memory: { repo: string; repo_files: string[] } };
      assert.deepEqual([detail.memory.repo, detail.memory.repo_files], ['github.com/acme/api', ['src/checkout.ts']]);
    } finally {
      ui.child.kill('SIGINT');
    }
    // Alice reads the file: her own memory once (the personal copy), never her published one too.
    const hers = read(alice, api, 'alice-f1', 'src/checkout.ts');
    assert.match(hers, /retry the payment capture only once/);
    assert.doesNotMatch(hers, /a teammate's session/);
    // Bob hides it: never again.
    const id = byFile([])[0]?.id as string;
    ok(bob, ['forget', id]);
    const later = read(bob, bobApi, 'bob-f2', 'src/checkout.ts');
    assert.match(later, /full card token/, 'his own still (a positive check)');
    assert.doesNotMatch(later, /retry the payment capture/, 'hidden by him');
  });

  it('the review window: inside it nothing goes, after it what waited goes; a withheld memory never goes; a redacted one is held, listed with its reason, and goes only when released', (t) => {
    if (!FAKETIME_LIB) {
      t.skip('libfaketime is not installed (apt-get install faketime): the clock cannot be moved');
      return;
    }
    const team = bare('window-team');
    const alice = person('w-alice');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    const t0 = Date.now();
    const at = (minutes: number) => clockAt(t0 + minutes * 60_000);
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '1'], at(0));
    session(alice, api, [['Why does the api export run at 02:30 UTC?', 'It must finish before the 04:00 backup window.']], at(1), t0 - 60_000);
    session(alice, api, [['Should the api cache TTL be five minutes or ten?', 'Ten: the upstream prices change hourly at most.']], at(1), t0 - 50_000);
    session(alice, api, [['Deploy the api with GITHUB_TOKEN=ghp_R8c2Vq7LmN4pX9sT1wY6zA3bK5dF0gH2jQ8e set', 'The deploy script reads it from the environment.']], at(1), t0 - 40_000);
    const review = JSON.parse(ok(alice, ['team', 'review', '--json'], at(2))) as { teams: Array<{ waiting: Array<{ id: string; question: string }>; held: Array<{ id: string; held: string }> }> };
    const box = review.teams[0];
    assert.equal(box?.waiting.length, 2);
    assert.equal(box?.held.length, 1);
    assert.match(box?.held[0]?.held ?? '', /it was redacted \(github/);
    const ttl = box?.waiting.find((w) => w.question.includes('cache TTL'))?.id as string;
    ok(alice, ['team', 'withhold', ttl.slice(0, 10)], at(3));
    ok(alice, ['team', 'publish'], at(10));
    assert.doesNotMatch(wholeHistory(team), /02:30 UTC/, 'inside the hour: nothing');
    ok(alice, ['team', 'publish'], at(70));
    const after = wholeHistory(team);
    assert.match(after, /02:30 UTC/, 'after the hour: what waited');
    assert.doesNotMatch(after, /cache TTL/, 'withheld: never');
    assert.doesNotMatch(after, /deploy script reads it/, 'held: not without release');
    const heldId = box?.held[0]?.id as string;
    ok(alice, ['team', 'release', heldId], at(80));
    const released = wholeHistory(team);
    assert.match(released, /deploy script reads it/, 'released: the person\'s word');
    assert.doesNotMatch(released, /R8c2Vq7LmN4pX9sT1wY6zA3bK5dF0gH2jQ8e/, 'the secret itself was redacted at capture');
    ok(alice, ['team', 'publish'], at(60 * 48));
    assert.doesNotMatch(wholeHistory(team), /cache TTL/, 'withheld, even days later');
  });

  it('forget: a teammate\'s forget hides it for them alone; the author\'s forget removes it for everyone after their next sync', () => {
    const team = bare('forget-team');
    const alice = person('f-alice');
    const bob = person('f-bob');
    const carol = person('f-carol');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
    session(alice, api, [['Why was the api retry budget set to three?', 'Three retries kept p99 under the SLO in the load test.']]);
    ok(alice, ['team', 'publish']);
    ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    ok(carol, ['team', 'join', 'acme', '--remote', team, '--handle', 'carol']);
    const bobApi = checkout(bob, 'api', 'https://github.com/acme/api.git');
    const carolApi = checkout(carol, 'api', 'ssh://git@github.com/acme/api');
    const id = search(bob, 'retry budget three', bobApi)[0]?.id as string;
    assert.match(id, /^alice\//);
    const hid = ok(bob, ['forget', id]);
    assert.match(hid, /Hid alice\/\S+ \(team acme\) for you alone.*only alice's forget removes it for everyone/);
    assert.deepEqual(search(bob, 'retry budget three', bobApi), [], 'hidden for bob');
    assert.equal(search(carol, 'retry budget three', carolApi).length, 1, 'carol still finds it');
    assert.equal(search(alice, 'retry budget three', api).length, 1, 'alice still has it');
    ok(alice, ['forget', id.slice('alice/'.length)]);
    for (const [m, cwd] of [[bob, bobApi], [carol, carolApi]] as const) {
      const s = m.cli(['session-start'], { input: JSON.stringify({ session_id: `${m.name}-2`, cwd, hook_event_name: 'SessionStart' }) });
      assert.equal(s.code, 0, s.stderr);
      assert.deepEqual(search(m, 'retry budget three', cwd), [], `${m.name}: gone after the next session start`);
    }
    assert.deepEqual(search(alice, 'retry budget three', api), []);
  });

  it('the viewer: a teammate\'s memory listed with its author and team, its detail without a path, and its forget a hide for this person alone', async () => {
    const team = bare('viewer-team');
    const alice = person('v-alice');
    const bob = person('v-bob');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
    session(alice, api, [['Why does the api invoice job lock by customer?', 'Two workers billed one customer twice before the advisory lock.']]);
    ok(alice, ['team', 'publish']);
    ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    const bobApi = checkout(bob, 'api', 'https://github.com/acme/api');
    assert.equal(bob.cli(['session-start'], { input: JSON.stringify({ session_id: 'bob-v1', cwd: bobApi, hook_event_name: 'SessionStart' }) }).code, 0);
    session(bob, bobApi, [['Where does the api invoice job run?', 'On the billing worker pool, nightly.']]);
    const ui = await startUi({}, bob.env);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const listed = JSON.parse((await http(ui.port, '/api/search?q=invoice%20job', { headers: { cookie } })).body) as { hits: Array<{ id: string; author?: string; team?: string; question: string }> };
      const theirs = listed.hits.find((h) => h.author === 'alice');
      assert.ok(theirs, JSON.stringify(listed));
      assert.equal(theirs.team, 'acme');
      assert.match(theirs.id, /^alice\//);
      assert.ok(listed.hits.some((h) => h.author === undefined && h.question.includes('Where does the api invoice job run')), 'his own beside it');
      const detail = JSON.parse((await http(ui.port, `/api/memory/${encodeURIComponent(theirs.id)}`, { headers: { cookie } })).body) as { memory: { question: string; cwd: unknown; author: string; team: string } };
      assert.deepEqual([detail.memory.author, detail.memory.team, detail.memory.cwd], ['alice', 'acme', null]);
      assert.match(detail.memory.question, /lock by customer/);
      const forgot = await http(ui.port, '/api/forget', { method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${ui.port}` }, body: JSON.stringify({ ids: [theirs.id] }) });
      assert.equal(forgot.status, 200, forgot.body);
      assert.deepEqual((JSON.parse(forgot.body) as { hidden: string[] }).hidden, [theirs.id]);
      const after = JSON.parse((await http(ui.port, '/api/search?q=invoice%20job', { headers: { cookie } })).body) as { hits: Array<{ author?: string }> };
      assert.equal(after.hits.filter((h) => h.author === 'alice').length, 0, 'hidden for bob');
      assert.equal(after.hits.length, 1, 'his own still there');
    } finally {
      ui.child.kill('SIGINT');
    }
    assert.equal(search(alice, 'invoice job lock customer', api).length, 1, 'alice still has it');
    assert.match(wholeHistory(team), /advisory lock/);
  });

  it('a person\'s clone holds what they read: joined, nothing of the projects; a session in api brings api (fetched from a host that filters), never web; a pull brings what is new there', () => {
    const team = bare('cone-team');
    // As GitHub and GitLab serve: partial clones allowed.
    git(root, '--git-dir', team, 'config', 'uploadpack.allowFilter', 'true');
    const alice = person('c-alice');
    const bob = person('c-bob');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    const web = checkout(alice, 'web', 'git@github.com:acme/web.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--project', 'github.com/acme/web', '--review-delay', '0']);
    session(alice, api, [['Why does the api use idempotency keys on POST /orders?', 'Clients retry on timeouts; the key makes the retry a no-op.']]);
    session(alice, web, [['Why does the web checkout page debounce the coupon field?', 'Each keystroke called the pricing service; 300 ms debounce.']]);
    ok(alice, ['team', 'publish']);
    const joined = ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    assert.match(joined, /reading no project yet/);
    const clone = join(bob.home, '.cache', 'teams', 'acme', 'repo');
    const missing = () => git(clone, 'rev-list', '--objects', '--missing=print', '--all').split('\n').filter((l) => l.startsWith('?')).length;
    assert.ok(existsSync(join(clone, 'team.toml')));
    assert.ok(!existsSync(join(clone, 'api')) && !existsSync(join(clone, 'web')), 'nothing of the projects checked out');
    assert.ok(missing() >= 2, 'their memory files not fetched');
    const bobApi = checkout(bob, 'api', 'https://github.com/acme/api');
    const start = bob.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: 'bob-c1', cwd: bobApi, hook_event_name: 'SessionStart' }) });
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.stdout, /idempotency keys/, 'api\'s team memory injected in the first session there');
    assert.ok(existsSync(join(clone, 'api', 'alice')), 'api checked out');
    assert.ok(!existsSync(join(clone, 'web')), 'web never');
    assert.ok(missing() >= 1, 'web\'s blobs still not fetched');
    const teamWide = (q: string) => (JSON.parse(ok(bob, ['search', '--json', '--mode', 'keyword', '--scope', 'team', q], {}, bob.user)) as { hits: Hit[] }).hits.map((h) => h.question);
    assert.deepEqual(teamWide('idempotency keys'), ['Why does the api use idempotency keys on POST /orders?']);
    assert.deepEqual(teamWide('debounce coupon'), [], 'web is not read here');
    assert.match(ok(bob, ['team', 'status']), /read here: api\b/);
    // Alice publishes again in api: bob's next start has it, fetched within the pull.
    session(alice, api, [['Where are the api idempotency keys kept, and for how long?', 'In Redis, 24 hours, keyed by client and key.']]);
    ok(alice, ['team', 'publish']);
    const again = bob.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: 'bob-c2', cwd: bobApi, hook_event_name: 'SessionStart' }) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /kept, and for how long/);
    assert.equal(git(clone, 'status', '--porcelain'), '', 'a clean clone');
    assert.ok(!existsSync(join(clone, 'web')), 'still no web');
  });

  it('search in a checkout the team accepts reads it from then on, without a session start first', () => {
    const team = bare('cone2-team');
    const alice = person('c2-alice');
    const bob = person('c2-bob');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
    session(alice, api, [['How are api webhooks signed?', 'HMAC-SHA256 over the raw body with the per-endpoint secret.']]);
    ok(alice, ['team', 'publish']);
    ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
    const bobApi = checkout(bob, 'api', 'ssh://git@github.com/acme/api.git');
    assert.deepEqual(search(bob, 'webhooks signed', bobApi).map((h) => h.author), ['alice']);
  });

  it('a team remote that accepts the connection and never answers: session start ends within the silence limit with the team\'s memories as last pulled, capture goes on, status tells', async () => {
    const sockets: Socket[] = [];
    const server = createServer((c) => sockets.push(c)); // accepts, reads nothing, says nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const team = bare('silent-team');
      const alice = person('q-alice');
      const bob = person('q-bob');
      const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
      ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
      session(alice, api, [['Why is the api session cookie SameSite=Lax?', 'The OAuth redirect back from the bank needs it sent on top-level GETs.']]);
      ok(alice, ['team', 'publish']);
      ok(bob, ['team', 'join', 'acme', '--remote', team, '--handle', 'bob']);
      const bobApi = checkout(bob, 'api', 'https://github.com/acme/api');
      const start = (id: string) => bob.cli(['session-start', '--inject'], { input: JSON.stringify({ session_id: id, cwd: bobApi, hook_event_name: 'SessionStart' }), env: { MEMORY_SYNC_NETWORK_SILENCE_S: '2' } });
      assert.match(start('bob-s1').stdout, /SameSite=Lax/);
      const configFile = join(bob.home, 'config.toml');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/team.git`;
      writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(team, url));
      const t0 = Date.now();
      const silent = start('bob-s2');
      const ms = Date.now() - t0;
      assert.equal(silent.code, 0, silent.stderr);
      assert.ok(ms < 20_000, `session start took ${ms} ms`);
      assert.match(silent.stdout, /SameSite=Lax/, 'the team\'s memories as last pulled');
      session(bob, bobApi, [['Does the api cookie change break the mobile app?', 'No: the app sends the token header, not the cookie.']]);
      assert.equal(search(bob, 'mobile app token header', bobApi, ['--scope', 'mine']).length, 1, 'captured');
      const status = ok(bob, ['team', 'status']);
      assert.match(status, /last error: pull timeout/);
      const left = spawnSync('pgrep', ['-f', url], { encoding: 'utf8' }).stdout.trim();
      assert.equal(left, '', 'no git left running');
    } finally {
      for (const c of sockets) c.destroy();
      server.close();
    }
  });

  it('ten clones of five people, partitioned from the team remote, capture and then publish in random order: every clone converges on the same live set, no conflict marker, no line lost', () => {
    const team = bare('conv-team');
    const people = ['c-ann', 'c-ben', 'c-cat', 'c-dan', 'c-eve'];
    const machines: Array<{ m: HomeMachine; person: string; api: string }> = [];
    const first = person(`${people[0]}-1`);
    ok(first, ['init', '--remote', bare(`${people[0]}-mem`)]);
    checkout(first, 'api', 'git@github.com:acme/api.git');
    ok(first, ['team', 'create', 'acme', '--remote', team, '--handle', people[0] as string, '--project', 'github.com/acme/api', '--review-delay', '0']);
    for (const [i, p] of people.entries()) {
      const one = i === 0 ? first : person(`${p}-1`);
      if (i > 0) {
        ok(one, ['init', '--remote', bare(`${p}-mem`)]);
        ok(one, ['team', 'join', 'acme', '--remote', team, '--handle', p, '--review-delay', '0']);
        ok(one, ['team', 'share', 'acme', '--project', 'api']);
      }
      // The person's second machine gets the team through their own memory remote (config.toml).
      const two = person(`${p}-2`);
      ok(two, ['init', '--remote', join(root, `${p}-mem.git`)]);
      assert.match(readFileSync(join(two.home, 'config.toml'), 'utf8'), /\[\[team\]\]/);
      for (const m of [one, two]) machines.push({ m, person: p, api: checkout(m, `api-${m.name}`, 'https://github.com/acme/api') });
    }
    // Partitioned: the team remote is away while everyone captures and tries to publish.
    const away = `${team}.away`;
    renameSync(team, away);
    const expected: string[] = [];
    for (const x of machines) {
      for (let k = 0; k < 2; k++) {
        const q = `Convergence note ${k} from ${x.m.name}: why the api queue worker drains in batches`;
        expected.push(q);
        session(x.m, x.api, [[q, `Answer ${k} of ${x.m.name}: batches of 50 keep the database hot.`]]);
      }
      const r = x.m.cli(['team', 'publish']);
      assert.notEqual(r.code, 0, `${x.m.name}: the remote is away, the publish says so`);
    }
    renameSync(away, team);
    const order = machines.map((x, i) => ({ x, k: (i * 7 + 3) % machines.length })).sort((a, b) => a.k - b.k).map((o) => o.x);
    for (const x of order) ok(x.m, ['team', 'publish']);
    const sets: string[][] = [];
    for (const x of machines) {
      const s = x.m.cli(['session-start'], { input: JSON.stringify({ session_id: `${x.m.name}-c`, cwd: x.api, hook_event_name: 'SessionStart' }) });
      assert.equal(s.code, 0, s.stderr);
      const all = search(x.m, 'convergence note api queue worker drains batches', x.api, ['--scope', 'team', '-k', '50']);
      const own = search(x.m, 'convergence note api queue worker drains batches', x.api, ['--scope', 'mine', '-k', '50']);
      sets.push([...all.map((h) => h.question), ...own.map((h) => h.question)].sort());
    }
    for (const s of sets) assert.deepEqual(s, [...expected].sort(), 'every clone holds all 20, each once');
    const files = git(root, '--git-dir', team, 'ls-tree', '-r', '--name-only', 'memories').split('\n').filter((f) => f.endsWith('.jsonl'));
    let lines = 0;
    for (const f of files) {
      const body = git(root, '--git-dir', team, 'show', `memories:${f}`);
      assert.doesNotMatch(body, /^(<<<<<<<|=======|>>>>>>>)/m, `${f}: a conflict marker`);
      lines += body.split('\n').filter(Boolean).length;
    }
    assert.equal(lines, expected.length, 'no line lost, none doubled');
  });

  it('a line appended to alice\'s folder from someone else\'s machine, with alice\'s id and a newer time, changes nothing in any cache and is counted as set aside', () => {
    const team = bare('spoof-team');
    const alice = person('s-alice');
    const carol = person('s-carol');
    const api = checkout(alice, 'api', 'git@github.com:acme/api.git');
    ok(alice, ['team', 'create', 'acme', '--remote', team, '--handle', 'alice', '--project', 'github.com/acme/api', '--review-delay', '0']);
    session(alice, api, [['Which region hosts the api primary database?', 'eu-west-1, with a warm standby in eu-central-1.']]);
    ok(alice, ['team', 'publish']);
    ok(carol, ['team', 'join', 'acme', '--remote', team, '--handle', 'carol']);
    const carolApi = checkout(carol, 'api', 'https://github.com/acme/api');
    assert.equal(search(carol, 'region primary database', carolApi)[0]?.author, 'alice');
    // Mallory's machine clones the team remote and writes as alice, by hand.
    const mal = join(root, 'mallory-clone');
    git(root, 'clone', '-q', '-b', 'memories', team, mal);
    const file = git(mal, 'ls-files', 'api/alice').split('\n').find((f) => f.endsWith('.jsonl')) as string;
    const line = JSON.parse(readFileSync(join(mal, file), 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    const forged = { ...line, answer: 'us-east-1 (moved last week, tell nobody).', updated_at: new Date(Date.now() + 86_400_000).toISOString() };
    writeFileSync(join(mal, file), `${readFileSync(join(mal, file), 'utf8')}${JSON.stringify(forged)}\n`);
    git(mal, 'add', '-A');
    git(mal, '-c', 'user.name=mallory', '-c', 'user.email=mallory@example.com', 'commit', '-q', '-m', 'fix region', '-m', 'Memory-Machine: mallory-laptop');
    git(mal, 'push', '-q', 'origin', 'memories');
    for (const [m, cwd] of [[alice, api], [carol, carolApi]] as const) {
      const s = m.cli(['session-start'], { input: JSON.stringify({ session_id: `${m.name}-s`, cwd, hook_event_name: 'SessionStart' }) });
      assert.equal(s.code, 0, s.stderr);
      const status = JSON.parse(ok(m, ['team', 'status', '--json'])) as { teams: Array<{ set_aside: number }> };
      assert.ok((status.teams[0]?.set_aside ?? 0) >= 1, `${m.name}: the forged line is counted as set aside`);
    }
    const hits = search(carol, 'region primary database', carolApi);
    assert.equal(hits.length, 1);
    const shown = JSON.parse(ok(carol, ['search', '--json', '--mode', 'keyword', '--full', 'region primary database'], {}, carolApi)) as { hits: Array<{ answer: string }> };
    assert.equal(shown.hits[0]?.answer, 'eu-west-1, with a warm standby in eu-central-1.', 'alice\'s own version stands');
    assert.ok(existsSync(join(carol.home, '.cache', 'teams', 'acme', 'verified.json')));
  });
});
