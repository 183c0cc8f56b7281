/* Wire authentication: key files, challenge-response with HMAC-SHA256 over
 * fresh nonces of both sides (libsodium), constant-time checks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libsodium, not OpenSSL 3: the first HMAC or RAND_bytes there loads its
 * provider and configuration, 2.2-2.5 MiB of RSS in every agent. */
#include <sodium.h>

#include "wire.h"

enum { A_NONCE = 1, A_MAC = 2, A_TEXT = 3 };

int wire_key_load(const char *path, uint8_t *key, size_t *len, char *err, size_t errlen)
{
	uint8_t buf[WIRE_KEY_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "key file %s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "key file %s: %s", path, strerror(-rc));
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "key file %s: not a regular file", path);
	} else if (st.st_uid != geteuid()) {
		rc = -EPERM;
		snprintf(err, errlen, "key file %s: owned by uid %u, not by us (uid %u)", path,
			 (unsigned int)st.st_uid, (unsigned int)geteuid());
	} else if (st.st_mode & 077) {
		rc = -EPERM;
		snprintf(err, errlen, "key file %s: mode %04o lets group or others read it (chmod 600)",
			 path, (unsigned int)(st.st_mode & 07777));
	} else if (st.st_size > WIRE_KEY_MAX + 2) {
		/* Never cut: a key read in part would differ from the coordinator's. */
		rc = -EINVAL;
		snprintf(err, errlen, "key file %s: %lld bytes, a key has %d to %d bytes", path,
			 (long long)st.st_size, WIRE_KEY_MIN, WIRE_KEY_MAX);
	}
	if (rc) {
		close(fd);
		return rc;
	}
	n = read(fd, buf, sizeof(buf));
	rc = n < 0 ? -errno : 0;
	if (n == (ssize_t)sizeof(buf) && read(fd, &(uint8_t){ 0 }, 1) > 0)
		n = WIRE_KEY_MAX + 1; /* it grew since: too long, refused below */
	close(fd);
	if (rc) {
		snprintf(err, errlen, "key file %s: %s", path, strerror(-rc));
		return rc;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		n--;
	if (n < WIRE_KEY_MIN || n > WIRE_KEY_MAX) {
		snprintf(err, errlen, "key file %s: a key has %d to %d bytes", path, WIRE_KEY_MIN,
			 WIRE_KEY_MAX);
		sodium_memzero(buf, sizeof(buf));
		return -EINVAL;
	}
	memcpy(key, buf, (size_t)n);
	*len = (size_t)n;
	sodium_memzero(buf, sizeof(buf));
	return 0;
}

int wire_random(uint8_t *p, size_t n)
{
	/* sodium_init() is idempotent and thread-safe: 1 when done before. */
	if (sodium_init() < 0)
		return -EIO;
	randombytes_buf(p, n);
	return 0;
}

int wire_auth_mac(const struct wire_proto *p, const uint8_t *key, size_t keylen, char role,
		  const uint8_t *first, const uint8_t *second, uint8_t *mac)
{
	uint8_t msg[5 + 2 * WIRE_NONCE_LEN];
	crypto_auth_hmacsha256_state st;
	struct wire_buf b = { .p = msg, .cap = sizeof(msg) };

	/* The magic binds the MAC to one protocol, the role to one direction:
	 * a reply cannot be reflected back as a challenge answer. */
	wire_put_u32(&b, p->magic);
	wire_put_u8(&b, (uint8_t)role);
	wire_put_bytes(&b, first, WIRE_NONCE_LEN);
	wire_put_bytes(&b, second, WIRE_NONCE_LEN);
	if (sodium_init() < 0 || crypto_auth_hmacsha256_init(&st, key, keylen) ||
	    crypto_auth_hmacsha256_update(&st, msg, b.len) || crypto_auth_hmacsha256_final(&st, mac))
		return -EIO;
	sodium_memzero(&st, sizeof(st));
	return 0;
}

static int nonce_attr(const uint8_t *p, size_t len, uint16_t type, const uint8_t **out)
{
	struct wire_attr tb[A_TEXT + 1];

	if (wire_attr_parse(p, len, tb, A_TEXT) || !tb[type].v || tb[type].len != WIRE_NONCE_LEN)
		return -EBADMSG;
	*out = tb[type].v;
	return 0;
}

int wire_auth_answer(const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     const uint8_t *chal, size_t chal_len, uint8_t *server_nonce, uint8_t *client_nonce,
		     uint8_t *out, size_t cap, size_t *out_len)
{
	struct wire_buf b = { .p = out, .cap = cap };
	uint8_t mac[WIRE_MAC_LEN];
	const uint8_t *sn;

	if (nonce_attr(chal, chal_len, A_NONCE, &sn))
		return -EBADMSG;
	memcpy(server_nonce, sn, WIRE_NONCE_LEN);
	if (wire_random(client_nonce, WIRE_NONCE_LEN) ||
	    wire_auth_mac(p, key, keylen, 'C', sn, client_nonce, mac))
		return -EIO;
	wire_attr_put(&b, A_NONCE, client_nonce, WIRE_NONCE_LEN);
	wire_attr_put(&b, A_MAC, mac, WIRE_MAC_LEN);
	*out_len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

int wire_auth_verify_ok(const struct wire_proto *p, const uint8_t *key, size_t keylen,
			const uint8_t *server_nonce, const uint8_t *client_nonce,
			const uint8_t *ok, size_t ok_len)
{
	uint8_t want[WIRE_MAC_LEN];
	const uint8_t *mac;

	if (nonce_attr(ok, ok_len, A_MAC, &mac))
		return -EBADMSG;
	if (wire_auth_mac(p, key, keylen, 'S', client_nonce, server_nonce, want))
		return -EIO;
	return sodium_memcmp(want, mac, WIRE_MAC_LEN) ? -EACCES : 0;
}

static int recv_type(int fd, struct wire_frame *f, uint64_t deadline, char *err, size_t errlen)
{
	char why[160];
	int rc = wire_recv(fd, f, deadline);

	if (rc == 1)
		return 0;
	if (rc == -EPROTO || rc == -EPROTONOSUPPORT || rc == -EMSGSIZE)
		snprintf(err, errlen, "%s", wire_hdr_strerror(f->proto, &f->h, rc, why, sizeof(why)));
	else if (rc == -ETIMEDOUT)
		snprintf(err, errlen, "authentication did not finish in time");
	else
		snprintf(err, errlen, "connection lost during authentication: %s", strerror(-rc));
	return rc;
}

int wire_auth_challenge(uint8_t *server_nonce, uint8_t *out, size_t cap, size_t *out_len)
{
	struct wire_buf b = { .p = out, .cap = cap };

	if (wire_random(server_nonce, WIRE_NONCE_LEN))
		return -EIO;
	wire_attr_put(&b, A_NONCE, server_nonce, WIRE_NONCE_LEN);
	*out_len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

int wire_auth_check(const struct wire_proto *p, const uint8_t *key, size_t keylen,
		    const uint8_t *server_nonce, const uint8_t *auth, size_t auth_len, uint8_t *out,
		    size_t cap, size_t *out_len)
{
	uint8_t want[WIRE_MAC_LEN];
	const uint8_t *cn, *mac;
	struct wire_buf b = { .p = out, .cap = cap };

	if (nonce_attr(auth, auth_len, A_NONCE, &cn) || nonce_attr(auth, auth_len, A_MAC, &mac))
		return -EBADMSG;
	if (wire_auth_mac(p, key, keylen, 'C', server_nonce, cn, want))
		return -EIO;
	if (sodium_memcmp(want, mac, WIRE_MAC_LEN))
		return -EACCES;
	if (wire_auth_mac(p, key, keylen, 'S', cn, server_nonce, want))
		return -EIO;
	wire_attr_put(&b, A_MAC, want, sizeof(want));
	*out_len = b.len;
	return b.bad ? -ENOBUFS : 0;
}

size_t wire_auth_fail(uint8_t *out, size_t cap)
{
	static const char text[] = "authentication failed: wrong key";
	struct wire_buf b = { .p = out, .cap = cap };

	wire_attr_put(&b, A_TEXT, text, sizeof(text) - 1);
	return b.bad ? 0 : b.len;
}

int wire_auth_server(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     uint64_t deadline, char *err, size_t errlen)
{
	struct wire_frame f;
	int rc;

	wire_frame_init(&f, p);
	rc = wire_auth_server_sec(fd, p, key, keylen, deadline, &f, err, errlen);
	wire_frame_free(&f);
	return rc;
}

int wire_auth_server_sec(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
			 uint64_t deadline, struct wire_frame *fp, char *err, size_t errlen)
{
	uint8_t sn[WIRE_NONCE_LEN], out[64];
	struct wire_frame f;
	size_t len;
	int rc;

	if (wire_auth_challenge(sn, out, sizeof(out), &len)) {
		snprintf(err, errlen, "no random bytes for a nonce");
		return -EIO;
	}
	rc = wire_send(fd, p, WIRE_T_CHALLENGE, out, len, deadline);
	if (rc) {
		snprintf(err, errlen, "cannot send the challenge: %s", strerror(-rc));
		return rc;
	}
	wire_frame_init(&f, p);
	rc = recv_type(fd, &f, deadline, err, errlen);
	if (rc)
		goto out;
	rc = f.h.type == WIRE_T_AUTH ? wire_auth_check(p, key, keylen, sn, f.payload, f.h.length, out,
						       sizeof(out), &len)
				     : -EBADMSG;
	if (rc == -EACCES) {
		wire_send(fd, p, WIRE_T_AUTH_FAIL, out, wire_auth_fail(out, sizeof(out)), deadline);
		snprintf(err, errlen, "peer's key is wrong");
		goto out;
	}
	if (rc) {
		snprintf(err, errlen, "peer did not answer the challenge (frame type 0x%04x)", f.h.type);
		rc = rc == -EBADMSG ? -EPROTO : rc;
		goto out;
	}
	rc = wire_frame_secure_server(fp, p, key, keylen, sn, f.payload, f.h.length);
	if (!rc)
		rc = wire_send(fd, p, WIRE_T_AUTH_OK, out, len, deadline);
	if (rc)
		snprintf(err, errlen, "cannot send the answer: %s", strerror(-rc));
out:
	wire_frame_free(&f);
	return rc;
}

int wire_auth_client(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
		     uint64_t deadline, char *err, size_t errlen)
{
	struct wire_frame f;
	int rc;

	wire_frame_init(&f, p);
	rc = wire_auth_client_sec(fd, p, key, keylen, deadline, &f, err, errlen);
	wire_frame_free(&f);
	return rc;
}

int wire_auth_client_sec(int fd, const struct wire_proto *p, const uint8_t *key, size_t keylen,
			 uint64_t deadline, struct wire_frame *fp, char *err, size_t errlen)
{
	uint8_t sn[WIRE_NONCE_LEN], cn[WIRE_NONCE_LEN], out[128];
	struct wire_frame f;
	size_t len;
	int rc;

	wire_frame_init(&f, p);
	rc = recv_type(fd, &f, deadline, err, errlen);
	if (rc)
		goto out;
	if (f.h.type != WIRE_T_CHALLENGE) {
		snprintf(err, errlen, "peer sent no challenge (frame type 0x%04x): does it want a key?",
			 f.h.type);
		rc = -EPROTO;
		goto out;
	}
	rc = wire_auth_answer(p, key, keylen, f.payload, f.h.length, sn, cn, out, sizeof(out), &len);
	if (!rc)
		rc = wire_send(fd, p, WIRE_T_AUTH, out, len, deadline);
	if (rc) {
		snprintf(err, errlen, "cannot answer the challenge: %s", strerror(-rc));
		goto out;
	}
	wire_frame_next(&f);
	rc = recv_type(fd, &f, deadline, err, errlen);
	if (rc)
		goto out;
	if (f.h.type == WIRE_T_AUTH_FAIL) {
		snprintf(err, errlen, "peer refused our key");
		rc = -EACCES;
	} else if (f.h.type != WIRE_T_AUTH_OK) {
		snprintf(err, errlen, "unexpected frame type 0x%04x during authentication", f.h.type);
		rc = -EPROTO;
	} else if ((rc = wire_auth_verify_ok(p, key, keylen, sn, cn, f.payload, f.h.length))) {
		snprintf(err, errlen, rc == -EACCES ? "peer does not know our key"
						    : "malformed authentication answer");
		rc = rc == -EACCES ? -EACCES : -EPROTO;
	} else if ((rc = wire_frame_secure_client(fp, p, key, keylen, sn, cn))) {
		snprintf(err, errlen, "no session keys: %s", strerror(-rc));
	}
out:
	wire_frame_free(&f);
	return rc;
}
