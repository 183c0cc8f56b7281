/* LLDP decoding (IEEE 802.1AB) of the chassis and port IDs and the IEEE
 * 802.1Qaz DCBX TLVs: ETS configuration and recommendation, PFC, APP. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lldp.h"

enum {
	TLV_END = 0, TLV_CHASSIS = 1, TLV_PORT = 2, TLV_TTL = 3, TLV_PORT_DESC = 4,
	TLV_SYS_NAME = 5, TLV_ORG = 127,
};
/* IEEE 802.1 organisation (00-80-C2) subtypes of 802.1Qaz. */
enum { QAZ_ETS_CFG = 9, QAZ_ETS_RECO = 10, QAZ_PFC = 11, QAZ_APP = 12 };

static void warn(struct rck_lldp *l, const char *fmt, ...) RCK_PRINTF(2, 3);
static void warn(struct rck_lldp *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n_warn == LLDP_MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(l->warn[l->n_warn++], sizeof(l->warn[0]), fmt, ap);
	va_end(ap);
}

static void mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* Printable text as is (control bytes become '?'), for names and IDs. */
static void text_str(const uint8_t *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++)
		buf[o++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	buf[o] = '\0';
}

static void hex_str(const uint8_t *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o + 4 <= len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%02x", i ? ":" : "", p[i]);
}

/* Chassis ID subtype 4 and port ID subtype 3 are MAC addresses; 5 (chassis)
 * and 4 (port) network addresses; the name-like subtypes are text. */
static void id_str(bool chassis, uint8_t sub, const uint8_t *p, size_t n, char *buf, size_t len)
{
	bool mac = chassis ? sub == 4 : sub == 3;
	bool addr = chassis ? sub == 5 : sub == 4;

	if (mac && n == 6)
		mac_str(p, buf, len);
	else if (addr && n == 5 && p[0] == 1)
		snprintf(buf, len, "%u.%u.%u.%u", p[1], p[2], p[3], p[4]);
	else if (mac || addr)
		hex_str(p, n, buf, len);
	else
		text_str(p, n, buf, len);
}

/* Priority assignment table: 4 bits a priority, priority 0 in the top nibble. */
static void prio_table(const uint8_t *p, uint8_t *prio_tc)
{
	for (int i = 0; i < 8; i++)
		prio_tc[i] = (p[i / 2] >> (i % 2 ? 0 : 4)) & 0x0f;
}

static void org_tlv(struct rck_lldp *l, const uint8_t *v, size_t n)
{
	static const uint8_t ieee[3] = { 0x00, 0x80, 0xc2 };
	uint8_t sub;

	if (n < 4) {
		warn(l, "organisation TLV of %zu bytes (at least 4)", n);
		return;
	}
	if (memcmp(v, ieee, 3))
		return;
	sub = v[3];
	v += 4;
	n -= 4;
	switch (sub) {
	case QAZ_ETS_CFG:
	case QAZ_ETS_RECO: {
		struct lldp_ets *e = sub == QAZ_ETS_CFG ? &l->ets : &l->reco;

		if (n != 21) {
			warn(l, "ETS %s TLV of %zu bytes (21 expected)",
			     sub == QAZ_ETS_CFG ? "configuration" : "recommendation", n + 4);
			return;
		}
		memset(e, 0, sizeof(*e));
		e->present = true;
		if (sub == QAZ_ETS_CFG) {
			e->willing = v[0] & 0x80;
			e->cbs = v[0] & 0x40;
			e->max_tcs = v[0] & 0x07 ? v[0] & 0x07 : 8;
		}
		prio_table(v + 1, e->prio_tc);
		memcpy(e->tc_bw, v + 5, 8);
		memcpy(e->tsa, v + 13, 8);
		for (int i = 0; i < 8; i++)
			if (e->prio_tc[i] > 7)
				warn(l, "ETS: priority %d on traffic class %u (0-7)", i, e->prio_tc[i]);
		return;
	}
	case QAZ_PFC:
		if (n != 2) {
			warn(l, "PFC TLV of %zu bytes (6 expected)", n + 4);
			return;
		}
		l->has_pfc = true;
		l->pfc_willing = v[0] & 0x80;
		l->pfc_mbc = v[0] & 0x40;
		l->pfc_cap = v[0] & 0x0f;
		l->pfc_en = v[1];
		return;
	case QAZ_APP:
		if (n < 1 || (n - 1) % 3) {
			warn(l, "APP TLV of %zu bytes (5 + 3 per entry expected)", n + 4);
			return;
		}
		l->has_app = true;
		l->n_apps = 0;
		for (size_t i = 1; i + 3 <= n; i += 3) {
			if (l->n_apps == LLDP_MAX_APPS) {
				warn(l, "APP TLV: more than %d entries", LLDP_MAX_APPS);
				break;
			}
			l->apps[l->n_apps].priority = v[i] >> 5;
			l->apps[l->n_apps].selector = v[i] & 0x07;
			l->apps[l->n_apps].protocol = (uint16_t)(v[i + 1] << 8 | v[i + 2]);
			l->n_apps++;
		}
		return;
	default:
		return;
	}
}

int lldp_decode(const uint8_t *f, size_t len, struct rck_lldp *l)
{
	size_t off = 12;
	unsigned int seen = 0;
	bool end = false;

	memset(l, 0, sizeof(*l));
	if (len < 14)
		return -EBADMSG;
	mac_str(f + 6, l->src_mac, sizeof(l->src_mac));
	/* One 802.1Q tag may come first. */
	if (f[off] == 0x81 && f[off + 1] == 0x00) {
		if (len < 18)
			return -EBADMSG;
		off += 4;
	}
	if ((f[off] << 8 | f[off + 1]) != LLDP_ETHERTYPE)
		return -EBADMSG;
	off += 2;
	while (!end && off + 2 <= len) {
		unsigned int type = f[off] >> 1;
		size_t n = (size_t)(f[off] & 1) << 8 | f[off + 1];
		const uint8_t *v = f + off + 2;

		off += 2;
		if (off + n > len) {
			warn(l, "TLV type %u of %zu bytes runs past the frame's end", type, n);
			break;
		}
		off += n;
		/* The first three TLVs are chassis ID, port ID, TTL, in that order. */
		if (seen < 3 && type != seen + 1) {
			warn(l, "TLV type %u where type %u must come", type, seen + 1);
			return -EBADMSG;
		}
		switch (type) {
		case TLV_END:
			end = true;
			break;
		case TLV_CHASSIS:
		case TLV_PORT:
			if (n < 2 || n > 256) {
				warn(l, "%s ID TLV of %zu bytes (2-256)", type == TLV_CHASSIS ? "chassis" : "port", n);
				return -EBADMSG;
			}
			if (type == TLV_CHASSIS) {
				l->chassis_subtype = v[0];
				id_str(true, v[0], v + 1, n - 1, l->chassis_id, sizeof(l->chassis_id));
			} else {
				l->port_subtype = v[0];
				id_str(false, v[0], v + 1, n - 1, l->port_id, sizeof(l->port_id));
			}
			break;
		case TLV_TTL:
			if (n < 2) {
				warn(l, "TTL TLV of %zu bytes (2)", n);
				return -EBADMSG;
			}
			l->has_ttl = true;
			l->ttl = (uint16_t)(v[0] << 8 | v[1]);
			break;
		case TLV_PORT_DESC:
			text_str(v, n, l->port_desc, sizeof(l->port_desc));
			break;
		case TLV_SYS_NAME:
			text_str(v, n, l->sys_name, sizeof(l->sys_name));
			break;
		case TLV_ORG:
			org_tlv(l, v, n);
			break;
		default:
			break;
		}
		if (seen < 3)
			seen++;
	}
	if (seen < 3) {
		if (!l->n_warn)
			warn(l, "frame ends before the chassis ID, port ID and TTL");
		return -EBADMSG;
	}
	if (!end)
		warn(l, "no End of LLDPDU TLV");
	return 0;
}
