/*
 * fuse-floor's C column: the cheapest FUSE daemon this machine can run.
 * One thread, blocking read() and write() on /dev/fuse, handlers that do
 * nothing but answer (the same answers as the bench's JavaScript columns).
 * What it costs per request is the kernel's and the VM's share, the floor
 * under any daemon, ours included.
 *
 *   fuse-floor-c MOUNTPOINT [--qos] [--uring]
 *
 * `--uring` serves requests over FUSE over io_uring instead (needs the fuse
 * module's enable_uring on): one entry per CPU queue, a blocking
 * io_uring_enter that submits the replies and waits for the next requests.
 *
 * Mounts (as root), prints "ready" once INIT is answered, and on SIGUSR1
 * prints its own CPU time in µs (user + system). `--qos` holds a 0 µs CPU
 * latency request for its lifetime, as computerd's busy polling does while
 * requests come. Exits when the mount goes away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_WRITE (1 << 20)

static char in[MAX_WRITE + 4096];
static char out[4096];
static uint64_t file_size;
static volatile sig_atomic_t report;

static void on_usr1(int signal) {
  (void)signal;
  report = 1;
}

static void print_cpu(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  long long us = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec + usage.ru_stime.tv_sec * 1000000LL +
                 usage.ru_stime.tv_usec;
  printf("cpu %lld\n", us);
  fflush(stdout);
}

static void attr_of(struct fuse_attr *attr, uint64_t nodeid) {
  memset(attr, 0, sizeof *attr);
  attr->ino = nodeid;
  attr->blksize = 4096;
  if (nodeid == FUSE_ROOT_ID) {
    attr->mode = S_IFDIR | 0755;
    attr->nlink = 2;
  } else {
    attr->mode = S_IFREG | 0644;
    attr->nlink = 1;
    attr->size = file_size;
    attr->blocks = 1;
  }
}

/* Every name is the one file, node 2: entries cached for 30 s, attributes never (each stat reaches us). */
static size_t entry(struct fuse_entry_out *e) {
  memset(e, 0, sizeof *e);
  e->nodeid = 2;
  e->generation = 1;
  e->entry_valid = 30;
  attr_of(&e->attr, 2);
  return sizeof *e;
}

static size_t opened(struct fuse_open_out *o) {
  memset(o, 0, sizeof *o);
  o->fh = 1;
  return sizeof *o;
}

/* FUSE over io_uring's uapi (spec 06 §14); the system's fuse.h predates it. */
#define OVER_IO_URING (1u << 9)
enum { CMD_REGISTER = 1, CMD_COMMIT_AND_FETCH = 2 };
struct ring_header {
  char in_out[128];
  char op_in[128];
  struct {
    uint64_t flags, commit_id;
    uint32_t payload_sz, padding;
    uint64_t reserved;
  } ent;
};
struct cmd_req {
  uint64_t flags, commit_id;
  uint16_t qid;
  uint8_t padding[6];
};
/* One request's answer into `answer`: its length, or -1 for none (forgets); `*error` a negative errno. */
static ssize_t handle(struct fuse_in_header *header, void *body, void *answer, int *error, int uring) {
  size_t length = 0;
  *error = 0;
  switch (header->opcode) {
    case FUSE_INIT: {
      struct fuse_init_in *init = body;
      struct fuse_init_out *o = answer;
      memset(o, 0, sizeof *o);
      o->major = FUSE_KERNEL_VERSION;
      o->minor = FUSE_KERNEL_MINOR_VERSION;
      o->max_readahead = init->max_readahead;
      o->flags = init->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_MAX_PAGES);
      if (uring && (init->flags & FUSE_INIT_EXT) && (init->flags2 & OVER_IO_URING)) {
        o->flags |= FUSE_INIT_EXT;
        o->flags2 = OVER_IO_URING;
      }
      o->max_background = 64;
      o->congestion_threshold = 48;
      o->max_write = MAX_WRITE;
      o->time_gran = 1;
      o->max_pages = MAX_WRITE / 4096;
      length = sizeof *o;
      break;
    }
    case FUSE_LOOKUP:
      length = entry(answer);
      break;
    case FUSE_GETATTR: {
      struct fuse_attr_out *o = answer;
      memset(o, 0, sizeof *o);
      attr_of(&o->attr, header->nodeid);
      length = sizeof *o;
      break;
    }
    case FUSE_SETATTR: {
      struct fuse_setattr_in *set = body;
      if (set->valid & FATTR_SIZE) file_size = set->size;
      struct fuse_attr_out *o = answer;
      memset(o, 0, sizeof *o);
      attr_of(&o->attr, header->nodeid);
      length = sizeof *o;
      break;
    }
    case FUSE_CREATE:
      file_size = 0;
      length = entry(answer);
      length += opened((struct fuse_open_out *)((char *)answer + length));
      break;
    case FUSE_OPEN:
    case FUSE_OPENDIR:
      length = opened(answer);
      break;
    case FUSE_WRITE: {
      struct fuse_write_in *w = body;
      if (w->offset + w->size > file_size) file_size = w->offset + w->size;
      struct fuse_write_out *o = answer;
      memset(o, 0, sizeof *o);
      o->size = w->size;
      length = sizeof *o;
      break;
    }
    case FUSE_RELEASE:
    case FUSE_RELEASEDIR:
    case FUSE_FLUSH:
      break;
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
      return -1;
    default:
      *error = -ENOSYS;
  }
  return (ssize_t)length;
}

#define ENTRIES_PER_QUEUE 2
#define MAX_ENTRIES 256
static struct ring_header headers[MAX_ENTRIES];
static struct iovec iovs[MAX_ENTRIES][2];

/* Serves the connection on `fd` over io_uring until it goes: one thread, every CPU queue. */
static int serve_uring(int fd) {
  int queues = (int)sysconf(_SC_NPROCESSORS_CONF);
  int count = queues * ENTRIES_PER_QUEUE;
  if (count > MAX_ENTRIES) count = MAX_ENTRIES;
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER;
  int ring = (int)syscall(__NR_io_uring_setup, count, &p);
  if (ring < 0) {
    perror("io_uring_setup");
    return 1;
  }
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  size_t size = sq_size > cq_size ? sq_size : cq_size;
  char *rings = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
  char *sqes = mmap(NULL, p.sq_entries * 128, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  if (rings == MAP_FAILED || sqes == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  unsigned *sq_tail = (unsigned *)(rings + p.sq_off.tail), *sq_mask = (unsigned *)(rings + p.sq_off.ring_mask);
  unsigned *sq_array = (unsigned *)(rings + p.sq_off.array);
  unsigned *cq_head = (unsigned *)(rings + p.cq_off.head), *cq_tail = (unsigned *)(rings + p.cq_off.tail);
  unsigned *cq_mask = (unsigned *)(rings + p.cq_off.ring_mask);
  struct io_uring_cqe *cqes = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
  unsigned pending = 0;
  char **payloads = calloc(count, sizeof *payloads);
  for (int i = 0; i < count; i++) {
    payloads[i] = malloc(MAX_WRITE);
    iovs[i][0] = (struct iovec){.iov_base = &headers[i], .iov_len = sizeof headers[i]};
    iovs[i][1] = (struct iovec){.iov_base = payloads[i], .iov_len = MAX_WRITE};
  }
#define SQE(id, op)                                                                   \
  struct io_uring_sqe *sqe = (struct io_uring_sqe *)(sqes + (*sq_tail & *sq_mask) * 128); \
  memset(sqe, 0, 128);                                                                  \
  sqe->opcode = IORING_OP_URING_CMD;                                                    \
  sqe->fd = fd;                                                                         \
  sqe->cmd_op = op;                                                                     \
  sqe->user_data = id;                                                                  \
  sq_array[*sq_tail & *sq_mask] = *sq_tail & *sq_mask;                                  \
  __atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);                            \
  pending++
  for (int i = 0; i < count; i++) {
    SQE(i, CMD_REGISTER);
    sqe->addr = (uint64_t)(uintptr_t)iovs[i];
    sqe->len = 2;
    ((struct cmd_req *)sqe->cmd)->qid = (uint16_t)(i % queues);
  }
  if (syscall(__NR_io_uring_enter, ring, pending, 0, 0, NULL, 0) < 0) {
    perror("io_uring_enter");
    return 1;
  }
  pending = 0;
  printf("ready\n");
  fflush(stdout);
  for (;;) {
    if (report) {
      report = 0;
      print_cpu();
    }
    int n = (int)syscall(__NR_io_uring_enter, ring, pending, 1, IORING_ENTER_GETEVENTS, NULL, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("io_uring_enter");
      return 1;
    }
    pending = 0;
    unsigned head = *cq_head, tail = __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE);
    for (; head != tail; head++) {
      struct io_uring_cqe *cqe = &cqes[head & *cq_mask];
      int id = (int)cqe->user_data;
      if (cqe->res < 0) {
        if (cqe->res == -ENOTCONN || cqe->res == -ECONNABORTED) return 0;
        fprintf(stderr, "io_uring entry %d: %s\n", id, strerror(-cqe->res));
        return 1;
      }
      struct ring_header *h = &headers[id];
      struct fuse_in_header *header = (struct fuse_in_header *)h->in_out;
      uint64_t unique = header->unique;
      int error;
      ssize_t length = handle(header, h->op_in, payloads[id], &error, 1);
      struct fuse_out_header *reply = (struct fuse_out_header *)h->in_out;
      reply->len = sizeof *reply + (length > 0 ? length : 0);
      reply->error = error;
      reply->unique = unique;
      h->ent.payload_sz = length > 0 ? (uint32_t)length : 0;
      SQE(id, CMD_COMMIT_AND_FETCH);
      ((struct cmd_req *)sqe->cmd)->commit_id = h->ent.commit_id;
      ((struct cmd_req *)sqe->cmd)->qid = (uint16_t)(id % queues);
    }
    __atomic_store_n(cq_head, head, __ATOMIC_RELEASE);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fuse-floor-c MOUNTPOINT [--qos] [--uring]\n");
    return 2;
  }
  int uring = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--uring") == 0) uring = 1;
    if (strcmp(argv[i], "--qos") != 0) continue;
    int qos = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    int32_t zero = 0;
    if (qos < 0 || write(qos, &zero, sizeof zero) != sizeof zero) perror("/dev/cpu_dma_latency");
  }
  int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    perror("/dev/fuse");
    return 1;
  }
  char options[128];
  snprintf(options, sizeof options, "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
  if (mount("floor", argv[1], "fuse.floor", MS_NOSUID | MS_NODEV, options) != 0) {
    perror("mount");
    return 1;
  }
  signal(SIGUSR1, on_usr1);
  for (;;) {
    if (report) {
      report = 0;
      print_cpu();
    }
    ssize_t n = read(fd, in, sizeof in);
    if (n < 0) {
      if (errno == EINTR || errno == ENOENT) continue;
      if (errno == ENODEV) return 0;
      perror("read /dev/fuse");
      return 1;
    }
    struct fuse_in_header *header = (struct fuse_in_header *)in;
    struct fuse_out_header *reply = (struct fuse_out_header *)out;
    int error;
    ssize_t length = handle(header, header + 1, reply + 1, &error, uring);
    if (length < 0) continue;
    reply->len = sizeof *reply + length;
    reply->error = error;
    reply->unique = header->unique;
    if (write(fd, out, reply->len) < 0 && errno != ENOENT) perror("write /dev/fuse");
    if (header->opcode == FUSE_INIT) {
      // The kernel takes ring entries only after the INIT reply; from then on they serve every request.
      if (uring) return serve_uring(fd);
      printf("ready\n");
      fflush(stdout);
    }
  }
}
