// memory-engine plugin launcher (plain JavaScript: it runs before anything is built). The
// decisions and the set-up are in launcher.mjs; this file reads the facts, takes the step the
// table names and runs the `memory` command line in this process. A failure here is told, never
// thrown at the agent: a hook exits 0.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  childProcess, current, handLock, hookEnv, lastSetUpFailure, layoutFor, nextStep, park, PARKED_COMMANDS, parkedEntries, releaseLock, replayParked,
  setUp, setUpLog, setUpRunning, sourcesStamp, stampedFiles, takeLock, waitForLock,
} from './launcher.mjs';

// node:fs through require, as in launcher.mjs: an ES import of it costs every hook ~3 ms (bench/RESULTS.md).
/** @type {typeof import('node:fs')} */
const { existsSync, mkdirSync, rmSync, writeFileSync } = createRequire(import.meta.url)('node:fs');

const pluginRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const layout = layoutFor(pluginRoot, process.env);
// Which agent's plugin this is: its hook commands say so (Codex sets CLAUDE_PLUGIN_ROOT too).
const agent = process.env.MEMORY_ENGINE_PLUGIN || (process.env.CLAUDE_PLUGIN_ROOT ? 'claude-code' : 'codex');

/** @param {string} message */
function tell(message) {
  process.stderr.write(`${message}\n`);
  // Only SessionStart shows a systemMessage to the person; the other hooks stay quiet.
  if (args[0] === 'session-start') process.stdout.write(`${JSON.stringify({ systemMessage: message })}\n`);
}

async function readStdin() {
  if (process.stdin.isTTY) return '';
  /** @type {Buffer[]} */
  const chunks = [];
  const timer = setTimeout(() => process.stdin.destroy(), 2000);
  try {
    for await (const c of process.stdin) chunks.push(/** @type {Buffer} */ (c));
  } catch {
    /* closed */
  }
  clearTimeout(timer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Set up now, holding the lock (waited for until `deadline`); replay what was parked. Returns seconds, or undefined when another set-up still holds the lock. */
async function setUpHere(/** @type {number} */ deadline) {
  if (!(await waitForLock(layout, deadline))) return undefined;
  let ms = 0;
  try {
    if (!current(layout)) ms = await setUp(layout, sourcesStamp(stampedFiles(pluginRoot)));
  } finally {
    releaseLock(layout);
  }
  replayParked(layout, agent);
  return ms / 1000;
}

/** Start the background set-up unless one runs (it builds, replays what was parked, then lets go). */
function setUpBehind() {
  if (!takeLock(layout)) return;
  mkdirSync(layout.work, { recursive: true });
  const child = childProcess().spawn(process.execPath, [fileURLToPath(import.meta.url), '--set-up'], { detached: true, stdio: 'ignore', cwd: layout.work, env: process.env });
  if (child.pid) handLock(layout, child.pid);
  child.unref();
}

async function runMain() {
  process.env.MEMORY_ENGINE_PLUGIN = agent;
  const { main, processIO } = await import(pathToFileURL(layout.mainJs).href);
  process.exitCode = await main(args, processIO());
}

const step = nextStep({
  nodeOk: Number(process.versions.node.split('.')[0]) >= 22,
  setUpChild: args[0] === '--set-up',
  current: args[0] === '--set-up' || Number(process.versions.node.split('.')[0]) < 22 ? false : current(layout),
  terminal: Boolean(process.env.MEMORY_ENGINE_CLI),
  command: args[0] ?? '',
  agent,
});

switch (step) {
  case 'too-old': {
    const record = process.env.MEMORY_ENGINE_NODE_RECORD;
    if (record) {
      // The Node.js node.sh found last time is too old now: forget it and look again, with the
      // hook's input still unread on stdin.
      delete process.env.MEMORY_ENGINE_NODE_RECORD;
      rmSync(record, { force: true });
      const again = childProcess().spawnSync('sh', [join(pluginRoot, 'plugin', 'node.sh'), ...args], { stdio: 'inherit', env: process.env });
      process.exit(again.status ?? 0);
    }
    tell(`memory-engine: memory is off — it needs Node.js 22 or newer; this is ${process.version} (${process.execPath}). Set MEMORY_NODE to a newer one.`);
    process.exit(0);
    break;
  }
  case 'set-up-child': {
    // The background set-up: build, then replay what the hooks parked meanwhile, then let go.
    try {
      if (!current(layout)) {
        const ms = await setUp(layout, sourcesStamp(stampedFiles(pluginRoot)));
        writeFileSync(setUpLog(layout), `set up in ${(ms / 1000).toFixed(1)} s\n`);
      }
    } catch (err) {
      writeFileSync(setUpLog(layout), `${err instanceof Error ? err.message : String(err)}\n`);
      releaseLock(layout);
      process.exit(0);
    }
    releaseLock(layout);
    replayParked(layout, agent);
    process.exit(0);
    break;
  }
  case 'run':
    // A capture parked while a set-up was finishing (it replayed before this one was parked): replayed now.
    if (parkedEntries(layout).length > 0 && !setUpRunning(layout)) replayParked(layout, agent);
    await runMain();
    break;
  case 'set-up-now':
    // A person at a terminal (bin/memory): set up now.
    try {
      const s = await setUpHere(Date.now() + 5 * 60_000);
      if (s === undefined) throw new Error('another memory-engine set-up has run for five minutes');
      if (s > 0) process.stderr.write(`memory-engine: set up in ${s.toFixed(1)} s (${layout.root})\n`);
    } catch (err) {
      process.stderr.write(`memory: setting memory-engine up failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
    await runMain();
    break;
  case 'set-up-behind-and-wait': {
    // The MCP server: the set-up runs behind it (or another process's runs), and the server waits
    // for it. Ended meanwhile by its client, it leaves the set-up going: what was parked is replayed.
    const deadline = Date.now() + 5 * 60_000;
    setUpBehind();
    while (!current(layout)) {
      if (!setUpRunning(layout)) {
        const failed = lastSetUpFailure(layout);
        if (failed) {
          process.stderr.write(`memory: setting memory-engine up failed: ${failed}\n`);
          process.exit(1);
        }
        setUpBehind();
      }
      if (Date.now() > deadline) {
        process.stderr.write('memory: setting memory-engine up failed: the set-up has run for five minutes\n');
        process.exit(1);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await runMain();
    break;
  }
  case 'set-up-in-hook': {
    // Claude Code's SessionStart: set up inside the hook (it allows 180 s), so this first session
    // is injected, recalled and captured like any other.
    let s;
    const began = Date.now();
    try {
      s = await setUpHere(began + 150_000);
    } catch (err) {
      writeFileSync(setUpLog(layout), `${err instanceof Error ? err.message : String(err)}\n`);
      tell(`memory-engine: memory is off for this session — setting it up failed: ${err instanceof Error ? err.message : String(err)}. The next session tries again.`);
      process.exit(0);
    }
    if (s === undefined) {
      tell('memory-engine: still setting up on first use (another process is at it); this session is remembered once that is done, nothing is lost meanwhile.');
      process.exit(0);
    }
    // Set up here, or by another process (the MCP server Claude Code starts with the session) while this hook waited.
    process.env.MEMORY_ENGINE_SET_UP = `memory-engine: set up on first use in ${((Date.now() - began) / 1000).toFixed(1)} s; memory is on from this session.`;
    await runMain();
    break;
  }
  case 'park-and-set-up-behind': {
    // An agent that gives a hook only seconds (Codex), or a hook other than the session start: the
    // set-up runs in the background, and a capture hook's input waits in .plugin-pending/.
    const input = await readStdin();
    if (PARKED_COMMANDS.includes(args[0] ?? '')) park(layout, { args, input, cwd: process.cwd(), env: hookEnv(process.env) });
    setUpBehind();
    const failed = existsSync(setUpLog(layout)) ? lastSetUpFailure(layout) : undefined;
    if (failed) tell(`memory-engine: memory is off — setting it up failed: ${failed}. It is tried again now, in the background.`);
    else tell('memory-engine: setting up on first use (installing its dependencies and building, under a minute, in the background). This session is remembered once that is done; nothing is lost meanwhile.');
    process.exit(0);
    break;
  }
}
