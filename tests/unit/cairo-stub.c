/* A libcairo.so.2 with a single cairo function, for mesh-heatmap.sh:
 * librocecheck must refuse a PNG rather than use part of a library. */
void *cairo_create(void *target);

void *cairo_create(void *target)
{
	return target;
}
