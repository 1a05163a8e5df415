// memory-engine plugin launcher, its parts (plain JavaScript: it runs before anything is built;
// checked by tsc through JSDoc types, tsconfig.plugin.json).
//
// A plugin is the committed tree: a marketplace added by git URL is a clone, so no build output
// is there. On first use (and after an update, which is a new folder) the launcher makes what
// the package ships — its dependencies, when the agent's installer did not install them (`npm ci
// --ignore-scripts`, the root's only: nothing compiles, no test tool), and dist/ from the TypeScript sources
// by Node's own type stripping (no TypeScript in a user's install) — under a lock, in the
// plugin's data folder, then runs the `memory` command line in this process.
//
// Who sets up, and when (the table `nextStep` decides; test/setup/plugin-launcher.test.ts walks it):
// - a person at a terminal (bin/memory): now;
// - an MCP client, which waits for its server but may end it any time: in the background, waited for;
// - Claude Code's SessionStart hook, which Claude Code gives the 180 s plugin.json asks for:
//   now, inside the hook, so that the first session is injected, recalled and captured;
// - any other hook (Codex, which kills long hooks; a Stop): in the background — a capture hook's
//   input is parked in `.plugin-pending/` meanwhile.
// Whoever finishes a set-up replays every parked hook; a parked entry that outlived its set-up
// (parked while the set-up was finishing) is replayed by the next hook, whatever it is.
// Memories never live here: they go to the memory home, shared with the package.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// Node's built-in modules through require, and those only a set-up needs on first use: every hook
// runs this file, and an ES import of node:fs makes Node build a facade that loads fs/promises and
// the streams (~3 ms), node:crypto ~5 ms, node:child_process ~3 ms (bench/RESULTS.md).
const load = createRequire(import.meta.url);
/** @type {typeof import('node:fs')} */
const { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } = load('node:fs');
/** node:child_process, on first use. */
export const childProcess = () => /** @type {typeof import('node:child_process')} */ (load('node:child_process'));

/**
 * @typedef {object} Layout
 * @property {string} pluginRoot the folder the agent installed (read-only for us)
 * @property {string} root where the runnable copy lives (`<data>/app`, or the plugin folder itself in place)
 * @property {string} work the folder of our working files (lock, parked hooks, set-up log)
 * @property {boolean} inPlace a contributor's checkout, already built, used as it is
 * @property {string} mainJs the CLI entry of the copy
 */

/**
 * @typedef {object} Facts
 * @property {boolean} nodeOk Node.js is new enough
 * @property {boolean} setUpChild this process is the background set-up itself
 * @property {boolean} current the copy is built from these sources
 * @property {boolean} terminal a person at a terminal (bin/memory)
 * @property {string} command the first argument: session-start, session-end, recall, mcp, …
 * @property {string} agent claude-code or codex
 */

/**
 * @typedef {'too-old' | 'set-up-child' | 'run' | 'set-up-now' | 'set-up-behind-and-wait' | 'set-up-in-hook' | 'park-and-set-up-behind'} Step
 */

/**
 * What the launcher does with these facts: the whole state table.
 * @param {Facts} f
 * @returns {Step}
 */
export function nextStep(f) {
  if (!f.nodeOk) return 'too-old';
  if (f.setUpChild) return 'set-up-child';
  if (f.current) return 'run';
  if (f.terminal) return 'set-up-now';
  // An MCP client waits for its server, but may end it at any moment (Codex does when `exec` is
  // done): the set-up runs in a process of its own, which outlives the server, and the server waits for it.
  if (f.command === 'mcp') return 'set-up-behind-and-wait';
  // Claude Code waits for a SessionStart hook as long as plugin.json asks (180 s); set-up takes seconds.
  if (f.command === 'session-start' && f.agent === 'claude-code') return 'set-up-in-hook';
  return 'park-and-set-up-behind';
}

/** The hooks whose input is a capture: parked while no copy runs, replayed after. */
export const PARKED_COMMANDS = ['session-end', 'codex-notify'];

/** The Node.js the build needs: type stripping in `node:module` came with 22.13 (and 23.2). */
export const STRIP_NODE = [22, 13];

/**
 * @param {string} version `process.versions.node`
 * @returns {boolean}
 */
export function canStripTypes(version) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > (STRIP_NODE[0] ?? 22) || (major === STRIP_NODE[0] && minor >= (STRIP_NODE[1] ?? 13));
}

/**
 * The plugin's data folder: the agent says where (CLAUDE_PLUGIN_DATA, PLUGIN_DATA); from a
 * terminal (bin/memory) it is found beside the plugin cache the same way the agents lay it out
 * (`<agent>/plugins/cache/<marketplace>/<plugin>/<version>` → `<agent>/plugins/data/<marketplace>-<plugin>`).
 * @param {string} pluginRoot
 * @param {NodeJS.ProcessEnv} env
 * @returns {string | undefined}
 */
export function dataFolder(pluginRoot, env) {
  const named = env.CLAUDE_PLUGIN_DATA || env.PLUGIN_DATA;
  if (named) return named;
  const m = /^(.*[\\/]plugins)[\\/]cache[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/][^\\/]+$/.exec(pluginRoot);
  return m && m[1] && m[2] && m[3] ? join(m[1], 'data', `${m[2]}-${m[3]}`) : undefined;
}

/**
 * Where the runnable copy lives. Never inside the plugin folder an agent installed: Codex puts
 * back a plugin folder whose files changed (measured: a dist/ built there was gone at the next
 * start), and updates delete it. So: `<data>/app`, a copy of the sources with its own
 * node_modules and dist/. A contributor's checkout used in place, already built, runs as it is.
 * @param {string} pluginRoot
 * @param {NodeJS.ProcessEnv} env
 * @returns {Layout}
 */
export function layoutFor(pluginRoot, env) {
  const data = dataFolder(pluginRoot, env);
  const inPlace = !data || (existsSync(join(pluginRoot, 'dist', 'src', 'cli', 'main.js')) && !existsSync(join(pluginRoot, 'dist', '.plugin-build')));
  const root = inPlace || !data ? pluginRoot : join(data, 'app');
  return { pluginRoot, root, work: inPlace || !data ? pluginRoot : data, inPlace, mainJs: join(root, 'dist', 'src', 'cli', 'main.js') };
}

/** The files the copy is built from, besides src/: the package's manifests. */
const STAMPED = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * Each stamped file in a fixed order, `[path in the plugin, relative name]`.
 * @param {string} pluginRoot
 * @returns {Array<[string, string]>}
 */
export function stampedFiles(pluginRoot) {
  /** @type {Array<[string, string]>} */
  const out = [];
  /** @param {string} dir @param {string} rel */
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

/**
 * What the copy is built from, by content (an agent's copy of the plugin gets new mtimes).
 * @param {Array<[string, string]>} files
 * @returns {string}
 */
export function sourcesStamp(files) {
  const h = /** @type {typeof import('node:crypto')} */ (load('node:crypto')).createHash('sha1');
  for (const [p, rel] of files) h.update(`${rel}\0`).update(readFileSync(p));
  return h.digest('hex');
}

/**
 * The same files by name, size, mtime and inode, without reading them: what a hook checks
 * (reading and hashing the sources was 4–10 ms of every hook). When it differs from the one
 * recorded beside the build (a new copy of the plugin, an edit), the content decides. The list
 * itself, a line per file, not a hash of it: a hook does not load node:crypto to compare it.
 * @param {Array<[string, string]>} files
 * @returns {string}
 */
export function filesStamp(files) {
  return files
    .map(([p, rel]) => {
      const s = statSync(p, { bigint: true });
      return `${rel}\t${s.size}\t${s.mtimeNs}\t${s.ino}`;
    })
    .join('\n');
}

/** @param {Layout} l */
const stampFile = (l) => join(l.root, 'dist', '.plugin-build');
/** @param {Layout} l */
const filesStampFile = (l) => join(l.root, 'dist', '.plugin-files');

/**
 * The sources' stamp the copy was built with ('' when there is none).
 * @param {Layout} l
 * @returns {string}
 */
function buildStamp(l) {
  try {
    return readFileSync(stampFile(l), 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * Whether the copy is built from these sources: by the files' stamp when it is the one recorded
 * with this build, else by content (and then recorded).
 * @param {Layout} l
 * @returns {boolean}
 */
export function current(l) {
  if (!existsSync(l.mainJs)) return false;
  // Built by a person (a contributor's `npm run build`): theirs to keep current.
  if (l.inPlace && !existsSync(stampFile(l))) return true;
  const builtWith = buildStamp(l);
  if (!builtWith) return false;
  const files = stampedFiles(l.pluginRoot);
  const quick = filesStamp(files);
  try {
    if (readFileSync(filesStampFile(l), 'utf8') === `${builtWith}\n${quick}\n`) return true;
  } catch {
    /* not recorded yet */
  }
  if (sourcesStamp(files) !== builtWith) return false;
  try {
    writeFileSync(filesStampFile(l), `${builtWith}\n${quick}\n`);
  } catch {
    /* read-only: the content is checked again next time */
  }
  return true;
}

/** @param {Layout} l */
const lockDir = (l) => join(l.work, '.plugin-build.lock');

/**
 * @param {Layout} l
 * @returns {boolean}
 */
export function setUpRunning(l) {
  try {
    const pid = Number(readFileSync(join(lockDir(l), 'pid'), 'utf8'));
    if (!pid) return Date.now() - statSync(lockDir(l)).mtimeMs < 10_000; // being written
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * One builder at a time (two sessions, or a session and its MCP server, starting at once): a
 * lock folder holding the builder's pid; a lock whose process is gone is taken over.
 * @param {Layout} l
 * @param {number} [pid]
 * @returns {boolean}
 */
export function takeLock(l, pid = process.pid) {
  mkdirSync(l.work, { recursive: true });
  try {
    mkdirSync(lockDir(l));
  } catch {
    if (setUpRunning(l)) return false;
    rmSync(lockDir(l), { recursive: true, force: true });
    try {
      mkdirSync(lockDir(l));
    } catch {
      return false;
    }
  }
  writeFileSync(join(lockDir(l), 'pid'), String(pid));
  return true;
}

/**
 * @param {Layout} l
 * @param {number} pid
 */
export function handLock(l, pid) {
  writeFileSync(join(lockDir(l), 'pid'), String(pid));
}

/** @param {Layout} l */
export function releaseLock(l) {
  rmSync(lockDir(l), { recursive: true, force: true });
}

/**
 * The lock, waited for until `deadline` (another set-up finishing: a hook, the MCP server).
 * @param {Layout} l
 * @param {number} deadline
 * @returns {Promise<boolean>}
 */
export async function waitForLock(l, deadline) {
  while (!takeLock(l)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return true;
}

/**
 * @param {string} cmd
 * @param {string[]} argv
 * @param {string} cwd
 * @param {string} what
 */
function run(cmd, argv, cwd, what) {
  const r = childProcess().spawnSync(cmd, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10 * 60_000 });
  if (r.status !== 0) {
    const out = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').slice(-3).join(' / ');
    throw new Error(`${what} failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`}): ${out}`);
  }
}

function npmCommand() {
  const beside = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  return existsSync(beside) ? beside : 'npm';
}

/** @param {string} p */
function lstatSafe(p) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The files the app is built and run from, copied out of the plugin folder. */
const APP_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'config.toml', 'src', 'skills', 'ui', 'bin', 'plugin'];

/**
 * dist/src from src/ by Node's own type stripping (`module.stripTypeScriptTypes`, transform
 * mode: parameter properties too), one file each, the same layout tsc writes: no TypeScript in
 * a user's install (it was 23 MB of every plugin install) and under a second for the whole tree.
 * @param {string} root
 * @returns {Promise<number>} files written
 */
export async function buildDist(root) {
  if (!canStripTypes(process.versions.node)) {
    throw new Error(`setting the plugin up needs Node.js ${STRIP_NODE.join('.')} or newer (type stripping); this is ${process.version}: install a newer Node.js 22 or 24, or set MEMORY_NODE to one`);
  }
  const mod = /** @type {{ stripTypeScriptTypes?: (code: string, opts: { mode: 'strip' | 'transform' }) => string }} */ (await import('node:module'));
  const strip = mod.stripTypeScriptTypes;
  if (!strip) throw new Error(`this Node.js (${process.version}) has no type stripping`);
  const out = join(root, 'dist', 'src');
  rmSync(out, { recursive: true, force: true });
  // The feature is marked experimental: its one warning would land on a hook's stderr.
  const warn = process.emitWarning;
  process.emitWarning = () => undefined;
  let n = 0;
  try {
    /** @param {string} dir @param {string} to */
    const walk = (dir, to) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p, join(to, e.name));
        else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
          mkdirSync(to, { recursive: true });
          writeFileSync(join(to, e.name.replace(/\.ts$/, '.js')), strip(readFileSync(p, 'utf8'), { mode: 'transform' }));
          n++;
        }
      }
    };
    walk(join(root, 'src'), out);
  } finally {
    process.emitWarning = warn;
  }
  return n;
}

/**
 * Copy the sources into the data folder, install the dependencies (or use the ones the agent's
 * installer put beside the plugin: Claude Code installs the root package's dependency closure,
 * which holds no test tool — they are the test/ workspace's), build, bundle the light hooks, stamp. Returns how long it took.
 * @param {Layout} l
 * @param {string} stamp
 * @returns {Promise<number>}
 */
export async function setUp(l, stamp) {
  const t = Date.now();
  if (!l.inPlace) {
    mkdirSync(l.root, { recursive: true });
    const lockBefore = existsSync(join(l.root, 'package-lock.json')) ? readFileSync(join(l.root, 'package-lock.json'), 'utf8') : '';
    rmSync(join(l.root, 'dist'), { recursive: true, force: true });
    rmSync(join(l.root, 'src'), { recursive: true, force: true });
    for (const f of APP_FILES) if (existsSync(join(l.pluginRoot, f))) cpSync(join(l.pluginRoot, f), join(l.root, f), { recursive: true });
    const nm = join(l.root, 'node_modules');
    const given = join(l.pluginRoot, 'node_modules');
    if (existsSync(join(given, 'better-sqlite3'))) {
      rmSync(nm, { recursive: true, force: true });
      symlinkSync(given, nm, 'dir');
    } else if (lockBefore !== readFileSync(join(l.root, 'package-lock.json'), 'utf8') || lstatSafe(nm)?.isSymbolicLink()) {
      rmSync(nm, { recursive: true, force: true });
    }
  }
  if (!existsSync(join(l.root, 'node_modules', 'better-sqlite3'))) {
    // The root's dependencies only: the test/ workspace (TypeScript, the browser driver) is for contributors.
    run(npmCommand(), ['ci', '--ignore-scripts', '--omit=dev', '--workspaces=false', '--no-audit', '--no-fund', '--loglevel=error'], l.root, 'installing the dependencies (npm ci --ignore-scripts --omit=dev --workspaces=false)');
  }
  await buildDist(l.root);
  // The light hooks as one file each: faster to start, not needed to run (the modules serve).
  try {
    const why = await (await import('./bundle.mjs')).bundleHooks(l.root);
    if (why) process.stderr.write(`memory-engine: the hooks are not bundled (${why})\n`);
  } catch (err) {
    process.stderr.write(`memory-engine: the hooks are not bundled (${err instanceof Error ? err.message : String(err)})\n`);
  }
  mkdirSync(dirname(stampFile(l)), { recursive: true });
  writeFileSync(stampFile(l), `${stamp}\n`);
  return Date.now() - t;
}

/** @param {Layout} l */
export const pendingDir = (l) => join(l.work, '.plugin-pending');

/**
 * What of a hook's environment says where and how memory works: the memory home and settings
 * (`MEMORY_*`), the folders they default to, the agents' homes, and how git is set up and reaches
 * the remote, through which proxy (not GIT_DIR and its kin: the memory home is a repository of its own).
 * A parked capture is replayed with them, whoever replays it: the set-up may have been started by
 * the MCP server, whose client gives it only a few variables (Codex: HOME, PATH, …).
 * @param {NodeJS.ProcessEnv} env
 * @returns {Record<string, string>}
 */
export function hookEnv(env) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (/^MEMORY_/.test(k) || /^(?:HOME|USERPROFILE|APPDATA|LOCALAPPDATA|XDG_DATA_HOME|XDG_CACHE_HOME|XDG_CONFIG_HOME|CODEX_HOME|CLAUDE_CONFIG_DIR|PATH|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|SSH_AUTH_SOCK|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|GIT_SSL_CAINFO|(?:HTTPS|HTTP|ALL|NO)_PROXY|(?:https|http|all|no)_proxy)$/.test(k))) out[k] = v;
  }
  return out;
}

/**
 * A capture hook's input, kept until a copy runs, with what of its environment decides where it goes (hookEnv).
 * @param {Layout} l
 * @param {{ args: string[], input: string, cwd: string, env?: Record<string, string> }} entry
 */
export function park(l, entry) {
  mkdirSync(pendingDir(l), { recursive: true });
  writeFileSync(join(pendingDir(l), `${Date.now()}-${process.pid}.json`), JSON.stringify(entry), { mode: 0o600 });
}

/**
 * Parked entries not being replayed by a live process.
 * @param {Layout} l
 * @returns {string[]}
 */
export function parkedEntries(l) {
  let names;
  try {
    names = readdirSync(pendingDir(l)).sort();
  } catch {
    return [];
  }
  return names.filter((n) => {
    if (n.endsWith('.json')) return true;
    const pid = Number(/\.replaying-(\d+)$/.exec(n)?.[1] ?? 0);
    if (!pid) return false;
    try {
      process.kill(pid, 0);
      return false; // a live replayer has it
    } catch {
      return true; // its replayer died: take it over
    }
  });
}

/**
 * Replay every parked hook through the built copy, each claimed first (renamed), so that two
 * replayers never run one twice. Returns how many ran.
 * @param {Layout} l
 * @param {string} agent
 * @returns {number}
 */
export function replayParked(l, agent) {
  let n = 0;
  for (const name of parkedEntries(l)) {
    const from = join(pendingDir(l), name);
    const claimed = join(pendingDir(l), `${name.replace(/\.replaying-\d+$/, '')}.replaying-${process.pid}`);
    try {
      renameSync(from, claimed);
    } catch {
      continue; // another replayer took it
    }
    try {
      const p = /** @type {{ args: string[], input: string, cwd: string, env?: Record<string, string> }} */ (JSON.parse(readFileSync(claimed, 'utf8')));
      childProcess().spawnSync(process.execPath, [l.mainJs, ...p.args], { input: p.input, cwd: existsSync(p.cwd) ? p.cwd : l.work, env: { ...process.env, ...p.env, MEMORY_ENGINE_PLUGIN: agent }, stdio: ['pipe', 'ignore', 'ignore'], timeout: 5 * 60_000 });
      n++;
    } catch {
      /* a bad entry: the next Stop of that session captures its transcript anyway */
    } finally {
      rmSync(claimed, { force: true });
    }
  }
  return n;
}

/** @param {Layout} l */
export const setUpLog = (l) => join(l.work, '.plugin-setup.log');

/**
 * The last background set-up's outcome: undefined when it went well (or none ran).
 * @param {Layout} l
 * @returns {string | undefined}
 */
export function lastSetUpFailure(l) {
  try {
    const text = readFileSync(setUpLog(l), 'utf8').trim();
    return text && !text.startsWith('set up in') ? text : undefined;
  } catch {
    return undefined;
  }
}
