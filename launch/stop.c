/* The end of a launch: agents' stderr drained while they run, every child
 * stopped (SIGTERM, SIGKILL after a grace period) and reaped, accessors. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rocecheck/launch.h"
#include "internal.h"
#include "launch_int.h"

RCK_EXPORT unsigned int rck_launch_drain(struct rck_launch *l)
{
	unsigned int ended = 0;

	if (!l)
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		struct lhost *h = &l->h[i];
		if (h->st != RCK_LAUNCH_READY || h->pid <= 0)
			continue;
		rck_launch_drain_err(h);
		if (!rck_launch_try_reap(h))
			continue;
		h->st = RCK_LAUNCH_EXITED;
		free(h->why);
		h->why = strdup("launcher ended while its agent was in use");
		rck_launch_finish(h);
		ended++;
	}
	return ended;
}

RCK_EXPORT int rck_launch_stop(struct rck_launch *l)
{
	uint64_t now, t_term, t_kill, t_end;
	struct pollfd *pfd;
	bool termed = false, killed = false;
	int rc = 0;

	if (!l)
		return -EINVAL;
	/* Closing their standard input first lets agents with --lifeline end
	 * by themselves, the remote ones too (ssh passes the end of file on). */
	for (size_t i = 0; i < l->n; i++)
		rck_launch_close_fd(&l->h[i].in_fd);
	now = rck_launch_now_ms();
	t_term = now + (l->opts.stop_grace_ms < LIFELINE_MS ? l->opts.stop_grace_ms : LIFELINE_MS);
	t_kill = t_term + l->opts.stop_grace_ms;
	t_end = t_kill + rck_launch_kill_wait_ms(l->opts.stop_grace_ms);
	pfd = calloc(l->n ? l->n : 1, sizeof(*pfd));
	for (;;) {
		size_t left = 0, np = 0;
		for (size_t i = 0; i < l->n; i++) {
			struct lhost *h = &l->h[i];
			if (h->pid <= 0)
				continue;
			rck_launch_drain_err(h);
			if (rck_launch_try_reap(h))
				continue;
			left++;
			if (pfd && h->err_fd >= 0)
				pfd[np++] = (struct pollfd){ .fd = h->err_fd, .events = POLLIN };
		}
		if (!left)
			break;
		now = rck_launch_now_ms();
		if (!termed && now >= t_term) {
			for (size_t i = 0; i < l->n; i++)
				if (l->h[i].pid > 0)
					killpg(l->h[i].pid, SIGTERM);
			termed = true;
		}
		if (!killed && now >= t_kill) {
			for (size_t i = 0; i < l->n; i++)
				if (l->h[i].pid > 0)
					killpg(l->h[i].pid, SIGKILL);
			killed = true;
		}
		if (now >= t_end) {
			rc = -ECHILD;
			break;
		}
		/* Children are not pollable: stderr wakes us early, else 10 ms. */
		poll(pfd, np, 10);
	}
	free(pfd);
	for (size_t i = 0; i < l->n; i++) {
		struct lhost *h = &l->h[i];
		if (h->pid > 0) {
			/* Not reaped within the bound: left behind, said so. */
			free(h->why);
			h->why = strdup("not reaped after SIGKILL");
			h->pid = 0;
			rck_launch_finish(h);
		}
		if (h->st == RCK_LAUNCH_UNREACHABLE && !h->reason)
			rck_launch_finish(h);
		if (h->st == RCK_LAUNCH_READY)
			h->st = RCK_LAUNCH_STOPPED;
		h->starting = false;
		h->phase = REAP_NONE;
		rck_launch_close_fd(&h->out_fd);
		rck_launch_close_fd(&h->err_fd);
	}
	return rc;
}

RCK_EXPORT void rck_launch_free(struct rck_launch *l)
{
	if (!l)
		return;
	rck_launch_stop(l);
	for (size_t i = 0; i < l->n; i++) {
		struct lhost *h = &l->h[i];
		free(h->name);
		free(h->why);
		free(h->reason);
		free(h->token);
	}
	free(l->h);
	rck_launch_argv_free(l->agent);
	rck_launch_argv_free(l->extra);
	free(l->launcher);
	free(l);
}

RCK_EXPORT size_t rck_launch_host_count(const struct rck_launch *l)
{
	return l ? l->n : 0;
}

static const struct lhost *host_at(const struct rck_launch *l, size_t i)
{
	return l && i < l->n ? &l->h[i] : NULL;
}

RCK_EXPORT const char *rck_launch_host(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h ? h->name : NULL;
}

RCK_EXPORT enum rck_launch_status rck_launch_host_status(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h ? h->st : RCK_LAUNCH_PENDING;
}

RCK_EXPORT unsigned int rck_launch_host_port(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h && h->token ? h->port : 0;
}

RCK_EXPORT const char *rck_launch_host_token(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h ? h->token : NULL;
}

RCK_EXPORT const char *rck_launch_host_reason(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h && (h->st == RCK_LAUNCH_UNREACHABLE || h->st == RCK_LAUNCH_EXITED) ? h->reason : NULL;
}

RCK_EXPORT unsigned int rck_launch_host_ms(const struct rck_launch *l, size_t i)
{
	const struct lhost *h = host_at(l, i);
	return h ? h->ms : 0;
}
