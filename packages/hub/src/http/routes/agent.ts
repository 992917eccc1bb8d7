import { z } from 'zod';
import { registerNode } from '../../commands/register-node.ts';
import { route } from '../route.ts';
import { NodeView } from '../views/node.ts';
import { readNode } from './nodes.ts';

const Text = z.string().min(1).max(200);

export const Registration = z
  .object({
    node_id: Text,
    boot_id: Text,
    agent_version: z.string().max(64).nullable().default(null),
    capabilities: z.array(z.string().min(1).max(64)).max(64).default([]),
    data_address: Text.nullable().default(null),
    control_address: Text.nullable().default(null),
  })
  .strict();

export const agentRoutes = [
  route({
    method: 'post',
    path: '/api/v1/agent/register',
    summary: "Register (or re-register) the calling agent's node; labels are never touched",
    access: 'agent',
    body: Registration,
    responses: { 200: NodeView },
    async handle({ body, principal, hub, run, deny }) {
      if (body.node_id !== principal.nodeId) await deny('node_mismatch', `this credential is bound to node ${principal.nodeId}`);
      await run(registerNode(body));
      return { status: 200, body: await readNode(hub, body.node_id) };
    },
  }),
];
