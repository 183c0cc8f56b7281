/* Frames after the handshake: per-session, per-direction keys derived from
 * the handshake, every frame sealed with ChaCha20-Poly1305 (libsodium). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "wire.h"

enum { A_NONCE = 1 };

struct wire_sec {
	uint8_t tx[crypto_aead_chacha20poly1305_ietf_KEYBYTES];
	uint8_t rx[crypto_aead_chacha20poly1305_ietf_KEYBYTES];
	uint64_t tx_seq, rx_seq;
};

void wire_sec_free(struct wire_sec *sec)
{
	if (!sec)
		return;
	sodium_memzero(sec, sizeof(*sec));
	free(sec);
}

static int secure(struct wire_frame *f, const struct wire_proto *p, const uint8_t *key,
		  size_t keylen, const uint8_t *sn, const uint8_t *cn, bool client)
{
	uint8_t c2s[32], s2c[32];
	struct wire_sec *sec;

	/* Roles 'c' and 's' never sign anything sent in the clear ('C', 'S'
	 * do): the session keys are HMAC outputs nobody has seen. */
	if (wire_auth_mac(p, key, keylen, 'c', sn, cn, c2s) ||
	    wire_auth_mac(p, key, keylen, 's', sn, cn, s2c))
		return -EIO;
	sec = calloc(1, sizeof(*sec));
	if (!sec) {
		sodium_memzero(c2s, sizeof(c2s));
		sodium_memzero(s2c, sizeof(s2c));
		return -ENOMEM;
	}
	memcpy(sec->tx, client ? c2s : s2c, sizeof(sec->tx));
	memcpy(sec->rx, client ? s2c : c2s, sizeof(sec->rx));
	sodium_memzero(c2s, sizeof(c2s));
	sodium_memzero(s2c, sizeof(s2c));
	wire_sec_free(f->sec);
	f->sec = sec;
	return 0;
}

int wire_frame_secure_client(struct wire_frame *f, const struct wire_proto *p, const uint8_t *key,
			     size_t keylen, const uint8_t *server_nonce, const uint8_t *client_nonce)
{
	return secure(f, p, key, keylen, server_nonce, client_nonce, true);
}

int wire_frame_secure_server(struct wire_frame *f, const struct wire_proto *p, const uint8_t *key,
			     size_t keylen, const uint8_t *server_nonce, const uint8_t *auth,
			     size_t auth_len)
{
	struct wire_attr tb[A_NONCE + 1];

	if (wire_attr_parse(auth, auth_len, tb, A_NONCE) || !tb[A_NONCE].v ||
	    tb[A_NONCE].len != WIRE_NONCE_LEN)
		return -EBADMSG;
	return secure(f, p, key, keylen, server_nonce, tb[A_NONCE].v, false);
}

static void nonce(uint64_t seq, uint8_t *n)
{
	struct wire_buf b = { .p = n, .cap = crypto_aead_chacha20poly1305_ietf_NPUBBYTES };

	wire_put_u32(&b, 0);
	wire_put_u64(&b, seq);
}

int wire_seal(struct wire_sec *sec, const struct wire_proto *p, uint16_t type, const void *payload,
	      size_t len, uint8_t *out)
{
	uint8_t n[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	static const uint8_t none[1];

	if (len > p->max_payload)
		return -EMSGSIZE;
	if (!payload) /* an empty body may come as NULL */
		payload = none;
	if (!sec) {
		wire_hdr_encode(out, p, type, (uint32_t)len);
		if (len)
			memcpy(out + WIRE_HDR_LEN, payload, len);
		return 0;
	}
	wire_hdr_encode(out, p, type, (uint32_t)(len + WIRE_TAG_LEN));
	nonce(sec->tx_seq++, n);
	crypto_aead_chacha20poly1305_ietf_encrypt_detached(out + WIRE_HDR_LEN, out + WIRE_HDR_LEN + len,
							   NULL, payload, len, out, WIRE_HDR_LEN,
							   NULL, n, sec->tx);
	return 0;
}

int wire_sec_open(struct wire_sec *sec, struct wire_frame *f)
{
	uint8_t n[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	size_t len;

	if (f->h.length < WIRE_TAG_LEN)
		return WIRE_EINTEGRITY;
	len = f->h.length - WIRE_TAG_LEN;
	nonce(sec->rx_seq, n);
	if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(f->payload, NULL, f->payload, len,
							       f->payload + len, f->hdr, WIRE_HDR_LEN,
							       n, sec->rx))
		return WIRE_EINTEGRITY;
	sec->rx_seq++;
	f->h.length = (uint32_t)len;
	f->got = WIRE_HDR_LEN + len;
	f->opened = true;
	return 0;
}

int wire_send_sec(int fd, const struct wire_proto *p, struct wire_sec *sec, uint16_t type,
		  const void *payload, size_t len, uint64_t deadline)
{
	uint8_t small[512], *buf = small;
	int rc;

	if (!sec)
		return wire_send(fd, p, type, payload, len, deadline);
	if (len > p->max_payload)
		return -EMSGSIZE;
	if (wire_sealed_len(len) > sizeof(small) && !(buf = malloc(wire_sealed_len(len))))
		return -ENOMEM;
	rc = wire_seal(sec, p, type, payload, len, buf);
	if (!rc)
		rc = wire_send_raw(fd, buf, wire_sealed_len(len), deadline);
	if (buf != small)
		free(buf);
	return rc;
}
