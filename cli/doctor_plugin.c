/*
 * doctor_plugin.c - doctor's checks of the plugin: its plugstack.conf line (3), its
 * arguments (4), its file read as ELF (5) and whether it loads (6).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"

/* ---- 3. plugstack.conf ---- */

static bool is_ours(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strcmp(b, "postmortem.so") || (!strncmp(b, "postmortem", 10) && strlen(b) > 3 &&
					       !strcmp(b + strlen(b) - 3, ".so"));
}

static void plugstack_path(const struct doctor *d, char *buf, size_t len)
{
	const char *p = doc_conf_get(d, "PlugStackConfig", NULL);
	char *slash;

	if (p) {
		snprintf(buf, len, "%s", p);
		return;
	}
	snprintf(buf, len, "%s", d->conf[0] ? d->conf : "/etc/slurm/slurm.conf");
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0),
		 "plugstack.conf");
}

void check_plugstack(struct doctor *d)
{
	char path[PATH_MAX], err[1024], why[PATH_MAX + 100], dir[PATH_MAX];
	const char *epilog = doc_conf_get(d, "Epilog", NULL);
	size_t n = 0;

	d->epilog_route = epilog && strstr(epilog, "postmortem-epilog");
	plugstack_path(d, path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (dc_plugstack_load(path, &d->ps, err, sizeof(err)) < 0) {
		if (errno == ENOENT && !d->epilog_route)
			doc_say(d, ST_FAIL, "plugstack",
				doc_fixf("create %s with the line `include %s/plugstack.conf.d/*.conf` and "
					 "put `optional %s/postmortem.so store=/shared/postmortem` in "
					 "%s/plugstack.conf.d/postmortem.conf; restart slurmd",
					 path, dir, PM_SLURM_PLUGINDIR, dir),
				"%s does not exist: postmortem.so is not loaded, nothing is recorded or "
				"collected",
				path);
		else if (errno == ENOENT)
			doc_say(d, ST_WARN, "plugstack",
				doc_fixf("add `optional %s/postmortem.so` to %s for rank maps and task exits",
					 PM_SLURM_PLUGINDIR, path),
				"%s does not exist; the collector runs from Epilog=%s, without the "
				"plugin's rank map and task exit records",
				path, epilog);
		else
			doc_say(d, ST_UNKNOWN, "plugstack", NULL,
				"cannot read the plugin stack: %s", err);
		return;
	}
	d->have_ps = true;
	for (size_t i = 0; i < d->ps.bad.n; i++)
		doc_say(d, ST_FAIL, "plugstack", "correct or remove the line", "%s",
			d->ps.bad.v[i]);
	for (size_t i = 0; i < d->ps.files.n; i++)
		if (doc_unsafe_file(d->ps.files.v[i], why, sizeof(why)))
			doc_say(d, ST_FAIL, "plugstack",
				doc_fixf("chown root:root %s; chmod 644 %s", d->ps.files.v[i],
					 d->ps.files.v[i]),
				"%s: whoever can write it loads code into slurmstepd as root", why);
	for (size_t i = 0; i < d->ps.n; i++) {
		if (!is_ours(d->ps.v[i].path))
			continue;
		if (!n++)
			d->pm = &d->ps.v[i];
	}
	if (n > 1) {
		char list[2048] = "";
		size_t l = 0;
		for (size_t i = 0; i < d->ps.n; i++)
			if (is_ours(d->ps.v[i].path) && l < sizeof(list))
				l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s:%d",
						      l ? ", " : "", d->ps.v[i].file,
						      d->ps.v[i].line);
		doc_say(d, ST_FAIL, "plugstack",
			"keep one line and remove the others; restart slurmd",
			"postmortem.so is listed %zu times (%s): Slurm loads it more than once and "
			"every job's evidence is recorded twice",
			n, list);
		return;
	}
	if (!d->pm) {
		char files[2048] = "";
		size_t l = 0;
		for (size_t i = 0; i < d->ps.files.n && l < sizeof(files); i++)
			l += (size_t)snprintf(files + l, sizeof(files) - l, "%s%s", i ? ", " : "",
					      d->ps.files.v[i]);
		if (d->epilog_route)
			doc_say(d, ST_WARN, "plugstack",
				doc_fixf("add `optional %s/postmortem.so` to the plugin stack for rank maps "
					 "and task exits",
					 PM_SLURM_PLUGINDIR),
				"postmortem.so is not in the plugin stack (%s); the collector runs from "
				"Epilog=%s without the plugin's rank map and task exits",
				files, epilog);
		else
			doc_say(d, ST_FAIL, "plugstack",
				doc_fixf("put `optional %s/postmortem.so store=/shared/postmortem` in "
					 "%s/plugstack.conf.d/postmortem.conf (included by %s) and restart "
					 "slurmd",
					 PM_SLURM_PLUGINDIR, dir, path),
				"postmortem.so is not in the plugin stack (read: %s): nothing is "
				"recorded or collected",
				files);
		return;
	}
	if (!strcmp(d->pm->mode, "required"))
		doc_say(d, ST_WARN, "plugstack",
			doc_fixf("write `optional` instead of `required` at %s:%d", d->pm->file,
				 d->pm->line),
			"%s:%d loads it as required: if the file is missing or unloadable (an upgrade, "
			"a bad mount) every job fails; the plugin itself never fails a job",
			d->pm->file, d->pm->line);
	else
		doc_say(d, ST_OK, "plugstack", NULL, "postmortem.so is enabled at %s:%d (%s %s)",
			d->pm->file, d->pm->line, d->pm->mode, d->pm->path);
}

/* ---- 4. the plugin's arguments ---- */

void check_args(struct doctor *d)
{
	char err[512], t[32], r[32];
	int rc;

	if (!d->pm) {
		pm_args_parse(&d->args, 0, NULL, err, sizeof(err));
		return;
	}
	rc = pm_args_parse(&d->args, (int)d->pm->args.n, d->pm->args.v, err, sizeof(err));
	if (rc < 0) {
		doc_say(d, ST_FAIL, "plugin-args",
			doc_fixf("correct the argument at %s:%d (man postmortem.so) and restart slurmd",
				 d->pm->file, d->pm->line),
			"%s:%d: %s: the plugin loads but stays inactive (nothing recorded, no "
			"collector)",
			d->pm->file, d->pm->line, err);
		pm_args_parse(&d->args, 0, NULL, err, sizeof(err));
		return;
	}
	d->args_ok = true;
	doc_say(d, ST_OK, "plugin-args", NULL,
		"store=%s spool=%s timeout=%s retain=%s collector=%s%s%s",
		d->args.store[0] ? d->args.store : "(from the collector's configuration)",
		d->args.spool, doc_secs((double)d->args.timeout_ms / 1000, t, sizeof(t)),
		doc_secs((double)d->args.retain_ms / 1000, r, sizeof(r)), d->args.collector,
		d->args.config[0] ? " config=" : "", d->args.config);
}

/* ---- 5. the plugin file ---- */

static bool resolve_plugin(const struct doctor *d, const char *path, char *out, size_t len)
{
	const char *dirs = doc_conf_get(d, "PluginDir", NULL);
	char *copy, *save = NULL;

	if (path[0] == '/') {
		snprintf(out, len, "%s", path);
		return access(out, F_OK) == 0;
	}
	copy = strdup(dirs ? dirs : PM_SLURM_PLUGINDIR);
	for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t;
	     t = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", t, path);
		if (access(out, F_OK) == 0) {
			free(copy);
			return true;
		}
	}
	free(copy);
	snprintf(out, len, "%s/%s", dirs ? dirs : PM_SLURM_PLUGINDIR, path);
	return false;
}

static const char *machine_name(int m)
{
	switch (m) {
	case EM_X86_64:
		return "x86-64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "aarch64";
	case EM_PPC64:
		return "ppc64";
	case EM_ARM:
		return "arm";
	case EM_RISCV:
		return "riscv";
	case EM_S390:
		return "s390";
	default:
		return "another machine";
	}
}

void check_plugin_file(struct doctor *d)
{
	static const char *const need[] = {"plugin_name",
					   "plugin_type",
					   "plugin_version",
					   "slurm_spank_init",
					   "slurm_spank_task_post_fork",
					   "slurm_spank_task_exit",
					   "slurm_spank_job_epilog",
					   NULL};
	char err[PATH_MAX + 100], why[PATH_MAX + 100], missing[512] = "", libs[512] = "";
	struct dc_elf e;
	struct stat st;
	size_t l = 0;

	if (!d->pm)
		return;
	if (!resolve_plugin(d, d->pm->path, d->so, sizeof(d->so))) {
		doc_say(d, ST_FAIL, "plugin-file",
			doc_fixf("install the package that provides it, or correct the path at %s:%d",
				 d->pm->file, d->pm->line),
			"%s does not exist: %s", d->so,
			strcmp(d->pm->mode, "required") ?
				"Slurm logs an error and runs jobs without "
				"postmortem" :
				"with `required`, every job fails to start");
		return;
	}
	if (stat(d->so, &st) < 0 || !S_ISREG(st.st_mode)) {
		doc_say(d, ST_FAIL, "plugin-file", "point the plugstack line at the installed .so",
			"%s is not a regular file", d->so);
		return;
	}
	if (doc_unsafe_file(d->so, why, sizeof(why))) {
		doc_say(d, ST_FAIL, "plugin-file",
			doc_fixf("chown root:root %s; chmod 755 %s", d->so, d->so),
			"%s: it runs as root inside slurmstepd and slurmd", why);
		return;
	}
	if (dc_elf_read(d->so, &e, err, sizeof(err)) < 0) {
		doc_say(d, ST_FAIL, "plugin-file",
			"reinstall the package (or rebuild and install it)", "%s", err);
		return;
	}
	if (e.type != ET_DYN || !e.same_abi) {
		doc_say(d, ST_FAIL, "plugin-file", "install the package built for this machine",
			"%s is %s for %s (%d-bit%s), this host runs %d-bit %s", d->so,
			e.type == ET_DYN ? "a shared object" : "not a shared object",
			machine_name(e.machine), e.elfclass == ELFCLASS64 ? 64 : 32,
			e.data == ELFDATA2MSB ? ", big-endian" : "", (int)sizeof(void *) * 8,
			machine_name(e.host_machine));
		dc_elf_free(&e);
		return;
	}
	if (!e.has_sections) {
		doc_say(d, ST_WARN, "plugin-file",
			"install the packaged file, which keeps its symbols",
			"%s has no section table: its entry points cannot be checked", d->so);
		d->so_ok = true;
		dc_elf_free(&e);
		return;
	}
	for (int i = 0; need[i]; i++)
		if (!dc_strv_has(&e.defined, need[i]) && l < sizeof(missing))
			l += (size_t)snprintf(missing + l, sizeof(missing) - l, "%s%s",
					      l ? " " : "", need[i]);
	if (missing[0] || strcmp(e.plugin_type, "spank")) {
		doc_say(d, ST_FAIL, "plugin-file",
			"install postmortem's own postmortem.so (the package, or `make install`)",
			"%s is not a postmortem SPANK plugin: %s%s%s", d->so,
			missing[0] ? "it does not export " : "", missing,
			missing[0] ? "" : "its plugin_type is not \"spank\"");
		dc_elf_free(&e);
		return;
	}
	l = 0;
	for (size_t i = 0; i < e.needed.n && l < sizeof(libs); i++)
		if (strncmp(e.needed.v[i], "libc.so", 7))
			l += (size_t)snprintf(libs + l, sizeof(libs) - l, "%s%s", l ? " " : "",
					      e.needed.v[i]);
	d->so_ok = true;
	int maj = (int)((e.plugin_version >> 16) & 0xff),
	    min = (int)((e.plugin_version >> 8) & 0xff);
	int smaj = -1, smin = -1;
	if (d->slurm_version[0])
		sscanf(d->slurm_version, "%d.%d", &smaj, &smin);
	if (e.plugin_version >= 0 && smaj >= 0 && (maj != smaj || min != smin))
		doc_say(d, ST_WARN, "plugin-file",
			doc_fixf("rebuild postmortem against Slurm %d.%02d's spank.h (libslurm-dev / "
				 "slurm-devel) and reinstall it",
				 smaj, smin),
			"%s was built against Slurm %d.%02d, this is Slurm %s: Slurm does not "
			"version-check SPANK plugins, but the SPANK interface may differ",
			d->so, maj, min, d->slurm_version);
	else
		doc_say(d, ST_OK, "plugin-file", NULL,
			"%s: a %s shared object, plugin %s (spank), exports %zu entry points, built "
			"for Slurm %d.%02d%s%s%s",
			d->so, machine_name(e.machine), e.plugin_name[0] ? e.plugin_name : "?",
			e.defined.n, maj, min, libs[0] ? "; also needs " : "", libs,
			e.bind_now ? "; linked with -z now" : "");
	dc_elf_free(&e);
}

/* ---- 6. does it load? ---- */

/* In the child: dlopen the plugin and find its epilog; why not into FD. */
static void load_test(const struct doctor *d, int fd)
{
	void *h = dlopen(d->so, RTLD_LAZY | RTLD_LOCAL);
	const char *e = NULL;

	if (!h)
		e = dlerror();
	else if (!dlsym(h, "slurm_spank_job_epilog"))
		e = "slurm_spank_job_epilog not found by dlsym";
	if (e) {
		if (write(fd, e, strlen(e)) < 0)
			_exit(2);
		_exit(1);
	}
	_exit(0);
}

void check_plugin_load(struct doctor *d)
{
	char msg[1024] = "";
	int status = 0;

	if (!d->pm || !d->so_ok || doc_in_child(d, 10, load_test, msg, sizeof(msg), &status) < 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		doc_say(d, ST_OK, "plugin-load", NULL,
			"dlopen(RTLD_LAZY) loads it; spank_* are bound when Slurm's processes load it");
	else if (strstr(msg, "undefined symbol: spank_") || strstr(msg, "undefined symbol: slurm_"))
		doc_say(d, ST_OK, "plugin-load", NULL,
			"its libraries load; it binds Slurm's spank_* functions at load time (%s), "
			"which only Slurm's processes provide",
			msg);
	else
		doc_say(d, ST_FAIL, "plugin-load",
			"install the libraries it names (ldd on the file), or reinstall the package",
			"%s does not load: %s", d->so,
			msg[0]		    ? msg :
			WIFSIGNALED(status) ? "it crashed the loading process" :
					      "?");
}
