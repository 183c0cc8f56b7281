/* The agent protocol's PCIe reply: the host's snapshot as the JSON document
 * rck_pcie_write() writes, in one attribute, read back by the same loader
 * `rck_pcie_load` uses (lib/pcie_load.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie.h"

#include "agent_proto.h"

int ag_pcie_encode(uint32_t id, const struct rck_pcie *p, const char *error, uint8_t *buf, size_t cap,
		   size_t *len)
{
	struct ag_msg *m;
	struct wire_buf b = { .p = buf, .cap = cap };
	char *doc = NULL;
	size_t dlen = 0;
	int rc;

	if (!p == !error)
		return -EINVAL;
	if (p && (rc = pcie_json_text(p, &doc, &dlen)))
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m) {
		free(doc);
		return -ENOMEM;
	}
	m->type = AG_PCIE;
	m->id = id;
	m->status = error ? AG_ERR_BADREQ : 0;
	snprintf(m->text, sizeof(m->text), "%s", error ? error : "");
	rc = ag_encode(m, buf, cap, &b.len);
	free(m);
	if (!rc && doc)
		wire_attr_put(&b, AG_A_PCIE_TOPO, doc, dlen);
	free(doc);
	if (rc)
		return rc;
	*len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

int ag_pcie_decode(const uint8_t *p, size_t len, struct ag_pcie *out)
{
	struct ag_msg *m = malloc(sizeof(*m));
	struct wire_attr a;
	size_t off = 0;
	uint16_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOMEM;
	rc = ag_decode(AG_PCIE, p, len, m);
	out->id = m->id;
	out->failed = m->status != 0;
	snprintf(out->error, sizeof(out->error), "%s", m->text);
	free(m);
	if (rc)
		return -EBADMSG;
	while ((rc = wire_attr_next(p, len, &off, &t, &a)) == 1) {
		if (t != AG_A_PCIE_TOPO)
			continue;
		/* One snapshot, and none in a refusal. */
		if (out->failed || out->pcie) {
			rc = -EBADMSG;
			break;
		}
		rc = pcie_parse((const char *)a.v, a.len, &out->pcie);
		if (rc)
			break;
	}
	if (!rc && !out->failed && !out->pcie)
		rc = -EBADMSG;
	if (rc) {
		rck_pcie_free(out->pcie);
		out->pcie = NULL;
		return rc == -ENOMEM ? rc : -EBADMSG;
	}
	return 0;
}
