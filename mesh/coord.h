/* The sweep coordinator's configuration, shared by its setters
 * (coord_cfg.c) and the sweep itself (coord.c). */
#ifndef RCK_MESH_COORD_H
#define RCK_MESH_COORD_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/agent.h"
#include "rocecheck/mesh.h"

#include "plan.h"
#include "strset.h"

struct coord_host {
	char *name, *addr;
	unsigned int port;
	uint8_t *token; /* NULL: the config's key */
	size_t token_len;
	char *down;     /* its launcher's failure: not resolved, not dialled */
};

struct rck_mesh_config {
	struct coord_host *hosts;
	size_t n_hosts, cap_hosts;
	struct strset names; /* the hosts' names, for O(1) duplicate checks */
	uint8_t key[RCK_KEY_MAX];
	size_t key_len;
	char *pattern;     /* as given, for the result */
	char *rails;
	struct mesh_plan_opts plan;
	char *pairs;
	char *pairs_name;
	char *device;
	unsigned int tests;
	enum rck_probe_transport transport;
	uint32_t size;
	uint64_t iters;
	double duration_s;
	double deadline_s;
	rck_mesh_progress_fn progress;
	void *progress_data;
	rck_mesh_suspect_fn suspect;
	void *suspect_data;
	rck_mesh_retest_fn retest;
	void *retest_data;
	unsigned int retest_passes;
	atomic_int cancel;
	bool dcb;          /* ask each agent for its DCB state (coord_dcb.c) */
	bool lldp;         /* ask each agent for its LLDP neighbours (coord_lldp.c) */
	unsigned int lldp_capture_ms;
	enum rck_mesh_schedule schedule;
	bool pcie;         /* ask each agent for its PCIe paths (coord_pcie.c) */
	bool topo_lldp;    /* plan by a model of the agents' LLDP (coord_topo.c) */
};

/* Keep host @h's AG_DCB reply (@p, @len: its payload) in @m: 0, -EBADMSG, -ENOMEM. */
/* With topo_lldp: the model of @m's LLDP into @m (coord_topo.c). 0 or -errno. */
int coord_topo_build(const struct rck_mesh_config *c, struct rck_mesh *m);
int coord_dcb_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len);
/* Keep host @h's AG_PCIE reply in @m: 0, -EBADMSG, -ENOMEM. */
int coord_pcie_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len);

/* Keep host @h's AG_LLDP reply in @m: 0, -EBADMSG, -ENOMEM. */
int coord_lldp_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len);
/* The AG_LLDP_GET payload for the config's capture time: 0 or -ENOBUFS. */
int coord_lldp_request(const struct rck_mesh_config *c, uint8_t *buf, size_t cap, size_t *len);

#endif
