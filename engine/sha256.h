/* sha256.h - SHA-256 (FIPS 180-4), for evidence and rule set digests. */
#ifndef PM_SHA256_H
#define PM_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct pm_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t nbuf;
};

void pm_sha256_init(struct pm_sha256 *c);
void pm_sha256_update(struct pm_sha256 *c, const void *data, size_t len);
void pm_sha256_final(struct pm_sha256 *c, unsigned char out[32]);
/* "sha256:" followed by 64 lower-case hex digits, into OUT (at least 72 bytes). */
void pm_sha256_hex(const unsigned char d[32], char *out);

#endif
