/* The PCIe AER counts a sweep's state keeps between runs, as JSON
 * ({"0000:25:00.0": [correctable, nonfatal, fatal]}), saved and loaded. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "../lib/pcie.h"
#include "sweep_int.h"

/* Most functions kept: far more than any server's PCIe tree. */
#define SW_AER_MAX 4096

void sw_keep_aer(struct rck_sweep_state *st, const struct rck_pcie *p)
{
	struct rck_pcie *c;

	/* Out of memory: the old counts stay, and the next run compares with them. */
	if (!p || pcie_aer_copy(p, &c))
		return;
	rck_pcie_free(st->pcie_aer);
	st->pcie_aer = c;
}

json_t *sw_aer_json(const struct rck_pcie *p)
{
	json_t *o = json_object();

	for (unsigned int i = 0; o && i < p->n_fns; i++) {
		const struct rck_pcie_fn *f = &p->fns[i];

		if (f->has_aer &&
		    json_object_set_new(o, f->address, json_pack("[I,I,I]", (json_int_t)f->aer[0],
								  (json_int_t)f->aer[1], (json_int_t)f->aer[2]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int sw_aer_load(const json_t *j, struct rck_pcie **out)
{
	struct rck_pcie *p;
	const char *addr;
	json_t *v;
	int rc;

	*out = NULL;
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j) || json_object_size(j) > SW_AER_MAX)
		return -EINVAL;
	rc = pcie_aer_copy(NULL, &p);
	if (rc)
		return rc;
	json_object_foreach((json_t *)j, addr, v) {
		uint64_t aer[3];

		if (!json_is_array(v) || json_array_size(v) != 3) {
			rc = -EINVAL;
			break;
		}
		for (size_t k = 0; k < 3 && !rc; k++) {
			json_t *n = json_array_get(v, k);

			if (!json_is_integer(n) || json_integer_value(n) < 0)
				rc = -EINVAL;
			else
				aer[k] = (uint64_t)json_integer_value(n);
		}
		if (!rc)
			rc = pcie_aer_add(p, addr, aer);
		if (rc)
			break;
	}
	if (rc) {
		rck_pcie_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
