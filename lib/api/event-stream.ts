// Reading a Server-Sent Events stream whose `data` lines carry JSON (the console's): the complete
// events in `text`, and what is left of an event still arriving. Comment lines (keepalives) and
// fields other than `event` and `data` are skipped.

export interface StreamEvent {
  event: string;
  data: unknown;
}

export function parseEventStream(text: string): { events: StreamEvent[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) as unknown });
  }
  return { events, rest };
}
