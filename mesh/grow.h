/* One helper for the growing arrays of mesh/: doubling, from 64. */
#ifndef RCK_MESH_GROW_H
#define RCK_MESH_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Make *@arr (of *@cap elements of @size bytes) hold at least @need.
 * 0 or -ENOMEM (the array is then unchanged). */
static inline int mesh_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	n = realloc(*arr, c * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = c;
	return 0;
}

#endif
