import { z } from 'zod';
import type { NewEvent, Role } from '../events/envelope.ts';
import { principalStream } from '../events/streams.ts';

/** A refused request by an authenticated principal: recorded so that denials are part of the audit trail. */
export const AccessDeniedData = z.object({
  principal: z.string(),
  role: z.string(),
  method: z.string(),
  route: z.string(),
  reason: z.string(),
});
export type AccessDeniedData = z.infer<typeof AccessDeniedData>;

export function accessDenied(principal: string, role: Role, method: string, route: string, reason: string): NewEvent<'AccessDenied', AccessDeniedData> {
  return { streamId: principalStream(principal), type: 'AccessDenied', data: { principal, role, method, route, reason } };
}
