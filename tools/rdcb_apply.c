/* `rocedcb apply` and `rocedcb restore`: change ports, with the previous
 * state saved first and every failure undone. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdcb.h"

static void print_log(const char *ifname, const struct rck_dcb_change_log *log, const char *prefix)
{
	for (size_t i = 0; i < rck_dcb_change_count(log); i++)
		printf("%s: %s%s\n", ifname, prefix, rck_dcb_change(log, i, NULL));
}

static void explain(struct cli *cli, const char *ifname, const struct rck_dcb_change_log *log, int rc)
{
	const char *step = log ? rck_dcb_change_failed_step(log) : NULL;
	bool changed = false;

	for (size_t i = 0; log && i < rck_dcb_change_count(log); i++) {
		bool undone;

		rck_dcb_change(log, i, &undone);
		changed |= undone;
	}
	if (rc == -EPERM || rc == -EACCES)
		cli_msg(cli, "%s: %s%s%s: changing DCB settings needs CAP_NET_ADMIN (run as root)", ifname,
			step ? step : "", step ? ": " : "", strerror(-rc));
	else
		cli_msg(cli, "%s: %s%s%s", ifname, step ? step : "", step ? " failed: " : "",
			rc == -EOPNOTSUPP ? "not supported by this driver" : strerror(-rc));
	if (log && changed)
		cli_msg(cli, "%s: %s", ifname, rck_dcb_change_rolled_back(log) ?
			"restored everything it had changed" :
			"ROLLBACK INCOMPLETE: some changes could not be undone (see above)");
	else if (log && step)
		cli_msg(cli, "%s: nothing was changed", ifname);
}

static int state_path(const char *dir, const char *ifname, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s/%s.json", dir, ifname) >= len ? -ENAMETOOLONG : 0;
}

/* Undo the ports already applied in this run, newest first. */
static void undo_earlier(struct cli *cli, const struct rdcb_opts *o, char **names, size_t k,
			 const bool *saved)
{
	while (k-- > 0) {
		struct rck_dcb_change_log *log = NULL;
		char path[4096];
		int rc;

		if (!saved[k] || state_path(o->state_dir, names[k], path, sizeof(path)))
			continue;
		rc = rck_dcb_restore(cli->ctx, path, names[k], &log);
		if (rc) {
			explain(cli, names[k], log, rc);
		} else {
			cli_msg(cli, "%s: restored to its state before this apply", names[k]);
			unlink(path);
		}
		rck_dcb_change_log_free(log);
	}
}

/* A dry run's plan for one port: every change, parts that cannot be read
 * as "unknown -> X (why)". 0, 1 (error) or 3 (some part unknown). */
static int dry_run(struct cli *cli, const struct rck_dcb_profile *prof, const char *ifname)
{
	struct rck_dcb_change_log *log = NULL;
	size_t unknown = 0, n;
	int rc = rck_dcb_apply(cli->ctx, prof, ifname, NULL, true, &log);

	if (rc) {
		explain(cli, ifname, log, rc);
		rck_dcb_change_log_free(log);
		return EXIT_FAIL;
	}
	n = rck_dcb_change_count(log);
	for (size_t i = 0; i < n; i++) {
		enum rck_dcb_change_kind k = rck_dcb_change_kind(log, i);

		unknown += k == RCK_DCB_CHANGE_UNKNOWN;
		printf("%s: %s%s\n", ifname, k == RCK_DCB_CHANGE_SKIPPED ? "" : "would change ",
		       rck_dcb_change(log, i, NULL));
	}
	if (!n)
		printf("%s: already matches profile %s\n", ifname, rck_dcb_profile_name(prof));
	else if (unknown)
		printf("%s: %zu part(s) of the plan start from a value that could not be read: "
		       "apply refuses this profile here\n", ifname, unknown);
	rck_dcb_change_log_free(log);
	return unknown ? RDCB_EXIT_UNKNOWN : 0;
}

int rdcb_apply(struct cli *cli, int argc, char **argv)
{
	struct rck_dcb_profile *prof = NULL;
	char **names = NULL, path[4096];
	bool *saved = NULL;
	struct rdcb_opts o;
	size_t n = 0, i;
	int rc = rdcb_parse(cli, argc, argv, &o);

	if (rc != CLI_CONTINUE)
		return rc;
	rc = rdcb_profile(cli, &prof);
	if (rc != CLI_CONTINUE)
		return rc;
	rc = rdcb_ifnames(cli, cli->args + 1, cli->nargs - 1, &names, &n);
	if (rc) {
		rck_dcb_profile_free(prof);
		return EXIT_FAIL;
	}
	/* Nothing is written: plan every port, the worst outcome is the exit. */
	if (o.dry_run) {
		int worst = 0;

		for (i = 0; i < n; i++) {
			int r = dry_run(cli, prof, names[i]);

			if (r == EXIT_FAIL || (r && !worst))
				worst = r;
		}
		rdcb_ifnames_free(names);
		rck_dcb_profile_free(prof);
		return worst;
	}
	saved = calloc(n, sizeof(*saved));
	if (!saved)
		rc = -ENOMEM;
	if (!rc && mkdir(o.state_dir, 0700) && errno != EEXIST) {
		rc = -errno;
		cli_msg(cli, "state directory %s: %s%s", o.state_dir, strerror(-rc),
			rc == -EACCES || rc == -EPERM ? " (run as root)" : "");
	}
	for (i = 0; i < n && !rc; i++) {
		struct rck_dcb_change_log *log = NULL;
		const char *sp = NULL;

		rc = state_path(o.state_dir, names[i], path, sizeof(path));
		if (rc)
			break;
		/* An earlier apply's file holds the state before any apply: keep it. */
		if (access(path, F_OK))
			sp = path;
		else
			printf("%s: keeping the state saved by an earlier apply in %s\n", names[i], path);
		rc = rck_dcb_apply(cli->ctx, prof, names[i], sp, false, &log);
		if (rc) {
			if (log)
				print_log(names[i], log, "");
			explain(cli, names[i], log, rc);
			/* Rolled back: the port is as saved, the file has no use. */
			if (sp && log && (rck_dcb_change_rolled_back(log) || !rck_dcb_change_count(log)))
				unlink(sp);
		} else if (!rck_dcb_change_count(log)) {
			printf("%s: already matches profile %s\n", names[i], rck_dcb_profile_name(prof));
		} else {
			print_log(names[i], log, "");
			saved[i] = sp != NULL;
			if (sp)
				printf("%s: previous state saved in %s\n", names[i], sp);
		}
		rck_dcb_change_log_free(log);
	}
	if (rc && i > 0)
		undo_earlier(cli, &o, names, i - 1, saved);
	free(saved);
	rdcb_ifnames_free(names);
	rck_dcb_profile_free(prof);
	return rc ? EXIT_FAIL : 0;
}

/* The interfaces with a state file in @dir, NULL-ended in *out. */
static int saved_names(const char *dir, char ***out, int *count)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char **v = NULL;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nv;

		if (len <= 5 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		nv = realloc(v, (size_t)(n + 2) * sizeof(char *));
		if (!nv)
			break;
		v = nv;
		v[n] = strndup(de->d_name, len - 5);
		if (!v[n])
			break;
		v[++n] = NULL;
	}
	closedir(d);
	*out = v;
	*count = n;
	return n ? 0 : -ENOENT;
}

int rdcb_restore(struct cli *cli, int argc, char **argv)
{
	char **found = NULL, **words, path[4096];
	struct rdcb_opts o;
	int rc = rdcb_parse(cli, argc, argv, &o), failed = 0, n_words;

	if (rc != CLI_CONTINUE)
		return rc;
	words = cli->args;
	n_words = cli->nargs;
	if (!n_words) {
		rc = saved_names(o.state_dir, &found, &n_words);
		if (rc) {
			cli_msg(cli, "no saved state in %s", o.state_dir);
			rdcb_ifnames_free(found);
			return EXIT_FAIL;
		}
		words = found;
	}
	for (int i = 0; i < n_words; i++) {
		struct rck_dcb_change_log *log = NULL;
		const char *ifn = words[i];

		if (strchr(ifn, '/') || state_path(o.state_dir, ifn, path, sizeof(path))) {
			cli_msg(cli, "bad interface name '%s'", ifn);
			failed = 1;
			continue;
		}
		if (access(path, F_OK)) {
			cli_msg(cli, "%s: no saved state (%s)", ifn, path);
			failed = 1;
			continue;
		}
		rc = rck_dcb_restore(cli->ctx, path, ifn, &log);
		if (rc) {
			explain(cli, ifn, log, rc);
			failed = 1;
		} else {
			print_log(ifn, log, "");
			printf("%s: restored from %s%s\n", ifn, path,
			       rck_dcb_change_count(log) ? "" : " (nothing to change)");
			unlink(path);
		}
		rck_dcb_change_log_free(log);
	}
	rdcb_ifnames_free(found);
	return failed ? EXIT_FAIL : 0;
}
