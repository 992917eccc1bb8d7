/** One server-sent event: its `id:` (the log cursor, for the History API) and its `data:` lines. */
export interface SseMessage {
  id: string | undefined;
  data: string;
}

/**
 * Frames a `text/event-stream` body into messages as the HTML standard does: fields up to a blank line;
 * `:` lines are comments; other fields (`event:`, `retry:`) are not needed here and are ignored. A message
 * with an `id:` and no data is yielded too (its data empty): it moves the cursor, as it sets an EventSource's
 * last event id without firing an event.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message: SseMessage = { id: undefined, data: '' };
  let hasData = false;
  let hasId = false;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    // A chunk may end inside a line: keep the tail until the next chunk.
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (hasData || hasId) yield { ...message, data: message.data.slice(0, -1) };
        message = { id: message.id, data: '' };
        hasData = false;
        hasId = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') {
        message.data += value + '\n';
        hasData = true;
      } else if (field === 'id') {
        message.id = value;
        hasId = true;
      }
    }
  }
}
