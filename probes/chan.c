/* Control connection I/O: framing on top of the probe sockets, with one
 * line of explanation for every way a peer can misbehave. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chan.h"
#include "clock.h"
#include "sock.h"

#define TICK_NS 1000000000ull
#define ERROR_SEND_MS 500
/* Messages pchan_poll() takes in one call: a peer that floods TICKs
 * cannot keep it from returning to the measurement. */
#define POLL_FRAMES 64

void pchan_init(struct pchan *c, int fd, const char *peer, unsigned int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	c->timeout_ms = timeout_ms;
	c->next_tick = pclock_ns() + TICK_NS;
	pframe_init(&c->fr);
}

void pchan_close(struct pchan *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->pending);
	c->pending = NULL;
	c->has_pending = false;
	pframe_free(&c->fr);
}

static int send_msg(struct pchan *c, enum xq_type type, const union xq_msg *m, uint64_t deadline,
		    struct perr *e)
{
	uint8_t *buf;
	size_t len;
	int rc;

	buf = malloc(XQ_HDR_LEN + XQ_MAX_PAYLOAD);
	if (!buf)
		return perr_set(e, RCK_PROBE_SYSTEM, -ENOMEM, "out of memory");
	rc = xq_encode(type, m, buf, XQ_HDR_LEN + XQ_MAX_PAYLOAD, &len);
	if (rc) {
		free(buf);
		return perr_set(e, RCK_PROBE_SYSTEM, rc, "cannot encode %s: %s", xq_type_name(type),
				strerror(-rc));
	}
	if (c->fr.sec) {
		/* After the handshake: sealed with the session's keys. */
		uint8_t *sealed = malloc(wire_sealed_len(len - XQ_HDR_LEN));

		if (!sealed) {
			free(buf);
			return perr_set(e, RCK_PROBE_SYSTEM, -ENOMEM, "out of memory");
		}
		wire_seal(c->fr.sec, &xq_proto, (uint16_t)type, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, sealed);
		len = wire_sealed_len(len - XQ_HDR_LEN);
		free(buf);
		buf = sealed;
	}
	rc = psock_send_all(c->fd, buf, len, deadline);
	free(buf);
	if (rc == -ETIMEDOUT)
		return perr_set(e, RCK_PROBE_TIMEOUT, rc, "%s did not take our %s within %u ms", c->peer,
				xq_type_name(type), c->timeout_ms);
	if (rc)
		return perr_set(e, perr_sock_status(rc), rc, "cannot send %s to %s: %s",
				xq_type_name(type), c->peer, strerror(-rc));
	return 0;
}

int pchan_send(struct pchan *c, enum xq_type type, const union xq_msg *m, struct perr *e)
{
	return send_msg(c, type, m, pclock_after_ms(c->timeout_ms), e);
}

void pchan_send_error(struct pchan *c, const struct perr *e)
{
	union xq_msg m = { 0 };
	struct perr ignore = { 0 };
	size_t len;

	if (c->fd < 0)
		return;
	m.error.status = (uint16_t)e->status;
	len = strnlen(e->msg, sizeof(m.error.text) - 1);
	memcpy(m.error.text, e->msg, len);
	m.error.text[len] = '\0';
	send_msg(c, XQ_ERROR, &m, pclock_after_ms(ERROR_SEND_MS), &ignore);
}

int pchan_tick(struct pchan *c, uint64_t now, struct perr *e)
{
	if (now < c->next_tick)
		return 0;
	c->next_tick = now + TICK_NS;
	return send_msg(c, XQ_TICK, NULL, now + (uint64_t)c->timeout_ms * 1000000u, e);
}

static void show_bytes(const uint8_t *b, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		if (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' && b[i] != '\\')
			out[o++] = (char)b[i];
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", b[i]);
	}
	out[o] = '\0';
}

int pchan_frame_error(const struct pframe *f, int rc, const char *peer, struct perr *e)
{
	char shown[64];

	if (rc == -EPROTO) {
		show_bytes(f->hdr, sizeof(f->hdr), shown, sizeof(shown));
		return perr_set(e, RCK_PROBE_PROTOCOL, rc,
				"%s does not speak the rocecheck probe protocol (it sent \"%s\")", peer, shown);
	}
	if (rc == -EPROTONOSUPPORT)
		return perr_set(e, RCK_PROBE_PROTOCOL, rc,
				"%s speaks probe protocol version %u, this rocecheck speaks %u", peer,
				f->h.version, XQ_VERSION);
	if (rc == -EMSGSIZE)
		return perr_set(e, RCK_PROBE_PROTOCOL, rc,
				"%s announced a %u-byte %s message, above the %u-byte limit", peer, f->h.length,
				xq_type_name(f->h.type), XQ_MAX_PAYLOAD);
	if (rc == -ENOMEM)
		return perr_set(e, RCK_PROBE_SYSTEM, rc, "out of memory");
	if (rc == WIRE_EINTEGRITY)
		return perr_set(e, RCK_PROBE_PROTOCOL, rc,
				"%s: integrity check failed: a probe frame was changed, replayed, reordered or dropped on the way",
				peer);
	return perr_set(e, perr_sock_status(rc), rc, "cannot receive from %s: %s", peer, strerror(-rc));
}

static int recv_err(struct pchan *c, int rc, const char *what, unsigned int ms, struct perr *e)
{
	if (rc == -ETIMEDOUT)
		return perr_set(e, RCK_PROBE_TIMEOUT, rc, "no %s from %s within %u ms", what, c->peer, ms);
	if (rc == -ECONNRESET)
		return perr_set(e, RCK_PROBE_UNREACHABLE, rc, "%s closed the connection (waiting for %s)",
				c->peer, what);
	if (rc == -EPROTO || rc == -EPROTONOSUPPORT || rc == -EMSGSIZE || rc == -ENOMEM ||
	    rc == WIRE_EINTEGRITY)
		return pchan_frame_error(&c->fr, rc, c->peer, e);
	return perr_set(e, perr_sock_status(rc), rc, "cannot receive %s from %s: %s", what, c->peer,
			strerror(-rc));
}

/* The frame just completed, decoded into *type and @m. */
static int take_frame(struct pchan *c, uint16_t *type, union xq_msg *m, struct perr *e)
{
	const struct xq_hdr h = c->fr.h;
	int rc = xq_decode(h.type, c->fr.payload, h.length, m);

	pframe_next(&c->fr);
	if (h.type == WIRE_T_CHALLENGE)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EACCES,
				"%s wants a key: give the listener's --key-file", c->peer);
	if (rc == -ENOMSG)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EBADMSG,
				"%s sent a message of unknown type %u", c->peer, h.type);
	if (rc)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EBADMSG, "malformed %s message from %s",
				xq_type_name(h.type), c->peer);
	*type = h.type;
	return 0;
}

/* Read one whole message (a TICK too) by @deadline. @want names what we
 * wait for, in messages; @ms is the wait's length, for them too. */
static int read_msg(struct pchan *c, const char *want, uint64_t deadline, unsigned int ms,
		    uint16_t *type, union xq_msg *m, struct perr *e)
{
	int eof, rc;

	for (;;) {
		rc = pframe_recv(&c->fr, c->fd, &eof);
		if (rc == 1)
			return take_frame(c, type, m, e);
		if (rc == 0)
			rc = psock_wait(c->fd, POLLIN, deadline);
		if (rc < 0)
			return recv_err(c, rc, want, ms, e);
	}
}

static int adopt_error(struct pchan *c, const struct xq_error *err, struct perr *e)
{
	enum rck_probe_status st = err->status;

	if (err->status == XQ_ERR_BUSY)
		return perr_set(e, RCK_PROBE_UNREACHABLE, -EBUSY, "server busy: %s %s", c->peer,
				err->text);
	if (st == RCK_PROBE_OK || st > RCK_PROBE_SYSTEM)
		st = RCK_PROBE_PROTOCOL;
	return perr_set(e, st, -EREMOTEIO, "peer %s: %s", c->peer, err->text);
}

/* @ms is the wait the error message names: the caller's nominal timeout,
 * not what is left of it by the time we look. */
static int recv_until(struct pchan *c, enum xq_type want, uint64_t deadline, unsigned int ms,
		      union xq_msg *m, struct perr *e)
{
	uint16_t type;
	int rc;

	if (c->has_pending) {
		type = c->pending_type;
		memcpy(m, c->pending, sizeof(*m));
		c->has_pending = false;
	} else {
		do {
			rc = read_msg(c, xq_type_name(want), deadline, ms, &type, m, e);
			if (rc)
				return rc;
		} while (type == XQ_TICK);
	}
	if (type == XQ_ERROR)
		return adopt_error(c, &m->error, e);
	if (type != want)
		return perr_set(e, RCK_PROBE_PROTOCOL, -EBADMSG,
				"%s sent %s while we waited for %s", c->peer, xq_type_name(type),
				xq_type_name(want));
	return 0;
}

int pchan_recv_until(struct pchan *c, enum xq_type want, uint64_t deadline, union xq_msg *m,
		     struct perr *e)
{
	uint64_t now = pclock_ns();

	return recv_until(c, want, deadline,
			  deadline > now ? (unsigned int)((deadline - now + 999999u) / 1000000u) : 0, m, e);
}

int pchan_recv(struct pchan *c, enum xq_type want, union xq_msg *m, struct perr *e)
{
	return recv_until(c, want, pclock_after_ms(c->timeout_ms), c->timeout_ms, m, e);
}

int pchan_poll(struct pchan *c, struct perr *e)
{
	uint16_t type;
	int eof, rc;

	if (c->has_pending)
		return 1;
	if (!c->pending) {
		c->pending = malloc(sizeof(*c->pending));
		if (!c->pending)
			return perr_set(e, RCK_PROBE_SYSTEM, -ENOMEM, "out of memory");
	}
	for (unsigned int i = 0; i < POLL_FRAMES; i++) {
		rc = pframe_recv(&c->fr, c->fd, &eof);
		if (rc == 0)
			return 0;
		if (rc < 0)
			return recv_err(c, rc, "a message", c->timeout_ms, e);
		if ((rc = take_frame(c, &type, c->pending, e)))
			return rc;
		if (type == XQ_TICK)
			continue;
		c->pending_type = type;
		c->has_pending = true;
		return 1;
	}
	return 0;
}
