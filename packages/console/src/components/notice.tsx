import { describeError } from '../api.ts';

/** A failed call, announced to screen readers as it appears. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  return (
    <p role="alert" className="error">
      {describeError(error)}
    </p>
  );
}
