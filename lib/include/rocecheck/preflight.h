/* librocecheck preflight: the check before a job starts, as one library
 * call: agents (started through a launcher or running), a sweep, retest
 * rounds the analysis asks for, and the analysis's verdict. */
#ifndef ROCECHECK_PREFLIGHT_H
#define ROCECHECK_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/analysis.h>
#include <rocecheck/context.h>
#include <rocecheck/mesh.h>
#include <rocecheck/probe.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety: handles are not locked. A config is used by one thread
 * at a time, except rck_preflight_cancel(), which any thread (or a signal
 * handler) may call while rck_preflight_run() runs on it. A result is
 * read-only once made: any number of threads may call its accessors and
 * rck_preflight_write() at once.
 *
 * Ownership: the caller owns what *_new() and rck_preflight_run() give
 * and frees it with the matching *_free() (which accept NULL). Setters
 * copy what they are given. Pointers returned by accessors belong to the
 * handle and live as long as it does.
 *
 * Errors: every int-returning call returns 0 or a negative errno, as
 * listed on it. A fabric's health is data (rck_preflight_verdict()), never
 * an error.
 */

/** Opaque preflight configuration. */
struct rck_preflight_config;

/**
 * Defaults: no hosts, launcher "none" (agents already running), no key,
 * built-in thresholds, test bw, rails same, every device, RDMA transport,
 * pattern full, probe size and count of the mesh's defaults,
 * RCK_PREFLIGHT_RETEST_PASSES retest passes, no deadline, no progress
 * callback. Returns 0 or -ENOMEM.
 */
int rck_preflight_config_new(struct rck_preflight_config **out);
void rck_preflight_config_free(struct rck_preflight_config *c);

/**
 * Add hosts: @list is a comma-separated list of names or Slurm-style
 * nodelists ("node[01-04],gpu7"); "NAME:PORT" names an agent on another
 * port (launcher none). Returns 0, -EINVAL (a malformed list: @err, may be
 * NULL, gets one line), -ENOMEM.
 */
int rck_preflight_config_add_hosts(struct rck_preflight_config *c, const char *list, char *err,
				   size_t errlen);
/**
 * Hot spares (a list as for rck_preflight_config_add_hosts()): swept with
 * the hosts, on every rail, so each is judged like them; the result
 * proposes a healthy spare for each bad host (rck_preflight_replacement()).
 * A spare named by any degraded or critical finding (its host, its NIC, or
 * a link from or to it) is never proposed. Errors as for add_hosts.
 */
int rck_preflight_config_add_spares(struct rck_preflight_config *c, const char *list, char *err,
				    size_t errlen);
/** Hosts from a hostfile (rck_hostlist_add_file()): its errors, @err as above. */
int rck_preflight_config_add_hostfile(struct rck_preflight_config *c, const char *path, char *err,
				      size_t errlen);
/**
 * How agents are reached: "none" (running agents, with the key), or a
 * launcher of rocecheck/launch.h ("ssh", "srun", "pdsh", "mpirun", a
 * template naming {host}) that starts `rocecheck agent --once` on every
 * host and stops it at the end. @extra_args (NULL-terminated, may be NULL)
 * go to a built-in launcher (struct rck_launch_opts). Returns 0, -EINVAL
 * (NULL or empty), -ENOMEM.
 */
int rck_preflight_config_set_launcher(struct rck_preflight_config *c, const char *launcher,
				      const char *const *extra_args);
/**
 * The ssh launcher's config file (`ssh -F FILE`, struct rck_launch_opts'
 * ssh_config; the tool takes it from $ROCECHECK_SSH_CONFIG). NULL or ""
 * for none. Returns 0, -EINVAL, -ENOMEM.
 */
int rck_preflight_config_set_ssh_config(struct rck_preflight_config *c, const char *path);
/** The agents' shared key (rck_key_load()). 0 or -EINVAL (too long). */
int rck_preflight_config_set_key(struct rck_preflight_config *c, const uint8_t *key, size_t len);
/** Thresholds of the analysis (copied; NULL: the defaults). 0 or -ENOMEM. */
int rck_preflight_config_set_thresholds(struct rck_preflight_config *c, const struct rck_thresholds *th);
/** Tests, a bit mask of 1 << enum rck_mesh_test. 0 or -EINVAL. */
int rck_preflight_config_set_tests(struct rck_preflight_config *c, unsigned int mask);
/** Deprecated, no effect (rck_mesh_config_set_schedule()). 0 or -EINVAL. Not thread-safe on
 * one config. */
int rck_preflight_config_set_schedule(struct rck_preflight_config *c, enum rck_mesh_schedule schedule);
/** "same", "all" or "device:NAME" (rck_mesh_config_set_rails()). 0, -EINVAL, -ENOMEM. */
int rck_preflight_config_set_rails(struct rck_preflight_config *c, const char *rails);
/** Probe transport, message size (0: default), @iters messages or
 * @duration_s seconds (as rck_mesh_config_set_probe()). 0 or -EINVAL. */
int rck_preflight_config_set_probe(struct rck_preflight_config *c, enum rck_probe_transport transport,
				   uint32_t size, uint64_t iters, double duration_s);
/** @quick: the mesh's quick pattern (n/2 pairs across two halves) instead
 * of every ordered pair. */
void rck_preflight_config_set_quick(struct rck_preflight_config *c, bool quick);
/** The port rate every NIC should run at (the analysis's expect_rate_gbps;
 * 0: none). 0 or -EINVAL (negative or not a number). */
int rck_preflight_config_set_expect_rate(struct rck_preflight_config *c, double gbps);
/*
 * The retest passes a preflight runs by default: the synthetic scorecard
 * (docs/verdicts.md) measures this loop. At 3, a link at 0.7 of its peers
 * on a fabric at 10% noise was still undecided (a suspect, not confirmed)
 * in 3% of trials; at 8, recall is >= 0.995. A pass runs only while the
 * analysis asks for retests, so a clean fabric spends none of them.
 */
#define RCK_PREFLIGHT_RETEST_PASSES 8

/** Most retest passes the analysis may ask for (0: none; default
 * RCK_PREFLIGHT_RETEST_PASSES). 0 or -EINVAL (> 16). */
int rck_preflight_config_set_retest_passes(struct rck_preflight_config *c, unsigned int passes);
/** Deadline of the whole preflight in seconds (0: none): probes not run by
 * then are recorded skipped and judged as failed. 0 or -EINVAL. */
int rck_preflight_config_set_deadline(struct rck_preflight_config *c, double seconds);

/** Phases of a preflight, in order; a sweep run again because the fabric
 * was too noisy to judge (noise_budget_s) starts over at launch. */
enum rck_preflight_phase {
	RCK_PREFLIGHT_LAUNCH = 0, /**< starting agents through the launcher */
	RCK_PREFLIGHT_SWEEP,      /**< host checks and the sweep */
	RCK_PREFLIGHT_RETEST,     /**< retests the analysis asked for */
	RCK_PREFLIGHT_ANALYSIS,   /**< the verdict */
	RCK_PREFLIGHT_DONE,
	RCK_PREFLIGHT_PHASE_COUNT
};
/** "launch", "sweep", "retest", "analysis", "done"; NULL out of range. Static. */
const char *rck_preflight_phase_name(enum rck_preflight_phase p);

/** Progress for the callback. */
struct rck_preflight_progress {
	size_t size;                   /**< sizeof(struct rck_preflight_progress) */
	enum rck_preflight_phase phase;
	unsigned int done;             /**< probes finished (sweep and retests);
	                                    kept through the analysis and done */
	unsigned int total;            /**< probes planned so far */
	unsigned int hosts_down;
	double elapsed_s;              /**< since rck_preflight_run() began */
	double eta_s;                  /**< the running sweep's estimate of the
	                                    seconds it has left; NAN unknown or
	                                    between sweeps */
};
/** Called on the thread running rck_preflight_run(); @p valid for the call. */
typedef void (*rck_preflight_progress_fn)(void *data, const struct rck_preflight_progress *p);
void rck_preflight_config_set_progress(struct rck_preflight_config *c, rck_preflight_progress_fn fn,
				       void *data);

/** Stop a running rck_preflight_run() on @c soon: what did not run is
 * recorded skipped ("cancelled") and the result is still made. Thread-safe
 * and async-signal-safe; NULL is ignored. */
void rck_preflight_cancel(struct rck_preflight_config *c);

/** Opaque preflight result. */
struct rck_preflight;

/**
 * The sweep the preflight would run with @c (hosts, then spares not among
 * them; quick or full; rails; tests), written as text or JSON
 * (schemas/mesh-plan.schema.json, see rck_mesh_config_write_plan()) without
 * contacting anyone or starting an agent. Returns 0, -EINVAL (fewer than
 * 2 hosts: one line in @err), -ENOMEM or -EIO. Reads @c only.
 */
int rck_preflight_config_write_plan(const struct rck_preflight_config *c, FILE *out, enum rck_format fmt,
				    char *err, size_t errlen);

/**
 * Run the preflight on @c's hosts: start the agents (launcher), sweep
 * (each agent describes its NICs: state, rate, MTUs, GID, firmware and the
 * counters each probe's two ends record), ask the analysis after the
 * sweep and after each retest pass which links need retesting and probe
 * them in rounds of disjoint NIC pairs, then judge. The caller owns *out.
 * Returns 0 with a result whatever the fabric's health (an unreachable
 * host is a finding; nothing measured at all gives verdict error with the
 * reason), -EINVAL (fewer than 2 hosts, a plan error logged through
 * @ctx), -ECANCELED (cancelled before any probe ran), -errno of the
 * launcher (it could not start at all), -ENOMEM.
 */
int rck_preflight_run(struct rck_ctx *ctx, struct rck_preflight_config *c, struct rck_preflight **out);

/**
 * Judge a recorded sweep (rck_mesh_load()) with @c's thresholds and
 * expected rate, no probes: offline re-analysis. On success *out owns @m;
 * on error the caller keeps it. Returns 0, -EINVAL, -ENOMEM.
 */
int rck_preflight_from_mesh(const struct rck_preflight_config *c, struct rck_mesh *m,
			    struct rck_preflight **out);

void rck_preflight_free(struct rck_preflight *p);
/** The verdict (the report's). */
enum rck_verdict rck_preflight_verdict(const struct rck_preflight *p);
/** The analysis report: findings, link statistics. Owned by @p. */
const struct rck_report *rck_preflight_report(const struct rck_preflight *p);
/** The sweep result with every retest: hosts, NICs, matrices. Owned by @p. */
const struct rck_mesh *rck_preflight_mesh(const struct rck_preflight *p);
/**
 * One line: "8 hosts, 56 probes in 41 s, 1 degraded link: n3 -> n7
 * 41 Gb/s, fabric median 96" (or "..., healthy, fabric median 96"). Owned
 * by @p.
 */
const char *rck_preflight_summary(const struct rck_preflight *p);

/** Timings and counts. Set @size to sizeof(struct rck_preflight_timings). */
struct rck_preflight_timings {
	size_t size;
	double launch_s;       /**< starting agents (0 with launcher none) */
	double sweep_s;        /**< the sweep with its retests */
	double analysis_s;     /**< every analysis run (CPU on the caller's thread) */
	double total_s;
	unsigned int hosts;
	unsigned int probes;   /**< probe cells of the sweep */
	unsigned int retests;  /**< retest attempts recorded */
	unsigned int passes;   /**< retest passes run */
	/** Sweeps run again with probes twice as long because the fabric was
	 * too noisy to judge (inconclusive), within noise_budget_s. */
	unsigned int noise_sweeps;
};
/** Fill @t (up to @t->size bytes: a caller built against an older, shorter
 * struct gets its fields). Returns 0 or -EINVAL. */
int rck_preflight_timings(const struct rck_preflight *p, struct rck_preflight_timings *t);

/**
 * Hosts a scheduler should drain: the report's rck_report_drain() list
 * (hosts named by a confirmed host or NIC finding of severity degraded or
 * critical, never a suspect or a single link; none when the verdict is
 * error or inconclusive; none past the circuit breaker, drain_max_fraction,
 * whose hosts rck_report_held() lists), less the spares; once each, in the
 * report's order, with a reason of one line starting "rocecheck: ". The
 * same rule as `rocecheck preflight --drain-cmd`. Count, and host @i (0 or
 * -EINVAL past the end); strings owned by @p.
 */
unsigned int rck_preflight_bad_host_count(const struct rck_preflight *p);
int rck_preflight_bad_host(const struct rck_preflight *p, unsigned int i, const char **host,
			   const char **reason);

/**
 * The replacement plan: for each bad host, in order, the first healthy
 * spare not yet given to another (none left: the host is not listed).
 * Count, and pair @i (0 or -EINVAL past the end); strings owned by @p.
 */
unsigned int rck_preflight_replacement_count(const struct rck_preflight *p);
int rck_preflight_replacement(const struct rck_preflight *p, unsigned int i, const char **host,
			      const char **spare);

/**
 * Write the result. JSON (schemas/preflight.schema.json):
 * {"schema":"rocecheck.preflight/1","verdict","summary","timings":{...},
 * "bad_hosts":[{"host","reason"}],"spares":[{"host","healthy"}],
 * "replacements":[{"host","spare"}],"report":{the analysis JSON},
 * "mesh":{the sweep JSON}}. Text: the summary line, then the report's
 * findings, "drain HOST: REASON" and "replace HOST with SPARE" lines. Returns 0, -EINVAL, -ENOMEM, -EIO (a write failed).
 */
int rck_preflight_write(const struct rck_preflight *p, FILE *out, enum rck_format fmt);

/**
 * Save the JSON (indented) to @path atomically: a temporary file beside
 * it, flushed to disk, renamed over @path; nothing is left on error.
 * Returns 0, -EINVAL, -errno of the file system.
 */
int rck_preflight_save(const struct rck_preflight *p, const char *path);

/**
 * The argv of a drain command for @host (a host of
 * rck_preflight_bad_host(), which is empty after an error or an
 * inconclusive verdict): @tmpl split into words as a
 * launcher template is (blanks separate; 'single' and "double" quotes;
 * backslash escapes; no shell), "{host}" and "{reason}" replaced inside
 * every word (@reason stays one word whatever it holds). The caller frees
 * *@out with rck_launch_argv_free(). Returns 0, -EINVAL (empty template,
 * unbalanced quote, a host name not a plain name, NULL), -ENOMEM.
 * Thread-safe.
 */
int rck_preflight_drain_argv(const char *tmpl, const char *host, const char *reason, char ***out);

struct rck_topology;
/**
 * The topology (rocecheck/topology.h) of the hosts: the sweep runs the topo
 * pattern (unless quick; rck_mesh_config_set_topology()) and the analysis
 * localises by it (rck_analysis_set_topology()): a switch's or uplink's
 * fault is one switch-side finding and drains no host. @t (NULL: none) is
 * borrowed and must outlive the runs of @c. Returns 0 or -EINVAL.
 */
int rck_preflight_config_set_topology(struct rck_preflight_config *c, const struct rck_topology *t);
/**
 * The topology from the agents' own LLDP (@on), gathered as each sweep
 * meets its hosts (rck_mesh_config_set_topology_lldp(), a capture of at
 * most @capture_ms where lldpd knows no neighbour): leaves from the LLDP
 * chassis, ports from the port IDs, and one implied spine above the
 * leaves (rck_topology_imply_spine()); the sweep runs the topo pattern
 * (unless quick) and the analysis localises by that model, which the
 * result's sweep keeps (rck_mesh_topology() of rck_preflight_mesh()). A
 * topology set by rck_preflight_config_set_topology() wins. Not for
 * rck_preflight_from_mesh() nor the dry run (no agent is asked): there the
 * setting is ignored. Returns 0 or -EINVAL (@capture_ms past the limit of
 * rck_mesh_config_set_lldp()).
 */
int rck_preflight_config_set_topology_lldp(struct rck_preflight_config *c, bool on, unsigned int capture_ms);

#ifdef __cplusplus
}
#endif

#endif
