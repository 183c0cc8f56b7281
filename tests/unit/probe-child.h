/* Shared by the probe unit tests: a probe server in a child process, raw
 * peers that speak the exchange protocol by hand, and a clock. */
#ifndef RCK_TEST_PROBE_CHILD_H
#define RCK_TEST_PROBE_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rocecheck/rocecheck.h>

#include "../../probes/exchange.h"

/* A probe server in a child process serving sessions; each session's
 * status (0xff: serve() failed) is written as one byte to status_fd. */
struct child {
	pid_t pid;
	int status_fd;
	unsigned int port;
};

struct rck_ctx *new_ctx(unsigned int timeout_ms);
double now_s(void);
/* How much slower than natively the tests run: 8 under valgrind (the
 * valgrind test setup sets ROCECHECK_WRAP), else 1. Timing bounds scale. */
double slow(void);
/* @o: the server's options (NULL: defaults); @setup runs in the child
 * once the server listens (NULL: nothing). */
struct child serve_opts(unsigned int sessions, const struct rck_probe_opts *o, unsigned int timeout_ms,
			void (*setup)(void));
/* The server's timeout also bounds a run's end (its duration plus the
 * timeout), which valgrind stretches. */
static inline struct child serve(unsigned int sessions)
{
	return serve_opts(sessions, NULL, (unsigned int)(1500 * slow()), NULL);
}
int session_status(struct child *c);
void reap(struct child *c);
/* A listening socket on a free loopback port. */
int listener(unsigned int *port);
/* A blocking TCP connection to 127.0.0.1:@port. */
int raw_connect(unsigned int port);
void put_hdr(uint8_t *b, uint16_t version, uint16_t type, uint32_t len);
/* Send one message on @fd (blocking). */
void raw_send(int fd, enum xq_type type, const union xq_msg *m);
/* Read one message from @fd within @ms: 0 with *type and @m, -1 at the
 * end of the stream or when @ms passed. */
int raw_recv(int fd, uint16_t *type, union xq_msg *m, int ms);

#endif
