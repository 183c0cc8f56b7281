/* Capturing the link partner's LLDP with libpcap (ether proto 0x88cc),
 * bounded by a deadline. */
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcb_internal.h"
#include "lldp.h"

struct cap {
	struct rck_lldp *l;
	int rc;          /* 0 got one; -EBADMSG only broken ones so far; -ETIMEDOUT none */
};

static void on_frame(u_char *arg, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct cap *c = (struct cap *)arg;
	struct rck_lldp tmp;

	if (c->rc == 0)
		return;
	if (lldp_decode(bytes, h->caplen, &tmp) == 0) {
		*c->l = tmp;
		c->rc = 0;
	} else {
		/* Keep the broken frame's warnings in case nothing better comes. */
		*c->l = tmp;
		c->rc = -EBADMSG;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_pcap(const struct rck_ctx *ctx, const char *ifname, pcap_t **out)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	pcap_t *p = pcap_create(ifname, errbuf);
	int rc;

	if (!p) {
		rck_dbg(ctx, "%s: pcap: %s", ifname, errbuf);
		return -ENODEV;
	}
	pcap_set_snaplen(p, 9216);
	/* The LLDP group address reaches us without promiscuous mode on most
	 * NICs; promiscuous covers the rest. */
	pcap_set_promisc(p, 1);
	pcap_set_immediate_mode(p, 1);
	rc = pcap_activate(p);
	if (rc < 0) {
		rck_dbg(ctx, "%s: pcap: %s", ifname, pcap_geterr(p));
		pcap_close(p);
		return rc == PCAP_ERROR_NO_SUCH_DEVICE ? -ENODEV :
		       rc == PCAP_ERROR_PERM_DENIED ? -EPERM : -EIO;
	}
	/* Only what arrives: an LLDP agent on this host (lldpad) sends its
	 * own frames on the same port. */
	if (pcap_setdirection(p, PCAP_D_IN))
		rck_dbg(ctx, "%s: pcap: no direction filter: %s", ifname, pcap_geterr(p));
	if (pcap_compile(p, &prog, "ether proto 0x88cc", 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(p, &prog) || pcap_setnonblock(p, 1, errbuf)) {
		rck_dbg(ctx, "%s: pcap filter: %s", ifname, pcap_geterr(p));
		pcap_close(p);
		return -EIO;
	}
	pcap_freecode(&prog);
	*out = p;
	return 0;
}

RCK_EXPORT int rck_lldp_capture(struct rck_ctx *ctx, const char *ifname, unsigned int timeout_ms,
				struct rck_lldp **out)
{
	struct cap c = { .rc = -ETIMEDOUT };
	int64_t deadline = now_ms() + timeout_ms;
	pcap_t *p = NULL;
	int rc, fd;

	*out = NULL;
	c.l = calloc(1, sizeof(*c.l));
	if (!c.l)
		return -ENOMEM;
	rc = open_pcap(ctx, ifname, &p);
	if (rc) {
		free(c.l);
		return rc;
	}
	fd = pcap_get_selectable_fd(p);
	while (c.rc != 0) {
		int64_t left = deadline - now_ms();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR) {
			c.rc = -errno;
			break;
		}
		if (pcap_dispatch(p, -1, on_frame, (u_char *)&c) < 0) {
			rck_dbg(ctx, "%s: pcap: %s", ifname, pcap_geterr(p));
			c.rc = -EIO;
			break;
		}
	}
	pcap_close(p);
	if (c.rc) {
		if (c.rc == -EBADMSG && c.l->n_warn)
			rck_warn(ctx, "%s: LLDP frame not decoded: %s", ifname, c.l->warn[0]);
		free(c.l);
		return c.rc;
	}
	*out = c.l;
	return 0;
}
