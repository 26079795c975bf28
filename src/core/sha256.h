/* SHA-256 (FIPS 180-4), for checking journal backups before they are
 * restored. libsystemd has one but does not export it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define HT_SHA256_DIGEST_SIZE 32
#define HT_SHA256_HEX_SIZE (HT_SHA256_DIGEST_SIZE * 2 + 1)

typedef struct {
        uint32_t h[8];
        uint64_t total;        /* bytes hashed so far */
        uint8_t buf[64];
        size_t buf_len;
} ht_sha256_ctx;

void ht_sha256_init(ht_sha256_ctx *ctx);
void ht_sha256_update(ht_sha256_ctx *ctx, const void *data, size_t len);
void ht_sha256_final(ht_sha256_ctx *ctx, uint8_t out[HT_SHA256_DIGEST_SIZE]);

/* One-shot digest of data. */
void ht_sha256(const void *data, size_t len, uint8_t out[HT_SHA256_DIGEST_SIZE]);
/* One-shot digest as 64 lowercase hex digits and a NUL, into out. */
void ht_sha256_hex(const void *data, size_t len, char out[HT_SHA256_HEX_SIZE]);
