/* Text and JSON forms of a rocecap analysis through the print layer
 * (lib/emit.c); the JSON is described by schemas/rocecap.schema.json. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cap_int.h"
#include "emit.h"

#define CAP_SCHEMA "rocecheck.rocecap/1"

static void stat(struct emit *e, const struct rck_cap *cap, enum rck_cap_stat s, const char *tfmt)
{
	emit_u64(e, rck_cap_stat_name(s), tfmt, cap->st[s]);
}

static void write_naks(struct emit *e, const uint64_t *seq, const uint64_t *rnr, const uint64_t *other,
		       const char *tseq, const char *trnr, const char *tother)
{
	emit_obj_open(e, "naks");
	emit_u64(e, "psn_seq_err", tseq, *seq);
	emit_u64(e, "rnr", trnr, *rnr);
	emit_u64(e, "other", tother, *other);
	emit_obj_close(e);
}

static void write_pause(struct emit *e, const struct rck_cap *cap, unsigned int prio, bool row)
{
	const struct cap_pause *p = &cap->pause[prio];

	emit_u64(e, "frames", row ? " %9s" : " %s frames", p->st[RCK_CAP_PAUSE_FRAMES]);
	emit_u64(e, "xoff", row ? " %6s" : ", XOFF %s", p->st[RCK_CAP_PAUSE_XOFF]);
	emit_u64(e, "xon", row ? " %6s" : ", XON %s", p->st[RCK_CAP_PAUSE_XON]);
	emit_u64(e, "pause_quanta", row ? " %10s" : ", quanta %s", p->st[RCK_CAP_PAUSE_QUANTA]);
	emit_double(e, "pause_us", row ? " %12s" : ", requested %s us", 1, p->requested_us);
	emit_double(e, "effective_pause_us", row ? " %12s" : ", paused %s us", 1, p->effective_us);
	emit_double(e, "longest_pause_us", row ? " %12s" : ", longest %s us", 1, p->longest_us);
	emit_u64(e, "storms", row ? " %7s\n" : ", storm windows %s\n", p->st[RCK_CAP_PAUSE_STORMS]);
}

static void write_pfc(struct emit *e, const struct rck_cap *cap)
{
	bool any = cap->st[RCK_CAP_PFC_FRAMES] > 0;

	emit_obj_open(e, "pfc");
	emit_text(e, "PFC:    ");
	stat(e, cap, RCK_CAP_PFC_FRAMES, "%s frames");
	emit_text(e, " (quanta of 512 bit times at %g Gb/s)\n", cap->o.speed_gbps);
	if (any)
		emit_text(e, "  %4s %9s %6s %6s %10s %12s %12s %12s %7s\n", "prio", "frames", "xoff", "xon", "quanta",
			  "requested_us", "paused_us", "longest_us", "storms");
	emit_arr_open(e, "priorities");
	for (unsigned int i = 0; i < 8; i++) {
		if (!emit_is_json(e) && !cap->pause[i].st[RCK_CAP_PAUSE_FRAMES])
			continue;
		emit_obj_open(e, NULL);
		emit_u64(e, "priority", "  %4s", i);
		write_pause(e, cap, i, true);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);

	emit_obj_open(e, "pause");
	emit_text(e, "PAUSE: ");
	write_pause(e, cap, RCK_CAP_PAUSE_LEGACY, false);
	emit_obj_close(e);
}

static void write_opcodes(struct emit *e, const struct rck_cap *cap, bool text)
{
	char name[40];

	if (!emit_is_json(e) && !text)
		return;
	emit_text(e, "Opcodes:\n");
	emit_arr_open(e, "opcodes");
	for (unsigned int op = 0; op < 256; op++) {
		if (!cap->ops[op])
			continue;
		emit_obj_open(e, NULL);
		emit_u64(e, "opcode", "  0x", op);
		emit_text(e, "%02x", op);
		emit_str(e, "name", " %-36s", rck_cap_opcode_name(op, name, sizeof(name)));
		emit_u64(e, "packets", " %s\n", cap->ops[op]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

/* What the capture left out and what that leaves unknown; in text only
 * when something was left out. */
static void write_unknown(struct emit *e, const struct rck_cap *cap)
{
	const uint64_t *st = cap->st;
	bool text = !emit_is_json(e);

	stat(e, cap, RCK_CAP_CUT, NULL);
	stat(e, cap, RCK_CAP_ROCE_BTH_CUT, NULL);
	stat(e, cap, RCK_CAP_ROCE_HEADERS_CUT, NULL);
	stat(e, cap, RCK_CAP_AETH_UNKNOWN, NULL);
	stat(e, cap, RCK_CAP_RETH_UNKNOWN, NULL);
	stat(e, cap, RCK_CAP_FRAGMENTS_SKIPPED, NULL);
	stat(e, cap, RCK_CAP_IPV6_EXT_SKIPPED, NULL);
	if (!text)
		return;
	if (st[RCK_CAP_CUT] || st[RCK_CAP_TRUNCATED]) {
		emit_text(e, "Cut:    %" PRIu64 " frames shorter than on the wire (snap length), %" PRIu64
			  " truncated in a header", st[RCK_CAP_CUT], st[RCK_CAP_TRUNCATED]);
		if (st[RCK_CAP_ROCE_HEADERS_CUT])
			emit_text(e, ": %" PRIu64 " RoCE packets with a whole BTH, counted by opcode and PSN, "
				  "a later header cut", st[RCK_CAP_ROCE_HEADERS_CUT]);
		emit_text(e, "\n");
	}
	if (st[RCK_CAP_ROCE_BTH_CUT])
		emit_text(e, "Unknown: %" PRIu64 " RoCE frames cut inside BTH: not counted, their PSNs unknown "
			  "(PSN gaps may be theirs)\n", st[RCK_CAP_ROCE_BTH_CUT]);
	if (st[RCK_CAP_AETH_UNKNOWN])
		emit_text(e, "Unknown: AETH of %" PRIu64 " ACK/READ response packets cut: ACK or NAK unknown "
			  "(NAKs may be more)\n", st[RCK_CAP_AETH_UNKNOWN]);
	if (st[RCK_CAP_RETH_UNKNOWN])
		emit_text(e, "Unknown: RETH of %" PRIu64 " packets cut (address, length; after a READ request so cut, a forward "
			  "PSN jump is taken as reserved)\n", st[RCK_CAP_RETH_UNKNOWN]);
	if (st[RCK_CAP_FRAGMENTS_SKIPPED] || st[RCK_CAP_IPV6_EXT_SKIPPED])
		emit_text(e, "Skipped: %" PRIu64 " later IP fragments (no headers), %" PRIu64
			  " IPv6 packets behind ESP or over 8 extension headers\n",
			  st[RCK_CAP_FRAGMENTS_SKIPPED], st[RCK_CAP_IPV6_EXT_SKIPPED]);
}

static void write_roce(struct emit *e, const struct rck_cap *cap, unsigned int flags)
{
	emit_obj_open(e, "roce");
	emit_text(e, "RoCE:   ");
	stat(e, cap, RCK_CAP_ROCE_PACKETS, "%s packets");
	stat(e, cap, RCK_CAP_ROCE_BYTES, ", %s bytes");
	stat(e, cap, RCK_CAP_FLOWS, " in %s flows");
	stat(e, cap, RCK_CAP_UNTRACKED, " (%s packets of untracked flows)");
	stat(e, cap, RCK_CAP_NO_ICRC, cap->st[RCK_CAP_NO_ICRC] ? "; %s without ICRC" : NULL);
	stat(e, cap, RCK_CAP_FIRST_FRAGMENTS, cap->st[RCK_CAP_FIRST_FRAGMENTS] ? "; %s from first IP fragments" : NULL);
	emit_text(e, "\n");
	emit_text(e, "ECN:    ");
	stat(e, cap, RCK_CAP_ECT_MARKED, "ECT %s");
	stat(e, cap, RCK_CAP_CE_MARKED, ", CE %s");
	stat(e, cap, RCK_CAP_FECN, ", FECN %s");
	stat(e, cap, RCK_CAP_BECN, ", BECN %s");
	stat(e, cap, RCK_CAP_CNPS, "; CNPs %s");
	stat(e, cap, RCK_CAP_CNPS_UNMATCHED, " (%s unmatched)\n");
	emit_text(e, "Loss:   ");
	write_naks(e, &cap->st[RCK_CAP_NAK_PSN_SEQ_ERR], &cap->st[RCK_CAP_NAK_RNR], &cap->st[RCK_CAP_NAK_OTHER],
		   "NAKs: PSN sequence error %s", ", RNR %s", ", other %s");
	stat(e, cap, RCK_CAP_RETRANSMISSIONS, "; retransmissions %s");
	stat(e, cap, RCK_CAP_PSN_GAPS, "; PSN gaps %s");
	stat(e, cap, RCK_CAP_PSN_MISSING, " (%s PSNs missing)\n");
	write_opcodes(e, cap, flags & RCK_CAP_WRITE_OPCODES);
	emit_obj_close(e);
}

static void write_flow(struct emit *e, const struct rck_cap_flow *f)
{
	char src[64], dst[64];
	const uint64_t *st = f->st;

	emit_obj_open(e, NULL);
	emit_str(e, "src", "  %-22s", rck_cap_flow_src(f, src, sizeof(src)));
	emit_str(e, "dst", " %-22s", rck_cap_flow_dst(f, dst, sizeof(dst)));
	emit_u64(e, "dest_qp", " %8s", st[RCK_CAP_FLOW_DEST_QP]);
	emit_u64(e, "udp_sport", " %5s", st[RCK_CAP_FLOW_UDP_SPORT]);
	emit_u64(e, "packets", " %9s", st[RCK_CAP_FLOW_PACKETS]);
	emit_u64(e, "bytes", " %12s", st[RCK_CAP_FLOW_BYTES]);
	emit_u64(e, "first_ns", NULL, st[RCK_CAP_FLOW_FIRST_NS]);
	emit_u64(e, "last_ns", NULL, st[RCK_CAP_FLOW_LAST_NS]);
	emit_u64(e, "dscp", " %4s", st[RCK_CAP_FLOW_DSCP]);
	if (st[RCK_CAP_FLOW_VLAN] < 4096) {
		emit_u64(e, "vlan", " %4s", st[RCK_CAP_FLOW_VLAN]);
		emit_u64(e, "pcp", "/%s", st[RCK_CAP_FLOW_PCP]);
	} else {
		emit_null(e, "vlan", " %4s");
		emit_null(e, "pcp", NULL);
		emit_text(e, "  ");
	}
	emit_u64(e, "ect_marked", NULL, st[RCK_CAP_FLOW_ECT_MARKED]);
	emit_u64(e, "ce_marked", " %7s", st[RCK_CAP_FLOW_CE_MARKED]);
	emit_u64(e, "cnps", " %6s", st[RCK_CAP_FLOW_CNPS]);
	emit_u64(e, "retransmissions", " %7s", st[RCK_CAP_FLOW_RETRANSMISSIONS]);
	emit_u64(e, "psn_gaps", " %6s", st[RCK_CAP_FLOW_PSN_GAPS]);
	emit_u64(e, "psn_missing", NULL, st[RCK_CAP_FLOW_PSN_MISSING]);
	write_naks(e, &st[RCK_CAP_FLOW_NAK_PSN_SEQ_ERR], &st[RCK_CAP_FLOW_NAK_RNR], &st[RCK_CAP_FLOW_NAK_OTHER],
		   " %s", "/%s", "/%s\n");
	emit_obj_close(e);
}

/* Text shows the worst TEXT_FLOWS flows unless asked for all of them. */
#define TEXT_FLOWS 10

static void write_flows(struct emit *e, const struct rck_cap *cap, unsigned int flags)
{
	size_t n = cap->nflows;

	if (!emit_is_json(e) && !(flags & RCK_CAP_WRITE_FLOWS) && n > TEXT_FLOWS)
		n = TEXT_FLOWS;
	if (n)
		emit_text(e, "\nFlows, worst first:\n  %-22s %-22s %8s %5s %9s %12s %4s %6s %7s %6s %7s %6s %s\n",
			  "src", "dst", "dest_qp", "sport", "packets", "bytes", "dscp", "vlan", "ce", "cnps",
			  "retrans", "gaps", "naks seq/rnr/other");
	emit_arr_open(e, "flows");
	for (size_t i = 0; i < n; i++)
		write_flow(e, rck_cap_flow(cap, i));
	emit_arr_close(e);
	if (n < cap->nflows)
		emit_text(e, "  ... %zu more (--flows lists them all)\n", cap->nflows - n);
}

static void write_timeline(struct emit *e, const struct rck_cap *cap)
{
	size_t n = rck_cap_bucket_count(cap);
	double iv = rck_cap_interval_s(cap);

	emit_obj_open(e, "timeline");
	emit_text(e, "\nTimeline:");
	emit_double(e, "interval_s", " intervals of %s s; paused us per priority, CE-marked, retransmitted and RoCE packets\n", 6, iv);
	emit_text(e, "  %10s", "start_s");
	for (int p = 0; p < 8; p++)
		emit_text(e, " %9s%d", "prio", p);
	emit_text(e, " %10s %9s %9s %9s\n", "pause", "ce", "retrans", "roce");
	emit_arr_open(e, "buckets");
	for (size_t i = 0; i < n; i++) {
		const struct cap_bucket *b = &cap->buckets[i];

		emit_obj_open(e, NULL);
		emit_double(e, "start_s", "  %10s", 6, (double)i * iv);
		emit_arr_open(e, "pause_us");
		for (int p = 0; p < 8; p++)
			emit_double(e, NULL, " %10s", 1, b->pause_us[p]);
		emit_arr_close(e);
		emit_double(e, "legacy_pause_us", " %10s", 1, b->pause_us[RCK_CAP_PAUSE_LEGACY]);
		emit_u64(e, "ce_marked", " %9s", b->ce);
		emit_u64(e, "retransmissions", " %9s", b->retrans);
		emit_u64(e, "roce_packets", " %9s\n", b->roce);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_cap_write(const struct rck_cap *cap, FILE *out, enum rck_format fmt, unsigned int flags)
{
	uint64_t t0 = cap->st[RCK_CAP_FIRST_NS], t1 = cap->st[RCK_CAP_LAST_NS];
	struct emit *e;
	int rc;

	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, CAP_SCHEMA);
	emit_text(e, "Frames: ");
	stat(e, cap, RCK_CAP_PACKETS, "%s");
	stat(e, cap, RCK_CAP_BYTES, " (%s bytes)");
	emit_double(e, "duration_s", " over %s s", 6, t1 > t0 ? (double)(t1 - t0) / 1e9 : 0.0);
	stat(e, cap, RCK_CAP_MALFORMED, "; malformed %s");
	stat(e, cap, RCK_CAP_TRUNCATED, "; truncated %s");
	stat(e, cap, RCK_CAP_UNSUPPORTED_LINK, NULL);
	emit_text(e, "\n");
	write_unknown(e, cap);
	stat(e, cap, RCK_CAP_FIRST_NS, NULL);
	stat(e, cap, RCK_CAP_LAST_NS, NULL);
	emit_double(e, "speed_gbps", NULL, 3, cap->o.speed_gbps);
	write_pfc(e, cap);
	write_roce(e, cap, flags);
	write_flows(e, cap, flags);
	if (flags & RCK_CAP_WRITE_TIMELINE)
		write_timeline(e, cap);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
