/**
 * Small HTTP helpers of the console: JSON replies and bodies, and
 * server-sent events (`text/event-stream`) written while work goes on.
 */

export function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

/** The parsed JSON body, or a message saying why there is none. */
export async function readJson(request: Request): Promise<unknown> {
  try {
    const value: unknown = await request.json();
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value
      : "the body must be a JSON object";
  } catch {
    return "the body must be JSON";
  }
}

/** `{message, code?}` of anything thrown. */
export function errorBody(error: unknown): { message: string; code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    message: error instanceof Error ? error.message : String(error),
    ...(typeof code === "string" ? { code } : {}),
  };
}

/** Sends one event; resolves false once the client has gone (the work may go on without it). */
export type Send = (event: string, data: unknown) => Promise<boolean>;

/**
 * A `text/event-stream` response fed by `run` as it goes. Events are
 * `event: <name>` plus one `data:` line of JSON. What `run` throws becomes an
 * `error` event; the stream closes when `run` is done.
 */
export function sse(run: (send: Send) => Promise<void>): Response {
  // workerd's identity TransformStream carries bytes, so events are encoded here.
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let open = true;
  const send: Send = async (event, data) => {
    if (!open) return false;
    try {
      await writer.write(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
    } catch {
      open = false;
    }
    return open;
  };
  void (async () => {
    try {
      await run(send);
    } catch (error) {
      await send("error", errorBody(error));
    } finally {
      if (open) await writer.close().catch(() => {});
    }
  })();
  return new Response(readable, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}
