/** An expected failure of a command: a stable snake_case code, a message for people, and details. */
export interface DomainError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: string, message: string, details?: Record<string, unknown>): Result<never> => ({
  ok: false,
  error: details ? { code, message, details } : { code, message },
});
