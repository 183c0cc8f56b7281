/* Internals of the preflight: its configuration and its result, shared by
 * config.c, run.c and result.c. Never installed. */
#ifndef RCK_PREFLIGHT_INT_H
#define RCK_PREFLIGHT_INT_H

#include <stdatomic.h>

#include "internal.h"
#include "rocecheck/agent.h"
#include "rocecheck/preflight.h"

struct rck_preflight_config {
	struct rck_hostlist *hl;
	struct rck_hostlist *spares;
	char *launcher;
	char **extra;                 /* NULL-terminated, NULL none */
	char *ssh_config;             /* ssh -F FILE; NULL none */
	uint8_t key[RCK_KEY_MAX];
	size_t key_len;
	struct rck_thresholds *th;    /* NULL: defaults */
	unsigned int tests;
	char *rails;
	enum rck_probe_transport transport;
	uint32_t size;
	uint64_t iters;
	double duration_s;
	bool quick;
	enum rck_mesh_schedule schedule;
	double expect_rate;
	unsigned int passes;
	double deadline_s;
	rck_preflight_progress_fn progress;
	void *progress_data;
	atomic_int cancel;
	_Atomic(struct rck_mesh_config *) running; /* the sweep's, while it runs */
	const struct rck_topology *topo; /* borrowed (topology.c), NULL none */
	bool topo_lldp;               /* else from the agents' LLDP (topology.c) */
	unsigned int topo_capture_ms;
};

struct pf_bad {
	char *host, *reason;
};

struct pf_spare {
	char *host;
	bool healthy;
};

struct pf_swap {
	const char *host, *spare; /* owned by the bad and spare lists */
};

struct rck_preflight {
	struct rck_mesh *m;
	struct rck_report *r;
	char *summary;
	struct rck_preflight_timings t;
	struct pf_bad *bad;
	unsigned int n_bad;
	struct pf_spare *spares;
	unsigned int n_spares;
	struct pf_swap *swaps;
	unsigned int n_swaps;
};

/* The analysis of @m with @c's thresholds (and expected rate). 0, -errno. */
int pf_judge(const struct rck_preflight_config *c, const struct rck_mesh *m, struct rck_report **out);
/* A result around @m (taken) and its final report (taken): summary, bad
 * hosts. 0 or -ENOMEM (then nothing is taken). */
int pf_result(struct rck_mesh *m, struct rck_report *r, const struct rck_preflight_timings *t,
	      const struct rck_hostlist *spares, struct rck_preflight **out);

/* run.c: "NAME:PORT" (one colon, digits after it) names an agent on
 * another port; the hostlist checked the port. */
/* dry_run.c: pattern, rails, tests, schedule, DCB and probe settings of the
 * preflight's sweep. 0 or -errno. */
int preflight_sweep_settings(struct rck_mesh_config *mc, const struct rck_preflight_config *c);

#endif
