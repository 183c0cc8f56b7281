/* Internal structures of the heatmap: the grid taken from a sweep result
 * and a report, the colour scale, and the drawing surface both formats share. */
#ifndef RCK_HEATMAP_INT_H
#define RCK_HEATMAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "rocecheck/heatmap.h"

/* More NICs than this are drawn in blocks of several NICs each. */
#define HM_FULL_MAX 128

/* What a cell (or block) shows, in the order a block picks among its cells. */
enum hm_state {
	HM_EMPTY = 0,     /* not probed */
	HM_SKIPPED,
	HM_OK,
	HM_UNREACHABLE,
	HM_FAILED,
};

/* Marks from the report; a higher one wins. */
enum hm_mark { HM_MARK_NONE = 0, HM_MARK_WARN = 1, HM_MARK_BAD = 2 };

struct hm_cell {
	float value;      /* Gb/s or us, for HM_OK */
	uint8_t state;    /* enum hm_state */
	uint8_t mark;     /* enum hm_mark: a link finding */
};

struct hm_entity {
	char *text;       /* one line for the legend's list */
	uint8_t mark;
};

struct hm_grid {
	enum rck_mesh_test test;
	unsigned int n;             /* NICs (rows = columns) */
	unsigned int hosts;
	unsigned int *order;        /* position -> mesh NIC number */
	unsigned int *pos;          /* mesh NIC number -> position */
	char **label;               /* per position: display label (clean UTF-8) */
	char **full;                /* per position: "host device/port" (clean) */
	uint8_t *nic_mark;          /* per position: NIC or host degraded */
	uint8_t *down;              /* per position: its host is unreachable */
	uint8_t *nic_side;          /* per position: HM_SIDE_* its mark is on */
	uint8_t *drained;           /* per position: the report drains its host */
	unsigned int hosts_drained;
	const char *title;          /* "rocecheck mesh", "rocecheck preflight" */
	unsigned int count[HM_FAILED + 1]; /* probes by state (HM_EMPTY unused) */
	unsigned int links_marked, nics_marked, hosts_marked;
	bool fabric_slow;
	const char *verdict;        /* NULL without a report */
	double median;              /* fabric median; 0 none */
	struct hm_entity *list;     /* degraded entities, for the legend */
	unsigned int n_list;
	/* blocks of @block x @block positions (1 up to HM_FULL_MAX NICs),
	 * @nb per axis, row-major: memory stays O(NICs), never O(NICs^2) */
	unsigned int block, nb;
	struct hm_cell *agg;
};

/* A degraded NIC's mark: on its row (slow from it), its column (slow to
 * it), or both. */
#define HM_SIDE_ROW 1u
#define HM_SIDE_COL 2u

int hm_grid_build(struct hm_grid *g, const struct rck_mesh *m, enum rck_mesh_test test,
		  const struct rck_report *r);
void hm_grid_free(struct hm_grid *g);
/* The same with positions grouped by leaf switch of @t (heatmap_topo.c:
 * hm_grid_topology() reorders the placed positions and names each leaf on
 * the label where its NICs begin). */
struct rck_topology;
int hm_grid_build_topo(struct hm_grid *g, const struct rck_mesh *m, enum rck_mesh_test test,
		       const struct rck_report *r, const struct rck_topology *t);
int hm_grid_topology(struct hm_grid *g, const struct rck_mesh *m, const struct rck_topology *t);
/* Add the report's marks (heatmap_marks.c). */
int hm_grid_marks(struct hm_grid *g, const struct rck_mesh *m, const struct rck_report *r);
/* Blocks of at most HM_FULL_MAX per axis (heatmap_agg.c): hm_grid_blocks()
 * sizes and allocates them, hm_grid_add() merges one cell into its block. */
int hm_grid_blocks(struct hm_grid *g);
void hm_grid_add(struct hm_grid *g, unsigned int row, unsigned int col, const struct hm_cell *c);

/* ---- colours and text (heatmap_scale.c) ---- */
#define HM_RGB(r, g, b) ((uint32_t)(r) << 16 | (uint32_t)(g) << 8 | (uint32_t)(b))
#define HM_NONE 0xff000000u /* no fill / no stroke */
/* Colour of a measured value against the median (higher is better for bw,
 * lower for latency). */
uint32_t hm_value_colour(enum rck_mesh_test test, double value, double median);
uint32_t hm_state_colour(enum hm_state s);
/* The value at the legend's stop @i of hm_scale_stops() (0 when no median). */
unsigned int hm_scale_stops(void);
double hm_scale_value(enum rck_mesh_test test, unsigned int i, double median);
/* Numbers without the locale: "-12.5" with @dec decimals (0..3). */
void hm_num(char *buf, size_t len, double v, int dec);
/* Most stops a colour scale has (hm_scale_stops()). */
#define HM_STOPS_MAX 16
/* @v with three significant digits and at least @min_dec decimals (at
 * most 3), locale-free as hm_num(). */
void hm_sig3(char *buf, size_t len, double v, int min_dec);
/* The unit bandwidths near @gbps read best in (Gb/s, Mb/s below 1 Gb/s,
 * kb/s below 1 Mb/s); *@mul turns Gb/s into it. Static string. */
const char *hm_bw_unit(double gbps, double *mul);
/* A value of @test with its unit, scaled to its size: "62.7 Mb/s",
 * "41.2 Gb/s", "3.88 us" (micro sign). */
void hm_value_text(char *buf, size_t len, enum rck_mesh_test test, double v);
/* A copy of @s that is valid UTF-8 without control characters, shortened
 * to @max code points with an ellipsis. NULL on ENOMEM. */
char *hm_clean(const char *s, unsigned int max);

/* ---- drawing surface (heatmap_svg.c, heatmap_png.c) ---- */
enum hm_anchor { HM_START = 0, HM_MIDDLE, HM_END };

struct hm_canvas {
	void (*rect)(struct hm_canvas *c, double x, double y, double w, double h, uint32_t fill,
		     uint32_t stroke, double sw, bool dashed, const char *tip);
	void (*line)(struct hm_canvas *c, double x1, double y1, double x2, double y2, uint32_t rgb,
		     double w);
	void (*tri)(struct hm_canvas *c, const double xy[6], uint32_t fill);
	/* @s is clean UTF-8 (hm_clean); @vertical: read bottom to top. */
	void (*text)(struct hm_canvas *c, double x, double y, double size, enum hm_anchor a,
		     bool vertical, bool bold, uint32_t rgb, const char *s);
	int err;
};

/* Page size for the grid (heatmap_draw.c), then draw everything on @c.
 * hm_layout_grid(): the grid's top left corner and a block's side. */
void hm_layout_size(const struct hm_grid *g, double *w, double *h);
void hm_layout_grid(const struct hm_grid *g, double *x, double *y, double *cs);
void hm_draw(const struct hm_grid *g, struct hm_canvas *c);

int hm_write_svg(const struct hm_grid *g, FILE *out);
int hm_write_png(const struct hm_grid *g, FILE *out);

#endif
