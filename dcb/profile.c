/* DCB profiles: the built-in ones and a small commented key = value file
 * format (rocedcb(8)); errors name the file and line. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcb_internal.h"

/* Usual lossless RoCE: DSCP trust, RoCE data DSCP 26 on priority 3 with PFC
 * on 3 only, CNPs (DSCP 48) on priority 6, ToS 106 = DSCP 26 + ECT(0). */
static const char roce_lossless[] =
	"# Lossless RoCE v2 with DSCP trust\n"
	"name = roce-lossless\n"
	"roce_priority = 3\n"
	"pfc = 3\n"
	"dscp = 26:3 48:6\n"
	"cnp_priority = 6\n"
	"trust = dscp\n"
	"# one priority per TC; CNPs strict, RoCE gets the largest share\n"
	"ets_prio_tc = 0 1 2 3 4 5 6 7\n"
	"ets_tc_bw = 10 10 10 40 10 10 0 10\n"
	"ets_tsa = ets ets ets ets ets ets strict ets\n"
	"roce_tos = 106\n"
	"roce_mode = 2\n";

static const struct {
	const char *name;
	const char *text;
} builtins[] = {
	{ "roce-lossless", roce_lossless },
};

struct pctx {
	const char *source;
	unsigned int line;
	char *err;
	size_t errlen;
};

static int perr(struct pctx *c, const char *fmt, ...) RCK_PRINTF(2, 3);
static int perr(struct pctx *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->errlen)
		snprintf(c->err, c->errlen, "%s:%u: %s", c->source, c->line, msg);
	return -EINVAL;
}

/* Next word of a list separated by blanks or commas; NULL at the end. */
static char *next_word(char **s)
{
	char *w;

	while (**s && (isspace((unsigned char)**s) || **s == ','))
		(*s)++;
	if (!**s)
		return NULL;
	w = *s;
	while (**s && !isspace((unsigned char)**s) && **s != ',')
		(*s)++;
	if (**s)
		*(*s)++ = '\0';
	return w;
}

static int num(const char *w, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*w))
		return -EINVAL;
	errno = 0;
	*out = strtoul(w, &end, 10);
	return (errno || *end || *out > max) ? -EINVAL : 0;
}

static int prio_list(struct pctx *c, const char *key, char *v, uint8_t *bitmap)
{
	unsigned long p;
	char *w;

	*bitmap = 0;
	if (!strcmp(v, "none"))
		return 0;
	while ((w = next_word(&v))) {
		if (num(w, DCB_NPRIO - 1, &p))
			return perr(c, "%s: '%s' is not a priority (0-7)", key, w);
		*bitmap |= (uint8_t)(1u << p);
	}
	return 0;
}

static int eight(struct pctx *c, const char *key, char *v, unsigned long max, uint8_t *out)
{
	unsigned long n;
	int i = 0;
	char *w;

	while ((w = next_word(&v))) {
		if (i == DCB_NPRIO)
			return perr(c, "%s: more than 8 values", key);
		if (num(w, max, &n))
			return perr(c, "%s: '%s' is not a number 0-%lu", key, w, max);
		out[i++] = (uint8_t)n;
	}
	return i == DCB_NPRIO ? 0 : perr(c, "%s: 8 values needed, %d given", key, i);
}

static int tsa_list(struct pctx *c, char *v, uint8_t *out)
{
	int i = 0;
	char *w;

	while ((w = next_word(&v))) {
		if (i == DCB_NPRIO)
			return perr(c, "ets_tsa: more than 8 values");
		if (!strcmp(w, "strict"))
			out[i] = IEEE_8021QAZ_TSA_STRICT;
		else if (!strcmp(w, "ets"))
			out[i] = IEEE_8021QAZ_TSA_ETS;
		else if (!strcmp(w, "cbs"))
			out[i] = IEEE_8021QAZ_TSA_CB_SHAPER;
		else if (!strcmp(w, "vendor"))
			out[i] = IEEE_8021QAZ_TSA_VENDOR;
		else
			return perr(c, "ets_tsa: '%s' is not strict, ets, cbs or vendor", w);
		i++;
	}
	return i == DCB_NPRIO ? 0 : perr(c, "ets_tsa: 8 values needed, %d given", i);
}

/* "26:3 48:6" for selector @sel. A value mapped twice is refused. */
static int app_list(struct pctx *c, const char *key, char *v, uint8_t sel, unsigned long maxproto,
		    struct rck_dcb_profile *p)
{
	unsigned long proto, prio;
	char *w, *colon;

	while ((w = next_word(&v))) {
		colon = strchr(w, ':');
		if (!colon)
			return perr(c, "%s: '%s' is not VALUE:PRIORITY", key, w);
		*colon = '\0';
		if (num(w, maxproto, &proto))
			return perr(c, "%s: '%s' is not a value 0-%lu", key, w, maxproto);
		if (num(colon + 1, DCB_NPRIO - 1, &prio))
			return perr(c, "%s: '%s' is not a priority (0-7)", key, colon + 1);
		for (size_t i = 0; i < p->n_dscp; i++)
			if (p->dscp[i].selector == sel && p->dscp[i].protocol == proto)
				return perr(c, "%s: %lu mapped twice", key, proto);
		if (p->n_dscp == RCK_ARRAY_SIZE(p->dscp))
			return perr(c, "%s: too many entries", key);
		p->dscp[p->n_dscp++] = (struct dcb_app_ent){ sel, (uint8_t)prio, (uint16_t)proto };
	}
	return 0;
}

/* "host ieee", "lld-managed cee ieee": one of host and lld-managed (who
 * runs the DCBX state machine), at least one version, static optional. */
static int dcbx_words(struct pctx *c, char *v, struct rck_dcb_profile *p)
{
	uint8_t mode = 0, who, ver;
	char *w;

	while ((w = next_word(&v))) {
		uint8_t bit = dcb_dcbx_bit(w);

		if (!bit)
			return perr(c, "dcbx: '%s' is not host, lld-managed, cee, ieee or static", w);
		if (mode & bit)
			return perr(c, "dcbx: '%s' given twice", w);
		mode |= bit;
	}
	who = mode & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED);
	ver = mode & (DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
	if (who != DCB_CAP_DCBX_HOST && who != DCB_CAP_DCBX_LLD_MANAGED)
		return perr(c, "dcbx: one of host and lld-managed is needed");
	if (!ver)
		return perr(c, "dcbx: a version (cee, ieee or both) is needed");
	p->dcbx = mode;
	p->has_dcbx = true;
	return 0;
}

static int set_key(struct pctx *c, struct rck_dcb_profile *p, const char *k, char *v,
		   unsigned int *seen)
{
	static const char *const keys[] = {
		"name", "roce_priority", "pfc", "cnp_priority", "trust", "ets_prio_tc",
		"ets_tc_bw", "ets_tsa", "roce_tos", "roce_mode", "dcbx", "dscp", "pcp",
	};
	unsigned long n;
	size_t idx;

	for (idx = 0; idx < RCK_ARRAY_SIZE(keys) && strcmp(keys[idx], k); idx++)
		;
	if (idx == RCK_ARRAY_SIZE(keys))
		return perr(c, "unknown key '%s'", k);
	/* dscp and pcp may span several lines; the others are given once. */
	if (idx < 11 && (*seen & (1u << idx)))
		return perr(c, "'%s' given twice", k);
	*seen |= 1u << idx;
	if (!*v)
		return perr(c, "'%s' has no value", k);
	switch (idx) {
	case 0:
		if (strlen(v) >= sizeof(p->name) || strpbrk(v, " \t"))
			return perr(c, "name: one word of at most %zu characters", sizeof(p->name) - 1);
		strcpy(p->name, v);
		return 0;
	case 1:
	case 3:
		if (num(v, DCB_NPRIO - 1, &n))
			return perr(c, "%s: '%s' is not a priority (0-7)", k, v);
		if (idx == 1) {
			p->roce_prio = (uint8_t)n;
			p->has_roce_prio = true;
		} else {
			p->cnp_prio = (uint8_t)n;
			p->has_cnp_prio = true;
		}
		return 0;
	case 2:
		p->has_pfc = true;
		return prio_list(c, k, v, &p->pfc);
	case 4:
		if (strcmp(v, "dscp") && strcmp(v, "pcp"))
			return perr(c, "trust: '%s' is not dscp or pcp", v);
		strcpy(p->trust, v);
		p->has_trust = true;
		return 0;
	case 5:
		p->has_prio_tc = true;
		return eight(c, k, v, DCB_NPRIO - 1, p->prio_tc);
	case 6:
		p->has_tc_bw = true;
		return eight(c, k, v, 100, p->tc_bw);
	case 7:
		p->has_tsa = true;
		return tsa_list(c, v, p->tsa);
	case 8:
		if (num(v, 255, &n))
			return perr(c, "roce_tos: '%s' is not a number 0-255", v);
		p->tos = (unsigned int)n;
		p->has_tos = true;
		return 0;
	case 9:
		if (!strcmp(v, "2") || !strcmp(v, "v2") || !strcmp(v, "RoCE v2"))
			strcpy(p->mode, "RoCE v2");
		else if (!strcmp(v, "1") || !strcmp(v, "v1") || !strcmp(v, "IB/RoCE v1"))
			strcpy(p->mode, "IB/RoCE v1");
		else
			return perr(c, "roce_mode: '%s' is not 1 or 2", v);
		p->has_mode = true;
		return 0;
	case 10:
		return dcbx_words(c, v, p);
	case 11:
		return app_list(c, k, v, RCK_DCB_SEL_DSCP, 63, p);
	default:
		return app_list(c, k, v, RCK_DCB_SEL_PCP, 7, p);
	}
}

static int check_whole(struct pctx *c, const struct rck_dcb_profile *p)
{
	unsigned int sum = 0, ets = 0;

	if (!p->name[0])
		return perr(c, "no 'name'");
	if (p->has_tc_bw && p->has_tsa) {
		for (int i = 0; i < DCB_NPRIO; i++)
			if (p->tsa[i] == IEEE_8021QAZ_TSA_ETS) {
				sum += p->tc_bw[i];
				ets++;
			}
		if (ets && sum != 100)
			return perr(c, "ets_tc_bw: the ETS classes' shares add up to %u, not 100", sum);
	}
	return 0;
}

RCK_EXPORT int rck_dcb_profile_parse(const char *text, size_t len, const char *source, char *err,
				     size_t errlen, struct rck_dcb_profile **out)
{
	struct pctx c = { .source = source ? source : "profile", .err = err, .errlen = errlen };
	struct rck_dcb_profile *p;
	unsigned int seen = 0;
	size_t pos = 0;
	int rc = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!text && len)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	while (pos < len && !rc) {
		char line[1024], *k, *v, *eq, *hash, *end;
		size_t n = 0;

		c.line++;
		while (pos + n < len && text[pos + n] != '\n')
			n++;
		if (n >= sizeof(line)) {
			rc = perr(&c, "line too long");
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (memchr(line, '\0', n)) {
			rc = perr(&c, "NUL byte");
			break;
		}
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		k = line;
		while (isspace((unsigned char)*k))
			k++;
		if (!*k)
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			rc = perr(&c, "expected KEY = VALUE");
			break;
		}
		v = eq + 1;
		for (end = eq; end > k && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		while (isspace((unsigned char)*v))
			v++;
		for (end = v + strlen(v); end > v && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		rc = set_key(&c, p, k, v, &seen);
	}
	if (!rc) {
		c.line = 0;
		rc = check_whole(&c, p);
	}
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

RCK_EXPORT int rck_dcb_profile_load(const char *name, char *err, size_t errlen,
				    struct rck_dcb_profile **out)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f;
	int rc;

	*out = NULL;
	if (!name || !*name)
		return -EINVAL;
	for (size_t i = 0; i < RCK_ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return rck_dcb_profile_parse(builtins[i].text, strlen(builtins[i].text), name,
						     err, errlen, out);
	f = fopen(name, "re");
	if (!f) {
		rc = -errno;
		if (errlen)
			snprintf(err, errlen, "%s: no built-in profile or readable file: %s", name,
				 strerror(-rc));
		return rc;
	}
	/* Profiles are a few hundred bytes; 1 MiB is plenty. */
	while (!ferror(f) && !feof(f) && len < (1u << 20)) {
		char *n;

		if (len + 4096 > cap) {
			n = realloc(buf, cap + 8192);
			if (!n) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = n;
			cap += 8192;
		}
		len += fread(buf + len, 1, cap - len, f);
	}
	rc = ferror(f) ? -EIO : len >= (1u << 20) ? -EFBIG : 0;
	fclose(f);
	if (!rc)
		rc = rck_dcb_profile_parse(buf ? buf : "", len, name, err, errlen, out);
	else if (errlen)
		snprintf(err, errlen, "%s: %s", name, strerror(-rc));
	free(buf);
	return rc;
}

RCK_EXPORT void rck_dcb_profile_free(struct rck_dcb_profile *p)
{
	free(p);
}

RCK_EXPORT const char *rck_dcb_profile_name(const struct rck_dcb_profile *p)
{
	return p->name;
}
