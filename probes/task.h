/* Task-bound serving for the sweep agent's standing listeners (inside the
 * library only): one session whose client names the expected task. */
#ifndef RCK_PROBE_TASK_H
#define RCK_PROBE_TASK_H

#include <stdint.h>

#include "rocecheck/probe.h"

/*
 * As rck_probe_server_serve(), but a client whose HELLO names another task
 * (struct rck_probe_opts.task) gets an ERROR ("this listener serves task
 * N now") and is dropped while the wait goes on until @deadline
 * (CLOCK_MONOTONIC ns). @task 0 takes any client.
 */
int psrv_serve_task(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		    struct rck_probe_result **out);

#endif
