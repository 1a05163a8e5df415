/**
 * How a command runs (program.ts makes one; every command takes it): a type of its own, so
 * that the commands do not import the program that imports them.
 */
import type { Context, IO } from '../app/context.js';

/** Runs a command body with a Context; its return value is the exit code. */
export type Runner = (
  body: (ctx: Context) => Promise<number>,
  globals?: { config?: string },
  /** `orElse`: what to do when the configuration cannot be loaded (doctor reports it with its other checks). */
  opts?: { orElse?: (err: unknown, io: IO) => Promise<number> },
) => Promise<void>;
