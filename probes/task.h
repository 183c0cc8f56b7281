/* Task-bound serving for the sweep agent's standing listeners (inside the
 * library only): one session whose client names the expected task. */
#ifndef RCK_PROBE_TASK_H
#define RCK_PROBE_TASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/probe.h"

/*
 * An incast group on one receiving NIC, or the two ends of a
 * bidirectional pair on one NIC: its serving members' sessions (one per
 * listener) each hold their client before the measured run until every
 * member has come or gone, or until @wait_ns after the first came, so the
 * group's senders start together. A client member counts as come once
 * connected, and never waits. Shared by the members' threads.
 */
struct pgroup {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned int n, in;      /* members, and those come or gone */
	uint64_t wait_ns, until; /* until: set by the first to come */
	uint64_t released;       /* CLOCK_MONOTONIC ns the group was let go */
};

int pgroup_init(struct pgroup *g, unsigned int n, uint64_t wait_ns);
void pgroup_destroy(struct pgroup *g);
/* A member whose client never came: the others stop waiting for it. */
void pgroup_leave(struct pgroup *g);
/* A client member, connected: come, without waiting (pcli_run_member()). */
void pgroup_arrive(struct pgroup *g);

/*
 * As rck_probe_run(), the client end of group @g (NULL: alone), as in a
 * bidirectional pair: it counts as come once its session is connected,
 * without waiting, so the serve end of the reverse direction holds its own
 * client until this one is connected too and a starved thread cannot
 * start after its reverse ended. *@came (false before the first call of
 * one task) is set then; a task that ends without it leaves the group.
 */
int pcli_run_member(struct rck_ctx *ctx, const char *host, const struct rck_probe_opts *opts,
		    struct pgroup *g, bool *came, struct rck_probe_result **out);

/*
 * As rck_probe_server_serve(), but a client whose HELLO names another task
 * (struct rck_probe_opts.task) gets an ERROR ("this listener serves task
 * N now") and is dropped while the wait goes on until @deadline
 * (CLOCK_MONOTONIC ns). @task 0 takes any client.
 */
int psrv_serve_task(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		    struct rck_probe_result **out);
/* CLOCK_MONOTONIC ns the measured part of the session psrv_serve_member()
 * served last began (after its group's start), 0 if none. */
uint64_t psrv_began(const struct rck_probe_server *srv);
/* As psrv_serve_task(), one member of group @g (NULL: alone). */
int psrv_serve_member(struct rck_probe_server *srv, uint32_t task, uint64_t deadline, struct pgroup *g,
		      struct rck_probe_result **out);

/*
 * Keep @srv's door open between its sessions while its owner is at task
 * @task (0: close it; the listener is then not read until the next
 * serve): a client of a later task hears that the server is busy "at task
 * N", one of an earlier task that it "serves task N now" (lobby.h). Called
 * by the one thread that serves on @srv, between its serves.
 */
int psrv_door(struct rck_probe_server *srv, uint32_t task);

#endif
