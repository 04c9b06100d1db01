/*
 * jobdir.c - the job run folder: small file helpers shared by the finalizer, finding a job
 * run in the store, reading its manifest, and copying it out with its checksums verified.
 *
 * Every file is written whole to a temporary name and renamed into place: readers on other
 * nodes (NFS) see the old file or the new one, never half of either.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "finalize_int.h"
#include "pmutil.h"
#include "postmortem.h"

#define BUNDLE_MANIFEST_MAX (16u << 20) /* bytes of a bundle's manifest.json */

double pm_fin_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double pm_fin_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void pm_fin_nap(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int pm_fin_read(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t got = 0;
	char *b;
	int e;

	*buf = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		e = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : EFBIG;
		close(fd);
		errno = e;
		return -1;
	}
	if (!(b = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, b + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	e = errno;
	close(fd);
	if (got != (size_t)st.st_size) {
		free(b);
		errno = e ? e : EIO;
		return -1;
	}
	b[got] = '\0';
	*buf = b;
	if (len)
		*len = got;
	return 0;
}

int pm_fin_write(const char *dir, const char *name, const void *buf, size_t len)
{
	char tmp[4096], dst[4096], host[64] = "";
	int fd, e;

	gethostname(host, sizeof(host) - 1);
	if ((size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >= sizeof(dst) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.%s.%ld", dir, name, host, (long)getpid()) >=
		    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0640) < 0 || pmu_write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, dst) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* Copy FD's content to OUTFD, its sha256 into OUT. */
static int sha_copy(int fd, int outfd, char *out)
{
	static char blk[1 << 16];
	struct pm_sha256 c;
	unsigned char d[32];
	ssize_t n;

	pm_sha256_init(&c);
	for (;;) {
		n = read(fd, blk, sizeof(blk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (n > 0 && pmu_write_all(outfd, blk, (size_t)n) < 0)) {
			pm_sha256_final(&c, d);
			return -1;
		}
		if (n == 0)
			break;
		pm_sha256_update(&c, blk, (size_t)n);
	}
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, out);
	return 0;
}

/* "<digits>" and "~<generation>" (2 and up, no leading 0) at the end of S, N bytes. */
static bool gen_suffix(const char *s, size_t n, size_t *at, int *gen)
{
	const char *t = memchr(s, PM_RUN_SEP, n);
	size_t k;
	long g = 0;

	if (!t) {
		*at = n;
		*gen = 1;
		return true;
	}
	k = (size_t)(t - s) + 1;
	if (k == n || s[k] == '0' || n - k > 6)
		return false;
	for (size_t i = k; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		g = g * 10 + (s[i] - '0');
	}
	if (g < 2)
		return false;
	*at = k - 1;
	*gen = (int)g;
	return true;
}

bool pm_fin_jobid_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0, at;
	int gen;

	if (n == 0 || n > 63 || s[0] < '0' || s[0] > '9' || !gen_suffix(s, n, &at, &gen))
		return false;
	for (size_t i = 0; i < at; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '+'))
			return false;
	return true;
}

int pm_fin_jobid_split(const char *key, char *id, size_t idlen)
{
	size_t n = strlen(key), at;
	int gen;

	if (!pm_fin_jobid_ok(key) || !gen_suffix(key, n, &at, &gen) || at >= idlen) {
		errno = EINVAL;
		return -1;
	}
	memmove(id, key, at); /* ID may be KEY */
	id[at] = '\0';
	return gen;
}

void pm_jobdir_run_name(const char *id, int gen, char *out, size_t len)
{
	if (gen > 1)
		snprintf(out, len, "%s%c%d", id, PM_RUN_SEP, gen);
	else
		snprintf(out, len, "%s", id);
}

int pm_jobdir_runs(const char *cldir, const char *id, int *gens, int max)
{
	char p[4096], name[96];
	struct stat st;
	int n = 0, miss = 0;

	for (int g = 1; g <= PM_RUN_MAX && miss < PM_RUN_GAP; g++) {
		pm_jobdir_run_name(id, g, name, sizeof(name));
		snprintf(p, sizeof(p), "%s/%s", cldir, name);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			miss++;
			continue;
		}
		miss = 0;
		if (n == max) /* the latest MAX are kept */
			memmove(gens, gens + 1, (size_t)(max - 1) * sizeof(*gens)), n--;
		gens[n++] = g;
	}
	return n;
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 63 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] <= ' ' || s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

int pm_fin_key(const char *jobdir, char *cluster, char *job, char *restart, size_t each)
{
	const char *end = jobdir + strlen(jobdir), *seg[3];
	size_t len[3];

	while (end > jobdir && end[-1] == '/')
		end--;
	for (int i = 2; i >= 0; i--) {
		const char *p = end;
		while (p > jobdir && p[-1] != '/')
			p--;
		seg[i] = p;
		len[i] = (size_t)(end - p);
		if (!name_ok(p, len[i]) || len[i] >= each) {
			errno = EINVAL;
			return -1;
		}
		end = p;
		while (end > jobdir && end[-1] == '/')
			end--;
	}
	memcpy(cluster, seg[0], len[0]);
	cluster[len[0]] = '\0';
	memcpy(job, seg[1], len[1]);
	job[len[1]] = '\0';
	memcpy(restart, seg[2], len[2]);
	restart[len[2]] = '\0';
	if (!pm_fin_jobid_ok(job) || strspn(restart, "0123456789") != len[2]) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* ---- finding a job run ---- */

static int refused(char *err, size_t errlen, const char *path, int e)
{
	return pmu_fail(err, errlen, e, "%s: %s%s", path, strerror(e),
			e == EACCES ? " (the store's permissions refuse it to you)" : "");
}

static int latest_restart(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long best = -1;

	if (!d)
		return refused(err, errlen, dir, errno);
	while ((de = readdir(d))) {
		char *end;
		long r;

		if (!de->d_name[0] || strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		r = strtol(de->d_name, &end, 10);
		if (r > best && r < 1000000)
			best = r;
	}
	closedir(d);
	if (best < 0)
		return pmu_fail(err, errlen, ENOENT, "%s: no run of this job", dir);
	return (int)best;
}

static int find_cluster(const char *store, const char *id, char *cluster, size_t clen, char *err,
			size_t errlen)
{
	DIR *d = opendir(store);
	struct dirent *de;
	char p[4096], found[2][256];
	size_t n = 0;
	int g;

	if (!d)
		return refused(err, errlen, store, errno);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(found[0]))
			continue;
		snprintf(p, sizeof(p), "%s/%s", store, de->d_name);
		if (pm_jobdir_runs(p, id, &g, 1) == 0)
			continue;
		if (n < 2)
			snprintf(found[n], sizeof(found[n]), "%s", de->d_name);
		n++;
	}
	closedir(d);
	if (n == 0)
		return pmu_fail(err, errlen, ENOENT, "no evidence for job %s in %s", id, store);
	if (n > 1)
		return pmu_fail(err, errlen, EEXIST,
				"job %s exists on several clusters (%s, %s%s):"
				" name one with --cluster",
				id, found[0], found[1], n > 2 ? ", ..." : "");
	snprintf(cluster, clen, "%s", found[0]);
	return 0;
}

/* ERR of a run of a reused job id that the caller may not read: which others there are. */
static void reused_hint(const char *cldir, const char *id, int gen, char *err, size_t errlen)
{
	int gens[8], n = pm_jobdir_runs(cldir, id, gens, 8);
	size_t l = strlen(err);
	char name[96];

	if (n < 2 || l + 1 >= errlen)
		return;
	snprintf(err + l, errlen - l,
		 "; job id %s was given to several jobs: this is the latest's, the earlier are",
		 id);
	for (int i = 0; i < n; i++) {
		if (gens[i] == gen)
			continue;
		snprintf(name, sizeof(name), "%s%c%d", id, PM_RUN_SEP, gens[i]);
		l = strlen(err);
		snprintf(err + l, errlen - l, " %s", name);
	}
}

int pm_jobdir_find(const char *store, const char *job, const char *cluster, int restart, char *out,
		   size_t outlen, char *err, size_t errlen)
{
	char cl[256], dir[4096], id[64], name[96];
	struct stat st;
	int gen, gens[PM_RUN_GAP], n;

	char given[96];
	size_t gl = job ? strlen(job) : 0;
	/* <id>~1 names the first run, the folder <id> */
	bool latest = job && !memchr(job, PM_RUN_SEP, gl);

	snprintf(given, sizeof(given), "%s", job ? job : "");
	if (gl > 2 && gl < sizeof(given) && given[gl - 2] == PM_RUN_SEP && given[gl - 1] == '1')
		given[gl - 2] = '\0';
	if ((gen = pm_fin_jobid_split(given, id, sizeof(id))) < 0)
		return pmu_fail(err, errlen, EINVAL, "'%s' is not a job id", job ? job : "");
	if (cluster && !name_ok(cluster, strlen(cluster)))
		return pmu_fail(err, errlen, EINVAL, "'%s' is not a cluster name", cluster);
	if (cluster)
		snprintf(cl, sizeof(cl), "%s", cluster);
	else if (find_cluster(store, id, cl, sizeof(cl), err, errlen) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/%s", store, cl);
	/* a bare job id is its latest run: a reused id's later runs are <id>~2, <id>~3, ... */
	if (latest && (n = pm_jobdir_runs(dir, id, gens, PM_RUN_GAP)) > 0)
		gen = gens[n - 1];
	pm_jobdir_run_name(id, gen, name, sizeof(name));
	snprintf(dir, sizeof(dir), "%s/%s/%s", store, cl, name);
	if (stat(dir, &st) < 0)
		return errno == ENOENT ? pmu_fail(err, errlen, ENOENT,
						  "no evidence for job %s "
						  "on cluster %s in %s",
						  job, cl, store) :
					 refused(err, errlen, dir, errno);
	if (restart < 0 && (restart = latest_restart(dir, err, errlen)) < 0) {
		if (errno == EACCES && latest) {
			int e = errno;
			char cldir[4096];
			snprintf(cldir, sizeof(cldir), "%s/%s", store, cl);
			reused_hint(cldir, id, gen, err, errlen);
			errno = e;
		}
		return -1;
	}
	if ((size_t)snprintf(out, outlen, "%s/%d", dir, restart) >= outlen)
		return pmu_fail(err, errlen, ENAMETOOLONG, "%s: path too long", dir);
	if (stat(out, &st) < 0)
		return errno == ENOENT ? pmu_fail(err, errlen, ENOENT, "no run %d of job %s in %s",
						  restart, job, dir) :
					 refused(err, errlen, out, errno);
	return 0;
}

json_t *pm_manifest_load(const char *jobdir, char *err, size_t errlen)
{
	char p[4096], *buf;
	size_t len;
	json_error_t je;
	json_t *m;

	snprintf(p, sizeof(p), "%s/manifest.json", jobdir);
	if (pm_fin_read(p, 64u << 20, &buf, &len) < 0) {
		int e = errno;
		if (e == ENOENT)
			pmu_fail(err, errlen, e, "%s: no manifest yet (no merge has written one)",
				 jobdir);
		else
			refused(err, errlen, p, e);
		return NULL;
	}
	m = json_loadb(buf, len, 0, &je);
	free(buf);
	if (!json_is_object(m) || !json_is_string(json_object_get(m, "schema")) ||
	    strcmp(json_string_value(json_object_get(m, "schema")), PM_MANIFEST_SCHEMA)) {
		json_decref(m);
		pmu_fail(err, errlen, EINVAL, "%s: not a %s file", p, PM_MANIFEST_SCHEMA);
		return NULL;
	}
	return m;
}

int pm_jobdir_read(const char *jobdir, const char *name, char **buf, size_t *len, char *err,
		   size_t errlen)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", jobdir, name);
	if (pm_fin_read(p, 256u << 20, buf, len) == 0)
		return 0;
	if (errno == ENOENT)
		return pmu_fail(err, errlen, ENOENT, "%s: not there (yet)", p);
	return refused(err, errlen, p, errno);
}

long long pm_manifest_uid(const json_t *m)
{
	const json_t *u = json_object_get(json_object_get(m, "job"), "uid");

	return json_is_integer(u) && json_integer_value(u) >= 0 ? (long long)json_integer_value(u) :
								  -1;
}

bool pm_fin_exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

static size_t skim_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The end of the JSON string that starts at S[I] ('"'), past its closing quote; 0: none. */
static size_t skim_str(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/*
 * A run's manifest lists every bundle and node of the job (4.5 MB at 16,384 nodes), and the
 * comment's checks want two small fields of it (the owner, the run's creation): parsing it
 * whole for them was 70 ms of a 16,384-node finalize, serial after the merge.  So the file is
 * skimmed, its strings and nesting followed, for KEY among the top object's keys, and only
 * that value is parsed (the last such key, as jansson keeps it).  What the skim cannot follow
 * (no object, an unclosed string or bracket, text after the object) gives NULL, as a failed
 * parse did; so does a value jansson rejects.
 */
json_t *pm_fin_manifest_top(const char *jobdir, const char *key)
{
	size_t n, i, klen = strlen(key), vs = 0, ve = 0;
	char p[4096], *s;
	unsigned depth = 0;
	bool want_key = false;
	json_t *v = NULL;

	snprintf(p, sizeof(p), "%s/manifest.json", jobdir);
	if (pm_fin_read(p, (size_t)1 << 30, &s, &n) < 0)
		return NULL;
	i = skim_ws(s, n, 0);
	if (i == n || s[i] != '{')
		goto out;
	for (; i < n; i++) {
		char c = s[i];
		size_t e;

		if (c == '"') {
			if (!(e = skim_str(s, n, i)))
				goto out;
			if (depth == 1 && want_key) {
				size_t j = skim_ws(s, n, e);
				want_key = false;
				if (e - i - 2 == klen && !memcmp(s + i + 1, key, klen) && j < n &&
				    s[j] == ':') {
					vs = j + 1;
					ve = 0; /* set where the value ends: the next ',' or '}' at depth 1 */
				}
			}
			i = e - 1;
		} else if (c == '{' || c == '[') {
			if (++depth == 1)
				want_key = true;
		} else if (c == '}' || c == ']') {
			if (depth == 1 && vs && !ve)
				ve = i;
			if (--depth == 0)
				break;
		} else if (c == ',' && depth == 1) {
			if (vs && !ve)
				ve = i;
			want_key = true;
		}
	}
	if (depth || i == n)
		goto out; /* unclosed */
	if (skim_ws(s, n, i + 1) != n)
		goto out; /* text after the object: jansson refuses the file */
	if (vs && ve > vs)
		v = json_loadb(s + vs, ve - vs, JSON_DECODE_ANY, NULL);
out:
	free(s);
	return v;
}

json_t *pm_bundle_manifest(const char *file)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *e;
	json_t *m = NULL;
	char *buf;

	if (!ar)
		return NULL;
	archive_read_support_filter_zstd(ar);
	archive_read_support_format_tar(ar);
	if (archive_read_open_filename(ar, file, 65536) != ARCHIVE_OK)
		goto out;
	while (archive_read_next_header(ar, &e) == ARCHIVE_OK) {
		la_int64_t size = archive_entry_size(e);
		if (strcmp(archive_entry_pathname(e), "manifest.json"))
			continue;
		if (size < 0 || (uint64_t)size > BUNDLE_MANIFEST_MAX ||
		    !(buf = malloc((size_t)size + 1)))
			break;
		if (archive_read_data(ar, buf, (size_t)size) == size)
			m = json_loadb(buf, (size_t)size, 0, NULL);
		free(buf);
		break;
	}
out:
	archive_read_free(ar);
	if (!m)
		errno = EINVAL;
	return m;
}

/* ---- fetch ---- */

/* The sha256 the manifest promises for REL ("nodes/x.tar.zst", "verdict.json", ...). */
static const char *promised(const json_t *m, const char *rel)
{
	size_t i;
	json_t *b;

	if (!strcmp(rel, "verdict.json"))
		return json_string_value(json_object_get(json_object_get(m, "verdict"), "sha256"));
	if (!strcmp(rel, "sacct.txt"))
		return json_string_value(
			json_object_get(json_object_get(m, "scheduler"), "sha256"));
	json_array_foreach(json_object_get(m, "bundles"), i,
			   b) if (json_is_string(json_object_get(b, "file")) &&
				  !strcmp(json_string_value(json_object_get(b, "file")),
					  rel)) return json_string_value(json_object_get(b,
											 "sha256"));
	return NULL;
}

/* Copy JOBDIR/REL to REL under the folder OUTFD (ODIR/REL is its name in messages), which
 * names it NAME: created new, never through a symbolic link. */
static int copy_one(const char *jobdir, int outfd, const char *outdir, const char *rel,
		    const char *name, const char *want, bool *verified, char *err, size_t errlen)
{
	char src[4096], dst[4096], got[80];
	int in, out, rc;

	snprintf(src, sizeof(src), "%s/%s", jobdir, rel);
	snprintf(dst, sizeof(dst), "%s/%s", outdir, rel);
	if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return refused(err, errlen, src, errno);
	/* the copy is the caller's alone, whatever the umask: evidence holds other people's
	 * log lines (0600 at creation; fchmod because a umask can take bits away) */
	if ((out = openat(outfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  0600)) < 0) {
		int e = errno;
		close(in);
		return pmu_fail(err, errlen, e, "%s: %s%s", dst, strerror(e),
				e == EEXIST ? ": fetch into an empty folder" : "");
	}
	rc = fchmod(out, 0600) < 0 ? -1 : sha_copy(in, out, got);
	close(in);
	if (close(out) < 0 || rc < 0) {
		int e = errno;
		unlinkat(outfd, name, 0);
		return pmu_fail(err, errlen, e, "copying %s: %s", src, strerror(e));
	}
	if (want && strcmp(want, got)) {
		unlinkat(outfd, name, 0);
		return pmu_fail(err, errlen, EBADMSG,
				"%s: checksum %s differs from the manifest's "
				"%s; not copied",
				src, got, want);
	}
	*verified = want != NULL;
	return 0;
}

/* A folder fetch creates is 0700 whatever the umask (mkdir's mode is only an upper bound);
 * one that exists already keeps its mode: the files in it are 0600 anyway, and changing the
 * mode of the caller's own folder (-o . or a shared one) is not fetch's to do.  NAME in the
 * folder AT (AT_FDCWD: NAME is a path), opened as a folder and never through a symbolic
 * link: a link planted where fetch writes (-o itself, or nodes in an -o that exists) would
 * send the evidence elsewhere.  Its descriptor, or -1 with ERR (P names it). */
static int mkdir_ok(int at, const char *name, const char *p, char *err, size_t errlen)
{
	bool made = mkdirat(at, name, 0700) == 0;
	int fd;

	if (!made && errno != EEXIST)
		return pmu_fail(err, errlen, errno, "%s: %s", p, strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno == ELOOP || errno == ENOTDIR ? ENOTDIR : errno;
		return pmu_fail(err, errlen, e, "%s: %s%s", p, strerror(e),
				e == ENOTDIR ? " (fetch writes into a real folder, never through "
					       "a symbolic link)" :
					       "");
	}
	if (made && fchmod(fd, 0700) < 0) {
		int e = errno;
		close(fd);
		return pmu_fail(err, errlen, e, "%s: %s", p, strerror(e));
	}
	return fd;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The bundle files in JOBDIR/nodes, sorted ("nodes/x.tar.zst"). */
static char **list_bundles(const char *jobdir, size_t *n, char *err, size_t errlen)
{
	char p[4096], **v = NULL, **nv;
	DIR *d;
	struct dirent *de;
	size_t cnt = 0;

	snprintf(p, sizeof(p), "%s/nodes", jobdir);
	*n = 0;
	if (!(d = opendir(p))) {
		if (errno == ENOENT)
			return calloc(1, sizeof(char *));
		refused(err, errlen, p, errno);
		return NULL;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 9 || strcmp(de->d_name + l - 8, ".tar.zst"))
			continue;
		if (!(nv = realloc(v, (cnt + 2) * sizeof(*v))))
			break;
		v = nv;
		if (asprintf(&v[cnt], "nodes/%s", de->d_name) < 0)
			break;
		v[++cnt] = NULL;
	}
	closedir(d);
	if (!v)
		v = calloc(1, sizeof(char *));
	if (v)
		qsort(v, cnt, sizeof(*v), cmpstr);
	*n = cnt;
	return v;
}

int pm_jobdir_fetch(const char *jobdir, const char *outdir, struct pm_fetch_result *res, char *err,
		    size_t errlen)
{
	static const char *const top[] = {"manifest.json", "verdict.json", "sacct.txt"};
	struct pm_fetch_result r = {0};
	json_t *m = pm_manifest_load(jobdir, err, errlen);
	char p[4096], **b = NULL;
	size_t nb = 0;
	int rc = -1, ofd = -1, nfd = -1;

	if (!m)
		return -1;
	if (!(b = list_bundles(jobdir, &nb, err, errlen)))
		goto out;
	snprintf(p, sizeof(p), "%s/nodes", outdir);
	if ((ofd = mkdir_ok(AT_FDCWD, outdir, outdir, err, errlen)) < 0 ||
	    (nfd = mkdir_ok(ofd, "nodes", p, err, errlen)) < 0)
		goto out;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]) + nb; i++) {
		const char *rel = i < 3 ? top[i] : b[i - 3];
		bool ok = false;
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", jobdir, rel);
		if (i > 0 && i < 3 && lstat(p, &st) < 0 && errno == ENOENT)
			continue; /* a provisional run may have no Slurm record */
		if (copy_one(jobdir, i < 3 ? ofd : nfd, outdir, rel,
			     i < 3 ? rel : rel + strlen("nodes/"), i ? promised(m, rel) : NULL, &ok,
			     err, errlen) < 0)
			goto out;
		r.files++;
		if (ok)
			r.verified++;
		else if (i)
			r.unverified++;
	}
	rc = 0;
out:
	if (nfd >= 0)
		close(nfd);
	if (ofd >= 0)
		close(ofd);
	for (size_t i = 0; b && b[i]; i++)
		free(b[i]);
	free(b);
	json_decref(m);
	if (res)
		*res = r;
	return rc;
}

/* ---- acting as the service user ---- */

int pm_become_service(const char *user, struct pm_identity *id, char *why, size_t whylen)
{
	struct passwd *pw;
	gid_t g[PM_MAX_GROUPS];
	int n = PM_MAX_GROUPS;

	id->switched = false;
	if (!user || !strcmp(user, "root") || geteuid() != 0)
		return 0;
	if (!(pw = getpwnam(user))) {
		snprintf(why, whylen, "service_user %s does not exist", user);
		errno = ENOENT;
		return -1;
	}
	if (pw->pw_uid == 0)
		return 0;
	if (getgrouplist(pw->pw_name, pw->pw_gid, g, &n) < 0) {
		g[0] = pw->pw_gid;
		n = 1;
	}
	id->ngroups = getgroups(PM_MAX_GROUPS, id->groups);
	if (id->ngroups < 0 || setgroups((size_t)n, g) < 0 || setegid(pw->pw_gid) < 0 ||
	    seteuid(pw->pw_uid) < 0) {
		snprintf(why, whylen, "cannot act as service_user %s: %s", user, strerror(errno));
		if (id->ngroups >= 0)
			setgroups((size_t)id->ngroups, id->groups);
		setegid(0);
		return -1;
	}
	id->switched = true;
	return 0;
}

void pm_become_root(struct pm_identity *id)
{
	if (!id->switched)
		return;
	if (seteuid(0) < 0 || setegid(0) < 0 || setgroups((size_t)id->ngroups, id->groups) < 0)
		abort(); /* never go on half root, half not */
	id->switched = false;
}
