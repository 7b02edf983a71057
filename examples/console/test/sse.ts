/** Reading the console's server-sent events in a test with the page's own parser (public/sse.js). */
import { events } from "../public/sse.js";

export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: event payloads are JSON, checked by each test with toMatchObject.
  data: any;
}

export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  yield* events(response) as AsyncGenerator<SseEvent>;
}

export async function allEvents(response: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of sseEvents(response)) out.push(event);
  return out;
}
