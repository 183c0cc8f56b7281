/* The DCB states of one host's ports, as the sweep result and the analysis
 * keep them (copies): given or not, and why they could not be read. */
#ifndef RCK_DCB_SET_H
#define RCK_DCB_SET_H

#include <stdbool.h>
#include <stddef.h>

struct rck_dcb;

struct dcb_set {
	bool has;               /* given (collected) */
	char *error;            /* why not read; then n is 0 */
	struct rck_dcb **ports;
	size_t n;
};

/* Replace @s with copies of @n ports, or with @error (@n 0): 0, -EINVAL
 * (a NULL port, ports and an error), -ENOMEM; on error @s is unchanged. */
int dcb_set_assign(struct dcb_set *s, const struct rck_dcb *const *ports, size_t n, const char *error);
void dcb_set_clear(struct dcb_set *s);

#endif
