/* Each host's PCIe paths in the sweep result: the snapshot its agent read
 * (a copy), or why it could not. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "internal.h"
#include "pcie.h"
#include "result.h"

void mesh_host_pcie_clear(struct mesh_host *h)
{
	rck_pcie_free(h->pcie);
	free(h->pcie_error);
	h->pcie = NULL;
	h->pcie_error = NULL;
	h->pcie_has = false;
}

RCK_EXPORT int rck_mesh_host_set_pcie(struct rck_mesh *m, unsigned int h, const struct rck_pcie *p,
				      const char *error)
{
	struct rck_pcie *copy = NULL;
	char *e = NULL;
	int rc;

	if (!m || h >= m->names.n || !p == !error)
		return -EINVAL;
	if (p && (rc = pcie_copy(p, &copy)))
		return rc == -EINVAL ? -ENOMEM : rc;
	if (error) {
		e = strndup(error, 255);
		if (!e)
			return -ENOMEM;
		/* One line: a reason is shown as it came. */
		for (char *c = e; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
	}
	mesh_host_pcie_clear(&m->hosts[h]);
	m->hosts[h].pcie = copy;
	m->hosts[h].pcie_error = e;
	m->hosts[h].pcie_has = true;
	return 0;
}

RCK_EXPORT int rck_mesh_host_pcie(const struct rck_mesh *m, unsigned int h, const struct rck_pcie **p,
				  const char **error)
{
	if (!m || h >= m->names.n)
		return -EINVAL;
	if (!m->hosts[h].pcie_has)
		return -ENOENT;
	if (p)
		*p = m->hosts[h].pcie;
	if (error)
		*error = m->hosts[h].pcie_error;
	return 0;
}

/* "pcie", left out when not collected: {"error": reason or null, "topo":
 * the rocecheck.topo/1 document or null}. Text: one line of counts. */
void mesh_write_pcie(struct emit *e, const struct mesh_host *h)
{
	const struct rck_pcie *p = h->pcie;
	unsigned int gpus = 0, nics = 0;
	char line[160];

	if (!h->pcie_has)
		return;
	emit_obj_open(e, "pcie");
	if (!p) {
		emit_str(e, "error", "  pcie: not read: %s\n", h->pcie_error);
		emit_null(e, "topo", NULL);
		emit_obj_close(e);
		return;
	}
	emit_null(e, "error", NULL);
	for (unsigned int i = 0; i < p->n_endpoints; i++) {
		gpus += p->fns[i].kind == RCK_PCIE_GPU;
		nics += p->fns[i].kind == RCK_PCIE_NIC;
	}
	snprintf(line, sizeof(line), "  pcie: %u GPUs, %u NICs, %u bridges, IOMMU %s\n", gpus, nics,
		 p->n_fns - p->n_endpoints, rck_iommu_mode_name(p->iommu));
	emit_text(e, "%s", line);
	if (emit_is_json(e)) {
		char *doc;
		size_t len;
		int rc = pcie_json_text(p, &doc, &len);

		emit_json(e, "topo", rc ? NULL : json_loadb(doc, len, 0, NULL));
		if (!rc)
			free(doc);
	}
	emit_obj_close(e);
}

int mesh_load_pcie(struct rck_mesh *m, unsigned int h, const json_t *j, const char **why)
{
	const json_t *err = json_object_get(j, "error"), *topo = json_object_get(j, "topo");
	struct rck_pcie *p = NULL;
	char *doc;
	int rc;

	*why = NULL;
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j) || (err && !json_is_null(err) && !json_is_string(err)) ||
	    (json_is_string(err) == (topo && !json_is_null(topo)))) {
		*why = "\"pcie\" needs \"error\" (a string) or \"topo\" (a rocecheck.topo/1 document)";
		return -EINVAL;
	}
	if (json_is_string(err))
		return rck_mesh_host_set_pcie(m, h, NULL, json_string_value(err));
	doc = json_dumps(topo, JSON_COMPACT);
	if (!doc)
		return -ENOMEM;
	rc = pcie_parse(doc, strlen(doc), &p);
	free(doc);
	if (rc == -EINVAL)
		*why = "pcie.topo: not a rocecheck.topo/1 document";
	if (!rc)
		rc = rck_mesh_host_set_pcie(m, h, p, NULL);
	rck_pcie_free(p);
	return rc;
}
