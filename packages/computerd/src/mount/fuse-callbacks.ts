/**
 * The callback shape both FUSE bindings share (fuse-native and fuse-napi
 * descend from the same API): each op gets its arguments and a final
 * `cb(errno, value?)`; read and write answer a byte count in the status
 * position instead. `adapt` turns a synchronous or async MountFs method into
 * such an op, maps thrown errors to errno, and feeds the optional trace.
 */
import { errnoOf } from "./errno.js";
import type { FuseTrace } from "./trace.js";

export type Callback = (errno: number, ...values: unknown[]) => void;
export type Op = (...args: unknown[]) => void;

export function opAdapter(trace: FuseTrace | undefined) {
  return <A extends unknown[]>(name: string, body: (...args: A) => unknown, countInStatus = false): Op =>
    (...args: unknown[]): void => {
      const cb = args.pop() as Callback;
      const started = trace ? performance.now() : 0;
      const done = (errno: number, value?: unknown): void => {
        trace?.record(name, performance.now() - started, errno);
        if (countInStatus) cb(errno === 0 ? (value as number) : errno);
        else if (value === undefined) cb(errno);
        else cb(errno, value);
      };
      try {
        const result = body(...(args as A));
        if (result instanceof Promise)
          result.then(
            (value) => done(0, value),
            (error) => done(errnoOf(error)),
          );
        else done(0, result);
      } catch (error) {
        done(errnoOf(error));
      }
    };
}
