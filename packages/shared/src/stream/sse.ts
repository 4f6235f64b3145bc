/** One dispatched Server-Sent Event. `id` is the event's own `id:` field, when it had one. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/**
 * The event-stream format of the HTML standard, fed text in chunks of any size: lines end in LF,
 * CRLF or CR (a CR at the end of one chunk and an LF at the start of the next are one ending),
 * `:` starts a comment, an empty line dispatches. `retry:` is ignored; the follower keeps its
 * own schedule (docs/decisions.md §9.6).
 */
export function createSseParser(onEvent: (event: SseEvent) => void): { feed(chunk: string): void } {
  let pending = '';
  let skipLeadingLf = false;
  let event = '';
  let data: string[] = [];
  let id: string | undefined;

  function line(text: string): void {
    if (text === '') {
      if (data.length > 0 || event) onEvent({ event: event || 'message', data: data.join('\n'), id });
      event = '';
      data = [];
      id = undefined;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  return {
    feed(chunk) {
      let text = chunk;
      if (skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
      skipLeadingLf = false;
      pending += text;
      let start = 0;
      for (let i = 0; i < pending.length; i++) {
        const ch = pending[i];
        if (ch !== '\n' && ch !== '\r') continue;
        line(pending.slice(start, i));
        if (ch === '\r') {
          if (i + 1 === pending.length) skipLeadingLf = true;
          else if (pending[i + 1] === '\n') i++;
        }
        start = i + 1;
      }
      pending = pending.slice(start);
    },
  };
}
