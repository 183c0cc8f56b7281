/* Fuzz target of the probe exchange codec (libFuzzer entry point): any
 * input must decode or be refused cleanly, and what decodes must survive
 * an encode/decode round trip unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/exchange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static union xq_msg m, again;
static uint8_t buf[XQ_HDR_LEN + XQ_MAX_PAYLOAD];

static void round_trip(uint16_t type)
{
	size_t len;

	if (xq_encode(type, &m, buf, sizeof(buf), &len) != 0)
		abort();
	if (xq_decode(type, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, &again) != 0)
		abort();
	if (memcmp(&m, &again, sizeof(m)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xq_cm_pdata pd, pd2;
	struct xq_hdr h;

	memset(&pd, 0, sizeof(pd));
	memset(&pd2, 0, sizeof(pd2));

	/* As a framed message, the way the control channel reads it. */
	if (size >= XQ_HDR_LEN && xq_decode_hdr(data, &h) == 0) {
		size_t n = size - XQ_HDR_LEN < h.length ? size - XQ_HDR_LEN : h.length;

		if (xq_decode(h.type, data + XQ_HDR_LEN, n, &m) == 0)
			round_trip(h.type);
	}
	/* As the payload of every type, header or not. */
	for (uint16_t t = 0; t <= XQ_TICK + 1; t++)
		if (xq_decode(t, data, size, &m) == 0)
			round_trip(t);
	if (xq_decode_cm(data, size, &pd) == 0) {
		uint8_t b[XQ_CM_PDATA_LEN];

		if (xq_encode_cm(&pd, b, sizeof(b)) || xq_decode_cm(b, sizeof(b), &pd2) ||
		    memcmp(&pd, &pd2, sizeof(pd)))
			abort();
	}
	return 0;
}
