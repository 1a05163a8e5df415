// memory-engine plugin launcher (plain JavaScript: it runs before anything is built).
//
// A plugin is the committed tree: a marketplace added by git URL is a clone, so no build
// output is there. On first use (and after an update, which is a new folder) this makes what
// the package ships — the dependencies, when the agent's installer did not (`npm ci
// --ignore-scripts`: nothing compiles), and dist/ from the TypeScript sources with the
// project's own tsc — under a lock, then runs the `memory` command line in this process.
// Memories never live here: they go to the memory home, shared with the package.
// A failure here is told, never thrown at the agent: a hook exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const mainJs = join(root, 'dist', 'src', 'cli', 'main.js');
const stampFile = join(root, 'dist', '.plugin-build');
// Which agent's plugin this is: its hook commands say so (Codex sets CLAUDE_PLUGIN_ROOT too).
const agent = process.env.MEMORY_ENGINE_PLUGIN || (process.env.CLAUDE_PLUGIN_ROOT ? 'claude-code' : 'codex');

/** Newest modification time under the sources: a checkout run in place rebuilds after an edit. */
function sourcesStamp() {
  let newest = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(join(root, 'src'));
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  return `${version} ${Math.round(newest)}`;
}

function built(stamp) {
  if (!existsSync(mainJs)) return false;
  // Built by a person (a contributor's `npm run build`): theirs to keep current.
  if (!existsSync(stampFile)) return true;
  return readFileSync(stampFile, 'utf8').trim() === stamp;
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

/** One builder at a time (two sessions starting at once): a lock folder, waited for. */
async function withBuildLock(fn) {
  const lock = join(root, '.plugin-build.lock');
  const until = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than ten minutes was left by a killed build.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > until) throw new Error('another memory-engine setup has held its lock for five minutes');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function ensureBuilt() {
  const stamp = sourcesStamp();
  if (built(stamp)) return false;
  await withBuildLock(async () => {
    if (built(stamp)) return;
    const t = Date.now();
    if (!existsSync(join(root, 'node_modules', 'better-sqlite3')) || !existsSync(join(root, 'node_modules', 'typescript'))) {
      run(npmCommand(), ['ci', '--ignore-scripts', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'], 'installing the dependencies (npm ci --ignore-scripts)');
    }
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], 'building memory-engine (tsc)');
    mkdirSync(dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, `${stamp}\n`);
    process.stderr.write(`memory-engine: set up in ${((Date.now() - t) / 1000).toFixed(1)} s (${root})\n`);
  });
  return true;
}

function tell(message) {
  process.stderr.write(`${message}\n`);
  // Only SessionStart shows a systemMessage to the person; the other hooks stay quiet.
  if (args[0] === 'session-start') process.stdout.write(`${JSON.stringify({ systemMessage: message })}\n`);
}

if (Number(process.versions.node.split('.')[0]) < 22) {
  tell(`memory-engine: memory is off — it needs Node.js 22 or newer; this is ${process.version} (${process.execPath}). Set MEMORY_NODE to a newer one.`);
  process.exit(0);
}
try {
  await ensureBuilt();
} catch (err) {
  tell(`memory-engine: memory is off — setting it up failed: ${err instanceof Error ? err.message : String(err)}. It is tried again at the next session.`);
  process.exit(0);
}
process.env.MEMORY_ENGINE_PLUGIN = agent;
const { main } = await import(pathToFileURL(mainJs).href);
process.exitCode = await main(args, {
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get stdin() {
    return process.stdin;
  },
  stdinFd: 0,
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
});
