/* Probe option defaults and range checks, one message per refusal that
 * names the option and its allowed range. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "opts.h"
#include "tcp.h"
#include "verbs.h"

#define MAX_SIZE (1u << 30)
#define MAX_DEPTH 8192
#define MAX_ITERS 1000000000000ull
#define MAX_WARMUP 1000000
#define MAX_DURATION_S 86400.0
#define MIN_MAX_SIZE 4096u
#define MAX_MAX_SIZE (1ull << 40)
#define MAX_HELLO_S 3600.0
#define DEFAULT_ITERS 1000
#define DEFAULT_WARMUP 16
#define DEFAULT_DEPTH 128
#define DEFAULT_WINDOW_S 0.1

RCK_EXPORT void rck_probe_opts_init(struct rck_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->test = RCK_PROBE_TEST_BW;
	o->transport = RCK_PROBE_TRANSPORT_RDMA;
	o->port = RCK_PROBE_DEFAULT_PORT;
	o->gid_index = -1;
	o->qps = 1;
	o->tx_depth = DEFAULT_DEPTH;
	o->warmup = DEFAULT_WARMUP;
	o->tclass = -1;
	o->window_s = DEFAULT_WINDOW_S;
	o->max_size = RCK_PROBE_DEFAULT_MAX_SIZE;
	o->max_qps = RCK_PROBE_DEFAULT_MAX_QPS;
	o->max_duration_s = RCK_PROBE_DEFAULT_MAX_DURATION_S;
	o->hello_s = RCK_PROBE_DEFAULT_HELLO_S;
}

static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int popts_copy(const struct rck_probe_opts *in, struct rck_probe_opts *out, char *err, size_t len)
{
	rck_probe_opts_init(out);
	if (!in)
		return 0;
	if (in->size < offsetof(struct rck_probe_opts, test) + sizeof(in->test))
		return bad(err, len, "options: size %zu is too small (initialise with rck_probe_opts_init())",
			   in->size);
	/* A newer caller's extra members are fine only while unused. */
	for (size_t i = sizeof(*out); i < in->size; i++)
		if (((const unsigned char *)in)[i])
			return bad(err, len, "options: members beyond this library's %zu bytes are set",
				   sizeof(*out));
	memcpy(out, in, in->size < sizeof(*out) ? in->size : sizeof(*out));
	out->size = sizeof(*out);
	return 0;
}

int popts_check_server(const struct rck_probe_opts *o, struct plimits *lim, char *err, size_t len)
{
	if (o->port > 65535)
		return bad(err, len, "port %u out of range (0 to 65535)", o->port);
	if (o->gid_index < -1 || o->gid_index > 255)
		return bad(err, len, "GID index %d out of range (0 to 255)", o->gid_index);
	if (o->ib_port > 255)
		return bad(err, len, "device port %u out of range (1 to 255)", o->ib_port);
	if (o->max_size < MIN_MAX_SIZE || o->max_size > MAX_MAX_SIZE)
		return bad(err, len, "max size %llu out of range (%u to %llu bytes)",
			   (unsigned long long)o->max_size, MIN_MAX_SIZE, MAX_MAX_SIZE);
	if (o->max_qps < 1 || o->max_qps > XQ_MAX_QPS)
		return bad(err, len, "max QPs %u out of range (1 to %u)", o->max_qps, XQ_MAX_QPS);
	if (!isfinite(o->max_duration_s) || o->max_duration_s < 0.001 || o->max_duration_s > MAX_DURATION_S)
		return bad(err, len, "max duration %g s out of range (0.001 to %.0f)", o->max_duration_s,
			   MAX_DURATION_S);
	if (!isfinite(o->hello_s) || o->hello_s < 0.001 || o->hello_s > MAX_HELLO_S)
		return bad(err, len, "HELLO timeout %g s out of range (0.001 to %.0f)", o->hello_s, MAX_HELLO_S);
	lim->max_size = o->max_size;
	lim->max_qps = o->max_qps;
	lim->max_duration_ms = (uint32_t)llround(o->max_duration_s * 1000);
	lim->hello_ms = (unsigned int)llround(o->hello_s * 1000);
	return 0;
}

/* What a session above the server's caps would have made it allocate. */
static int check_limits(const struct xq_params *p, const struct plimits *lim, char *err, size_t len)
{
	uint64_t bytes = p->transport == RCK_PROBE_TRANSPORT_TCP ? ptcp_buffer_bytes(p, true)
								 : vep_buffer_bytes(p);

	if (p->qps > lim->max_qps)
		return bad(err, len, "%u QPs asked, this server allows at most %u (--max-qps)", p->qps,
			   lim->max_qps);
	if (p->duration_ms > lim->max_duration_ms)
		return bad(err, len, "a %.3f s run asked, this server allows at most %.3f s (--max-duration)",
			   p->duration_ms / 1e3, lim->max_duration_ms / 1e3);
	if (bytes > lim->max_size)
		return bad(err, len,
			   "%u-byte messages on %u QPs need %llu bytes of buffers, this server allows at most %llu (--max-size)",
			   p->size, p->qps, (unsigned long long)bytes, (unsigned long long)lim->max_size);
	return 0;
}

int pparams_check(const struct xq_params *p, const struct plimits *lim, char *err, size_t len)
{
	bool cm = p->flags & XQ_F_CM;

	if (p->test > RCK_PROBE_TEST_SEND_LAT)
		return bad(err, len, "unknown test %u", p->test);
	if (p->transport > RCK_PROBE_TRANSPORT_TCP)
		return bad(err, len, "unknown transport %u", p->transport);
	if (p->flags & ~(XQ_F_BIDIR | XQ_F_CM))
		return bad(err, len, "unknown flags 0x%x", p->flags);
	if (p->size < 1 || p->size > MAX_SIZE)
		return bad(err, len, "message size %u out of range (1 to %u bytes)", p->size, MAX_SIZE);
	if (p->qps < 1 || p->qps > XQ_MAX_QPS)
		return bad(err, len, "QP count %u out of range (1 to %u)", p->qps, XQ_MAX_QPS);
	if (p->tx_depth < 1 || p->tx_depth > MAX_DEPTH)
		return bad(err, len, "tx depth %u out of range (1 to %u)", p->tx_depth, MAX_DEPTH);
	if (!p->iters == !p->duration_ms)
		return bad(err, len, "give either a message count or a duration");
	if (p->iters > MAX_ITERS)
		return bad(err, len, "message count %llu out of range (at most %llu)",
			   (unsigned long long)p->iters, MAX_ITERS);
	if (p->duration_ms > MAX_DURATION_S * 1000)
		return bad(err, len, "duration %u ms out of range (at most %.0f s)", p->duration_ms,
			   MAX_DURATION_S);
	if (p->warmup > MAX_WARMUP)
		return bad(err, len, "warm-up %u out of range (at most %u)", p->warmup, MAX_WARMUP);
	if (p->window_us < 1000 || p->window_us > 3600000000u)
		return bad(err, len, "window %u us out of range (1 ms to 1 h)", p->window_us);
	if (p->tclass < -1 || p->tclass > 255)
		return bad(err, len, "traffic class %d out of range (0 to 255)", p->tclass);
	if (p->sl > 15)
		return bad(err, len, "service level %u out of range (0 to 15)", p->sl);
	if (p->mtu && p->mtu != 256 && p->mtu != 512 && p->mtu != 1024 && p->mtu != 2048 && p->mtu != 4096)
		return bad(err, len, "MTU %u is not one of 256, 512, 1024, 2048, 4096", p->mtu);
	if (p->flow_label && p->udp_sport)
		return bad(err, len, "give a flow label or a UDP source port, not both");
	if (p->flow_label > 0xfffff || p->flow_label + p->qps - 1 > 0xfffff)
		return bad(err, len, "flow label %u (+ %u QPs) out of range (20 bits)", p->flow_label, p->qps);
	if (p->udp_sport && (p->udp_sport < 49152 || p->udp_sport + p->qps - 1 > 65535))
		return bad(err, len, "UDP source port %u (+ %u QPs) out of range (49152 to 65535)",
			   p->udp_sport, p->qps);
	if ((p->flags & XQ_F_BIDIR) && p->test != RCK_PROBE_TEST_BW)
		return bad(err, len, "bidirectional is for the bandwidth test only");
	if (p->transport == RCK_PROBE_TRANSPORT_TCP &&
	    (cm || p->sl || p->mtu || p->flow_label || p->udp_sport))
		return bad(err, len, "the tcp transport takes no --cm, service level, MTU, flow label or UDP port");
	if (cm && (p->mtu || p->flow_label || p->udp_sport))
		return bad(err, len, "with --cm, rdma_cm sets the MTU and the flow label / UDP source port");
	return lim ? check_limits(p, lim, err, len) : 0;
}

RCK_EXPORT int rck_probe_opts_validate(const struct rck_probe_opts *opts, enum rck_probe_role role,
				       char *err, size_t errlen)
{
	struct rck_probe_opts o;
	struct xq_params p;
	struct plimits lim;
	char why[256];
	int rc;

	rc = popts_copy(opts, &o, why, sizeof(why));
	if (!rc && role == RCK_PROBE_ROLE_SERVER)
		rc = popts_check_server(&o, &lim, why, sizeof(why));
	else if (!rc && role == RCK_PROBE_ROLE_CLIENT)
		rc = popts_to_params(&o, &p, why, sizeof(why));
	else if (!rc)
		rc = bad(why, sizeof(why), "unknown role %d", (int)role);
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", why);
	return rc;
}

int popts_to_params(const struct rck_probe_opts *o, struct xq_params *p, char *err, size_t len)
{
	bool lat = o->test != RCK_PROBE_TEST_BW;

	memset(p, 0, sizeof(*p));
	if ((unsigned int)o->test > RCK_PROBE_TEST_SEND_LAT)
		return bad(err, len, "unknown test %d", (int)o->test);
	if ((unsigned int)o->transport > RCK_PROBE_TRANSPORT_TCP)
		return bad(err, len, "unknown transport %d", (int)o->transport);
	if (o->port < 1 || o->port > 65535)
		return bad(err, len, "port %u out of range (1 to 65535)", o->port);
	/* Checked before the narrowing into the wire parameters. */
	if (o->qps > XQ_MAX_QPS)
		return bad(err, len, "QP count %u out of range (1 to %u)", o->qps, XQ_MAX_QPS);
	if (o->tx_depth > MAX_DEPTH)
		return bad(err, len, "tx depth %u out of range (1 to %u)", o->tx_depth, MAX_DEPTH);
	if (o->sl > 15)
		return bad(err, len, "service level %u out of range (0 to 15)", o->sl);
	if (o->mtu > 4096)
		return bad(err, len, "MTU %u is not one of 256, 512, 1024, 2048, 4096", o->mtu);
	if (!isfinite(o->duration_s) || o->duration_s < 0 || o->duration_s > MAX_DURATION_S)
		return bad(err, len, "duration %g s out of range (0 to %.0f)", o->duration_s, MAX_DURATION_S);
	if (o->duration_s && o->iters)
		return bad(err, len, "give either a message count or a duration, not both");
	if (!isfinite(o->window_s) || o->window_s < 0 || o->window_s > 3600)
		return bad(err, len, "window %g s out of range (1 ms to 1 h)", o->window_s);
	if (o->gid_index < -1 || o->gid_index > 255)
		return bad(err, len, "GID index %d out of range (0 to 255)", o->gid_index);
	if (o->ib_port > 255)
		return bad(err, len, "device port %u out of range (1 to 255)", o->ib_port);
	if (o->cm && o->gid_index >= 0)
		return bad(err, len, "with --cm, rdma_cm picks the GID from the address");
	if (o->transport == RCK_PROBE_TRANSPORT_TCP && (o->gid_index >= 0 || o->device || o->ib_port))
		return bad(err, len, "the tcp transport takes no device or GID");
	if (o->warmup > MAX_WARMUP)
		return bad(err, len, "warm-up %u out of range (at most %u)", o->warmup, MAX_WARMUP);
	p->test = (uint8_t)o->test;
	p->transport = (uint8_t)o->transport;
	p->flags = (o->bidirectional ? XQ_F_BIDIR : 0) | (o->cm ? XQ_F_CM : 0);
	p->sl = (uint8_t)o->sl;
	p->size = o->msg_size ? o->msg_size : lat ? 2 : 65536;
	p->qps = (uint16_t)o->qps;
	p->tx_depth = (uint16_t)o->tx_depth;
	p->duration_ms = (uint32_t)llround(o->duration_s * 1000);
	if (o->duration_s && !p->duration_ms)
		p->duration_ms = 1;
	p->iters = o->iters ? o->iters : p->duration_ms ? 0 : DEFAULT_ITERS;
	p->warmup = o->warmup;
	p->window_us = (uint32_t)llround((o->window_s ? o->window_s : DEFAULT_WINDOW_S) * 1e6);
	/* Out of band, we set the traffic class ourselves; with rdma_cm an
	 * unset one leaves the port's configfs default_roce_tos in force. */
	p->tclass = (int16_t)(o->tclass >= 0 ? o->tclass
			      : o->cm || o->transport == RCK_PROBE_TRANSPORT_TCP ? -1 : RCK_PROBE_DEFAULT_TCLASS);
	if (o->tclass < -1 || o->tclass > 255)
		return bad(err, len, "traffic class %d out of range (0 to 255)", o->tclass);
	p->mtu = (uint16_t)o->mtu;
	p->flow_label = o->flow_label;
	p->udp_sport = o->udp_sport;
	return pparams_check(p, NULL, err, len);
}
