/* Fuzz target of sealed frames (libFuzzer entry point): the input's frames
 * are sealed as a peer would, then changed in flight (one byte, a replay, a
 * drop or a swap), then read by the other end; a frame it accepts is always
 * the one sent at that place, and raw input never passes a check. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../mesh/agent_proto.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAMES 64
#define KEY "fuzz-wire-sec-key-0123456789"

struct sent {
	uint16_t type;
	size_t off, len;  /* plaintext in plain[] */
	size_t soff, slen; /* sealed in wire[] */
};

/* Both ends of one session, as after a handshake with fixed nonces. */
static void pair(struct wire_frame *cli, struct wire_frame *srv)
{
	static const uint8_t sn[WIRE_NONCE_LEN] = { 1 };
	static const uint8_t cn[WIRE_NONCE_LEN] = { 2 };
	uint8_t auth[64];
	struct wire_buf b = { .p = auth, .cap = sizeof(auth) };

	wire_attr_put(&b, 1, cn, sizeof(cn));
	wire_frame_init(cli, &ag_proto);
	wire_frame_init(srv, &ag_proto);
	if (wire_frame_secure_client(cli, &ag_proto, (const uint8_t *)KEY, strlen(KEY), sn, cn) ||
	    wire_frame_secure_server(srv, &ag_proto, (const uint8_t *)KEY, strlen(KEY), sn, auth, b.len))
		abort();
}

/* Feed @len bytes in pieces of @chunk; returns how many frames passed,
 * checking each against @want (NULL: none may pass). */
static unsigned int feed(struct wire_frame *f, const uint8_t *p, size_t len, size_t chunk,
			 const struct sent *want, unsigned int n_want, const uint8_t *plain)
{
	unsigned int ok = 0;

	while (len) {
		size_t n = chunk && chunk < len ? chunk : len, used;
		int rc = wire_frame_put(f, p, n, &used);

		p += used;
		len -= used;
		if (rc < 0)
			break;
		if (rc == 1) {
			if (!want || ok >= n_want || f->h.type != want[ok].type ||
			    f->h.length != want[ok].len ||
			    memcmp(f->payload, plain + want[ok].off, want[ok].len))
				abort();
			ok++;
			wire_frame_next(f);
		}
	}
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sent s[MAX_FRAMES];
	struct wire_frame rd, cli, srv;
	uint8_t *plain, *wire;
	size_t chunk, pos, wlen = 0, plen = 0;
	unsigned int n = 0, op, got;
	uint8_t x;

	if (size < 5)
		return 0;
	chunk = data[0];
	pos = (size_t)data[1] << 8 | data[2];
	x = data[3];
	op = data[4] & 3;
	data += 5;
	size -= 5;
	/* Raw bytes never pass a secured reader. */
	pair(&cli, &srv);
	feed(&srv, data, size, chunk, NULL, 0, NULL);
	wire_frame_free(&cli);
	wire_frame_free(&srv);

	plain = malloc(size + 1);
	wire = malloc(2 * (size + MAX_FRAMES * (WIRE_TAG_LEN + WIRE_HDR_LEN)) + 1);
	if (!plain || !wire)
		abort();
	pair(&cli, &srv);
	wire_frame_init(&rd, &ag_proto);
	while (size && n < MAX_FRAMES) {
		size_t used;
		int rc = wire_frame_put(&rd, data, size, &used);

		data += used;
		size -= used;
		if (rc != 1)
			break;
		s[n] = (struct sent){ .type = rd.h.type, .off = plen, .len = rd.h.length, .soff = wlen,
				      .slen = wire_sealed_len(rd.h.length) };
		memcpy(plain + plen, rd.payload, rd.h.length);
		plen += rd.h.length;
		if (wire_seal(cli.sec, &ag_proto, rd.h.type, rd.payload, rd.h.length, wire + wlen))
			abort();
		wlen += s[n++].slen;
		wire_frame_next(&rd);
	}
	wire_frame_free(&rd);
	if (n >= 2 && op == 1) { /* replay the first frame after the second */
		memmove(wire + s[1].soff + s[1].slen + s[0].slen, wire + s[1].soff + s[1].slen,
			wlen - s[1].soff - s[1].slen);
		memcpy(wire + s[1].soff + s[1].slen, wire + s[0].soff, s[0].slen);
		wlen += s[0].slen;
	} else if (n >= 2 && op == 2) { /* drop the first */
		memmove(wire, wire + s[0].slen, wlen - s[0].slen);
		wlen -= s[0].slen;
	} else if (n >= 2 && op == 3) { /* swap the first two */
		uint8_t *tmp = malloc(s[0].slen);

		if (!tmp)
			abort();
		memcpy(tmp, wire, s[0].slen);
		memmove(wire, wire + s[1].soff, s[1].slen);
		memcpy(wire + s[1].slen, tmp, s[0].slen);
		free(tmp);
	}
	if (wlen && pos < wlen)
		wire[pos] ^= x;
	got = feed(&srv, wire, wlen, chunk, s, n, plain);
	/* Untouched, everything passes; a replayed frame never (nor anything
	 * after it); a dropped or swapped first frame stops the reader at once. */
	if (op == 0 && (!x || pos >= wlen) && got != n)
		abort();
	if (n >= 2 && ((op == 1 && got > 2) || (op >= 2 && got > 0)))
		abort();
	wire_frame_free(&cli);
	wire_frame_free(&srv);
	free(plain);
	free(wire);
	return 0;
}
