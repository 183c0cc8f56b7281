/* Sysfs files kept open and read with pread at offset 0 (the kernel builds an
 * attribute's text again on each read there), folder listings kept. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "file.h"
#include "sysfs.h"
#include "sysfs_cache.h"

struct sc_entry {
	char *path;
	int fd;       /* a file kept open, or -1 for a folder listing */
	char **names; /* the listing of a folder */
	int n_names;
};

struct sysfs_cache {
	struct sc_entry *e; /* open addressing on the path's hash */
	size_t cap, n;
	size_t open, budget;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

int sysfs_cache_new(struct sysfs_cache **out)
{
	struct sysfs_cache *c = calloc(1, sizeof(*c));
	struct rlimit rl;

	if (!c)
		return -ENOMEM;
	c->cap = 256;
	c->e = calloc(c->cap, sizeof(*c->e));
	if (!c->e) {
		free(c);
		return -ENOMEM;
	}
	/* half the soft limit: the daemon's sockets and the files read
	 * through no cache keep room */
	c->budget = 512;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		c->budget = rl.rlim_cur / 2;
	*out = c;
	return 0;
}

void sysfs_cache_free(struct sysfs_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->e[i].path)
			continue;
		if (c->e[i].fd >= 0)
			close(c->e[i].fd);
		sysfs_names_free(c->e[i].names);
		free(c->e[i].path);
	}
	free(c->e);
	free(c);
}

static struct sc_entry *slot(struct sc_entry *e, size_t cap, const char *path)
{
	size_t i = hash(path) & (cap - 1);

	while (e[i].path && strcmp(e[i].path, path))
		i = (i + 1) & (cap - 1);
	return &e[i];
}

/* A free slot for @path (not in the table), the table grown to stay at most
 * half full; NULL when out of memory. */
static struct sc_entry *add(struct sysfs_cache *c, const char *path)
{
	struct sc_entry *s;

	if ((c->n + 1) * 2 > c->cap) {
		size_t ncap = c->cap * 2;
		struct sc_entry *ne = calloc(ncap, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t i = 0; i < c->cap; i++)
			if (c->e[i].path)
				*slot(ne, ncap, c->e[i].path) = c->e[i];
		free(c->e);
		c->e = ne;
		c->cap = ncap;
	}
	s = slot(c->e, c->cap, path);
	s->path = strdup(path);
	if (!s->path)
		return NULL;
	s->fd = -1;
	c->n++;
	return s;
}

int sysfs_cache_read_str(struct sysfs_cache *c, const char *path, char *buf, size_t len)
{
	struct sc_entry *s;
	int fd;

	if (!c || !*path)
		return sysfs_read_str(path, buf, len);
	s = slot(c->e, c->cap, path);
	if (s->path && s->fd >= 0)
		return sysfs_fd_read_str(s->fd, buf, len);
	if (s->path || c->open >= c->budget)
		return sysfs_read_str(path, buf, len);
	/* regular files only, as sysfs_read_str() */
	fd = rck_file_open(path, true);
	if (fd < 0)
		return fd;
	if (!(s = add(c, path))) {
		close(fd);
		return sysfs_read_str(path, buf, len);
	}
	s->fd = fd;
	c->open++;
	return sysfs_fd_read_str(fd, buf, len);
}

int sysfs_cache_list(struct sysfs_cache *c, const char *dir, char ***names)
{
	struct sc_entry *s;
	char **v;
	int n;

	if (!c || !*dir)
		return sysfs_list(dir, names);
	s = slot(c->e, c->cap, dir);
	if (s->path && s->names) {
		*names = s->names;
		return s->n_names;
	}
	n = sysfs_list(dir, &v);
	if (n < 0 || s->path || !(s = add(c, dir))) {
		if (n >= 0)
			*names = v;
		return n;
	}
	s->names = v;
	s->n_names = n;
	*names = v;
	return n;
}

void sysfs_cache_names_free(struct sysfs_cache *c, const char *dir, char **names)
{
	if (!names)
		return;
	if (c && *dir && slot(c->e, c->cap, dir)->names == names)
		return;
	sysfs_names_free(names);
}
