/* Internal structures of host sweeps: the state kept between runs (loaded,
 * saved, updated) and the result of one run with its hold states. */
#ifndef RCK_SWEEP_INT_H
#define RCK_SWEEP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis_int.h"
#include "rocecheck/sweep.h"

/* Format version of the state file ("version"). */
#define SW_STATE_VERSION 1
#define SW_STATE_SCHEMA "rocecheck.sweep-state/1"
/* Largest state file loaded; most runs' keys and remembered findings;
 * longest key or string kept from a state file. */
#define SW_STATE_MAX (16 << 20)
#define SW_KEYS_MAX 4096
#define SW_STR_MAX 1024

/* A finding the state remembers: what it said when last seen, and whether
 * it counts. */
struct sw_entry {
	char *key;
	enum rck_finding_code code;
	enum rck_severity sev;
	enum rck_entity ent;
	char *host, *nic, *peer_host, *peer_nic, *reason;
	bool counts;
};

/* One run's keys, sorted, no duplicates. */
struct sw_run {
	uint64_t time_ns;
	char **keys;
	unsigned int n_keys;
};

struct rck_sweep_state {
	char *boot_id;                  /* NULL: unknown */
	uint64_t time_ns;               /* last run */
	unsigned int hold_k, hold_n;    /* of the last run */
	struct sw_run runs[RCK_SWEEP_HOLD_MAX]; /* oldest first */
	unsigned int n_runs;
	struct sw_entry *entries;       /* sorted by key */
	unsigned int n_entries;
	struct rck_snapshot *snap;      /* counters of the last run, or NULL */
	struct rck_pcie *pcie_aer;      /* AER counts of the last run, or NULL (sweep_pcie.c) */
};

struct sw_item {
	unsigned int idx;               /* finding in rck_sweep.all */
	enum rck_sweep_hold hold;
};

struct rck_sweep_probe_copy {
	char *device, *transport, *error;
	unsigned int port;
	bool ok;
	double gbps;
};

struct rck_sweep {
	char *host;
	char *boot_id;
	bool rebooted;
	double seconds;
	unsigned int hold_k, hold_n, runs;
	uint64_t time_ns;
	const struct rck_inventory *inv; /* borrowed */
	const struct rck_snapshot *snap; /* borrowed */
	const struct rck_pcie *pcie;     /* borrowed, NULL: none */
	struct rck_report *counted;      /* findings that count + info */
	struct rck_report *all;          /* every finding reported, hold in items */
	struct sw_item *items;
	unsigned int n_items;
	struct rck_sweep_probe_copy *probes;
	unsigned int n_probes;
};

/* sweep_state.c */
/* rck_sweep_state_load() on @len bytes of @buf; @name names it in messages. */
int sw_state_parse(struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		   struct rck_sweep_state **out);
/* The state's JSON (indented) to @f. 0 or -errno. */
int sw_state_write(const struct rck_sweep_state *st, FILE *f);
void sw_run_clear(struct sw_run *r);
void sw_entry_clear(struct sw_entry *e);
/* True when @key is in run @r (binary search). */
bool sw_run_has(const struct sw_run *r, const char *key);
/* Sort an array of key strings and drop duplicates (freeing them); returns
 * the new count. */
unsigned int sw_keys_sort(char **keys, unsigned int n);
/* The stable key of a finding: code|host|nic|peer_host|peer_nic|first value
 * name. Caller frees. NULL on ENOMEM. */
char *sw_finding_key(const struct rck_finding *f);

/* prom.c: one label name="value" with the value escaped for the text format. */
void sw_prom_label(FILE *f, const char *name, const char *v);
/* prom_pcie.c: PCIe link state and AER totals. */
void sw_prom_pcie(FILE *f, const struct rck_pcie *p);

/* sweep_pcie.c: the PCIe AER counts kept in the state ("pcie_aer": {address:
 * [correctable, nonfatal, fatal]}). Keep @p's (NULL: leave the state's); the
 * JSON of the kept counts; load them (absent or null: none), 0, -EINVAL, -ENOMEM. */
struct json_t;
void sw_keep_aer(struct rck_sweep_state *st, const struct rck_pcie *p);
struct json_t *sw_aer_json(const struct rck_pcie *p);
int sw_aer_load(const struct json_t *j, struct rck_pcie **out);

#endif
