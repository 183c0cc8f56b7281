/* The monitor's /metrics over HTTP: the run loop renders a snapshot after
 * each poll, the exporter's thread serves the last one under a lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"
#include "rocecheck/exporter.h"

/* Runs on the exporter's thread: never touches the monitor's live state. */
static int serve_snapshot(void *arg, FILE *out)
{
	struct rck_monitor *m = arg;
	int rc = 0;

	pthread_mutex_lock(&m->snap_mu);
	if (m->snap && fwrite(m->snap, 1, m->snap_len, out) != m->snap_len)
		rc = -EIO;
	pthread_mutex_unlock(&m->snap_mu);
	return rc;
}

void md_metrics_snapshot(struct rck_monitor *m)
{
	char *buf = NULL, *old;
	size_t len = 0;
	FILE *f;

	if (!m->exporter)
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (rck_monitor_render(m, f)) {
		fclose(f);
		free(buf);
		return;
	}
	if (fclose(f)) {
		free(buf);
		return;
	}
	pthread_mutex_lock(&m->snap_mu);
	old = m->snap;
	m->snap = buf;
	m->snap_len = len;
	pthread_mutex_unlock(&m->snap_mu);
	free(old);
}

RCK_EXPORT int rck_monitor_serve_metrics(struct rck_monitor *m, const char *addr, unsigned int port)
{
	struct rck_exporter_config cfg;
	int rc;

	if (!m || port > 65535 || m->exporter)
		return -EINVAL;
	rck_exporter_config_init(&cfg);
	cfg.addr = addr;
	cfg.port = port;
	cfg.render = serve_snapshot;
	cfg.arg = m;
	rc = rck_exporter_new(&cfg, &m->exporter);
	if (rc)
		return rc;
	md_metrics_snapshot(m);
	return 0;
}

RCK_EXPORT unsigned int rck_monitor_metrics_port(const struct rck_monitor *m)
{
	return m && m->exporter ? rck_exporter_port(m->exporter) : 0;
}

void md_metrics_free(struct rck_monitor *m)
{
	rck_exporter_free(m->exporter); /* its thread is gone before the snapshot is */
	m->exporter = NULL;
	free(m->snap);
	m->snap = NULL;
}
