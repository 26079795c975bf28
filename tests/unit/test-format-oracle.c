/* format-oracle: pfile syntax (scopes, quotes, lists, continuations,
 * comments, IFILE as a parameter), SID-over-"*" lookup, sizes, and the
 * spfile's blocks (text across a boundary, torn and foreign blocks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "format-oracle.h"
#include "util.h"

static void parse(const char *s, ht_ora_pfile *p) {
        ht_ora_parse_text(s, strlen(s), "t.ora", p);
}

static void test_pfile(void **state) {
        (void)state;
        ht_ora_pfile p;
        parse("# comment\n"
              "db_name='ORCL' # trailing\n"
              "*.SGA_MAX_SIZE = 8G\n"
              "ORCL.sga_max_size=18G\n"
              "*.sga_max_size=4G\n"
              "control_files = (\"/a/c1.ctl\",\n"
              "                 '/b/c#2.ctl')\n"
              "pga_aggregate_target = \\\n"
              "  512M\n"
              "IFILE=?/dbs/common.ora\n"
              "dispatchers=\"(PROTOCOL=TCP) (SERVICE=ORCLXDB)\"\n",
              &p);
        assert_null(p.warnings);
        assert_int_equal(p.n_params, 8);
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "db_name"), "ORCL");
        /* the SID's own value wins over "*." whatever the order */
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "sga_max_size"), "18G");
        assert_string_equal(ht_ora_lookup(&p, "DEV", "sga_max_size"), "4G");
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "control_files"), "/a/c1.ctl,/b/c#2.ctl");
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "pga_aggregate_target"), "512M");
        assert_int_equal(p.params[5].line, 8);
        assert_string_equal(p.params[1].name, "sga_max_size");
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "ifile"), "?/dbs/common.ora");
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "dispatchers"), "(PROTOCOL=TCP) (SERVICE=ORCLXDB)");
        assert_null(ht_ora_lookup(&p, "ORCL", "memory_target"));
        ht_ora_pfile_done(&p);
}

static void test_pfile_bad(void **state) {
        (void)state;
        ht_ora_pfile p;
        parse("just words\n"
              "bad name = 1\n"
              "x='open\n"
              "processes=300\n"
              "ifile=a,b\n",
              &p);
        assert_int_equal(strv_length(p.warnings), 4);
        assert_string_equal(p.warnings[0], "t.ora:1: not \"name = value\": skipped");
        assert_string_equal(p.warnings[2], "t.ora:3: a quoted value does not end: skipped");
        assert_int_equal(p.n_params, 1);
        assert_string_equal(ht_ora_lookup(&p, "X", "processes"), "300");
        ht_ora_pfile_done(&p);
        /* a NUL byte is named, the lines after it are read */
        static const char nul[] = "a=1\n\0junk\nb=2\n";
        ht_ora_parse_text(nul, sizeof nul - 1, "t.ora", &p);
        assert_int_equal(p.n_params, 2);
        assert_int_equal(strv_length(p.warnings), 1);
        ht_ora_pfile_done(&p);
}

static void test_sizes(void **state) {
        (void)state;
        uint64_t b;
        assert_int_equal(ht_ora_parse_size("18G", &b), 0);
        assert_true(b == UINT64_C(18) << 30);
        assert_int_equal(ht_ora_parse_size("6144m", &b), 0);
        assert_true(b == UINT64_C(6144) << 20);
        assert_int_equal(ht_ora_parse_size("19327352832", &b), 0);
        assert_true(b == UINT64_C(19327352832));
        assert_int_equal(ht_ora_parse_size("1 G", &b), -EINVAL);
        assert_int_equal(ht_ora_parse_size("1GB", &b), -EINVAL);
        assert_int_equal(ht_ora_parse_size("", &b), -EINVAL);
        assert_int_equal(ht_ora_parse_size("99999999999999999999", &b), -EINVAL);
        assert_int_equal(ht_ora_parse_size("18446744073709551615G", &b), -EINVAL);
}

/* An spfile as tests/tools/mkspfile.py writes one. */
static char *spfile(const char *text, size_t nblocks, size_t *ret_len) {
        char *b = xcalloc(nblocks, HT_ORA_SPFILE_BLOCK);
        size_t area = HT_ORA_SPFILE_BLOCK - 24, tl = strlen(text);
        for (size_t i = 0; i < nblocks; i++) {
                unsigned char *blk = (unsigned char *)b + i * HT_ORA_SPFILE_BLOCK;
                blk[0] = 0x43;
                blk[1] = 0x22;
                blk[4] = (unsigned char)i;
                blk[14] = 1;
                blk[15] = 4;
                blk[HT_ORA_SPFILE_BLOCK - 4] = 1;
                blk[HT_ORA_SPFILE_BLOCK - 3] = 0x43;
                if (i > 0 && (i - 1) * area < tl) {
                        size_t n = tl - (i - 1) * area < area ? tl - (i - 1) * area : area;
                        memcpy(blk + 20, text + (i - 1) * area, n);
                }
        }
        *ret_len = nblocks * HT_ORA_SPFILE_BLOCK;
        return b;
}

static void test_spfile(void **state) {
        (void)state;
        /* 480 bytes of padding put "*.sga_max_size=18G" across blocks 1-2 */
        char text[600];
        memset(text, 0, sizeof text);
        strcpy(text, "*.db_name='ORCL'\n*.x='");
        size_t n = strlen(text);
        memset(text + n, 'p', 480 - n - 3);
        strcpy(text + 477, "'\n*.sga_max_size=18G\n*.processes=300\n");
        size_t len;
        char *b = spfile(text, 4, &len);
        assert_true(ht_ora_is_spfile(b, len));
        char *t = NULL, *e = NULL;
        size_t tl;
        assert_int_equal(ht_ora_spfile_text(b, len, &t, &tl, &e), 0);
        assert_string_equal(t, text);
        ht_ora_pfile p;
        ht_ora_parse_text(t, tl, "spfile", &p);
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "sga_max_size"), "18G");
        assert_string_equal(ht_ora_lookup(&p, "ORCL", "processes"), "300");
        ht_ora_pfile_done(&p);
        free(t);
        t = NULL;

        /* a torn block: the tail's type no longer matches */
        b[2 * HT_ORA_SPFILE_BLOCK - 3] = 0x06;
        assert_int_equal(ht_ora_spfile_text(b, len, &t, &tl, &e), -EINVAL);
        assert_non_null(strstr(e, "block 1: the tail"));
        assert_null(t);
        free(e);
        e = NULL;
        b[2 * HT_ORA_SPFILE_BLOCK - 3] = 0x43;
        /* a block out of place */
        b[2 * HT_ORA_SPFILE_BLOCK + 4] = 7;
        assert_int_equal(ht_ora_spfile_text(b, len, &t, &tl, &e), -EINVAL);
        assert_string_equal(e, "block 2: it says it is block 7");
        free(e);
        e = NULL;
        /* not whole blocks; text is not an spfile */
        assert_int_equal(ht_ora_spfile_text(b, len - 1, &t, &tl, &e), -EINVAL);
        free(e);
        assert_false(ht_ora_is_spfile("*.sga_max_size=1G\n", 18));
        free(b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pfile),
                cmocka_unit_test(test_pfile_bad),
                cmocka_unit_test(test_sizes),
                cmocka_unit_test(test_spfile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
