import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { projects } from "./vitest.workspace.js";

// Keep wrangler/miniflare quiet and contained even when vitest is started
// directly rather than through scripts/test.
const root = fileURLToPath(new URL(".", import.meta.url));
process.env.WRANGLER_SEND_METRICS ??= "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
process.env.XDG_CONFIG_HOME ??= join(root, ".cache", "xdg");

export default defineConfig({
  test: {
    projects,
  },
});
