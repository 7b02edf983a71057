/**
 * Runs inside the Dynamic Worker as `node:fs` (bundled to `__computer/fs.js`).
 * Only the promise API exists: a synchronous or callback call would have to
 * block on a host round trip, which a Worker cannot do. Importing one of those
 * names fails at link time, which says so early.
 */
import promises, { constants } from "./fs-promises.js";

export { constants, promises };

export default { promises, constants };
