/**
 * `memory session-end` as a hook (Stop, SessionEnd) or by hand with `--transcript`: read
 * the hook input, queue the transcript, start the worker if none runs, exit 0. Loads no
 * config parser, no SQLite, no git, no model (a test traces the imports): it runs after
 * every turn of every session. A SessionEnd, or a transcript named by hand, asks the
 * worker to commit and push at once.
 */
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { configFileFor, workDirFor } from '../config/paths.js';
import { errorMessage } from '../errors.js';
import { parseHookInput, readHookStdin } from '../hooks/input.js';
import { fileLogger } from '../hooks/log.js';
import { recordStop } from '../hooks/stop.js';
import type { IO } from './context.js';

/** The detached worker: `memory [--config F] session-end --worker`; returns its pid. */
export async function spawnWorker(configFile: string | undefined, env: NodeJS.ProcessEnv, onError: (message: string) => void): Promise<number | undefined> {
  // Loaded only when a worker is started: most Stops find one running.
  const { spawn } = await import('node:child_process');
  const args = [realpathSync(process.argv[1] as string), ...(configFile ? ['--config', configFile] : []), 'session-end', '--worker'];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', cwd: tmpdir(), env });
  child.on('error', (err) => onError(`cannot start the capture worker: ${err.message}`));
  child.unref();
  return child.pid;
}

export async function stopHook(argv: string[], io: IO): Promise<number> {
  try {
    // The same flags as the full command line's session-end (program.ts); node's own parser
    // costs nothing to load, commander ~13 ms.
    const { values } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: false,
      options: {
        config: { type: 'string', short: 'c' },
        debug: { type: 'boolean' },
        transcript: { type: 'string' },
        session: { type: 'string' },
        cwd: { type: 'string' },
        'no-push': { type: 'boolean' },
      },
    });
    const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
    const parsed = parseHookInput(await readHookStdin(io));
    if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
    const input = parsed.input;
    const cfg = configFileFor(str('config'), io.env, io.cwd);
    const baseDir = dirname(cfg.file);
    const log = fileLogger(join(workDirFor(baseDir), 'memory.log'), { stderr: io.stderr });
    const transcript = str('transcript') ?? input.transcript_path;
    const sessionId = str('session') ?? input.session_id;
    const cwd = str('cwd') ?? input.cwd;
    const r = await recordStop(
      {
        baseDir,
        // Only when no transcript is named: find the newest one of the cwd's project.
        projectsDir: async () => (await import('../config/load.js')).loadConfig({ ...(cfg.explicit ? { configPath: cfg.file } : {}), env: io.env, cwd: io.cwd }).config.general.claude_projects_dir,
      },
      {
        ...(transcript ? { transcript } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(cwd ? { cwd } : {}),
        push: values['no-push'] !== true,
        flush: input.hook_event_name === 'SessionEnd' || str('transcript') !== undefined,
      },
      { now: io.now, spawnWorker: () => spawnWorker(cfg.explicit ? cfg.file : undefined, io.env, (m) => log.warn(m)) },
    );
    if (r.problem) log.warn(`session-end: ${r.problem}`);
  } catch (err) {
    io.stderr.write(`memory: ${errorMessage(err).split('\n').join(' ')}\n`);
  }
  return 0;
}
