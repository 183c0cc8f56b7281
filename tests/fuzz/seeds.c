/* Writes the seed corpus of the exchange fuzz target: one well-formed
 * message of each type and a few near misses. Run by hand:
 * seeds tests/fuzz/corpus/exchange */
#include <stdio.h>
#include <string.h>

#include "../../probes/exchange.h"

static union xq_msg m;
static uint8_t buf[XQ_HDR_LEN + XQ_MAX_PAYLOAD];

static int save(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

static int msg(const char *dir, const char *name, enum xq_type t)
{
	size_t len;

	if (xq_encode(t, &m, buf, sizeof(buf), &len))
		return 1;
	return save(dir, name, buf, len);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct xq_cm_pdata pd = { .version = XQ_VERSION, .qp_index = 1, .cookie = 7, .rkey = 0x55,
				  .addr = 0x1000, .len = 4096 };
	uint8_t cm[XQ_CM_PDATA_LEN];
	int rc = 0;
	size_t len;

	m.hello.p = (struct xq_params){ .test = 0, .size = 65536, .qps = 2, .tx_depth = 128, .iters = 200,
					.warmup = 16, .window_us = 100000, .tclass = 106 };
	snprintf(m.hello.ep.device, sizeof(m.hello.ep.device), "rxe0");
	m.hello.ep.ib_port = 1;
	m.hello.ep.n_qps = 2;
	m.hello.ep.qp[0].qpn = 17;
	m.hello.ep.qp[1].qpn = 18;
	rc |= msg(dir, "hello", XQ_HELLO);
	/* The same HELLO cut short (header still claims the full length). */
	xq_encode(XQ_HELLO, &m, buf, sizeof(buf), &len);
	rc |= save(dir, "hello-truncated", buf, len - 9);
	memset(&m, 0, sizeof(m));
	m.accept.cookie = 0x1122334455667788ull;
	m.accept.ep.cm_port = 40000;
	rc |= msg(dir, "accept", XQ_ACCEPT);
	memset(&m, 0, sizeof(m));
	m.done.st.bytes = 13107200;
	m.done.st.msgs = 200;
	m.done.st.has_lat = 1;
	m.done.st.lat[1] = 3.5;
	m.done.ctr.present = 1;
	m.done.ctr.n = 1;
	m.done.ctr.c[0].id = 3;
	m.done.ctr.c[0].delta = 99;
	rc |= msg(dir, "done", XQ_DONE);
	rc |= msg(dir, "result", XQ_RESULT);
	memset(&m, 0, sizeof(m));
	m.error.status = 3;
	snprintf(m.error.text, sizeof(m.error.text), "no reply");
	rc |= msg(dir, "error", XQ_ERROR);
	memset(&m, 0, sizeof(m));
	m.attach.cookie = 5;
	m.attach.index = 1;
	rc |= msg(dir, "attach", XQ_ATTACH);
	rc |= msg(dir, "start", XQ_START);
	rc |= msg(dir, "tick", XQ_TICK);
	xq_encode(XQ_START, NULL, buf, sizeof(buf), &len);
	buf[5] = 2;
	rc |= save(dir, "other-version", buf, len);
	buf[5] = XQ_VERSION;
	buf[8] = 0x7f;
	rc |= save(dir, "oversize", buf, len);
	rc |= save(dir, "ssh-banner", "SSH-2.0-OpenSSH_9.2p1\r\n", 23);
	xq_encode_cm(&pd, cm, sizeof(cm));
	rc |= save(dir, "cm-pdata", cm, sizeof(cm));
	return rc;
}
