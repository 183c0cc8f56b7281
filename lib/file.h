/* Reading files from outside (sysfs attributes, recorded sidecars, saved
 * snapshots) without hanging on a FIFO or reading without bound. */
#ifndef RCK_FILE_H
#define RCK_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Returned (negated) for a path that is not a regular file: a FIFO, a
 * socket, a device. No file call here yields it otherwise. */
#define RCK_ENOTREG EMEDIUMTYPE

/* Open @path read-only, non-blocking (a FIFO opens at once instead of
 * waiting for a writer) and close-on-exec, refusing a final symlink when
 * @nofollow (then -ELOOP), then check with fstat that it is a regular
 * file: -EISDIR for a directory, -RCK_ENOTREG for anything else.
 * Returns the descriptor or -errno. sysfs attributes are regular files. */
int rck_file_open(const char *path, bool nofollow);

/* The whole of @path (opened as rck_file_open() does) in a new buffer the
 * caller frees, NUL-terminated, *len bytes without the NUL. -EFBIG when the
 * file holds more than @cap bytes. Returns 0 or -errno. */
int rck_file_read(const char *path, bool nofollow, size_t cap, char **buf, size_t *len);

/* strerror() that also names RCK_ENOTREG ("not a regular file"). @err may
 * be negative. Static storage. */
const char *rck_strerror(int err);

#endif
