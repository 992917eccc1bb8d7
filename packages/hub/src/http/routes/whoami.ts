import { z } from 'zod';
import { route } from '../route.ts';

/** Who the bearer of the token is: the console signs in with it and shows only what the role may do. */
export const whoamiRoutes = [
  route({
    method: 'get',
    path: '/api/v1/whoami',
    operationId: 'whoami',
    tag: 'identity',
    summary: "The caller's identity and role (viewer and above; agents get 403)",
    access: 'viewer',
    responses: { 200: z.object({ id: z.string(), role: z.enum(['viewer', 'operator', 'admin']) }) },
    handle: async ({ principal }) => ({ status: 200, body: { id: principal.id, role: principal.role } }),
  }),
];
