// memory-engine plugin launcher (plain JavaScript: it runs before anything is built).
//
// A plugin is the committed tree: a marketplace added by git URL is a clone, so no build
// output is there. On first use (and after an update, which is a new folder) this makes what
// the package ships — the dependencies, when the agent's installer did not (`npm ci
// --ignore-scripts`: nothing compiles), and dist/ from the TypeScript sources with the
// project's own tsc — under a lock, then runs the `memory` command line in this process. A
// hook does not wait for that (an agent gives a hook seconds): the set-up runs in the
// background and the hook's input is replayed once it is done; a terminal command waits.
// Memories never live here: they go to the memory home, shared with the package.
// A failure here is told, never thrown at the agent: a hook exits 0.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pluginRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/**
 * The plugin's data folder: the agent says where (CLAUDE_PLUGIN_DATA, PLUGIN_DATA); from a
 * terminal (bin/memory) it is found beside the plugin cache the same way the agents lay it out
 * (`<agent>/plugins/cache/<marketplace>/<plugin>/<version>` → `<agent>/plugins/data/<marketplace>-<plugin>`).
 */
function dataFolder() {
  const named = process.env.CLAUDE_PLUGIN_DATA || process.env.PLUGIN_DATA;
  if (named) return named;
  const m = /^(.*[\\/]plugins)[\\/]cache[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/][^\\/]+$/.exec(pluginRoot);
  return m ? join(m[1], 'data', `${m[2]}-${m[3]}`) : undefined;
}
const data = dataFolder();

/**
 * Where the runnable copy lives. Never inside the plugin folder an agent installed: Codex puts
 * back a plugin folder whose files changed (measured: a dist/ built there was gone at the next
 * start), and updates delete it. So: `<data>/app`, a copy of the sources with its own
 * node_modules and dist/. A contributor's checkout used in place, already built, runs as it is.
 */
const inPlace = !data || (existsSync(join(pluginRoot, 'dist', 'src', 'cli', 'main.js')) && !existsSync(join(pluginRoot, 'dist', '.plugin-build')));
const root = inPlace ? pluginRoot : join(data, 'app');
const work = inPlace ? pluginRoot : data;
const mainJs = join(root, 'dist', 'src', 'cli', 'main.js');
const stampFile = join(root, 'dist', '.plugin-build');
// Which agent's plugin this is: its hook commands say so (Codex sets CLAUDE_PLUGIN_ROOT too).
const agent = process.env.MEMORY_ENGINE_PLUGIN || (process.env.CLAUDE_PLUGIN_ROOT ? 'claude-code' : 'codex');

/** The files the copy is built from: the sources and the package's manifests. */
const STAMPED = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** Each stamped file in a fixed order, `(path in the plugin, relative name)`. */
function stampedFiles() {
  const out = [];
  const walk = (dir, rel) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else out.push([p, `${rel}${e.name}`]);
    }
  };
  walk(join(pluginRoot, 'src'), 'src/');
  for (const f of STAMPED) out.push([join(pluginRoot, f), f]);
  return out;
}

/** What the copy is built from, by content (an agent's copy of the plugin gets new mtimes). */
function sourcesStamp(files = stampedFiles()) {
  const h = createHash('sha1');
  for (const [p, rel] of files) h.update(`${rel}\0`).update(readFileSync(p));
  return h.digest('hex');
}

/**
 * The same files by name, size, mtime and inode, without reading them: what a hook checks
 * (reading and hashing the sources was 4–10 ms of every hook). When it differs from the one
 * recorded beside the build (a new copy of the plugin, an edit), the content decides.
 */
function filesStamp(files) {
  const h = createHash('sha1');
  for (const [p, rel] of files) {
    const s = statSync(p, { bigint: true });
    h.update(`${rel}\0${s.size}\0${s.mtimeNs}\0${s.ino}\n`);
  }
  return h.digest('hex');
}
const filesStampFile = join(root, 'dist', '.plugin-files');

/** The sources' stamp the copy was built with ('' when there is none). */
function buildStamp() {
  try {
    return readFileSync(stampFile, 'utf8').trim();
  } catch {
    return '';
  }
}

function built(stamp) {
  if (!existsSync(mainJs)) return false;
  // Built by a person (a contributor's `npm run build`): theirs to keep current.
  if (inPlace && !existsSync(stampFile)) return true;
  return buildStamp() === stamp;
}

/** built(sourcesStamp()), by the files' stamp when it is the one recorded with this build, else by content (and then recorded). */
function current() {
  if (!existsSync(mainJs)) return false;
  if (inPlace && !existsSync(stampFile)) return true;
  const builtWith = buildStamp();
  if (!builtWith) return false;
  const files = stampedFiles();
  const quick = filesStamp(files);
  try {
    if (readFileSync(filesStampFile, 'utf8').trim() === `${quick} ${builtWith}`) return true;
  } catch {
    /* not recorded yet */
  }
  if (sourcesStamp(files) !== builtWith) return false;
  try {
    writeFileSync(filesStampFile, `${quick} ${builtWith}\n`);
  } catch {
    /* read-only: the content is checked again next time */
  }
  return true;
}

function run(cmd, argv, what) {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10 * 60_000 });
  if (r.status !== 0) {
    const out = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').slice(-3).join(' / ');
    throw new Error(`${what} failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`}): ${out}`);
  }
}

function npmCommand() {
  const beside = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  return existsSync(beside) ? beside : 'npm';
}

/**
 * One builder at a time (two sessions starting at once): a lock folder holding the builder's
 * pid; a lock whose process is gone is taken over.
 */
const lockDir = join(work, '.plugin-build.lock');

function lockHolderAlive() {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    if (!pid) return Date.now() - statSync(lockDir).mtimeMs < 10_000; // being written
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err && err.code === 'EPERM';
  }
}

function takeLock() {
  mkdirSync(work, { recursive: true });
  try {
    mkdirSync(lockDir);
  } catch {
    if (lockHolderAlive()) return false;
    rmSync(lockDir, { recursive: true, force: true });
    try {
      mkdirSync(lockDir);
    } catch {
      return false;
    }
  }
  writeFileSync(join(lockDir, 'pid'), String(process.pid));
  return true;
}

/** Hook inputs that arrived while the set-up ran: replayed once it is done, so no turn is lost. */
const pendingDir = join(work, '.plugin-pending');

async function readStdin() {
  if (process.stdin.isTTY) return '';
  const chunks = [];
  const timer = setTimeout(() => process.stdin.destroy(), 2000);
  try {
    for await (const c of process.stdin) chunks.push(c);
  } catch {
    /* closed */
  }
  clearTimeout(timer);
  return Buffer.concat(chunks).toString('utf8');
}

function lstatSafe(p) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The files the app is built and run from, copied out of the plugin folder. */
const APP_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'config.toml', 'src', 'skills', 'ui', 'bin', 'plugin'];

function setUp(stamp) {
  const t = Date.now();
  if (!inPlace) {
    mkdirSync(root, { recursive: true });
    const lockBefore = existsSync(join(root, 'package-lock.json')) ? readFileSync(join(root, 'package-lock.json'), 'utf8') : '';
    rmSync(join(root, 'dist'), { recursive: true, force: true });
    rmSync(join(root, 'src'), { recursive: true, force: true });
    for (const f of APP_FILES) if (existsSync(join(pluginRoot, f))) cpSync(join(pluginRoot, f), join(root, f), { recursive: true });
    const nm = join(root, 'node_modules');
    const given = join(pluginRoot, 'node_modules');
    if (existsSync(join(given, 'better-sqlite3')) && existsSync(join(given, 'typescript'))) {
      // The agent's installer already ran `npm ci --ignore-scripts` in the plugin folder (Claude Code does): use those.
      rmSync(nm, { recursive: true, force: true });
      symlinkSync(given, nm, 'dir');
    } else if (lockBefore !== readFileSync(join(root, 'package-lock.json'), 'utf8') || lstatSafe(nm)?.isSymbolicLink()) {
      rmSync(nm, { recursive: true, force: true });
    }
  }
  if (!existsSync(join(root, 'node_modules', 'better-sqlite3')) || !existsSync(join(root, 'node_modules', 'typescript'))) {
    run(npmCommand(), ['ci', '--ignore-scripts', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'], 'installing the dependencies (npm ci --ignore-scripts)');
  }
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], 'building memory-engine (tsc)');
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${stamp}\n`);
  return Date.now() - t;
}

/** The background set-up: build, then replay what the hooks left meanwhile, then let go. */
async function backgroundSetUp() {
  const stamp = sourcesStamp();
  try {
    if (!built(stamp)) {
      const ms = setUp(stamp);
      writeFileSync(join(work, '.plugin-setup.log'), `set up in ${(ms / 1000).toFixed(1)} s\n`);
    }
  } catch (err) {
    writeFileSync(join(work, '.plugin-setup.log'), `${err instanceof Error ? err.message : String(err)}\n`);
    rmSync(lockDir, { recursive: true, force: true });
    return;
  }
  rmSync(lockDir, { recursive: true, force: true });
  let names = [];
  try {
    names = readdirSync(pendingDir).sort();
  } catch {
    /* none */
  }
  for (const name of names) {
    try {
      const p = JSON.parse(readFileSync(join(pendingDir, name), 'utf8'));
      rmSync(join(pendingDir, name), { force: true });
      spawnSync(process.execPath, [mainJs, ...p.args], { input: p.input, cwd: p.cwd, env: { ...process.env, MEMORY_ENGINE_PLUGIN: agent }, stdio: ['pipe', 'ignore', 'ignore'], timeout: 5 * 60_000 });
    } catch {
      /* a bad entry: the next Stop of that session captures its transcript anyway */
    }
  }
}

/**
 * Not built yet: the set-up (an `npm ci` and a build, up to a minute) runs in the background —
 * an agent gives a hook only seconds — and this hook's input waits in .plugin-pending/.
 */
async function startSetUp() {
  const input = await readStdin();
  if (args[0] === 'session-end' || args[0] === 'codex-notify') {
    mkdirSync(pendingDir, { recursive: true });
    writeFileSync(join(pendingDir, `${Date.now()}-${process.pid}.json`), JSON.stringify({ args, input, cwd: process.cwd() }));
  }
  if (takeLock()) {
    const { spawn } = await import('node:child_process');
    mkdirSync(work, { recursive: true });
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--set-up'], { detached: true, stdio: 'ignore', cwd: work, env: process.env });
    writeFileSync(join(lockDir, 'pid'), String(child.pid));
    child.unref();
  }
  const failed = existsSync(join(work, '.plugin-setup.log')) ? readFileSync(join(work, '.plugin-setup.log'), 'utf8').trim() : '';
  if (failed && !failed.startsWith('set up in')) tell(`memory-engine: memory is off — setting it up failed: ${failed}. It is tried again now, in the background.`);
  else tell('memory-engine: setting up on first use (installing its dependencies and building, under a minute, in the background). This session is remembered once that is done; nothing is lost meanwhile.');
}

function tell(message) {
  process.stderr.write(`${message}\n`);
  // Only SessionStart shows a systemMessage to the person; the other hooks stay quiet.
  if (args[0] === 'session-start') process.stdout.write(`${JSON.stringify({ systemMessage: message })}\n`);
}

if (Number(process.versions.node.split('.')[0]) < 22) {
  const record = process.env.MEMORY_ENGINE_NODE_RECORD;
  if (record) {
    // The Node.js node.sh found last time is too old now: forget it and look again, with the
    // hook's input still unread on stdin.
    delete process.env.MEMORY_ENGINE_NODE_RECORD;
    rmSync(record, { force: true });
    const again = spawnSync('sh', [join(pluginRoot, 'plugin', 'node.sh'), ...args], { stdio: 'inherit', env: process.env });
    process.exit(again.status ?? 0);
  }
  tell(`memory-engine: memory is off — it needs Node.js 22 or newer; this is ${process.version} (${process.execPath}). Set MEMORY_NODE to a newer one.`);
  process.exit(0);
}
if (args[0] === '--set-up') {
  await backgroundSetUp();
  process.exit(0);
}
if (!current()) {
  if (process.env.MEMORY_ENGINE_CLI || args[0] === 'mcp') {
    // A person at a terminal (bin/memory), or an MCP client that waits for the server: set up now.
    try {
      const until = Date.now() + 5 * 60_000;
      while (!takeLock()) {
        if (Date.now() > until) throw new Error('another memory-engine set-up has run for five minutes');
        await new Promise((r) => setTimeout(r, 250));
      }
      try {
        if (!built(sourcesStamp())) process.stderr.write(`memory-engine: set up in ${(setUp(sourcesStamp()) / 1000).toFixed(1)} s (${root})\n`);
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
    } catch (err) {
      process.stderr.write(`memory: setting memory-engine up failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  } else {
    await startSetUp();
    process.exit(0);
  }
}
process.env.MEMORY_ENGINE_PLUGIN = agent;
const { main, processIO } = await import(pathToFileURL(mainJs).href);
process.exitCode = await main(args, processIO());
