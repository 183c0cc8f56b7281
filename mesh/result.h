/* The sweep result's layout, shared by its accessors (result.c), its JSON
 * writer and loader (result_io.c) and the planner. Never installed. */
#ifndef RCK_MESH_RESULT_H
#define RCK_MESH_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/mesh.h"
#include "../dcb/dcb_set.h"
#include "strset.h"

/* The "version" of the sweep result's JSON (result_io.c, result_load.c). */
#define MESH_JSON_VERSION 1
#define MESH_JSON_SCHEMA "rocecheck.mesh/1"  /* "schema"; optional when read */

/* One nonzero counter increase at one end of a probe. */
struct mesh_ctr {
	uint8_t id;  /* enum rck_counter */
	uint8_t end; /* enum rck_mesh_end */
	uint64_t val;
};

struct mesh_meas {
	uint8_t status;
	uint16_t n_ctr;
	double gbps, p50, p99, start_s, seconds;
	char *reason;
	struct mesh_ctr *ctr;
};

struct mesh_cell {
	uint32_t src, dst; /* global NIC numbers */
	uint8_t test;
	uint8_t attempts;  /* 1 .. 1 + RCK_MESH_RETEST_MAX */
	struct mesh_meas first;
	struct mesh_meas *retest; /* attempts - 1 of them, oldest first */
};

struct mesh_nic {
	char *device, *netdev, *state, *fw_ver;
	unsigned int port, active_mtu, netdev_mtu;
	int rail, gid_index;
	double rate_gbps;
	uint64_t counters;
	uint32_t host;
};

/* A host's LLDP neighbours as its agent heard them (result_lldp.c): every
 * string of the records owned here. */
struct mesh_lldp {
	bool has;
	char *error;
	struct rck_topology_neighbour *nb;
	size_t n;
};
void mesh_lldp_clear(struct mesh_lldp *l);

struct mesh_host {
	char *unreachable;
	uint32_t *nics;
	unsigned int n_nics;
	struct dcb_set dcb;     /* its RDMA netdevs' DCB state (result_dcb.c) */
	bool pcie_has;          /* PCIe paths collected (result_pcie.c): */
	struct rck_pcie *pcie;  /* the snapshot, or NULL with */
	char *pcie_error;       /* the agent's reason */
	struct mesh_lldp lldp;
};

struct rck_mesh {
	struct strset names;     /* host names, index = host number */
	struct mesh_host *hosts; /* host_cap long, names.n used */
	size_t host_cap;
	struct mesh_nic *nics;
	unsigned int n_nics;
	size_t nic_cap;
	struct mesh_cell *cells;
	unsigned int n_cells, cell_cap;
	uint32_t *cell_slots;    /* cell + 1, 0 empty */
	uint32_t n_cell_slots;
	char *pattern, *rails;
	struct rck_topology *topo; /* built from the agents' LLDP, NULL none */
	uint64_t start_ns;
	double seconds;
};

/* The order the writer follows (result_order.c): @nic_num[global NIC] is
 * its number counted in host order, @cells the probes sorted by source
 * then destination NIC number, then test. */
struct mesh_order {
	uint32_t *nic_num;
	uint32_t *cells;
};
/* @sort_cells: also the text order of the probes (@cells; NULL otherwise). */
int mesh_order_new(const struct rck_mesh *m, struct mesh_order *o, bool sort_cells);
void mesh_order_free(struct mesh_order *o);
struct emit;
/* Text only: probes ok and failed, medians, worst links, hosts down. */
int mesh_write_summary(struct emit *e, const struct rck_mesh *m);
/* Free host @h's PCIe paths and error; not collected again (result_pcie.c). */
void mesh_host_pcie_clear(struct mesh_host *h);
/* The result's "pcie" member of host @h, left out when not collected. */
struct emit;
void mesh_write_pcie(struct emit *e, const struct mesh_host *h);
/* Load a "pcie" member (NULL or null: not collected): 0, -ENOMEM, or
 * -EINVAL with *@why naming what is wrong. */
struct json_t;
int mesh_load_pcie(struct rck_mesh *m, unsigned int h, const struct json_t *j, const char **why);

#endif
