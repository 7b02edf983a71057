import type { Database } from "../database.js";

/**
 * Revs at which this store applied entries that came *from* a peer. A path
 * whose newest change is such a rev holds exactly what that peer sent, so it
 * is not offered back to the same peer: sending it would be an echo, and an
 * echo that arrives after the peer changed the path again would revert the
 * newer write (the reference relies on idempotence, which only holds while
 * neither side has moved on). Other peers of the same store still get it.
 */
export function recordEchoRev(db: Database, peer: string, rev: number): void {
  db.run("INSERT OR IGNORE INTO _vfs_echo_revs (peer, rev) VALUES (?, ?)", peer, rev);
}

export function echoRevsBetween(db: Database, peer: string, from: number, to: number): Set<number> {
  const rows = db.all<{ rev: number }>(
    "SELECT rev FROM _vfs_echo_revs WHERE peer = ? AND rev >= ? AND rev <= ?",
    peer,
    from,
    to,
  );
  return new Set(rows.map((row) => Number(row.rev)));
}

/**
 * Forgets echo revs the push cursor has passed; all of them when it resets
 * to 0 (the peer lost its copy, so everything must be offered again, even
 * what it once sent).
 */
export function pruneEchoRevs(db: Database, peer: string, pushedRev: number): void {
  if (pushedRev === 0) db.run("DELETE FROM _vfs_echo_revs WHERE peer = ?", peer);
  else db.run("DELETE FROM _vfs_echo_revs WHERE peer = ? AND rev < ?", peer, pushedRev);
}
