/*
 * FUSE over io_uring: the kernel hands requests to ring entries the daemon
 * registered (one or more per CPU queue) instead of queueing them for
 * read() on /dev/fuse, and takes each reply with the command that fetches
 * the entry's next request (COMMIT_AND_FETCH). A request then costs one
 * io_uring_enter (often shared by several replies) and no read() or
 * wake-up of its own. Raw syscalls, no liburing: one ring, polled on the
 * daemon's libuv loop through the ring's fd.
 *
 * Exposed (through fuse_dev.node):
 *   uringOpen(fuseFd, queues, buffers, completions, onRequests) -> handle, or -errno
 *       Registers buffers.length entries, spread over `queues` queue ids
 *       (round robin). Each buffer is an entry's memory, kept alive here:
 *       GAP bytes where the request's headers are rebuilt, then the
 *       payload the kernel writes (buffer.length - GAP bytes, at least the
 *       connection's max payload). A registration the kernel refuses fails
 *       the whole call (the ring is closed; the connection stays on
 *       /dev/fuse). onRequests(count) runs on the loop with `completions`
 *       (an Int32Array) holding count triples (entry, start, length): the
 *       request is buffers[entry][start, start + length), laid out as a
 *       read() on /dev/fuse would give it; a negative length is the -errno
 *       with which the kernel ended the entry (ENOTCONN at unmount).
 *   uringCommit(handle, entry, out, length) -> 0
 *       Sends the reply in out[0, length) (out-header, then body) for the
 *       entry's request and asks for its next one. Submitted at once, or
 *       with the others at the end of an onRequests call.
 *   uringReady(handle) -> completions waiting (a read of the ring's memory, no syscall: busy polling)
 *   uringDrain(handle)  -> runs onRequests now for what is waiting, as the loop would
 *   uringClose(handle)
 */
#define _GNU_SOURCE
#include "fuse_uring.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <uv.h>

/* The uapi of fuse over io_uring (spec 06 §14), absent from older system headers. */
enum { URING_CMD_REGISTER = 1, URING_CMD_COMMIT_AND_FETCH = 2 };
enum { IN_OUT_SZ = 128, OP_IN_SZ = 128, IN_HEADER = 40, OUT_HEADER = 16 };
struct ent_in_out {
  uint64_t flags;
  uint64_t commit_id;
  uint32_t payload_sz;
  uint32_t padding;
  uint64_t reserved;
};
struct req_header {
  char in_out[IN_OUT_SZ];
  char op_in[OP_IN_SZ];
  struct ent_in_out ent;
};
struct cmd_req {
  uint64_t flags;
  uint64_t commit_id;
  uint16_t qid;
  uint8_t padding[6];
};
/* Where the payload starts in an entry's buffer: room for the in-header and the largest op header before it. */
#define GAP (IN_HEADER + OP_IN_SZ)

typedef struct {
  struct req_header header;
  struct iovec iov[2];
  char *memory;
  size_t size;
  uint64_t commit_id;
  uint16_t qid;
  napi_ref buffer;
} entry;

typedef struct {
  int ring_fd;
  int fuse_fd;
  void *sq_ring;
  size_t sq_ring_size;
  void *cq_ring;
  size_t cq_ring_size;
  struct io_uring_sqe *sqes;
  size_t sqes_size;
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
  unsigned *cq_head, *cq_tail, *cq_mask;
  struct io_uring_cqe *cqes;
  unsigned unsubmitted;
  int draining;
  int closed;
  uint32_t count;
  entry *entries;
  int32_t *completions;
  size_t completions_size;
  napi_ref completions_ref;
  napi_env env;
  napi_ref callback;
  napi_async_context context;
  uv_poll_t poll;
} uring;

static napi_value number(napi_env env, double value) {
  napi_value out;
  napi_create_double(env, value, &out);
  return out;
}

static int enter(int fd, unsigned to_submit) {
  int result;
  do result = (int)syscall(__NR_io_uring_enter, fd, to_submit, 0, 0, NULL, 0);
  while (result < 0 && errno == EINTR);
  return result < 0 ? -errno : result;
}

/* The next free SQE (the SQ has room for every entry, and each has at most one command queued). */
static struct io_uring_sqe *next_sqe(uring *ring, uint32_t id, uint32_t op) {
  unsigned tail = *ring->sq_tail;
  unsigned index = tail & *ring->sq_mask;
  struct io_uring_sqe *sqe = (struct io_uring_sqe *)((char *)ring->sqes + (size_t)index * 128);
  memset(sqe, 0, 128);
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = ring->fuse_fd;
  sqe->cmd_op = op;
  sqe->user_data = id;
  ring->sq_array[index] = index;
  __atomic_store_n(ring->sq_tail, tail + 1, __ATOMIC_RELEASE);
  ring->unsubmitted++;
  return sqe;
}

static int submit(uring *ring) {
  if (ring->unsubmitted == 0) return 0;
  unsigned count = ring->unsubmitted;
  ring->unsubmitted = 0;
  int result = enter(ring->ring_fd, count);
  return result < 0 ? result : 0;
}

static void unmap(uring *ring) {
  if (ring->sqes != NULL && ring->sqes != MAP_FAILED) munmap(ring->sqes, ring->sqes_size);
  if (ring->cq_ring != NULL && ring->cq_ring != MAP_FAILED && ring->cq_ring != ring->sq_ring)
    munmap(ring->cq_ring, ring->cq_ring_size);
  if (ring->sq_ring != NULL && ring->sq_ring != MAP_FAILED) munmap(ring->sq_ring, ring->sq_ring_size);
  if (ring->ring_fd >= 0) close(ring->ring_fd);
  ring->ring_fd = -1;
}

static int setup(uring *ring, unsigned depth) {
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  // SQE128: the command area holds fuse_uring_cmd_req. One thread submits (the loop's).
  params.flags = IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER;
  ring->ring_fd = (int)syscall(__NR_io_uring_setup, depth, &params);
  if (ring->ring_fd < 0) return -errno;
  ring->sq_ring_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
  ring->cq_ring_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
  int single = (params.features & IORING_FEAT_SINGLE_MMAP) != 0;
  if (single && ring->cq_ring_size > ring->sq_ring_size) ring->sq_ring_size = ring->cq_ring_size;
  ring->sq_ring = mmap(NULL, ring->sq_ring_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->ring_fd,
                       IORING_OFF_SQ_RING);
  if (ring->sq_ring == MAP_FAILED) return -errno;
  ring->cq_ring = single ? ring->sq_ring
                         : mmap(NULL, ring->cq_ring_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                                ring->ring_fd, IORING_OFF_CQ_RING);
  if (ring->cq_ring == MAP_FAILED) return -errno;
  ring->sqes_size = (size_t)params.sq_entries * 128;
  ring->sqes = mmap(NULL, ring->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring->ring_fd,
                    IORING_OFF_SQES);
  if (ring->sqes == MAP_FAILED) return -errno;
  char *sq = ring->sq_ring, *cq = ring->cq_ring;
  ring->sq_head = (unsigned *)(sq + params.sq_off.head);
  ring->sq_tail = (unsigned *)(sq + params.sq_off.tail);
  ring->sq_mask = (unsigned *)(sq + params.sq_off.ring_mask);
  ring->sq_array = (unsigned *)(sq + params.sq_off.array);
  ring->cq_head = (unsigned *)(cq + params.cq_off.head);
  ring->cq_tail = (unsigned *)(cq + params.cq_off.tail);
  ring->cq_mask = (unsigned *)(cq + params.cq_off.ring_mask);
  ring->cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
  return 0;
}

/*
 * Moves what the kernel wrote for entry `id` into the layout of a /dev/fuse
 * read: in-header, the op's own struct (in the header area), then the
 * payload, which already sits at GAP. Returns the request's start, or -1
 * when the lengths do not add up.
 */
static int rebuild(entry *e) {
  uint32_t length;
  memcpy(&length, e->header.in_out, 4);
  uint32_t payload = e->header.ent.payload_sz;
  if (length < IN_HEADER + payload || length - IN_HEADER - payload > OP_IN_SZ || GAP + payload > e->size) return -1;
  uint32_t op = length - IN_HEADER - payload;
  int start = GAP - IN_HEADER - (int)op;
  memcpy(e->memory + start, e->header.in_out, IN_HEADER);
  memcpy(e->memory + start + IN_HEADER, e->header.op_in, op);
  e->commit_id = e->header.ent.commit_id;
  return start;
}

static void queue_commit(uring *ring, uint32_t id) {
  entry *e = &ring->entries[id];
  struct io_uring_sqe *sqe = next_sqe(ring, id, URING_CMD_COMMIT_AND_FETCH);
  struct cmd_req *req = (struct cmd_req *)sqe->cmd;
  req->commit_id = e->commit_id;
  req->qid = e->qid;
}

/* An entry whose request makes no sense gets EIO and goes back for the next one. */
static void refuse(uring *ring, uint32_t id) {
  entry *e = &ring->entries[id];
  uint32_t length = OUT_HEADER;
  int32_t error = -EIO;
  memcpy(e->header.in_out, &length, 4);
  memcpy(e->header.in_out + 4, &error, 4);
  memcpy(e->header.in_out + 8, &e->header.ent.commit_id, 8);
  e->commit_id = e->header.ent.commit_id;
  e->header.ent.payload_sz = 0;
  queue_commit(ring, id);
}

/* Takes every completion there is, hands them to JavaScript in one call, then submits the replies it made. */
static void drain(uring *ring) {
  napi_env env = ring->env;
  ring->draining = 1;
  for (;;) {
    unsigned head = *ring->cq_head;
    unsigned tail = __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE);
    if (head == tail) break;
    size_t count = 0;
    size_t room = ring->completions_size / 3;
    while (head != tail && count < room) {
      struct io_uring_cqe *cqe = &ring->cqes[head & *ring->cq_mask];
      head++;
      uint32_t id = (uint32_t)cqe->user_data;
      if (id >= ring->count) continue;
      int start = -1;
      if (cqe->res >= 0) {
        start = rebuild(&ring->entries[id]);
        if (start < 0) {
          refuse(ring, id);
          continue;
        }
      }
      int32_t *slot = ring->completions + 3 * count++;
      slot[0] = (int32_t)id;
      slot[1] = start;
      slot[2] = cqe->res >= 0 ? (int32_t)(GAP - start + ring->entries[id].header.ent.payload_sz) : cqe->res;
    }
    __atomic_store_n(ring->cq_head, head, __ATOMIC_RELEASE);
    if (count > 0) {
      napi_handle_scope scope;
      napi_open_handle_scope(env, &scope);
      napi_value callback, global, argument;
      napi_get_reference_value(env, ring->callback, &callback);
      napi_get_global(env, &global);
      argument = number(env, (double)count);
      // make_callback: the promise jobs of the handlers run (and may commit) before it returns.
      napi_make_callback(env, ring->context, global, callback, 1, &argument, NULL);
      napi_close_handle_scope(env, scope);
    }
    if (ring->closed) break;
    submit(ring);
  }
  ring->draining = 0;
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  (void)status;
  (void)events;
  uring *ring = handle->data;
  if (!ring->closed) drain(ring);
}

static void release(uring *ring) {
  napi_env env = ring->env;
  for (uint32_t i = 0; i < ring->count; i++)
    if (ring->entries[i].buffer != NULL) napi_delete_reference(env, ring->entries[i].buffer);
  if (ring->completions_ref != NULL) napi_delete_reference(env, ring->completions_ref);
  if (ring->callback != NULL) napi_delete_reference(env, ring->callback);
  if (ring->context != NULL) napi_async_destroy(env, ring->context);
  free(ring->entries);
  free(ring);
}

static void on_closed(uv_handle_t *handle) { release(handle->data); }

static void close_ring(uring *ring) {
  if (ring->closed) return;
  ring->closed = 1;
  uv_poll_stop(&ring->poll);
  // Closing the ring cancels the registered commands; the kernel stops using the entries' memory.
  unmap(ring);
  uv_close((uv_handle_t *)&ring->poll, on_closed);
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  close_ring(data);
}

static int32_t arg_int(napi_env env, napi_value value) {
  int32_t out = -1;
  napi_get_value_int32(env, value, &out);
  return out;
}

/* Registers every entry; -errno of the first the kernel refused (all are tried). */
static int register_all(uring *ring, uint32_t queues) {
  for (uint32_t i = 0; i < ring->count; i++) {
    entry *e = &ring->entries[i];
    e->qid = (uint16_t)(i % queues);
    e->iov[0].iov_base = &e->header;
    e->iov[0].iov_len = sizeof e->header;
    e->iov[1].iov_base = e->memory + GAP;
    e->iov[1].iov_len = e->size - GAP;
    struct io_uring_sqe *sqe = next_sqe(ring, i, URING_CMD_REGISTER);
    sqe->addr = (uint64_t)(uintptr_t)e->iov;
    sqe->len = 2;
    ((struct cmd_req *)sqe->cmd)->qid = e->qid;
  }
  int result = submit(ring);
  if (result < 0) return result;
  // A refused registration completes at once; an accepted one only when its first request comes.
  unsigned head = *ring->cq_head;
  unsigned tail = __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE);
  int failed = 0;
  for (unsigned at = head; at != tail; at++) {
    struct io_uring_cqe *cqe = &ring->cqes[at & *ring->cq_mask];
    if (cqe->res < 0 && failed == 0) failed = cqe->res;
  }
  return failed;
}

static napi_value js_uring_open(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) return number(env, -EINVAL);
  uint32_t count = 0;
  napi_get_array_length(env, argv[2], &count);
  int32_t queues = arg_int(env, argv[1]);
  if (count == 0 || queues <= 0 || count > 4096) return number(env, -EINVAL);
  uring *ring = calloc(1, sizeof *ring);
  entry *entries = calloc(count, sizeof *entries);
  if (ring == NULL || entries == NULL) {
    free(ring);
    free(entries);
    return number(env, -ENOMEM);
  }
  ring->env = env;
  ring->ring_fd = -1;
  ring->fuse_fd = arg_int(env, argv[0]);
  ring->entries = entries;
  ring->count = count;
  int result = 0;
  for (uint32_t i = 0; i < count && result == 0; i++) {
    napi_value buffer;
    void *data;
    size_t size;
    napi_get_element(env, argv[2], i, &buffer);
    if (napi_get_buffer_info(env, buffer, &data, &size) != napi_ok || size <= GAP) result = -EINVAL;
    else if (napi_create_reference(env, buffer, 1, &entries[i].buffer) != napi_ok) result = -ENOMEM;
    entries[i].memory = data;
    entries[i].size = size;
  }
  napi_typedarray_type type;
  void *completions = NULL;
  size_t length = 0;
  if (result == 0 && (napi_get_typedarray_info(env, argv[3], &type, &length, &completions, NULL, NULL) != napi_ok ||
                      type != napi_int32_array || length < 3))
    result = -EINVAL;
  ring->completions = completions;
  ring->completions_size = length;
  if (result == 0) napi_create_reference(env, argv[3], 1, &ring->completions_ref);
  if (result == 0) result = setup(ring, count);
  if (result == 0) result = register_all(ring, (uint32_t)queues);
  uv_loop_t *loop = NULL;
  if (result == 0 && napi_get_uv_event_loop(env, &loop) != napi_ok) result = -EINVAL;
  if (result == 0) result = uv_poll_init(loop, &ring->poll, ring->ring_fd);
  if (result != 0) {
    unmap(ring);
    release(ring);
    return number(env, result);
  }
  ring->poll.data = ring;
  napi_value name;
  napi_create_string_utf8(env, "fuse_dev.uring", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &ring->context);
  napi_create_reference(env, argv[4], 1, &ring->callback);
  uv_poll_start(&ring->poll, UV_READABLE, on_readable);
  napi_value handle;
  // Requests already waiting wake the poll on the loop's next turn (it is level-triggered).
  napi_create_external(env, ring, finalize, NULL, &handle);
  return handle;
}

static napi_value js_uring_commit(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  uring *ring;
  void *out;
  size_t size;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
      napi_get_value_external(env, argv[0], (void **)&ring) != napi_ok ||
      napi_get_buffer_info(env, argv[2], &out, &size) != napi_ok)
    return number(env, -EINVAL);
  int32_t id = arg_int(env, argv[1]);
  int32_t length = arg_int(env, argv[3]);
  if (ring->closed) return number(env, -ENOTCONN);
  if (id < 0 || (uint32_t)id >= ring->count || length < OUT_HEADER || (size_t)length > size) return number(env, -EINVAL);
  entry *e = &ring->entries[id];
  size_t body = (size_t)length - OUT_HEADER;
  if (GAP + body > e->size) return number(env, -E2BIG);
  memcpy(e->header.in_out, out, OUT_HEADER);
  memcpy(e->memory + GAP, (char *)out + OUT_HEADER, body);
  e->header.ent.payload_sz = (uint32_t)body;
  queue_commit(ring, (uint32_t)id);
  // Inside a drain the replies go out together when it ends; a later one (a promise's) goes now.
  if (!ring->draining) return number(env, submit(ring));
  return number(env, 0);
}

static uring *ring_arg(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uring *ring;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
      napi_get_value_external(env, argv[0], (void **)&ring) != napi_ok)
    return NULL;
  return ring;
}

static napi_value js_uring_ready(napi_env env, napi_callback_info info) {
  uring *ring = ring_arg(env, info);
  if (ring == NULL || ring->closed) return number(env, 0);
  unsigned tail = __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE);
  return number(env, (double)(tail - *ring->cq_head));
}

static napi_value js_uring_drain(napi_env env, napi_callback_info info) {
  uring *ring = ring_arg(env, info);
  if (ring != NULL && !ring->closed && !ring->draining) drain(ring);
  return NULL;
}

static napi_value js_uring_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uring *ring;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok &&
      napi_get_value_external(env, argv[0], (void **)&ring) == napi_ok)
    close_ring(ring);
  return NULL;
}

void fuse_uring_define(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"uringOpen", NULL, js_uring_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"uringCommit", NULL, js_uring_commit, NULL, NULL, NULL, napi_enumerable, NULL},
      {"uringReady", NULL, js_uring_ready, NULL, NULL, NULL, napi_enumerable, NULL},
      {"uringDrain", NULL, js_uring_drain, NULL, NULL, NULL, napi_enumerable, NULL},
      {"uringClose", NULL, js_uring_close, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
