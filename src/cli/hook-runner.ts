/**
 * How hook commands run: whatever happens they exit 0 and keep stdout for the hook
 * protocol; diagnostics go to stderr and the log file.
 */
import { errorMessage } from '../errors.js';
import { parseHookInput, readStdin, type HookInput } from '../app/input.js';
import { makeContext, type Context, type IO } from '../app/context.js';

/** Runs a hook body; any failure becomes one stderr line and exit 0. */
export type HookRunner = (body: (ctx: Context, input: HookInput) => Promise<number>) => Promise<void>;

export function makeHookRunner(io: IO, globals: () => { config?: string }, setExit: (code: number) => void): HookRunner {
  return async (body) => {
    let input: HookInput = {};
    try {
      const parsed = parseHookInput(await readStdin(io.stdin as NodeJS.ReadStream));
      input = parsed.input;
      if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
      const ctx = await makeContext(globals(), io);
      setExit(await body(ctx, input));
    } catch (err) {
      io.stderr.write(`memory: ${errorMessage(err).split('\n').join(' ')}\n`);
      setExit(0);
    }
  };
}
