/**
 * Which remotes workspace git talks to, and how. Only http(s) and file URLs:
 * HTTP runs through `fetch` in the host isolate (so it works from a shell
 * with no egress of its own), and `file://` names a repository in the same
 * workspace filesystem (see local-transport.ts). Everything else — ssh,
 * git://, scp-like `host:path` — is refused before any I/O.
 */
import { readAllBytes } from "@cloudflare/dofs";
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { GitError } from "./errors.js";

export type RemoteUrl = { kind: "http"; url: string } | { kind: "file"; path: string };

export function parseRemoteUrl(url: string): RemoteUrl {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") return { kind: "http", url };
  if (scheme === "file") {
    const path = decodeURIComponent(url.slice("file://".length));
    if (!path.startsWith("/"))
      throw new GitError("ETRANSPORT", `unsupported file URL '${url}': it needs an absolute path`);
    return { kind: "file", path };
  }
  // A bare absolute path is git's shorthand for a local repository.
  if (scheme === undefined && url.startsWith("/")) return { kind: "file", path: url };
  const shown = scheme ?? (/^[^/]+:/.test(url) ? "ssh" : "local path");
  throw new GitError(
    "ETRANSPORT",
    `unsupported transport '${shown}' for '${url}': workspace git speaks only http, https and file URLs`,
  );
}

/** isomorphic-git's HttpClient over `fetch`. The request body is buffered: smart-HTTP requests are small. */
export function fetchHttpClient(fetchImpl: typeof fetch = (input, init) => fetch(input, init)): HttpClient {
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const body = request.body ? await readAllBytes(request.body) : undefined;
      const response = await fetchImpl(request.url, {
        method: request.method ?? "GET",
        headers: request.headers ?? {},
        ...(body ? { body } : {}),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return {
        url: response.url || request.url,
        method: request.method ?? "GET",
        headers,
        body: response.body ? iterate(response.body) : undefined,
        statusCode: response.status,
        statusMessage: response.statusText,
      };
    },
  };
}

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncIterableIterator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
