/* The cross-host lint's collector (lint.c): items of one attribute, each a
 * host (or NIC) with its value as text, judged for the odd one out. */
#ifndef RCK_ANALYSIS_LINT_H
#define RCK_ANALYSIS_LINT_H

#include <stddef.h>

#include "analysis_int.h"

struct litem {
	char group[64];  /* compared only within one group (firmware: per board) */
	char val[128];
	unsigned int host;
	char nic[80];    /* "" for a host-wide value */
};

struct lint {
	struct litem *it;
	size_t n, cap;
	int err;
};

struct what {
	const char *attr;       /* "firmware", "port rate" ... */
	const char *unit;
	enum rck_severity sev;
};

void lint_add(struct lint *l, const char *group, unsigned int host, const char *nic, const char *fmt,
	      ...) RCK_PRINTF(5, 6);
/* Judge the items collected (group by group), add the findings, empty @l. */
void lint_run(const struct rck_analysis *a, struct rck_report *r, struct lint *l, const struct what *w);

#endif
