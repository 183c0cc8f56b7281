/* Unit tests of the shared wire layer: headers and version errors, cursors,
 * attributes (unknown ones skipped), frames in pieces, key files, auth. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire.h"

static const struct wire_proto P = { .magic = 0x54455354, .version = 3, .max_payload = 1024,
				     .name = "test" };

static void test_header(void **state)
{
	uint8_t buf[WIRE_HDR_LEN];
	struct wire_hdr h;
	struct wire_proto other = P;
	char msg[160];

	(void)state;
	wire_hdr_encode(buf, &P, 7, 100);
	assert_int_equal(wire_hdr_decode(&P, buf, &h), 0);
	assert_int_equal(h.type, 7);
	assert_int_equal(h.length, 100);
	other.version = 4;
	assert_int_equal(wire_hdr_decode(&other, buf, &h), -EPROTONOSUPPORT);
	wire_hdr_strerror(&other, &h, -EPROTONOSUPPORT, msg, sizeof(msg));
	assert_non_null(strstr(msg, "version 3, we speak version 4"));
	other = P;
	other.magic = 1;
	assert_int_equal(wire_hdr_decode(&other, buf, &h), -EPROTO);
	wire_hdr_encode(buf, &P, 7, 1025);
	assert_int_equal(wire_hdr_decode(&P, buf, &h), -EMSGSIZE);
}

static void test_cursor(void **state)
{
	uint8_t b[3] = { 1, 2, 3 };
	struct wire_cur c = { .p = b, .len = sizeof(b) };
	uint8_t out[4];
	struct wire_buf w = { .p = out, .cap = sizeof(out) };

	(void)state;
	assert_int_equal(wire_get_u16(&c), 0x102);
	assert_false(c.bad);
	assert_int_equal(wire_get_u16(&c), 0);
	assert_true(c.bad);
	assert_null(wire_get_bytes(&c, 1));
	wire_put_u32(&w, 5);
	assert_false(w.bad);
	wire_put_u8(&w, 1);
	assert_true(w.bad);
	assert_int_equal(w.len, 4);
}

static void test_attrs(void **state)
{
	uint8_t buf[256];
	struct wire_buf b = { .p = buf, .cap = sizeof(buf) };
	struct wire_attr tb[4], a;
	uint32_t v32;
	uint64_t v64;
	double d;
	char s[8];
	size_t nest, off = 0;
	uint16_t type;
	int n = 0;

	(void)state;
	wire_attr_put_u32(&b, 1, 42);
	wire_attr_put_str(&b, 2, "abc");
	wire_attr_put_u64(&b, 99, 7); /* from a newer peer: skipped */
	nest = wire_attr_nest_start(&b, 3);
	wire_attr_put_f64(&b, 1, 2.5);
	wire_attr_put_f64(&b, 1, 3.5);
	wire_attr_nest_end(&b, nest);
	assert_false(b.bad);
	assert_int_equal(b.len % 4, 0);
	assert_int_equal(wire_attr_parse(buf, b.len, tb, 3), 0);
	assert_int_equal(wire_attr_u32(&tb[1], &v32), 0);
	assert_int_equal(v32, 42);
	assert_int_equal(wire_attr_str(&tb[2], s, sizeof(s)), 0);
	assert_string_equal(s, "abc");
	assert_int_equal(wire_attr_str(&tb[2], s, 3), -EBADMSG);
	assert_int_equal(wire_attr_u64(&tb[1], &v64), -EBADMSG);
	assert_int_equal(wire_attr_u64(&tb[0], &v64), -ENOENT);
	while (wire_attr_next(tb[3].v, tb[3].len, &off, &type, &a) == 1) {
		assert_int_equal(wire_attr_f64(&a, &d), 0);
		assert_true(d == 2.5 + n++);
	}
	assert_int_equal(n, 2);
	/* A length running past the end. */
	buf[3] = 200;
	assert_int_equal(wire_attr_parse(buf, 8, tb, 3), -EBADMSG);
}

static void test_frame_pieces(void **state)
{
	uint8_t buf[64];
	struct wire_frame f;
	size_t used, off = 0;
	int rc = 0;

	(void)state;
	wire_hdr_encode(buf, &P, 9, 5);
	memcpy(buf + WIRE_HDR_LEN, "hello", 5);
	memcpy(buf + WIRE_HDR_LEN + 5, "XX", 2);
	wire_frame_init(&f, &P);
	while (off < WIRE_HDR_LEN + 7 && (rc = wire_frame_put(&f, buf + off, 1, &used)) == 0)
		off += used;
	assert_int_equal(rc, 1);
	assert_int_equal(off + used, WIRE_HDR_LEN + 5);
	assert_memory_equal(f.payload, "hello", 5);
	wire_frame_next(&f);
	wire_hdr_encode(buf, &P, 9, 5000);
	assert_int_equal(wire_frame_put(&f, buf, WIRE_HDR_LEN, &used), -EMSGSIZE);
	wire_frame_free(&f);
}

static void write_key(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_key_file(void **state)
{
	char path[] = "/tmp/test-wire-keyXXXXXX", err[256];
	uint8_t key[WIRE_KEY_MAX];
	size_t len;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_key(path, "0123456789abcdef0123\n", 0600);
	assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 20);
	write_key(path, "0123456789abcdef0123\n", 0640);
	assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "chmod 600"));
	write_key(path, "short", 0600);
	assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), -EINVAL);
	{
		/* 1024 bytes of key, white space, then more: refused, never cut. */
		char big[1200];

		memset(big, 'k', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		big[1024] = '\n';
		big[1025] = '\n';
		write_key(path, big, 0600);
		assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), -EINVAL);
		big[1026] = '\0';
		write_key(path, big, 0600);
		assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), 0);
		assert_int_equal(len, 1024);
	}
	unlink(path);
	assert_int_equal(wire_key_load(path, key, &len, err, sizeof(err)), -ENOENT);
}

struct srv {
	int fd;
	const char *key;
	int rc;
	char err[160];
};

static void *server(void *arg)
{
	struct srv *s = arg;

	s->rc = wire_auth_server(s->fd, &P, (const uint8_t *)s->key, strlen(s->key),
				 wire_now_ns() + 2000000000ull, s->err, sizeof(s->err));
	return NULL;
}

static int handshake(const char *skey, const char *ckey, char *err, size_t errlen, int *srv_rc)
{
	struct srv s = { .key = skey };
	pthread_t t;
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s.fd = sv[0];
	assert_int_equal(pthread_create(&t, NULL, server, &s), 0);
	rc = wire_auth_client(sv[1], &P, (const uint8_t *)ckey, strlen(ckey),
			      wire_now_ns() + 2000000000ull, err, errlen);
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
	*srv_rc = s.rc;
	return rc;
}

static void test_auth(void **state)
{
	char err[160];
	int srv_rc;

	(void)state;
	assert_int_equal(handshake("sixteen-byte-key!", "sixteen-byte-key!", err, sizeof(err), &srv_rc), 0);
	assert_int_equal(srv_rc, 0);
	assert_int_equal(handshake("sixteen-byte-key!", "another-key-16by", err, sizeof(err), &srv_rc),
			 -EACCES);
	assert_int_equal(srv_rc, -EACCES);
	assert_non_null(strstr(err, "refused our key"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_frame_pieces),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_auth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
