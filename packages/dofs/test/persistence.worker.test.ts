/**
 * Files written through a Durable Object's filesystem survive the object being
 * aborted and constructed again: the storage is the SQLite database, not memory.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";

it("keeps files across a Durable Object restart", async () => {
  const id = env.FS.idFromName("restart");
  const before = env.FS.get(id);
  const firstIncarnation = await before.getIncarnation();
  await before.writeText("/workspace/notes.txt", "survives restarts\n");
  expect(await before.readText("/workspace/notes.txt")).toBe("survives restarts\n");

  await abortAllDurableObjects();

  const after = env.FS.get(id);
  expect(await after.getIncarnation()).not.toBe(firstIncarnation);
  expect(await after.readText("/workspace/notes.txt")).toBe("survives restarts\n");
});
