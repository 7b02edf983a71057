/**
 * For the Node type-check only; nothing imports this file.
 *
 * The shared artifacts sources name Cloudflare's `Artifacts`, a global of
 * @cloudflare/workers-types. The Node check cannot load those globals (they
 * clash with @types/node), so this lends it the very same declaration from
 * the package's importable module. The build and the workerd check see the
 * global itself, and *.node.ts files are outside both.
 */
import type * as Cloudflare from "@cloudflare/workers-types/index.js";

declare global {
  type Artifacts = Cloudflare.Artifacts;
}
