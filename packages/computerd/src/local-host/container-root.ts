/**
 * A local container's state dir: the writable `/tmp`, `/var/tmp` and `/root`
 * its commands see (exec/sandbox.ts), made at launch and removed when the
 * container exits, so nothing a command wrote outside `/workspace` outlives
 * its container. The daemon gets it through COMPUTERD_EXEC_SANDBOX=bwrap.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { SANDBOX_WRITABLE } from "../exec/sandbox.js";

export interface ContainerRoot {
  readonly dir: string;
  /** The daemon's environment that turns the sandbox on. */
  readonly env: Record<string, string>;
  remove(): void;
}

/** Fails with what to install when bubblewrap is missing: without it a command would run on the host's root. */
export function findBwrap(path = process.env.PATH ?? ""): string {
  for (const dir of [...path.split(delimiter), "/usr/bin", "/bin", "/usr/local/bin"]) {
    if (dir !== "" && existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
  }
  throw new Error(
    "the local container host needs bubblewrap (bwrap) to give each container its own root: apt-get install bubblewrap (scripts/setup does)",
  );
}

export function makeContainerRoot(name: string, base = tmpdir()): ContainerRoot {
  // Named after the container, so a look at the temp dir tells whose it is.
  const dir = mkdtempSync(join(base, `computerd-container-${hostnameOf(name)}-`));
  for (const [sub] of SANDBOX_WRITABLE) mkdirSync(join(dir, sub));
  // Like a real /tmp: anyone writes, only the owner removes (the sticky bit).
  chmodSync(join(dir, "tmp"), 0o1777);
  chmodSync(join(dir, "var-tmp"), 0o1777);
  chmodSync(join(dir, "root"), 0o700);
  return {
    dir,
    env: { COMPUTERD_EXEC_SANDBOX: "bwrap", COMPUTERD_EXEC_ROOT: dir, COMPUTERD_EXEC_HOSTNAME: hostnameOf(name) },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A container's hostname: its name's letters and digits, as a Docker container's is its id's first 12. */
export function hostnameOf(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9]/g, "").slice(0, 12);
  return clean === "" ? "computer" : clean;
}
