/* The monitor's outputs: one JSON line per event (for journald), the
 * node_exporter textfile and the NPD condition line, both written atomically. */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <time.h>

#include "monitor_int.h"

static void event(const struct rck_monitor *m, json_t *o)
{
	struct timespec ts;
	char *s;

	if (!o)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	json_object_set_new(o, "schema", json_string(RCK_MONITOR_EVENT_SCHEMA));
	json_object_set_new(o, "time", json_real((double)ts.tv_sec + ts.tv_nsec / 1e9));
	if (m->cfg.host)
		json_object_set_new(o, "host", json_string(m->cfg.host));
	s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	if (s && m->cfg.events) {
		fputs(s, m->cfg.events);
		fputc('\n', m->cfg.events);
		fflush(m->cfg.events);
	}
	free(s);
	json_decref(o);
}

void md_event_finding(const struct rck_monitor *m, const struct mf *f, bool active)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "event", "finding",
			      "state", active ? "active" : "cleared", "code", f->code,
			      "severity", rck_severity_name(f->sev), "device", f->device,
			      "port", (int)f->port, "reason", f->reason);

	if (o && f->peer[0])
		json_object_set_new(o, "peer", json_string(f->peer));
	event(m, o);
}

void md_event_compared(const struct rck_monitor *m, const struct mr_port *p)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:b}", "event", "state_compared", "device",
			      p->device, "port", (int)p->port, "gid_index", p->prev.st.gid_index,
			      "same", !p->changed[0] && !p->changed[1] && !p->changed[2] &&
			      !p->changed[3] && !p->changed[4]);
	json_t *ch = json_array();

	for (int w = 0; w < MS_WHAT_COUNT && o && ch; w++)
		if (p->changed[w])
			json_array_append_new(ch, json_string(ms_what_name[w]));
	if (o && ch)
		json_object_set_new(o, "changed", ch);
	else
		json_decref(ch);
	event(m, o);
}

void md_event_path(const struct rck_monitor *m, const struct md_peer *p)
{
	unsigned int port;
	const char *dev = md_peer_device(m, p, &port);
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "event", "probe_path", "peer", p->name,
			      "transport", p->rdma ? "rdma-ud" : "udp", "timestamps", md_peer_timestamps(m, p),
			      "device", dev, "port", (int)port, "reason", p->why);

	event(m, o);
}

void md_event_pause_source(const struct rck_monitor *m, const struct mr_port *p, const char *netdev, int src)
{
	char why[160];
	const char *what = src == 0 ? "nic" : src == 1 ? "frames" : "none";

	if (src == 0)
		snprintf(why, sizeof(why), "the NIC's PFC counters");
	else if (src == 1)
		snprintf(why, sizeof(why), "the NIC has no PFC counters: PFC frames the stack sends and receives on %s",
			 netdev);
	else if (src == -EOPNOTSUPP)
		snprintf(why, sizeof(why), "the NIC has no PFC counters (a recorded tree: no frames to count)");
	else
		snprintf(why, sizeof(why), "the NIC has no PFC counters, and the PFC frames on %s cannot be counted: %s",
			 netdev[0] ? netdev : "its netdev", src == -ENODEV ? "no netdev" :
			 src == -EINVAL ? "the port's rate is unknown" : strerror(-src));
	event(m, json_pack("{s:s, s:s, s:i, s:s, s:s}", "event", "pause_source", "device", p->device, "port",
			   (int)p->port, "source", what, "reason", why));
}

static int prom_fn(FILE *f, const void *arg)
{
	return rck_monitor_render(arg, f);
}

static const struct mf *worst(const struct mh *h, const struct mf *w, unsigned int *n)
{
	for (unsigned int i = 0; i < h->cnt; i++) {
		if (!h->v[i].counts || h->v[i].last.sev < RCK_SEVERITY_DEGRADED)
			continue;
		(*n)++;
		if (!w || h->v[i].last.sev > w->sev)
			w = &h->v[i].last;
	}
	return w;
}

/* NPD shows one short line, as the sweep's: at most NPD_MAX characters,
 * the reason cut at a word and the count of other findings kept. */
#define NPD_MAX 80

static int npd_fn(FILE *f, const void *arg)
{
	const struct rck_monitor *m = arg;
	const struct mf *w = NULL;
	unsigned int n = 0;
	char line[512], suffix[24] = "";
	size_t room, len;

	w = worst(&m->hold_ctr, w, &n);
	w = worst(&m->hold_probe, w, &n);
	if (!w) {
		snprintf(line, sizeof(line), "rocecheck monitor: healthy");
	} else {
		if (n > 1)
			snprintf(suffix, sizeof(suffix), " (+%u)", n - 1);
		room = NPD_MAX - strlen(suffix);
		snprintf(line, sizeof(line), "rocecheck monitor: %s %s/%u%s%s%s%.*s", w->code, w->device,
			 w->port, w->peer[0] ? " " : "", w->peer, w->reason[0] ? ": " : "",
			 (int)room, w->reason);
		len = strlen(line);
		if (len > room) {
			len = room;
			/* Back to the last word boundary, never into the names. */
			while (len > 20 && line[len] != ' ')
				len--;
			while (len > 20 && strchr(" ,;:(", line[len - 1]))
				len--;
			if (len <= 20)
				len = room;
			line[len] = '\0';
		}
		strcat(line, suffix);
	}
	for (char *p = line; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	fprintf(f, "%s\n", line);
	return ferror(f) ? -EIO : 0;
}

int md_write_files(const struct rck_monitor *m)
{
	int rc = 0, r;

	if (m->cfg.textfile && (r = rck_write_atomic(m->cfg.textfile, prom_fn, m)))
		rc = r;
	if (m->cfg.npd && (r = rck_write_atomic(m->cfg.npd, npd_fn, m)))
		rc = r;
	return rc;
}
