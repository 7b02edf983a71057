// Server-sent events from a fetch() response (EventSource cannot POST):
// yields {event, data} with data parsed from its JSON line.
export async function* events(response) {
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

/** POSTs JSON and returns the response; a non-2xx reply throws its error message. */
export async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const reply = await response.json().catch(() => ({}));
    throw new Error(reply.error ?? `${response.status} ${response.statusText}`);
  }
  return response;
}
