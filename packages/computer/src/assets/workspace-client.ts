/**
 * What `workspace.assets` is built from the `assets` option: the original's
 * client (`createAssets(...)`, anything with `share`) or a publisher of ours
 * (`publish`), as one client with both. `share` passes every option through
 * to a client that has it; a publisher gets the expiry and prefix only.
 * Both resolve to the URL string (a publisher's `{ url }` is unwrapped).
 */
import type { WorkspaceAssetsClient, WorkspaceAssetsOption } from "../contracts/capabilities.js";

export function toWorkspaceAssets(given: WorkspaceAssetsOption): WorkspaceAssetsClient {
  if (typeof given !== "object" || given === null) {
    throw new TypeError("assets must be an object with share(path, options) (createAssets) or publish(path, options)");
  }
  if ("share" in given && typeof given.share === "function") {
    const client = given;
    return {
      share: (path, options) => client.share(path, options),
      publish: (path, { expiresAfter, prefix }) =>
        client.share(path, { expiresAfter, ...(prefix === undefined ? {} : { prefix }) }),
    };
  }
  if ("publish" in given && typeof given.publish === "function") {
    const publisher = given;
    const publish = async (path: string, options: { expiresAfter: number; prefix?: string }): Promise<string> => {
      const published = await publisher.publish(path, options);
      return typeof published === "string" ? published : published.url;
    };
    return {
      share: (path, { expiresAfter, prefix }) =>
        publish(path, { expiresAfter, ...(prefix === undefined ? {} : { prefix }) }),
      publish,
    };
  }
  throw new TypeError("assets must be an object with share(path, options) (createAssets) or publish(path, options)");
}
