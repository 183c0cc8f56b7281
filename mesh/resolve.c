/* The agents' addresses (resolve.h): one c-ares channel, every distinct
 * name asked at once, the channel driven by poll() until the deadline. */
#include <ares.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"
#include "resolve.h"
#include "wire.h"

#define SLICE_MS 50

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc;

static void lib_init(void)
{
	init_rc = ares_library_init(ARES_LIB_INIT_ALL);
}

static void set_port(struct mesh_addr *a, unsigned int port)
{
	if (a->sa.ss_family == AF_INET)
		((struct sockaddr_in *)&a->sa)->sin_port = htons((uint16_t)port);
	else if (a->sa.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->sa)->sin6_port = htons((uint16_t)port);
}

struct run;

/* One distinct name: its answer goes to every host that has it, the
 * hosts order[from .. from + count) of the run. */
struct query {
	const char *name;
	struct mesh_addr *first; /* the answer, copied to the others */
	size_t from, count;
	bool done;
	struct run *r;
};

struct run {
	const unsigned int *ports;
	const size_t *order;
	struct mesh_addr *out;
	const struct mesh_resolve_cb *cb;
	size_t pending;
};

/* The answer of @q to each of its hosts, with its own port. */
static void deliver(struct query *q)
{
	struct run *r = q->r;

	q->done = true;
	for (size_t k = q->from; k < q->from + q->count; k++) {
		size_t i = r->order[k];

		if (&r->out[i] != q->first)
			r->out[i] = *q->first;
		set_port(&r->out[i], r->ports[i]);
		if (r->cb && r->cb->ready)
			r->cb->ready(r->cb->arg, i, &r->out[i]);
	}
}

static void fail(struct mesh_addr *a, int err)
{
	a->err = err;
	a->why = err == -ENOENT      ? "name does not resolve"
		 : err == -ETIMEDOUT ? "name did not resolve in time"
		 : err == -ECANCELED ? "cancelled"
		 : err == -EALREADY  ? "not looked up"
				     : "name resolution failed";
}

/* An IP literal (v4, v6 with a scope): no lookup, never blocks. */
static bool literal(const char *name, struct mesh_addr *a)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *ai;

	if (getaddrinfo(name, NULL, &hints, &ai))
		return false;
	memcpy(&a->sa, ai->ai_addr, ai->ai_addrlen);
	a->len = ai->ai_addrlen;
	a->err = 0;
	a->why = NULL;
	freeaddrinfo(ai);
	return true;
}

static void answered(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct query *q = arg;
	struct ares_addrinfo_node *n = res ? res->nodes : NULL;

	(void)timeouts;
	if (q->done) {
		ares_freeaddrinfo(res);
		return;
	}
	q->r->pending--;
	if (status == ARES_SUCCESS && n && n->ai_addrlen <= sizeof(q->first->sa)) {
		memcpy(&q->first->sa, n->ai_addr, n->ai_addrlen);
		q->first->len = n->ai_addrlen;
		q->first->err = 0;
		q->first->why = NULL;
	} else if (status == ARES_ENOTFOUND || status == ARES_ENODATA || status == ARES_ENONAME ||
		   status == ARES_SUCCESS) {
		fail(q->first, -ENOENT);
	} else if (status == ARES_ETIMEOUT) {
		fail(q->first, -ETIMEDOUT);
	} else {
		fail(q->first, -EAGAIN);
	}
	ares_freeaddrinfo(res);
	deliver(q);
}

static int by_name(const void *a, const void *b, void *names)
{
	const char *const *n = names;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(n[i], n[j]);

	return c ? c : (i > j) - (i < j);
}

/* Drive the channel until every query is answered, the deadline passes or
 * the cancel is set; then give up on the rest with the reason. */
static void drive(ares_channel ch, struct run *r, uint64_t deadline_ns, const atomic_int *cancel,
		  struct query *q, size_t nq)
{
	int why = 0;

	while (r->pending) {
		ares_socket_t socks[ARES_GETSOCK_MAXNUM];
		struct pollfd pfd[ARES_GETSOCK_MAXNUM + 1];
		bool extra = r->cb && r->cb->extra && r->cb->extra_fd >= 0;
		struct timeval maxtv = {.tv_sec = 0, .tv_usec = SLICE_MS * 1000}, tv, *t;
		uint64_t now = wire_now_ns();
		unsigned int bits;
		int n = 0, wait_ms;

		if (cancel && atomic_load(cancel)) {
			why = -ECANCELED;
			break;
		}
		if (now >= deadline_ns) {
			why = -ETIMEDOUT;
			break;
		}
		/* c-ares's ARES_GETSOCK_WRITABLE() shifts a signed 1 into bit
		 * 31 for the last socket (undefined): test the bits unsigned. */
		bits = (unsigned int)ares_getsock(ch, socks, ARES_GETSOCK_MAXNUM);
		for (int i = 0; i < ARES_GETSOCK_MAXNUM; i++) {
			short ev = (short)((bits & (1u << i) ? POLLIN : 0) |
					   (bits & (1u << (i + ARES_GETSOCK_MAXNUM)) ? POLLOUT : 0));

			if (ev)
				pfd[n++] = (struct pollfd){.fd = socks[i], .events = ev};
		}
		if (extra)
			pfd[n] = (struct pollfd){.fd = r->cb->extra_fd, .events = POLLIN};
		t = ares_timeout(ch, &maxtv, &tv);
		wait_ms = (int)(t->tv_sec * 1000 + (t->tv_usec + 999) / 1000);
		if ((uint64_t)wait_ms * 1000000ull > deadline_ns - now)
			wait_ms = (int)((deadline_ns - now + 999999) / 1000000);
		if (poll(pfd, (nfds_t)(n + extra), wait_ms) < 0 && errno != EINTR)
			break;
		if (extra && pfd[n].revents)
			r->cb->extra(r->cb->arg);
		for (int i = 0; i < n; i++)
			if (pfd[i].revents)
				ares_process_fd(ch, pfd[i].revents & (POLLIN | POLLERR | POLLHUP) ? pfd[i].fd : ARES_SOCKET_BAD,
						pfd[i].revents & POLLOUT ? pfd[i].fd : ARES_SOCKET_BAD);
		/* Timeouts and retries. */
		ares_process_fd(ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	}
	for (size_t i = 0; i < nq; i++)
		if (!q[i].done) {
			fail(q[i].first, why ? why : -ETIMEDOUT);
			deliver(&q[i]);
		}
}

int mesh_resolve(const char *const *names, const unsigned int *ports, const bool *skip, size_t n,
		 uint64_t deadline_ns, const atomic_int *cancel, const struct mesh_resolve_cb *cb,
		 struct mesh_addr *out)
{
	struct ares_options o = {0};
	struct ares_addrinfo_hints hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	size_t *order = calloc(n + 1, sizeof(*order)), nq = 0, m = 0;
	struct query *q = calloc(n + 1, sizeof(*q));
	struct run r = {.ports = ports, .order = order, .out = out, .cb = cb};
	uint64_t now = wire_now_ns(), left_ms;
	ares_channel ch = NULL;
	int rc = 0;

	if (!order || !q) {
		rc = -ENOMEM;
		goto out;
	}
	pthread_once(&once, lib_init);
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		fail(&out[i], -EALREADY);
		if (!skip || !skip[i])
			order[m++] = i;
	}
	/* Equal names next to each other: one query each. */
	qsort_r(order, m, sizeof(*order), by_name, (void *)names);
	for (size_t k = 0; k < m; k++) {
		size_t i = order[k];

		if (nq && !strcmp(q[nq - 1].name, names[i])) {
			q[nq - 1].count++;
			continue;
		}
		q[nq++] = (struct query){.name = names[i], .first = &out[i], .from = k, .count = 1, .r = &r};
	}
	if (init_rc) {
		rc = init_rc == ARES_ENOMEM ? -ENOMEM : -EIO;
		goto out;
	}
	/* Literals answer themselves; the rest go to the resolver at once,
	 * each try bounded so that a silent server costs the deadline once. */
	left_ms = deadline_ns > now ? (deadline_ns - now) / 1000000 : 0;
	o.timeout = (int)(left_ms / 2 < 100 ? 100 : left_ms / 2 > 2000 ? 2000 : left_ms / 2);
	o.tries = 2;
	for (size_t k = 0; k < nq; k++)
		if (literal(q[k].name, q[k].first))
			deliver(&q[k]);
	for (size_t k = 0; k < nq; k++) {
		if (q[k].done)
			continue;
		if (!ch && ares_init_options(&ch, &o, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES)) {
			/* No resolver (no memory, unreadable config): each
			 * name fails, literals went on. */
			ch = NULL;
			fail(q[k].first, -EAGAIN);
			deliver(&q[k]);
			continue;
		}
		r.pending++;
		ares_getaddrinfo(ch, q[k].name, NULL, &hints, answered, &q[k]);
	}
	if (ch) {
		drive(ch, &r, deadline_ns, cancel, q, nq);
		/* Queries still out end with ARES_EDESTRUCTION: already given up. */
		ares_destroy(ch);
	}
out:
	free(order);
	free(q);
	return rc;
}

int mesh_resolve_hosts(const struct coord_host *hosts, size_t n, uint64_t deadline_ns, const atomic_int *cancel,
		       const struct mesh_resolve_cb *cb, struct mesh_addr **out)
{
	const char **names = calloc(n + 1, sizeof(*names));
	unsigned int *ports = calloc(n + 1, sizeof(*ports));
	bool *skip = calloc(n + 1, sizeof(*skip));
	struct mesh_addr *a = calloc(n + 1, sizeof(*a));
	int rc = -ENOMEM;

	if (names && ports && skip && a) {
		for (size_t i = 0; i < n; i++) {
			names[i] = hosts[i].addr;
			ports[i] = hosts[i].port;
			skip[i] = hosts[i].down != NULL;
		}
		rc = mesh_resolve(names, ports, skip, n, deadline_ns, cancel, cb, a);
	}
	free(names);
	free(ports);
	free(skip);
	if (rc) {
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}
