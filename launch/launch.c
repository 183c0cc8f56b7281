/* Launches agents on many hosts: one child per host through its launcher, one
 * poll loop reading `PORT TOKEN` lines, bounded stop and reaping. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rocecheck/launch.h"
#include "internal.h"
#include "launch_int.h"
#include "../mesh/strset.h"

extern char **environ;

uint64_t rck_launch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

RCK_EXPORT void rck_launch_opts_init(struct rck_launch_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->launcher = "ssh";
	o->max_inflight = 64;
	o->start_timeout_ms = 30000;
	o->stop_grace_ms = 2000;
}

RCK_EXPORT const char *rck_launch_status_name(enum rck_launch_status s)
{
	static const char *const names[] = {
		[RCK_LAUNCH_PENDING] = "pending",
		[RCK_LAUNCH_READY] = "ready",
		[RCK_LAUNCH_UNREACHABLE] = "unreachable",
		[RCK_LAUNCH_EXITED] = "exited",
		[RCK_LAUNCH_STOPPED] = "stopped",
	};
	return (unsigned int)s < RCK_ARRAY_SIZE(names) ? names[s] : NULL;
}

void rck_launch_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A copy of a NULL-terminated word list (NULL stays NULL); 0 or -ENOMEM. */
static int words_copy(const char *const *in, char ***out)
{
	size_t k = 0;

	*out = NULL;
	if (!in)
		return 0;
	while (in[k])
		k++;
	char **v = calloc(k + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		if (!(v[i] = strdup(in[i]))) {
			rck_launch_argv_free(v);
			return -ENOMEM;
		}
	*out = v;
	return 0;
}

/* @in read as far as its @size says, over the defaults; -EINVAL if it is
 * too short or has nonzero bytes this library does not know. */
static int opts_copy(const struct rck_launch_opts *in, struct rck_launch_opts *out)
{
	rck_launch_opts_init(out);
	if (in->size < offsetof(struct rck_launch_opts, stop_grace_ms) + sizeof(in->stop_grace_ms))
		return -EINVAL;
	for (size_t i = sizeof(*out); i < in->size; i++)
		if (((const unsigned char *)in)[i])
			return -EINVAL;
	memcpy(out, in, in->size < sizeof(*out) ? in->size : sizeof(*out));
	out->size = sizeof(*out);
	return 0;
}

/* Every name valid and given once (a hash set: O(1) per host). */
static int hosts_check(struct rck_ctx *ctx, const char *const *hosts, size_t n)
{
	struct strset seen = {0};
	int rc = n > UINT32_MAX / 4 ? -E2BIG : strset_reserve(&seen, (unsigned int)n);

	for (size_t i = 0; !rc && i < n; i++) {
		char *copy;

		if (!rck_launch_host_ok(hosts[i])) {
			rck_err(ctx, "launch: bad host name '%s'", hosts[i] ? hosts[i] : "(null)");
			rc = -EINVAL;
		} else if (!(copy = strdup(hosts[i]))) {
			rc = -ENOMEM;
		} else if ((rc = strset_add(&seen, copy, NULL))) {
			free(copy);
			if (rc == -EEXIST)
				rck_err(ctx, "launch: host '%s' given twice", hosts[i]);
			rc = rc == -EEXIST ? -EINVAL : rc;
		}
	}
	strset_free(&seen);
	return rc;
}

/* The words a built-in launcher gets before the host: ssh's -F CONFIG
 * when opts name one, then the caller's extra words. 0 or -ENOMEM. */
static int extra_words(const struct rck_launch_opts *o, char ***out)
{
	const char *cfg[] = {"-F", o->ssh_config, NULL};
	char **pre = NULL, **rest = NULL, **v;
	size_t a = 0, b = 0;

	if (!o->ssh_config || !*o->ssh_config || strcmp(o->launcher, "ssh"))
		return words_copy(o->extra_args, out);
	if (words_copy(cfg, &pre) || words_copy(o->extra_args, &rest)) {
		rck_launch_argv_free(pre);
		return -ENOMEM;
	}
	while (rest && rest[b])
		b++;
	v = realloc(pre, (2 + b + 1) * sizeof(*v));
	if (!v) {
		rck_launch_argv_free(pre);
		rck_launch_argv_free(rest);
		return -ENOMEM;
	}
	a = 2;
	for (size_t i = 0; i < b; i++)
		v[a + i] = rest[i];
	v[a + b] = NULL;
	free(rest);
	*out = v;
	return 0;
}

RCK_EXPORT int rck_launch_new(struct rck_ctx *ctx, const struct rck_launch_opts *opts,
			      const char *const *hosts, size_t n, struct rck_launch **out)
{
	struct rck_launch_opts o;
	struct rck_launch *l;
	char **probe = NULL;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!opts || opts_copy(opts, &o)) {
		rck_err(ctx, "launch: options of an unknown size (initialise with rck_launch_opts_init())");
		return -EINVAL;
	}
	if (!o.launcher || !hosts || !n || o.max_inflight < 1 || o.max_inflight > 4096 || !o.start_timeout_ms ||
	    !o.stop_grace_ms) {
		rck_err(ctx, "launch: bad options (launcher, hosts, max_inflight 1..4096, timeouts > 0)");
		return -EINVAL;
	}
	rc = rck_launch_argv(o.launcher, "host", o.agent_argv, o.extra_args, &probe);
	rck_launch_argv_free(probe);
	if (rc) {
		if (rc == -EINVAL)
			rck_err(ctx, "launch: bad launcher '%s' (none, ssh, srun, pdsh, mpirun or a template naming {host})",
				o.launcher);
		return rc;
	}
	rc = hosts_check(ctx, hosts, n);
	if (rc)
		return rc;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->ctx = ctx;
	l->opts = o;
	l->launcher = strdup(o.launcher);
	l->h = calloc(n, sizeof(*l->h));
	rc = l->launcher && l->h ? 0 : -ENOMEM;
	if (!rc)
		rc = words_copy(o.agent_argv, &l->agent);
	if (!rc)
		rc = extra_words(&o, &l->extra);
	l->opts.launcher = l->launcher;
	l->opts.agent_argv = (const char *const *)l->agent;
	l->opts.extra_args = (const char *const *)l->extra;
	l->opts.ssh_config = NULL; /* in extra now */
	for (size_t i = 0; !rc && i < n; i++) {
		struct lhost *h = &l->h[i];
		h->out_fd = h->err_fd = h->in_fd = -1;
		l->n = i + 1;
		if (!(h->name = strdup(hosts[i])))
			rc = -ENOMEM;
	}
	if (rc) {
		rck_launch_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

/* Keeps the last TAIL_LEN bytes written to stderr. */
static void tail_add(struct lhost *h, const char *buf, size_t n)
{
	if (n >= TAIL_LEN) {
		memcpy(h->tail, buf + n - TAIL_LEN, TAIL_LEN);
		h->tail_n = TAIL_LEN;
		return;
	}
	if (h->tail_n + n > TAIL_LEN) {
		size_t drop = h->tail_n + n - TAIL_LEN;
		memmove(h->tail, h->tail + drop, h->tail_n - drop);
		h->tail_n -= drop;
	}
	memcpy(h->tail + h->tail_n, buf, n);
	h->tail_n += n;
}

/* Reads what is there on stderr without blocking; closes it at EOF. */
void rck_launch_drain_err(struct lhost *h)
{
	char buf[4096];

	while (h->err_fd >= 0) {
		ssize_t r = read(h->err_fd, buf, sizeof(buf));
		if (r > 0) {
			tail_add(h, buf, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			rck_launch_close_fd(&h->err_fd);
		break;
	}
}

/* The stderr tail as one printable line: the last 200 characters, trimmed. */
static void tail_text(const struct lhost *h, char *out, size_t size)
{
	size_t n = h->tail_n, start, o = 0;

	while (n && (h->tail[n - 1] == '\n' || h->tail[n - 1] == '\r' || h->tail[n - 1] == ' '))
		n--;
	start = n > 200 ? n - 200 : 0;
	for (size_t i = start; i < n && o + 1 < size; i++) {
		unsigned char c = (unsigned char)h->tail[i];
		out[o++] = c == '\n' ? '|' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	out[o] = '\0';
}

static void set_reason(struct lhost *h, const char *fmt, ...) RCK_PRINTF(2, 3);
static void set_reason(struct lhost *h, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(h->reason);
	h->reason = s;
}

/* The launcher's end for the reason: "exit status 1", "signal 9". */
static void status_text(const struct lhost *h, char *out, size_t size)
{
	if (!h->reaped)
		snprintf(out, size, "not reaped");
	else if (WIFEXITED(h->wstatus))
		snprintf(out, size, "exit status %d", WEXITSTATUS(h->wstatus));
	else if (WIFSIGNALED(h->wstatus))
		snprintf(out, size, "killed by signal %d", WTERMSIG(h->wstatus));
	else
		snprintf(out, size, "ended");
}

/* The final reason of a failed host, once its child is reaped or given up. */
void rck_launch_finish(struct lhost *h)
{
	char tail[256], st[48];

	rck_launch_drain_err(h);
	rck_launch_close_fd(&h->err_fd);
	tail_text(h, tail, sizeof(tail));
	status_text(h, st, sizeof(st));
	set_reason(h, "%s (%s)%s%s", h->why ? h->why : "launcher failed", st, *tail ? ": " : "", tail);
	h->phase = REAP_NONE;
}

/* Starts the end of a host that failed while starting. */
static void host_fail(struct rck_launch *l, struct lhost *h, uint64_t now, bool exiting, const char *fmt, ...)
	RCK_PRINTF(5, 6);
static void host_fail(struct rck_launch *l, struct lhost *h, uint64_t now, bool exiting, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(h->why);
	if (vasprintf(&h->why, fmt, ap) < 0)
		h->why = NULL;
	va_end(ap);
	rck_launch_close_fd(&h->out_fd);
	rck_launch_close_fd(&h->in_fd);
	h->st = RCK_LAUNCH_UNREACHABLE;
	h->starting = false;
	h->ms = (unsigned int)(now - h->t_spawn);
	rck_dbg(l->ctx, "launch: %s: %s", h->name, h->why ? h->why : "failed");
	if (h->pid <= 0) {
		rck_launch_finish(h);
		return;
	}
	h->phase = REAP_WAIT;
	h->kill_at = now + (exiting ? EXIT_GRACE_MS : 0);
}

/* Reaps @h if it ended; true when it is (or was) reaped. */
bool rck_launch_try_reap(struct lhost *h)
{
	int ws;
	pid_t r;

	if (h->pid <= 0)
		return true;
	do
		r = waitpid(h->pid, &ws, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	if (r == h->pid) {
		h->wstatus = ws;
		h->reaped = true;
	}
	/* Whatever the launcher left in its group goes with it. */
	killpg(h->pid, SIGKILL);
	h->pid = 0;
	return true;
}

/* One step of a host's end: reap, or escalate the signal when its time comes. */
static void reap_step(struct rck_launch *l, struct lhost *h, uint64_t now)
{
	if (h->phase == REAP_NONE)
		return;
	if (rck_launch_try_reap(h)) {
		if (h->st == RCK_LAUNCH_UNREACHABLE)
			rck_launch_finish(h);
		h->phase = REAP_NONE;
		return;
	}
	if (now < h->kill_at)
		return;
	switch (h->phase) {
	case REAP_WAIT:
		killpg(h->pid, SIGTERM);
		h->phase = REAP_TERM;
		h->kill_at = now + l->opts.stop_grace_ms;
		break;
	case REAP_TERM:
		killpg(h->pid, SIGKILL);
		h->phase = REAP_KILL;
		h->kill_at = now + rck_launch_kill_wait_ms(l->opts.stop_grace_ms);
		break;
	default:
		rck_warn(l->ctx, "launch: %s: pid %d not reaped after SIGKILL", h->name, (int)h->pid);
		h->pid = 0;
		if (h->st == RCK_LAUNCH_UNREACHABLE)
			rck_launch_finish(h);
		h->phase = REAP_NONE;
		break;
	}
}

static int spawn(struct rck_launch *l, struct lhost *h)
{
	char **argv = NULL;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, inp[2] = { -1, -1 }, rc;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	pid_t pid;

	rc = rck_launch_argv(l->launcher, h->name, l->opts.agent_argv, l->opts.extra_args, &argv);
	if (rc)
		return rc;
	if (pipe2(outp, O_CLOEXEC | O_NONBLOCK) || pipe2(errp, O_CLOEXEC | O_NONBLOCK) ||
	    pipe2(inp, O_CLOEXEC)) {
		rc = -errno;
		rck_launch_close_fd(&outp[0]);
		rck_launch_close_fd(&outp[1]);
		rck_launch_close_fd(&errp[0]);
		rck_launch_close_fd(&errp[1]);
		rck_launch_argv_free(argv);
		return rc;
	}
	/* The child's ends block as usual. */
	fcntl(outp[1], F_SETFL, 0);
	fcntl(errp[1], F_SETFL, 0);
	posix_spawn_file_actions_init(&fa);
	/* Standard input: a pipe we never write, closed to say "stop". */
	posix_spawn_file_actions_adddup2(&fa, inp[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	int sigs[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2 };
	for (size_t i = 0; i < RCK_ARRAY_SIZE(sigs); i++)
		sigaddset(&dfl, sigs[i]);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	/* Its own process group: stopping it reaches what it started. */
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	rck_launch_close_fd(&outp[1]);
	rck_launch_close_fd(&errp[1]);
	rck_launch_close_fd(&inp[0]);
	h->t_spawn = rck_launch_now_ms();
	h->deadline = h->t_spawn + l->opts.start_timeout_ms;
	if (rc) {
		rck_launch_close_fd(&outp[0]);
		rck_launch_close_fd(&errp[0]);
		rck_launch_close_fd(&inp[1]);
		host_fail(l, h, h->t_spawn, false, "cannot run '%s': %s", argv[0], strerror(rc));
		rck_launch_argv_free(argv);
		return 0;
	}
	rck_launch_argv_free(argv);
	h->pid = pid;
	h->out_fd = outp[0];
	h->err_fd = errp[0];
	h->in_fd = inp[1];
	h->starting = true;
	return 0;
}

/* "PORT TOKEN": a port 1..65535 and a token of [A-Za-z0-9+/=_.-]. */
bool rck_launch_parse_line(const char *s, unsigned int *port, char **token)
{
	char *end;
	unsigned long p;

	if (*s < '1' || *s > '9')
		return false;
	errno = 0;
	p = strtoul(s, &end, 10);
	if (errno || p < 1 || p > 65535 || *end != ' ')
		return false;
	s = end + 1;
	size_t n = strlen(s);
	if (n && s[n - 1] == '\r')
		n--;
	if (n < 1 || n > TOKEN_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      strchr("+/=_.-", s[i])))
			return false;
	*token = strndup(s, n);
	*port = (unsigned int)p;
	return *token != NULL;
}

/* What a host printed, quoted for a reason. */
static void printable(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		out[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	out[o] = '\0';
}

static void read_out(struct rck_launch *l, struct lhost *h, uint64_t now)
{
	for (;;) {
		size_t room = sizeof(h->line) - 1 - h->line_n;
		ssize_t r = read(h->out_fd, h->line + h->line_n, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0) {
			host_fail(l, h, now, true, "launcher ended before PORT TOKEN");
			return;
		}
		h->line_n += (size_t)r;
		h->line[h->line_n] = '\0';
		char *nl = memchr(h->line, '\n', h->line_n);
		if (!nl) {
			if (h->line_n + 1 < sizeof(h->line))
				continue;
			char p[64];
			printable(h->line, 40, p, sizeof(p));
			host_fail(l, h, now, false, "launcher printed '%s...', not PORT TOKEN", p);
			return;
		}
		*nl = '\0';
		if (!rck_launch_parse_line(h->line, &h->port, &h->token)) {
			char p[64];
			printable(h->line, (size_t)(nl - h->line), p, sizeof(p));
			host_fail(l, h, now, false, "launcher printed '%s', not PORT TOKEN", p);
			return;
		}
		/* --once prints one line; its stdout is not read again. */
		rck_launch_close_fd(&h->out_fd);
		h->st = RCK_LAUNCH_READY;
		h->starting = false;
		h->ms = (unsigned int)(now - h->t_spawn);
		rck_dbg(l->ctx, "launch: %s: agent on port %u after %u ms", h->name, h->port, h->ms);
		return;
	}
}

static void fail_undecided(struct rck_launch *l, int err)
{
	uint64_t now = rck_launch_now_ms();
	for (size_t i = 0; i < l->n; i++) {
		struct lhost *h = &l->h[i];
		if (h->st == RCK_LAUNCH_PENDING || h->starting)
			host_fail(l, h, now, false, "launch loop failed: %s", strerror(-err));
	}
}

RCK_EXPORT int rck_launch_start(struct rck_launch *l)
{
	struct pollfd *pfd;
	size_t *who, next = 0;
	unsigned int inflight = 0;
	int rc = 0;

	if (!l)
		return -EINVAL;
	if (l->started)
		return -EALREADY;
	l->started = true;
	if (!strcmp(l->launcher, "none")) {
		for (size_t i = 0; i < l->n; i++)
			l->h[i].st = RCK_LAUNCH_READY;
		return 0;
	}
	pfd = calloc(2 * l->n, sizeof(*pfd));
	who = calloc(2 * l->n, sizeof(*who));
	if (!pfd || !who) {
		free(pfd);
		free(who);
		fail_undecided(l, -ENOMEM);
		return -ENOMEM;
	}
	for (;;) {
		inflight = 0;
		for (size_t i = 0; i < next; i++)
			inflight += l->h[i].starting;
		while (inflight < l->opts.max_inflight && next < l->n) {
			struct lhost *h = &l->h[next++];
			rc = spawn(l, h);
			if (rc)
				break;
			if (h->starting)
				inflight++;
		}
		if (rc)
			break;

		uint64_t now = rck_launch_now_ms(), wake = UINT64_MAX;
		size_t np = 0;
		bool busy = next < l->n;
		for (size_t i = 0; i < next; i++) {
			struct lhost *h = &l->h[i];
			if (h->starting) {
				busy = true;
				wake = h->deadline < wake ? h->deadline : wake;
				pfd[np] = (struct pollfd){ .fd = h->out_fd, .events = POLLIN };
				who[np++] = i;
			}
			if (h->phase != REAP_NONE) {
				busy = true;
				/* Children are not polled for: look again every 20 ms. */
				uint64_t w = now + 20 < h->kill_at ? now + 20 : h->kill_at;
				wake = w < wake ? w : wake;
			}
			if ((h->starting || h->phase != REAP_NONE) && h->err_fd >= 0) {
				pfd[np] = (struct pollfd){ .fd = h->err_fd, .events = POLLIN };
				who[np++] = i;
			}
		}
		if (!busy)
			break;
		int tmo = wake == UINT64_MAX ? 1000 : wake <= now ? 0 : (int)(wake - now > 1000 ? 1000 : wake - now);
		int pr = poll(pfd, np, tmo);
		if (pr < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		now = rck_launch_now_ms();
		for (size_t k = 0; pr > 0 && k < np; k++) {
			struct lhost *h = &l->h[who[k]];
			if (!pfd[k].revents)
				continue;
			if (pfd[k].fd == h->err_fd)
				rck_launch_drain_err(h);
			else if (pfd[k].fd == h->out_fd && h->starting)
				read_out(l, h, now);
		}
		for (size_t i = 0; i < next; i++) {
			struct lhost *h = &l->h[i];
			if (h->starting && now >= h->deadline)
				host_fail(l, h, now, false, "no PORT TOKEN within %u ms", l->opts.start_timeout_ms);
			reap_step(l, h, now);
		}
	}
	free(pfd);
	free(who);
	if (rc)
		fail_undecided(l, rc);
	return rc;
}
