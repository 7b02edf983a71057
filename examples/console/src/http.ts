/**
 * Small HTTP helpers of the console: JSON replies and bodies, and
 * server-sent events (`text/event-stream`) written while work goes on.
 */

export function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

/** A file written through PUT /file/…: larger is 413 before it is buffered (docs/limits.md). */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** A JSON request body (/exec, /kill, /chat): room for a command of 1 MiB and a chat's messages. */
export const MAX_JSON_BYTES = 2 * 1024 * 1024;

/** A refusal of a body: its status and the `{error, code}` it answers. */
export class Refusal {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly code: string,
  ) {}

  response(): Response {
    return json({ error: this.error, code: this.code }, this.status);
  }
}

/** The parsed JSON object body, or why there is none (400, or 413 past `limit` bytes). */
export async function readJson(request: Request, limit: number): Promise<Record<string, unknown> | Refusal> {
  const bytes = await readBounded(request, limit);
  if (bytes === undefined) return new Refusal(413, `the body is at most ${limit} bytes`, "E2BIG");
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return new Refusal(400, "the body must be JSON", "EINVAL");
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : new Refusal(400, "the body must be a JSON object", "EINVAL");
}

/**
 * The body's bytes, or undefined past `limit`: a declared length over it is
 * refused before reading, a stream that grows past it is cancelled there.
 */
export async function readBounded(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}

/** A status for each error code a workspace call throws; anything else is a 500. */
const STATUS_OF: Record<string, number> = {
  ENOENT: 404,
  EISDIR: 409,
  ENOTDIR: 409,
  EEXIST: 409,
  ENOTEMPTY: 409,
  EEXEC_BUSY: 409,
  EINVAL: 400,
  EPROTOCOL: 400,
  ENAMETOOLONG: 400,
  EFBIG: 413,
  ENOSPC: 507,
};

/**
 * A thrown error as `{error, code}`: the caller's mistakes keep their message
 * and a 4xx; anything unexpected is a 500 that says only that (no stack, no
 * paths of this machine), its detail left to the log.
 */
export function errorResponse(error: unknown): Response {
  const code = (error as { code?: unknown } | null)?.code;
  const status = typeof code === "string" ? STATUS_OF[code] : undefined;
  if (status === undefined || typeof code !== "string") {
    console.error("console: unexpected error", error);
    return json({ error: "internal error", code: "EINTERNAL" }, 500);
  }
  const message = error instanceof Error ? error.message : String(error);
  return json({ error: message.split("\n")[0], code }, status);
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
