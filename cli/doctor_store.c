/*
 * doctor_store.c - doctor's checks of the evidence store: the folder and its file system
 * (13) with a write test, the permissions of existing evidence (14), the operators' group
 * (15), the ledger and the store's metrics.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"
#include "finalize.h"

/* ---- 13. the evidence store ---- */

static const char *fs_name(long type, bool *shared)
{
	static const struct {
		long magic;
		const char *name;
		bool shared;
	} fs[] = {
		{0x6969, "nfs", true},		{0x0BD00BD0, "lustre", true},
		{0x47504653, "gpfs", true},	{0x19830326, "beegfs", true},
		{0x00C36400, "ceph", true},	{0x65735546, "fuse", true},
		{0xFF534D42, "cifs", true},	{0xFE534D42, "smb2", true},
		{0x013111A8, "ibrix", true},	{0x0BAD1DEA, "wekafs", true},
		{0xEF53, "ext4", false},	{0x58465342, "xfs", false},
		{0x9123683E, "btrfs", false},	{0x01021994, "tmpfs", false},
		{0x794C7630, "overlay", false}, {0x2FC12FC1, "zfs", false},
	};

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (fs[i].magic == type) {
			*shared = fs[i].shared;
			return fs[i].name;
		}
	*shared = false;
	return "an unknown filesystem";
}

void check_store(struct doctor *d)
{
	struct passwd *pw = d->cfg.service_user ? getpwnam(d->cfg.service_user) : NULL;
	uid_t owner = pw ? pw->pw_uid : 0;
	struct statfs sf;
	struct statvfs sv;
	struct stat st;
	bool shared = false;
	const char *fs = "?";

	d->store = d->opt_store ? d->opt_store : d->args.store[0] ? d->args.store : d->cfg.store;
	if (!d->store || !*d->store) {
		doc_say(d, ST_FAIL, "store",
			"set store= on the plugstack line or store: in the collector's configuration",
			"no evidence store is configured: bundles stay in the nodes' spools");
		return;
	}
	if (stat(d->store, &st) < 0 || !S_ISDIR(st.st_mode)) {
		doc_say(d, ST_FAIL, "store",
			doc_fixf("mount the shared filesystem, or create %s (root, mode 0755)",
				 d->store),
			"%s: %s: bundles wait in the spool of every node", d->store,
			S_ISDIR(st.st_mode) ? strerror(errno) : "not a folder (not mounted?)");
		return;
	}
	if (d->cfg.store_marker && *d->cfg.store_marker) {
		char m[4096];
		struct stat ms;

		snprintf(m, sizeof(m), "%s/%s", d->store, d->cfg.store_marker);
		if (stat(m, &ms) < 0 || !S_ISREG(ms.st_mode)) {
			doc_say(d, ST_FAIL, "store",
				doc_fixf("mount the shared filesystem; once, where it is mounted: touch %s",
					 m),
				"%s has no %s (store_marker): the collector stores nothing there and "
				"bundles wait in the spool",
				d->store, d->cfg.store_marker);
			return;
		}
	}
	if (statfs(d->store, &sf) == 0)
		fs = fs_name((long)sf.f_type, &shared);
	if (st.st_uid != 0 && st.st_uid != owner)
		doc_say(d, ST_FAIL, "store",
			doc_fixf("chown %s %s", pw ? pw->pw_name : "root", d->store),
			"%s belongs to uid %u: that user can alter or remove every job's evidence",
			d->store, (unsigned)st.st_uid);
	else if (st.st_mode & 002)
		doc_say(d, ST_FAIL, "store", doc_fixf("chmod o-w %s", d->store),
			"%s is writable by every user (mode %04o): evidence can be planted or removed",
			d->store, (unsigned)(st.st_mode & 07777));
	else if (st.st_mode & 020)
		doc_say(d, ST_WARN, "store", doc_fixf("chmod g-w %s", d->store),
			"%s is writable by its group (mode %04o): its members can remove evidence",
			d->store, (unsigned)(st.st_mode & 07777));
	else if (!(st.st_mode & 001))
		doc_say(d, ST_WARN, "store", doc_fixf("chmod o+x %s", d->store),
			"%s is not searchable by other users (mode %04o): job owners cannot reach "
			"their evidence (the folders below are 0750 with an ACL for the owner)",
			d->store, (unsigned)(st.st_mode & 07777));
	else
		doc_say(d, ST_OK, "store", NULL, "%s: %s, owner uid %u, mode %04o", d->store, fs,
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	d->store_ok = true;
	if (!shared)
		doc_say(d, ST_NOTE, "store", NULL,
			"%s is on %s, not a shared filesystem: fine for a single machine; on a real "
			"cluster every node must write to the same store so that the last one in can "
			"merge the job",
			d->store, fs);
	if (statvfs(d->store, &sv) == 0 && sv.f_blocks) {
		double avail = (double)sv.f_bavail * (double)sv.f_frsize;
		double pct = 100.0 * (double)sv.f_bavail / (double)sv.f_blocks;
		if (avail < 1024.0 * 1024 * 1024 || pct < 2)
			doc_say(d, ST_WARN, "store",
				"free space (`postmortem expire` removes evidence past its date)",
				"%s has %.0f MiB free (%.1f%%): bundles that do not fit wait in the "
				"spools",
				d->store, avail / 1048576, pct);
	}
}

/* Write, read back and remove a file in the store, and try an ACL, as the writer would. */
static void store_write_test(const struct doctor *d, int fd)
{
	char path[PATH_MAX], dir[PATH_MAX], buf[4096], back[4096], res[256];
	struct passwd *pw = NULL;
	int f = -1;

	if (d->cfg.service_user && strcmp(d->cfg.service_user, "root")) {
		if (!(pw = getpwnam(d->cfg.service_user))) {
			dprintf(fd, "user service_user %s does not exist\n", d->cfg.service_user);
			_exit(1);
		}
		if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
		    setuid(pw->pw_uid) < 0) {
			dprintf(fd, "user cannot become %s: %s\n", pw->pw_name, strerror(errno));
			_exit(1);
		}
	}
	snprintf(path, sizeof(path), "%s/.postmortem-doctor.%ld", d->store, (long)getpid());
	memset(buf, 'p', sizeof(buf));
	if ((f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
	    write(f, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(f) < 0 || close(f) < 0) {
		dprintf(fd, "write %d %s\n", errno, strerror(errno));
		if (f >= 0)
			unlink(path);
		_exit(1);
	}
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    read(f, back, sizeof(back)) != (ssize_t)sizeof(back) ||
	    memcmp(buf, back, sizeof(buf))) {
		dprintf(fd, "read %d %s\n", errno, errno ? strerror(errno) : "read back differs");
		unlink(path);
		_exit(1);
	}
	close(f);
	if (unlink(path) < 0) {
		dprintf(fd, "unlink %d %s\n", errno, strerror(errno));
		_exit(1);
	}
	snprintf(dir, sizeof(dir), "%s/.postmortem-doctor.XXXXXX", d->store);
	snprintf(res, sizeof(res), "ok acl\n");
	if (mkdtemp(dir)) {
		struct passwd *nobody = getpwnam("nobody");
		char text[128];
		acl_t acl;
		snprintf(text, sizeof(text), "u::rwx,g::r-x,o::---,u:%u:r-x,m::r-x",
			 nobody ? (unsigned)nobody->pw_uid : 65534u);
		if ((acl = acl_from_text(text))) {
			if (acl_set_file(dir, ACL_TYPE_ACCESS, acl) < 0)
				snprintf(res, sizeof(res), "ok noacl %s\n", strerror(errno));
			acl_free(acl);
		}
		rmdir(dir);
	}
	dprintf(fd, "%s", res);
	_exit(0);
}

void check_store_write(struct doctor *d)
{
	char out[512] = "", what[16] = "", why[256] = "";
	int status = 0, e = 0;

	if (!d->store_ok)
		return;
	if (geteuid() != 0) {
		doc_say(d, ST_UNKNOWN, "store-write", NULL,
			"not root: run doctor as root to test that the collector can write %s",
			d->store);
		return;
	}
	if (doc_in_child(d, 30, store_write_test, out, sizeof(out), &status) < 0)
		return;
	out[strcspn(out, "\n")] = '\0';
	if (!strncmp(out, "ok ", 3)) {
		const char *as = d->cfg.service_user ? d->cfg.service_user : "root";
		doc_say(d, ST_OK, "store-write", NULL,
			"%s can create, write, sync, read back and remove a file in %s", as,
			d->store);
		if (!strncmp(out + 3, "noacl", 5))
			doc_say(d, ST_NOTE, "store-write", NULL,
				"%s has no POSIX ACLs (%s): job owners cannot read their own evidence; "
				"they ask the operators (group %s), who can `postmortem fetch` it",
				d->store, out + 9,
				d->cfg.operators_group ? d->cfg.operators_group : "-");
		return;
	}
	if (sscanf(out, "%15s %d %255[^\n]", what, &e, why) >= 2 && (e == EACCES || e == EPERM))
		doc_say(d, ST_FAIL, "store-write",
			"on NFS with root_squash, set service_user: in the collector's configuration to "
			"an account that owns the store; otherwise fix the store's ownership",
			"%s cannot %s in %s: %s",
			d->cfg.service_user ? d->cfg.service_user : "root", what, d->store, why);
	else
		doc_say(d, ST_FAIL, "store-write", "check the filesystem (full? read-only? quota?)",
			"the collector could not write %s: %s", d->store,
			out[0]		    ? out :
			WIFSIGNALED(status) ? "the test timed out" :
					      "?");
}

/* ---- 14. existing evidence: permissions ---- */

struct perms {
	gid_t ops;
	bool have_ops;
	size_t seen, world, wrong_group, no_acl;
	char example[PATH_MAX];
};

static int perms_one(const char *dir, void *arg)
{
	struct perms *p = arg;
	struct stat st;

	if (p->seen >= PERMS_SAMPLE)
		return 1;
	if (stat(dir, &st) < 0)
		return 0;
	p->seen++;
	if (st.st_mode & 007) {
		if (!p->world++)
			snprintf(p->example, sizeof(p->example), "%s", dir);
	}
	if (p->have_ops && st.st_gid != p->ops)
		p->wrong_group++;
	acl_t acl = acl_get_file(dir, ACL_TYPE_ACCESS);
	bool user = false;
	if (acl) {
		acl_entry_t e;
		acl_tag_t tag;
		for (int r = acl_get_entry(acl, ACL_FIRST_ENTRY, &e); r == 1;
		     r = acl_get_entry(acl, ACL_NEXT_ENTRY, &e))
			if (acl_get_tag_type(e, &tag) == 0 && tag == ACL_USER)
				user = true;
		acl_free(acl);
	}
	if (!user)
		p->no_acl++;
	return 0;
}

void check_evidence(struct doctor *d)
{
	struct perms p = {0};
	struct group *g = d->cfg.operators_group ? getgrnam(d->cfg.operators_group) : NULL;
	char err[512];

	if (!d->store_ok)
		return;
	if (g) {
		p.ops = g->gr_gid;
		p.have_ops = true;
	}
	if (pm_store_walk(d->store, perms_one, &p, err, sizeof(err)) < 0) {
		doc_say(d, ST_UNKNOWN, "evidence", NULL, "cannot list %s: %s", d->store, err);
		return;
	}
	if (!p.seen) {
		doc_say(d, ST_NOTE, "evidence", NULL, "no job evidence in %s yet", d->store);
		return;
	}
	if (p.world)
		doc_say(d, ST_FAIL, "evidence",
			doc_fixf("chmod -R o-rwx %s/*/* (the collector creates them 0750)",
				 d->store),
			"%zu of %zu job folders are open to every user (e.g. %s): evidence holds job "
			"output and logs",
			p.world, p.seen, p.example);
	else if (p.wrong_group)
		doc_say(d, ST_WARN, "evidence",
			doc_fixf("chgrp -R %s the job folders under %s", d->cfg.operators_group,
				 d->store),
			"%zu of %zu job folders do not belong to the operators' group %s: operators "
			"cannot read them",
			p.wrong_group, p.seen, d->cfg.operators_group);
	else
		doc_say(d, ST_OK, "evidence", NULL,
			"%zu job folder%s checked: closed to other users%s%s", p.seen,
			p.seen == 1 ? "" : "s", p.have_ops ? ", group " : "",
			p.have_ops ? d->cfg.operators_group : "");
	if (p.no_acl && !p.world)
		doc_say(d, ST_NOTE, "evidence", NULL,
			"%zu of %zu job folders have no ACL entry for their owner: those owners read "
			"through the operators",
			p.no_acl, p.seen);
}

/* ---- 15. the operators' group ---- */

void check_group(struct doctor *d)
{
	const char *g = d->cfg.operators_group;

	if (!g || !*g) {
		doc_say(d, ST_NOTE, "operators", NULL,
			"no operators_group: only root and each job's owner can read its evidence");
		return;
	}
	if (!getgrnam(g))
		doc_say(d, ST_FAIL, "operators",
			doc_fixf("create the group on every node (groupadd %s, or in the directory "
				 "service), or set operators_group: to an existing one",
				 g),
			"the operators' group %s does not exist here: the store's folders get the "
			"collector's own group and no operator can read them",
			g);
	else
		doc_say(d, ST_OK, "operators", NULL, "group %s exists", g);
}

/* The decision ledger: the operators' group can append to it (or create it), and its head
 * file, the tamper evidence kept outside the ledger, is root's alone. */
void check_ledger(struct doctor *d)
{
	const char *g = d->cfg.operators_group;
	struct group *gr = g && *g ? getgrnam(g) : NULL;
	char l[PATH_MAX], h[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;

	if (!d->store_ok || !gr) {
		doc_say(d, ST_SKIP, "ledger", NULL,
			!d->store_ok ? "no reachable store: the decision ledger not checked" :
				       "no operators' group: the decision ledger not checked");
		return;
	}
	snprintf(l, sizeof(l), "%s", d->cfg.ledger ? d->cfg.ledger : "");
	if (!d->cfg.ledger)
		snprintf(l, sizeof(l), "%s/ledger.jsonl", d->store);
	snprintf(h, sizeof(h), "%s", d->cfg.ledger_head ? d->cfg.ledger_head : "");
	if (!d->cfg.ledger_head)
		snprintf(h, sizeof(h), "%s/ledger.head", d->store);
	if (lstat(h, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)))
		doc_say(d, ST_FAIL, "ledger-head",
			doc_fixf("as root: chown root:root %s; chmod 0644 %s; then `postmortem ledger "
				 "verify --log` against syslog's heads",
				 h, h),
			"%s is not root's alone (uid %u, mode %04o): whoever can write it can hide a "
			"rewritten ledger",
			h, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	if (lstat(l, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			doc_say(d, ST_FAIL, "ledger",
				doc_fixf("remove it; as root: postmortem ledger init"),
				"%s is not a regular file", l);
		else if (st.st_gid != gr->gr_gid || (st.st_mode & 0060) != 0060)
			doc_say(d, ST_WARN, "ledger", "as root, once: postmortem ledger init",
				"%s (group %u, mode %04o): the operators' group %s cannot append: an "
				"operator's `ledger propose` is refused",
				l, (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777), g);
		else
			doc_say(d, ST_OK, "ledger", NULL,
				"%s: group %s, mode %04o: operators append, the head file is root's",
				l, g, (unsigned)(st.st_mode & 07777));
		return;
	}
	snprintf(dir, sizeof(dir), "%s", l);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) == 0 && st.st_gid == gr->gr_gid && (st.st_mode & 0030) == 0030)
		doc_say(d, ST_OK, "ledger", NULL,
			"%s does not exist yet: the operators' group %s creates it (%s is "
			"group-writable)",
			l, g, dir);
	else
		doc_say(d, ST_WARN, "ledger", "as root, once: postmortem ledger init",
			"%s does not exist and the operators' group %s cannot create it in %s: an "
			"operator's `ledger propose` is refused",
			l, g, dir);
}

/* The folder node_exporter's textfile collector reads, from Debian's defaults file (ARGS);
 * "" when it does not say. */
static void exporter_dir(char *out, size_t len)
{
	char line[4096], *p, *e;
	FILE *f = fopen("/etc/default/prometheus-node-exporter", "re");

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !(p = strstr(line, "--collector.textfile.directory")))
			continue;
		p += strlen("--collector.textfile.directory");
		if (*p != '=' && *p != ' ')
			continue;
		p += strspn(p, "= ");
		e = p + strcspn(p, " \"'\n");
		snprintf(out, len, "%.*s", (int)(e - p), p);
	}
	if (f)
		fclose(f);
}

/* The Prometheus metrics the finalize timer writes (metrics_textfile:): a *.prom file in a
 * folder the node exporter reads, written within the last three timer periods. */
void check_metrics(struct doctor *d)
{
	const char *f = d->cfg.metrics_textfile;
	const char *fix = "on the one host that runs it: systemctl enable --now "
			  "postmortem-finalize.timer; journalctl -u postmortem-finalize says why a "
			  "run failed";
	char dir[PATH_MAX], ne[PATH_MAX], out[512], *slash;
	bool known = false, here = false, down = false;
	struct stat st;
	double age;
	FILE *mf;

	if (!d->cfg_ok)
		return;
	if (!f || !*f) {
		doc_say(d, ST_NOTE, "metrics", NULL,
			"no metrics_textfile: the finalize timer writes no Prometheus metrics (set it "
			"on the host that runs the timer, in node_exporter's textfile folder, e.g. "
			"/var/lib/prometheus/node-exporter/postmortem.prom; `postmortem metrics` "
			"prints them)");
		return;
	}
	if (strlen(f) < 6 || strcmp(f + strlen(f) - 5, ".prom"))
		doc_say(d, ST_WARN, "metrics", "name it *.prom, e.g. postmortem.prom",
			"metrics_textfile %s: node_exporter's textfile collector reads *.prom files "
			"only",
			f);
	snprintf(dir, sizeof(dir), "%s", f);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		doc_say(d, ST_WARN, "metrics",
			"install prometheus-node-exporter (its textfile folder is "
			"/var/lib/prometheus/node-exporter), or point metrics_textfile: at its "
			"--collector.textfile.directory",
			"metrics_textfile %s: no folder %s here: the finalize timer cannot write the "
			"metrics on this host",
			f, dir);
		return;
	}
	exporter_dir(ne, sizeof(ne));
	if (ne[0] && strcmp(ne, dir))
		doc_say(d, ST_WARN, "metrics",
			doc_fixf("move metrics_textfile: into %s, or the exporter's folder to %s",
				 ne, dir),
			"node_exporter reads %s (/etc/default/prometheus-node-exporter), not %s: the "
			"metrics are never scraped",
			ne, dir);
	if (!d->offline && access("/run/systemd/system", F_OK) == 0) {
		const char *argv[] = {"systemctl", "is-enabled", "postmortem-finalize.timer", NULL};
		known = true;
		here = doc_run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0;
	}
	if (stat(f, &st) < 0) {
		if (known && !here)
			doc_say(d, ST_NOTE, "metrics-timer", NULL,
				"%s is not written on this host: postmortem-finalize.timer is not enabled "
				"here (it runs on one host that mounts the store: run doctor there)",
				f);
		else
			doc_say(d, ST_WARN, "metrics-timer", fix,
				"%s has never been written: the finalize timer does not run%s or cannot "
				"write it",
				f, known ? "" : " here");
		return;
	}
	age = (double)time(NULL) - (double)st.st_mtime;
	if (age > 3 * 300 + 60)
		doc_say(d, ST_WARN, "metrics-timer", fix,
			"%s was last written %.0f min ago%s (the finalize timer writes it every 5 "
			"minutes): Prometheus keeps scraping stale values",
			f, age / 60,
			known && !here ? ", and postmortem-finalize.timer is not enabled here" :
					 "");
	else
		doc_say(d, ST_OK, "metrics-timer", NULL,
			"%s written %.0f s ago by the finalize timer%s", f, age < 0 ? 0 : age,
			known ? (here ? " (postmortem-finalize.timer enabled)" : "") : "");
	if ((mf = fopen(f, "re"))) {
		while (fgets(out, sizeof(out), mf))
			down = down || !strcmp(out, "postmortem_store_up 0\n");
		fclose(mf);
	}
	if (down)
		doc_say(d, ST_WARN, "metrics",
			"look at the finalize timer's journal (journalctl -u postmortem-finalize)",
			"%s says the finalize timer could not read the store (postmortem_store_up 0)",
			f);
}
