/**
 * Expected failures a user can act on carry a message, an optional hint and an exit code.
 * Only the CLI entry turns them into text and a process exit.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The command was called wrongly (a missing argument, a malformed option): exit 2, as for commander's own. */
export class UsageError extends UserError {
  constructor(message: string, hint?: string) {
    super(message, hint, 2);
  }
}

/** A bug or an environment failure we did not anticipate. */
export class InternalError extends Error {
  override readonly name = 'InternalError';
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * What breaks around memory, by kind: git missing, the memory home unusable, an export folder
 * inside a project, the model folder missing, the shared settings broken. Each is told to the
 * person where they are (the session start's `systemMessage`, once a day per cause: its kind and
 * its path, not its wording) and is a clear error of the CLI (exit 1), never a bug's exit 70.
 */
export type HealthKind = 'git' | 'home' | 'export' | 'model' | 'settings' | 'node' | 'sqlite';

export class HealthError extends UserError {
  constructor(
    readonly kind: HealthKind,
    /** What it concerns (a folder, a file, a program): with the kind, the cause told once a day. */
    readonly path: string,
    message: string,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/** The once-a-day key of a cause: its kind and its path. */
export function causeKey(kind: HealthKind, path: string): string {
  return `${kind}:${path}`;
}
