/* An ordered set of owned strings with O(1) lookup by name (open
 * addressing on an FNV-1a hash): host names in host lists and results. */
#ifndef RCK_MESH_STRSET_H
#define RCK_MESH_STRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strset {
	char **names;     /* in the order added, owned */
	unsigned int n, cap;
	uint32_t *slots;  /* index + 1, 0 empty; a power of two long */
	uint32_t nslots;
};

/* Room for @n names without allocating again. 0 or -ENOMEM. */
int strset_reserve(struct strset *s, unsigned int n);
/* Add @name, taking ownership on success (0). -EEXIST (name not taken,
 * *@idx the existing one), -ENOMEM. @idx may be NULL. */
int strset_add(struct strset *s, char *name, unsigned int *idx);
/* Index of @name, or -ENOENT. */
int strset_find(const struct strset *s, const char *name, unsigned int *idx);
void strset_free(struct strset *s);

#endif
