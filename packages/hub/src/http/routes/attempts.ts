import { z } from 'zod';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { AttemptView, attemptView, IntentView, readIntentViews } from '../views/intent.ts';
import { readWhy, WhyLink } from '../views/why.ts';

export const attemptRoutes = [
  route({
    method: 'get',
    path: '/api/v1/attempts/:id',
    operationId: 'getAttempt',
    tag: 'intents',
    errors: { 404: ['attempt_not_found'] },
    summary: 'One attempt with its intent and why it exists: its causation chain back to the operator action or report that caused it',
    access: 'viewer',
    params: z.object({ id: z.string().min(1).max(200) }),
    responses: { 200: AttemptView.extend({ intent: IntentView, why: z.array(WhyLink) }) },
    async handle({ params, hub }) {
      const db = hub.database.db;
      const attempt = await db.selectFrom('attempts').selectAll().where('attempt_id', '=', params.id).executeTakeFirst();
      if (!attempt) throw new HttpError(404, 'attempt_not_found', `attempt ${params.id} does not exist`);
      const intent = await db.selectFrom('intents').selectAll().where('intent_id', '=', attempt.intent_id).executeTakeFirstOrThrow();
      return {
        status: 200,
        body: { ...attemptView(attempt), intent: (await readIntentViews(hub, [intent]))[0]!, why: await readWhy(db, attempt.intent_id, attempt.attempt_id) },
      };
    },
  }),
];
