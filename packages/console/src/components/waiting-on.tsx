import { Link } from '../router.tsx';
import type { WaitingOn } from '../hub-api.ts';

/** Where the blocking thing is shown: a stream on the Streams page, else a node on the Fleet page. */
function blockingLink(w: NonNullable<WaitingOn>): { to: string; text: string } | null {
  if (w.stream_id) return { to: `/streams#stream-${encodeURIComponent(w.stream_id)}`, text: `stream ${w.stream_id}` };
  if (w.node_id) return { to: `/fleet#node-${encodeURIComponent(w.node_id)}`, text: `node ${w.node_id}` };
  return null;
}

/** What an intent or a rollout target waits on: its kind, a link to the blocking stream or node, and the Hub's sentence. */
export function WaitingOnText({ waiting }: { waiting: WaitingOn | null }) {
  if (!waiting) return null;
  const link = blockingLink(waiting);
  return (
    <span className="waiting" data-waiting={waiting.kind}>
      <strong>{waiting.kind.replace(/_/g, ' ')}</strong>
      {link && (
        <>
          {' '}
          · <Link to={link.to}>{link.text}</Link>
        </>
      )}
      <br />
      <span className="hint">{waiting.message}</span>
      {waiting.at && <span className="hint"> (until {new Date(waiting.at).toLocaleTimeString()})</span>}
    </span>
  );
}
