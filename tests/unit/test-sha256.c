#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sha256.h"
#include "util.h"

static void check(const char *msg, size_t len, const char *want) {
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(msg, len, hex);
        assert_string_equal(hex, want);
}

/* FIPS 180-4 / NIST CAVP examples */
static void test_vectors(void **state) {
        check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        check(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                           "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
        check(m896, strlen(m896), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a_incremental(void **state) {
        /* one million 'a', fed in odd-sized pieces to cross block edges */
        char chunk[997];
        memset(chunk, 'a', sizeof(chunk));
        ht_sha256_ctx ctx;
        ht_sha256_init(&ctx);
        size_t left = 1000000;
        while (left > 0) {
                size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
                ht_sha256_update(&ctx, chunk, n);
                left -= n;
        }
        uint8_t d[HT_SHA256_DIGEST_SIZE];
        ht_sha256_final(&ctx, d);
        static const uint8_t want[] = {
                0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
                0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0,
        };
        assert_memory_equal(d, want, sizeof(want));
}

static void test_padding_edges(void **state) {
        /* lengths around the 55/56/64-byte padding boundaries agree between
         * one-shot and byte-at-a-time hashing */
        char buf[130];
        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char)('A' + i % 26);
        for (size_t len = 50; len <= sizeof(buf); len++) {
                uint8_t a[32], b[32];
                ht_sha256(buf, len, a);
                ht_sha256_ctx ctx;
                ht_sha256_init(&ctx);
                for (size_t i = 0; i < len; i++)
                        ht_sha256_update(&ctx, buf + i, 1);
                ht_sha256_final(&ctx, b);
                assert_memory_equal(a, b, 32);
        }
        /* 55 and 56 'a': known digests */
        memset(buf, 'a', 64);
        check(buf, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
        check(buf, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
        check(buf, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vectors),
                cmocka_unit_test(test_million_a_incremental),
                cmocka_unit_test(test_padding_edges),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
