/**
 * Pagination shared by `ls`, `find` and `grep`: ask the filesystem for one
 * more than the page, and report `nextOffset` only when that extra exists.
 */
import { z } from "zod";

export const PAGE_DEFAULT = 200;
export const PAGE_MAX = 1000;

export const pageFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(PAGE_MAX)
    .optional()
    .describe(`Entries per page, 1–${PAGE_MAX} (default ${PAGE_DEFAULT}).`),
  offset: z.number().int().min(0).optional().describe("Entries to skip: a previous page's nextOffset."),
};

export interface Page<T> {
  items: T[];
  nextOffset?: number;
}

export async function page<T>(
  input: { limit?: number | undefined; offset?: number | undefined },
  fetch: (limit: number, offset: number) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = input.limit ?? PAGE_DEFAULT;
  const offset = input.offset ?? 0;
  const rows = await fetch(limit + 1, offset);
  if (rows.length <= limit) return { items: rows };
  return { items: rows.slice(0, limit), nextOffset: offset + limit };
}
