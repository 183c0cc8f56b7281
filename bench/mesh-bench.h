/* mesh-bench's parts with real agents (mesh-bench-real.c). */
#ifndef RCK_BENCH_MESH_BENCH_H
#define RCK_BENCH_MESH_BENCH_H

#include <rocecheck/rocecheck.h>

/* A real agent's RSS and descriptors over 2000 sessions, printed. */
void bench_agent_rss(const char *rck);
/* A full sweep of 4 real agents: wall over the steps' slowest probes. 0 or -1. */
int bench_sweep_real(struct rck_ctx *ctx, const char *rck);
/* Incast groups of 3 among 4 real agents: the start spread. 0 or -1. */
int bench_incast_spread(struct rck_ctx *ctx, const char *rck);

#endif
