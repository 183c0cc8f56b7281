/* The scorecard's fault classes beyond bandwidth: NIC descriptions, DCB
 * states, inventories (PCIe), counter deltas (a flapping port), loss counters. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../dcb/dcb_internal.h"
#include "../../lib/counters.h"
#include "../../lib/inventory.h"
#include "fabric.h"

#define RAILS_MAX 8
#define MTU_BYTES 4096.0

static const char *const noise_names[SF_NOISE_COUNT] = {"cv2", "cv5", "cv10", "dips", "noisy_host"};
static const char *const fault_names[SF_FAULT_COUNT] = {
	"healthy", "link_0.9", "link_0.7", "link_0.5", "nic_0.5", "host_dead",
	"loss_link_0.1%", "loss_link_0.5%", "loss_link_1%", "loss_link_5%",
	"loss_nic_0.1%", "loss_nic_0.5%", "loss_nic_1%", "loss_nic_5%",
	"flapping_port", "mtu_mismatch", "gid_missing", "pfc_priority", "dscp_map", "pcie_degraded",
};

const char *sf_noise_name(enum sf_noise n)
{
	return (unsigned int)n < SF_NOISE_COUNT ? noise_names[n] : "?";
}

const char *sf_fault_name(enum sf_fault f)
{
	return (unsigned int)f < SF_FAULT_COUNT ? fault_names[f] : "?";
}

enum sf_part sf_fault_part(enum sf_fault f)
{
	switch (f) {
	case SF_HEALTHY:
		return SF_PART_NONE;
	case SF_LINK_09: case SF_LINK_07: case SF_LINK_05:
	case SF_LOSS_LINK_01: case SF_LOSS_LINK_05: case SF_LOSS_LINK_1: case SF_LOSS_LINK_5:
		return SF_PART_LINK;
	case SF_HOST_DEAD: case SF_MTU: case SF_GID: case SF_PFC: case SF_DSCP:
		return SF_PART_HOST;
	default:
		return SF_PART_NIC;
	}
}

bool sf_fault_targeted(enum sf_fault f)
{
	return f != SF_HEALTHY && f != SF_LINK_09 && f != SF_LOSS_LINK_01 && f != SF_LOSS_NIC_01;
}

double sf_fault_loss(enum sf_fault f)
{
	switch (f) {
	case SF_LOSS_LINK_01: case SF_LOSS_NIC_01: return 0.001;
	case SF_LOSS_LINK_05: case SF_LOSS_NIC_05: return 0.005;
	case SF_LOSS_LINK_1: case SF_LOSS_NIC_1: return 0.01;
	case SF_LOSS_LINK_5: case SF_LOSS_NIC_5: return 0.05;
	default: return 0;
	}
}

/* Go-back-N resends the window behind each lost packet: a rough cost of
 * 8 packets per loss, bounded. */
double sf_loss_factor(double loss)
{
	double f = 1 - 8 * loss;

	return f > 0.5 ? f : 0.5;
}

void sf_describe_nic(const struct sf_fabric *f, unsigned int h, unsigned int rail,
		     struct rck_analysis_nic *nic)
{
	static const char *const devs[RAILS_MAX] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
						    "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"};
	bool victim = h == f->victim_host;

	memset(nic, 0, sizeof(*nic));
	nic->size = sizeof(*nic);
	nic->device = devs[rail % RAILS_MAX];
	nic->port = 1;
	nic->line_rate_gbps = f->line_rate;
	nic->counters = 1ULL << RCK_CTR_OUT_OF_SEQUENCE | 1ULL << RCK_CTR_SEQ_ERR_NAKS |
			1ULL << RCK_CTR_LOCAL_ACK_TIMEOUTS | 1ULL << RCK_CTR_RETRY_EXCEEDED |
			1ULL << RCK_CTR_LINK_DOWNED;
	nic->state = "ACTIVE";
	nic->fw_ver = "28.39.1002";
	nic->netdev_mtu = 9000;
	nic->active_mtu = victim && f->fault == SF_MTU ? 1024 : 4096;
	nic->gid_index = victim && f->fault == SF_GID ? -1 : 3;
}

/* Read-only inputs shared by every trial and thread, built once. */
static struct {
	bool ready;
	struct rck_dcb *good[RAILS_MAX], *pfc[RAILS_MAX], *dscp[RAILS_MAX];
	struct rck_gid gids[RAILS_MAX];
	struct rck_port ports[2][RAILS_MAX];
	struct rck_device devs[2][RAILS_MAX];
	struct rck_inventory ok, bad[RAILS_MAX];
	struct rck_device bad_devs[RAILS_MAX][RAILS_MAX];
	struct ctr_dport flap_ports[RAILS_MAX];
	struct rck_delta flap[RAILS_MAX];
} fx;

static struct rck_dcb *dcb_port(unsigned int rail, enum sf_fault kind)
{
	char ifname[16], dev[16];
	struct rck_dcb *d;

	snprintf(ifname, sizeof(ifname), "eth%u", rail);
	snprintf(dev, sizeof(dev), "mlx5_%u", rail);
	d = dcb_alloc(ifname);
	if (!d || !(d->rdma_dev = strdup(dev)))
		return NULL;
	d->rdma_port = 1;
	for (int i = RCK_DCB_PFC; i <= RCK_DCB_RDMA_CM; i++)
		d->err[i] = 0;
	d->pfc.pfc_en = kind == SF_PFC ? 0x18 : 0x08;
	for (int i = 0; i < DCB_NPRIO; i++) {
		d->ets.prio_tc[i] = i == 3 ? 1 : 0;
		d->ets.tc_tx_bw[i] = i < 2 ? 50 : 0;
		d->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	}
	if (dcb_app_push(d, RCK_DCB_SEL_DSCP, 26, kind == SF_DSCP ? 4 : 3) ||
	    dcb_app_push(d, RCK_DCB_SEL_DSCP, 48, 6))
		return NULL;
	d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	d->roce_tos = 106;
	snprintf(d->roce_mode, sizeof(d->roce_mode), "RoCE v2");
	dcb_derive_trust(d);
	return d;
}

static void inv_device(struct rck_device *d, struct rck_port *p, unsigned int rail, bool x8)
{
	static char names[RAILS_MAX][16], netdevs[RAILS_MAX][16];

	snprintf(names[rail], sizeof(names[rail]), "mlx5_%u", rail);
	snprintf(netdevs[rail], sizeof(netdevs[rail]), "eth%u", rail);
	memset(d, 0, sizeof(*d));
	d->name = names[rail];
	d->driver = "mlx5_core";
	d->fw_ver = "28.39.1002";
	d->board_id = "MT_0000000838";
	snprintf(d->pci.address, sizeof(d->pci.address), "0000:%02x:00.0", 0x18 + 0x10 * rail);
	d->pci.speed_gts = d->pci.max_speed_gts = 32;
	d->pci.max_width = 16;
	d->pci.width = x8 ? 8 : 16;
	d->ports = p;
	d->n_ports = 1;
	memset(p, 0, sizeof(*p));
	p->dev = d;
	p->num = 1;
	p->state = "ACTIVE";
	p->phys_state = "LinkUp";
	p->link_layer = "Ethernet";
	p->rate_gbps = 400;
	p->has_rate = true;
	p->active_mtu = 4096;
	p->netdev = netdevs[rail];
	p->netdev_mtu = 9000;
	p->netdev_operstate = "up";
	p->gids = &fx.gids[rail];
	p->n_gids = 1;
	fx.gids[rail] = (struct rck_gid){.index = 3, .type = RCK_GID_TYPE_ROCE_V2, .netdev = netdevs[rail]};
	snprintf(fx.gids[rail].ipv4, sizeof(fx.gids[rail].ipv4), "10.0.%u.1", rail);
}

int sf_fixtures_init(void)
{
	if (fx.ready)
		return 0;
	for (unsigned int r = 0; r < RAILS_MAX; r++) {
		fx.good[r] = dcb_port(r, SF_HEALTHY);
		fx.pfc[r] = dcb_port(r, SF_PFC);
		fx.dscp[r] = dcb_port(r, SF_DSCP);
		if (!fx.good[r] || !fx.pfc[r] || !fx.dscp[r])
			return -ENOMEM;
		inv_device(&fx.devs[0][r], &fx.ports[0][r], r, false);
		inv_device(&fx.devs[1][r], &fx.ports[1][r], r, true);
	}
	fx.ok = (struct rck_inventory){.devs = fx.devs[0], .n_devs = RAILS_MAX};
	for (unsigned int b = 0; b < RAILS_MAX; b++) {
		for (unsigned int r = 0; r < RAILS_MAX; r++)
			fx.bad_devs[b][r] = fx.devs[r == b][r];
		fx.bad[b] = (struct rck_inventory){.devs = fx.bad_devs[b], .n_devs = RAILS_MAX};
		fx.flap_ports[b] = (struct ctr_dport){.dev = fx.devs[0][b].name, .port = 1,
						      .netdev = fx.ports[0][b].netdev};
		for (unsigned int c = 0; c < RCK_CTR_COUNT; c++)
			fx.flap_ports[b].neutral[c].state = RCK_DELTA_ABSENT;
		fx.flap_ports[b].neutral[RCK_CTR_LINK_DOWNED] = (struct ctr_dval){RCK_DELTA_OK, 2};
		fx.flap_ports[b].neutral[RCK_CTR_SYMBOL_ERRORS] = (struct ctr_dval){RCK_DELTA_OK, 40};
		fx.flap[b] = (struct rck_delta){.seconds = 120, .ports = &fx.flap_ports[b], .n_ports = 1};
	}
	fx.ready = true;
	return 0;
}

int sf_add_host_inputs(const struct sf_fabric *f, struct rck_analysis *a, unsigned int h)
{
	const struct rck_dcb *ports[RAILS_MAX];
	const struct rck_inventory *inv = NULL;
	const struct rck_delta *delta = NULL;
	bool victim = h == f->victim_host;
	char name[16];
	int rc;

	if (!fx.ready || f->rails > RAILS_MAX)
		return -EINVAL;
	if (f->fault == SF_PCIE)
		inv = victim ? &fx.bad[f->victim_rail] : &fx.ok;
	if (f->fault == SF_FLAP && victim)
		delta = &fx.flap[f->victim_rail];
	rc = rck_analysis_add_host(a, sf_host_name(h, name), inv, delta, NULL);
	for (unsigned int r = 0; !rc && r < f->rails; r++) {
		struct rck_analysis_nic nic;

		sf_describe_nic(f, h, r, &nic);
		rc = rck_analysis_add_nic(a, h, &nic, NULL);
		ports[r] = victim && f->fault == SF_PFC ? fx.pfc[r] : victim && f->fault == SF_DSCP ? fx.dscp[r] :
			   fx.good[r];
	}
	if (!rc && f->fault == SF_HOST_DEAD && victim)
		return rck_analysis_set_unreachable(a, h, "agent: connection refused");
	if (!rc)
		rc = rck_analysis_set_host_dcb(a, h, ports, f->rails, NULL);
	return rc;
}

const char *sf_host_name(unsigned int h, char *buf)
{
	snprintf(buf, 16, "n%04u", h);
	return buf;
}

/* A Poisson-like count of mean @lambda from hash @h (normal beyond 30). */
static uint64_t count(double lambda, uint64_t h)
{
	double p, u, x;
	uint64_t k = 0;

	if (lambda > 30) {
		x = lambda + sqrt(lambda) * sf_normal(h);
		return x > 0 ? (uint64_t)llround(x) : 0;
	}
	p = exp(-lambda);
	u = sf_uniform(h);
	for (double c = p; u > c && k < 200; c += p) {
		k++;
		p *= lambda / (double)k;
	}
	return k;
}

unsigned int sf_link_counters(const struct sf_fabric *f, size_t link, unsigned int src, unsigned int dst,
			      unsigned int rail, double gbps, struct rck_link_counter *out)
{
	bool nic = (src == f->victim_host || dst == f->victim_host) && rail == f->victim_rail;
	bool lnk = src == f->victim_host && dst == f->victim_peer && rail == f->victim_rail;
	double loss = sf_fault_loss(f->fault), packets = gbps * 1e9 * f->probe_s / (8 * MTU_BYTES);
	uint64_t h = sf_mix(f->seed ^ sf_mix(link * 8 + 0xc0ffee));
	uint64_t k;

	switch (sf_fault_part(f->fault)) {
	case SF_PART_LINK:
		if (!lnk || !(loss > 0))
			return 0;
		break;
	case SF_PART_NIC:
		if (f->fault == SF_FLAP && nic && sf_uniform(h) < 2.0 / (f->hosts - 1)) {
			/* The probes running while the port was down timed out. */
			out[0] = (struct rck_link_counter){RCK_LINK_SRC, RCK_CTR_LOCAL_ACK_TIMEOUTS, 7};
			return 1;
		}
		if (!nic || !(loss > 0))
			return 0;
		break;
	default:
		return 0;
	}
	k = count(loss * packets, h);
	if (!k)
		return 0;
	out[0] = (struct rck_link_counter){RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, k};
	out[1] = (struct rck_link_counter){RCK_LINK_SRC, RCK_CTR_SEQ_ERR_NAKS, k};
	return 2;
}
