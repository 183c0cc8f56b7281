/* librocecheck heatmap: the matrix of one sweep test (bandwidth or latency
 * between every pair of NICs) as an SVG or PNG picture, degraded parts marked. */
#ifndef ROCECHECK_HEATMAP_H
#define ROCECHECK_HEATMAP_H

#include <stdio.h>

#include <rocecheck/analysis.h>
#include <rocecheck/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety: both calls only read their arguments; any number of
 * threads may render the same result and report at once, as long as no
 * thread changes them (see rocecheck/mesh.h).
 */

enum rck_heatmap_format {
	RCK_HEATMAP_SVG = 0, /**< SVG 1.1, UTF-8 */
	RCK_HEATMAP_PNG = 1, /**< PNG (cairo, loaded at run time), RGB */
};

/**
 * The format a file name asks for: ".svg" or ".png" at its end (any case).
 * Returns 0 with *@fmt set, or -EINVAL (NULL argument, any other ending).
 */
int rck_heatmap_format_from_path(const char *path, enum rck_heatmap_format *fmt);

/**
 * Draw the matrix of test @test of the sweep result @m and write the
 * picture to @out (the caller opens and closes it; write a file atomically
 * by rendering to a temporary file and renaming it).
 *
 * Rows are the sending NICs, columns the receiving ones, host by host in
 * the order of @m; a cell shows the probe's last measurement that
 * succeeded (the retest alone when there is one), coloured by its ratio to
 * the fabric median (the report's when @r is given, else the median of
 * the cells shown) on a scale drawn in a legend with that median. Failed,
 * unreachable, skipped and unprobed cells have colours of their own.
 * With a report @r (may be NULL; from rck_analysis_run() on the same
 * result) its findings are marked: link_slow (bw) and link_latency (lat)
 * outline their cell (dashed for an unconfirmed warning), nic_degraded
 * and host_degraded mark the NIC's row and column and its labels, host
 * names in red; the title counts hosts, NICs, probe outcomes and findings.
 *
 * Above 128 NICs the matrix is aggregated into at most 128 x 128 blocks:
 * a block shows the minimum of its cells (so one slow row is never
 * averaged away), or failed / unreachable when any of its cells is, and
 * degraded NICs are marked and named on the axes; a 1024-host picture
 * stays well under 5 MB in both formats. Host names are escaped and
 * shortened for display. The output is a pure function of the arguments
 * (same input, same bytes; PNG text also depends on the installed fonts).
 *
 * A PNG is drawn with cairo, which librocecheck does not link: the first
 * PNG loads libcairo.so.2 with dlopen() (once per process, thread-safe;
 * it stays loaded), so a program that writes none never maps it. The SVG
 * needs no library.
 *
 * Returns 0, -EINVAL (NULL @m or @out, bad @test or @fmt, a result
 * without NICs), -ENOTSUP (a PNG, and libcairo.so.2 could not be loaded
 * or lacks a function it needs; nothing written), -ENOMEM, or -EIO when
 * writing @out failed.
 */
int rck_heatmap_write(const struct rck_mesh *m, enum rck_mesh_test test,
		      const struct rck_report *r, enum rck_heatmap_format fmt, FILE *out);

/**
 * rck_heatmap_write() under the title @title ("rocecheck preflight"; NULL
 * or empty: "rocecheck mesh"), which the caller keeps for the call. Both
 * name the axes (rows send, columns receive), mark the hosts the report
 * drains (bold red labels, a red bar) and mark a NIC degraded only to it
 * (or only from it) on its column (or its row) alone. Same returns.
 */
int rck_heatmap_write_titled(const struct rck_mesh *m, enum rck_mesh_test test,
			     const struct rck_report *r, const char *title,
			     enum rck_heatmap_format fmt, FILE *out);
struct rck_topology;
/**
 * rck_heatmap_write() grouped by switch: rows and columns ordered by the
 * leaf switch each NIC is cabled to in @t (rocecheck/topology.h; switch
 * order, NICs on no known leaf last, host order within a leaf), the leaf's
 * name on the axis label where its NICs begin, so a bad uplink or leaf
 * shows as a band, under @title as rck_heatmap_write_titled(). @t NULL:
 * as rck_heatmap_write_titled(). Returns as it.
 */
int rck_heatmap_write_topology(const struct rck_mesh *m, enum rck_mesh_test test,
			       const struct rck_report *r, const struct rck_topology *t,
			       const char *title, enum rck_heatmap_format fmt, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
