/* lldpd's neighbour table through liblldpctl: our own socket and send/recv
 * callbacks, so every wait for lldpd has a deadline. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <lldpctl.h>

#include "topo_int.h"

struct io {
	int fd;
	struct timespec end;
	int err;                  /* -ETIMEDOUT or -errno of the last failure */
};

static int ms_left(const struct io *io)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(io->end.tv_sec - now.tv_sec) * 1000 + (io->end.tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

static int wait_fd(struct io *io, short ev)
{
	struct pollfd p = { .fd = io->fd, .events = ev };

	for (;;) {
		int left = ms_left(io), n = poll(&p, 1, left);

		if (n > 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		io->err = n < 0 ? -errno : -ETIMEDOUT;
		return io->err;
	}
}

static ssize_t io_send(lldpctl_conn_t *conn, const uint8_t *data, size_t len, void *ud)
{
	struct io *io = ud;
	ssize_t n;

	(void)conn;
	if (wait_fd(io, POLLOUT))
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	n = send(io->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0) {
		io->err = -errno;
		return errno == EAGAIN ? LLDPCTL_ERR_WOULDBLOCK : LLDPCTL_ERR_CALLBACK_FAILURE;
	}
	return n;
}

static ssize_t io_recv(lldpctl_conn_t *conn, const uint8_t *data, size_t len, void *ud)
{
	struct io *io = ud;
	ssize_t n;

	(void)conn;
	if (wait_fd(io, POLLIN))
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	n = recv(io->fd, (void *)data, len, MSG_DONTWAIT);
	if (n == 0)
		return LLDPCTL_ERR_EOF;
	if (n < 0) {
		io->err = -errno;
		return errno == EAGAIN ? LLDPCTL_ERR_WOULDBLOCK : LLDPCTL_ERR_CALLBACK_FAILURE;
	}
	return n;
}

static int connect_to(const char *path, struct io *io)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path));
	io->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (io->fd < 0)
		return -errno;
	if (connect(io->fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) {
		int rc = -errno;

		close(io->fd);
		io->fd = -1;
		return rc;
	}
	return 0;
}

static char *dup_str(lldpctl_atom_t *a, lldpctl_key_t k)
{
	const char *s = lldpctl_atom_get_str(a, k);

	return s && *s ? strdup(s) : NULL;
}

struct recs {
	struct rck_topology_neighbour *r;
	size_t n, cap;
};

static void recs_free(struct recs *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free((char *)v->r[i].nic);
		free((char *)v->r[i].chassis_id);
		free((char *)v->r[i].port_id);
		free((char *)v->r[i].system_name);
		free((char *)v->r[i].port_description);
	}
	free(v->r);
}

static int push(struct recs *v, const char *host, const char *ifname, lldpctl_atom_t *nb)
{
	struct rck_topology_neighbour *r;

	if (v->n == v->cap) {
		size_t c = v->cap ? 2 * v->cap : 8;
		struct rck_topology_neighbour *g = realloc(v->r, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		v->r = g;
		v->cap = c;
	}
	r = &v->r[v->n++];
	*r = (struct rck_topology_neighbour){ .size = sizeof(*r), .host = host, .nic = strdup(ifname) };
	if (nb) {
		long sub = lldpctl_atom_get_int(nb, lldpctl_k_port_id_subtype);

		r->chassis_id = dup_str(nb, lldpctl_k_chassis_id);
		r->port_id = dup_str(nb, lldpctl_k_port_id);
		r->port_id_subtype = sub > 0 && sub < 256 ? (unsigned int)sub : 0;
		r->system_name = dup_str(nb, lldpctl_k_chassis_name);
		r->port_description = dup_str(nb, lldpctl_k_port_descr);
	}
	return r->nic ? 0 : -ENOMEM;
}

static int read_table(lldpctl_conn_t *conn, const char *host, struct recs *v)
{
	lldpctl_atom_t *ifs = lldpctl_get_interfaces(conn), *iface;
	int rc = 0;

	if (!ifs)
		return -EPROTO;
	lldpctl_atom_foreach(ifs, iface) {
		const char *ifname = lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
		lldpctl_atom_t *port = ifname ? lldpctl_get_port(iface) : NULL, *nbs, *nb;
		size_t before = v->n;

		if (!port) {
			rc = ifname ? -EPROTO : 0;
			if (rc) {
				lldpctl_atom_dec_ref(iface);
				break;
			}
			continue;
		}
		nbs = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
		if (nbs) {
			lldpctl_atom_foreach(nbs, nb)
				if (!rc)
					rc = push(v, host, ifname, nb);
			lldpctl_atom_dec_ref(nbs);
		}
		if (!rc && v->n == before)
			rc = push(v, host, ifname, NULL);
		lldpctl_atom_dec_ref(port);
		if (rc) {
			lldpctl_atom_dec_ref(iface);
			break;
		}
	}
	lldpctl_atom_dec_ref(ifs);
	return rc;
}

int tp_lldpd_read(const char *host, const char *socket_path, unsigned int timeout_ms,
		  struct rck_topology_neighbour **recs, size_t *n, char *err, size_t errlen)
{
	const char *path = socket_path ? socket_path : lldpctl_get_default_transport();
	struct io io = { .fd = -1 };
	struct recs v = { 0 };
	lldpctl_conn_t *conn;
	int rc;

	*recs = NULL;
	*n = 0;
	clock_gettime(CLOCK_MONOTONIC, &io.end);
	io.end.tv_sec += timeout_ms / 1000;
	io.end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (io.end.tv_nsec >= 1000000000) {
		io.end.tv_sec++;
		io.end.tv_nsec -= 1000000000;
	}
	rc = connect_to(path, &io);
	if (rc)
		return tp_fail(err, errlen, rc, "lldpd (%s): %s", path,
			       rc == -ENOENT || rc == -ECONNREFUSED ? "not running" : strerror(-rc));
	conn = lldpctl_new_name(path, io_send, io_recv, &io);
	if (!conn) {
		close(io.fd);
		return -ENOMEM;
	}
	rc = read_table(conn, host, &v);
	if (rc == -EPROTO) {
		if (io.err)
			rc = io.err;
		if (rc == -ETIMEDOUT)
			tp_fail(err, errlen, rc, "lldpd (%s): no answer within %u ms", path, timeout_ms);
		else
			tp_fail(err, errlen, rc, "lldpd (%s): %s", path,
				io.err ? strerror(-io.err) : lldpctl_last_strerror(conn));
	}
	lldpctl_release(conn);
	close(io.fd);
	if (rc) {
		recs_free(&v);
		return rc;
	}
	*recs = v.r;
	*n = v.n;
	return 0;
}

void tp_neighbours_free(struct rck_topology_neighbour *recs, size_t n)
{
	struct recs v = { .r = recs, .n = n };

	recs_free(&v);
}

RCK_EXPORT int rck_topology_add_lldpd(struct rck_topology *t, struct rck_ctx *ctx, const char *host,
				      const char *socket_path, unsigned int timeout_ms, char *err,
				      size_t errlen)
{
	struct rck_topology_neighbour *recs;
	char src[320];
	size_t n;
	int rc;

	(void)ctx;
	if (!t || !host || !*host)
		return -EINVAL;
	rc = tp_lldpd_read(host, socket_path, timeout_ms, &recs, &n, err, errlen);
	if (rc)
		return rc;
	snprintf(src, sizeof(src), "lldpd:%s", host);
	rc = rck_topology_add_neighbours(t, src, recs, n);
	tp_neighbours_free(recs, n);
	return rc;
}
