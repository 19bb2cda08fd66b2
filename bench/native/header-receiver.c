/*
 * The fleet benchmarks' receiver: counts lidar datagrams of many sensors for the price of their headers.
 *
 * A fleet of 40 sensors sends 25 600 datagrams of 25 KB a second. The Node receiver (bench/udp-receiver.ts)
 * gets each one whole into a fresh Buffer, which cost more CPU than the sensors themselves and made the
 * benchmark measure its own receivers. This one asks the kernel for the first 48 bytes of up to 64
 * datagrams per system call (recvmmsg with MSG_TRUNC): the kernel copies the header and drops the rest,
 * and the datagram still counts. It reads the same fields as bench/packet-fields.ts (init_id, frame_id,
 * the first column's measurement_id) and counts losses the same way (SequenceTracker).
 *
 * It speaks to the orchestrator (bench/native-receiver.ts) over stdin/stdout:
 *   in:  "open N" and then N lines "lidar ID FUSA PACKETS_PER_FRAME" or "sink ID"; "start"; "stop"
 *   out: one JSON line per message of bench/receiver-protocol.ts (FromReceiver; no jitter figures)
 * Build: cc -O2 -o header-receiver header-receiver.c (done by the benchmark itself).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_STREAMS 1024
#define ID_BYTES 64
#define BATCH 64
/* The first column's measurement_id ends at byte 42 (32-byte header, then 8 bytes of timestamp). */
#define HEADER_READ 48
#define FIRST_MEASUREMENT_ID 40
#define COLUMNS_PER_PACKET 16
#define MAX_INIT_IDS 16
#define RECEIVE_BUFFER_BYTES (8 * 1024 * 1024)

struct stream {
  char id[ID_BYTES];
  int fd;
  int lidar;
  int fusa;
  long long per_frame;
  /* The SequenceTracker of bench/packet-fields.ts. */
  long long lost, out_of_order, frame_base, last_place;
  long long last_frame_raw; /* -1: none yet */
  int has_place;
  long long packets;
  long long last_init_id; /* -1: none yet */
  long long window_init_ids[MAX_INIT_IDS];
  int window_init_count;
};

static struct stream streams[MAX_STREAMS];
static int stream_count;
static int counting;
static struct timespec window_start;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t); /* the clock of Node's process.hrtime */
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void reset_sequence(struct stream *s) {
  s->lost = s->out_of_order = s->frame_base = s->last_place = 0;
  s->last_frame_raw = -1;
  s->has_place = 0;
}

static void observe(struct stream *s, long long frame_id, long long measurement_id) {
  long long modulus = s->fusa ? (1LL << 32) : (1LL << 16);
  if (s->last_frame_raw >= 0) {
    long long forward = (frame_id - s->last_frame_raw + modulus) % modulus;
    /* A step "forward" of more than half the id space is really a step back (a late packet). */
    if (forward > modulus / 2) {
      s->out_of_order++;
      return;
    }
    s->frame_base += forward;
  }
  s->last_frame_raw = frame_id;
  long long place = s->frame_base * s->per_frame + measurement_id / COLUMNS_PER_PACKET;
  if (s->has_place) {
    if (place > s->last_place + 1) {
      s->lost += place - s->last_place - 1;
    } else if (place <= s->last_place) {
      s->out_of_order++;
      return;
    }
  }
  s->last_place = place;
  s->has_place = 1;
}

static unsigned le(const unsigned char *p, int bytes) {
  unsigned v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static void on_packet(struct stream *s, const unsigned char *p, size_t length) {
  if (!s->lidar || length < FIRST_MEASUREMENT_ID + 2) return;
  long long init_id, frame_id;
  if (s->fusa) {
    if (p[0] != 1) return;
    init_id = le(p + 1, 3);
    frame_id = le(p + 4, 4);
  } else {
    if (le(p, 2) != 1) return;
    init_id = le(p + 4, 3);
    frame_id = le(p + 2, 2);
  }
  long long measurement_id = le(p + FIRST_MEASUREMENT_ID, 2);
  if (init_id != s->last_init_id) {
    printf("{\"type\":\"init\",\"id\":\"%s\",\"initId\":%lld,\"atNs\":\"%lld\"}\n", s->id, init_id, now_ns());
    fflush(stdout);
    s->last_init_id = init_id;
    reset_sequence(s); /* a new initialization starts a new sequence */
  }
  if (!counting) return;
  s->packets++;
  int seen = 0;
  for (int i = 0; i < s->window_init_count; i++) seen |= s->window_init_ids[i] == init_id;
  if (!seen && s->window_init_count < MAX_INIT_IDS) s->window_init_ids[s->window_init_count++] = init_id;
  observe(s, frame_id, measurement_id);
}

static unsigned char buffers[BATCH][HEADER_READ];
static struct iovec iovecs[BATCH];
static struct mmsghdr messages[BATCH];

static void drain(struct stream *s) {
  for (;;) {
    for (int i = 0; i < BATCH; i++) {
      iovecs[i].iov_base = buffers[i];
      iovecs[i].iov_len = HEADER_READ;
      memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
      messages[i].msg_hdr.msg_iov = &iovecs[i];
      messages[i].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(s->fd, messages, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
    if (n <= 0) return; /* EAGAIN: drained */
    for (int i = 0; i < n; i++) on_packet(s, buffers[i], messages[i].msg_len);
    if (n < BATCH) return;
  }
}

static struct stream *find(const char *id) {
  for (int i = 0; i < stream_count; i++)
    if (strcmp(streams[i].id, id) == 0) return &streams[i];
  return NULL;
}

static int open_port(int epoll_fd, struct stream *s) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int size = RECEIVE_BUFFER_BYTES;
  /* FORCE passes net.core.rmem_max when run as root; otherwise the capped size is still the best there is. */
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) return -1;
  struct epoll_event event = {.events = EPOLLIN, .data.ptr = s};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) return -1;
  s->fd = fd;
  return 0;
}

static int port_of(int fd) {
  struct sockaddr_in address;
  socklen_t length = sizeof address;
  getsockname(fd, (struct sockaddr *)&address, &length);
  return ntohs(address.sin_port);
}

static void fail(const char *what) {
  fprintf(stderr, "header-receiver: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* "open N": N stream lines follow; answers with every port opened by this request. */
static void handle_open(int epoll_fd, int count) {
  printf("{\"type\":\"opened\",\"ports\":{");
  char line[256], kind[16], id[ID_BYTES];
  for (int i = 0; i < count; i++) {
    if (!fgets(line, sizeof line, stdin)) fail("stdin closed during open");
    int fusa = 0;
    long long per_frame = 0;
    if (sscanf(line, "%15s %63s %d %lld", kind, id, &fusa, &per_frame) < 2) fail("bad stream line");
    struct stream *s = find(id);
    if (!s) {
      if (stream_count == MAX_STREAMS) fail("too many streams");
      s = &streams[stream_count++];
      memset(s, 0, sizeof *s);
      snprintf(s->id, sizeof s->id, "%s", id);
      s->last_init_id = -1;
      if (open_port(epoll_fd, s) != 0) fail("open port");
    }
    /* A re-opened stream keeps its port and last init_id and takes the new spec. */
    s->lidar = strcmp(kind, "lidar") == 0;
    s->fusa = fusa;
    s->per_frame = per_frame > 0 ? per_frame : 1;
    reset_sequence(s);
    printf("%s\"%s\":%d", i ? "," : "", s->id, port_of(s->fd));
  }
  printf("}}\n");
  fflush(stdout);
}

static void handle_start(void) {
  for (int i = 0; i < stream_count; i++) {
    streams[i].packets = 0;
    streams[i].window_init_count = 0;
    reset_sequence(&streams[i]);
  }
  clock_gettime(CLOCK_MONOTONIC, &window_start);
  counting = 1;
  printf("{\"type\":\"started\"}\n");
  fflush(stdout);
}

static void handle_stop(void) {
  counting = 0;
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double window_s = (end.tv_sec - window_start.tv_sec) + (end.tv_nsec - window_start.tv_nsec) / 1e9;
  printf("{\"type\":\"stats\",\"streams\":{");
  int first = 1;
  for (int i = 0; i < stream_count; i++) {
    struct stream *s = &streams[i];
    if (!s->lidar) continue;
    printf("%s\"%s\":{\"packets\":%lld,\"windowS\":%.6f,\"rate\":%.6f,\"lost\":%lld,\"outOfOrder\":%lld,"
           "\"jitterMs\":null,\"initIds\":[",
           first ? "" : ",", s->id, s->packets, window_s, s->packets / window_s, s->lost, s->out_of_order);
    for (int j = 0; j < s->window_init_count; j++) printf("%s%lld", j ? "," : "", s->window_init_ids[j]);
    printf("]}");
    first = 0;
  }
  printf("}}\n");
  fflush(stdout);
}

static void handle_command(int epoll_fd) {
  char line[256];
  if (!fgets(line, sizeof line, stdin)) exit(0); /* the orchestrator went away: leave with it */
  int count;
  if (line[0] == '\n') return;
  if (sscanf(line, "open %d", &count) == 1) handle_open(epoll_fd, count);
  else if (strncmp(line, "start", 5) == 0) handle_start();
  else if (strncmp(line, "stop", 4) == 0) handle_stop();
  else fprintf(stderr, "header-receiver: unknown command: %s", line);
}

int main(void) {
  int epoll_fd = epoll_create1(0);
  if (epoll_fd < 0) fail("epoll");
  /* Unbuffered: a line stdio had read ahead would be invisible to epoll until more input came. */
  setvbuf(stdin, NULL, _IONBF, 0);
  struct epoll_event input = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, STDIN_FILENO, &input) != 0) fail("epoll stdin");
  struct epoll_event events[64];
  for (;;) {
    int n = epoll_wait(epoll_fd, events, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("epoll_wait");
    for (int i = 0; i < n; i++) {
      if (events[i].data.ptr == NULL) handle_command(epoll_fd);
      else drain(events[i].data.ptr);
    }
  }
}
