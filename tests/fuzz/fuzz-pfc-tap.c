/* Fuzz target of the monitor's PFC tap: frames at rising times, each read
 * after; pause time never falls and never exceeds the time since the first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/pfc_tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: a rate byte (1-256 Gb/s), then records of flags (bit 0: sent),
 * a 16-bit gap in microseconds, a length byte and that many frame bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_tap t;
	uint64_t now = 1000000000ull, first = 0, fr[2][8], us[2][8], last[2][8] = { { 0 } };
	size_t off = 1;

	if (size < 1)
		return 0;
	memset(&t, 0, sizeof(t));
	t.fd = -1;
	t.quantum_ns = 512.0 / (double)(data[0] + 1);
	while (off + 4 <= size) {
		bool tx = data[off] & 1;
		size_t len = data[off + 3];

		now += ((uint64_t)data[off + 1] << 8 | data[off + 2]) * 1000ull;
		off += 4;
		if (len > size - off)
			len = size - off;
		if (!mt_frame(&t, data + off, len, tx, now) && !first)
			first = now;
		off += len;
		mt_read(&t, now, fr, us);
		for (unsigned int d = 0; d < 2; d++) {
			for (unsigned int p = 0; p < 8; p++) {
				if (us[d][p] < last[d][p] || (first && us[d][p] > (now - first) / 1000) ||
				    (!first && us[d][p]))
					abort();
				last[d][p] = us[d][p];
			}
		}
	}
	return 0;
}
