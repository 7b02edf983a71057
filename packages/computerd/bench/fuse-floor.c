/*
 * fuse-floor's C column: the cheapest FUSE daemon this machine can run.
 * One thread, blocking read() and write() on /dev/fuse, handlers that do
 * nothing but answer (the same answers as the bench's JavaScript columns).
 * What it costs per request is the kernel's and the VM's share, the floor
 * under any daemon, ours included.
 *
 *   fuse-floor-c MOUNTPOINT [--qos]
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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fuse-floor-c MOUNTPOINT [--qos]\n");
    return 2;
  }
  if (argc > 2 && strcmp(argv[2], "--qos") == 0) {
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
    void *body = header + 1;
    struct fuse_out_header *reply = (struct fuse_out_header *)out;
    void *answer = reply + 1;
    size_t length = 0;
    int error = 0;
    switch (header->opcode) {
      case FUSE_INIT: {
        struct fuse_init_in *init = body;
        struct fuse_init_out *o = answer;
        memset(o, 0, sizeof *o);
        o->major = FUSE_KERNEL_VERSION;
        o->minor = FUSE_KERNEL_MINOR_VERSION;
        o->max_readahead = init->max_readahead;
        o->flags = init->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_MAX_PAGES);
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
        continue;
      default:
        error = -ENOSYS;
    }
    reply->len = sizeof *reply + length;
    reply->error = error;
    reply->unique = header->unique;
    if (write(fd, out, reply->len) < 0 && errno != ENOENT) perror("write /dev/fuse");
    if (header->opcode == FUSE_INIT) {
      printf("ready\n");
      fflush(stdout);
    }
  }
}
