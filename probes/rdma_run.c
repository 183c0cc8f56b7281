/* Verbs measurement loops: busy-polled CQs and buffers, each wait bounded
 * by the endpoint's timeout measured from the last sign of progress. */
#include <errno.h>
#include <string.h>

#include "clock.h"
#include "rdma_run.h"

#define CHAIN 16
#define POLL_BATCH 32
#define IDLE_POLLS 64
#define SPIN_CHECK 1023
#define SPIN_NS 50000ull
#define TICK_WAKE_NS 500000000ull
#define CTL_CHECK_NS 2000000ull

struct bw_run {
	uint64_t bytes, msgs, start, end;
	struct pwin win;
};

static uint64_t timeout_ns(const struct vep *ep)
{
	return (uint64_t)ep->timeout_ms * 1000000u;
}

/* Post as many writes on QP @qi as its depth and target allow, chained in
 * lists of CHAIN to save doorbells; every sig_every-th (and the last) is
 * signalled, its wr_id carrying the QP and how many writes it stands for. */
static int post_more(struct vep *ep, unsigned int qi, struct perr *e)
{
	struct vqp *q = &ep->qp[qi];
	struct ibv_send_wr wr[CHAIN], *bad;
	struct ibv_sge sge[CHAIN];
	unsigned int slot = qi % ep->slots;
	uint64_t rslots = ep->rlen / ep->size;
	uint64_t raddr = ep->raddr + (rslots > 1 ? (qi % rslots) * ep->size : 0);
	unsigned int m = 0;
	int rc;

	while (m < CHAIN && q->posted < q->target && q->outstanding < ep->tx_depth) {
		bool sig = q->unsig + 1 >= ep->sig_every || q->posted + 1 == q->target;

		sge[m] = (struct ibv_sge){
			.addr = (uintptr_t)(ep->buf + (size_t)slot * ep->size),
			.length = ep->size,
			.lkey = ep->mr->lkey,
		};
		wr[m] = (struct ibv_send_wr){
			.wr_id = sig ? (uint64_t)qi << 32 | (q->unsig + 1) : 0,
			.sg_list = &sge[m],
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = (sig ? IBV_SEND_SIGNALED : 0) |
				      (ep->size <= ep->max_inline ? IBV_SEND_INLINE : 0),
		};
		wr[m].wr.rdma.remote_addr = raddr;
		wr[m].wr.rdma.rkey = ep->rkey;
		if (m)
			wr[m - 1].next = &wr[m];
		q->unsig = sig ? 0 : q->unsig + 1;
		q->posted++;
		q->outstanding++;
		m++;
	}
	if (!m)
		return 0;
	rc = ibv_post_send(q->qp, wr, &bad);
	if (rc)
		return perr_set(e, RCK_PROBE_RDMA, -rc, "ibv_post_send on QP %u of %s failed: %s", qi,
				ep->device, strerror(rc));
	return 0;
}

/* Account one batch of send completions; returns the bytes they complete,
 * or a negative errno for a failed one. *finished counts QPs that are done. */
static int64_t account(struct vep *ep, const struct ibv_wc *wc, int n, unsigned int *finished,
		       struct perr *e)
{
	uint64_t msgs = 0;

	for (int k = 0; k < n; k++) {
		unsigned int qi = (unsigned int)(wc[k].wr_id >> 32);
		uint32_t cnt = (uint32_t)wc[k].wr_id;
		struct vqp *q;

		if (qi >= ep->n_qps)
			qi = 0;
		if (wc[k].status != IBV_WC_SUCCESS)
			return vep_wc_error(ep, &wc[k], qi, e);
		q = &ep->qp[qi];
		if (cnt > q->outstanding)
			cnt = q->outstanding;
		q->done += cnt;
		q->outstanding -= cnt;
		msgs += cnt;
		if (q->done == q->target)
			(*finished)++;
	}
	return (int64_t)msgs;
}

/* How long a bandwidth wait may sleep: to the deadline, the end of the
 * duration, or the next keep-alive, whichever is first. */
static uint64_t wake_time(const struct vep *ep, const struct bw_run *r, uint64_t last, uint64_t now,
			  bool stopped, uint64_t dur_ns)
{
	uint64_t t = last + timeout_ns(ep) + 1;

	if (!stopped && r->start + dur_ns < t)
		t = r->start + dur_ns;
	if (now + TICK_WAKE_NS < t)
		t = now + TICK_WAKE_NS;
	if (ep->end_by && ep->end_by < t)
		t = ep->end_by;
	return t;
}

static int bw_phase(struct vep *ep, const struct xq_params *p, uint64_t total, uint64_t dur_ns,
		    struct pchan *ctl, struct bw_run *r, struct perr *e)
{
	struct ibv_wc wc[POLL_BATCH];
	unsigned int active = 0, finished = 0, idle = 0;
	bool stopped = dur_ns == 0;
	uint64_t now, last;
	int rc;

	for (unsigned int i = 0; i < ep->n_qps; i++) {
		struct vqp *q = &ep->qp[i];

		q->posted = q->done = 0;
		q->outstanding = q->unsig = 0;
		q->target = dur_ns ? UINT64_MAX : total / ep->n_qps + (i < total % ep->n_qps);
		if (q->target)
			active++;
	}
	memset(r, 0, sizeof(*r));
	r->start = r->end = last = pclock_ns();
	pwin_init(&r->win, r->start, (uint64_t)p->window_us * 1000u);
	while (finished < active) {
		int n;

		for (unsigned int i = 0; i < ep->n_qps; i++) {
			if (ep->qp[i].posted < ep->qp[i].target && (rc = post_more(ep, i, e)))
				return rc;
		}
		n = ibv_poll_cq(ep->scq, POLL_BATCH, wc);
		if (n < 0)
			return perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_poll_cq on %s failed", ep->device);
		if (n == 0 && ++idle < IDLE_POLLS)
			continue;
		idle = 0;
		now = pclock_ns();
		if (n == 0 && now - last > SPIN_NS) {
			/* On a fast device the next batch comes within the spin;
			 * beyond it, sleeping leaves the CPU to a software RDMA
			 * device (rxe), which shares it with us. */
			n = vep_wait_send(ep, wc, POLL_BATCH, wake_time(ep, r, last, now, stopped, dur_ns), e);
			if (n < 0)
				return n;
			now = pclock_ns();
		}
		if (n > 0) {
			int64_t msgs = account(ep, wc, n, &finished, e);

			if (msgs < 0)
				return (int)msgs;
			r->msgs += (uint64_t)msgs;
			r->bytes += (uint64_t)msgs * ep->size;
			pwin_add(&r->win, now, (uint64_t)msgs * ep->size);
			last = r->end = now;
		} else if (now - last > timeout_ns(ep)) {
			uint64_t out = 0;

			for (unsigned int i = 0; i < ep->n_qps; i++)
				out += ep->qp[i].outstanding;
			return perr_set(e, RCK_PROBE_TIMEOUT, -ETIMEDOUT,
					"no completion on %s within %u ms (%llu writes outstanding)",
					ep->device, ep->timeout_ms, (unsigned long long)out);
		}
		if (ep->end_by && now >= ep->end_by)
			return perr_overrun(e);
		if (!stopped && now - r->start >= dur_ns) {
			/* Writes after the last signalled one are covered by one
			 * more signalled write, the only way to learn they finished. */
			stopped = true;
			for (unsigned int i = 0; i < ep->n_qps; i++) {
				struct vqp *q = &ep->qp[i];

				q->target = q->posted + (q->unsig ? 1 : 0);
				if (q->done == q->target)
					finished++;
			}
		}
		if (ctl && (rc = pchan_tick(ctl, now, e)))
			return rc;
	}
	return 0;
}

int rrun_bw(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct xq_stats *st,
	    struct perr *e)
{
	struct bw_run r;
	double worst;
	int rc;

	if (p->warmup && (rc = bw_phase(ep, p, p->warmup, 0, ctl, &r, e)))
		return rc;
	rc = bw_phase(ep, p, p->iters, p->iters ? 0 : (uint64_t)p->duration_ms * 1000000u, ctl, &r, e);
	if (rc)
		return rc;
	st->bytes = r.bytes;
	st->msgs = r.msgs;
	st->ns = r.end - r.start;
	st->has_worst = pwin_worst_gbps(&r.win, &worst);
	st->worst_gbps = st->has_worst ? worst : 0;
	return 0;
}

/* Reap send completions without waiting (ping-pong keeps few in flight). */
static int reap(struct vep *ep, struct perr *e)
{
	struct ibv_wc wc[POLL_BATCH];
	unsigned int finished = 0;
	int n = ibv_poll_cq(ep->scq, POLL_BATCH, wc);

	if (n < 0)
		return perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_poll_cq on %s failed", ep->device);
	return account(ep, wc, n, &finished, e) < 0 ? -EIO : 0;
}

/* Between spins of a wait: errors of our sends, the deadline, and now and
 * then (a system call is dear next to a spin) the control channel: ticks
 * from the client, the client's news for the server.
 * Returns 0 to go on, 1 when the client has a message, or an error. */
static int check(struct vep *ep, uint64_t since, bool server, struct pchan *ctl, const char *what,
		 uint64_t i, struct perr *e)
{
	uint64_t now;
	int rc = reap(ep, e);

	if (rc)
		return rc;
	now = pclock_ns();
	if (now - since > timeout_ns(ep))
		return perr_set(e, RCK_PROBE_TIMEOUT, -ETIMEDOUT, "no %s from the peer within %u ms (round %llu)",
				what, ep->timeout_ms, (unsigned long long)i);
	if (ep->end_by && now >= ep->end_by)
		return perr_overrun(e);
	if (!ctl || now < ep->next_ctl)
		return 0;
	ep->next_ctl = now + CTL_CHECK_NS;
	if (server)
		return pchan_poll(ctl, e);
	return pchan_tick(ctl, now, e);
}

static int wait_byte(struct vep *ep, uint8_t v, uint64_t since, bool server, struct pchan *ctl,
		     uint64_t i, struct perr *e)
{
	const uint8_t *rx = ep->buf + ep->region + ep->size - 1;
	unsigned int spins = 0;
	int rc;

	while (__atomic_load_n(rx, __ATOMIC_ACQUIRE) != v) {
		if (++spins & SPIN_CHECK)
			continue;
		rc = check(ep, since, server, ctl, server ? "ping" : "reply", i, e);
		if (rc)
			return rc;
	}
	return 0;
}

static int wait_recv(struct vep *ep, uint64_t since, bool server, struct pchan *ctl, uint64_t i,
		     unsigned int *qi, struct perr *e)
{
	unsigned int spins = 0;
	struct ibv_wc wc;
	int n, rc;

	for (;;) {
		n = ibv_poll_cq(ep->rcq, 1, &wc);
		if (n < 0)
			return perr_set(e, RCK_PROBE_RDMA, -EIO, "ibv_poll_cq on %s failed", ep->device);
		if (n == 1) {
			*qi = (unsigned int)wc.wr_id < ep->n_qps ? (unsigned int)wc.wr_id : 0;
			if (wc.status != IBV_WC_SUCCESS)
				return vep_wc_error(ep, &wc, *qi, e);
			return 0;
		}
		if (++spins & SPIN_CHECK)
			continue;
		rc = check(ep, since, server, ctl, server ? "ping" : "reply", i, e);
		if (rc)
			return rc;
	}
}

/* One message of the ping-pong on QP @qi, keeping the send queue below its depth. */
static int send_one(struct vep *ep, unsigned int qi, bool write, struct perr *e)
{
	struct vqp *q = &ep->qp[qi];
	uint64_t since = pclock_ns();
	bool sig;
	int rc;

	while (q->outstanding >= ep->tx_depth) {
		if ((rc = reap(ep, e)))
			return rc;
		if (pclock_ns() - since > timeout_ns(ep))
			return perr_set(e, RCK_PROBE_TIMEOUT, -ETIMEDOUT,
					"no send completion on %s within %u ms", ep->device, ep->timeout_ms);
	}
	sig = q->unsig + 1 >= ep->sig_every;
	rc = vep_post(ep, qi, write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, (uint64_t)qi << 32 | (q->unsig + 1),
		      sig, e);
	if (rc)
		return rc;
	q->unsig = sig ? 0 : q->unsig + 1;
	q->outstanding++;
	return 0;
}

static void reset_qps(struct vep *ep)
{
	for (unsigned int i = 0; i < ep->n_qps; i++) {
		ep->qp[i].outstanding = ep->qp[i].unsig = 0;
		ep->qp[i].target = UINT64_MAX;
	}
}

int rrun_ping(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct psamples *smp,
	      struct xq_stats *st, struct perr *e)
{
	bool write = p->test == RCK_PROBE_TEST_LAT;
	uint8_t *tx = ep->buf + ep->size - 1;
	struct prounds r;
	int rc = 0;

	reset_qps(ep);
	prounds_init(&r, smp, p->warmup, p->iters, p->duration_ms);
	for (uint64_t i = 0; rc == 0 && i < prounds_total(&r); i++) {
		unsigned int qi = (unsigned int)(i % ep->n_qps), got = qi;
		uint8_t v = (uint8_t)(1 + i % 255);
		uint64_t t0;

		if (write)
			*tx = v;
		t0 = pclock_ns();
		rc = send_one(ep, qi, write, e);
		if (rc)
			return rc;
		rc = write ? wait_byte(ep, v, t0, false, ctl, i, e)
			   : wait_recv(ep, t0, false, ctl, i, &got, e);
		if (rc)
			return rc;
		rc = prounds_add(&r, i, t0, pclock_ns());
		if (rc < 0)
			return perr_set(e, RCK_PROBE_SYSTEM, rc, "out of memory for samples");
		if (!write && vep_post_recvs(ep, got, 1, e))
			return -EIO;
	}
	st->msgs = r.measured;
	st->bytes = r.measured * ep->size;
	st->ns = r.end - r.start;
	return 0;
}

int rrun_pong(struct vep *ep, const struct xq_params *p, struct pchan *ctl, struct perr *e)
{
	bool write = p->test == RCK_PROBE_TEST_LAT;
	uint64_t total = p->iters ? p->warmup + p->iters : UINT64_MAX;
	uint8_t *tx = ep->buf + ep->size - 1;
	int rc;

	reset_qps(ep);
	for (uint64_t i = 0; i < total; i++) {
		unsigned int qi = (unsigned int)(i % ep->n_qps);
		uint8_t v = (uint8_t)(1 + i % 255);
		uint64_t since = pclock_ns();

		/* A client that pings without end meets the server's end of the run. */
		if (ep->end_by && since >= ep->end_by)
			return perr_overrun(e);
		rc = write ? wait_byte(ep, v, since, true, ctl, i, e)
			   : wait_recv(ep, since, true, ctl, i, &qi, e);
		if (rc == 1)
			return 0;
		if (rc)
			return rc;
		if (write)
			*tx = v;
		rc = send_one(ep, qi, write, e);
		if (rc)
			return rc;
		/* The reply first: the receive queue holds rx_depth - 1 more. */
		if (!write && (rc = vep_post_recvs(ep, qi, 1, e)))
			return rc;
	}
	return 0;
}
