/* Sysfs files read again and again (the monitor's 1 s counter polls) kept
 * open, and folder listings kept, until the owner drops the cache. */
#ifndef RCK_SYSFS_CACHE_H
#define RCK_SYSFS_CACHE_H
#include <stddef.h>

/* Not thread-safe: one owner. The set of files is the one seen when each was
 * first read: drop the cache when the inventory is read again (a removed
 * device's open attributes fail with ENODEV; a file of a recorded tree
 * replaced by rename keeps its old text until then). */
struct sysfs_cache;

/* 0 or -ENOMEM. At most half of RLIMIT_NOFILE's soft limit is kept open;
 * files past that are opened, read and closed each time as without a cache. */
int sysfs_cache_new(struct sysfs_cache **out);
/* Closes every file kept; NULL is fine. */
void sysfs_cache_free(struct sysfs_cache *c);

/* sysfs_read_str() through the cache (@c NULL: plain sysfs_read_str()):
 * the file is opened on the first read and read with pread at offset 0
 * after. Same returns as sysfs_read_str(); a failed open is not kept. */
int sysfs_cache_read_str(struct sysfs_cache *c, const char *path, char *buf, size_t len);

/* sysfs_list() through the cache (@c NULL: plain sysfs_list()). The names
 * may be the cache's: the caller frees them with sysfs_cache_names_free()
 * and the same @dir, a no-op for kept ones. A failed listing is not kept. */
int sysfs_cache_list(struct sysfs_cache *c, const char *dir, char ***names);
void sysfs_cache_names_free(struct sysfs_cache *c, const char *dir, char **names);

#endif
