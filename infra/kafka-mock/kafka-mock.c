/*
 * Kafka test broker: librdkafka's in-memory mock cluster behind a tiny CLI.
 *
 *   kafka-mock <broker-count> [topic:partitions ...]
 *
 * Prints the bootstrap address (host:port,...) as the first line on stdout, then blocks until
 * SIGTERM or SIGINT. When stdin is a pipe or a socket (Node spawns children with socketpairs) it
 * also exits on EOF, so a test runner that dies without cleaning up never leaves a broker behind,
 * and it reads commands there, one per line, answering each with a line on stdout:
 *
 *   down <broker-id|-1>   drop the broker's connections and refuse new ones (an outage)
 *   up <broker-id|-1>     accept connections again, on the same address
 *
 * Answers are "ok" or "error <reason>".
 *
 * Topics must be created here: the mock broker does not implement the CreateTopics admin API, and
 * the topics it auto-creates on first use get 4 partitions.
 *
 * Test infrastructure only: nothing is persisted and every partition is bounded in memory.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* One command line from stdin; answers on stdout. */
static void run_command(rd_kafka_mock_cluster_t *mcluster, char *line) {
  char verb[16];
  int id = 0;
  if (sscanf(line, "%15s %d", verb, &id) != 2) {
    printf("error expected 'down <id>' or 'up <id>'\n");
  } else if (strcmp(verb, "down") == 0 || strcmp(verb, "up") == 0) {
    rd_kafka_resp_err_t err = strcmp(verb, "down") == 0 ? rd_kafka_mock_broker_set_down(mcluster, id)
                                                        : rd_kafka_mock_broker_set_up(mcluster, id);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) printf("ok\n");
    else printf("error %s\n", rd_kafka_err2str(err));
  } else {
    printf("error unknown command '%s'\n", verb);
  }
  fflush(stdout);
}

static int parse_positive(const char *s, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 10000) return -1;
  *out = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <broker-count> [topic:partitions ...]\n", argv[0]);
    return 2;
  }
  int brokers = 0;
  if (parse_positive(argv[1], &brokers) != 0) {
    fprintf(stderr, "kafka-mock: invalid broker count '%s'\n", argv[1]);
    return 2;
  }

  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* The mock cluster needs a client instance for its bookkeeping; it never talks to a broker
   * itself, so silence its logging unless asked. */
  if (getenv("KAFKA_MOCK_DEBUG") == NULL) rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == NULL) {
    fprintf(stderr, "kafka-mock: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }

  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (mcluster == NULL) {
    fprintf(stderr, "kafka-mock: could not create mock cluster\n");
    rd_kafka_destroy(rk);
    return 1;
  }

  for (int i = 2; i < argc; i++) {
    char *spec = strdup(argv[i]);
    char *colon = strrchr(spec, ':');
    int partitions = 0;
    if (colon == NULL || colon == spec || parse_positive(colon + 1, &partitions) != 0) {
      fprintf(stderr, "kafka-mock: invalid topic spec '%s' (want topic:partitions)\n", argv[i]);
      free(spec);
      rd_kafka_mock_cluster_destroy(mcluster);
      rd_kafka_destroy(rk);
      return 2;
    }
    *colon = '\0';
    int replication = brokers < 3 ? brokers : 3;
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, spec, partitions, replication);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      fprintf(stderr, "kafka-mock: creating topic '%s' failed: %s\n", spec, rd_kafka_err2str(err));
      free(spec);
      rd_kafka_mock_cluster_destroy(mcluster);
      rd_kafka_destroy(rk);
      return 1;
    }
    free(spec);
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  /* A parent that dies without signalling closes our stdout; do not die on the write. */
  signal(SIGPIPE, SIG_IGN);

  printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
  fflush(stdout);

  struct stat st;
  int watch_stdin = fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
  char line[256];
  size_t used = 0;
  while (!stop_requested) {
    if (!watch_stdin) {
      pause();
      continue;
    }
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
    int n = poll(&pfd, 1, -1);
    if (n < 0) continue; /* EINTR from a signal: the loop condition decides */
    if (pfd.revents & POLLIN) {
      ssize_t r = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
      if (r <= 0) break;
      used += (size_t)r;
      char *start = line;
      char *nl;
      while ((nl = memchr(start, '\n', used - (size_t)(start - line))) != NULL) {
        *nl = '\0';
        run_command(mcluster, start);
        start = nl + 1;
      }
      used -= (size_t)(start - line);
      memmove(line, start, used);
      /* A line longer than the buffer is not a command: drop it. */
      if (used == sizeof line - 1) used = 0;
    } else if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
      break;
    }
  }

  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return 0;
}
