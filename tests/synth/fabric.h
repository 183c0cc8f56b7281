/* Synthetic rail-aligned fabrics for the scorecard: noise models, one
 * injected fault of a class, and the preflight's retest loop over them. */
#ifndef RCK_SYNTH_FABRIC_H
#define RCK_SYNTH_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rocecheck/analysis.h>

enum sf_noise {
	SF_NOISE_CV2 = 0,   /* Gaussian, coefficient of variation 2% */
	SF_NOISE_CV5,
	SF_NOISE_CV10,
	SF_NOISE_DIPS,      /* CV 2%, and one probe in 50 at half speed */
	SF_NOISE_NOISY_HOST, /* CV 2%, one host (not the victim) at CV 15%, median kept */
	SF_NOISE_COUNT
};

enum sf_fault {
	SF_HEALTHY = 0,
	SF_LINK_09, SF_LINK_07, SF_LINK_05,  /* one link at 0.9, 0.7, 0.5 of its peers */
	SF_NIC_05,                           /* one NIC at 0.5 */
	SF_HOST_DEAD,                        /* one host unreachable */
	SF_LOSS_LINK_01, SF_LOSS_LINK_05, SF_LOSS_LINK_1, SF_LOSS_LINK_5, /* 0.1, 0.5, 1, 5% */
	SF_LOSS_NIC_01, SF_LOSS_NIC_05, SF_LOSS_NIC_1, SF_LOSS_NIC_5,
	SF_FLAP,                             /* one NIC's port went down and up */
	SF_MTU,                              /* one host: active RDMA MTU 1024 under netdev 9000 */
	SF_GID,                              /* one host: no RoCE v2 IPv4 GID */
	SF_PFC,                              /* one host: PFC on priorities 3 and 4 */
	SF_DSCP,                             /* one host: DSCP 26 mapped to priority 4 */
	SF_PCIE,                             /* one NIC: PCIe x8 in an x16 slot */
	SF_FAULT_COUNT
};

/* What a fault is about: the part a right answer names. */
enum sf_part { SF_PART_NONE, SF_PART_LINK, SF_PART_NIC, SF_PART_HOST };

const char *sf_noise_name(enum sf_noise n);
const char *sf_fault_name(enum sf_fault f);
enum sf_part sf_fault_part(enum sf_fault f);
/* The scorecard's targets apply (at or above 0.7, 0.5% loss). */
bool sf_fault_targeted(enum sf_fault f);

struct sf_fabric {
	/* Set before sf_init(): */
	unsigned int hosts, rails;
	double mean_gbps, line_rate, probe_s;
	/* Set per trial by sf_trial(): */
	uint64_t seed;
	enum sf_noise noise;
	enum sf_fault fault;
	unsigned int victim_host, victim_rail;    /* NIC faults: host's NIC on that rail */
	unsigned int victim_peer;                 /* link faults: the receiving host */
	unsigned int noisy_host;                  /* SF_NOISE_NOISY_HOST */
	/* Scratch, owned: */
	double *first;          /* per link: the first measurement */
	uint8_t *retests;       /* per link: retests done */
	struct rck_link_sample *buf;
	struct rck_link_counter *ctrs;
	struct rck_link_meas *more;     /* retests past RCK_LINK_RETEST_MAX, per chunk */
	unsigned int passes, retests_done, slots;
	uint64_t *busy;         /* pass_slots scratch */
	size_t busy_words;
};

/* Links (rail-aligned ordered host pairs) and the NIC of (host, rail). */
size_t sf_links(const struct sf_fabric *f);
unsigned int sf_nic(const struct sf_fabric *f, unsigned int host, unsigned int rail);
/* The link from host @src to host @dst on @rail (an index of first[], retests[]). */
size_t sf_link_index(const struct sf_fabric *f, unsigned int src, unsigned int dst, unsigned int rail);
/* Host name of host @h ("n0007"); @buf of 16 bytes. */
const char *sf_host_name(unsigned int h, char *buf);
int sf_init(struct sf_fabric *f);
void sf_fini(struct sf_fabric *f);
/* Set up trial @seed: noise model, fault, victim drawn from the seed. */
void sf_trial(struct sf_fabric *f, uint64_t seed, enum sf_noise noise, enum sf_fault fault);
/*
 * The preflight's loop: analyse, retest what the report asks with fresh
 * noise, until nothing is asked or @max_passes. *out gets the last report;
 * f->passes, f->retests_done and f->slots (rounds of NIC-disjoint retests)
 * are set. 0 or a negative errno.
 */
int sf_run(struct sf_fabric *f, const struct rck_thresholds *th, unsigned int max_passes,
	   struct rck_report **out);

/* faults.c: build the shared read-only inputs once, before any thread
 * starts (0 or -ENOMEM). */
int sf_fixtures_init(void);
/* faults.c: the non-bandwidth inputs of a fault (descriptions, DCB,
 * inventory, counter deltas) for host @h. */
void sf_describe_nic(const struct sf_fabric *f, unsigned int h, unsigned int rail,
		     struct rck_analysis_nic *nic);
int sf_add_host_inputs(const struct sf_fabric *f, struct rck_analysis *a, unsigned int h);
/* Counters of link (src host, dst host) on @rail's first measurement into
 * @out (room for 8); returns how many. */
unsigned int sf_link_counters(const struct sf_fabric *f, size_t link, unsigned int src, unsigned int dst,
			      unsigned int rail, double gbps, struct rck_link_counter *out);
/* Bandwidth factor of a lossy link (go-back-N retransmission). */
double sf_loss_factor(double loss);
double sf_fault_loss(enum sf_fault fault);

/* Seeded draws (splitmix64): uniform in (0, 1) and standard normal. */
uint64_t sf_mix(uint64_t x);
double sf_uniform(uint64_t h);
double sf_normal(uint64_t h);

#endif
