import type { DomainError } from '@fleetplane/core';

/** An error with its HTTP status and stable code, rendered as the error envelope. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// Domain codes whose status is not 409 (the default for a refused state change).
const STATUS: Record<string, number> = {
  node_not_found: 404,
  stream_not_found: 404,
  intent_not_found: 404,
  attempt_not_found: 404,
  generation_conflict: 412,
  not_found: 404,
  invalid_labels: 400,
  invalid_request: 400,
  node_mismatch: 403,
  node_retired: 403,
  forbidden: 403,
  config_version_not_found: 422,
  unknown_nodes: 422,
  no_matching_nodes: 422,
  rollout_not_found: 404,
  approval_not_found: 404,
  approval_required: 403,
  self_approval_forbidden: 403,
};

export function fromDomain(error: DomainError): HttpError {
  return new HttpError(STATUS[error.code] ?? 409, error.code, error.message, error.details ?? {});
}

export interface ErrorEnvelope {
  code: string;
  message: string;
  correlation_id: string;
  details: Record<string, unknown>;
}
