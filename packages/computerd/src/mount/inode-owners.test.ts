/** The owner table and chown(2)'s rules for a caller without CAP_CHOWN. */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { waitFor } from "../../test/wait.js";
import { InodeOwners, mayChown, procGroups, UNCHANGED } from "./inode-owners.js";

test("an inode without an entry is the default owner's; setting the default drops the entry; owners are interned", () => {
  const owners = new InodeOwners({ uid: 0, gid: 0 });
  expect(owners.get(7)).toEqual({ uid: 0, gid: 0 });
  owners.set(7, 1000, 1000);
  owners.set(8, 1000, 1000);
  expect(owners.get(7)).toBe(owners.get(8));
  expect(owners.size).toBe(2);
  owners.set(7, 0, 0);
  owners.forget(8);
  expect(owners.size).toBe(0);
});

test("chown rules: root may; a user may not give a file away, may chgrp its own file to its groups only", () => {
  const file = { uid: 1000, gid: 1000 };
  const user = { uid: 1000, gid: 1000, pid: 1 };
  const other = { uid: 1001, gid: 1001, pid: 2 };
  const groups = (pid: number) => (pid === 1 ? [1000, 50] : []);
  expect(mayChown(file, 0, 0, { uid: 0, gid: 0, pid: 3 }, groups)).toBe(true);
  expect(mayChown(file, 0, UNCHANGED, user, groups)).toBe(false);
  expect(mayChown(file, 1000, UNCHANGED, user, groups)).toBe(true);
  expect(mayChown(file, 1000, UNCHANGED, other, groups)).toBe(false);
  expect(mayChown(file, UNCHANGED, 50, user, groups)).toBe(true);
  expect(mayChown(file, UNCHANGED, 51, user, groups)).toBe(false);
  expect(mayChown(file, UNCHANGED, 1001, other, groups)).toBe(false);
  expect(mayChown(file, UNCHANGED, UNCHANGED, other, groups)).toBe(true);
});

test("a process's supplementary groups come from /proc; an unknown pid has none", async () => {
  const child = spawn("setpriv", ["--groups=1000,50", "sleep", "5"], { stdio: "ignore" });
  try {
    await waitFor(() => procGroups(child.pid as number).length > 0, "the child's groups");
    expect(procGroups(child.pid as number)).toEqual([50, 1000]);
  } finally {
    child.kill();
  }
  expect(procGroups(2 ** 30)).toEqual([]);
});
