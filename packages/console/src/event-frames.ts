/** One frame of the Hub's event stream (`GET /api/v1/events/stream`). */
export interface Frame {
  /** The log cursor to resume from, when the frame names one. */
  id: string | undefined;
  /**
   * Whether it carries an event. The stream's opening frame is an id alone (where it follows from), and
   * heartbeats are comments: neither is a change of the fleet.
   */
  event: boolean;
}

/** Splits what has arrived of the stream into its whole frames and the rest, a frame not yet ended. */
export function takeFrames(buffer: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  let rest = buffer;
  let end: number;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const text = rest.slice(0, end);
    rest = rest.slice(end + 2);
    frames.push({ id: /^id: ?(.*)$/m.exec(text)?.[1], event: /^data:/m.test(text) });
  }
  return { frames, rest };
}
