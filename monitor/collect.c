/* Across hosts: the bad pairs the monitors report, grouped by the component
 * that explains them (a host or NIC in many of them), so one cause is one
 * finding; PFC storms are collect_storm.c's. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "monitor_int.h"

#define MC_FILE_MAX (16u << 20)

static bool pair_code(const char *code)
{
	return !strcmp(code, "probe_loss") || !strcmp(code, "probe_failed") || !strcmp(code, "link_latency");
}

static int add_pair(struct mc_set *s, const char *host, const char *peer, const char *code, bool active)
{
	struct mc_pair *v;

	for (unsigned int i = 0; i < s->n; i++) {
		struct mc_pair *p = &s->pairs[i];

		if (!strcmp(p->host, host) && !strcmp(p->peer, peer) && !strcmp(p->code, code)) {
			p->active = active;
			return 0;
		}
	}
	if (!active)
		return 0;
	if (s->n >= MC_PAIRS_MAX)
		return -E2BIG;
	v = realloc(s->pairs, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->pairs = v;
	v = &s->pairs[s->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->host, sizeof(v->host), "%s", host);
	snprintf(v->peer, sizeof(v->peer), "%s", peer);
	snprintf(v->code, sizeof(v->code), "%s", code);
	v->active = true;
	return 0;
}

/* A pause_storm finding: its port, and whether it sends (degraded) or is
 * paused (warning). One without a device is no port's: left out. */
static int storm_event(struct mc_set *s, json_t *o, const char *host, bool active)
{
	const char *device = NULL, *sev = NULL;
	json_int_t port = 0;

	if (json_unpack(o, "{s?:s, s?:I, s?:s}", "device", &device, "port", &port, "severity", &sev) || !device ||
	    !*device || strlen(device) >= MF_STR || port < 0 || port > 65535)
		return 0;
	return mc_add_storm(s, host, device, (unsigned int)port, !sev || strcmp(sev, "warning"), active);
}

int mc_add_events(struct mc_set *s, const char *text, size_t len, const char *name, char *err, size_t errlen)
{
	unsigned int ln = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		json_error_t je;
		json_t *o;
		const char *ev = NULL, *host = NULL, *code = NULL, *state = NULL, *peer = NULL;
		int rc = 0;

		ln++;
		if (!n || (n == 1 && text[pos] == '\r')) {
			pos += n + 1;
			continue;
		}
		o = json_loadb(text + pos, n, JSON_REJECT_DUPLICATES, &je);
		if (!o || json_unpack(o, "{s:s}", "event", &ev)) {
			json_decref(o);
			snprintf(err, errlen, "%s:%u: not a monitor event line", name, ln);
			return -EINVAL;
		}
		if (!strcmp(ev, "finding")) {
			if (json_unpack(o, "{s:s, s:s, s:s, s?:s}", "host", &host, "code", &code, "state", &state,
					"peer", &peer) || (strcmp(state, "active") && strcmp(state, "cleared")) ||
			    !*host || strlen(host) >= MF_STR || strlen(code) >= 32 || (peer && strlen(peer) >= MF_STR)) {
				json_decref(o);
				snprintf(err, errlen, "%s:%u: a finding needs host, code, state active|cleared", name, ln);
				return -EINVAL;
			}
			if (pair_code(code))
				rc = add_pair(s, host, peer ? peer : "", code, !strcmp(state, "active"));
			else if (!strcmp(code, "pause_storm"))
				rc = storm_event(s, o, host, !strcmp(state, "active"));
		}
		json_decref(o);
		if (rc) {
			snprintf(err, errlen, "%s:%u: %s", name, ln, rc == -E2BIG ? "too many findings" : "out of memory");
			return rc;
		}
		pos += n + 1;
	}
	return 0;
}

int mc_load_events(struct mc_set *s, const char *path, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = rck_file_read(path, false, MC_FILE_MAX, &buf, &len);

	if (rc) {
		snprintf(err, errlen, "%s: %s", path, rc == -EFBIG ? "larger than 16 MiB" : rck_strerror(rc));
		return rc == -RCK_ENOTREG ? -EINVAL : rc;
	}
	rc = mc_add_events(s, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

void mc_set_free(struct mc_set *s)
{
	free(s->pairs);
	free(s->storms);
	memset(s, 0, sizeof(*s));
}

/* How many active, unexplained pairs name @who (as the reporter or the peer). */
static unsigned int involving(const struct mc_set *s, const bool *used, const char *who)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->n; i++)
		if (s->pairs[i].active && !used[i] && (!strcmp(s->pairs[i].host, who) || !strcmp(s->pairs[i].peer, who)))
			n++;
	return n;
}

/* gcc 12 -O2 with sanitizers splits this function and then takes a pair's
 * names for a region of size 0 (-Wstringop-overread); they are arrays of
 * MF_STR, always terminated by mc_load_events(). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
int mc_group(const struct mc_set *s, mc_localise_fn localise, void *arg, struct mf_list *out)
{
	bool *used;
	int rc = 0;

	if ((rc = mc_group_storms(s, out)))
		return rc;
	if (localise)
		return localise(arg, s, out);
	used = calloc(s->n + 1, sizeof(*used));
	if (!used)
		return -ENOMEM;
	/* a host that names its own NIC (most peers lossy) explains its pairs */
	for (unsigned int i = 0; i < s->n; i++) {
		const struct mc_pair *p = &s->pairs[i];

		if (!p->active || used[i] || p->peer[0])
			continue;
		mf_add(out, p->code, RCK_SEVERITY_DEGRADED, p->host, 0, NULL,
		       "%s: its own monitor sees most of its peers lose probes", p->host);
		for (unsigned int j = 0; j < s->n; j++)
			if (!strcmp(s->pairs[j].host, p->host) || !strcmp(s->pairs[j].peer, p->host))
				used[j] = true;
	}
	/* then, greedily, the endpoint in most remaining pairs (two at least) */
	for (;;) {
		const char *best = NULL;
		unsigned int best_n = 1;
		char names[MF_REASON - 40] = "", who[MF_STR];
		unsigned int k = 0;

		for (unsigned int i = 0; i < s->n; i++) {
			const char *cand[2] = {s->pairs[i].host, s->pairs[i].peer};

			if (!s->pairs[i].active || used[i])
				continue;
			for (int c = 0; c < 2; c++) {
				unsigned int n = involving(s, used, cand[c]);

				if (n > best_n || (n == best_n && best && n > 1 && strcmp(cand[c], best) < 0)) {
					best = cand[c];
					best_n = n;
				}
			}
		}
		if (!best)
			break;
		/* a copy: gcc -O2 with sanitizers cannot bound @best's region */
		snprintf(who, sizeof(who), "%s", best);
		for (unsigned int i = 0; i < s->n; i++) {
			const struct mc_pair *p = &s->pairs[i];

			if (!p->active || used[i] || (strcmp(p->host, who) && strcmp(p->peer, who)))
				continue;
			used[i] = true;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 k++ ? ", " : "", strcmp(p->host, who) ? p->host : p->peer);
		}
		if (!mf_add(out, "nic_degraded", RCK_SEVERITY_DEGRADED, who, 0, NULL,
			    "%u bad pairs share it: with %s", k, names)) {
			rc = -ENOMEM;
			break;
		}
	}
	/* what is left: one link each */
	for (unsigned int i = 0; i < s->n && !rc; i++) {
		const struct mc_pair *p = &s->pairs[i];

		if (p->active && !used[i] &&
		    !mf_add(out, p->code, RCK_SEVERITY_DEGRADED, p->host, 0, p->peer, "%s -> %s", p->host, p->peer))
			rc = -ENOMEM;
	}
	free(used);
	return rc;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

RCK_EXPORT int rck_monitor_collect(const char *const *files, unsigned int n, FILE *out, char *err,
				   size_t errlen)
{
	struct mc_set s = { 0 };
	struct mf_list l = { 0 };
	char dummy[8];
	int rc = 0;

	if (!files || !out)
		return -EINVAL;
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	for (unsigned int i = 0; i < n && !rc; i++)
		rc = mc_load_events(&s, files[i], err, errlen);
	if (!rc)
		rc = mc_group(&s, NULL, NULL, &l);
	for (unsigned int i = 0; i < l.n && !rc; i++) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema", RCK_MONITOR_EVENT_SCHEMA,
				      "event", "localised", "code", l.v[i].code, "component", l.v[i].device,
				      "reason", l.v[i].reason);
		char *txt;

		if (o && l.v[i].peer[0])
			json_object_set_new(o, "peer", json_string(l.v[i].peer));
		txt = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER) : NULL;

		if (!txt)
			rc = -ENOMEM;
		else
			fprintf(out, "%s\n", txt);
		free(txt);
		json_decref(o);
	}
	mf_list_free(&l);
	mc_set_free(&s);
	return rc ? rc : ferror(out) ? -EIO : 0;
}
