/* Internal DCB state shared by the dcb/ sources: the raw kernel structures
 * with what was read, dcbnl messages, rdma_cm configfs, profiles. */
#ifndef RCK_DCB_INTERNAL_H
#define RCK_DCB_INTERNAL_H

#include <linux/dcbnl.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dcb_set.h"
#include "internal.h"
#include "rocecheck/dcb.h"

struct nl_sock;
struct nlmsghdr;
struct json_t;

#define DCB_NPRIO IEEE_8021QAZ_MAX_TCS
#define DCB_MAX_APPS 512

struct dcb_app_ent {
	uint8_t selector;
	uint8_t priority;
	uint16_t protocol;
};

struct dcb_vendor {
	char *name;
	char *value;
};

struct rck_dcb {
	char ifname[IF_NAMESIZE];
	/* Per feature (enum rck_dcb_feature): 0 read, else -errno. */
	int err[RCK_DCB_RDMA_CM + 1];
	struct ieee_pfc pfc;
	struct ieee_ets ets;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	uint8_t dcbx;
	struct dcb_app_ent *apps;
	size_t n_apps;
	char *rdma_dev;
	unsigned int rdma_port;
	unsigned int roce_tos;
	char roce_mode[32];
	struct dcb_vendor *vendor;
	size_t n_vendor;
	const char *trust;
	const char *trust_from;
	char trust_buf[160];
};

struct rck_dcb *dcb_alloc(const char *ifname);
int dcb_app_push(struct rck_dcb *d, uint8_t selector, uint16_t protocol, uint8_t priority);
int dcb_vendor_push(struct rck_dcb *d, const char *name, const char *value);
/* Trust mode from the vendor knob, else from the APP table (the mlx5 rule). */
void dcb_derive_trust(struct rck_dcb *d);
bool dcb_app_has(const struct rck_dcb *d, uint8_t sel, uint16_t proto, uint8_t prio);
/* A deep copy (apps, vendor knobs, trust); NULL when out of memory. */
struct rck_dcb *dcb_dup(const struct rck_dcb *d);
/* Trust as another host derived it: @mode "dscp", "pcp" or "unknown",
 * @from copied (cut to fit). -EINVAL for any other mode. */
int dcb_set_trust(struct rck_dcb *d, const char *mode, const char *from);

/* dcbnl (dcbnl.c). Parse an RTM_GETDCB/DCB_CMD_IEEE_GET reply into @d:
 * features absent from the reply are marked -EOPNOTSUPP. */
int dcbnl_parse_ieee(const struct nlmsghdr *nlh, struct rck_dcb *d);
/* The error a SET/DEL reply carries in its DCB_ATTR_IEEE (or DCB_ATTR_DCBX) u8. */
int dcbnl_parse_set_reply(const struct nlmsghdr *nlh, int attr);
int dcbnl_get(const struct rck_ctx *ctx, struct nl_sock *sk, struct rck_dcb *d);
/* One IEEE nest member (DCB_ATTR_IEEE_ETS, _PFC, _MAXRATE, DCB_ATTR_DCB_BUFFER). */
int dcbnl_set_ieee(struct nl_sock *sk, const char *ifname, int attr, const void *data, size_t len);
/* DCB_CMD_IEEE_SET or DCB_CMD_IEEE_DEL of APP entries. */
int dcbnl_app(struct nl_sock *sk, const char *ifname, int cmd, const struct dcb_app_ent *apps,
	      size_t n);
int dcbnl_set_dcbx(struct nl_sock *sk, const char *ifname, uint8_t mode);

/* rdma_cm defaults in configfs under @root (normally /sys/kernel/config). */
#define DCB_CONFIGFS "/sys/kernel/config"
int dcb_cm_read(const char *root, const char *dev, unsigned int port, unsigned int *tos,
		char *mode, size_t modelen);
int dcb_cm_write(const char *root, const char *dev, unsigned int port, const unsigned int *tos,
		 const char *mode);

/* Profile (profile.c). Every "want" is optional: has_* says it was given. */
struct rck_dcb_profile {
	char name[64];
	bool has_roce_prio, has_pfc, has_cnp_prio, has_tos, has_mode, has_trust;
	bool has_prio_tc, has_tc_bw, has_tsa, has_dcbx;
	uint8_t dcbx;           /* DCB_CAP_DCBX_* bits */
	uint8_t roce_prio;
	uint8_t pfc;            /* bitmap */
	uint8_t cnp_prio;
	unsigned int tos;
	char mode[16];          /* "RoCE v2" or "IB/RoCE v1" */
	char trust[8];          /* "dscp" or "pcp" */
	uint8_t prio_tc[DCB_NPRIO], tc_bw[DCB_NPRIO], tsa[DCB_NPRIO];
	struct dcb_app_ent dscp[64];
	size_t n_dscp;
};

/* Names and text forms shared by the writers (dcb_write.c). */
struct emit;
const char *dcb_tsa_name(uint8_t tsa);
const char *dcb_selector_name(uint8_t sel, char *buf, size_t len);
/* "not supported by this driver" for -EOPNOTSUPP, else strerror. */
const char *dcb_err_str(int err);
/* "3,4" (or "none") for a priority bitmap; "0 1 2 ..." for eight values. */
void dcb_prio_list(uint8_t bm, char *buf, size_t len);
void dcb_u8_list(const uint8_t *v, bool tsa, char *buf, size_t len);
/* DCBX mode bits as words: "host ieee"; "none" for 0. */
void dcb_dcbx_text(uint8_t mode, char *buf, size_t len);
/* The bit of one such word, 0 when it is none. */
uint8_t dcb_dcbx_bit(const char *word);
/* A priority bitmap as a JSON array / "3,4" text; one APP entry object. */
void dcb_emit_prio_array(struct emit *e, const char *key, uint8_t bm);
void dcb_emit_app(struct emit *e, uint8_t selector, uint16_t protocol, uint8_t priority);
/* One document: @fn emits it, written as @fmt to @out. */
int dcb_emit_doc(enum rck_format fmt, FILE *out, void (*fn)(struct emit *e, const void *arg),
		 const void *arg);
void dcb_emit_eight(struct emit *e, const char *key, const char *label, const uint8_t *v, bool tsa);
/* Append one field to a comparison (check.c). */
int dcb_diff_add(struct rck_dcb_diff *d, const char *field, const char *want, const char *have);
/* A field that cannot be read or does not apply: unknown, @why as "have". */
int dcb_diff_add_unknown(struct rck_dcb_diff *d, const char *field, const char *want, const char *why);

/* The plan of a dry-run apply of @p on @cur (apply.c): every change from
 * -> to, parts the port cannot report as "unknown -> X (why)"
 * (RCK_DCB_CHANGE_UNKNOWN), rdma_cm on a port without an RDMA device as
 * skipped. *out is set (free it) whenever it could be allocated. */
int dcb_apply_plan(const struct rck_dcb_profile *p, const struct rck_dcb *cur,
		   struct rck_dcb_change_log **out);

/* lldpad's answer to a neighbor-TLV request (@len bytes of text) for
 * @ifname (lldpad.c): 0, -ENODEV, -ENODATA, -EIO, -EBADMSG, -ENOMEM. */
int dcb_lldpad_parse(const char *rsp, size_t len, const char *ifname, struct rck_lldp **out);

/* State file (state.c): the show JSON, loaded back for restore. */
int dcb_state_save(const struct rck_dcb *d, const char *path);
int dcb_state_load(const char *path, struct rck_dcb **out);
int dcb_state_parse(const char *buf, size_t len, struct rck_dcb **out);
/* One port object of `show` (no "schema" key needed) as it appears inside
 * other documents (the sweep result's hosts); vendor knobs and trust kept. */
int dcb_port_from_json(const struct json_t *obj, struct rck_dcb **out);
/* A `rocedcb show -j` document (or one state file): its ports. The caller
 * frees each and the array. -EINVAL, -ENOMEM. */
int dcb_show_parse(const char *buf, size_t len, struct rck_dcb ***out, size_t *n);
/* One port object inside a document being emitted (an array member). */
void dcb_emit_port(struct emit *e, const struct rck_dcb *d);
/* One port object (the state file's content). */
int dcb_write_port(const struct rck_dcb *d, enum rck_format fmt, FILE *out);

#endif
