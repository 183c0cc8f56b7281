/* Fuzz target of the rocecap decoder and analysis (libFuzzer entry point):
 * the first byte picks the link type, the rest is one frame; it is decoded
 * alone and then fed, with a stamp from the input, through a small
 * analysis whose results must stay consistent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/cap.h"
#include "../../cap/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int links[4] = {
	RCK_CAP_LINK_ETHERNET, RCK_CAP_LINK_LINUX_SLL, RCK_CAP_LINK_LINUX_SLL2, RCK_CAP_LINK_RAW,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rck_cap_opts o;
	struct rck_cap *cap;
	struct cap_pkt p;
	uint8_t *frame;
	size_t n;
	int link;

	if (size < 1)
		return 0;
	link = links[data[0] & 3];
	n = size - 1;
	/* An exact-size copy: any read past the end is ASan's to see. */
	frame = malloc(n ? n : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 1, n);
	cap_decode(link, frame, n, &p);

	rck_cap_opts_init(&o);
	o.max_flows = 4;
	o.max_buckets = 8;
	o.interval_s = 1e-6;
	o.storm_window_s = 1e-5;
	if (rck_cap_new(&o, &cap) == 0) {
		/* The frame twice and then as its own prefixes, at growing times. */
		rck_cap_add(cap, link, 1000, frame, n, n);
		rck_cap_add(cap, link, 2000 + (data[0] >> 2) * 100000ull, frame, n, n + 7);
		for (size_t k = 0; k < n && k < 64; k += 7)
			rck_cap_add(cap, link, 3000 + k, frame, k, n);
		rck_cap_finish(cap);
		if (rck_cap_stat(cap, RCK_CAP_MALFORMED) + rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT) <
			    rck_cap_stat(cap, RCK_CAP_TRUNCATED) ||
		    rck_cap_stat(cap, RCK_CAP_TRUNCATED) < rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT) ||
		    rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS) > rck_cap_stat(cap, RCK_CAP_PACKETS) ||
		    rck_cap_flow_count(cap) > 4 ||
		    rck_cap_stat(cap, RCK_CAP_ROCE_BTH_CUT) > rck_cap_stat(cap, RCK_CAP_TRUNCATED) ||
		    rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT) > rck_cap_stat(cap, RCK_CAP_ROCE_PACKETS) ||
		    rck_cap_stat(cap, RCK_CAP_AETH_UNKNOWN) > rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT) ||
		    rck_cap_stat(cap, RCK_CAP_RETH_UNKNOWN) > rck_cap_stat(cap, RCK_CAP_ROCE_HEADERS_CUT) ||
		    rck_cap_stat(cap, RCK_CAP_CUT) > rck_cap_stat(cap, RCK_CAP_PACKETS))
			abort();
		for (unsigned int i = 0; i <= RCK_CAP_PAUSE_LEGACY; i++)
			if (rck_cap_pause_longest_us(cap, i) > rck_cap_pause_effective_us(cap, i) + 1e-3)
				abort();
		rck_cap_free(cap);
	}
	free(frame);
	return 0;
}
