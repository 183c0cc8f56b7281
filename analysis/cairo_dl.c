/* cairo loaded with dlopen() once, on the first PNG: its functions resolved
 * into one table, all or none, so a partial libcairo is never half used. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "cairo_dl.h"

static struct cairo_dl table;
static const struct cairo_dl *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	/* RTLD_LOCAL: cairo's symbols stay out of the global scope, where
	 * they could interpose on a program's own copy. */
	void *h = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
#define CAIRO_DL_SYM(name)                                              \
	if (!(table.name = (__typeof__(table.name))dlsym(h, "cairo_" #name))) \
		goto missing;
	CAIRO_DL_FNS(CAIRO_DL_SYM)
#undef CAIRO_DL_SYM
	loaded = &table;
	return;
missing:
	dlclose(h);
}

const struct cairo_dl *cairo_dl(void)
{
	pthread_once(&once, load);
	return loaded;
}
