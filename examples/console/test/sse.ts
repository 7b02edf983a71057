/** Reading the console's server-sent events in a test, the way the page does. */

export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: event payloads are JSON, checked by each test with toMatchObject.
  data: any;
}

export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      yield { event, data: data === "" ? null : JSON.parse(data) };
    }
  }
}

export async function allEvents(response: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of sseEvents(response)) out.push(event);
  return out;
}
