/**
 * The install as a person does it: package.json's install-script policy (npm 11 and 12 read
 * `allowScripts`), a `memory` command linked from the checkout that works from any folder,
 * and one sentence, not a stack of paths, when the native module was never built.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { configFileFor } from '../../src/config/paths.js';
import { brokenNativeCopy, CLI, makeWorld, REPO, runCli, tempDir, TINY_MODEL } from '../support/helpers.js';

describe('install-script policy', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean>; scripts: Record<string, string>; bin: Record<string, string> };

  it('runs no install script at all: nothing compiles, no CUDA download, no version check', () => {
    // esbuild's script only checks the binary its platform package (an optional dependency) brings.
    assert.deepEqual(pkg.allowScripts, { 'better-sqlite3': false, esbuild: false, 'onnxruntime-node': false, protobufjs: false });
  });

  it('every installed package with an install script is named by the policy', () => {
    // A new dependency with an install script would otherwise be silently skipped by npm 12
    // (or run unreviewed by npm 11): the policy must say which it is.
    const scripted: string[] = [];
    const visit = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.')) continue;
        const p = join(dir, name);
        if (name.startsWith('@')) {
          visit(p);
          continue;
        }
        const manifest = join(p, 'package.json');
        if (existsSync(manifest)) {
          const m = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; scripts?: Record<string, string>; gypfile?: boolean };
          const s = m.scripts ?? {};
          if ((s.preinstall || s.install || s.postinstall || (m.gypfile && existsSync(join(p, 'binding.gyp')))) && m.name) scripted.push(m.name);
        }
        if (existsSync(join(p, 'node_modules'))) visit(join(p, 'node_modules'));
      }
    };
    visit(join(REPO, 'node_modules'));
    assert.ok(scripted.includes('onnxruntime-node'), `the walk finds install scripts: ${scripted.join(', ')}`);
    const unnamed = [...new Set(scripted)].filter((n) => !(n in (pkg.allowScripts ?? {})));
    assert.deepEqual(unnamed, [], 'packages with install scripts that allowScripts does not name');
  });

  it('the CUDA download did not run and the native module is the prebuilt one, not compiled here', () => {
    assert.equal(existsSync(join(REPO, 'node_modules', 'better-sqlite3', 'build')), false, 'a node-gyp build ran');
    assert.ok(existsSync(join(REPO, 'node_modules', 'better-sqlite3', 'prebuilds', `${process.platform}-${process.arch}.node`)));
    const pkgEngines = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    assert.equal(pkgEngines, '>=22');
    const cuda = join(REPO, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v6', 'linux', 'x64', 'libonnxruntime_providers_cuda.so');
    assert.equal(existsSync(cuda), false, 'onnxruntime-node downloaded CUDA libraries');
  });
});

describe('a `memory` command from any folder', () => {
  it('npm link --ignore-scripts gives `memory`, which uses the checkout it links to', () => {
    const g = tempDir('memory-prefix-');
    const elsewhere = tempDir('memory-elsewhere-');
    try {
      const env = { ...process.env, NPM_CONFIG_PREFIX: g.dir, npm_config_prefix: g.dir, NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
      const link = spawnSync('npm', ['link', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: REPO, env, encoding: 'utf8', timeout: 120_000 });
      assert.equal(link.status, 0, link.stderr);
      const bin = join(g.dir, 'bin', 'memory');
      assert.equal(realpathSync(bin), realpathSync(join(REPO, 'dist', 'src', 'cli', 'main.js')));
      const help = spawnSync(bin, ['--help'], { cwd: elsewhere.dir, env, encoding: 'utf8' });
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /Usage: memory/);
      assert.match(help.stdout, /config\.toml of the memory home/);
      // Without --config or MEMORY_CONFIG, the configuration is the memory home's, whatever the folder.
      const home = join(elsewhere.dir, 'mem');
      assert.deepEqual(configFileFor(undefined, { MEMORY_HOME: home }, elsewhere.dir), { file: join(home, 'config.toml'), explicit: false, home });
    } finally {
      g.cleanup();
      elsewhere.cleanup();
    }
  });
});

describe('a native module with no binary for this platform', () => {
  it('every command says so in one line with what fixes it, exit 1; a hook still exits 0', () => {
    // A copy of the built checkout whose better-sqlite3 has no prebuilds/ (a platform it
    // ships none for); every other package is the real one, linked.
    const t = tempDir('memory-nobuild-');
    const w = makeWorld();
    try {
      const main = brokenNativeCopy(t.dir);
      const run = (args: string[], input = '') => spawnSync(process.execPath, [main, '-c', w.config, ...args], { encoding: 'utf8', input, cwd: w.dir });
      for (const args of [['search', '--mode', 'keyword', 'anything'], ['status'], ['rebuild']]) {
        const r = run(args);
        assert.equal(r.status, 1, `${args[0]}: ${r.stderr}`);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines[0], `memory: the SQLite native module (better-sqlite3) has no binary for this platform (${process.platform}-${process.arch})`, args[0]);
        assert.equal(lines[1], `hint: reinstall memory-engine (cd ${JSON.stringify(t.dir)} && npm ci --ignore-scripts): better-sqlite3 ships prebuilt binaries for Linux, macOS and Windows on x64 and arm64, for Node.js 22 and later`);
        assert.equal(lines.length, 2, r.stderr);
      }
      const hook = run(['session-start', '--inject', '--no-pull'], JSON.stringify({ session_id: 's', cwd: w.dir, hook_event_name: 'SessionStart' }));
      assert.equal(hook.status, 0, 'a hook never breaks the agent');
      assert.match(hook.stderr, /better-sqlite3/);
      // The real checkout is unaffected.
      assert.equal(runCli(['-c', w.config, 'search', '--mode', 'keyword', 'anything']).code, 0);
    } finally {
      t.cleanup();
      w.cleanup();
    }
  });
});

describe('a first run that says what it is doing', () => {
  it('model pull downloads over HTTP with a line per file, says where it goes, and is silent once cached', async () => {
    // The tiny model served on loopback as a hub mirror would serve it: a real download
    // through transformers.js, no network beyond this machine.
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const m = /^\/test-org\/tiny-model\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const file = m ? join(TINY_MODEL, decodeURIComponent(m[1]!)) : '';
      if (!m || !existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      const body = readFileSync(file);
      res.writeHead(200, { 'content-length': String(body.length) }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const w = makeWorld({ model: 'test-org/tiny-model', extra: `remote_host = "http://127.0.0.1:${port}/"` });
    const pull = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, '-c', w.config, 'model', 'pull'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    try {
      const first = await pull();
      assert.equal(first.code, 0, first.stderr);
      const cache = join(w.dir, 'models');
      assert.ok(first.stderr.includes(`memory: downloading embedding model test-org/tiny-model into ${cache} (first use only)`), first.stderr);
      const kb = Math.round(readFileSync(join(TINY_MODEL, 'onnx', 'model.onnx')).length / 1024);
      assert.ok(first.stderr.includes(`memory: downloaded onnx/model.onnx (${kb} KB)`), first.stderr);
      assert.match(first.stderr, /memory: downloaded tokenizer\.json/);
      assert.match(first.stdout, /Model test-org\/tiny-model is ready: 32-dimensional vectors/);
      assert.ok(requests.some((u) => u.endsWith('/onnx/model.onnx')), 'the weights came over HTTP');
      assert.ok(existsSync(join(cache, 'test-org', 'tiny-model', 'onnx', 'model.onnx')), 'kept in the model cache');
      const again = await pull();
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /download/, 'a cached model is not downloaded again');
      assert.match(again.stderr, /checking that test-org\/tiny-model loads/);
    } finally {
      server.close();
      w.cleanup();
    }
  });
});

/** Every relative import of the .ts files under `dirs` (static, lazy and type-only), as repository paths without extension. */
function importsUnder(dirs: string[]): Array<{ from: string; to: string; typeOnly: boolean }> {
  const out: Array<{ from: string; to: string; typeOnly: boolean }> = [];
  const rel = (p: string) => p.replace(/\\/g, '/').replace(`${REPO.replace(/\\/g, '/')}/`, '');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(import\s+type\s[^;]*?from\s+|export\s+type\s[^;]*?from\s+|from\s+|import\s*\(\s*)'([^']+)'/g)) {
          const spec = m[2] as string;
          if (!spec.startsWith('.')) continue;
          out.push({ from: rel(p).replace(/\.ts$/, ''), to: rel(join(dirname(p), spec)).replace(/\.js$/, ''), typeOnly: /^(import|export)\s+type/.test(m[1] as string) });
        }
      }
    }
  };
  for (const d of dirs) walk(join(REPO, d));
  return out;
}

/** Modules reachable from `start` through runtime imports (type-only ones load nothing). */
function reachable(start: string, edges: Array<{ from: string; to: string; typeOnly: boolean }>): Set<string> {
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    const cur = todo.pop() as string;
    for (const e of edges) if (e.from === cur && !e.typeOnly && !seen.has(e.to)) (seen.add(e.to), todo.push(e.to));
  }
  return seen;
}

describe('who owns what (import rules)', () => {
  const edges = importsUnder(['src']);

  it('the store is persistence only: nothing of capture, the agents, the app, the front ends, sync or search, and nothing that reads a folder or .git', () => {
    const storeModules = [...new Set(edges.map((e) => e.from).filter((f) => f.startsWith('src/store/')))];
    assert.ok(storeModules.includes('src/store/store') && storeModules.includes('src/store/projects'), 'the walk reads the store');
    const offenders: string[] = [];
    for (const m of storeModules) {
      for (const r of reachable(m, edges)) {
        if (/^src\/(capture|agents|app|cli|ui|mcp|sync|search|changes)\//.test(r) || r === 'src/project/repository' || r === 'src/project/place') offenders.push(`${m} → ${r}`);
      }
    }
    assert.deepEqual([...new Set(offenders)], []);
  });

  it('"project" has one owner: names are derived, places judged and aliases read only under src/project (and filed by the store)', () => {
    const owned = ['src/project/names', 'src/project/aliases', 'src/project/registry'];
    const offenders = edges.filter((e) => owned.includes(e.to) && !e.typeOnly && !e.from.startsWith('src/project/') && e.from !== 'src/store/projects' && !e.from.startsWith('src/app/projects') && e.from !== 'src/cli/commands/projects');
    assert.deepEqual(offenders.map((e) => `${e.from} → ${e.to}`), []);
    // The front ends ask one question of a folder: placeHere (name and excluded together).
    for (const front of ['src/app/capture/capture', 'src/app/session/session-start', 'src/cli/recall-hook', 'src/mcp/server']) {
      assert.ok(edges.some((e) => e.from === front && e.to === 'src/project/place'), `${front} asks project/place`);
    }
  });

  it('no import circles of two modules (a command and its program, the rule table and the provider rules)', () => {
    const set = new Set(edges.map((e) => `${e.from} ${e.to}`));
    const circles = edges.filter((e) => e.from < e.to && set.has(`${e.to} ${e.from}`)).map((e) => `${e.from} ↔ ${e.to}`);
    assert.deepEqual([...new Set(circles)], []);
  });
});

describe('one application layer under every front end', () => {
  it('nothing under src/app, src/ui or src/mcp imports from src/cli (statically or lazily)', () => {
    const edges = importsUnder(['src/app', 'src/ui', 'src/mcp']);
    assert.ok(edges.some((e) => e.from === 'src/app/search-request'), 'the walk reads the layer');
    assert.deepEqual(edges.filter((e) => e.to.startsWith('src/cli/')).map((e) => `${e.from} → ${e.to}`), []);
  });
});
