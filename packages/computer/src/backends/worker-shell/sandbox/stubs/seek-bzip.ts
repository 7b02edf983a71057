/** Stands in for seek-bzip (bzip2 in `tar -j`), which needs Node's Buffer internals: decoding fails clearly instead. */
function decode(): never {
  throw new Error("bzip2 is not supported in the worker-shell");
}

export default { decode, decodeBlock: decode };
