/*
 * fuse_dev: the few things JavaScript cannot do for computerd's own FUSE
 * layer (src/mount/kernel/). Everything else, the whole protocol, is
 * TypeScript. Exposed:
 *   open()                          -> fd of /dev/fuse (O_RDWR|O_NONBLOCK|O_CLOEXEC)
 *   mount(source, target, type, flags, data) -> undefined, throws with errno
 *   read(fd, buffer)                -> bytes of one request, or -errno (EAGAIN when none is queued)
 *   write(fd, buffer, length)       -> bytes written, or -errno (one reply or notification)
 *   writeAsync(fd, buffer, length, cb(result)) -> the same from a libuv worker thread, for
 *                                      notifications that take a kernel lock a pending request may
 *                                      hold; `length` may span several whole messages (each begins
 *                                      with its own length), each its own write(), all of them
 *                                      even when one fails: the bytes of all, or the first -errno
 *   poll(fd, onReadable)            -> a handle; onReadable() runs on the loop when a request is queued
 *   pollStop(handle)
 *   unmount(target, flags, cb(result)) -> umount2 from a worker thread (0 or -errno)
 *   syncfs(target, cb(result))      -> syncfs(2) of the filesystem at target from a worker thread
 *                                      (0 or -errno): with the kernel's writeback cache, the dirty
 *                                      pages it holds come to the daemon as WRITEs meanwhile
 *   socketPair()                    -> [fd, fd] of a Unix stream socket pair (close-on-exec; a
 *                                      child gets one through spawn's stdio, which clears the flag)
 *   uringOpen, uringCommit, uringClose: FUSE over io_uring (fuse_uring.c)
 *   receiveFd(socket)               -> the fd one SCM_RIGHTS message carries (made non-blocking
 *                                      and close-on-exec), or -errno (EAGAIN when none was sent):
 *                                      how fusermount3 hands an unprivileged daemon its /dev/fuse
 * One read() is one request and one write() one reply (the kernel's
 * framing), so no buffering lives here: the caller's buffer is the pool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "fuse_uring.h"

#define CHECK(call)                                                                  \
  do {                                                                               \
    if ((call) != napi_ok) {                                                         \
      napi_throw_error(env, NULL, "fuse_dev: " #call " failed");                    \
      return NULL;                                                                   \
    }                                                                                \
  } while (0)

static napi_value number(napi_env env, double value) {
  napi_value out;
  napi_create_double(env, value, &out);
  return out;
}

static napi_value throw_errno(napi_env env, const char *what, int err) {
  napi_value message, code, error;
  char text[256];
  snprintf(text, sizeof text, "%s: %s", what, strerror(err));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  napi_create_int32(env, err, &code);
  napi_create_error(env, NULL, message, &error);
  napi_set_named_property(env, error, "errno", code);
  napi_throw(env, error);
  return NULL;
}

static char *string_arg(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *out = malloc(length + 1);
  if (out == NULL) return NULL;
  napi_get_value_string_utf8(env, value, out, length + 1, &length);
  return out;
}

static napi_value js_open(napi_env env, napi_callback_info info) {
  (void)info;
  int fd = open("/dev/fuse", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return throw_errno(env, "open /dev/fuse", errno);
  return number(env, fd);
}

static napi_value js_mount(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char *source = string_arg(env, argv[0]);
  char *target = string_arg(env, argv[1]);
  char *type = string_arg(env, argv[2]);
  uint32_t flags = 0;
  napi_get_value_uint32(env, argv[3], &flags);
  char *data = string_arg(env, argv[4]);
  int result = (source && target && type && data) ? mount(source, target, type, flags, data) : (errno = ENOMEM, -1);
  int err = errno;
  free(source);
  free(target);
  free(type);
  free(data);
  if (result != 0) return throw_errno(env, "mount", err);
  return NULL;
}

static int fd_arg(napi_env env, napi_value value) {
  int32_t fd = -1;
  napi_get_value_int32(env, value, &fd);
  return fd;
}

static napi_value js_read(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *data;
  size_t length;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &length));
  int fd = fd_arg(env, argv[0]);
  for (;;) {
    ssize_t n = read(fd, data, length);
    if (n >= 0) return number(env, (double)n);
    // ENOENT: the request was interrupted before we read it; the next one may be there.
    if (errno == EINTR || errno == ENOENT) continue;
    return number(env, -errno);
  }
}

static napi_value js_write(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *data;
  size_t length;
  CHECK(napi_get_buffer_info(env, argv[1], &data, &length));
  uint32_t count = 0;
  napi_get_value_uint32(env, argv[2], &count);
  if (count > length) count = (uint32_t)length;
  int fd = fd_arg(env, argv[0]);
  for (;;) {
    ssize_t n = write(fd, data, count);
    if (n >= 0) return number(env, (double)n);
    if (errno == EINTR) continue;
    return number(env, -errno);
  }
}

/* A write or an umount2 on a libuv worker thread, answered on the loop. */
typedef struct {
  napi_async_work work;
  napi_ref callback;
  napi_ref buffer;
  int fd;
  void *data;
  size_t length;
  char *target;
  int flags;
  int result;
} blocking_call;

static void run_write(napi_env env, void *arg) {
  (void)env;
  blocking_call *call = arg;
  const char *data = call->data;
  size_t at = 0;
  call->result = 0;
  // Message by message: the kernel takes one reply or notification per write().
  while (at + 4 <= call->length) {
    uint32_t size;
    memcpy(&size, data + at, 4);
    if (size < 4 || size > call->length - at) size = (uint32_t)(call->length - at);
    ssize_t n;
    do n = write(call->fd, data + at, size);
    while (n < 0 && errno == EINTR);
    // One refused (ENOENT: the kernel holds nothing there) does not stop the rest.
    if (n < 0 && call->result == 0) call->result = -errno;
    at += size;
  }
  if (call->result == 0) call->result = (int)at;
}

static void run_unmount(napi_env env, void *arg) {
  (void)env;
  blocking_call *call = arg;
  call->result = umount2(call->target, call->flags) == 0 ? 0 : -errno;
}

static void run_syncfs(napi_env env, void *arg) {
  (void)env;
  blocking_call *call = arg;
  int fd = open(call->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    call->result = -errno;
    return;
  }
  call->result = syncfs(fd) == 0 ? 0 : -errno;
  close(fd);
}

static void finish_call(napi_env env, napi_status status, void *arg) {
  (void)status;
  blocking_call *call = arg;
  napi_value callback, global, result;
  napi_get_reference_value(env, call->callback, &callback);
  napi_get_global(env, &global);
  result = number(env, call->result);
  napi_call_function(env, global, callback, 1, &result, NULL);
  napi_delete_reference(env, call->callback);
  if (call->buffer != NULL) napi_delete_reference(env, call->buffer);
  napi_delete_async_work(env, call->work);
  free(call->target);
  free(call);
}

static napi_value queue_call(napi_env env, blocking_call *call, napi_value callback, napi_async_execute_callback run,
                             const char *name) {
  napi_value resource_name;
  CHECK(napi_create_reference(env, callback, 1, &call->callback));
  CHECK(napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name));
  CHECK(napi_create_async_work(env, NULL, resource_name, run, finish_call, call, &call->work));
  CHECK(napi_queue_async_work(env, call->work));
  return NULL;
}

static napi_value js_write_async(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  blocking_call *call = calloc(1, sizeof *call);
  if (call == NULL) return throw_errno(env, "writeAsync", ENOMEM);
  call->fd = fd_arg(env, argv[0]);
  size_t length;
  CHECK(napi_get_buffer_info(env, argv[1], &call->data, &length));
  uint32_t count = 0;
  napi_get_value_uint32(env, argv[2], &count);
  call->length = count > length ? length : count;
  // The buffer stays alive (and unmoved: Buffers are off-heap) until the write is done.
  CHECK(napi_create_reference(env, argv[1], 1, &call->buffer));
  return queue_call(env, call, argv[3], run_write, "fuse_dev.writeAsync");
}

/* A call on a path from a worker thread: (target, cb) or, with `flags`, (target, flags, cb). */
static napi_value path_call(napi_env env, napi_callback_info info, int flags, napi_async_execute_callback run,
                            const char *name) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  blocking_call *call = calloc(1, sizeof *call);
  if (call == NULL) return throw_errno(env, name, ENOMEM);
  call->target = string_arg(env, argv[0]);
  if (flags) napi_get_value_int32(env, argv[1], &call->flags);
  return queue_call(env, call, argv[flags ? 2 : 1], run, name);
}

static napi_value js_unmount(napi_env env, napi_callback_info info) {
  return path_call(env, info, 1, run_unmount, "fuse_dev.unmount");
}

static napi_value js_syncfs(napi_env env, napi_callback_info info) {
  return path_call(env, info, 0, run_syncfs, "fuse_dev.syncfs");
}

/* uv_poll on the session fd: the loop wakes this when a request is queued. */
typedef struct {
  uv_poll_t poll;
  napi_env env;
  napi_ref callback;
  napi_async_context context;
  int closed;
} session_poll;

static void on_readable(uv_poll_t *handle, int status, int events) {
  (void)events;
  session_poll *session = handle->data;
  napi_env env = session->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, global, argument;
  napi_get_reference_value(env, session->callback, &callback);
  napi_get_global(env, &global);
  argument = number(env, status);
  // make_callback, not call_function: promise jobs the handler queued run before the loop goes on.
  napi_make_callback(env, session->context, global, callback, 1, &argument, NULL);
  napi_close_handle_scope(env, scope);
}

static void on_closed(uv_handle_t *handle) {
  session_poll *session = handle->data;
  napi_delete_reference(session->env, session->callback);
  napi_async_destroy(session->env, session->context);
  free(session);
}

static void finalize_session(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  session_poll *session = data;
  if (!session->closed) {
    session->closed = 1;
    uv_poll_stop(&session->poll);
    uv_close((uv_handle_t *)&session->poll, on_closed);
  }
}

static napi_value js_poll(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uv_loop_t *loop;
  CHECK(napi_get_uv_event_loop(env, &loop));
  session_poll *session = calloc(1, sizeof *session);
  if (session == NULL) return throw_errno(env, "poll", ENOMEM);
  session->env = env;
  int fd = fd_arg(env, argv[0]);
  int err = uv_poll_init(loop, &session->poll, fd);
  if (err != 0) {
    free(session);
    return throw_errno(env, "uv_poll_init", -err);
  }
  session->poll.data = session;
  napi_value name;
  CHECK(napi_create_string_utf8(env, "fuse_dev.poll", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_async_init(env, NULL, name, &session->context));
  CHECK(napi_create_reference(env, argv[1], 1, &session->callback));
  uv_poll_start(&session->poll, UV_READABLE, on_readable);
  napi_value handle;
  CHECK(napi_create_external(env, session, finalize_session, NULL, &handle));
  return handle;
}

static napi_value js_poll_stop(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  session_poll *session;
  CHECK(napi_get_value_external(env, argv[0], (void **)&session));
  if (!session->closed) {
    session->closed = 1;
    uv_poll_stop(&session->poll);
    uv_close((uv_handle_t *)&session->poll, on_closed);
  }
  return NULL;
}

static napi_value js_socket_pair(napi_env env, napi_callback_info info) {
  (void)info;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return throw_errno(env, "socketpair", errno);
  napi_value out;
  CHECK(napi_create_array_with_length(env, 2, &out));
  CHECK(napi_set_element(env, out, 0, number(env, fds[0])));
  CHECK(napi_set_element(env, out, 1, number(env, fds[1])));
  return out;
}

static napi_value js_receive_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int socket = fd_arg(env, argv[0]);
  char byte;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
  ssize_t n;
  do {
    // Non-blocking: the caller asks once the sender has exited, so the message is there or never comes.
    n = recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return number(env, -errno);
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  if (n == 0 || header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS)
    return number(env, -EAGAIN);
  int fd;
  memcpy(&fd, CMSG_DATA(header), sizeof fd);
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    int err = errno;
    close(fd);
    return number(env, -err);
  }
  return number(env, fd);
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mount", NULL, js_mount, NULL, NULL, NULL, napi_enumerable, NULL},
      {"read", NULL, js_read, NULL, NULL, NULL, napi_enumerable, NULL},
      {"write", NULL, js_write, NULL, NULL, NULL, napi_enumerable, NULL},
      {"writeAsync", NULL, js_write_async, NULL, NULL, NULL, napi_enumerable, NULL},
      {"poll", NULL, js_poll, NULL, NULL, NULL, napi_enumerable, NULL},
      {"pollStop", NULL, js_poll_stop, NULL, NULL, NULL, napi_enumerable, NULL},
      {"unmount", NULL, js_unmount, NULL, NULL, NULL, napi_enumerable, NULL},
      {"syncfs", NULL, js_syncfs, NULL, NULL, NULL, napi_enumerable, NULL},
      {"socketPair", NULL, js_socket_pair, NULL, NULL, NULL, napi_enumerable, NULL},
      {"receiveFd", NULL, js_receive_fd, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  fuse_uring_define(env, exports);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
