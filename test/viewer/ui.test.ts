/**
 * `memory ui`: the security rim over plain HTTP (always), and the page itself in a real
 * Chromium through playwright-core (skipped, saying why, where no browser is installed).
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CLI, makeWorld, runCli, writeJsonl, type World } from '../support/helpers.js';
import { acquireLock } from '../../src/export/lock.js';
import { machineName, projectName } from '../../src/project/label.js';
import { recordMoves } from '../../src/changes/renames.js';
import { git, initRepo } from '../support/git-fixture.js';
import { http, startUi, type Running } from '../support/viewer-process.js';
import { VIEWER_MEMORIES } from '../support/viewer-data.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));

function world(): World {
  const w = makeWorld();
  writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), VIEWER_MEMORIES);
  // The export folder in a git repository, as in a real checkout: forgetting commits.
  initRepo(w.dir, 't');
  git(w.dir, 'commit', '-q', '--allow-empty', '-m', 'seed');
  assert.equal(runCli(['--config', w.config, 'rebuild']).code, 0);
  return w;
}

function searchIds(w: World, q: string): string[] {
  const r = runCli(['--config', w.config, 'search', '--json', '--mode', 'keyword', '-k', '20', q]);
  return (JSON.parse(r.stdout) as { hits: Array<{ id: string }> }).hits.map((h) => h.id);
}

describe('memory ui: the security rim (plain HTTP)', () => {
  let w: World;
  let ui: Running;
  before(async () => {
    w = world();
    ui = await startUi(w);
  });
  after(() => {
    if (ui.child.exitCode === null) ui.child.kill('SIGINT');
    w.cleanup();
  });

  it('trades the URL token for a cookie; without the token, or for a foreign Host, nothing is served', async () => {
    const open = await http(ui.port, `/?token=${ui.token}`);
    assert.equal(open.status, 303);
    assert.equal(open.headers.location, '/');
    const cookie = String(open.headers['set-cookie']).split(';')[0] as string;
    assert.match(String(open.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
    assert.equal((await http(ui.port, '/')).status, 401, 'no token');
    assert.equal((await http(ui.port, '/api/search?q=JPY')).status, 401);
    assert.equal((await http(ui.port, '/?token=wrong-token-wrong-token-wrong')).status, 401);
    assert.equal((await http(ui.port, `/?token=${ui.token}`, { headers: { host: `evil.example:${ui.port}` } })).status, 403, 'DNS rebinding');
    assert.equal((await http(ui.port, '/', { headers: { host: `evil.example:${ui.port}`, cookie } })).status, 403);
    const page = await http(ui.port, '/', { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.body, /data-testid="search-input"/);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.ok(!/unsafe-inline|https?:/.test(csp), 'nothing inline, nothing from the network');
    assert.ok(!/https?:\/\//.test(page.body.replace(/http:\/\/www\.w3\.org/g, '')), 'the page loads nothing from elsewhere');
    const local = await http(ui.port, '/api/search?q=JPY', { headers: { cookie, host: `localhost:${ui.port}` } });
    assert.equal(local.status, 200, 'localhost:<port> is fine');
    assert.ok((JSON.parse(local.body) as { hits: unknown[] }).hits.length > 0);
    // Pages: newest first, `more` while there is more.
    const api = async (q: string) => JSON.parse((await http(ui.port, `/api/search?${q}`, { headers: { cookie } })).body) as { hits: Array<{ id: string }>; more: boolean };
    const p1 = await api('limit=4');
    const p2 = await api('limit=4&offset=4');
    const p3 = await api('limit=4&offset=8');
    assert.deepEqual([p1.more, p2.more, p3.more], [true, true, false]);
    assert.equal(new Set([...p1.hits, ...p2.hits, ...p3.hits].map((h) => h.id)).size, VIEWER_MEMORIES.length, 'every memory once');
    const codex = await api('source=codex');
    assert.deepEqual(codex.hits.map((h) => h.id).sort(), VIEWER_MEMORIES.filter((m) => m.source === 'codex').map((m) => m.id).sort(), 'the source filter');
  });

  it('a time in the words: the page is told whether that day\'s memories lead, or none is on this and how to list them, as the CLI says', async () => {
    const cookie = `memory_viewer_${ui.port}=${ui.token}`;
    const api = async (q: string) => JSON.parse((await http(ui.port, `/api/search?q=${encodeURIComponent(q)}`, { headers: { cookie } })).body) as { hits: Array<{ id: string }>; period_note?: string };
    const checkout = VIEWER_MEMORIES[2]!;
    const onTopic = await api('checkout button clicked twice on 2026-11-18');
    assert.deepEqual([onTopic.period_note, onTopic.hits[0]?.id], ['2026-11-18 first', checkout.id]);
    const offTopic = await api('staging deploy on 2026-11-18');
    assert.equal(offTopic.period_note, 'nothing on this from 2026-11-18 (From 2026-11-18 To 2026-11-18 with no words lists its memories): the best matches of any time');
    assert.equal(offTopic.hits[0]?.id, VIEWER_MEMORIES[4]!.id, 'the staging memory of another day, said to be so');
    assert.equal((await api('staging deploy in 1990')).period_note, 'no memories from 1990-01-01 – 1990-12-31: the best matches of any time');
    assert.equal((await api('staging deploy')).period_note, undefined);
    const listed = JSON.parse((await http(ui.port, '/api/search?since=2026-11-18&until=2026-11-18', { headers: { cookie } })).body) as { hits: Array<{ id: string }> };
    assert.deepEqual(listed.hits.map((h) => h.id), [checkout.id], 'the listing the note names');
    // Time words alone: that day's memories, newest first, and said so.
    const day = JSON.parse((await http(ui.port, `/api/search?q=${encodeURIComponent('on 2026-11-18')}`, { headers: { cookie } })).body) as { mode: string; hits: Array<{ id: string }>; period_note?: string };
    assert.deepEqual([day.mode, day.period_note, day.hits.map((h) => h.id)], ['browse', '2026-11-18: its memories, newest first', [checkout.id]]);
    // Asked for the last time: the newest on the topic first, said so; nothing else asked: the newest memories.
    const last = await api('the checkout button clicked twice last time');
    assert.deepEqual([last.period_note, last.hits[0]?.id], ['the latest first: the memories on this, newest first', checkout.id]);
    const newest = JSON.parse((await http(ui.port, `/api/search?q=${encodeURIComponent('what did we talk about last time')}`, { headers: { cookie } })).body) as { mode: string; hits: Array<{ id: string; timestamp: string }>; period_note?: string };
    const stamps = newest.hits.map((h) => h.timestamp);
    assert.deepEqual([newest.mode, newest.period_note, newest.hits.length > 1, stamps], ['browse', 'the latest memories, newest first', true, [...stamps].sort().reverse()]);
  });

  it('changes need POST, this Origin and JSON; a bad id forgets nothing', async () => {
    const cookie = `memory_viewer_${ui.port}=${ui.token}`;
    const id = VIEWER_MEMORIES[4]!.id;
    const body = JSON.stringify({ ids: [id] });
    const json = { cookie, 'content-type': 'application/json' };
    assert.equal((await http(ui.port, '/api/forget', { method: 'POST', headers: json, body })).status, 403, 'no Origin');
    assert.equal((await http(ui.port, '/api/forget', { method: 'POST', headers: { ...json, origin: 'http://evil.example' }, body })).status, 403, 'foreign Origin');
    assert.equal((await http(ui.port, '/api/forget', { method: 'POST', headers: { cookie, origin: `http://127.0.0.1:${ui.port}`, 'content-type': 'text/plain' }, body })).status, 415);
    assert.equal((await http(ui.port, '/api/forget', { method: 'DELETE', headers: { ...json, origin: `http://127.0.0.1:${ui.port}` } })).status, 405);
    const bad = await http(ui.port, '/api/forget', { method: 'POST', headers: { ...json, origin: `http://127.0.0.1:${ui.port}` }, body: JSON.stringify({ ids: [id, 'no-such-memory'] }) });
    assert.equal(bad.status, 400);
    assert.match((JSON.parse(bad.body) as { error: string }).error, /no memory with id "no-such-memory"/);
    assert.ok(searchIds(w, 'deploy staging').includes(id), 'nothing was forgotten');
  });

  it('Ctrl-C stops it cleanly', async () => {
    const code = await new Promise<number | null>((resolve) => {
      ui.child.once('exit', (c) => resolve(c));
      ui.child.kill('SIGINT');
    });
    assert.equal(code, 0);
  });
});

describe('memory ui: "Forget all matching…" is the list the person pages through', () => {
  it('by meaning and keywords, and without words: the same set, every page of it, counted; hidden projects never in it', async () => {
    const w = makeWorld({ extra: '[privacy]\nexclude_projects = ["secret-*"]' });
    // Many memories share "lock"; only some are about sqlite lock timeouts. The old forget
    // took every keyword match of any word (all of "lock"), not what the list showed.
    const many = Array.from({ length: 70 }, (_, i) => ({ id: `lock-${i}`, project: 'api', question: `Door lock firmware note ${i}`, answer: `The lock firmware ${i} was flashed.` }));
    const about = Array.from({ length: 6 }, (_, i) => ({ id: `sqlite-${i}`, project: 'api', question: `SQLITE_BUSY: the sqlite lock timeout again (${i})`, answer: `busy_timeout and one transaction per batch fixed the sqlite lock timeout (${i}).` }));
    const hidden = { id: 'secret-1', project: 'secret-client', question: 'sqlite lock timeout in the client ledger', answer: 'Their sqlite lock timeout was a network share.' };
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [...many, ...about, hidden].map((m, i) => ({ v: 1, machine: 'laptop', timestamp: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(), ...m })));
    assert.equal(runCli(['--config', w.config, 'rebuild', '--with-model']).code, 0);
    const ui = await startUi(w);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const get = async (q: string) => JSON.parse((await http(ui.port, `/api/search?${q}`, { headers: { cookie } })).body) as { mode: string; hits: Array<{ id: string }>; more: boolean };
      const match = async (body: Record<string, string>) => JSON.parse((await http(ui.port, '/api/match', { method: 'POST', headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${ui.port}` }, body: JSON.stringify(body) })).body) as { ids: string[]; count: number; everything: boolean };
      const q = encodeURIComponent('sqlite lock timeout');
      // The model loads in the background on the first search; wait for ranking by meaning.
      let mode = '';
      for (let i = 0; i < 100 && mode !== 'hybrid'; i++) {
        mode = (await get(`q=${q}&limit=1`)).mode;
        if (mode !== 'hybrid') await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(mode, 'hybrid');
      const pagesOf = async (query: string) => {
        const seen: string[] = [];
        for (let offset = 0; ; offset += 25) {
          const page = await get(`${query}&offset=${offset}&limit=25`);
          seen.push(...page.hits.map((h) => h.id));
          if (!page.more) return seen;
        }
      };
      const listed = await pagesOf(`q=${q}`);
      const m = await match({ q: 'sqlite lock timeout', mode: 'hybrid' });
      assert.deepEqual(m.ids, listed, 'the same memories in the same order as every page of the list');
      assert.equal(m.count, listed.length);
      assert.equal(m.everything, false);
      assert.ok(!m.ids.includes('secret-1'), 'an excluded project is not in it');
      assert.ok(about.every((a) => m.ids.includes(a.id)));
      // A filter narrows both alike; no words means every memory under the filters, said so.
      const all = await match({ q: '', project: 'api' });
      assert.equal(all.everything, true);
      assert.deepEqual(all.ids, await pagesOf('project=api'));
      assert.equal(all.count, many.length + about.length);
    } finally {
      ui.child.kill('SIGINT');
      w.cleanup();
    }
  });
});

describe('memory ui: a project and a machine named in Japanese', () => {
  it('are offered, shown and filtered on as they are written', async () => {
    const w = makeWorld();
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
    const office = machineName('会社');
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
      { v: 1, id: 'diary-1', machine: 'laptop', timestamp: at(1), project: projectName('日記'), question: 'Which font does the diary export use?', answer: 'Noto Serif JP.' },
      { v: 1, id: 'memo-1', machine: 'laptop', timestamp: at(2), project: projectName('メモ'), question: 'Which font does the memo export use?', answer: 'Noto Sans JP.' },
    ]);
    writeJsonl(join(w.exportDir, `2026-11_${office}.jsonl`), [
      { v: 1, id: 'diary-2', machine: office, timestamp: at(3), project: projectName('日記'), question: 'Which paper size do the diary prints use?', answer: 'A5.' },
    ]);
    assert.equal(runCli(['--config', w.config, 'rebuild']).code, 0);
    const ui = await startUi(w);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const overview = JSON.parse((await http(ui.port, '/api/overview', { headers: { cookie } })).body) as { facets: { projects: string[]; machines: string[] }; perMachineMonth: Array<{ machine: string }> };
      assert.deepEqual([...overview.facets.projects].sort(), ['メモ', '日記'].sort());
      assert.deepEqual([...overview.facets.machines].sort(), ['laptop', '会社'].sort());
      assert.ok(overview.perMachineMonth.some((r) => r.machine === '会社'), JSON.stringify(overview.perMachineMonth));
      const found = JSON.parse((await http(ui.port, `/api/search?q=${encodeURIComponent('font export')}&mode=keyword&project=${encodeURIComponent('日記')}`, { headers: { cookie } })).body) as { hits: Array<{ id: string; project: string }> };
      assert.deepEqual(found.hits.map((h) => [h.id, h.project]), [['diary-1', '日記']]);
      const onOffice = JSON.parse((await http(ui.port, `/api/search?q=${encodeURIComponent('diary')}&mode=keyword&machine=${encodeURIComponent('会社')}`, { headers: { cookie } })).body) as { hits: Array<{ id: string; machine: string }> };
      assert.deepEqual(onOffice.hits.map((h) => [h.id, h.machine]), [['diary-2', '会社']]);
    } finally {
      ui.child.kill('SIGINT');
      w.cleanup();
    }
  });
});

describe('memory ui: memories stored before today\'s redaction rules', () => {
  it('are counted in the overview, as `memory status` counts them, once they have been read', async () => {
    const w = makeWorld();
    const pw = ['Kq7', 'Lm2', '!Zx9'].join(''); // assembled: no scanner hit on this file
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
      { v: 1, id: 'leaky-1', machine: 'laptop', timestamp: '2026-11-02T10:00:00.000Z', project: 'app', question: `ステージングDBのパスワードは ${pw} です`, answer: '接続できました。' },
      { v: 1, id: 'clean-1', machine: 'laptop', timestamp: '2026-11-03T10:00:00.000Z', project: 'app', question: 'Which font does the export use?', answer: 'Noto Sans JP.' },
    ]);
    assert.equal(runCli(['--config', w.config, 'rebuild']).code, 0);
    assert.equal(runCli(['--config', w.config, 'scrub', '--dry-run']).code, 0);
    const ui = await startUi(w);
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const overview = JSON.parse((await http(ui.port, '/api/overview', { headers: { cookie } })).body) as { unscrubbed: number | null };
      assert.equal(overview.unscrubbed, 1);
    } finally {
      ui.child.kill('SIGINT');
    }
    assert.equal(runCli(['--config', w.config, 'scrub']).code, 0);
    const after = await startUi(w);
    try {
      const cookie = `memory_viewer_${after.port}=${after.token}`;
      assert.equal((JSON.parse((await http(after.port, '/api/overview', { headers: { cookie } })).body) as { unscrubbed: number | null }).unscrubbed, 0);
    } finally {
      after.child.kill('SIGINT');
      w.cleanup();
    }
  });
});

describe('memory ui: a cache lock held elsewhere', () => {
  it('does not stop the viewer serving: a page loads while a search waits for the lock, which then answers', async () => {
    const w = world();
    const dbPath = (JSON.parse(runCli(['--config', w.config, 'status', '--json']).stdout) as { db_path: string }).db_path;
    const ui = await startUi(w);
    // Another process (a capture) holds the cache.
    const release = acquireLock(`${dbPath}.lock`, { purpose: 'a test standing in for a capture' });
    let released = false;
    try {
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const order: string[] = [];
      const search = http(ui.port, '/api/search?q=JPY', { headers: { cookie } }).then((r) => {
        order.push('search');
        return r;
      });
      await new Promise((r) => setTimeout(r, 300)); // the search is waiting for the lock now
      const page = await http(ui.port, '/', { headers: { cookie } });
      order.push('page');
      assert.equal(page.status, 200);
      release();
      released = true;
      const res = await search;
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(order, ['page', 'search'], 'the page was served while the search waited');
      assert.ok((JSON.parse(res.body) as { hits: unknown[] }).hits.length > 0);
    } finally {
      if (!released) release();
      ui.child.kill('SIGINT');
      w.cleanup();
    }
  });
});

describe('memory ui: the token never leaves the person\'s session', () => {
  it('the browser opener gets a 0600 redirect file, never the token in its arguments; the file goes when the viewer stops', async () => {
    const w = world();
    const bin = join(w.dir, 'bin');
    mkdirSync(bin);
    const argsLog = join(w.dir, 'opener-args.txt');
    // A stand-in for xdg-open at the rim: it records its arguments (what `ps` would show).
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(argsLog)}\n`, { mode: 0o755 });
    const child = spawn(process.execPath, [CLI, '--config', w.config, 'ui'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      const first = await new Promise<string>((resolve) => {
        let buf = '';
        child.stdout?.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0] as string);
        });
      });
      const token = /token=([A-Za-z0-9_-]+)/.exec(first)?.[1] as string;
      const port = Number(/:(\d+)\//.exec(first)?.[1]);
      const deadline = Date.now() + 10_000;
      while (!existsSync(argsLog) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const args = readFileSync(argsLog, 'utf8').trim().split('\n');
      assert.ok(!args.some((a) => a.includes(token)), `the token is in the opener's argv: ${args.join(' ')}`);
      assert.equal(args.length, 1);
      const page = fileURLToPath(args[0] as string);
      assert.equal(statSync(page).mode & 0o777, 0o600);
      assert.ok(readFileSync(page, 'utf8').includes(`http://127.0.0.1:${port}/?token=${token}`), 'the page sends the browser on');
      // A URL token is only ever traded for the cookie at /: no other request accepts it.
      assert.equal((await http(port, `/api/search?q=JPY&token=${token}`)).status, 401);
      const exit = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exit;
      assert.ok(!existsSync(page), 'the redirect file is removed when the viewer stops');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      w.cleanup();
    }
  });
});

/** A font with Japanese glyphs (Debian: fonts-noto-cjk, installed by .ci/run beside chromium). */
const CJK_FONT = (() => {
  try {
    return execFileSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' }).trim().length > 0;
  } catch {
    return false;
  }
})();
if (CHROMIUM && !CJK_FONT) process.stderr.write('ui.test: no font with Japanese glyphs (apt-get install -y fonts-noto-cjk): the glyph check is not run\n');

/**
 * The browser's environment: ours without libfaketime. Under `faketime` every child inherits
 * LD_PRELOAD, and Chromium — many processes, each reading the clock constantly through the
 * preloaded library — became about 30 times slower (measured: this test 2.8 s → 82 s, and
 * page.goto past its 30 s limit on a slower run). The page reads no clock (the viewer's dates
 * come from the server, which keeps the faked one), so the browser runs on the real clock.
 */
function browserEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('FAKETIME')) continue;
    if (k === 'LD_PRELOAD') {
      const kept = v.split(/[:\s]+/).filter((lib) => lib.length > 0 && !/libfaketime/.test(lib));
      if (kept.length > 0) env[k] = kept.join(':');
      continue;
    }
    env[k] = v;
  }
  return env;
}

/**
 * The viewer of world `w` (its cache rebuilt first) in Chromium at 1280×800: `use` gets the page
 * and the viewer; the page raised no error by its end; everything is closed and removed after.
 */
async function inViewer(w: World, use: (page: import('playwright-core').Page, ui: Running) => Promise<void>, opts: { timeZone?: string } = {}): Promise<void> {
  const { chromium } = await import('playwright-core');
  assert.equal(runCli(['--config', w.config, 'rebuild']).code, 0);
  const ui = await startUi(w, opts.timeZone ? { TZ: opts.timeZone } : undefined);
  const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'], env: browserEnv() });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, ...(opts.timeZone ? { timezoneId: opts.timeZone } : {}) });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(ui.url);
    await use(page, ui);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    ui.child.kill('SIGINT');
    w.cleanup();
  }
}

describe('memory ui in Chromium (playwright-core)', { skip: CHROMIUM ? false : 'no Chromium here (Debian: apt-get install -y chromium; .ci/run installs it)' }, () => {
  it('search, read, bulk-forget; memory text is text; screenshots at 1280×800 and narrow', async () => {
    const { chromium } = await import('playwright-core');
    const w = world();
    const ui = await startUi(w);
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'], env: browserEnv() });
    const shots = mkdtempSync(join(tmpdir(), 'memory-ui-shots-'));
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(msg.text());
      });
      page.on('pageerror', (err) => problems.push(err.message));
      page.on('dialog', (d) => {
        problems.push(`a dialog opened: ${d.message()}`);
        void d.dismiss();
      });
      await page.goto(ui.url);
      assert.equal(new URL(page.url()).search, '', 'the token left the address bar');
      const items = page.getByTestId('memory-item');
      await items.first().waitFor();
      assert.equal(await items.count(), VIEWER_MEMORIES.length > 20 ? 20 : VIEWER_MEMORIES.length, 'newest first, before any search');
      await page.locator('.overview table').waitFor();
      await page.screenshot({ path: join(shots, 'viewer-1280x800.png') });

      // Search: Enter runs it; the query's words are marked.
      await page.getByTestId('search-input').fill('JPY rounding cart');
      await page.getByTestId('search-input').press('Enter');
      const jpy = VIEWER_MEMORIES[0]!;
      // The same memory may lead the list before the search too: wait for the search's render (its marks).
      await page.locator(`[data-testid="memory-item"][data-id="${jpy.id}"] mark`).first().waitFor();
      assert.equal(await items.first().getAttribute('data-id'), jpy.id);
      assert.ok((await items.first().locator('mark').allTextContents()).some((t) => /jpy/i.test(t)));

      // Read it: the whole memory and its neighbours in the session.
      await items.first().click();
      const detail = page.getByTestId('memory-detail');
      await detail.waitFor();
      assert.match(await detail.innerText(), /currency exponent table \(JPY 0, USD 2, KWD 3\)/);
      assert.match(await detail.innerText(), /test\/money\.test\.ts/);
      assert.match(await detail.innerText(), /The checkout button can be clicked twice/, 'a neighbour in the same session');

      // Bulk-forget two memories.
      const two = [VIEWER_MEMORIES[0]!.id, VIEWER_MEMORIES[1]!.id];
      for (const id of two) await page.locator(`[data-testid="memory-item"][data-id="${id}"] [data-testid="memory-select"]`).check();
      await page.getByTestId('forget-button').click();
      await page.getByTestId('confirm-forget').waitFor();
      assert.match(await page.locator('#confirm-text').innerText(), /Forget 2 memories on every machine/);
      await page.getByTestId('confirm-forget').click();
      for (const id of two) await page.locator(`[data-testid="memory-item"][data-id="${id}"]`).waitFor({ state: 'detached' });
      const left = searchIds(w, 'JPY rounding cart minor units');
      for (const id of two) assert.ok(!left.includes(id), 'gone from `memory search` too');
      assert.match(git(w.dir, 'log', '-1', '--format=%s'), /forget 2 memories/);

      // Hostile text renders as text and runs nothing.
      await page.getByTestId('search-input').fill('escape user HTML reviews');
      await page.getByTestId('search-input').press('Enter');
      const xss = VIEWER_MEMORIES.find((m) => m.session_id === 'sess-xss')!;
      const row = page.locator(`[data-testid="memory-item"][data-id="${xss.id}"]`);
      await row.waitFor();
      assert.match(await row.innerText(), /<script>window\.__pwned = 1<\/script>/);
      assert.match(await row.innerText(), /<img src=x onerror="window\.__pwned = 2">/);
      await row.click();
      await page.getByTestId('memory-detail').getByText('**markdown**', { exact: false }).waitFor();
      assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined, 'no script ran');
      assert.equal(await page.locator('#list img, #detail img, #list script, #detail script').count(), 0);

      // A time in the words: the summary says none of that day's memories is on this, and how to list them.
      await page.getByTestId('search-input').fill('staging deploy on 2026-11-18');
      await page.getByTestId('search-input').press('Enter');
      await page.locator('#summary', { hasText: 'nothing on this from 2026-11-18' }).waitFor();
      assert.match(await page.locator('#summary').innerText(), /^\d+ memor(?:y|ies), by (?:keywords|meaning and keywords)[^—]* — nothing on this from 2026-11-18 \(From 2026-11-18 To 2026-11-18 with no words lists its memories\): the best matches of any time$/);
      // Time words alone: that day's memories, newest first, said once.
      await page.getByTestId('search-input').fill('on 2026-11-18');
      await page.getByTestId('search-input').press('Enter');
      await page.locator('#summary', { hasText: '2026-11-18: its memories' }).waitFor();
      assert.equal(await page.locator('#summary').innerText(), '1 memory — 2026-11-18: its memories, newest first');
      assert.deepEqual(problems, [], 'no console errors, no CSP violations, no dialogs');

      // Japanese renders with a font that has its glyphs (not empty boxes): ask Chromium
      // which platform font drew the Japanese memory's text.
      if (CJK_FONT) {
        const ja = VIEWER_MEMORIES.find((m) => /決済/.test(m.question))!;
        await page.getByTestId('search-input').fill('決済 タイムアウト');
        await page.getByTestId('search-input').press('Enter');
        const jaRow = page.locator(`[data-testid="memory-item"][data-id="${ja.id}"]`);
        await jaRow.waitFor();
        await jaRow.click();
        await page.getByTestId('memory-detail').getByText('冪等キー', { exact: false }).waitFor();
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('DOM.enable');
        await cdp.send('CSS.enable');
        const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-testid="memory-item"][data-id="${ja.id}"]` });
        const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        assert.ok(fonts.some((f) => /CJK|JP|Gothic|Mincho/i.test(f.familyName) && f.glyphCount > 10), `fonts used: ${JSON.stringify(fonts)}`);
      }

      // A narrow window still reads.
      await page.setViewportSize({ width: 420, height: 860 });
      await page.screenshot({ path: join(shots, 'viewer-narrow.png'), fullPage: false });
      process.stderr.write(`viewer screenshots: ${shots}\n`);
    } finally {
      await browser.close();
      ui.child.kill('SIGINT');
      w.cleanup();
    }
  });
});

describe('memory ui: the memories of a file', { skip: CHROMIUM ? false : 'no Chromium here (Debian: apt-get install -y chromium; .ci/run installs it)' }, () => {
  it('a memory found under the name the file had before it moved says so in the list', async () => {
    const w = makeWorld();
    const repo = 'github.com/acme/shop';
    // Days before now, whatever the clock: a move not committed counts for a month.
    const at = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
    const mems = [
      { v: 1 as const, machine: 'laptop', id: 'after-move', timestamp: at(1), project: 'shop', question: 'Does pricing round half to even now?', answer: 'Yes, banker\'s rounding in src/money/pricing.ts.', extra: { repo, repo_files: ['src/money/pricing.ts'] } },
      { v: 1 as const, machine: 'laptop', id: 'before-move', timestamp: at(6), project: 'shop', question: 'Why is the VAT added after the discount?', answer: 'The tax office says so for coupons.', extra: { repo, repo_files: ['src/pricing.ts'] } },
    ];
    for (const month of new Set(mems.map((m) => m.timestamp.slice(0, 7)))) writeJsonl(join(w.exportDir, `${month}_laptop.jsonl`), mems.filter((m) => m.timestamp.startsWith(month)));
    // The move, as the file hook notes one before its commit (the viewer reads every move standing).
    recordMoves(w.dir, repo, [{ from: 'src/pricing.ts', to: 'src/money/pricing.ts', atMs: Date.parse(at(3)) }]);
    await inViewer(w, async (page) => {
      await page.locator('[data-testid="memory-item"][data-id="after-move"]').click();
      await page.getByTestId('memory-detail').getByTestId('file-link').first().waitFor();
      await page.getByTestId('memory-detail').getByTestId('file-link').first().click();
      await page.locator('#summary').getByText('2 memories of src/money/pricing.ts', { exact: false }).waitFor();
      const note = (id: string) => page.locator(`[data-testid="memory-item"][data-id="${id}"] [data-testid="recorded-as"]`);
      assert.equal(await note('before-move').innerText(), 'recorded as src/pricing.ts, renamed since');
      assert.equal(await note('after-move').count(), 0, 'under the name asked: nothing to say');
    });
  });

  it('from a memory\'s detail, one of its files lists every memory that recorded it in that repository (not the same path of another), and one of the folders in its path every memory of a file under it; words search within them; "Forget all matching…" is them; the chip clears it', async () => {
    const w = makeWorld();
    const shop = (files: string[]) => ({ repo: 'github.com/acme/shop', repo_files: files });
    const at = (d: number) => new Date(Date.UTC(2026, 10, 20 - d, 9)).toISOString();
    const mems = [
      { id: 'money-jpy', timestamp: at(1), project: 'shop', question: 'Why does the cart total round wrong for JPY?', answer: 'The money helper divided every amount by 100; an exponent table per currency now.', extra: shop(['src/money.ts', 'test/money.test.ts']) },
      { id: 'money-kwd', timestamp: at(5), project: 'shop', question: 'Does KWD really have three decimals?', answer: 'Yes: the exponent table says 3 for KWD, BHD and OMR.', extra: shop(['src/money.ts']) },
      { id: 'submit-twice', timestamp: at(2), project: 'shop', question: 'The checkout button creates two orders', answer: 'Disabled while in flight; POST /orders idempotent.', extra: shop(['src/checkout/Submit.tsx']) },
      { id: 'api-money', timestamp: at(3), project: 'api', question: 'Where does the api format money for invoices?', answer: 'In its own src/money.ts, with the ledger precision.', extra: { repo: 'github.com/acme/api', repo_files: ['src/money.ts'] } },
      { id: 'no-files', timestamp: at(4), project: 'shop', question: 'Which font does the shop use?', answer: 'Inter for the UI, Noto Sans JP for Japanese.' },
    ];
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), mems.map((m) => ({ v: 1, machine: 'laptop', ...m })));
    await inViewer(w, async (page, ui) => {
      const items = page.getByTestId('memory-item');
      // The list once it holds n memories (each filter or search re-renders it).
      const listed = async (n: number) => {
        for (let i = 0; i < 100 && (await items.count()) !== n; i++) await new Promise((r) => setTimeout(r, 50));
        return items.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
      };
      assert.deepEqual(await listed(5), ['money-jpy', 'submit-twice', 'api-money', 'no-files', 'money-kwd']);
      assert.equal(await page.getByTestId('file-filter').isVisible(), false, 'no file filter at first');
      await page.locator('[data-testid="memory-item"][data-id="money-jpy"]').click();
      const links = page.getByTestId('memory-detail').getByTestId('file-link');
      await links.first().waitFor();
      assert.deepEqual(await page.getByTestId('memory-detail').getByTestId('file-path').allInnerTexts(), ['src/money.ts', 'test/money.test.ts']);
      assert.deepEqual(await links.allTextContents(), ['money.ts', 'money.test.ts']);
      await links.first().click();
      assert.deepEqual(await listed(2), ['money-jpy', 'money-kwd'], 'the memories of src/money.ts in acme/shop, newest first; not acme/api\'s file of that name');
      assert.match(await page.getByTestId('file-filter').innerText(), /^File\s+src\/money\.ts\s+×$/);
      assert.equal(await page.locator('#summary').innerText(), '2 memories of src/money.ts, newest first');
      // Words search within the file's memories.
      await page.getByTestId('search-input').fill('exponent table');
      await page.getByTestId('search-input').press('Enter');
      await page.locator('[data-testid="memory-item"] mark').first().waitFor();
      assert.deepEqual((await listed(2)).sort(), ['money-jpy', 'money-kwd']);
      await page.getByTestId('search-input').fill('KWD decimals');
      await page.getByTestId('search-input').press('Enter');
      assert.deepEqual(await listed(1), ['money-kwd']);
      // "Forget all matching…": exactly the list, the file named; cancelled here.
      await page.getByTestId('search-input').fill('');
      await page.getByTestId('search-input').press('Enter');
      await listed(2);
      await page.locator('#forget-matching').click();
      await page.getByTestId('confirm-forget').waitFor();
      assert.match(await page.locator('#confirm-text').innerText(), /every memory under the filters \(repo github\.com\/acme\/shop, file src\/money\.ts\)\. Forget 2 memories/);
      await page.locator('#confirm-cancel').click();
      // The chip clears the file filter: every memory again.
      await page.locator('#f-file-clear').click();
      assert.equal((await listed(5)).length, 5);
      assert.equal(await page.getByTestId('file-filter').isVisible(), false);
      // A folder of the path: every memory of a file under it in that repository.
      await page.locator('[data-testid="memory-item"][data-id="submit-twice"]').click();
      const folders = page.getByTestId('memory-detail').getByTestId('folder-link');
      await page.getByTestId('memory-detail').getByText('Submit.tsx', { exact: true }).waitFor();
      assert.deepEqual(await folders.allTextContents(), ['src/', 'checkout/']);
      await folders.first().click();
      assert.deepEqual(await listed(3), ['money-jpy', 'submit-twice', 'money-kwd'], 'what acme/shop recorded under src/, newest first; not acme/api\'s src/money.ts, not the memory with no files');
      assert.match(await page.getByTestId('file-filter').innerText(), /^Folder\s+src\/\s+×$/);
      assert.equal(await page.locator('#summary').innerText(), '3 memories under src/, newest first');
      await page.locator('#forget-matching').click();
      await page.getByTestId('confirm-forget').waitFor();
      assert.match(await page.locator('#confirm-text').innerText(), /every memory under the filters \(repo github\.com\/acme\/shop, folder src\/\)\. Forget 3 memories/);
      await page.locator('#confirm-cancel').click();
      await page.getByTestId('search-input').fill('orders');
      await page.getByTestId('search-input').press('Enter');
      assert.deepEqual(await listed(1), ['submit-twice'], 'words search within the folder');
      await page.locator('#f-file-clear').click();
      assert.deepEqual(await listed(1), ['submit-twice']);
      assert.equal(await page.getByTestId('file-filter').isVisible(), false);
      // The API alone: a file filter needs both its parts; a folder is one inside the repository.
      const cookie = `memory_viewer_${ui.port}=${ui.token}`;
      const half = await http(ui.port, '/api/search?file=src%2Fmoney.ts', { headers: { cookie } });
      assert.equal(half.status, 400);
      assert.match(half.body, /a file filter needs both repo and file/);
      const deeper = await http(ui.port, '/api/search?repo=github.com%2Facme%2Fshop&file=src%2Fcheckout%2F', { headers: { cookie } });
      assert.equal(deeper.status, 200);
      assert.deepEqual(JSON.parse(deeper.body).hits.map((h: { id: string }) => h.id), ['submit-twice']);
      const root = await http(ui.port, '/api/search?repo=github.com%2Facme%2Fshop&file=%2F', { headers: { cookie } });
      assert.equal(root.status, 400);
      assert.match(root.body, /a folder filter names a folder inside the repository/);
    });
  });

  it('in Tokyo, a memory of 08:30 on 1 December is listed, read and filtered as that day\'s, not as 30 November (UTC)', async () => {
    const w = makeWorld();
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
      { v: 1, machine: 'laptop', id: 'tokyo-morning', session_id: 'tk', timestamp: '2026-11-30T23:30:00.000Z', project: 'shop', question: 'Which cache policy did we pick for the image proxy?', answer: 'LRU with a 512 MB cap.' },
      { v: 1, machine: 'laptop', id: 'tokyo-evening', session_id: 'tk', timestamp: '2026-11-30T10:00:00.000Z', project: 'shop', question: 'Does the image proxy resize on the fly?', answer: 'Yes, up to 2048 px.' },
    ]);
    await inViewer(
      w,
      async (page) => {
        const items = page.getByTestId('memory-item');
        await items.first().waitFor();
        const dayOf = (id: string) => page.locator(`[data-testid="memory-item"][data-id="${id}"] .meta span`).first().innerText();
        assert.equal(await dayOf('tokyo-morning'), '2026-12-01');
        assert.equal(await dayOf('tokyo-evening'), '2026-11-30', '19:00 in Tokyo');
        await page.locator('[data-testid="memory-item"][data-id="tokyo-morning"]').click();
        const detail = page.getByTestId('memory-detail');
        await detail.waitFor();
        assert.match(await detail.locator('h2').innerText(), /^2026-12-01 · laptop · shop$/);
        assert.match(await detail.innerText(), /2026-12-01 08:30 \(2026-11-30T23:30:00\.000Z\)/, 'captured: local minute, then the record\'s own time');
        assert.match(await detail.innerText(), /2026-11-30 19:00 — Does the image proxy resize on the fly\?/, 'a neighbour in the same session, at its local minute');
        // From and To, 1 December: the day in Tokyo, which began at 15:00 UTC on 30 November.
        await page.locator('#f-since').fill('2026-12-01');
        await page.locator('#f-until').fill('2026-12-01');
        for (let i = 0; i < 100 && (await items.count()) !== 1; i++) await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), ['tokyo-morning']);
      },
      { timeZone: 'Asia/Tokyo' },
    );
  });
});

describe('memory ui in Chromium: memories stored before today\'s redaction rules', { skip: CHROMIUM ? false : 'no Chromium here (Debian: apt-get install -y chromium; .ci/run installs it)' }, () => {
  it('the overview says how many memories hold what today\'s redaction rules remove, once they have been read', async () => {
    const w = makeWorld();
    const pw = ['Kq7', 'Lm2', '!Zx9'].join(''); // assembled: no scanner hit on this file
    writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [{ v: 1, id: 'leaky-1', machine: 'laptop', timestamp: '2026-11-02T10:00:00.000Z', project: 'app', question: `本番のパスワードは ${pw} です`, answer: '了解です。' }]);
    await inViewer(w, async (page) => {
      await page.locator('#overview table').waitFor();
      assert.doesNotMatch(await page.locator('#overview').innerText(), /unscrubbed/, 'not read yet: nothing said');
      assert.equal(runCli(['--config', w.config, 'scrub', '--dry-run']).code, 0);
      await page.reload();
      await page.locator('#overview table').waitFor();
      assert.match(await page.locator('#overview').innerText(), /unscrubbed\s+1 memory holds what today's redaction rules remove \(stored before them\): memory scrub writes redacted versions/);
    });
  });
});
