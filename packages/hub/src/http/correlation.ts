import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Correlation-Id when it is well-formed, else makes one; every response carries it. */
export function correlation(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-correlation-id');
  const id = given && ACCEPTED.test(given) ? given : randomUUID();
  res.locals.correlationId = id;
  res.setHeader('X-Correlation-Id', id);
  next();
}
