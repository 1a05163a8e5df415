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
