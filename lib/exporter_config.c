/* The HTTP exporter's options: defaults, ranges and the bind address, kept
 * apart from libmicrohttpd so a build without it checks them the same way. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "exporter_int.h"
#include "internal.h"

RCK_EXPORT void rck_exporter_config_init(struct rck_exporter_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->max_connections = 32;
	cfg->timeout_s = 5;
	cfg->max_request = 16 * 1024;
	cfg->max_body = 64u * 1024 * 1024;
}

int exp_config_check(const struct rck_exporter_config *cfg, struct rck_exporter_config *ok)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!cfg || cfg->size < sizeof(*cfg))
		return -EINVAL;
	*ok = *cfg;
	ok->size = sizeof(*ok);
	if (!ok->addr)
		ok->addr = "127.0.0.1";
	if (!ok->render || ok->port > 65535 || exp_parse_addr(ok->addr, ok->port, &ss, &len) < 0)
		return -EINVAL;
	if (ok->max_connections == 0 || ok->max_connections > 1024 || ok->max_per_addr > ok->max_connections)
		return -EINVAL;
	if (ok->timeout_s == 0 || ok->timeout_s > 3600)
		return -EINVAL;
	if (ok->max_request < 4096 || ok->max_request > 1024 * 1024 || ok->max_body == 0)
		return -EINVAL;
	return 0;
}

int exp_parse_addr(const char *addr, unsigned int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + 2];
	size_t n = addr ? strlen(addr) : 0;

	memset(ss, 0, sizeof(*ss));
	if (n == 0 || n >= sizeof(buf) || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
		return 0;
	}
	if (addr[0] == '[') {
		if (n < 3 || addr[n - 1] != ']')
			return -EINVAL;
		memcpy(buf, addr + 1, n - 2);
		buf[n - 2] = '\0';
	} else {
		memcpy(buf, addr, n + 1);
	}
	if (inet_pton(AF_INET6, buf, &v6->sin6_addr) != 1)
		return -EINVAL;
	v6->sin6_family = AF_INET6;
	v6->sin6_port = htons((uint16_t)port);
	*len = sizeof(*v6);
	return 0;
}
