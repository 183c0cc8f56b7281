/* Probe timing: CLOCK_MONOTONIC nanoseconds and absolute deadlines built
 * from the context's per-step timeout. */
#ifndef RCK_PROBE_CLOCK_H
#define RCK_PROBE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pclock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t pclock_after_ms(unsigned int ms)
{
	return pclock_ns() + (uint64_t)ms * 1000000u;
}

/* Milliseconds left until @deadline for poll(), rounded up, 0 when past. */
static inline int pclock_left_ms(uint64_t deadline)
{
	uint64_t now = pclock_ns();
	uint64_t ms;

	if (now >= deadline)
		return 0;
	ms = (deadline - now + 999999u) / 1000000u;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

#endif
