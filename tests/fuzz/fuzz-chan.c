/* Fuzz target of the frame layer (libFuzzer entry point): the input is a
 * peer's byte stream, after one byte that picks how it arrives (bits 0-3:
 * the piece size, 0 for all at once; bit 4: also over a socket; bits 5-7:
 * the message type awaited). It goes through the frame reader in pieces,
 * and through the control channel over a socketpair; neither may crash,
 * leak, or take a byte past a frame. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../probes/chan.h"
#include "../../probes/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static union xq_msg m;

/* In pieces of @chunk bytes (0: all that is left), as recv() would give them. */
static void in_pieces(const uint8_t *p, size_t len, size_t chunk)
{
	struct pframe f;
	size_t taken = 0;

	pframe_init(&f);
	while (len) {
		size_t n = chunk && chunk < len ? chunk : len, used;
		int rc = pframe_put(&f, p, n, &used);

		if (used > n)
			abort();
		p += used;
		len -= used;
		taken += used;
		if (rc < 0)
			break;
		if (rc == 1) {
			/* Exactly one frame, not a byte more. */
			if (f.h.length > XQ_MAX_PAYLOAD || taken != XQ_HDR_LEN + f.h.length || pframe_want(&f))
				abort();
			xq_decode(f.h.type, f.payload, f.h.length, &m);
			pframe_next(&f);
			taken = 0;
		} else if (used != n) {
			abort();
		}
	}
	pframe_free(&f);
}

/* The same stream written into a socketpair and read by a control
 * channel, by pchan_poll() and then pchan_recv_until() on whatever came. */
static void through_channel(const uint8_t *p, size_t len, int wait_for)
{
	struct perr e = { 0 };
	struct pchan c;
	int sv[2];

	if (len > 65536 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		return;
	if (len && write(sv[1], p, len) != (ssize_t)len) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	close(sv[1]);
	pchan_init(&c, sv[0], "fuzz peer", 100);
	for (int i = 0; i < 64; i++) {
		int rc = pchan_poll(&c, &e);

		if (rc < 0)
			break;
		/* A deadline already past: the stream has everything it will get. */
		rc = pchan_recv_until(&c, (enum xq_type)wait_for, 0, &m, &e);
		if (rc && rc != -EBADMSG && rc != -EREMOTEIO && rc != -EBUSY)
			break;
		memset(&e, 0, sizeof(e));
	}
	pchan_close(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t chunk;

	if (size < 1)
		return 0;
	chunk = data[0] & 0x0f;
	in_pieces(data + 1, size - 1, chunk);
	/* Sockets are dear next to the rest: only when the input asks. */
	if (data[0] & 0x10)
		through_channel(data + 1, size - 1, 1 + (data[0] >> 5));
	return 0;
}
