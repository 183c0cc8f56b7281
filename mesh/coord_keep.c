/* Keepalive of the agent sessions while a sweep is open, and the deadline
 * on what we send them. */
#include "internal.h"

#include "agent_tasks_proto.h"
#include "coord_sweep.h"

/* An agent closes a session that hears nothing for its idle_s (60 s by
 * default). One whose share of a pass ended early would lose its session
 * before the retest pass and come back unreachable: a healthy host made a
 * suspect. Agents since the keepalive say their idle time in PLANNED; for
 * an older one this covers any idle_s from 15 s up (tests use 20 s). */
#define KEEP_UNSAID_MS 5000

void coord_keep_start(struct host *h, uint32_t idle_ms)
{
	uint32_t every = idle_ms ? idle_ms / 3 : KEEP_UNSAID_MS;

	h->keep_ms = every > SLICE_MS ? every : SLICE_MS;
}

/* Once a slice: an empty AG_DROP (no peer gone) to each session that heard
 * nothing for keep_ms; a session whose output has not moved for three of
 * those (the agent's idle time) and the timeout is dead, as its agent
 * reads nothing of ours. */
void coord_keepalive(struct sweep *s)
{
	uint64_t now = wire_now_ns(), grace = (uint64_t)s->timeout_ms * 1000000ull;

	if (now < s->keep_next)
		return;
	s->keep_next = now + SLICE_MS * 1000000ull;
	for (size_t i = 0; i < s->n_h; i++) {
		struct host *h = &s->h[i];
		uint64_t every = (uint64_t)h->keep_ms * 1000000ull;

		if (h->st != H_READY || !h->keep_ms)
			continue;
		if (h->out_len && now - h->moved > 3 * every + grace)
			coord_host_dead(s, h, "its agent took nothing we sent for %.0f s", (now - h->moved) / 1e9);
		else if (!h->out_len && now - h->sent >= every && coord_queue(s, h, AG_DROP, NULL, 0))
			coord_host_dead(s, h, "%s", "cannot queue its keepalive (out of memory)");
	}
}
