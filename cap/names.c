/* Names of rocecap's counters (the JSON keys) and of the BTH opcodes. */
#include <stdio.h>

#include "cap_int.h"

static const char *const stat_names[RCK_CAP_STAT_COUNT] = {
	[RCK_CAP_PACKETS] = "packets",
	[RCK_CAP_BYTES] = "bytes",
	[RCK_CAP_MALFORMED] = "malformed",
	[RCK_CAP_TRUNCATED] = "truncated",
	[RCK_CAP_UNSUPPORTED_LINK] = "unsupported_link",
	[RCK_CAP_ROCE_PACKETS] = "packets",
	[RCK_CAP_ROCE_BYTES] = "bytes",
	[RCK_CAP_ECT_MARKED] = "ect_marked",
	[RCK_CAP_CE_MARKED] = "ce_marked",
	[RCK_CAP_CNPS] = "cnps",
	[RCK_CAP_CNPS_UNMATCHED] = "cnps_unmatched",
	[RCK_CAP_FECN] = "fecn",
	[RCK_CAP_BECN] = "becn",
	[RCK_CAP_NAK_PSN_SEQ_ERR] = "psn_seq_err",
	[RCK_CAP_NAK_RNR] = "rnr",
	[RCK_CAP_NAK_OTHER] = "other",
	[RCK_CAP_RETRANSMISSIONS] = "retransmissions",
	[RCK_CAP_PSN_GAPS] = "psn_gaps",
	[RCK_CAP_PSN_MISSING] = "psn_missing",
	[RCK_CAP_FLOWS] = "flows",
	[RCK_CAP_UNTRACKED] = "untracked_packets",
	[RCK_CAP_PFC_FRAMES] = "frames",
	[RCK_CAP_LEGACY_PAUSE_FRAMES] = "frames",
	[RCK_CAP_FIRST_NS] = "first_ns",
	[RCK_CAP_LAST_NS] = "last_ns",
	[RCK_CAP_CUT] = "frames_cut",
	[RCK_CAP_ROCE_BTH_CUT] = "roce_bth_cut",
	[RCK_CAP_ROCE_HEADERS_CUT] = "roce_headers_cut",
	[RCK_CAP_AETH_UNKNOWN] = "aeth_unknown",
	[RCK_CAP_RETH_UNKNOWN] = "reth_unknown",
	[RCK_CAP_NO_ICRC] = "icrc_absent",
	[RCK_CAP_FIRST_FRAGMENTS] = "first_fragments",
	[RCK_CAP_FRAGMENTS_SKIPPED] = "fragments_skipped",
	[RCK_CAP_IPV6_EXT_SKIPPED] = "ipv6_ext_skipped",
};

RCK_EXPORT const char *rck_cap_stat_name(enum rck_cap_stat s)
{
	return (unsigned int)s < RCK_CAP_STAT_COUNT ? stat_names[s] : NULL;
}

/* Operations within a transport (the low five bits of the opcode). */
static const char *const op_names[0x20] = {
	[0x00] = "SEND First",
	[0x01] = "SEND Middle",
	[0x02] = "SEND Last",
	[0x03] = "SEND Last with Immediate",
	[0x04] = "SEND Only",
	[0x05] = "SEND Only with Immediate",
	[0x06] = "RDMA WRITE First",
	[0x07] = "RDMA WRITE Middle",
	[0x08] = "RDMA WRITE Last",
	[0x09] = "RDMA WRITE Last with Immediate",
	[0x0a] = "RDMA WRITE Only",
	[0x0b] = "RDMA WRITE Only with Immediate",
	[0x0c] = "RDMA READ Request",
	[0x0d] = "RDMA READ Response First",
	[0x0e] = "RDMA READ Response Middle",
	[0x0f] = "RDMA READ Response Last",
	[0x10] = "RDMA READ Response Only",
	[0x11] = "Acknowledge",
	[0x12] = "ATOMIC Acknowledge",
	[0x13] = "CmpSwap",
	[0x14] = "FetchAdd",
	[0x16] = "SEND Last with Invalidate",
	[0x17] = "SEND Only with Invalidate",
};

static const char *const transports[8] = { "RC", "UC", "RD", "UD", NULL, "XRC", NULL, NULL };

RCK_EXPORT const char *rck_cap_opcode_name(unsigned int opcode, char *buf, size_t len)
{
	const char *t, *o;

	if (opcode > 255 || !len)
		return NULL;
	if (opcode == CAP_OP_CNP) {
		snprintf(buf, len, "CNP");
		return buf;
	}
	t = transports[opcode >> 5];
	o = op_names[opcode & 0x1f];
	if (!t || !o)
		return NULL;
	snprintf(buf, len, "%s %s", t, o);
	return buf;
}

static const char *const flow_names[RCK_CAP_FLOW_STAT_COUNT] = {
	[RCK_CAP_FLOW_DEST_QP] = "dest_qp",
	[RCK_CAP_FLOW_UDP_SPORT] = "udp_sport",
	[RCK_CAP_FLOW_PACKETS] = "packets",
	[RCK_CAP_FLOW_BYTES] = "bytes",
	[RCK_CAP_FLOW_FIRST_NS] = "first_ns",
	[RCK_CAP_FLOW_LAST_NS] = "last_ns",
	[RCK_CAP_FLOW_ECT_MARKED] = "ect_marked",
	[RCK_CAP_FLOW_CE_MARKED] = "ce_marked",
	[RCK_CAP_FLOW_CNPS] = "cnps",
	[RCK_CAP_FLOW_RETRANSMISSIONS] = "retransmissions",
	[RCK_CAP_FLOW_PSN_GAPS] = "psn_gaps",
	[RCK_CAP_FLOW_PSN_MISSING] = "psn_missing",
	[RCK_CAP_FLOW_NAK_PSN_SEQ_ERR] = "psn_seq_err",
	[RCK_CAP_FLOW_NAK_RNR] = "rnr",
	[RCK_CAP_FLOW_NAK_OTHER] = "other",
	[RCK_CAP_FLOW_DSCP] = "dscp",
	[RCK_CAP_FLOW_PCP] = "pcp",
	[RCK_CAP_FLOW_VLAN] = "vlan",
};

RCK_EXPORT const char *rck_cap_flow_stat_name(enum rck_cap_flow_stat s)
{
	return (unsigned int)s < RCK_CAP_FLOW_STAT_COUNT ? flow_names[s] : NULL;
}
