import type { NextFunction, Request, Response } from 'express';
import { timeOrderedUuid } from '../time-ordered-id.ts';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Correlation-Id when it is well-formed, else a new one. */
export function correlationIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && ACCEPTED.test(given) ? given : timeOrderedUuid();
}

/** Every Express response carries the request's correlation id. */
export function correlation(req: Request, res: Response, next: NextFunction): void {
  const id = correlationIdOf(req.headers['x-correlation-id']);
  res.locals.correlationId = id;
  res.setHeader('X-Correlation-Id', id);
  next();
}
