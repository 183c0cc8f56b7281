/* The wire layer shared by every rocecheck protocol (probe control channel,
 * agent): frames, bounded cursors, netlink-style attributes, authentication. */
#ifndef RCK_WIRE_H
#define RCK_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every frame: a 12-byte header, then `length` payload bytes.
 *   u32 magic | u16 version | u16 type | u32 length      (big-endian)
 * The header layout never changes between versions or protocols, so a peer
 * of another version or protocol is recognised and named.
 */
#define WIRE_HDR_LEN 12

/* One protocol spoken on the wire. */
struct wire_proto {
	uint32_t magic;
	uint16_t version;
	uint32_t max_payload;
	const char *name; /* "probe", "agent": names it in messages */
};

struct wire_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

void wire_hdr_encode(uint8_t *buf, const struct wire_proto *p, uint16_t type, uint32_t length);
/* Decode and check a header. *h is filled in any case. Returns 0, -EPROTO
 * (another magic), -EPROTONOSUPPORT (another version), -EMSGSIZE (payload
 * above p->max_payload). */
int wire_hdr_decode(const struct wire_proto *p, const uint8_t *buf, struct wire_hdr *h);
/* One line for a refused header: "peer speaks agent protocol version 2, we
 * speak version 1". Returns @buf. */
const char *wire_hdr_strerror(const struct wire_proto *p, const struct wire_hdr *h, int rc,
			      char *buf, size_t len);

/* ---- bounded cursors: a read past the end sets bad and yields zeros ---- */
struct wire_cur {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

uint8_t wire_get_u8(struct wire_cur *c);
uint16_t wire_get_u16(struct wire_cur *c);
uint32_t wire_get_u32(struct wire_cur *c);
uint64_t wire_get_u64(struct wire_cur *c);
/* @n bytes in place, NULL (and bad) when fewer are left. */
const uint8_t *wire_get_bytes(struct wire_cur *c, size_t n);

/* A writer into a caller's buffer: a write past @cap sets bad. */
struct wire_buf {
	uint8_t *p;
	size_t cap, len;
	bool bad;
};

void wire_put_u8(struct wire_buf *b, uint8_t v);
void wire_put_u16(struct wire_buf *b, uint16_t v);
void wire_put_u32(struct wire_buf *b, uint32_t v);
void wire_put_u64(struct wire_buf *b, uint64_t v);
void wire_put_bytes(struct wire_buf *b, const void *p, size_t n);

/*
 * Attributes in the style of netlink: u16 type | u16 length of the value |
 * value | zero padding to 4 bytes. A reader skips types it does not know,
 * so a newer peer can add attributes. Nesting: a value is itself a list.
 */
#define WIRE_ATTR_HDR 4
#define WIRE_ALIGN(n) (((n) + 3u) & ~(size_t)3u)

void wire_attr_put(struct wire_buf *b, uint16_t type, const void *v, size_t len);
void wire_attr_put_u32(struct wire_buf *b, uint16_t type, uint32_t v);
void wire_attr_put_u64(struct wire_buf *b, uint16_t type, uint64_t v);
void wire_attr_put_f64(struct wire_buf *b, uint16_t type, double v);
/* A string without its terminator; NULL puts nothing. */
void wire_attr_put_str(struct wire_buf *b, uint16_t type, const char *s);
/* Open a nested attribute: returns the offset to give wire_attr_nest_end(). */
size_t wire_attr_nest_start(struct wire_buf *b, uint16_t type);
void wire_attr_nest_end(struct wire_buf *b, size_t start);

struct wire_attr {
	const uint8_t *v; /* NULL: absent */
	uint16_t len;
};

/*
 * Index the attributes of @p (@len bytes) by type into @tb[0..max]; types
 * above @max are skipped, a repeated type keeps the last. Returns 0 or
 * -EBADMSG (an attribute running past the end).
 */
int wire_attr_parse(const uint8_t *p, size_t len, struct wire_attr *tb, unsigned int max);
/* Walk every attribute of a list in order (for repeated ones): *off starts
 * at 0. Returns 1 with *type and *a set, 0 at the end, -EBADMSG. */
int wire_attr_next(const uint8_t *p, size_t len, size_t *off, uint16_t *type, struct wire_attr *a);
/* Typed reads: 0, -ENOENT (absent), -EBADMSG (wrong length). */
int wire_attr_u32(const struct wire_attr *a, uint32_t *v);
int wire_attr_u64(const struct wire_attr *a, uint64_t *v);
int wire_attr_f64(const struct wire_attr *a, double *v);
/* Copy a string into @buf (@size bytes), NUL-terminated, anything but
 * printable ASCII as '?'. -ENOENT, -EBADMSG (longer than @size - 1). */
int wire_attr_str(const struct wire_attr *a, char *buf, size_t size);

/* ---- frames from a byte stream ---- */

/*
 * One frame in the making. The header is checked as soon as its 12 bytes
 * are in, so a peer that speaks another protocol or announces an oversize
 * payload is refused before anything is allocated for it.
 */
struct wire_frame {
	const struct wire_proto *proto;
	uint8_t hdr[WIRE_HDR_LEN];
	struct wire_hdr h;      /* valid once the header is complete */
	uint8_t *payload;       /* h.length bytes once complete; owned */
	size_t cap;
	size_t got;             /* bytes of this frame taken so far */
	int err;                /* a refused header: the first error, kept */
	struct wire_sec *sec;   /* after the handshake: the session's keys; owned */
	bool opened;            /* secured: this frame passed its check */
};

void wire_frame_init(struct wire_frame *f, const struct wire_proto *p);
void wire_frame_free(struct wire_frame *f);
/* Forget the frame taken and start the next one (the session keys stay). */
void wire_frame_next(struct wire_frame *f);
/* wire_frame_next(), and a payload buffer above @keep bytes is freed (the
 * session keys stay: wire_frame_free() would drop them mid-session). */
void wire_frame_trim(struct wire_frame *f, size_t keep);
/* Bytes the frame still needs (never read more: the rest stays in the stream). */
size_t wire_frame_want(const struct wire_frame *f);
/* Take up to @len bytes; *used gets how many. 1 complete, 0 needs more, a
 * refused header as wire_hdr_decode(), -ENOMEM, WIRE_EINTEGRITY (a
 * secured frame failed its check). */
int wire_frame_put(struct wire_frame *f, const uint8_t *p, size_t len, size_t *used);
/* Read what non-blocking @fd has: 1 complete, 0 needs more, -ECONNRESET at
 * the end of the stream (*eof set when no byte of the frame had come), a
 * refused header, -errno. */
int wire_frame_recv(struct wire_frame *f, int fd, int *eof);

/* ---- blocking I/O with deadlines (CLOCK_MONOTONIC ns) ---- */
uint64_t wire_now_ns(void);
/* Send header + payload whole before @deadline: 0, -ETIMEDOUT, -errno. */
int wire_send(int fd, const struct wire_proto *p, uint16_t type, const void *payload, size_t len,
	      uint64_t deadline);
/* Send @len bytes whole before @deadline: 0, -ETIMEDOUT, -errno. */
int wire_send_raw(int fd, const void *p, size_t len, uint64_t deadline);
/* Read one whole frame before @deadline: 1 (f complete), -ETIMEDOUT,
 * -ECONNRESET, a refused header, -errno. */
int wire_recv(int fd, struct wire_frame *f, uint64_t deadline);

/* ---- authentication (wire_auth.c) ---- */

#define WIRE_NONCE_LEN 32
#define WIRE_MAC_LEN 32
#define WIRE_KEY_MIN 16
#define WIRE_KEY_MAX 1024

/* Frame types every protocol reserves for authentication. */
enum {
	WIRE_T_CHALLENGE = 0xff01, /* server -> client: server nonce */
	WIRE_T_AUTH = 0xff02,      /* client -> server: client nonce, client MAC */
	WIRE_T_AUTH_OK = 0xff03,   /* server -> client: server MAC */
	WIRE_T_AUTH_FAIL = 0xff04, /* server -> client: text, then close */
};

/*
 * Read a key file: a regular file owned by the user, readable by nobody
 * else (mode & 077 == 0), WIRE_KEY_MIN..WIRE_KEY_MAX bytes once trailing
 * white space is cut. Returns 0, -EPERM (owner or mode; @err says which),
 * -EINVAL (size), -errno; @err gets one line naming @path.
 */
int wire_key_load(const char *path, uint8_t *key, size_t *len, char *err, size_t errlen);
/* @n random bytes from the crypto library: 0 or -EIO. */
int wire_random(uint8_t *p, size_t n);
/* HMAC-SHA256(key, proto magic | role | first | second). */
int wire_auth_mac(const struct wire_proto *p, const uint8_t *key, size_t keylen, char role,
		  const uint8_t *first, const uint8_t *second, uint8_t *mac);
/*
 * The handshake, before anything else of the protocol is parsed: the server
 * sends a fresh nonce, the client answers with its own nonce and the MAC
 * over both, the server checks it in constant time and proves it knows the
 * key too. Each returns 0, -EACCES (wrong key: @err says so), -ETIMEDOUT,
 * -EPROTO and the like with one line in @err.
 */
int wire_auth_server(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     uint64_t deadline, char *err, size_t errlen);
int wire_auth_client(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     uint64_t deadline, char *err, size_t errlen);
/* The same, leaving the frame reader @f (initialised by the caller)
 * secured for the session: read with it, send with wire_send_sec(f->sec). */
int wire_auth_server_sec(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
			 uint64_t deadline, struct wire_frame *f, char *err, size_t errlen);
int wire_auth_client_sec(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
			 uint64_t deadline, struct wire_frame *f, char *err, size_t errlen);

/* Non-blocking pieces of the client side (for a poll loop): the AUTH
 * payload for a CHALLENGE payload (both nonces kept to check the reply),
 * and the check of the AUTH_OK payload. 0, -EBADMSG, -EACCES. */
int wire_auth_answer(const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     const uint8_t *chal, size_t chal_len, uint8_t *server_nonce, uint8_t *client_nonce,
		     uint8_t *out, size_t cap, size_t *out_len);
/* Server side in pieces: the CHALLENGE payload for a fresh *server_nonce;
 * the check of an AUTH payload, giving the AUTH_OK payload. 0, -EBADMSG,
 * -EACCES (wrong key), -EIO, -ENOBUFS. */
int wire_auth_challenge(uint8_t *server_nonce, uint8_t *out, size_t cap, size_t *out_len);
int wire_auth_check(const struct wire_proto *p, const uint8_t *key, size_t keylen,
		    const uint8_t *server_nonce, const uint8_t *auth, size_t auth_len, uint8_t *out,
		    size_t cap, size_t *out_len);
/* The AUTH_FAIL payload. */
size_t wire_auth_fail(uint8_t *out, size_t cap);
int wire_auth_verify_ok(const struct wire_proto *p, const uint8_t *key, size_t keylen,
			const uint8_t *server_nonce, const uint8_t *client_nonce,
			const uint8_t *ok, size_t ok_len);

/* ---- frames after the handshake (wire_sec.c) ----
 *
 * Both sides derive two keys from the shared key and the handshake's
 * nonces, HMAC-SHA256(key, magic | 'c' or 's' | server nonce | client
 * nonce), one for each direction, and seal every later frame with
 * ChaCha20-Poly1305 (IETF): the frame's sequence number in its direction
 * as the nonce, the header as associated data, the 16-byte tag after the
 * ciphertext (counted in the header's length). A changed, replayed,
 * reordered or dropped frame fails the check of the next one received:
 * WIRE_EINTEGRITY, and the session must end.
 */
#define WIRE_TAG_LEN 16
#define WIRE_EINTEGRITY (-EBADMSG)

struct wire_sec;

/* Secure the frame reader @f (and its sends: wire_send_sec(f->sec, ...))
 * for the session the handshake just finished: the client with both
 * nonces, the server with its nonce and the client's AUTH payload.
 * 0, -ENOMEM, -EBADMSG, -EIO. */
int wire_frame_secure_client(struct wire_frame *f, const struct wire_proto *p, const uint8_t *key,
			     size_t keylen, const uint8_t *server_nonce, const uint8_t *client_nonce);
int wire_frame_secure_server(struct wire_frame *f, const struct wire_proto *p, const uint8_t *key,
			     size_t keylen, const uint8_t *server_nonce, const uint8_t *auth,
			     size_t auth_len);
/* Bytes a sealed frame of @len payload bytes takes on the wire. */
static inline size_t wire_sealed_len(size_t len)
{
	return WIRE_HDR_LEN + len + WIRE_TAG_LEN;
}
/* Seal one frame into @out (wire_sealed_len(len) bytes); uses the next
 * send sequence number, so the caller sends it, in order, or ends the
 * session. @sec NULL: a plain frame (header and payload). 0, -EMSGSIZE. */
int wire_seal(struct wire_sec *sec, const struct wire_proto *p, uint16_t type, const void *payload,
	      size_t len, uint8_t *out);
/* wire_send() of a sealed frame (@sec NULL: plain). Callers serialise
 * their sends on one session. */
int wire_send_sec(int fd, const struct wire_proto *p, struct wire_sec *sec, uint16_t type,
		  const void *payload, size_t len, uint64_t deadline);
/* Check and decrypt a whole sealed frame in place (wire_frame internals). */
int wire_sec_open(struct wire_sec *sec, struct wire_frame *f);
void wire_sec_free(struct wire_sec *sec);

#endif
