/** Reads a run's Server-Sent Events until its "finish" event (or the stream ends). */
import type { RunEvent } from "../src/events.js";

export async function readEvents(
  response: Response,
  onEvent: (event: RunEvent) => void = () => {},
): Promise<{ events: RunEvent[]; ids: number[] }> {
  const events: RunEvent[] = [];
  const ids: number[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (id) ids.push(Number(id));
      if (!data) continue;
      const event = JSON.parse(data) as RunEvent;
      events.push(event);
      onEvent(event);
    }
  }
  return { events, ids };
}
