/* The HTTP /metrics exporter on libmicrohttpd: our own listening socket
 * (bind errors as errno), one epoll thread, bounded requests and pages. */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exporter_int.h"
#include "internal.h"

#define EXP_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct rck_exporter {
	struct MHD_Daemon *daemon;
	rck_exporter_render_fn render;
	void *arg;
	size_t max_body;
	unsigned int port;
};

/* The page under construction: a memory stream that refuses to grow past
 * max_body, so a runaway render fails its scrape instead of the host. */
struct page {
	char *buf;
	size_t len, cap, max;
};

static ssize_t page_write(void *cookie, const char *data, size_t n)
{
	struct page *p = cookie;

	if (n > p->max - p->len) {
		errno = EFBIG;
		return -1;
	}
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *nb;

		while (cap < p->len + n)
			cap = cap > p->max / 2 ? p->max : cap * 2;
		nb = realloc(p->buf, cap);
		if (!nb) {
			errno = ENOMEM;
			return -1;
		}
		p->buf = nb;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	return (ssize_t)n;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result scrape(struct rck_exporter *e, struct MHD_Connection *c)
{
	cookie_io_functions_t io = { .write = page_write };
	struct page p = { .max = e->max_body };
	struct MHD_Response *r;
	enum MHD_Result ret;
	FILE *f = fopencookie(&p, "w", io);
	int rc;

	if (!f)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "rocecheck: out of memory\n");
	rc = e->render(e->arg, f);
	if (fflush(f) != 0 || ferror(f))
		rc = rc < 0 ? rc : -EIO;
	fclose(f);
	if (rc < 0) {
		free(p.buf);
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "rocecheck: the metrics could not be rendered\n");
	}
	r = MHD_create_response_from_buffer(p.len, p.buf ? p.buf : (void *)"", p.buf ? MHD_RESPMEM_MUST_FREE
									     : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(p.buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, EXP_CONTENT_TYPE);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Answered on the first call, with the headers alone: a body (another
 * method's) is never read, and the connection closes after the answer. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "rocecheck: only /metrics is served here\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "rocecheck: /metrics answers GET and HEAD\n");
	return scrape(cls, c);
}

static int listen_on(const struct rck_exporter_config *cfg, int *fd_out, unsigned int *port, int *v6)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, fd, rc;

	rc = exp_parse_addr(cfg->addr, cfg->port, &ss, &len);
	if (rc < 0)
		return rc;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 128) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*v6 = ss.ss_family == AF_INET6;
	*port = ntohs(*v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
	*fd_out = fd;
	return 0;
}

RCK_EXPORT int rck_exporter_new(const struct rck_exporter_config *cfg, struct rck_exporter **out)
{
	struct rck_exporter_config ok;
	struct rck_exporter *e;
	int fd = -1, v6 = 0, rc;

	if (!out)
		return -EINVAL;
	rc = exp_config_check(cfg, &ok);
	if (rc < 0)
		return rc;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->render = ok.render;
	e->arg = ok.arg;
	e->max_body = ok.max_body;
	rc = listen_on(&ok, &fd, &e->port, &v6);
	if (rc < 0) {
		free(e);
		return rc;
	}
	/* No MHD_USE_ERROR_LOG: the library never prints. The daemon closes
	 * the listening socket when it stops. */
	e->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				     answer, e,
				     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				     MHD_OPTION_CONNECTION_LIMIT, ok.max_connections,
				     MHD_OPTION_PER_IP_CONNECTION_LIMIT, ok.max_per_addr,
				     MHD_OPTION_CONNECTION_TIMEOUT, ok.timeout_s,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, ok.max_request,
				     MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
				     MHD_OPTION_END);
	if (!e->daemon) {
		/* Not closed here: libmicrohttpd closes a given socket on some of
		 * its failure paths, and a rare leak beats closing a reused fd. */
		free(e);
		return -EIO;
	}
	*out = e;
	return 0;
}

RCK_EXPORT unsigned int rck_exporter_port(const struct rck_exporter *e)
{
	return e ? e->port : 0;
}

RCK_EXPORT void rck_exporter_free(struct rck_exporter *e)
{
	if (!e)
		return;
	MHD_stop_daemon(e->daemon);
	free(e);
}
