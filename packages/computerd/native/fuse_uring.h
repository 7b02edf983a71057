/*
 * FUSE over io_uring (fuse_uring.c): the kernel's per-CPU request queues,
 * served on the daemon's loop beside /dev/fuse. Part of the fuse_dev addon.
 */
#ifndef COMPUTERD_FUSE_URING_H
#define COMPUTERD_FUSE_URING_H
#include <node_api.h>

/* Adds uringOpen, uringCommit and uringClose to the addon's exports. */
void fuse_uring_define(napi_env env, napi_value exports);

#endif
