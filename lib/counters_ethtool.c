/* A netdev's ethtool statistics (GSTRINGS/GSTATS ioctl), its pause statistics
 * (ethtool netlink), and the recorded `ethtool -S` files of fixture trees. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "counters.h"
#include "file.h"
#include "internal.h"
#include "nlsock.h"

/* The kernel sizes the GSTRINGS/GSTATS replies by the count it finds at the
 * time of the call, not by the length we pass; if the driver's set grows in
 * between (channels added), it writes more. Room for that many extra. */
#define ETHTOOL_SLACK 256

static int ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* Number of statistics: ETHTOOL_GSSET_INFO, or n_stats of GDRVINFO on
 * kernels and drivers older than that. 0 when the device has none. */
static int stats_count(int fd, const char *ifname, unsigned int *count)
{
	/* One set asked for: the reply has room for one count after the header. */
	struct ethtool_sset_info *sset = calloc(1, sizeof(*sset) + sizeof(uint32_t));
	struct ethtool_drvinfo drv;
	int rc;

	if (!sset)
		return -ENOMEM;
	sset->cmd = ETHTOOL_GSSET_INFO;
	sset->sset_mask = 1ULL << ETH_SS_STATS;
	rc = ethtool_ioctl(fd, ifname, sset);
	if (!rc)
		*count = sset->sset_mask & (1ULL << ETH_SS_STATS) ? sset->data[0] : 0;
	free(sset);
	if (!rc)
		return 0;
	if (rc != -EOPNOTSUPP && rc != -EINVAL)
		return rc;
	memset(&drv, 0, sizeof(drv));
	drv.cmd = ETHTOOL_GDRVINFO;
	rc = ethtool_ioctl(fd, ifname, &drv);
	if (rc == -EOPNOTSUPP) {
		*count = 0;
		return 0;
	}
	if (!rc)
		*count = drv.n_stats;
	return rc;
}

/* One GSTRINGS + GSTATS round; -EAGAIN when the set changed in between. */
static int read_once(int fd, const char *ifname, unsigned int n, struct ctr_port *p)
{
	size_t cap = (size_t)n + ETHTOOL_SLACK;
	struct ethtool_gstrings *names;
	struct ethtool_stats *stats;
	int rc;

	names = calloc(1, sizeof(*names) + cap * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + cap * sizeof(uint64_t));
	if (!names || !stats) {
		rc = -ENOMEM;
		goto out;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	rc = ethtool_ioctl(fd, ifname, names);
	if (!rc)
		rc = ethtool_ioctl(fd, ifname, stats);
	if (rc)
		goto out;
	if (names->len != stats->n_stats || names->len > cap) {
		rc = -EAGAIN;
		goto out;
	}
	for (uint32_t i = 0; i < names->len && !rc; i++) {
		const char *s = (const char *)names->data + (size_t)i * ETH_GSTRING_LEN;
		char key[sizeof("ethtool/") + ETH_GSTRING_LEN];
		size_t len = strnlen(s, ETH_GSTRING_LEN); /* a full-length name has no NUL */

		if (!len)
			continue;
		memcpy(key, "ethtool/", 8);
		memcpy(key + 8, s, len);
		key[8 + len] = '\0';
		rc = ctr_raw_add(p, key, RAW_OK, stats->data[i], NULL);
	}
out:
	free(names);
	free(stats);
	return rc;
}

int ctr_ethtool_read(const struct rck_ctx *ctx, const char *ifname, struct ctr_port *p)
{
	unsigned int n = 0;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		rck_warn(ctx, "%s: no socket for ethtool: %s", ifname, strerror(-rc));
		return rc;
	}
	rc = stats_count(fd, ifname, &n);
	for (int attempt = 0; !rc && n && attempt < 3; attempt++) {
		size_t before = p->n_raw;

		rc = read_once(fd, ifname, n, p);
		if (rc != -EAGAIN)
			break;
		/* Drop a half-read set before trying again with a new count. */
		while (p->n_raw > before) {
			p->n_raw--;
			free(p->raw[p->n_raw].key);
		}
		rc = stats_count(fd, ifname, &n);
	}
	close(fd);
	if (rc == -EAGAIN)
		rc = -EBUSY;
	if (rc && rc != -ENOMEM)
		rck_warn(ctx, "%s: ethtool statistics: %s", ifname, strerror(-rc));
	else if (!n)
		rck_dbg(ctx, "%s: no ethtool statistics", ifname);
	return rc;
}

int ctr_pause_parse(struct nl_msg *msg, struct ctr_port *p)
{
	static const struct {
		int attr;
		const char *key;
	} stat_keys[] = {
		{ ETHTOOL_A_PAUSE_STAT_TX_FRAMES, "pause/tx_pause_frames" },
		{ ETHTOOL_A_PAUSE_STAT_RX_FRAMES, "pause/rx_pause_frames" },
	};
	struct nlattr *tb[ETHTOOL_A_PAUSE_MAX + 1];
	struct nlattr *st[ETHTOOL_A_PAUSE_STAT_MAX + 1];
	int rc = 0;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, ETHTOOL_A_PAUSE_MAX, NULL) ||
	    !tb[ETHTOOL_A_PAUSE_STATS] ||
	    nla_parse_nested(st, ETHTOOL_A_PAUSE_STAT_MAX, tb[ETHTOOL_A_PAUSE_STATS], NULL))
		return 0;
	/* The kernel leaves out a statistic the driver did not fill in. */
	for (size_t i = 0; i < RCK_ARRAY_SIZE(stat_keys) && !rc; i++) {
		struct nlattr *a = st[stat_keys[i].attr];

		if (a && nla_len(a) >= (int)sizeof(uint64_t))
			rc = ctr_raw_add(p, stat_keys[i].key, RAW_OK, nla_get_u64(a), NULL);
	}
	return rc;
}

struct pause_reply {
	struct ctr_port *p;
	int err;
};

static int pause_cb(struct nl_msg *msg, void *arg)
{
	struct pause_reply *r = arg;

	if (!r->err)
		r->err = ctr_pause_parse(msg, r->p);
	return NL_OK;
}

int ctr_pause_read(const struct rck_ctx *ctx, const char *ifname, struct ctr_port *p)
{
	struct pause_reply reply = { .p = p };
	struct nl_msg *msg = NULL;
	struct nl_sock *sk;
	struct nlattr *hdr;
	int family, rc;

	rc = rck_nlsock_open(ctx, NETLINK_GENERIC, &sk);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		rck_dbg(ctx, "%s: no generic netlink socket: %s", ifname, strerror(-rc));
		return 0;
	}
	/* Kernels before 5.6 have no "ethtool" family: no pause statistics. */
	family = genl_ctrl_resolve(sk, "ethtool");
	if (family < 0) {
		rck_dbg(ctx, "%s: ethtool netlink: %s", ifname, nl_geterror(family));
		goto out;
	}
	msg = nlmsg_alloc();
	if (!msg) {
		reply.err = -ENOMEM;
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, ETHTOOL_MSG_PAUSE_GET,
			 ETHTOOL_GENL_VERSION) ||
	    !(hdr = nla_nest_start(msg, ETHTOOL_A_PAUSE_HEADER)) ||
	    nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) ||
	    nla_put_u32(msg, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS)) {
		reply.err = -ENOMEM;
		goto out;
	}
	nla_nest_end(msg, hdr);
	/* One reply or one error, nothing to acknowledge after it. */
	nl_socket_disable_auto_ack(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, pause_cb, &reply);
	rc = nl_send_auto(sk, msg);
	if (rc >= 0)
		rc = nl_recvmsgs_default(sk);
	/* EOPNOTSUPP: the driver has no pause settings (veth, virtio). */
	if (rc < 0)
		rck_dbg(ctx, "%s: pause statistics: %s", ifname, nl_geterror(rc));
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return reply.err;
}

/* Split an `ethtool -S` line "     name: value" at its last ": " (bnxt
 * names themselves hold one: "[0]: rx_ucast_packets"). */
static int split_line(char *line, char **name, char **value)
{
	char *sep = NULL;

	line[strcspn(line, "\r\n")] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	for (char *s = strstr(line, ": "); s; s = strstr(s + 1, ": "))
		sep = s;
	if (!sep || sep == line)
		return -EINVAL;
	*sep = '\0';
	*name = line;
	*value = sep + 2;
	return 0;
}

int ctr_sidecar_parse(const struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		      const char *source, struct ctr_port *p)
{
	const char *end = buf + len;
	char *line = NULL, *stat, *value;
	size_t cap = 0;
	int rc = 0;

	while (!rc && buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t n = nl ? (size_t)(nl - buf) : (size_t)(end - buf);
		char key[CTR_KEY_LEN];

		if (n + 1 > cap) {
			char *nb = realloc(line, n + 1);

			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			line = nb;
			cap = n + 1;
		}
		memcpy(line, buf, n);
		line[n] = '\0';
		buf += n + (nl != NULL);
		/* A NUL inside a line ends it: what follows is not text. */
		if (split_line(line, &stat, &value)) {
			if (*line && strcmp(line, "NIC statistics:"))
				rck_dbg(ctx, "%s: line without a value ignored", name);
			continue;
		}
		if ((size_t)snprintf(key, sizeof(key), "%s/%s", source, stat) >= sizeof(key)) {
			rck_warn(ctx, "%s: a name longer than %d bytes skipped", name, CTR_KEY_MAX);
			continue;
		}
		rc = ctr_raw_add_text(p, key, value);
		if (!rc && p->raw[p->n_raw - 1].state == RAW_TEXT)
			rck_warn(ctx, "%s: %s: not a number: '%s'", name, p->raw[p->n_raw - 1].key,
				 p->raw[p->n_raw - 1].text);
	}
	free(line);
	return rc;
}

int ctr_sidecar_read(const struct rck_ctx *ctx, const char *path, const char *source,
		     struct ctr_port *p)
{
	size_t len;
	char *buf;
	int rc;

	/* A recorded file: no final symlink, regular only, bounded. */
	rc = rck_file_read(path, true, CTR_SIDECAR_MAX, &buf, &len);
	if (rc)
		return rc;
	rc = ctr_sidecar_parse(ctx, path, buf, len, source, p);
	free(buf);
	return rc;
}
