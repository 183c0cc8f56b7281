/* Probe options: the defaults, and the checks that both the client (on
 * its options) and the server (on the parameters a client sent) apply. */
#ifndef RCK_PROBE_OPTS_H
#define RCK_PROBE_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "exchange.h"
#include "rocecheck/probe.h"

/* Copy the caller's options (of any known size) over the defaults.
 * Returns 0, or -EINVAL with @err saying what is wrong. */
int popts_copy(const struct rck_probe_opts *in, struct rck_probe_opts *out, char *err, size_t len);
/* Resolve defaults and check the client's options into wire parameters. */
int popts_to_params(const struct rck_probe_opts *o, struct xq_params *p, char *err, size_t len);
/* What a server allows one session, from its options. */
struct plimits {
	uint64_t max_size;              /* bytes of message buffers */
	unsigned int max_qps;
	uint32_t max_duration_ms;
	unsigned int hello_ms;          /* for a new connection's first message */
};

/* Check a server's options and derive its limits: 0 or -EINVAL with @err. */
int popts_check_server(const struct rck_probe_opts *o, struct plimits *lim, char *err, size_t len);
/* Check parameters (as received): 0 or -EINVAL with @err. With @lim (a
 * server), also against its caps, before anything is allocated for them. */
int pparams_check(const struct xq_params *p, const struct plimits *lim, char *err, size_t len);

#endif
