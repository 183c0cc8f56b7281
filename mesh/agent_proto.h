/* The agent protocol between a coordinator and `rocecheck agent`: message
 * bodies as netlink-style attributes on the shared wire layer, pure
 * encode/decode without I/O. */
#ifndef RCK_MESH_AGENT_PROTO_H
#define RCK_MESH_AGENT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define AG_MAGIC 0x52434b41u /* "RCKA" */
#define AG_VERSION 1
#define AG_MAX_PAYLOAD (256u * 1024)
#define AG_MAX_NICS 64
#define AG_MAX_CTRS 128
#define AG_TEXT_MAX 256
#define AG_NAME_MAX 64

extern const struct wire_proto ag_proto;

enum ag_type {
	AG_ERROR = 1,    /* agent -> coordinator: status and reason (busy, limits, bad request) */
	AG_DESCRIBE = 2, /* -> the host's RDMA ports */
	AG_HOST = 3,
	AG_SNAPSHOT = 4, /* -> counters of every port */
	AG_COUNTERS = 5,
	AG_SERVE = 6,    /* start a probe listener for one session */
	AG_SERVING = 7,  /* its port; the session follows */
	AG_SERVED = 8,   /* that session ended */
	AG_RUN = 9,      /* run a probe toward a peer's listener */
	AG_RESULT = 10,  /* its result with both ends' counter deltas */
	AG_CLOSE = 11,   /* the coordinator is done */
	AG_DCB_GET = 12, /* -> the DCB state of the host's RDMA netdevs */
	AG_DCB = 13,     /* status, text (why not read), one AG_A_DCB_PORT nest per netdev */
	/* 14 .. 20: the task protocol's (agent_tasks_proto.h) */
	AG_PCIE_GET = 21, /* -> the host's PCIe paths (GPUs, NICs, bridges, IOMMU) */
	AG_PCIE = 22,     /* status, text (why not read), AG_A_PCIE_TOPO */
	AG_TYPE_MAX = AG_PCIE
};

/* AG_DCB's port nests: a type above every plain attribute. */
#define AG_A_DCB_PORT 64
#define AG_MAX_DCB_PORTS 256
/* AG_PCIE's snapshot: the rocecheck.topo/1 JSON document rck_pcie_write() writes. */
#define AG_A_PCIE_TOPO 65

/* AG_ERROR status beyond enum rck_probe_status. */
#define AG_ERR_BUSY 0x100   /* another coordinator's session runs */
#define AG_ERR_LIMIT 0x101  /* a request above the agent's limits */
#define AG_ERR_BADREQ 0x102 /* a request the agent cannot serve */

struct ag_nic {
	char device[AG_NAME_MAX];
	uint32_t port;
	char netdev[AG_NAME_MAX];
	char state[32];
	char fw_ver[AG_NAME_MAX];
	char addr[64];           /* the port's RoCE v2 IPv4 address */
	double rate_gbps;
	uint32_t active_mtu, netdev_mtu;
	int32_t gid_index;
	uint64_t counters;       /* bit id: the port has neutral counter id */
};

struct ag_ctr {
	uint32_t id;             /* enum rck_counter */
	uint64_t value;
};

/* Every message in one flat form; each type uses some fields. The two
 * arrays come last: only their first n_nics / n_ctr[] entries are
 * meaningful, so clearing and copying a message stops before them
 * (ag_msg_clear, ag_msg_copy) instead of moving 25 KiB per frame. */
struct ag_msg {
	uint16_t type;
	uint32_t id;             /* request id, echoed in replies */
	uint32_t status;
	char text[AG_TEXT_MAX];  /* ERROR, RESULT, SERVED: reason; HOST: host name */
	/* SERVE, RUN */
	char device[AG_NAME_MAX];
	uint32_t ib_port;
	uint32_t test, transport, size;
	uint64_t iters;
	uint32_t duration_ms, timeout_ms;
	char peer[256];          /* RUN: the listener's address */
	uint32_t probe_port;     /* RUN: its port; SERVING: the port listening */
	/* RESULT */
	double gbps, lat_p50_us, lat_p99_us, seconds;
	uint32_t n_ctr[2];       /* [0] this end (source), [1] the peer (destination) */
	/* HOST; COUNTERS uses nics[].device/port with ctr[0] of nic 0 only */
	uint32_t n_nics;
	struct ag_nic nics[AG_MAX_NICS];
	struct ag_ctr ctr[2][AG_MAX_CTRS];
};

/* Zero every field of @m but the array entries past the counts (all 0). */
void ag_msg_clear(struct ag_msg *m);
/* Copy @src's fields and the used entries of its arrays into @dst. */
void ag_msg_copy(struct ag_msg *dst, const struct ag_msg *src);

/* Encode @m into @buf (payload only): 0, -ENOBUFS, -EINVAL (unknown type). */
int ag_encode(const struct ag_msg *m, uint8_t *buf, size_t cap, size_t *len);
/* Decode the payload of a frame of @type: 0, -EBADMSG (malformed, or a
 * value out of range), -ENOMSG (unknown type). Unknown attributes are
 * skipped. */
int ag_decode(uint16_t type, const uint8_t *p, size_t len, struct ag_msg *m);
const char *ag_type_name(uint16_t type);
/* A result's numbers as an agent may send them: each absent (NaN) or
 * finite and not negative; @measured (an ok result of the probe's running
 * end) has a rate or a latency. Anything else is a protocol error. */
bool ag_numbers_ok(bool measured, double gbps, double p50, double p99, double seconds);

/* Optional attributes for the decoders: absent (-ENOENT) leaves *v and
 * returns 0, malformed returns -EBADMSG. */
int ag_opt_u32(const struct wire_attr *a, uint32_t *v);
int ag_opt_u64(const struct wire_attr *a, uint64_t *v);
int ag_opt_f64(const struct wire_attr *a, double *v);
int ag_opt_str(const struct wire_attr *a, char *buf, size_t size);

struct rck_dcb;

/* An AG_DCB decoded: the ports (owned, ag_dcb_clear()) or, with @failed,
 * the agent's reason in @error. */
struct ag_dcb {
	uint32_t id;
	bool failed;
	char error[AG_TEXT_MAX];
	struct rck_dcb **ports;
	size_t n;
};

/* Encode an AG_DCB with @n ports, or with @error (then @n 0): 0, -ENOBUFS. */
int ag_dcb_encode(uint32_t id, const struct rck_dcb *const *ports, size_t n, const char *error,
		  uint8_t *buf, size_t cap, size_t *len);
/* Decode an AG_DCB payload: 0, -EBADMSG (malformed or out of range), -ENOMEM. */
int ag_dcb_decode(const uint8_t *p, size_t len, struct ag_dcb *out);
void ag_dcb_clear(struct ag_dcb *d);

struct rck_pcie;

/* An AG_PCIE decoded: the snapshot (owned, rck_pcie_free()) or, with
 * @failed, the agent's reason in @error. */
struct ag_pcie {
	uint32_t id;
	bool failed;
	char error[AG_TEXT_MAX];
	struct rck_pcie *pcie;
};

/* Encode an AG_PCIE with @p, or with @error (then @p NULL): 0, -ENOBUFS, -ENOMEM. */
int ag_pcie_encode(uint32_t id, const struct rck_pcie *p, const char *error, uint8_t *buf, size_t cap,
		   size_t *len);
/* Decode an AG_PCIE payload: 0, -EBADMSG (malformed, not a snapshot), -ENOMEM. */
int ag_pcie_decode(const uint8_t *p, size_t len, struct ag_pcie *out);
/* LLDP neighbours of the host's RDMA netdevs (agent_lldp.h): numbered after
 * the task types, encoded and decoded apart from ag_encode()/ag_decode(). */
enum { AG_LLDP_GET = 23, AG_LLDP = 24 };

#endif
