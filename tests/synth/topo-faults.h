/* Synthetic sweeps over two-tier rail-optimised fabrics (topo-synth.h) with
 * one switch-side or cabling fault, for the localisation tests and bench. */
#ifndef RCK_TEST_TOPO_FAULTS_H
#define RCK_TEST_TOPO_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include <rocecheck/analysis.h>

#include "topo-synth.h"

enum tf_fault {
	TF_HEALTHY = 0,
	TF_UPLINK_05,      /* a leaf's uplink at half speed: probes across it at 0.5 under load */
	TF_TOR_DEAD,       /* a leaf dead: every probe of a NIC under it fails */
	TF_CABLE_LOSSY,    /* one host NIC's cable: retransmissions and 0.85 on all its probes */
	TF_RAILS_CROSSED,  /* one host's NICs 0 and 1 on each other's leaves: rail-0/1 probes fail */
	TF_HOST_DEAD,      /* one host unreachable: every probe of its NICs fails (its own finding) */
	TF_COUNT
};

const char *tf_fault_name(enum tf_fault f);

struct tf_trial {
	const struct tsyn *f;
	enum tf_fault fault;
	uint64_t seed;
	double cv;                  /* noise of one measurement */
	unsigned int retests;       /* retests per probe (0..2) */
	unsigned int victim_leaf;   /* leaf number: rail * groups + group */
	unsigned int victim_host, victim_rail;
	bool also_cable;            /* and the victim host NIC's cable lossy too */
	/* and the victim NIC's probes scaled so, no loss (0: not): first pass
	 * (the sweep's contention on a loaded host) and retests apart */
	double nic_first, nic_retest;
};

/* Draw the victims of @t from its seed. */
void tf_draw(struct tf_trial *t);
/* The NIC number of (host, rail): host * rails + rail. */
static inline uint32_t tf_nic(const struct tsyn *f, unsigned int h, unsigned int r)
{
	return h * f->rails + r;
}
/*
 * A new analysis input: every host and NIC (400G), and one bandwidth probe
 * per pair of @pairs (src, dst NIC numbers, @n_pairs of them; NULL: every
 * ordered pair of hosts on each rail), measured under @t's fault.
 */
int tf_analysis(const struct tf_trial *t, const uint32_t *pairs, size_t n_pairs,
		struct rck_analysis **out);
/* The topology the operator has: the planned cabling (topology file text). */
int tf_topology(const struct tsyn *f, struct rck_topology **out);

#endif
