/* sha256.c - SHA-256 through libcrypto's EVP interface. */
#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>

#include "postmortem.h"

void pm_sha256_init(struct pm_sha256 *c)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
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
