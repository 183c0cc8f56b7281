/* Fuzz target of the monitor's datagrams (the hello that learns a peer's UD
 * QPN, and the probe): any input is taken or refused, never both; a hello taken encodes back byte for byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/monitor_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md_hello h, again;
	struct md_msg msg;
	uint8_t buf[MD_HELLO_LEN];
	bool hello = !md_hello_parse(data, size, &h), probe = !md_msg_parse(data, size, &msg);

	if (hello && probe)
		abort();
	/* a probe is 24 bytes, or 32 for a pong with the dwell */
	if (probe && (size != MD_MSG_LEN && size != MD_PONG_DWELL_LEN))
		abort();
	if (probe && size == MD_PONG_DWELL_LEN && msg.type != MD_PONG)
		abort();
	if (probe && size == MD_MSG_LEN && msg.dwell_ns)
		abort();
	if (!hello)
		return 0;
	if ((h.type != MD_HELLO && h.type != MD_HELLO_ACK) || h.qpn > 0xffffff)
		abort();
	md_hello_put(&h, buf);
	if (memcmp(buf, data, MD_HELLO_LEN) || md_hello_parse(buf, sizeof(buf), &again) ||
	    memcmp(&h, &again, sizeof(h)))
		abort();
	return 0;
}
