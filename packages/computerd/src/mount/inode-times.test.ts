/** InodeTimes alone: how held times and the store's mtime combine, relatime, and the table's bound. */
import { describe, expect, test } from "vitest";
import { InodeTimes, msOf, nanosOf, wallClock } from "./inode-times.js";

const S = 1_000_000_000n;

describe("InodeTimes", () => {
  test("an inode nothing was held for reads as its stored mtime, all three times", () => {
    expect(new InodeTimes().get(7, 1_500)).toEqual({
      atime: 1_500_000_000n,
      mtime: 1_500_000_000n,
      ctime: 1_500_000_000n,
    });
  });

  test("a directory's entry change moves mtime and ctime and keeps the old mtime as its atime", () => {
    const times = new InodeTimes();
    times.modified(2, 100n * S + 5n);
    expect(times.get(2, 10_000)).toEqual({ atime: 10n * S, mtime: 100n * S + 5n, ctime: 100n * S + 5n });
  });

  test("a change only moves ctime; set takes each time asked for and leaves the other", () => {
    const times = new InodeTimes();
    times.born(3, 50n * S);
    times.changed(3, 60n * S);
    expect(times.get(3, 50_000)).toEqual({ atime: 50n * S, mtime: 50n * S, ctime: 60n * S });
    times.set(3, 20_000, { mtime: 20n * S + 9n }, 70n * S);
    expect(times.get(3, 20_000)).toEqual({ atime: 50n * S, mtime: 20n * S + 9n, ctime: 70n * S });
  });

  test("a stored mtime changed under it (a pull) wins, and moves the ctime with it", () => {
    const times = new InodeTimes();
    times.born(4, 50n * S);
    times.changed(4, 55n * S);
    expect(times.get(4, 90_000)).toEqual({ atime: 50n * S, mtime: 90n * S, ctime: 90n * S });
  });

  test("relatime: a read moves an atime not newer than mtime or ctime, or a day old, and no other", () => {
    const times = new InodeTimes();
    times.born(5, 50n * S);
    expect(times.accessed(5, 50_000, 51n * S)).toBe(true);
    expect(times.accessed(5, 50_000, 52n * S)).toBe(false);
    expect(times.get(5, 50_000).atime).toBe(51n * S);
    expect(times.accessed(5, 50_000, 51n * S + 86_400n * S)).toBe(true);
  });

  test("past its limit the least recently changed inode falls back to the stored mtime", () => {
    const times = new InodeTimes(2);
    times.changed(1, 10n * S);
    times.changed(2, 20n * S);
    times.changed(1, 30n * S);
    times.changed(3, 40n * S);
    expect(times.size).toBe(2);
    expect(times.get(2, 5_000).ctime).toBe(5n * S);
    expect(times.get(1, 5_000).ctime).toBe(30n * S);
  });

  test("msOf floors, also before 1970; the wall clock is near Date.now", () => {
    expect(msOf(-1n)).toBe(-1);
    expect(msOf(-1_000_000n)).toBe(-1);
    expect(msOf(1_999_999n)).toBe(1);
    expect(nanosOf(-2)).toBe(-2_000_000n);
    expect(Math.abs(msOf(wallClock()()) - Date.now())).toBeLessThan(1_000);
  });
});
