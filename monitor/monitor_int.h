/* The monitor's private types: pinglists, probe windows, port samples, the
 * 1 s counter rules, K-of-N hysteresis and findings. Only monitor/ includes it. */
#ifndef RCK_MONITOR_INT_H
#define RCK_MONITOR_INT_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "rocecheck/counters.h"
#include "rocecheck/monitor.h"

struct ml_peer {
	char *name, *addr, *leaf;
	double rate_hz;
};

struct rck_pinglist {
	struct ml_peer *peers;
	unsigned int n, cap;
};

/* ---- probe windows (window.c) ---- */

/* RTTs kept per peer and window; beyond it probes still count. */
#define MW_RTT_CAP 512

struct mw_peer {
	uint32_t sent, lost, n_rtt;
	float rtt_us[MW_RTT_CAP];
};

struct mw_stats {
	uint32_t sent, lost, samples;
	double loss;            /* lost / sent, 0 when none sent */
	double p50_us, p99_us;  /* NAN without samples */
};

void mw_reset(struct mw_peer *w);
void mw_sent(struct mw_peer *w);
void mw_lost(struct mw_peer *w);
void mw_rtt(struct mw_peer *w, double rtt_us);
/* Quantiles by nearest rank over a sorted copy of the window's RTTs. */
void mw_stats(const struct mw_peer *w, struct mw_stats *out);

/* ---- findings and hysteresis (finding.c, hold.c) ---- */

#define MF_STR 64
#define MF_REASON 200

struct mf {
	char code[32];
	enum rck_severity sev;
	char device[MF_STR], peer[MF_STR];
	unsigned int port;
	bool immediate;      /* counts at once (a flap, a state change) */
	char reason[MF_REASON];
};

struct mf_list {
	struct mf *v;
	unsigned int n, cap;
};

struct mf *mf_add(struct mf_list *l, const char *code, enum rck_severity sev,
		  const char *device, unsigned int port, const char *peer, const char *fmt, ...)
	RCK_PRINTF(7, 8);
void mf_list_clear(struct mf_list *l);
void mf_list_free(struct mf_list *l);
/* "code|device|port|peer": what the hysteresis tracks. */
void mf_key(const struct mf *f, char *buf, size_t len);

/* One tracked key: present bits of the last windows (bit 0 the newest). */
struct mh_entry {
	char *key;
	uint32_t bits;
	unsigned int age;    /* windows since first seen (at most N) */
	bool counts;
	struct mf last;      /* the finding as last seen */
};

struct mh {
	unsigned int k, n;
	struct mh_entry *v;
	unsigned int cnt, cap;
};

void mh_init(struct mh *h, unsigned int k, unsigned int n);
void mh_free(struct mh *h);
/*
 * One window's findings: each key present is shifted in as 1, absent as 0.
 * A key counts once present in K of the last N windows (an immediate one at
 * once) and clears once absent in K of them; a key absent N windows is
 * forgotten. @changed (may be NULL) gets the entries whose counting
 * changed (their index into h->v after the call, up to @max). Returns the
 * number changed, or -ENOMEM.
 */
int mh_window(struct mh *h, const struct mf_list *now, unsigned int *changed, unsigned int max);

/* ---- port samples and counter rules (sample.c, rules.c) ---- */

/* What "RDMA state" means after a flap. hash 0 / value -1: unknown. */
struct ms_state {
	uint64_t gid_hash;     /* the whole GID table (index, gid, type lines) */
	int gid_index;         /* RoCE v2 IPv4-mapped GID's index, -1 none */
	int dscp_trust;        /* 1 dscp, 0 pcp, -1 unknown */
	int pfc_mask;          /* PFC enabled priorities, -1 unknown */
	uint64_t dscp_map_hash;/* DSCP -> priority map, 0 unknown */
};

enum ms_what { MS_GID_TABLE = 0, MS_GID_INDEX, MS_DSCP_TRUST, MS_PFC, MS_DSCP_MAP, MS_WHAT_COUNT };
extern const char *const ms_what_name[MS_WHAT_COUNT];

/* Extra raw counters the monitor reads beside the neutral ones. */
enum ms_extra { MS_CARRIER_CHANGES = 0, MS_SLOW_RESTART, MS_EXTRA_COUNT };

struct ms_sample {
	uint64_t t_ns;                   /* CLOCK_MONOTONIC */
	bool link_up;
	uint64_t ctr[RCK_CTR_COUNT];
	uint8_t has[RCK_CTR_COUNT];
	uint64_t extra[MS_EXTRA_COUNT];
	uint8_t has_extra[MS_EXTRA_COUNT];
	struct ms_state st;
};

/* Thresholds the rules use (from rck_thresholds: monitor_* keys and the sweep's). */
struct mr_th {
	double symbol_error_rate, link_error_recovery_rate, tx_discard_rate, slow_restart_rate;
	double pause_fraction;
	double ecn_min;
	double loss_fraction, loss_min;
	double rtt_factor;
};
void mr_th_from(struct mr_th *t, const struct rck_thresholds *th);

/* Per port running totals the rules keep (for the metrics too). */
struct mr_port {
	char device[MF_STR];
	unsigned int port;
	bool have_prev, have_base;
	struct ms_sample prev;
	struct ms_state base;            /* the state first seen with the link up */
	uint64_t flaps;                  /* link flaps seen since start */
	uint64_t err_total[RCK_CTR_COUNT + MS_EXTRA_COUNT];
	double pause_s[2][8];            /* [rx, tx][prio] */
	uint64_t ecn_total, cnp_total;
	bool changed[MS_WHAT_COUNT];
	bool flapped;                    /* a flap since the last state check */
	bool compared;                   /* state compared after a flap (the daemon says so) */
	double tx_frac, rx_frac;         /* last poll: share paused, worst priority */
	unsigned int tx_prio, rx_prio;
};

/*
 * One poll of a port: compare @cur with the port's previous sample, add
 * the findings to @out, update the running totals. Pure.
 */
void mr_poll(struct mr_port *p, const struct ms_sample *cur, const struct mr_th *th,
	     struct mf_list *out);

/* Storm attribution across ports (of one host or many): a port pausing
 * most of a window is the sender; ports paused by their peers most of the
 * same window are the receivers. One finding per sender naming them. */
struct mr_pause {
	const char *host, *device;
	unsigned int port;
	double tx_frac, rx_frac;   /* share of the window paused, worst priority */
	unsigned int prio;
};
void mr_storms(const struct mr_pause *v, unsigned int n, double frac, struct mf_list *out);

/* Probe windows of one NIC's peers: loss and latency findings; most peers
 * lossy names the NIC instead of every peer. */
struct mr_peerwin {
	const char *peer;
	struct mw_stats s;
};
void mr_probes(const char *device, unsigned int port, const struct mr_peerwin *v, unsigned int n,
	       const struct mr_th *th, struct mf_list *out);

/* ---- across hosts (collect.c) ---- */

#define MC_PAIRS_MAX 100000

/* One bad pair a monitor reported: @host probing @peer ("" for its own NIC). */
struct mc_pair {
	char host[MF_STR], peer[MF_STR], code[32];
	bool active;
};

struct mc_set {
	struct mc_pair *pairs;
	unsigned int n;
};

/* Add a monitor's event lines (its stdout or journal): findings replayed in
 * order, the pairs still active kept. 0, -EINVAL (@err names the line),
 * -E2BIG, -ENOMEM. */
int mc_add_events(struct mc_set *s, const char *text, size_t len, const char *name, char *err, size_t errlen);
int mc_load_events(struct mc_set *s, const char *path, char *err, size_t errlen);
void mc_set_free(struct mc_set *s);
/*
 * The hook the topology's localisation (analysis/localise*.c) plugs into:
 * given the bad pairs, add the findings naming what explains them.
 */
typedef int (*mc_localise_fn)(void *arg, const struct mc_set *s, struct mf_list *out);
/* Group the active pairs by what explains them: with @localise that, else
 * by host or NIC: a host whose own monitor names its NIC first, then the
 * endpoint in most remaining pairs (two or more), then single links. */
int mc_group(const struct mc_set *s, mc_localise_fn localise, void *arg, struct mf_list *out);

/* Read every port once (sample.c), with its DCB state when @dcb; the
 * inventory in *@cache is read again (and the GID table compared) when
 * @refresh or absent. @out, @names and @ports are allocated (n entries
 * each; the caller frees them). 0 or -errno. */
struct rck_inventory;
int ms_poll(struct rck_ctx *ctx, bool dcb, struct rck_inventory **cache, bool refresh,
	    struct ms_sample **out, char (**names)[MF_STR], unsigned int **ports, unsigned int *n);

/* ---- the daemon (config.c, daemon.c, probe.c, prom.c) ---- */

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

struct rck_monitor_config {
	char *host, *listen, *textfile, *npd;
	unsigned int port, window_s, hold_k, hold_n;
	struct rck_pinglist *pl;
	struct rck_thresholds *th;
	FILE *events;
	double duration;
	bool counters;
};

/* Probes in flight per peer, by sequence number modulo this. */
#define MD_SLOTS 64
/* Polls between inventory (GID table) reads when nothing flapped. */
#define MD_INV_POLLS 10
/* Sends are batched on this tick; expiry checked every tenth. */
#define MD_TICK_NS 10000000ull
/* A probe unanswered this long is lost. */
#define MD_PROBE_TIMEOUT_NS 1000000000ull

struct md_peer {
	char name[MF_STR], addr[64];
	struct sockaddr_storage sa;
	socklen_t salen;
	double rate_hz;
	uint64_t next_ns;
	uint32_t seq;
	struct { uint32_t seq; uint64_t t_ns; bool busy; } slot[MD_SLOTS];
	struct mw_peer win;
	struct mw_stats last;       /* the last closed window */
	uint64_t sent_total, lost_total;
};

/* The probe datagram: magic, type, peer's index at the sender, sequence, send time. */
#define MD_MAGIC 0x524b4d31u /* "RKM1" */
enum { MD_PING = 1, MD_PONG = 2 };
struct md_msg {
	uint32_t magic, type, id, seq;
	uint64_t t_ns;
} __attribute__((packed));
/* A datagram received: 0 and *m filled when it is one of ours, -EINVAL otherwise. */
int md_msg_parse(const void *buf, size_t len, struct md_msg *m);

struct rck_monitor {
	struct rck_ctx *ctx;
	struct rck_monitor_config cfg;
	struct mr_th th;
	int fd;
	unsigned int port;
	struct md_peer *peers;
	unsigned int n_peers;
	struct mr_port *ports;
	unsigned int n_ports;
	struct mf_list ctr_now, probe_now;
	struct mh hold_ctr, hold_probe;
	volatile sig_atomic_t stop;
	uint64_t windows, polls;
	bool want_dcb;                 /* read DCB state next poll (first, after a flap) */
	struct rck_inventory *inv;     /* read again after flaps and every MD_INV_POLLS polls */
	struct rck_exporter *exporter; /* /metrics (metrics_http.c), NULL unless asked */
	pthread_mutex_t snap_mu;       /* guards snap: the exporter's thread reads it */
	char *snap;
	size_t snap_len;
};

/* The last metrics rendered, for the HTTP exporter (metrics_http.c). */
void md_metrics_snapshot(struct rck_monitor *m);
void md_metrics_free(struct rck_monitor *m);

int md_addr(const char *s, unsigned int def_port, struct sockaddr_storage *sa, socklen_t *len);
uint64_t md_now(void);
void md_send(struct rck_monitor *m, unsigned int i, uint64_t now);
void md_expire(struct rck_monitor *m, uint64_t now);
void md_recv(struct rck_monitor *m);

/* Label escaping is the sweep textfile's (analysis/prom.c, declared in
 * analysis/sweep_int.h): one escaping for every rocecheck_* family. */
void sw_prom_label(FILE *f, const char *name, const char *v);
#define mp_label sw_prom_label
void mp_family(FILE *f, const char *name, const char *type, const char *help);
/* Events (JSON lines) and the NPD line (daemon_out.c). */
void md_event_finding(const struct rck_monitor *m, const struct mf *f, bool active);
void md_event_compared(const struct rck_monitor *m, const struct mr_port *p);
int md_write_files(const struct rck_monitor *m);

#endif
