/* The monitor's private types: pinglists, probe windows, port samples, the
 * 1 s counter rules, K-of-N hysteresis and findings. Only monitor/ includes it. */
#ifndef RCK_MONITOR_INT_H
#define RCK_MONITOR_INT_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "pfc_tap.h"
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
	bool pause_tapped;               /* pause counters from a tap (pfc_tap.h), not the NIC */
	char netdev[IF_NAMESIZE];        /* "" none */
	double rate_gbps;                /* the RDMA port's rate, 0 unknown */
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
	uint64_t probe_timeout_ns; /* a probe unanswered this long is lost */
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
	/* Downs counted from one source (carrier changes or the state, or the
	 * port's link_downed) that the other has not shown yet: rxe and mlx5
	 * raise link_downed apart from the carrier, a poll or more later, and
	 * one bounce must count once. Forgotten after MR_DOWN_CREDIT_NS. */
	uint64_t credit_carrier, credit_downed, credit_t_ns;
	bool compared;                   /* state compared after a flap (the daemon says so) */
	double tx_frac, rx_frac;         /* last poll: share paused, worst priority */
	unsigned int tx_prio, rx_prio;
	bool pause_tapped;               /* those from the frames the stack saw */
	bool pause_said;                 /* pause_source event given for pause_src */
	int pause_src;                   /* ms_taps_fill()'s answer */
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
	bool tapped;               /* counted off the wire: the NIC keeps no pause counters */
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

/* A port in a PFC storm as one host's monitor reported it: sending the
 * pauses (pause_storm degraded) or paused by its peer (warning). */
struct mc_storm {
	char host[MF_STR], device[MF_STR];
	unsigned int port;
	bool sender, active;
};

struct mc_set {
	struct mc_pair *pairs;
	unsigned int n;
	struct mc_storm *storms;
	unsigned int n_storms;
};

/* collect_storm.c: a pause_storm finding event replayed into @s; then one
 * finding per sending port naming the ports paused on the other hosts, and
 * one for paused ports whose sender no monitor watches. */
int mc_add_storm(struct mc_set *s, const char *host, const char *device, unsigned int port, bool sender,
		 bool active);
int mc_group_storms(const struct mc_set *s, struct mf_list *out);

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

/* The counters a poll reads (sample.c): those rules.c and prom.c use. */
struct ctr_want;
extern const struct ctr_want ms_want;
/* Read every port once (sample.c), with its DCB state when @dcb; the
 * inventory in *@cache is read again (and the GID table compared) when
 * @refresh or absent, and the counter and state files kept open in *@files
 * (sysfs_cache.h) are dropped then and opened again. @out, @names and
 * @ports are allocated (n entries each; the caller frees them). 0 or -errno. */
struct rck_inventory;
struct sysfs_cache;
int ms_poll(struct rck_ctx *ctx, bool dcb, struct rck_inventory **cache, struct sysfs_cache **files,
	    bool refresh, struct ms_sample **out, char (**names)[MF_STR], unsigned int **ports,
	    unsigned int *n);

/* Taps on the netdevs of ports whose NIC counts no pause time (sample.c). */
#define MS_TAPS 16
struct ms_taps {
	struct mt_tap v[MS_TAPS];
	int err[MS_TAPS];     /* mt_open()'s answer; a failed tap is tried again on @retry */
	unsigned int n;
};
/* Fills @s's PFC frames and pause time from a tap on @s->netdev when the NIC
 * gave no PFC counter at all, opening the tap on first need. 0: the NIC has
 * PFC counters (no tap); 1: filled from the tap; else -errno and the port
 * stays without pause counters (-EPERM without CAP_NET_RAW, -EINVAL with no
 * rate, -ENODEV with no netdev, -ENOSPC past MS_TAPS netdevs). */
int ms_taps_fill(struct ms_taps *t, struct ms_sample *s, bool retry);
bool ms_has_pfc_counters(const struct ms_sample *s);
/* Reads what the taps queued (a storm is thousands of frames a second). */
void ms_taps_drain(struct ms_taps *t);
void ms_taps_close(struct ms_taps *t);

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
	enum rck_monitor_transport transport;
};

/* Probes in flight per peer, by sequence number modulo this: 2.56 s of
 * probes at the pinglist's highest rate (100/s). */
#define MD_SLOTS 256
/* Polls between inventory (GID table) reads when nothing flapped. */
#define MD_INV_POLLS 10
/* Sends are batched on a tick, and the UDP socket read on it (the kernel's
 * receive stamps and the responder's dwell keep the time a datagram waited
 * out of the RTT): half the shortest probe period, from MD_TICK_NS (a peer
 * at 100/s) to MD_TICK_MAX_NS (the defaults, 10/s: 20 wakeups a second). */
#define MD_TICK_NS 10000000ull
#define MD_TICK_MAX_NS 50000000ull
/* In flight probes are checked for their timeout this often. */
#define MD_EXPIRE_NS 100000000ull
/* A ping without MD_ID_DWELL (a prober before dwell) seen this recently: the
 * socket is read as datagrams come, not on the tick, so its RTT holds no wait. */
#define MD_LEGACY_NS 10000000000ull
/* UDP probes queued per tick and answers per read, sent with one sendmmsg */
#define MD_BATCH 64
/* A full send buffer (EAGAIN, ENOBUFS) is waited out this long once per batch:
 * a NIC frees it as sends complete, in microseconds; still full after that
 * a datagram refused is lost, as on a NIC that cannot send. */
#define MD_TX_WAIT_MS 2
/* The loop never means to sleep over 100 ms: a longer gap is this process
 * not scheduled (a loaded host, SIGSTOP, a VM paused). Probes in flight then
 * get a whole timeout from the resumption, so the monitor's own stall is
 * not counted as the path's loss. */
#define MD_STALL_NS 250000000ull
/* The UDP socket's receive buffer asked for (bytes). */
#define MD_RCVBUF (1 << 20)

struct md_peer {
	char name[MF_STR], addr[64];
	struct sockaddr_storage sa;
	socklen_t salen;
	double rate_hz;
	uint64_t next_ns;
	uint32_t seq, tail;         /* next to send; oldest that may be in flight (md_expire) */
	struct {
		uint32_t seq;
		uint64_t t_ns;            /* stamped in the probe: its identity, and the timeout's start */
		uint64_t sent_ns;         /* when it left: a batch's sendmmsg spread over its datagrams */
		bool busy;
		bool has_tx, pend_rx;     /* NIC times: the send's completion seen, the pong's waiting for it */
		uint64_t nic_tx, nic_rx;
	} slot[MD_SLOTS];
	/* the path (path.c): UD endpoint and source GID when the host has an RDMA
	 * device for the peer's address; rdma once the peer's QPN is learned */
	int ep;                     /* index in rck_monitor.ud, -1: UDP only */
	int sgid_index;
	bool rdma, refused;         /* probing over UD; the peer said it has no UD endpoint */
	uint32_t qpn, qkey;
	uint8_t gid[16];
	uint64_t hello_ns;          /* next hello while the peer's QPN is unknown */
	char why[160];              /* why this path, for the probe_path event */
	struct mw_peer win;
	struct mw_stats last;       /* the last closed window */
	uint64_t sent_total, lost_total;
};

/* The probe datagram: magic, type, peer's index at the sender, sequence,
 * send time (MD_MSG_LEN bytes). A UDP ping whose id carries MD_ID_DWELL
 * asks for the responder's dwell: its pong is MD_PONG_DWELL_LEN bytes, the
 * time from the ping's arrival (the kernel's receive stamp) to the pong's
 * send, so that the responder may answer on its tick and the prober take
 * it out of the RTT. A ping without it (a prober before dwell) gets the
 * short pong, answered as it comes. */
#define MD_MAGIC 0x524b4d31u /* "RKM1" */
enum { MD_PING = 1, MD_PONG = 2 };
#define MD_ID_DWELL 0x80000000u
#define MD_MSG_LEN 24
#define MD_PONG_DWELL_LEN 32
struct md_msg {
	uint32_t magic, type, id, seq;
	uint64_t t_ns;
	uint32_t dwell_ns, rsvd; /* a long pong only; 0 otherwise */
} __attribute__((packed));
/* A datagram received: 0 and *m filled when it is one of ours, -EINVAL
 * otherwise (a long one that is not a pong included). */
int md_msg_parse(const void *buf, size_t len, struct md_msg *m);

/*
 * The hello (path.c), over the UDP responder: a prober asks which UD QP
 * serves the address it probes (@addr, IPv4-mapped for IPv4); the answer
 * echoes @id and @addr with the responder's QPN, QKey and GID, QPN 0 when
 * no RDMA device of the responder holds that address.
 */
enum { MD_HELLO = 3, MD_HELLO_ACK = 4 };
struct md_hello {
	uint32_t type, id, qpn, qkey;
	uint8_t addr[16], gid[16];
};
#define MD_HELLO_LEN 56
/* Encode @h in @buf (MD_HELLO_LEN bytes). */
void md_hello_put(const struct md_hello *h, uint8_t buf[MD_HELLO_LEN]);
/* 0 and *h filled when @buf is a hello or its answer, -EINVAL otherwise. */
int md_hello_parse(const void *buf, size_t len, struct md_hello *h);

/* ---- the RDMA UD prober (ud.c) ---- */

/* Receives posted and sends in flight per UD QP; message buffer bytes. */
#define MU_RX 256
#define MU_TX 256
#define MU_MSG 64
#define MU_GRH 40
#define MU_QKEY 0x11524b4du
#define MU_AH_MAX 8192
/* Endpoints whose completion channel the run loop polls (more are polled each tick). */
#define MD_UD_POLL 16

struct ibv_context;
struct ibv_pd;
struct ibv_comp_channel;
struct ibv_cq;
struct ibv_cq_ex;
struct ibv_qp;
struct ibv_mr;
struct ibv_ah;

struct mu_ah {
	uint8_t gid[16];
	int sgid_index;
	struct ibv_ah *ah;
};

/* One UD QP on one port of a local RDMA device, serving all its peers. */
struct md_ud {
	char device[MF_STR];
	unsigned int port;
	struct ibv_context *vctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;          /* the same CQ, extended, when it carries NIC times */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;               /* MU_TX send slots, then MU_RX receive slots (GRH + message) */
	unsigned int tx_next, tx_busy;
	bool nic_ts;                /* completions carry the NIC's timestamp */
	uint64_t ts_mask, clock_khz;
	struct mu_ah *ah;
	unsigned int n_ah, ah_evict;
};

/* Open @device's @port: PD, completion channel, CQ (with completion
 * timestamps when the device has them), a UD QP in RTS, receives posted.
 * 0 or -errno, @why (of @len bytes) naming the verbs call that failed. */
int mu_open(struct md_ud *u, const char *device, unsigned int port, char *why, size_t len);
void mu_close(struct md_ud *u);
uint32_t mu_qpn(const struct md_ud *u);
int mu_fd(const struct md_ud *u);
/* Send @msg (24 bytes, on the wire's byte order) to @qpn/@qkey at @gid from
 * source GID @sgid_index. 0, -EAGAIN (send queue full) or -errno. */
int mu_send(struct md_ud *u, const uint8_t gid[16], int sgid_index, uint32_t qpn, uint32_t qkey,
	    const void *msg, uint64_t wr_id);
/* NIC clock ticks to microseconds. */
double mu_ticks_us(const struct md_ud *u, uint64_t t0, uint64_t t1);
struct rck_monitor;
/* Acknowledge the channel's events and drain the CQ of endpoint @e: pings
 * answered, pongs matched, the sends' NIC times kept. Never blocks. */
void mu_poll(struct rck_monitor *m, unsigned int e);

struct rck_monitor {
	struct rck_ctx *ctx;
	struct rck_monitor_config cfg;
	struct mr_th th;
	int fd;
	unsigned int port;
	struct md_peer *peers;
	unsigned int n_peers;
	struct md_ud *ud;              /* one per local RDMA port with a RoCE v2 IPv4 GID (path.c) */
	unsigned int n_ud;
	struct md_msg tx_msg[MD_BATCH]; /* UDP probes of this tick not sent yet (md_flush) */
	struct iovec tx_iov[MD_BATCH];
	struct mmsghdr tx_hdr[MD_BATCH];
	unsigned int tx_peer[MD_BATCH];
	unsigned int n_tx;
	uint64_t loop_ns, resume_ns;   /* the loop's last pass; when it last came back from a stall */
	uint64_t legacy_ns;            /* when a ping without MD_ID_DWELL last came (0: never) */
	uint64_t dwell_pongs, legacy_pongs; /* pongs sent with the dwell, and without */
	uint64_t tick_ns;              /* the run loop's tick (MD_TICK_NS to MD_TICK_MAX_NS) */
	uint64_t tx_dgram_ns;          /* a datagram's share of a sendmmsg (running mean): where a
					* pong sits in its batch, for its dwell */
	uint64_t stalls, stall_max_ns; /* stalls seen (md_loop_seen) and the longest */
	uint64_t start_ns;
	struct mr_port *ports;
	unsigned int n_ports;
	struct mf_list ctr_now, probe_now;
	struct mh hold_ctr, hold_probe;
	volatile sig_atomic_t stop;
	uint64_t windows, polls;
	bool want_dcb;                 /* read DCB state next poll (first, after a flap) */
	struct rck_inventory *inv;     /* read again after flaps and every MD_INV_POLLS polls */
	struct sysfs_cache *files;     /* counter files kept open between those reads */
	struct ms_taps taps;           /* pause time where the NIC keeps none */
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
/* Probes in flight unanswered for the timeout counted lost; after a stall of
 * this process (md_loop_seen) the timeout runs from its end. */
void md_expire(struct rck_monitor *m, uint64_t now);
/* The run loop's pass at @now: a gap over MD_STALL_NS since the last is a
 * stall of this process, remembered for md_expire. */
void md_loop_seen(struct rck_monitor *m, uint64_t now);
/* Drain the UDP socket: answer pings, match pongs at their kernel receive
 * time. Never blocks. */
void md_recv(struct rck_monitor *m);
/* Whether the UDP socket is to be read as datagrams come (a prober before
 * dwell answered lately) rather than on the tick. */
bool md_recv_eager(const struct rck_monitor *m, uint64_t now);
/* Send the UDP probes md_send() queued (one sendmmsg for up to MD_BATCH),
 * stamped with the time they go out. */
void md_flush(struct rck_monitor *m);
/* A pong for probe @msg came back over UDP or UD (@rdma) at @now; @nic_rx
 * the NIC's receive time (ticks) when the endpoint has them, else NULL. */
void md_match(struct rck_monitor *m, const struct md_msg *msg, bool rdma, uint64_t now,
	      const uint64_t *nic_rx);
/* A ping's send completed on its endpoint at NIC time @ts. */
void md_sent_at(struct rck_monitor *m, uint32_t peer, uint32_t seq, uint64_t ts);

/* Paths (path.c). Which transport serves a peer: MD_PATH_RDMA when @mode
 * allows it and @inv has a RoCE v2 GID equal to @src (the route's source
 * to the peer; NULL unknown), @g then naming it; MD_PATH_UDP otherwise,
 * @why saying why; -ENODEV when @mode is RDMA and no device serves it. */
enum { MD_PATH_UDP = 0, MD_PATH_RDMA = 1 };
struct gsel;
int md_select(const struct rck_inventory *inv, enum rck_monitor_transport mode,
	      const struct sockaddr_storage *src, struct gsel *g, char *why, size_t len);
/* Open the endpoints and choose every peer's path. 0 or -errno. */
int md_paths_open(struct rck_monitor *m);
void md_paths_close(struct rck_monitor *m);
/* Hellos to the peers whose QPN is unknown; forced RDMA's unreachable peers counted lost. */
void md_paths_tick(struct rck_monitor *m, uint64_t now);
/* True when @p's probe cannot go out now (forced RDMA, QPN unknown): then
 * counted lost past a grace after the start. */
bool md_path_blocked(struct rck_monitor *m, struct md_peer *p, uint64_t now);
/* A hello or its answer received over UDP from @from. */
void md_hello_recv(struct rck_monitor *m, const struct md_hello *h, const struct sockaddr_storage *from,
		   socklen_t flen);
/* "udp" or the endpoint's device, and its port, for windows and metrics. */
const char *md_peer_device(const struct rck_monitor *m, const struct md_peer *p, unsigned int *port);
const char *md_peer_timestamps(const struct rck_monitor *m, const struct md_peer *p);

/* Label escaping is the sweep textfile's (analysis/prom.c, declared in
 * analysis/sweep_int.h): one escaping for every rocecheck_* family. */
void sw_prom_label(FILE *f, const char *name, const char *v);
#define mp_label sw_prom_label
void mp_family(FILE *f, const char *name, const char *type, const char *help);
/* Events (JSON lines) and the NPD line (daemon_out.c). */
void md_event_finding(const struct rck_monitor *m, const struct mf *f, bool active);
void md_event_compared(const struct rck_monitor *m, const struct mr_port *p);
void md_event_path(const struct rck_monitor *m, const struct md_peer *p);
/* Where a port's pause time comes from (ms_taps_fill()'s answer @src): at
 * the first poll and when it changes. */
void md_event_pause_source(const struct rck_monitor *m, const struct mr_port *p, const char *netdev, int src);
int md_write_files(const struct rck_monitor *m);

#endif
