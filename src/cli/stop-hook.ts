/**
 * `memory session-end` as a hook (Stop, SessionEnd) or by hand with `--transcript`: read
 * the hook input, queue the transcript, start the worker if none runs, exit 0. Imports
 * no SQLite, no git, no model (a test traces the imports). A SessionEnd, or a transcript
 * named by hand, asks the worker to commit and push at once.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import { parseHookInput, readStdin, type HookInput } from '../hooks/input.js';
import { fileLogger, logPathFor } from '../hooks/log.js';
import { recordStop } from '../hooks/stop.js';
import type { IO } from './context.js';

interface Flags {
  transcript?: string;
  session?: string;
  cwd?: string;
  push: boolean;
}

/** The detached worker: `memory [--config F] session-end --worker`. */
export function spawnWorker(configFile: string | undefined, env: NodeJS.ProcessEnv, onError: (message: string) => void): void {
  const args = [realpathSync(process.argv[1] as string), ...(configFile ? ['--config', configFile] : []), 'session-end', '--worker'];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', cwd: tmpdir(), env });
  child.on('error', (err) => onError(`cannot start the capture worker: ${err.message}`));
  child.unref();
}

export async function stopHook(argv: string[], io: IO): Promise<number> {
  let flags: Flags = { push: true };
  let globals: { config?: string } = {};
  const program = new Command('memory')
    .option('-c, --config <file>')
    .option('--debug')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  program
    .command('session-end')
    .option('--transcript <path>')
    .option('--session <id>')
    .option('--cwd <dir>')
    .option('--no-push')
    .exitOverride()
    .action((f: Flags) => {
      flags = f;
    });
  try {
    program.parse(argv, { from: 'user' });
    globals = program.opts<{ config?: string }>();
  } catch (err) {
    if (err instanceof CommanderError) return 0; // a hook never fails the agent; commander said why
    throw err;
  }
  try {
    const parsed = parseHookInput(await readStdin(io.stdin as NodeJS.ReadStream));
    const input: HookInput = parsed.input;
    if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
    const { config, warnings } = loadConfig({ ...(globals.config ? { configPath: globals.config } : {}), env: io.env, cwd: io.cwd });
    for (const w of warnings) io.stderr.write(`memory: ${w.file}: ${w.key}: ${w.message}\n`);
    const log = fileLogger(logPathFor(config.general.db_path), { stderr: io.stderr });
    const transcript = flags.transcript ?? input.transcript_path;
    const sessionId = flags.session ?? input.session_id;
    const cwd = flags.cwd ?? input.cwd;
    const configFile = config.sources[0] && !config.sources[0].startsWith('env:') ? config.sources[0] : undefined;
    const r = recordStop(
      config,
      {
        ...(transcript ? { transcript } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(cwd ? { cwd } : {}),
        push: flags.push,
        flush: input.hook_event_name === 'SessionEnd' || flags.transcript !== undefined,
      },
      { now: io.now, startWorker: () => spawnWorker(configFile, io.env, (m) => log.warn(m)) },
    );
    if (r.problem) log.warn(`session-end: ${r.problem}`);
  } catch (err) {
    io.stderr.write(`memory: ${errorMessage(err).split('\n').join(' ')}\n`);
  }
  return 0;
}
