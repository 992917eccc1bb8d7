-- An attempt still queued when its intent converged or was blocked is withdrawn (state `superseded`), as
-- the attempts projection now does for IntentConverged and IntentBlocked: such an attempt must never be
-- delivered (a restart proven by a late report would be sent again). Rows projected before that rule get
-- the state a rebuild gives them, at the time the intent reached that state.
UPDATE attempts a
   SET state = 'superseded', completed_at = i.updated_at
  FROM intents i
 WHERE a.intent_id = i.intent_id
   AND a.state = 'queued'
   AND i.state IN ('converged', 'blocked');
