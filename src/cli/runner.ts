/**
 * How a command runs (program.ts makes one; every command takes it): a type of its own, so
 * that the commands do not import the program that imports them.
 */
import type { Context } from '../app/context.js';

/** Runs a command body with a Context; its return value is the exit code. */
export type Runner = (body: (ctx: Context) => Promise<number>, globals?: { config?: string }) => Promise<void>;
