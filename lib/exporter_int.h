/* Private to the HTTP exporter (lib/http_exporter.c, lib/exporter_config.c):
 * the checked options and the listening address. */
#ifndef RCK_EXPORTER_INT_H
#define RCK_EXPORTER_INT_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "rocecheck/exporter.h"

/* Options after defaults and range checks (cfg->size honoured). */
int exp_config_check(const struct rck_exporter_config *cfg, struct rck_exporter_config *ok);

/* An IPv4 or IPv6 literal (brackets allowed around IPv6) and @port as a
 * socket address; no name resolution. Returns 0 or -EINVAL. */
int exp_parse_addr(const char *addr, unsigned int port, struct sockaddr_storage *ss, socklen_t *len);

#endif
