/* Unit-test helper: a finding's value by its key (include after <cmocka.h>
 * and <rocecheck/analysis.h>). */
#ifndef RCK_TEST_FINDING_H
#define RCK_TEST_FINDING_H

#include <string.h>

/* The value @key of @f, @miss when it has none. */
static inline double finding_value(const struct rck_finding *f, const char *key, double miss)
{
	for (unsigned int i = 0; i < rck_finding_value_count(f); i++) {
		const char *k;
		double v;

		if (!rck_finding_value(f, i, &k, &v) && !strcmp(k, key))
			return v;
	}
	return miss;
}

#endif
