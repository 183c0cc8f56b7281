/* Internal declarations of the launchers (launch/): argv building shared by
 * the poll loop and the unit tests. */
#ifndef RCK_LAUNCH_INT_H
#define RCK_LAUNCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rocecheck/context.h"
#include "rocecheck/launch.h"

/* The agent command when the caller names none: rocecheck agent --once. */
const char *const *rck_launch_default_agent(void);
/* A host name the launchers accept (see rocecheck/launch.h). */
bool rck_launch_host_ok(const char *host);
/* A template split into words (quotes, backslashes); 0, -EINVAL, -ENOMEM. */
int rck_launch_split(const char *t, char ***out);

#define LINE_MAX_LEN 160 /* "65535 " + a token of at most 128 characters */
#define TOKEN_MAX 128
#define TAIL_LEN 512
#define EXIT_GRACE_MS 200 /* a launcher that closed stdout gets this long to exit */
#define LIFELINE_MS 300   /* after closing their stdin, children may exit alone */
/* After SIGKILL a child always ends; only how soon depends on the load (a
 * loaded 2-core CI runner left one unreaped 300 ms after it). A short
 * grace never shortens this wait. */
#define KILL_REAP_MIN_MS 3000u
static inline uint64_t rck_launch_kill_wait_ms(unsigned int grace_ms)
{
	return grace_ms > KILL_REAP_MIN_MS ? grace_ms : KILL_REAP_MIN_MS;
}

enum reap_phase {
	REAP_NONE,   /* running, or never started */
	REAP_WAIT,   /* waiting for it to exit by itself until kill_at */
	REAP_TERM,   /* SIGTERM sent; SIGKILL at kill_at */
	REAP_KILL,   /* SIGKILL sent; given up at kill_at */
};

struct lhost {
	char *name;
	enum rck_launch_status st;
	pid_t pid;           /* > 0 while unreaped */
	int out_fd, err_fd;  /* -1 when closed */
	int in_fd;           /* the child's standard input, closed to stop it; -1 */
	char line[LINE_MAX_LEN];
	size_t line_n;
	char tail[TAIL_LEN]; /* last bytes of stderr */
	size_t tail_n;
	uint64_t t_spawn, deadline, kill_at;
	enum reap_phase phase;
	int wstatus;
	bool reaped, starting;
	char *why;           /* failure before reaping finished */
	char *reason;
	char *token;
	unsigned int port, ms;
};

struct rck_launch {
	struct rck_ctx *ctx;
	struct rck_launch_opts opts;
	char *launcher;
	char **agent;        /* NULL: the default */
	char **extra;        /* NULL: none */
	struct lhost *h;
	size_t n;
	bool started;
};

/* One "PORT TOKEN" line (no newline; a trailing CR is allowed): true with
 * *port and *token (the caller frees it) set, false for anything else. */
bool rck_launch_parse_line(const char *s, unsigned int *port, char **token);
/* Monotonic milliseconds. */
uint64_t rck_launch_now_ms(void);
/* Reads a host's stderr without blocking into its tail; closes it at EOF. */
void rck_launch_drain_err(struct lhost *h);
/* The reason of a host that ended, from h->why, its exit and stderr tail. */
void rck_launch_finish(struct lhost *h);
/* Closes *@fd if open and sets it to -1. */
void rck_launch_close_fd(int *fd);
/* Reaps @h if it ended (and kills what it left in its group); true if reaped. */
bool rck_launch_try_reap(struct lhost *h);

#endif
