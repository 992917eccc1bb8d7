/** The documented exit codes (README, `fleetplane --help`). */
export const EXIT = {
  ok: 0,
  /** The operation failed, or a verifier found differences. */
  failed: 1,
  usage: 2,
  /** The Hub refused the request (4xx). */
  refused: 3,
  /** The Hub or the database could not be reached, or the Hub failed (5xx). */
  unreachable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with its exit code; its message goes to stderr. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(exitCode: ExitCode, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
