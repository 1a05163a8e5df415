/**
 * How hook commands run: whatever happens they exit 0 and keep stdout for the hook
 * protocol; diagnostics go to stderr and the log file.
 */
import { dirname } from 'node:path';
import { configFileFor, workDirFor } from '../config/paths.js';
import { causeKey, errorMessage, HealthError, UserError } from '../errors.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { causeOf, firstTodayFor } from '../app/session/told.js';
import { parseHookInput, readStdin, type HookInput } from '../app/input.js';
import { makeContext, type Context, type IO } from '../app/context.js';

/** Runs a hook body; any failure becomes one stderr line and exit 0. */
/** `tellInAgent` (SessionStart): a failure is also told to the person as a systemMessage, once a day per cause. */
export type HookRunner = (body: (ctx: Context, input: HookInput) => Promise<number>, opts?: { tellInAgent?: boolean }) => Promise<void>;

/**
 * Where "told today" is kept: beside the configuration, or — when the memory home itself cannot
 * be used (a file, a folder that cannot be written) — in a folder of the system's temporary space.
 */
function toldFolder(configFile: string, err: unknown): string {
  if (err instanceof HealthError && err.kind === 'home') return join(tmpdir(), `memory-engine-told-${process.getuid?.() ?? 'user'}`);
  return workDirFor(dirname(configFile));
}

export function makeHookRunner(io: IO, globals: () => { config?: string }, setExit: (code: number) => void): HookRunner {
  return async (body, opts = {}) => {
    let input: HookInput = {};
    try {
      const parsed = parseHookInput(await readStdin(io.stdin as NodeJS.ReadStream));
      input = parsed.input;
      if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
      const ctx = await makeContext(globals(), io);
      setExit(await body(ctx, input));
    } catch (err) {
      const message = errorMessage(err).split('\n').map((l) => l.trim()).filter((l) => l.length > 0).join('; ');
      const hint = err instanceof UserError && err.hint ? ` — ${err.hint}` : '';
      io.stderr.write(`memory: ${message}${hint}\n`);
      // Memory is off for this session: the person hears it where they look, not only on stderr —
      // once a day per cause (a HealthError's kind and path; otherwise the message).
      if (opts.tellInAgent) {
        const place = configFileFor(globals().config, io.env, io.cwd);
        const cause = err instanceof HealthError ? causeKey(err.kind, err.path) : causeOf(message);
        if (firstTodayFor(toldFolder(place.file, err), cause, io.now())) {
          io.stdout.write(`${JSON.stringify({ systemMessage: `memory: memory is off for this session — ${message}${hint}.` })}\n`);
        }
      }
      setExit(0);
    }
  };
}
