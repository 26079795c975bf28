#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "edit-test-helpers.h"
#include "edit-unit.h"
#include "fileio.h"

/* Layouts systemd units really have: vendor comments, several sections,
 * a key in the wrong section, a reset, continuation lines and a comment
 * inside one, CRLF, blanks around '='. */
static const char unit[] =
        "# It's not recommended to modify this file in-place\n"
        "[Unit]\n"
        "Description=MariaDB database server\n"
        "LimitNOFILE=1\n"
        "\n"
        "[Service]\n"
        "Type=notify\n"
        "  # LimitNOFILE=999 is a comment, even indented\n"
        "; LimitNOFILE=998 too\n"
        "LimitNOFILE=16364\n"
        "LimitNOFILE = 32768\r\n"
        "Environment=A=1 \\\n"
        "# a comment inside a continuation is skipped\n"
        "  B=2\n"
        "ExecStartPre=\n"
        "ExecStartPre=/bin/true\n"
        "ExecStartPre=/bin/false\n"
        "[ServiceX]\n"
        "LimitNOFILE=5\n"
        "[Install]\n"
        "Alias=mysql.service\n"
        "Alias=mysqld.service\n";

static void test_values_in_section(void **state) {
        char **v = NULL;
        assert_int_equal(ht_unit_values(unit, strlen(unit), "Service", "LimitNOFILE", &v), 2);
        assert_string_equal(v[0], "16364");
        assert_string_equal(v[1], "32768");
        strv_free(v);

        assert_int_equal(ht_unit_values(unit, strlen(unit), "Install", "Alias", &v), 2);
        assert_string_equal(v[1], "mysqld.service");
        strv_free(v);

        /* a section whose name only starts with the one asked for is another */
        assert_int_equal(ht_unit_values(unit, strlen(unit), "Service", "Nope", &v), 0);
        assert_null(v);
        assert_int_equal(ht_unit_values(unit, strlen(unit), "Servic", "LimitNOFILE", &v), 0);
        assert_null(v);
}

static void test_continuation_and_reset(void **state) {
        char *s = NULL;
        assert_int_equal(ht_unit_value(unit, strlen(unit), "Service", "Environment", &s), 1);
        assert_string_equal(s, "A=1    B=2");
        free(s);

        char **v = NULL;
        /* "ExecStartPre=" empties the list; what follows is the list */
        assert_int_equal(ht_unit_values(unit, strlen(unit), "Service", "ExecStartPre", &v), 2);
        assert_string_equal(v[0], "/bin/true");
        strv_free(v);

        static const char reset[] = "[Service]\nLimitMEMLOCK=524288\nLimitMEMLOCK=\n";
        assert_int_equal(ht_unit_value(reset, strlen(reset), "Service", "LimitMEMLOCK", &s), 1);
        assert_null(s);
        assert_int_equal(ht_unit_value(reset, strlen(reset), "Service", "LimitNOFILE", &s), 0);
        assert_null(s);

        /* a file ending inside a continuation keeps what it had */
        static const char cut[] = "[Service]\nLimitNOFILE=4096\\";
        assert_int_equal(ht_unit_value(cut, strlen(cut), "Service", "LimitNOFILE", &s), 1);
        assert_string_equal(s, "4096");
        free(s);
        /* only the length given is read */
        assert_int_equal(ht_unit_value(unit, 20, "Service", "LimitNOFILE", &s), 0);

        /* blank lines and comments are passed over unless a backslash
         * joins them: a comment ending in one takes the next line with
         * it, a backslash line takes a comment after it away, and a
         * section header or key after blanks and comments still counts */
        static const char comments[] = "\n  \n[Service]\n# LimitNOFILE=1 \\\nLimitNOFILE=2\n"
                                       " ; x\n\t\nLimitCORE=3 \\\n# y\n  4\n#\n\nLimitAS=5";
        assert_int_equal(ht_unit_value(comments, strlen(comments), "Service", "LimitNOFILE", &s), 0);
        assert_null(s);
        assert_int_equal(ht_unit_value(comments, strlen(comments), "Service", "LimitCORE", &s), 1);
        assert_string_equal(s, "3    4");
        free(s);
        assert_int_equal(ht_unit_value(comments, strlen(comments), "Service", "LimitAS", &s), 1);
        assert_string_equal(s, "5");
        free(s);
}

static void test_debian_mariadb_unit(void **state) {
        /* the unit Debian 12's mariadb-server ships (tests/units/README) */
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *path = xasprintf("%s/tests/units/debian12-mariadb/lib/systemd/system/mariadb.service",
                                              top ? top : ".");
        _cleanup_free_ char *text = NULL;
        size_t len;
        assert_int_equal(ht_read_file_at(AT_FDCWD, path, 1 << 20, &text, &len), 0);
        char *s = NULL;
        assert_int_equal(ht_unit_value(text, len, "Service", "LimitNOFILE", &s), 1);
        assert_string_equal(s, "32768");
        free(s);
        assert_int_equal(ht_unit_value(text, len, "Service", "LimitMEMLOCK", &s), 1);
        assert_string_equal(s, "524288");
        free(s);
        /* Debian's aliases are the package's links, not Alias= lines */
        char **v = NULL;
        assert_int_equal(ht_unit_values(text, len, "Install", "Alias", &v), 0);
        assert_int_equal(ht_unit_values(text, len, "Install", "WantedBy", &v), 1);
        assert_string_equal(v[0], "multi-user.target");
        strv_free(v);
}

static void test_parse_limit(void **state) {
        uint64_t soft, hard;
        assert_int_equal(ht_unit_parse_limit("LimitNOFILE", "32768", &soft, &hard), 0);
        assert_true(soft == 32768 && hard == 32768);
        assert_int_equal(ht_unit_parse_limit("LimitNOFILE", "1024:524288", &soft, &hard), 0);
        assert_true(soft == 1024 && hard == 524288);
        assert_int_equal(ht_unit_parse_limit("LimitMEMLOCK", "infinity", &soft, &hard), 0);
        assert_true(soft == HT_LIMIT_INFINITY && hard == HT_LIMIT_INFINITY);
        assert_int_equal(ht_unit_parse_limit("LimitMEMLOCK", "64M:infinity", &soft, &hard), 0);
        assert_true(soft == 64ULL << 20 && hard == HT_LIMIT_INFINITY);
        assert_int_equal(ht_unit_parse_limit("LimitSTACK", "8K", &soft, &hard), 0);
        assert_true(soft == 8192);
        assert_int_equal(ht_unit_parse_limit("LimitAS", "1E", &soft, &hard), 0);
        assert_true(soft == 1ULL << 60);

        /* suffixes are for byte limits only: systemd refuses LimitNOFILE=1K */
        assert_int_equal(ht_unit_parse_limit("LimitNOFILE", "1K", &soft, &hard), -EINVAL);
        /* systemd refuses a soft limit above the hard one */
        assert_int_equal(ht_unit_parse_limit("LimitNOFILE", "2048:1024", &soft, &hard), -EINVAL);
        assert_int_equal(ht_unit_parse_limit("LimitMEMLOCK", "16E", &soft, &hard), -ERANGE);
        /* what systemd 252 itself takes and refuses (its unit loader,
         * systemd --test, on LimitX= lines: tests/integration/limits-real-
         * cases.sh): sizes with a fraction, parts and B; counts in any base */
        static const struct {
                const char *d, *v;
                uint64_t want;
        } good[] = {
                {"LimitMEMLOCK", "1.5G", 3ULL << 29},       {"LimitAS", "1G 512M", 3ULL << 29},
                {"LimitCORE", "1G512M", 3ULL << 29},        {"LimitAS", "100B", 100},
                {"LimitRSS", "2 G", 2ULL << 30},            {"LimitRSS", "1.5K", 1536},
                {"LimitMSGQUEUE", "10.M", 10ULL << 20},     {"LimitCORE", "1T", 1ULL << 40},
                {"LimitNOFILE", "0x400", 1024},             {"LimitNPROC", "010", 8},
                {"LimitLOCKS", "+5", 5},                    {"LimitRTPRIO", "0b11", 3},
                {"LimitSIGPENDING", "0o17", 15},            {"LimitMEMLOCK", "1 ", 1},
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                assert_int_equal(ht_unit_parse_limit(good[i].d, good[i].v, &soft, &hard), 0);
                assert_true(soft == good[i].want && hard == good[i].want);
        }
        static const struct {
                const char *d, *v;
        } refused[] = {
                {"LimitDATA", "64m"},     {"LimitMSGQUEUE", "0x100"}, {"LimitNOFILE", "1K"},
                {"LimitNPROC", "4096:"},  {"LimitLOCKS", ":5"},       {"LimitSIGPENDING", "infinity:100"},
                {"LimitDATA", "512M1G"},  {"LimitSTACK", "8MB"},      {"LimitMEMLOCK", "90%"},
                {"LimitNOFILE", "1.5"},   {"LimitNOFILE", "-1"},
        };
        for (size_t i = 0; i < ELEMENTSOF(refused); i++)
                assert_true(ht_unit_parse_limit(refused[i].d, refused[i].v, &soft, &hard) < 0);
        static const char *const bad[] = {"", ":", "1:", ":1", "-1", "infinit", "0x10", "1KB", "K",
                                          "99999999999999999999999999999999"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_true(ht_unit_parse_limit("LimitMEMLOCK", bad[i], &soft, &hard) < 0);
        assert_int_equal(ht_unit_parse_limit("LimitMEMLOCK", NULL, &soft, &hard), -EINVAL);
}

static void test_format_limit_round_trip(void **state) {
        static const uint64_t values[][2] = {
                {0, 0}, {1024, 1024}, {1024, 524288}, {65536, HT_LIMIT_INFINITY},
                {HT_LIMIT_INFINITY, HT_LIMIT_INFINITY}, {HT_LIMIT_INFINITY - 1, HT_LIMIT_INFINITY - 1},
        };
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                _cleanup_free_ char *s = ht_unit_format_limit(values[i][0], values[i][1]);
                uint64_t soft, hard;
                assert_int_equal(ht_unit_parse_limit("LimitNOFILE", s, &soft, &hard), 0);
                assert_true(soft == values[i][0] && hard == values[i][1]);
        }
        _cleanup_free_ char *one = ht_unit_format_limit(4096, 4096);
        assert_string_equal(one, "4096");
        _cleanup_free_ char *two = ht_unit_format_limit(4096, HT_LIMIT_INFINITY);
        assert_string_equal(two, "4096:infinity");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_values_in_section),
                cmocka_unit_test(test_continuation_and_reset),
                cmocka_unit_test(test_debian_mariadb_unit),
                cmocka_unit_test(test_parse_limit),
                cmocka_unit_test(test_format_limit_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
