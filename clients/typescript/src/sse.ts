/** Server-Sent Events over a fetch body, as an async iterator (no EventSource: it cannot POST or send a key). */

export interface SseMessage {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** Yields one message per blank-line-terminated block; `data:` lines are joined with newlines. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  let buf = '';
  let msg: SseMessage = { event: undefined, data: '', id: undefined };
  let hasData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (hasData) yield msg;
          msg = { event: undefined, data: '', id: undefined };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          msg.data = hasData ? `${msg.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'event') msg.event = value;
        else if (field === 'id') msg.id = value;
      }
    }
    if (hasData) yield msg;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
