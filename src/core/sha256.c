#include "config.h"

#include <string.h>

#include "sha256.h"

static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void block(ht_sha256_ctx *ctx, const uint8_t *p) {
        uint32_t w[64];
        for (unsigned i = 0; i < 16; i++)
                w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
                       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
        for (unsigned i = 16; i < 64; i++) {
                uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = ctx->h[0], b = ctx->h[1], c = ctx->h[2], d = ctx->h[3];
        uint32_t e = ctx->h[4], f = ctx->h[5], g = ctx->h[6], h = ctx->h[7];
        for (unsigned i = 0; i < 64; i++) {
                uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
                uint32_t ch = (e & f) ^ (~e & g);
                uint32_t t1 = h + S1 + ch + K[i] + w[i];
                uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
                uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
                uint32_t t2 = S0 + maj;
                h = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
        }
        ctx->h[0] += a;
        ctx->h[1] += b;
        ctx->h[2] += c;
        ctx->h[3] += d;
        ctx->h[4] += e;
        ctx->h[5] += f;
        ctx->h[6] += g;
        ctx->h[7] += h;
}

void ht_sha256_init(ht_sha256_ctx *ctx) {
        static const uint32_t H0[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };
        memcpy(ctx->h, H0, sizeof(H0));
        ctx->total = 0;
        ctx->buf_len = 0;
}

void ht_sha256_update(ht_sha256_ctx *ctx, const void *data, size_t len) {
        const uint8_t *p = data;
        ctx->total += len;
        if (ctx->buf_len > 0) {
                size_t n = 64 - ctx->buf_len;
                if (n > len)
                        n = len;
                memcpy(ctx->buf + ctx->buf_len, p, n);
                ctx->buf_len += n;
                p += n;
                len -= n;
                if (ctx->buf_len < 64)
                        return;
                block(ctx, ctx->buf);
                ctx->buf_len = 0;
        }
        for (; len >= 64; p += 64, len -= 64)
                block(ctx, p);
        memcpy(ctx->buf, p, len);
        ctx->buf_len = len;
}

void ht_sha256_final(ht_sha256_ctx *ctx, uint8_t out[HT_SHA256_DIGEST_SIZE]) {
        uint64_t bits = ctx->total * 8;
        /* padding: 0x80, zeros up to 56 mod 64, then the length big-endian */
        ctx->buf[ctx->buf_len++] = 0x80;
        if (ctx->buf_len > 56) {
                memset(ctx->buf + ctx->buf_len, 0, 64 - ctx->buf_len);
                block(ctx, ctx->buf);
                ctx->buf_len = 0;
        }
        memset(ctx->buf + ctx->buf_len, 0, 56 - ctx->buf_len);
        for (unsigned i = 0; i < 8; i++)
                ctx->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
        block(ctx, ctx->buf);
        for (unsigned i = 0; i < 8; i++) {
                out[4 * i] = (uint8_t)(ctx->h[i] >> 24);
                out[4 * i + 1] = (uint8_t)(ctx->h[i] >> 16);
                out[4 * i + 2] = (uint8_t)(ctx->h[i] >> 8);
                out[4 * i + 3] = (uint8_t)ctx->h[i];
        }
        memset(ctx, 0, sizeof(*ctx));
}

void ht_sha256(const void *data, size_t len, uint8_t out[HT_SHA256_DIGEST_SIZE]) {
        ht_sha256_ctx ctx;
        ht_sha256_init(&ctx);
        ht_sha256_update(&ctx, data, len);
        ht_sha256_final(&ctx, out);
}

void ht_sha256_hex(const void *data, size_t len, char out[HT_SHA256_HEX_SIZE]) {
        static const char hex[] = "0123456789abcdef";
        uint8_t d[HT_SHA256_DIGEST_SIZE];
        ht_sha256(data, len, d);
        for (unsigned i = 0; i < HT_SHA256_DIGEST_SIZE; i++) {
                out[2 * i] = hex[d[i] >> 4];
                out[2 * i + 1] = hex[d[i] & 15];
        }
        out[HT_SHA256_HEX_SIZE - 1] = 0;
}
