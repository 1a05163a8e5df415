/**
 * Memories that know their code, end to end through the built CLI: one project per
 * repository across two machines with differently named clones and a worktree, two
 * repositories with the same folder name, old folder-named memories joining their
 * repository (found from the folder, or merged by alias on every machine), and the files
 * changed since a memory: edited, deleted, renamed, reverted — in search, show, session-start
 * injection and recall. Real git for the memory repository and for the code repositories.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, gitWorld, placeTranscript, type GitWorld, type Machine } from '../support/gitworld.js';
import { cloneCode, codeOrigin } from '../support/git-fixture.js';
import { assistant, transcript, user, type T } from '../support/transcript-builder.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, daysAgo } from '../support/helpers.js';
import { http, startUi } from '../support/viewer-process.js';

interface Hit {
  id: string;
  project: string;
  question: string;
  changed_files?: string[];
  files_note?: string;
}

const SSE_V1 = 'export function reconnect() { return backoff(1000); }\n';

/** A session in `cwd` whose turns touched `files` (absolute paths, as Claude Code records them); timestamps from now. */
function session(id: string, cwd: string, turns: Array<{ q: string; a: string; files?: Array<[tool: string, path: string]> }>): T {
  const t = transcript(id, cwd);
  t.clock = Date.now();
  for (const turn of turns) {
    user(t, turn.q);
    assistant(t, [...(turn.files ?? []).map(([tool, path]) => ({ tool, input: { file_path: path } })), { text: turn.a }]);
  }
  return t;
}

function capture(m: Machine, t: T): void {
  const r = m.cli(['session-end', '--foreground', '--transcript', placeTranscript(m, t), '--cwd', t.cwd]);
  assert.equal(r.code, 0, r.stderr);
}

function searchJson(m: Machine, query: string, args: string[] = [], cwd?: string): Hit[] {
  const r = m.cli(['search', query, '--mode', 'keyword', '--json', '-k', '10', ...args], cwd ? { env: {} } : {});
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hits: Hit[] }).hits;
}

function hitFor(hits: Hit[], question: RegExp): Hit {
  const h = hits.find((x) => question.test(x.question));
  assert.ok(h, `no hit for ${question} among ${hits.map((x) => x.question).join(' | ')}`);
  return h;
}

function sync(m: Machine): void {
  const r = m.cli(['sync']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
}

function inject(m: Machine, cwd: string): string {
  const r = m.cli(['session-start', '--inject'], { input: JSON.stringify({ cwd, hook_event_name: 'SessionStart', session_id: 'new' }) });
  assert.equal(r.code, 0, r.stderr);
  if (r.stdout.trim() === '') return '';
  const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
  return out.hookSpecificOutput?.additionalContext ?? '';
}

function records(m: Machine): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const n of readdirSync(m.exportDir)) {
    if (!/^\d{4}-\d{2}_.*\.jsonl$/.test(n)) continue;
    for (const l of readFileSync(join(m.exportDir, n), 'utf8').split('\n')) if (l.trim()) out.push(JSON.parse(l) as Record<string, unknown>);
  }
  return out;
}

describe('code-aware memories across machines', () => {
  let world: GitWorld;
  let laptop: Machine;
  let desktop: Machine;
  let code: string;
  let lapApi: string;
  let lapWorktree: string;
  let deskApi: string;
  let lapOther: string;

  before(() => {
    world = gitWorld();
    laptop = world.machine('laptop');
    desktop = world.machine('desktop');
    code = join(world.root, 'code');
    mkdirSync(join(code, 'laptop', 'src', 'other'), { recursive: true });
    mkdirSync(join(code, 'desktop', 'work'), { recursive: true });
    const acme = codeOrigin(code, 'acme-api', { 'src/sse.ts': SSE_V1, 'src/db.ts': 'export const db = open();\n', 'src/util.ts': 'export const id = (x) => x;\n' });
    const other = codeOrigin(code, 'other-api', { 'main.go': 'package main\n' });
    lapApi = cloneCode(acme, join(code, 'laptop', 'src', 'api'), 'git@git.example.com:acme/api.git');
    deskApi = cloneCode(acme, join(code, 'desktop', 'work', 'acme-api-2'), 'https://git.example.com/acme/api');
    lapOther = cloneCode(other, join(code, 'laptop', 'src', 'other', 'api'), 'git@git.example.com:other/api.git');
    lapWorktree = join(lapApi, '.claude', 'worktrees', 'feat-x');
    git(lapApi, 'worktree', 'add', '-q', '-b', 'feat-x', lapWorktree);
    lapWorktree = realpathSync(lapWorktree);

    capture(laptop, session('s-main', lapApi, [
      { q: 'Why does the SSE stream reconnect forever after a deploy?', a: 'The reconnect in src/sse.ts had no backoff cap; I capped it and read src/db.ts for the pool.', files: [['Edit', join(lapApi, 'src', 'sse.ts')], ['Read', join(lapApi, 'src', 'db.ts')]] },
      { q: 'Where is the identity helper for the pipeline kept?', a: 'In src/util.ts, the identity helper is exported for the pipeline stages.', files: [['Read', join(lapApi, 'src', 'util.ts')]] },
    ]));
    capture(laptop, session('s-wt', lapWorktree, [{ q: 'In the feature worktree, how do we gate the flag rollout?', a: 'The flag rollout is gated by an environment switch read at startup.' }]));
    capture(laptop, session('s-other', lapOther, [{ q: 'How does the other service start its main loop?', a: 'main.go starts the loop after loading the config of the other service.', files: [['Read', join(lapOther, 'main.go')]] }]));
    sync(laptop);
    sync(desktop);
  });
  after(() => world.cleanup());

  it('records the repository, HEAD and the blob id of each file as git computes them', () => {
    const sse = records(laptop).find((r) => /SSE stream/.test(String(r.question)));
    assert.ok(sse);
    assert.equal(sse.repo, 'git.example.com/acme/api');
    assert.equal(sse.project, 'api');
    assert.equal(sse.head_commit, git(lapApi, 'rev-parse', 'HEAD'));
    assert.deepEqual(sse.file_blobs, [
      { file: join(lapApi, 'src', 'sse.ts'), path: 'src/sse.ts', blob: git(lapApi, 'hash-object', 'src/sse.ts') },
      { file: join(lapApi, 'src', 'db.ts'), path: 'src/db.ts', blob: git(lapApi, 'hash-object', 'src/db.ts') },
    ]);
  });

  it('files every checkout and worktree of one repository under one project on both machines, and a same-named repository apart', () => {
    for (const m of [laptop, desktop]) {
      const hits = searchJson(m, 'reconnect identity helper flag rollout main loop');
      assert.equal(hitFor(hits, /SSE stream/).project, 'api', m.name);
      assert.equal(hitFor(hits, /identity helper/).project, 'api', m.name);
      assert.equal(hitFor(hits, /feature worktree/).project, 'api', `${m.name}: a worktree is its repository`);
      assert.equal(hitFor(hits, /other service/).project, 'other-api', `${m.name}: same folder name, other repository`);
      // Vector search reads the project from vec0's partition: moved with the name.
      const vec = searchJson(m, 'How does the other service start its main loop?', ['--mode', 'vector', '--project', 'other-api']);
      assert.ok(vec.length > 0 && vec.every((h) => h.project === 'other-api'), `${m.name}: ${JSON.stringify(vec.map((h) => h.project))}`);
      assert.ok(vec.some((h) => /other service/.test(h.question)));
    }
    const list = JSON.parse(desktop.cli(['projects', '--json']).stdout) as { projects: Array<{ project: string; memories: number; repos: string[]; machines: string[] }> };
    const api = list.projects.find((p) => p.project === 'api');
    assert.deepEqual(api && { memories: api.memories, repos: api.repos, machines: api.machines }, { memories: 3, repos: ['git.example.com/acme/api'], machines: ['laptop'] });
    assert.deepEqual(list.projects.find((p) => p.project === 'other-api')?.repos, ['git.example.com/other/api']);
  });

  it("injects at the desktop's session start what the laptop captured in the same repository, and nothing of the other one", () => {
    const text = inject(desktop, deskApi);
    assert.match(text, /recent memories of project "api"/);
    assert.match(text, /SSE stream reconnect/);
    assert.match(text, /feature worktree/);
    assert.doesNotMatch(text, /other service/);
    assert.doesNotMatch(text, /changed since/, 'nothing changed yet');
    const other = inject(laptop, lapOther);
    assert.match(other, /other service/);
    assert.doesNotMatch(other, /SSE stream/);
  });

  it('scopes --project by repository name, key or remote URL', () => {
    for (const p of ['api', 'git.example.com/acme/api', 'https://git.example.com/acme/api.git', 'git@git.example.com:acme/api']) {
      const hits = searchJson(desktop, 'reconnect main loop', ['--project', p]);
      assert.ok(hits.length > 0, p);
      assert.ok(hits.every((h) => h.project === 'api'), p);
    }
  });

  it("flags files changed, deleted or renamed in the desktop's checkout by content, and unflags a revert", () => {
    const sse = join(lapApi, 'src', 'sse.ts');
    const db = join(lapApi, 'src', 'db.ts');
    let h = hitFor(searchJson(desktop, 'SSE reconnect'), /SSE stream/);
    assert.deepEqual(h.changed_files, [], 'compared, nothing changed');
    // Rewritten with the same bytes: unchanged (content decides, not the time).
    writeFileSync(join(deskApi, 'src', 'sse.ts'), SSE_V1);
    assert.deepEqual(hitFor(searchJson(desktop, 'SSE reconnect'), /SSE stream/).changed_files, []);
    appendFileSync(join(deskApi, 'src', 'sse.ts'), 'export const cap = 30_000;\n');
    h = hitFor(searchJson(desktop, 'SSE reconnect'), /SSE stream/);
    assert.deepEqual(h.changed_files, [sse]);
    assert.equal(h.files_note, 'src/sse.ts changed since this memory');
    const textOut = desktop.cli(['search', 'SSE reconnect', '--mode', 'keyword']).stdout;
    assert.match(textOut, /\(src\/sse\.ts changed since this memory\)/);
    assert.match(inject(desktop, deskApi), /\(src\/sse\.ts changed since this memory\)/);
    rmSync(join(deskApi, 'src', 'db.ts'));
    h = hitFor(searchJson(desktop, 'SSE reconnect'), /SSE stream/);
    assert.deepEqual(h.changed_files, [sse, db]);
    assert.equal(h.files_note, 'src/sse.ts changed; src/db.ts deleted since this memory');
    // Back to the recorded content: unchanged again.
    writeFileSync(join(deskApi, 'src', 'sse.ts'), SSE_V1);
    git(deskApi, 'checkout', '--', 'src/db.ts');
    assert.deepEqual(hitFor(searchJson(desktop, 'SSE reconnect'), /SSE stream/).changed_files, []);
    // A rename: the recorded path is gone.
    git(deskApi, 'mv', 'src/util.ts', 'src/ids.ts');
    h = hitFor(searchJson(desktop, 'identity helper'), /identity helper/);
    assert.deepEqual(h.changed_files, [join(lapApi, 'src', 'util.ts')]);
    assert.equal(h.files_note, 'src/util.ts deleted since this memory');
    const shown = JSON.parse(desktop.cli(['show', h.id, '--json']).stdout) as Hit & { project: string };
    assert.deepEqual(shown.changed_files, h.changed_files);
    assert.equal(shown.project, 'api');
    assert.match(desktop.cli(['show', h.id]).stdout, /src\/util\.ts deleted since this memory/);
    // The laptop's own checkout is untouched: nothing changed there.
    assert.deepEqual(hitFor(searchJson(laptop, 'identity helper'), /identity helper/).changed_files, []);
    git(deskApi, 'mv', 'src/ids.ts', 'src/util.ts');
  });

  it('says it in per-prompt recall too, without a git process', () => {
    appendFileSync(join(deskApi, 'src', 'sse.ts'), '// tuned\n');
    const r = desktop.cli(['recall', '--prompt', 'why does the SSE stream reconnect forever after a deploy', '--cwd', deskApi, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const rec = (JSON.parse(r.stdout) as { recalled: Hit[] }).recalled.find((x) => /SSE stream/.test(x.question));
    assert.ok(rec, r.stdout);
    assert.deepEqual(rec.changed_files, [join(lapApi, 'src', 'sse.ts')]);
    const text = desktop.cli(['recall', '--prompt', 'why does the SSE stream reconnect forever after a deploy', '--cwd', deskApi]).stdout;
    assert.match(text, /src\/sse\.ts changed since this memory/);
    writeFileSync(join(deskApi, 'src', 'sse.ts'), SSE_V1);
  });

  it('says it in the MCP tools and the viewer', async () => {
    appendFileSync(join(deskApi, 'src', 'sse.ts'), '// tuned again\n');
    try {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', desktop.config, 'mcp'], cwd: deskApi, env: { ...process.env, HOME: desktop.home, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const s = (await client.callTool({ name: 'memory_search', arguments: { query: 'SSE stream reconnect', mode: 'keyword', project: 'api' } })) as { content: Array<{ text: string }> };
        const hit = hitFor((JSON.parse(s.content[0]?.text ?? '{}') as { hits: Hit[] }).hits, /SSE stream/);
        assert.deepEqual(hit.changed_files, [join(lapApi, 'src', 'sse.ts')]);
        assert.equal(hit.files_note, 'src/sse.ts changed since this memory');
        const shown = (await client.callTool({ name: 'memory_show', arguments: { id: hit.id } })) as { content: Array<{ text: string }> };
        assert.equal((JSON.parse(shown.content[0]?.text ?? '{}') as Hit).files_note, 'src/sse.ts changed since this memory');
      } finally {
        await client.close();
      }

      const ui = await startUi(desktop, { HOME: desktop.home });
      try {
        const open = await http(ui.port, `/?token=${ui.token}`);
        const cookie = String(open.headers['set-cookie']).split(';')[0] as string;
        const get = (path: string) => http(ui.port, path, { headers: { cookie } });
        const list = JSON.parse((await get('/api/search?q=SSE%20reconnect&project=api')).body) as { hits: Hit[] };
        const hit = hitFor(list.hits, /SSE stream/);
        assert.equal(hit.files_note, 'src/sse.ts changed since this memory');
        const one = JSON.parse((await get(`/api/memory/${hit.id}`)).body) as { memory: Hit };
        assert.deepEqual(one.memory.changed_files, [join(lapApi, 'src', 'sse.ts')]);
        const browse = JSON.parse((await get('/api/search?project=api')).body) as { hits: Hit[] };
        assert.equal(hitFor(browse.hits, /SSE stream/).files_note, 'src/sse.ts changed since this memory');
      } finally {
        ui.child.kill('SIGINT');
      }
    } finally {
      writeFileSync(join(deskApi, 'src', 'sse.ts'), SSE_V1);
    }
  });

  it('claims nothing where it cannot know: repository not checked out here, a memory without file states', () => {
    const other = hitFor(searchJson(desktop, 'main loop'), /other service/);
    assert.equal(other.changed_files, undefined, 'other/api is not checked out on the desktop');
    assert.deepEqual(hitFor(searchJson(laptop, 'main loop'), /other service/).changed_files, [], 'but it is on the laptop');
    const wt = hitFor(searchJson(desktop, 'flag rollout'), /feature worktree/);
    assert.equal(wt.changed_files, undefined, 'no files were recorded');
  });

  it('files old folder-named memories under their repository: by their folder on this machine, else by an alias every machine reads', () => {
    const month = daysAgo(1).slice(0, 7);
    const old = (id: string, project: string, cwd: string, q: string) =>
      JSON.stringify({ v: 1, id, session_id: `old-${id}`, project, machine: 'laptop', timestamp: daysAgo(40), question: q, answer: `${q} — answered long ago.`, cwd });
    // Before this change: a worktree session (project "feat-y", its folder gone since) and one
    // captured on a machine whose folder is unknown everywhere ("acme-api-2").
    appendFileSync(join(laptop.exportDir, `${month}_laptop.jsonl`), [old('old-wt', 'feat-y', join(lapApi, '.claude', 'worktrees', 'feat-y'), 'Old worktree question about quokka migrations'), old('old-far', 'acme-api-2', '/gone/work/acme-api-2', 'Old far question about quokka indexes'), ''].join('\n'));
    const projectOf = (m: Machine, q: RegExp) => hitFor(searchJson(m, 'quokka'), q).project;
    assert.equal(projectOf(laptop, /quokka migrations/), 'api', 'a worktree path names its main checkout, which the laptop has');
    assert.equal(projectOf(laptop, /quokka indexes/), 'acme-api-2');
    const byOldName = searchJson(laptop, 'quokka migrations', ['--project', 'feat-y']);
    assert.ok(byOldName.some((h) => /quokka migrations/.test(h.question)) && byOldName.every((h) => h.project === 'api'), 'an old name scopes to the project it joined');
    const merged = laptop.cli(['projects', 'merge', 'acme-api-2', 'https://git.example.com/acme/api']);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, /"acme-api-2" is now filed under "api" \(1 memory moved, committed/);
    assert.equal(projectOf(laptop, /quokka indexes/), 'api');
    sync(laptop);
    sync(desktop);
    assert.equal(projectOf(desktop, /quokka indexes/), 'api', 'the alias reached the desktop');
    assert.match(inject(desktop, deskApi), /quokka indexes/);
    const list = desktop.cli(['projects']);
    assert.match(list.stdout, /Merged: acme-api-2 → api/);
    // The JSONL was not rewritten: the record keeps the name it was captured under.
    assert.ok(records(desktop).some((r) => r.id === 'old-far' && r.project === 'acme-api-2'));
    const bad = desktop.cli(['projects', 'merge', 'no-such-project', 'api']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /no memories under project "no-such-project"/);
    const badTarget = desktop.cli(['projects', 'merge', 'other-api', 'nowhere']);
    assert.equal(badTarget.code, 1);
    assert.match(badTarget.stderr, /no project "nowhere"/);
  });
});
