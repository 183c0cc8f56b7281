/* The probe control protocol: versioned, length-prefixed messages carried
 * on the TCP control connection (and the rdma_cm private data), as pure
 * encode/decode functions without I/O. */
#ifndef RCK_PROBE_EXCHANGE_H
#define RCK_PROBE_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/*
 * Every message: a 12-byte header, then `length` payload bytes.
 *   u32 magic "RCKP" | u16 version | u16 type | u32 length
 * All integers big-endian; strings are u16 length + bytes; doubles are the
 * IEEE-754 bits as u64. The header layout never changes between versions,
 * so a peer of another version is recognised and named. Decoders accept
 * payloads longer than they know (later minor additions at the end).
 */
#define XQ_MAGIC 0x52434b50u
#define XQ_VERSION 1
#define XQ_HDR_LEN WIRE_HDR_LEN
#define XQ_MAX_PAYLOAD 65536u
#define XQ_MAX_QPS 256
#define XQ_MAX_COUNTERS 128
#define XQ_TEXT_MAX 256
#define XQ_NAME_MAX 64

enum xq_type {
	XQ_HELLO = 1,   /* client -> server: parameters and the client endpoint */
	XQ_ACCEPT = 2,  /* server -> client: the server endpoint */
	XQ_START = 3,   /* client -> server, then back once the server is ready: measure (no payload) */
	XQ_DONE = 4,    /* client -> server: the client's measurement and counters */
	XQ_RESULT = 5,  /* server -> client: the server's measurement and counters */
	XQ_ERROR = 6,   /* either way: status and reason, then the sender closes */
	XQ_ATTACH = 7,  /* TCP transport: a data stream joins a session */
	XQ_TICK = 8,    /* client -> server: still alive during a long run (no payload) */
};

/* flags of struct xq_params */
#define XQ_F_BIDIR 0x01
#define XQ_F_CM 0x02

/* The probe protocol on the shared wire layer (lib/wire.h): its header is
 * the wire header, its limits the protocol's. */
extern const struct wire_proto xq_proto;
#define xq_hdr wire_hdr

/* The session parameters, as the client resolved them. */
struct xq_params {
	uint8_t test;           /* enum rck_probe_test */
	uint8_t transport;      /* enum rck_probe_transport */
	uint8_t flags;          /* XQ_F_* */
	uint8_t sl;
	uint32_t size;
	uint16_t qps;
	uint16_t tx_depth;
	uint64_t iters;         /* 0: duration_ms */
	uint32_t duration_ms;
	uint32_t warmup;
	uint32_t window_us;
	int16_t tclass;         /* -1: default */
	uint16_t mtu;           /* 0: min of both ends */
	uint32_t flow_label;
	uint16_t udp_sport;
};

struct xq_qp {
	uint32_t qpn;
	uint32_t psn;
};

/* One side's RDMA endpoint (out-of-band mode) or rdma_cm port (cm mode). */
struct xq_endpoint {
	char device[XQ_NAME_MAX];
	uint8_t ib_port;
	uint8_t gid[16];
	int32_t gid_index;
	uint16_t lid;
	uint16_t active_mtu;    /* bytes; 0 unknown */
	uint32_t rkey;
	uint64_t addr;          /* where the peer writes */
	uint64_t len;
	uint16_t cm_port;       /* cm mode: the server's rdma_cm port */
	uint16_t n_qps;
	struct xq_qp qp[XQ_MAX_QPS];
};

struct xq_hello {
	struct xq_params p;
	struct xq_endpoint ep;
	uint32_t task;          /* after the endpoint, 0: none; older peers ignore it */
};

struct xq_accept {
	uint64_t cookie;        /* names the session for ATTACH and cm private data */
	struct xq_endpoint ep;
};

#define XQ_LAT_STATS 8

/* One side's measurement of the direction it sent (or of the ping-pong). */
struct xq_stats {
	uint64_t bytes;
	uint64_t msgs;
	uint64_t ns;
	uint8_t has_worst;
	uint8_t has_lat;
	double worst_gbps;
	double lat[XQ_LAT_STATS];  /* min p50 p90 p99 p99.9 max mean stdev, µs */
	uint64_t lat_count;
	int16_t tclass;            /* the traffic class the side's QPs carry, -1 unknown */
	uint16_t mtu;              /* the side's path MTU, 0 unknown */
	char device[XQ_NAME_MAX];  /* the side's device, port and GID as finally used */
	uint8_t ib_port;
	int32_t gid_index;
	uint8_t gid[16];
};

struct xq_counter {
	uint16_t id;            /* enum rck_counter */
	uint8_t state;          /* enum rck_delta_state */
	uint64_t delta;
};

struct xq_counters {
	uint8_t present;        /* 0: no snapshot could be taken */
	uint16_t n;
	struct xq_counter c[XQ_MAX_COUNTERS];
};

struct xq_done {
	struct xq_stats st;
	struct xq_counters ctr;
};

struct xq_result {
	struct xq_stats st;
	struct xq_counters ctr;
};

/* ERROR status beyond enum rck_probe_status: the server serves another
 * session; try again later. (Older peers read it as a protocol error and
 * still show the text.) */
#define XQ_ERR_BUSY 0x100

struct xq_error {
	uint16_t status;        /* enum rck_probe_status, or XQ_ERR_BUSY */
	char text[XQ_TEXT_MAX];
};

struct xq_attach {
	uint64_t cookie;
	uint16_t index;
};

union xq_msg {
	struct xq_hello hello;
	struct xq_accept accept;
	struct xq_done done;
	struct xq_result result;
	struct xq_error error;
	struct xq_attach attach;
};

/* rdma_cm private data: what the CM does not carry itself. It must fit the
 * REQ's 56 bytes that rdma_cm leaves to the application. */
#define XQ_CM_MAGIC 0x52434b43u
#define XQ_CM_PDATA_LEN 36
struct xq_cm_pdata {
	uint16_t version;
	uint16_t qp_index;
	uint64_t cookie;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

/*
 * Encode message @type (payload @m, NULL for START and TICK) into @buf of
 * @cap bytes; *len gets the total length. Returns 0, -EINVAL for an
 * unknown type or a field out of range, -ENOBUFS when @cap is too small.
 */
int xq_encode(enum xq_type type, const union xq_msg *m, uint8_t *buf, size_t cap, size_t *len);
/*
 * Check a received header (XQ_HDR_LEN bytes). *h is filled in any case.
 * Returns 0, -EPROTO for a wrong magic (another protocol), -EPROTONOSUPPORT
 * for another version, -EMSGSIZE for a payload above XQ_MAX_PAYLOAD.
 */
int xq_decode_hdr(const uint8_t *buf, struct xq_hdr *h);
/* Decode the payload of a message of @type. Returns 0, -EBADMSG when it is
 * truncated or malformed, -ENOMSG for an unknown type. Strings come out
 * NUL-terminated with anything but printable ASCII replaced by '?'. */
int xq_decode(uint16_t type, const uint8_t *p, size_t len, union xq_msg *m);
/* Name of a message type for error messages ("HELLO"), "unknown" else. */
const char *xq_type_name(uint16_t type);

int xq_encode_cm(const struct xq_cm_pdata *pd, uint8_t *buf, size_t cap);
/* Returns 0, -EPROTO when it is not ours, -EPROTONOSUPPORT, -EBADMSG. */
int xq_decode_cm(const uint8_t *buf, size_t len, struct xq_cm_pdata *pd);

#endif
