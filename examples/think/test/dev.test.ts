/**
 * `npm run dev` as a user runs it: scripts/dev.mjs starts the local container
 * host and `wrangler dev --local` on $PORT; a chat turn with the demo model
 * runs both backends; SIGTERM stops wrangler, the host and every container
 * process it started.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";
import { openChat } from "./session.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let dev: DevRun | undefined;

afterAll(async () => {
  await dev?.stop();
});

describe("examples/think npm run dev", () => {
  it("serves the chat on $PORT and cleans everything up on SIGTERM", async () => {
    dev = await startDev(example);
    const chat = await openChat(new URL(dev.base), "dev");
    expect(chat.ready).toMatchObject({ demo: true });
    const frames = await chat.prompt("hi from dev");
    chat.close();
    expect(frames.at(-1)).toMatchObject({ type: "done", text: expect.stringContaining("container-shell (Linux)") });
    const saved = await fetch(`${dev.base}/agents/assistant/dev/file/workspace/chat/turn-1.md`);
    expect(await saved.text()).toBe("# Turn 1\n\nhi from dev\n");
    expect(dev.output()).toContain("the assistant answers with its demo model");
    expect(dev.output()).toMatch(/computerd host listening url=http:\/\/127\.0\.0\.1:\d+/);

    const processes = dev.descendants();
    expect(processes.length).toBeGreaterThan(2);
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
  });
});
