/* Counters internals shared by counters*.c: the snapshot and delta layouts,
 * the raw-value store, the vendor maps, the ethtool readers. */
#ifndef RCK_COUNTERS_INTERNAL_H
#define RCK_COUNTERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "rocecheck/counters.h"

/* Format version of snapshot JSON ("version"): 2 writes counters from 2^63
 * up as decimal strings and carries "host"; 1 (reals up there) still loads. */
#define CTR_SAVE_VERSION 2
/* Format version of delta JSON (schemas/counters-delta.schema.json). */
#define CTR_DELTA_VERSION 1
/* The "schema" member of each (README: every -j output names its schema);
 * "version" stays for the readers of files saved before it. */
#define CTR_SAVE_SCHEMA "rocecheck.counters/2"
#define CTR_DELTA_SCHEMA "rocecheck.counters-delta/1"

/* Longest "source/name" key (longer ones are skipped with a warning, from
 * sysfs, sidecars and loaded snapshots alike), its buffer size, the longest
 * source description, raw text, device or netdev name and host name kept. */
#define CTR_KEY_MAX 128
#define CTR_KEY_LEN (CTR_KEY_MAX + 1)
#define CTR_SRC_LEN 256
#define CTR_TEXT_MAX 255
#define CTR_NAME_MAX 64
#define CTR_HOST_MAX 255
/* Largest snapshot file loaded, and largest recorded sidecar read. */
#define CTR_LOAD_MAX (64 << 20)
#define CTR_SIDECAR_MAX (4 << 20)

/* Text forms: label columns of neutral and of raw counters. */
#define CTR_NEUTRAL_WIDTH 34
#define CTR_RAW_WIDTH 44

enum raw_state {
	RAW_OK = 0,         /* a number */
	RAW_TEXT = 1,       /* read, but not a number: the text is kept */
	RAW_UNREADABLE = 2, /* could not be read at all */
};

/* One raw value, keyed "source/name": counters/symbol_error,
 * hw_counters/np_cnp_sent, ethtool/rx_prio3_pause, pause/tx_pause_frames,
 * netdev/rx_bytes (class/net/IF/statistics). */
struct ctr_raw {
	char *key;
	enum raw_state state;
	uint64_t val;       /* RAW_OK */
	char *text;         /* RAW_TEXT: what the file said (may be "") */
	unsigned int seq;   /* order of addition, to keep the first of duplicates */
};

/* What a snapshot keeps (ctr_snapshot_cached): every raw value the vendor
 * maps try for the neutral ids marked in @ids (all candidates, so the one
 * that wins is the one a full snapshot takes) and the raw keys in @raw.
 * Sysfs files of other values are not read; other ethtool/pause values
 * not kept. The neutral ids not marked may then be missing. */
struct ctr_want {
	bool ids[RCK_CTR_COUNT];
	const char *const *raw;
	size_t n_raw;
};

struct ctr_port {
	char *dev;
	unsigned int port;
	char *netdev;       /* NULL when the port has none */
	const struct ctr_want *want; /* while reading: NULL keeps all */
	enum rck_vendor vendor;      /* while reading, for @want */
	struct ctr_raw *raw; /* sorted by key, no duplicates */
	size_t n_raw, cap_raw;
	bool has[RCK_CTR_COUNT];
	uint64_t val[RCK_CTR_COUNT];
	/* Which raw values made the neutral one: "counters/port_rcv_data*4",
	 * "ethtool/rx_priority_3_xon.nic+ethtool/rx_priority_3_xoff.nic". */
	char *src[RCK_CTR_COUNT];
	/* A scaled value past 64 bits ("counters/port_xmit_data*4"): said, not
	 * dropped silently; NULL for the others. */
	char *over[RCK_CTR_COUNT];
	/* The driver has no vendor map (efa, qedr, hfi1, mlx4, ...): the neutral
	 * names are not filled beyond the generic PMA/netdev ones. */
	bool raw_only;
};

struct rck_snapshot {
	uint64_t time_ns;   /* CLOCK_REALTIME */
	uint64_t mono_ns;   /* CLOCK_MONOTONIC; 0 for a loaded snapshot */
	char *host;         /* set by the caller; NULL when not known */
	struct ctr_port *ports;
	unsigned int n_ports;
};

struct ctr_dval {
	enum rck_delta_state state;
	uint64_t delta;
};

struct ctr_draw {
	char *key;
	struct ctr_dval d;
};

struct ctr_dport {
	char *dev;
	unsigned int port;
	char *netdev;
	struct ctr_dval neutral[RCK_CTR_COUNT];
	struct ctr_draw *raw; /* sorted by key */
	size_t n_raw;
};

struct rck_delta {
	double seconds;
	struct ctr_dport *ports;
	unsigned int n_ports;
};

/* counters.c: rck_snapshot_new(ctx, inv, NULL, 0, out) with the sysfs
 * files read through @fc (NULL: none; see sysfs_cache.h), only what @want
 * keeps (NULL: all). */
struct sysfs_cache;
int ctr_snapshot_cached(struct rck_ctx *ctx, struct sysfs_cache *fc, const struct rck_inventory *inv,
			const struct ctr_want *want, struct rck_snapshot **out);
/* counters_vendor.c: true when @w keeps raw @key ("source/name") on a port
 * of @vendor. */
bool ctr_want_key(const struct ctr_want *w, enum rck_vendor vendor, const char *key);

/* counters_raw.c: the per-port raw store. */
/* Add a value: @val for RAW_OK, @text (copied) for RAW_TEXT, neither for
 * RAW_UNREADABLE. Duplicate keys keep the first added. 0, -ENAMETOOLONG
 * for a key past CTR_KEY_MAX (callers skip those first), or -ENOMEM. */
int ctr_raw_add(struct ctr_port *p, const char *key, enum raw_state state, uint64_t val,
		const char *text);
/* Sort and drop duplicates; call once after the last ctr_raw_add(). */
void ctr_raw_finish(struct ctr_port *p);
/* The entry for @key, or NULL. */
const struct ctr_raw *ctr_raw_find(const struct ctr_port *p, const char *key);
/* Parse one counter's text into the store as a number or kept text. */
int ctr_raw_add_text(struct ctr_port *p, const char *key, const char *text);
void ctr_port_clear(struct ctr_port *p);

/* Saturation width in bits of a raw key (the narrow PMA counters), 0 for
 * counters that do not saturate. */
unsigned int ctr_saturation_bits(const char *key);
/* Width of a neutral value from its source description: the raw key's
 * width when it is one raw value taken as is, else 0. */
unsigned int ctr_source_bits(const char *src);

/* counters_vendor.c: fill has/val/src of @p from its raw values with the
 * generic map and @vendor's. 0 or -ENOMEM. */
int ctr_map_neutral(struct ctr_port *p, enum rck_vendor vendor);

/* counters_ethtool.c */
struct rck_ctx;
/* ETHTOOL_GSTRINGS/GSTATS on the live system into "ethtool/<name>".
 * A device without statistics adds nothing. 0, or -errno (logged) when the
 * ioctl path itself failed. */
int ctr_ethtool_read(const struct rck_ctx *ctx, const char *ifname, struct ctr_port *p);
/* Standard pause statistics over ethtool netlink into "pause/tx_pause_frames"
 * and "pause/rx_pause_frames"; nothing when the family, the driver or the
 * statistics are missing. 0 or -ENOMEM. */
int ctr_pause_read(const struct rck_ctx *ctx, const char *ifname, struct ctr_port *p);
/* One ETHTOOL_MSG_PAUSE_GET reply into @p (what ctr_pause_read() calls
 * for each reply). 0 or -ENOMEM; a reply without statistics adds nothing. */
struct nl_msg;
int ctr_pause_parse(struct nl_msg *msg, struct ctr_port *p);
/* Recorded trees: "name: value" lines (the `ethtool -S` form) from @path
 * into "<source>/<name>". -errno when the file cannot be opened or read,
 * -RCK_ENOTREG when it is not a regular file, -EFBIG past CTR_SIDECAR_MAX. */
int ctr_sidecar_read(const struct rck_ctx *ctx, const char *path, const char *source,
		     struct ctr_port *p);
/* The parser of ctr_sidecar_read() on @len bytes of @buf (need not end in
 * NUL); @name names the input in messages. 0 or -ENOMEM. */
int ctr_sidecar_parse(const struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		      const char *source, struct ctr_port *p);

/* counters_io.c: rck_snapshot_load() on @len bytes of @buf; @name names the
 * input in messages. */
int ctr_snapshot_parse(struct rck_ctx *ctx, const char *name, const char *buf, size_t len,
		       struct rck_snapshot **out);

/* counters_io.c helpers, used by the delta writer too. */
struct emit;
/* The "devices" array: ports @0..@n-1 grouped by consecutive device names
 * (@dev_name), each port written by @write_port. */
void ctr_write_devices(struct emit *e, unsigned int n,
		       const char *(*dev_name)(const void *arg, unsigned int i),
		       void (*write_port)(struct emit *e, const void *arg, unsigned int i, bool all),
		       const void *arg, bool all);

#endif
