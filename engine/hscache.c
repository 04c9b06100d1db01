/* hscache.c - compiled rule databases kept on disk between runs.
 *
 * Compiling the rule set's Vectorscan databases costs about 2 ms of CPU per pattern (0.5 s
 * for the bundled set), paid again by every diagnose, replay and merge although the rules
 * rarely change: on a 1 GiB folder it was a third of diagnose's time.  A database is stored
 * under the digest of everything that determines it (the library's version and the CPU
 * platform it compiled for, the mode, and every pattern with its flags and id), so a changed
 * rule, library or machine is a different file and a stale one is never read.
 *
 * The folder: $POSTMORTEM_CACHE_DIR (empty: no cache), else /var/cache/postmortem for root
 * and $XDG_CACHE_HOME/postmortem (default ~/.cache/postmortem) for everyone else.  It is used
 * only when it is a directory owned by the effective user and writable by no one else; an
 * entry only when it is a regular file of that owner (not a link) whose SHA-256, stored in
 * front of it, matches.  Anything else, and any error, compiles as if there were no cache:
 * the cache can make a run faster, never different.  Entries unused for 30 days are removed
 * when a new one is written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "ruleset.h"

#define MAGIC "PMHSDB1\n"
#define MAGIC_LEN 8
#define MAX_ENTRY (64u << 20)
#define KEEP_S (30 * 86400)

/* The cache folder into DIR, or false (no usable one). */
static bool cache_dir(char *dir, size_t len)
{
	const char *env = getenv("POSTMORTEM_CACHE_DIR"), *home, *xdg;
	uid_t me = geteuid();
	struct stat st;
	int n;

	if (env)
		n = snprintf(dir, len, "%s", env);
	else if (me == 0)
		n = snprintf(dir, len, "/var/cache/postmortem");
	else if ((xdg = getenv("XDG_CACHE_HOME")) && xdg[0] == '/')
		n = snprintf(dir, len, "%s/postmortem", xdg);
	else if ((home = getenv("HOME")) && home[0] == '/') {
		char parent[4096];
		snprintf(parent, sizeof(parent), "%s/.cache", home);
		(void)mkdir(parent, 0700);
		n = snprintf(dir, len, "%s/.cache/postmortem", home);
	} else
		return false;
	if (n <= 0 || (size_t)n >= len)
		return false;
	if (!env)
		(void)mkdir(dir, me == 0 ? 0755 : 0700);
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == me &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static void key_add(struct pm_sha256 *c, const void *p, size_t n)
{
	uint64_t len = n;

	pm_sha256_update(c, &len, sizeof(len));
	pm_sha256_update(c, p, n);
}

/* The entry's path for these compile inputs into PATH. */
static bool entry_path(char *path, size_t len, const char *dir, const char *const *pats,
		       const unsigned *flags, const unsigned *ids, unsigned n, unsigned mode)
{
	struct pm_sha256 c;
	const hs_platform_info_t *plat = pm_hs_platform();
	unsigned char d[32];
	char hex[72];
	const char *ver = hs_version();

	pm_sha256_init(&c);
	key_add(&c, MAGIC, MAGIC_LEN);
	key_add(&c, ver, strlen(ver));
	key_add(&c, &plat->tune, sizeof(plat->tune));
	key_add(&c, &plat->cpu_features, sizeof(plat->cpu_features));
	key_add(&c, &mode, sizeof(mode));
	key_add(&c, &n, sizeof(n));
	for (unsigned i = 0; i < n; i++) {
		key_add(&c, &flags[i], sizeof(flags[i]));
		key_add(&c, &ids[i], sizeof(ids[i]));
		key_add(&c, pats[i], strlen(pats[i]));
	}
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, hex);
	return snprintf(path, len, "%s/rules-%s.hsdb", dir, hex + 7) < (int)len;
}

static hs_database_t *entry_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	unsigned char *buf = NULL, d[32];
	hs_database_t *db = NULL;
	struct pm_sha256 c;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size <= MAGIC_LEN + 32 || (uint64_t)st.st_size > MAX_ENTRY ||
	    !(buf = malloc((size_t)st.st_size)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto out;
		got += (size_t)r;
	}
	if (memcmp(buf, MAGIC, MAGIC_LEN))
		goto out;
	pm_sha256_init(&c);
	pm_sha256_update(&c, buf + MAGIC_LEN + 32, got - MAGIC_LEN - 32);
	pm_sha256_final(&c, d);
	if (memcmp(d, buf + MAGIC_LEN, 32) ||
	    hs_deserialize_database((const char *)buf + MAGIC_LEN + 32, got - MAGIC_LEN - 32,
				    &db) != HS_SUCCESS)
		db = NULL;
	else
		(void)futimens(fd, NULL); /* its mtime says when it was last used */
out:
	free(buf);
	close(fd);
	return db;
}

static bool write_all_fd(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

/* Entries not used for KEEP_S seconds, other than KEEP. */
static void prune(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "rules-", 6) || l < 11 ||
		    strcmp(e->d_name + l - 5, ".hsdb") || !strcmp(e->d_name, keep))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > KEEP_S)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

static void entry_write(const char *dir, const char *path, const hs_database_t *db)
{
	char *blob = NULL, tmp[4200];
	size_t len = 0;
	unsigned char d[32];
	struct pm_sha256 c;
	int fd;

	if (hs_serialize_database(db, &blob, &len) != HS_SUCCESS)
		return;
	pm_sha256_init(&c);
	pm_sha256_update(&c, blob, len);
	pm_sha256_final(&c, d);
	snprintf(tmp, sizeof(tmp), "%s/.rules-XXXXXX", dir);
	if ((fd = mkstemp(tmp)) >= 0) {
		bool ok = (geteuid() != 0 || fchmod(fd, 0644) == 0) &&
			  write_all_fd(fd, MAGIC, MAGIC_LEN) && write_all_fd(fd, d, sizeof(d)) &&
			  write_all_fd(fd, blob, len);
		if (close(fd) == 0 && ok && rename(tmp, path) == 0) {
			const char *base = strrchr(path, '/');
			prune(dir, base ? base + 1 : path);
		} else
			(void)unlink(tmp);
	}
	free(blob); /* hs_serialize_database allocates with the default (malloc) allocator */
}

hs_error_t pm_hs_compile(const char *const *pats, const unsigned *flags, const unsigned *ids,
			 unsigned n, unsigned mode, hs_database_t **db, hs_compile_error_t **ce)
{
	char dir[4096], path[4200];
	bool cached = cache_dir(dir, sizeof(dir)) &&
		      entry_path(path, sizeof(path), dir, pats, flags, ids, n, mode);
	hs_error_t rc;

	if (cached && (*db = entry_read(path)))
		return HS_SUCCESS;
	rc = hs_compile_multi(pats, flags, ids, n, mode, pm_hs_platform(), db, ce);
	if (rc == HS_SUCCESS && cached)
		entry_write(dir, path, *db);
	return rc;
}
