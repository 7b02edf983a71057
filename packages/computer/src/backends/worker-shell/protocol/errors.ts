/**
 * The error factory the sandbox throws through: dofs' own, so a failure the
 * shell detects reads exactly like one the Workspace reports
 * (`ENOENT: no such file or directory, open '/a'`, with `code`, `syscall`,
 * `path`). Bundled into the sandbox from dofs' source; it holds no host state.
 */

/** The wire's factory, for EEXEC_BUSY: its fields cross Workers RPC beside the message. Bundled from rpc's source. */
export { rpcError } from "@cloudflare/computer-rpc";
export { fsError } from "@cloudflare/dofs";
