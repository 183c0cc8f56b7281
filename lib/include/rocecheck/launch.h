/* librocecheck launchers: start `rocecheck agent --once` on many hosts through
 * the cluster's own tools (ssh, srun, pdsh, mpirun or a command template). */
#ifndef ROCECHECK_LAUNCH_H
#define ROCECHECK_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How a launch works (rocecheck-mesh(8) and docs/architecture.md tell more):
 *  - For every host a local child runs the launcher command with the agent
 *    command at its end; the agent, started with --once, prints one line
 *    `PORT TOKEN` on its stdout, which reaches us through the launcher.
 *  - Built-in launchers build their argv without a shell:
 *      ssh     ssh -o BatchMode=yes -T EXTRA... -- HOST AGENT...
 *      srun    srun -N1 -n1 EXTRA... -w HOST AGENT...
 *      pdsh    pdsh -N EXTRA... -w HOST AGENT...
 *      mpirun  mpirun -n 1 EXTRA... --host HOST AGENT...   (Open MPI's spelling)
 *    ssh and pdsh hand the command to a remote shell: agent words holding
 *    shell metacharacters are single-quoted for it.
 *  - Any other launcher string is a template: it is split into words at
 *    blanks ('single' and "double" quotes group, a backslash escapes the
 *    next character outside single quotes; nothing is expanded), every
 *    `{host}` in a word becomes the host, a word `{cmd}` becomes the agent
 *    words (appended at the end when no word is `{cmd}`). A template must
 *    name {host}. Example: 'ssh -F /run/lab/ssh/config {host}'.
 *  - `none` starts nothing: every host is READY with port 0 and no token
 *    (connect to agents already running, with the key file).
 *  - A host name must be 1-255 characters of letters, digits and . _ - : @ %
 *    and must not start with '-' (it would read as an option).
 *  - Many hosts start at once, at most opts->max_inflight children waiting
 *    for their line, all served by one poll() loop in the calling thread.
 *    Each child is its own process group so that stopping it reaches
 *    whatever the launcher started locally.
 *  - Failures are results: a host whose launcher cannot run, exits, prints
 *    something other than `PORT TOKEN`, or stays silent past
 *    opts->start_timeout_ms is UNREACHABLE with a reason ending in the tail
 *    of the launcher's stderr. Its process group is stopped and reaped.
 *  - Stopping (rck_launch_stop(), rck_launch_free()): every child's
 *    standard input (a pipe) closed, so agents with --lifeline end by
 *    themselves; after 300 ms (or opts->stop_grace_ms if less) SIGTERM to
 *    the process group of every child still running, SIGKILL to those alive
 *    opts->stop_grace_ms later, each reaped (waited for at least 3 s after
 *    SIGKILL, whatever the grace); every wait is bounded.
 *  - File descriptors: two pipes per host stay open while its agent runs
 *    (stderr, for the reason tail, and its standard input); three while it
 *    starts. A caller with
 *    thousands of hosts raises RLIMIT_NOFILE.
 *
 * Thread safety: a launch handle is used by one thread at a time. Different
 * handles are independent. The library changes no signal disposition and
 * reaps only its own children (waitpid on their pids): a caller that reaps
 * with waitpid(-1) or ignores SIGCHLD takes their exit status away (the
 * reason then says "not reaped").
 */

/**
 * Launch options. Initialise with rck_launch_opts_init() and then set the
 * members you need: the library reads only the first @size bytes, so a
 * program built against an older, shorter struct keeps working. Members
 * are only ever added at the end. Strings are copied by rck_launch_new().
 */
struct rck_launch_opts {
	size_t size;             /**< sizeof(struct rck_launch_opts) */
	/** "none", "ssh", "srun", "pdsh", "mpirun" or a template naming {host}. */
	const char *launcher;
	/**
	 * Agent command, NULL-terminated; NULL: rocecheck agent --once, with
	 * --lifeline for ssh and templates: each child's standard input is a
	 * pipe held open until rck_launch_stop(), so an agent that never had a
	 * session still exits when the sweep ends or its process dies (a
	 * template must pass standard input on: no ssh -n).
	 */
	const char *const *agent_argv;
	/** Children waiting for their line at once (default 64, 1..4096). */
	unsigned int max_inflight;
	/** Deadline for a host's PORT TOKEN line from its spawn (default 30000 ms). */
	unsigned int start_timeout_ms;
	/** SIGTERM to SIGKILL (default 2000 ms); SIGKILL waits as long again. */
	unsigned int stop_grace_ms;
	/**
	 * Words for a built-in launcher, NULL-terminated, put after its own
	 * options and before the host: for example { "-F", "/lab/ssh/config",
	 * NULL } for ssh, { "-p", "gpu", NULL } for srun. NULL: none. Ignored
	 * by templates (write them into the template) and by none.
	 */
	const char *const *extra_args;
	/**
	 * For the ssh launcher: `-F FILE` before @extra_args (the tools take it
	 * from $ROCECHECK_SSH_CONFIG; rocelab's hosts set it). NULL or "": none.
	 * Ignored by the other launchers.
	 */
	const char *ssh_config;
};

/** Fills @opts with the defaults (launcher "ssh"). */
void rck_launch_opts_init(struct rck_launch_opts *opts);

/** What became of one host. */
enum rck_launch_status {
	RCK_LAUNCH_PENDING,      /**< not started yet */
	RCK_LAUNCH_READY,        /**< agent answered PORT TOKEN (or launcher none) */
	RCK_LAUNCH_UNREACHABLE,  /**< launcher failed, exited or timed out: see reason */
	RCK_LAUNCH_EXITED,       /**< was READY; its launcher ended before stop */
	RCK_LAUNCH_STOPPED,      /**< was READY; stopped by rck_launch_stop() */
};

/** "pending", "ready", "unreachable", "exited", "stopped"; NULL if unknown. */
const char *rck_launch_status_name(enum rck_launch_status s);

/**
 * Builds in *@out the argv that starts @agent_argv (NULL: the default agent
 * command) on @host through @launcher, with @extra_args (NULL: none) after
 * a built-in launcher's own options, as described above. For "none", *@out
 * is NULL. The caller frees *@out with rck_launch_argv_free().
 * Returns 0, -EINVAL for an unknown launcher, a template without {host},
 * an unbalanced quote, or a bad host name, -ENOMEM. Thread-safe.
 */
int rck_launch_argv(const char *launcher, const char *host, const char *const *agent_argv,
		    const char *const *extra_args, char ***out);
/** Frees an argv from rck_launch_argv(); NULL is fine. */
void rck_launch_argv_free(char **argv);

/** Opaque launch of agents on a set of hosts. */
struct rck_launch;

/**
 * Validates @opts (the launcher, with a sample host) and makes a launch
 * handle for @n hosts, copied from @hosts. @ctx (may be NULL) receives log
 * messages; it must outlive the handle. Returns 0, -EINVAL (bad launcher,
 * option out of range, no hosts, a bad or repeated host name: the log says
 * which), -ENOMEM.
 */
int rck_launch_new(struct rck_ctx *ctx, const struct rck_launch_opts *opts,
		   const char *const *hosts, size_t n, struct rck_launch **out);

/**
 * Starts every host and returns once each is READY or UNREACHABLE. Only
 * the first call starts anything; later calls return -EALREADY. Returns 0
 * (per-host outcomes are in the accessors), -EALREADY, -ENOMEM, or -errno
 * of poll() or pipe() when the loop itself cannot go on (hosts not yet
 * decided are then UNREACHABLE).
 */
int rck_launch_start(struct rck_launch *l);

/**
 * Reads what the running agents wrote on stderr (kept as reason tails) and
 * notices launchers that ended (READY becomes EXITED). Never blocks.
 * Returns the number of hosts that changed to EXITED.
 */
unsigned int rck_launch_drain(struct rck_launch *l);

/**
 * Stops every child still running and reaps it (bounded by 300 ms,
 * opts->stop_grace_ms, and the longer of opts->stop_grace_ms and 3 s after
 * SIGKILL). READY hosts become STOPPED. Safe to call
 * more than once. Returns 0, or -ECHILD when a child could not be reaped
 * in time (it is left behind; its host's reason says so).
 */
int rck_launch_stop(struct rck_launch *l);

/** Stops (as rck_launch_stop()) and frees @l; NULL is fine. */
void rck_launch_free(struct rck_launch *l);

/** Number of hosts. */
size_t rck_launch_host_count(const struct rck_launch *l);
/** Host @i as given; NULL past the end. Owned by @l. */
const char *rck_launch_host(const struct rck_launch *l, size_t i);
/** Outcome of host @i; RCK_LAUNCH_PENDING past the end. */
enum rck_launch_status rck_launch_host_status(const struct rck_launch *l, size_t i);
/** TCP port host @i's agent announced; 0 with launcher none or not READY. */
unsigned int rck_launch_host_port(const struct rck_launch *l, size_t i);
/** Token host @i's agent announced; NULL without one. Owned by @l. */
const char *rck_launch_host_token(const struct rck_launch *l, size_t i);
/** Why host @i is UNREACHABLE or EXITED; NULL otherwise. Owned by @l. */
const char *rck_launch_host_reason(const struct rck_launch *l, size_t i);
/** Milliseconds from host @i's spawn to its line (or failure); 0 if none. */
unsigned int rck_launch_host_ms(const struct rck_launch *l, size_t i);

struct rck_mesh_config;
struct rck_mesh;

/**
 * The launch of a sweep (`rocecheck mesh --launcher` and the preflight use
 * this one path): makes a launch of @opts on the @n @hosts, starts it
 * (rck_launch_new(), rck_launch_start()) and adds every host to @c in
 * order. A host whose agent answered gets its port and token; a host whose
 * launcher failed is added without them and marked down with the
 * launcher's reason (rck_mesh_config_host_down()): the sweep records it
 * unreachable and neither resolves nor dials it. *@out is the launch, to
 * stop and free after the sweep (its agents run until then); NULL on error.
 * Returns 0, -EINVAL (bad launcher, options or host names: logged to @ctx;
 * or a host already in @c), -ENOMEM, or rck_launch_start()'s error.
 * Thread safety: as rck_launch_new(); @c is used by this thread alone.
 */
int rck_launch_sweep_hosts(struct rck_ctx *ctx, const struct rck_launch_opts *opts, const char *const *hosts,
			   size_t n, struct rck_mesh_config *c, struct rck_launch **out);

/**
 * After the sweep: every host of @l that @m records unreachable and whose
 * launcher gave a reason gets that reason instead (the launcher's words
 * say more than "did not answer"). NULL @l or @m: nothing. Uses @l and @m
 * from this thread alone.
 */
void rck_launch_sweep_reasons(const struct rck_launch *l, struct rck_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
