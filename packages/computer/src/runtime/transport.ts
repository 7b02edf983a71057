/**
 * Telling a dead connection from a failed operation, and making error text
 * safe to put in results. A transport error closes the connection and earns
 * one reconnect; any other error (ENOENT, EEXEC_BUSY, a bad request) says the
 * connection is fine and is passed through untouched.
 */

/** How deep `cause` chains are followed: wrappers rarely nest more than two or three deep. */
const MAX_CAUSE_DEPTH = 8;

const TRANSPORT_NAMES = new Set(["WorkspaceTransportError", "WorkspacePreDispatchTransportError"]);

/** Messages that runtimes and socket libraries use for a connection that is gone. */
const TRANSPORT_MESSAGES = [
  /session (?:was |has been |is )?(?:shut ?down|closed|broken)/i,
  /stub (?:after it has been |was |is )?disposed/i,
  /rpc (?:was |call )?cancel(?:l)?ed/i,
  /websocket (?:is )?(?:not open|closed|was closed)/i,
  /socket hang up/i,
  /ECONNREFUSED|connection refused|\brefused\b/i,
  /ECONNRESET|connection reset|\breset by peer/i,
  /EHOSTUNREACH|ENETUNREACH|unreachable/i,
  /container (?:has )?exited/i,
];

export function isTransportError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (current instanceof Error || typeof current === "object") {
      const { name, message } = current as { name?: unknown; message?: unknown };
      if (typeof name === "string" && TRANSPORT_NAMES.has(name)) return true;
      if (typeof message === "string" && TRANSPORT_MESSAGES.some((pattern) => pattern.test(message))) return true;
      current = (current as { cause?: unknown }).cause;
    } else {
      return typeof current === "string" && TRANSPORT_MESSAGES.some((pattern) => pattern.test(current as string));
    }
  }
  return false;
}

/** The one transport failure that proves a call never left: the stub was disposed on our side. */
export function isDisposedStubError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /RPC stub after it has been disposed/i.test(message);
}

/** Results and intents keep at most this much error text. */
export const SAFE_MESSAGE_MAX_CHARS = 512;

/**
 * Error text fit for a result an agent sees and a row that persists:
 * control characters become spaces, credentials are redacted (`token=…`,
 * `secret: …`, `Bearer …`), and the text is capped at 512 characters.
 */
export function safeErrorMessage(error: unknown): string {
  const raw = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const text = raw
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/\b(Bearer)\s+[^\s,;"']+/gi, "$1 [redacted]")
    .replace(
      /\b((?:access_?|refresh_?|id_?)?token|secret|password|api_?key|authorization)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&,;]+)/gi,
      "$1$2[redacted]",
    );
  return text.length <= SAFE_MESSAGE_MAX_CHARS ? text : `${text.slice(0, SAFE_MESSAGE_MAX_CHARS - 1)}…`;
}
