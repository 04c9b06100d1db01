/* sha256.h - SHA-256 for evidence and rule set digests, through OpenSSL's libcrypto (which
 * uses the CPU's SHA extensions: digests are on the scanning path). */
#ifndef PM_SHA256_H
#define PM_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct pm_sha256 {
	void *ctx; /* EVP_MD_CTX; NULL after a failed init: updates are ignored */
};

void pm_sha256_init(struct pm_sha256 *c);
void pm_sha256_update(struct pm_sha256 *c, const void *data, size_t len);
/* Writes the digest (all zero if the context could not be created) and frees the context. */
void pm_sha256_final(struct pm_sha256 *c, unsigned char out[32]);
/* "sha256:" followed by 64 lower-case hex digits, into OUT (at least 72 bytes). */
void pm_sha256_hex(const unsigned char d[32], char *out);

#endif
