/**
 * Argument checks of the public runtime layer. They throw TypeError: each is a
 * caller mistake, found before anything reaches a backend.
 */

/** Ids key the exec→runtime map and computerd's log; 256 bytes bounds both. */
export const MAX_EXEC_ID_BYTES = 256;

export function validateExecId(id: unknown): string {
  if (typeof id !== "string" || id === "") {
    throw new TypeError("Execution id must be a non-empty string");
  }
  const bytes = new TextEncoder().encode(id).byteLength;
  if (bytes > MAX_EXEC_ID_BYTES) {
    throw new TypeError(`Execution id must be at most ${MAX_EXEC_ID_BYTES} UTF-8 bytes; got ${bytes}`);
  }
  return id;
}

/** `input` is the argument of a callable backend; a command backend would silently drop it. */
export function validateInput(backend: { id: string; callable: boolean }, input: unknown): void {
  if (input === undefined || backend.callable) return;
  throw new TypeError(
    `Backend "${backend.id}" is not callable; only callable backends (such as worker-javascript) accept input`,
  );
}

export function validateCwd(cwd: string | undefined): void {
  if (cwd === undefined) return;
  if (typeof cwd !== "string" || !cwd.startsWith("/")) {
    throw new TypeError(`cwd must be an absolute path; got ${JSON.stringify(cwd)}`);
  }
}
