/* sha256.c - SHA-256 through libcrypto's EVP interface. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "postmortem.h"

/*
 * SHA-256 fetched from the default provider once.  EVP_sha256() is a name that each
 * EVP_DigestInit_ex looks up again (OpenSSL 3): a lock and a search per digest, more than
 * hashing a member of a few KiB; a merge of 16,384 bundles starts about 70,000 digests.
 * The fetched method is kept for the process (the library's own caches are too).
 */
static const EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
	EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);

	sha256_md = md ? md : EVP_sha256();
}

void pm_sha256_init(struct pm_sha256 *c)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	pthread_once(&sha256_once, sha256_fetch);
	if (ctx && EVP_DigestInit_ex(ctx, sha256_md, NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	c->ctx = ctx;
}

void pm_sha256_update(struct pm_sha256 *c, const void *data, size_t len)
{
	if (c->ctx && len)
		EVP_DigestUpdate(c->ctx, data, len);
}

void pm_sha256_final(struct pm_sha256 *c, unsigned char out[32])
{
	unsigned int n = 32;

	memset(out, 0, 32);
	if (!c->ctx)
		return;
	EVP_DigestFinal_ex(c->ctx, out, &n);
	EVP_MD_CTX_free(c->ctx);
	c->ctx = NULL;
}

void pm_sha256_hex(const unsigned char d[32], char *out)
{
	static const char hex[] = "0123456789abcdef";

	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[8 + 2 * i] = hex[d[i] & 15];
	}
	out[71] = '\0';
}

void pm_sha256_buf(const void *buf, size_t len, char *out)
{
	struct pm_sha256 c;
	unsigned char d[32];

	pm_sha256_init(&c);
	pm_sha256_update(&c, buf, len);
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, out);
}

int pm_sha256_file(const char *path, char *out, uint64_t *bytes)
{
	char blk[1 << 16];
	struct pm_sha256 c;
	unsigned char d[32];
	uint64_t total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), e;

	if (fd < 0)
		return -1;
	pm_sha256_init(&c);
	while ((n = read(fd, blk, sizeof(blk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			pm_sha256_final(&c, d);
			close(fd);
			errno = e;
			return -1;
		}
		pm_sha256_update(&c, blk, (size_t)n);
		total += (uint64_t)n;
	}
	close(fd);
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, out);
	if (bytes)
		*bytes = total;
	return 0;
}
