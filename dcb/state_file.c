/* rocedcb's state file: the JSON of rck_dcb_write() saved atomically before
 * an apply, and loaded back (only what restore writes) for `restore`. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcb_internal.h"

static int save_fn(FILE *f, const void *arg)
{
	return dcb_write_port(arg, RCK_FORMAT_JSON_PRETTY, f);
}

int dcb_state_save(const struct rck_dcb *d, const char *path)
{
	return rck_write_atomic(path, save_fn, d);
}

/* Eight small numbers from array @key of @obj into @out (u8, u32 or u64 by @size). */
static int get_arr(json_t *obj, const char *key, void *out, size_t size, uint64_t max)
{
	json_t *a = json_object_get(obj, key), *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != DCB_NPRIO)
		return -EINVAL;
	json_array_foreach(a, i, v) {
		json_int_t n = json_integer_value(v);

		if (!json_is_integer(v) || n < 0 || (uint64_t)n > max)
			return -EINVAL;
		if (size == 1)
			((uint8_t *)out)[i] = (uint8_t)n;
		else if (size == 4)
			((uint32_t *)out)[i] = (uint32_t)n;
		else
			((uint64_t *)out)[i] = (uint64_t)n;
	}
	return 0;
}

static int get_tsa(json_t *obj, const char *key, uint8_t *out)
{
	static const char *const names[] = { "strict", "cbs", "ets" };
	json_t *a = json_object_get(obj, key), *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != DCB_NPRIO)
		return -EINVAL;
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		if (!s)
			return -EINVAL;
		out[i] = IEEE_8021QAZ_TSA_VENDOR;
		for (uint8_t k = 0; k < RCK_ARRAY_SIZE(names); k++)
			if (!strcmp(s, names[k]))
				out[i] = k;
	}
	return 0;
}

static json_t *feature(json_t *root, const char *key, struct rck_dcb *d, enum rck_dcb_feature f)
{
	json_t *o = json_object_get(root, key);

	if (!json_is_object(o) || !json_is_true(json_object_get(o, "supported")))
		return NULL;
	d->err[f] = 0;
	return o;
}

static int u64_of(json_t *o, const char *key, uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
		return -EINVAL;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int load_pfc(json_t *o, struct rck_dcb *d)
{
	json_t *en = json_object_get(o, "enabled"), *v;
	uint64_t n = 0;
	size_t i;

	if (!json_is_array(en))
		return -EINVAL;
	json_array_foreach(en, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= DCB_NPRIO)
			return -EINVAL;
		d->pfc.pfc_en |= (uint8_t)(1u << json_integer_value(v));
	}
	if (u64_of(o, "delay", UINT16_MAX, &n))
		return -EINVAL;
	d->pfc.delay = (uint16_t)n;
	if (u64_of(o, "cap", UINT8_MAX, &n))
		return -EINVAL;
	d->pfc.pfc_cap = (uint8_t)n;
	d->pfc.mbc = json_is_true(json_object_get(o, "mbc"));
	/* The counters, when written (a restore has no use for them). */
	if (json_object_get(o, "requests") &&
	    get_arr(o, "requests", d->pfc.requests, 8, UINT64_MAX))
		return -EINVAL;
	if (json_object_get(o, "indications") &&
	    get_arr(o, "indications", d->pfc.indications, 8, UINT64_MAX))
		return -EINVAL;
	return 0;
}

static int load_ets(json_t *o, struct rck_dcb *d)
{
	uint64_t cap;

	d->ets.willing = json_is_true(json_object_get(o, "willing"));
	d->ets.cbs = json_is_true(json_object_get(o, "cbs"));
	if (u64_of(o, "ets_cap", UINT8_MAX, &cap))
		return -EINVAL;
	d->ets.ets_cap = (uint8_t)cap;
	if (get_arr(o, "prio_tc", d->ets.prio_tc, 1, DCB_NPRIO - 1) ||
	    get_arr(o, "tc_bw", d->ets.tc_tx_bw, 1, 100) || get_tsa(o, "tc_tsa", d->ets.tc_tsa) ||
	    get_arr(o, "tc_rx_bw", d->ets.tc_rx_bw, 1, 100) ||
	    get_arr(o, "reco_prio_tc", d->ets.reco_prio_tc, 1, DCB_NPRIO - 1) ||
	    get_arr(o, "reco_tc_bw", d->ets.tc_reco_bw, 1, 100) ||
	    get_tsa(o, "reco_tc_tsa", d->ets.tc_reco_tsa))
		return -EINVAL;
	return 0;
}

static int load_app(json_t *o, struct rck_dcb *d)
{
	json_t *entries = json_object_get(o, "entries"), *v;
	size_t i;
	int rc;

	if (!json_is_array(entries))
		return -EINVAL;
	json_array_foreach(entries, i, v) {
		const char *sel = json_string_value(json_object_get(v, "selector"));
		uint64_t proto, prio;
		uint8_t s;

		if (!sel || u64_of(v, "protocol", UINT16_MAX, &proto) ||
		    u64_of(v, "priority", DCB_NPRIO - 1, &prio))
			return -EINVAL;
		if (!strcmp(sel, "dscp"))
			s = RCK_DCB_SEL_DSCP;
		else if (!strcmp(sel, "pcp"))
			s = RCK_DCB_SEL_PCP;
		else if (!strcmp(sel, "ethertype"))
			s = IEEE_8021QAZ_APP_SEL_ETHERTYPE;
		else if (!strcmp(sel, "stream"))
			s = IEEE_8021QAZ_APP_SEL_STREAM;
		else if (!strcmp(sel, "dgram"))
			s = IEEE_8021QAZ_APP_SEL_DGRAM;
		else if (!strcmp(sel, "any"))
			s = IEEE_8021QAZ_APP_SEL_ANY;
		else if (sscanf(sel, "sel-%hhu", &s) != 1)
			return -EINVAL;
		rc = dcb_app_push(d, s, (uint16_t)proto, (uint8_t)prio);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_root(json_t *root, struct rck_dcb *d)
{
	json_t *o;
	uint64_t n;
	const char *mode;

	if ((o = feature(root, "pfc", d, RCK_DCB_PFC)) && load_pfc(o, d))
		return -EINVAL;
	if ((o = feature(root, "ets", d, RCK_DCB_ETS)) && load_ets(o, d))
		return -EINVAL;
	if ((o = feature(root, "app", d, RCK_DCB_APP)) && load_app(o, d))
		return -EINVAL;
	if ((o = feature(root, "dcbx", d, RCK_DCB_DCBX))) {
		if (u64_of(o, "mode", UINT8_MAX, &n))
			return -EINVAL;
		d->dcbx = (uint8_t)n;
	}
	if ((o = feature(root, "maxrate", d, RCK_DCB_MAXRATE))) {
		uint64_t kbps[DCB_NPRIO];

		if (get_arr(o, "tc_maxrate_kbps", kbps, 8, INT64_MAX))
			return -EINVAL;
		for (int i = 0; i < DCB_NPRIO; i++)
			d->maxrate.tc_maxrate[i] = kbps[i];
	}
	if ((o = feature(root, "buffer", d, RCK_DCB_BUFFER))) {
		if (get_arr(o, "prio_buffer", d->buffer.prio2buffer, 1, DCBX_MAX_BUFFERS - 1) ||
		    get_arr(o, "buffer_size", d->buffer.buffer_size, 4, UINT32_MAX) ||
		    u64_of(o, "total_size", UINT32_MAX, &n))
			return -EINVAL;
		d->buffer.total_size = (uint32_t)n;
	}
	if ((o = feature(root, "rdma_cm", d, RCK_DCB_RDMA_CM))) {
		mode = json_string_value(json_object_get(o, "default_roce_mode"));
		if (u64_of(o, "default_roce_tos", 255, &n) || !mode)
			return -EINVAL;
		d->roce_tos = (unsigned int)n;
		snprintf(d->roce_mode, sizeof(d->roce_mode), "%s", mode);
	}
	return 0;
}

/* Vendor knobs and the trust as the reading host derived it; absent ones
 * are left (trust is then derived here). */
static int load_vendor_trust(json_t *root, struct rck_dcb *d)
{
	json_t *vendor = json_object_get(root, "vendor"), *trust = json_object_get(root, "trust"), *v;
	const char *key, *mode, *from;
	int rc;

	if (vendor && !json_is_object(vendor))
		return -EINVAL;
	json_object_foreach(vendor, key, v) {
		if (!json_is_string(v) || d->n_vendor >= 64)
			return -EINVAL;
		rc = dcb_vendor_push(d, key, json_string_value(v));
		if (rc)
			return rc;
	}
	dcb_derive_trust(d);
	if (!trust)
		return 0;
	mode = json_string_value(json_object_get(trust, "mode"));
	from = json_string_value(json_object_get(trust, "derived_from"));
	if (!mode || !from)
		return -EINVAL;
	return dcb_set_trust(d, mode, from);
}

static int from_json(const json_t *croot, bool need_schema, struct rck_dcb **out)
{
	json_t *root = (json_t *)croot;
	const char *ifname, *dev, *schema;
	struct rck_dcb *d;
	uint64_t port = 0;
	int rc;

	ifname = json_string_value(json_object_get(root, "interface"));
	schema = json_string_value(json_object_get(root, "schema"));
	if (!json_is_object(root) || (need_schema && (!schema || strcmp(schema, "rocedcb.state/1"))) ||
	    !ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	d = dcb_alloc(ifname);
	if (!d)
		return -ENOMEM;
	dev = json_string_value(json_object_get(root, "rdma_device"));
	if (dev) {
		d->rdma_dev = strdup(dev);
		if (u64_of(root, "rdma_port", 255, &port))
			port = 1;
		d->rdma_port = (unsigned int)port;
	}
	rc = (dev && !d->rdma_dev) ? -ENOMEM : load_root(root, d);
	if (!rc)
		rc = load_vendor_trust(root, d);
	if (rc) {
		rck_dcb_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int dcb_port_from_json(const json_t *obj, struct rck_dcb **out)
{
	*out = NULL;
	return from_json(obj, false, out);
}

int dcb_show_parse(const char *buf, size_t len, struct rck_dcb ***out, size_t *n)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr), *ports, *p;
	struct rck_dcb **v = NULL;
	size_t i, k = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!root)
		return -EINVAL;
	ports = json_object_get(root, "ports");
	if (!ports) { /* one state file */
		v = calloc(1, sizeof(*v));
		rc = !v ? -ENOMEM : from_json(root, true, &v[0]);
		k = !rc;
	} else if (!json_is_array(ports) || json_array_size(ports) > 256) {
		rc = -EINVAL;
	} else if (json_array_size(ports) && !(v = calloc(json_array_size(ports), sizeof(*v)))) {
		rc = -ENOMEM;
	} else {
		json_array_foreach(ports, i, p) {
			if ((rc = from_json(p, false, &v[k])))
				break;
			k++;
		}
	}
	json_decref(root);
	if (rc) {
		for (i = 0; i < k; i++)
			rck_dcb_free(v[i]);
		free(v);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}

int dcb_state_parse(const char *buf, size_t len, struct rck_dcb **out)
{
	json_error_t jerr;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	*out = NULL;
	if (!root)
		return -EINVAL;
	rc = from_json(root, true, out);
	json_decref(root);
	return rc;
}

int dcb_state_load(const char *path, struct rck_dcb **out)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	*out = NULL;
	if (!root)
		return access(path, R_OK) ? -errno : -EINVAL;
	rc = from_json(root, true, out);
	json_decref(root);
	return rc;
}
