/* The probe transports (TCP streams, verbs RC with out-of-band QP numbers,
 * rdma_cm) behind one table: what each does before HELLO, for the ACCEPT,
 * to connect its data path, and its share of the measurement. */
#ifndef RCK_PROBE_TRANSPORT_H
#define RCK_PROBE_TRANSPORT_H

#include <stdbool.h>

#include "exchange.h"

struct psess;

/* The server's device choice for a verbs endpoint (NULL/0/-1: automatic). */
struct pdev {
	const char *device;
	unsigned int ib_port;
	int gid_index;
};

struct ptransport {
	const char *name;
	bool rdma;  /* an RDMA port: counter snapshots, device in the stats */
	/* Client, before HELLO: its endpoint into @hello (may do nothing). */
	int (*hello)(struct psess *s, const struct pdev *want, struct xq_hello *hello);
	/* Server, for the ACCEPT (cookie already set): its endpoint into @acc. */
	int (*accept)(struct psess *s, const struct pdev *want, struct xq_accept *acc);
	/* Client after ACCEPT: connect the data path to the server's @port. */
	int (*connect)(struct psess *s, unsigned int port);
	/* Server after ACCEPT: take the client's data path in. */
	int (*join)(struct psess *s);
	/* Our role's part of a bandwidth run (s->server says which). */
	int (*bw)(struct psess *s);
	/* A latency run: the client times pings into s->smp, the server pongs. */
	int (*ping)(struct psess *s);
	int (*pong)(struct psess *s);
};

/* The transport of the session's agreed parameters (never NULL). */
const struct ptransport *ptransport_of(const struct xq_params *p);

#endif
