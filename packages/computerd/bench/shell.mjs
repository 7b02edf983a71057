/**
 * The benches' shell: bash with -euo pipefail in a directory, output
 * dropped, and git given an identity and no system config (a commit or a
 * clone must not depend on the machine).
 */
import { execFileSync } from "node:child_process";

export const benchEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@example.invalid",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@example.invalid",
};

export const sh = (cwd, script) =>
  execFileSync("bash", ["-euo", "pipefail", "-c", script], { cwd, env: benchEnv, stdio: "ignore" });
