/* TCP sockets of the probes with a deadline on every wait: connect,
 * send and receive through poll() on non-blocking descriptors. */
#ifndef RCK_PROBE_SOCK_H
#define RCK_PROBE_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Connect to @host:@port, trying each address until @deadline. On success
 * *fd is a non-blocking socket with TCP_NODELAY and *peer its address.
 * Returns 0, -EINVAL/-ENOENT (@host does not resolve; *gai gets the
 * getaddrinfo error), -ETIMEDOUT, or the connect errno. */
int psock_connect(const char *host, unsigned int port, uint64_t deadline, int *fd,
		  struct sockaddr_storage *peer, int *gai);
/* Connect to a known address (a data stream of the TCP transport). */
int psock_connect_addr(const struct sockaddr_storage *sa, uint64_t deadline, int *fd);
/* Listen on @addr (NULL: any, IPv6 dual-stack when possible) : @port (0:
 * a free one). *bound gets the port. Returns 0 or -errno. */
int psock_listen(const char *addr, unsigned int port, int *fd, unsigned int *bound);
/* Wait for @events on @fd until @deadline. Returns the revents (> 0),
 * -ETIMEDOUT, or -errno. EINTR is retried. */
int psock_wait(int fd, short events, uint64_t deadline);
int psock_send_all(int fd, const void *buf, size_t len, uint64_t deadline);
/* Returns 0, -ECONNRESET when the peer closed the stream before @len bytes. */
int psock_recv_all(int fd, void *buf, size_t len, uint64_t deadline);
/* The same, but an end of stream before the first byte sets *eof and returns 0. */
int psock_recv_msg(int fd, void *buf, size_t len, uint64_t deadline, bool *eof);
/* True when @fd has data or an end of stream waiting, without blocking. */
int psock_readable(int fd);
/* Numeric address ("10.0.0.1", "fe80::1"), without the port. */
void psock_addr_str(const struct sockaddr_storage *sa, char *buf, size_t len);
unsigned int psock_addr_port(const struct sockaddr_storage *sa);
void psock_set_port(struct sockaddr_storage *sa, unsigned int port);
/* Local and peer addresses of a connected socket. Return 0 or -errno. */
int psock_local(int fd, struct sockaddr_storage *sa);
int psock_peer(int fd, struct sockaddr_storage *sa);
/* An IPv4-mapped IPv6 address as plain IPv4 (accepted on a dual-stack listener). */
void psock_unmap(struct sockaddr_storage *sa);

#endif
