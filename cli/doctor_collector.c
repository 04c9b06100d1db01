/*
 * doctor_collector.c - doctor's checks of the node's collector: its program (9), its
 * configuration (10), the rules (11) and the spool (12).
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"

/* ---- 9. the collector ---- */

void check_collector(struct doctor *d)
{
	const char *c = d->args.collector;
	char why[PATH_MAX + 100];
	struct stat st;
	int e = 0;

	if (!d->pm)
		return;
	if (stat(c, &st) < 0)
		e = errno;
	if (e || !S_ISREG(st.st_mode) || !(st.st_mode & 0100)) {
		doc_say(d, ST_FAIL, "collector",
			doc_fixf("install postmortem-epilog at %s, or name it with collector= at %s:%d",
				 c, d->pm->file, d->pm->line),
			"%s is %s: the job epilog does nothing and no evidence is collected", c,
			e == ENOENT ? "missing" :
			e	    ? strerror(e) :
				      "not an executable file");
		return;
	}
	if (doc_unsafe_file(c, why, sizeof(why))) {
		doc_say(d, ST_FAIL, "collector", doc_fixf("chown root:root %s; chmod 755 %s", c, c),
			"%s: it runs as root after every job", why);
		return;
	}
	doc_say(d, ST_OK, "collector", NULL, "%s", c);
}

/* ---- 10. the collector's configuration ---- */

void check_config(struct doctor *d)
{
	const char *file = d->opt_config     ? d->opt_config :
			   d->args.config[0] ? d->args.config :
					       getenv("POSTMORTEM_CONFIG");
	bool named = file && *file;
	char err[1024], why[PATH_MAX + 100];

	if (!named)
		file = PM_CONFIG_DEFAULT;
	snprintf(d->cfg_path, sizeof(d->cfg_path), "%s", file);
	if (access(file, F_OK) < 0) {
		pm_config_load(NULL, &d->cfg, err, sizeof(err));
		d->cfg_ok = true;
		if (named)
			doc_say(d, ST_FAIL, "config",
				doc_fixf("create %s (man postmortem-epilog) or remove config= from the "
					 "plugstack line",
					 file),
				"%s does not exist: the collector uses its defaults (store %s)",
				file, d->cfg.store);
		else
			doc_say(d, ST_NOTE, "config", NULL,
				"no %s: the collector's defaults apply (store %s, deadline 30s, "
				"operators_group %s)",
				file, d->cfg.store, d->cfg.operators_group);
		return;
	}
	if (pm_config_load(file, &d->cfg, err, sizeof(err)) < 0) {
		pm_config_load(NULL, &d->cfg, why, sizeof(why));
		d->cfg_ok = true;
		doc_say(d, ST_FAIL, "config", "correct it (man postmortem-epilog lists every key)",
			"%s: the collector ignores the file and uses its defaults", err);
		return;
	}
	d->cfg_ok = true;
	if (doc_unsafe_file(file, why, sizeof(why)))
		doc_say(d, ST_FAIL, "config", doc_fixf("chown root %s; chmod go-w %s", file, file),
			"%s: it names commands the collector runs as root", why);
	else
		doc_say(d, ST_OK, "config", NULL, "%s", file);
}

/* ---- 11. the rules ---- */

void check_rules(struct doctor *d)
{
	const char *dir = d->opt_rules		    ? d->opt_rules :
			  d->cfg_ok && d->cfg.rules ? d->cfg.rules :
						      cli_rules_dir(NULL);
	char err[1024];
	struct pm_ruleset *rs = pm_ruleset_load(dir, err, sizeof(err));

	if (!rs) {
		doc_say(d, ST_FAIL, "rules",
			"correct the rule file named (`postmortem rules check DIR` runs its fixtures "
			"too), or point rules: in the collector's configuration at a good set",
			"%s: %s: the collector stores evidence but no verdict can be made", dir,
			err);
		return;
	}
	size_t npat, jitted = pm_ruleset_jitted(rs, &npat);

	doc_say(d, ST_OK, "rules", NULL,
		"%s: rule set %s version %s, %zu rules, %s; %s; %zu of %zu patterns compiled to "
		"machine code%s",
		dir, pm_ruleset_id(rs), pm_ruleset_version(rs), pm_ruleset_count(rs),
		pm_ruleset_digest(rs), pm_scan_runtime(), jitted, npat,
		jitted < npat ? " (the rest interpreted: PCRE2 without a JIT, executable memory "
				"refused, or valgrind)" :
				"");
	pm_ruleset_destroy(rs);
}

/* ---- 12. the node's spool ---- */

void check_spool(struct doctor *d)
{
	const char *s = d->args.spool;
	struct stat st;
	glob_t g;
	char pat[PATH_MAX];
	size_t pending = 0;

	if (!d->pm)
		return;
	if (lstat(s, &st) < 0) {
		doc_say(d, errno == ENOENT ? ST_OK : ST_FAIL, "spool",
			"check the path and its parents", "%s: %s", s,
			errno == ENOENT ?
				"not there yet: the plugin creates it (0700) on the first "
				"job" :
				strerror(errno));
		return;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		doc_say(d, ST_FAIL, "spool",
			doc_fixf("rm -rf %s (the plugin recreates it) or chown root %s; "
				 "chmod 700 %s",
				 s, s, s),
			"%s is %s: the plugin refuses it and records nothing", s,
			S_ISLNK(st.st_mode)  ? "a symbolic link" :
			!S_ISDIR(st.st_mode) ? "not a folder" :
			st.st_uid != 0	     ? "not owned by root" :
					       "writable by others");
		return;
	}
	snprintf(pat, sizeof(pat), "%s/*/pending/*.tar.zst", s);
	if (glob(pat, 0, NULL, &g) == 0) {
		pending = g.gl_pathc;
		globfree(&g);
	}
	if (pending)
		doc_say(d, ST_WARN, "spool",
			"make the store reachable from this node; the next job's collector delivers "
			"them (or run postmortem-epilog by hand)",
			"%s holds %zu bundle%s that the store did not take", s, pending,
			pending == 1 ? "" : "s");
	else
		doc_say(d, ST_OK, "spool", NULL,
			"%s: root, mode %04o, nothing waiting for the store", s,
			(unsigned)(st.st_mode & 07777));
}
