import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Workspace } from "../workspace/workspace.worker.js";
import { noopObserver, type WorkspaceObserver } from "./observer.js";

describe("Workspace observer option", () => {
  it("is the configured observer, or noopObserver", async () => {
    const observer: WorkspaceObserver = { span: (_name, _attributes, run) => run({ setAttribute() {} }) };
    await runInDurableObject(env.SCRATCH.get(env.SCRATCH.newUniqueId()), async (_instance, state) => {
      expect(new Workspace({ storage: state.storage, observer }).observer).toBe(observer);
      expect(new Workspace({ storage: state.storage }).observer).toBe(noopObserver);
    });
  });
});
