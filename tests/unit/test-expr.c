#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "expr.h"
#include "util.h"

/* A fixed set of names, as profiles and rules see them. */
static int lookups;
/* "text": the sample matches() is tried on */
static const char *match_text;

static int test_lookup(void *userdata, const char *name, ht_value *ret) {
        lookups++;
        if (streq(name, "sga_max_size"))
                *ret = ht_value_int(INT64_C(18) << 30);
        else if (streq(name, "hugepage_slack"))
                *ret = ht_value_int(2);
        else if (streq(name, "facts.hugepages.default_size_kb"))
                *ret = ht_value_int(2048);
        else if (streq(name, "facts.memory.total_kb"))
                *ret = ht_value_int(INT64_C(64) << 20);
        else if (streq(name, "facts.kernel.release"))
                *ret = ht_value_str("5.10.134-16.al8.x86_64");
        else if (streq(name, "facts.xen"))
                *ret = ht_value_bool(false);
        else if (streq(name, "text"))
                *ret = ht_value_str(match_text);
        else if (streq(name, "facts.kernel.uname"))
                *ret = ht_value_str("Linux alinux3 5.10.134-16.al8.aarch64 #1 SMP Thu Dec 7 14:11:24 CST 2023 aarch64");
        else if (streq(name, "facts.cpu.cpuinfo"))
                *ret = ht_value_null();
        else if (streq(name, "facts.hugetext.mode"))
                *ret = ht_value_null();
        else if (streq(name, "setting.sysctl.vm.nr_hugepages"))
                *ret = ht_value_int(9218);
        else if (streq(name, "half"))
                *ret = (ht_value){ .type = HT_VAL_INT, .num = -2, .den = -4 };
        else if (streq(name, "zero_den"))
                *ret = (ht_value){ .type = HT_VAL_INT, .num = 1, .den = 0 };
        else if (streq(name, "big_string")) {
                char *s = xmalloc(600 * 1024 + 1);
                memset(s, 'x', 600 * 1024);
                s[600 * 1024] = 0;
                *ret = (ht_value){ .type = HT_VAL_STR, .den = 1, .str = s };
        } else if (streq(name, "broken"))
                return -EIO;
        else
                return -ENOENT;
        return 0;
}

static char **test_candidates(void *userdata) {
        char **l = NULL;
        strv_push(&l, "sga_max_size");
        strv_push(&l, "hugepage_slack");
        strv_push(&l, "facts.memory.total_kb");
        strv_push(&l, "facts.hugepages.default_size_kb");
        return l;
}

static const ht_expr_env env = {
        .lookup = test_lookup,
        .candidates = test_candidates,
};

static ht_value eval_ok(const char *src) {
        ht_value v = ht_value_null();
        char *err = NULL;
        int r = ht_expr_eval_ex(src, &env, &v, &err);
        if (r < 0)
                fail_msg("'%s' failed (%d): %s", src, r, err);
        assert_null(err);
        return v;
}

static int64_t eval_int(const char *src) {
        ht_value v = eval_ok(src);
        if (v.type != HT_VAL_INT || v.den != 1)
                fail_msg("'%s' is not a whole integer (type %d, %lld/%lld)", src, v.type,
                         (long long)v.num, (long long)v.den);
        return v.num;
}

static bool eval_bool(const char *src) {
        ht_value v = eval_ok(src);
        if (v.type != HT_VAL_BOOL)
                fail_msg("'%s' is not a boolean (type %d)", src, v.type);
        return v.num;
}

static char *eval_str(const char *src) {
        ht_value v = eval_ok(src);
        if (v.type != HT_VAL_STR)
                fail_msg("'%s' is not a string (type %d)", src, v.type);
        return v.str;
}

/* Evaluate src expecting failure r; return the first line of the message. */
static char *eval_fail(const char *src, int expect_r) {
        ht_value v = ht_value_int(12345);
        char *err = NULL;
        int r = ht_expr_eval_ex(src, &env, &v, &err);
        if (r != expect_r)
                fail_msg("'%s': expected %d, got %d (%s)", src, expect_r, r, err ? err : "no message");
        assert_non_null(err);
        /* untouched on failure */
        assert_int_equal(v.type, HT_VAL_INT);
        assert_true(v.num == 12345);
        char *nl = strchr(err, '\n');
        if (nl)
                *nl = 0;
        return err;
}

static void assert_fail_msg(const char *src, int expect_r, const char *msg) {
        char *err = eval_fail(src, expect_r);
        if (!strstr(err, msg))
                fail_msg("'%s': message '%s' lacks '%s'", src, err, msg);
        free(err);
}

static void test_arith_precedence(void **state) {
        assert_true(eval_int("1 + 2 * 3") == 7);
        assert_true(eval_int("(1 + 2) * 3") == 9);
        assert_true(eval_int("10 - 4 - 3") == 3);
        assert_true(eval_int("100 / 10 / 5") == 2);
        assert_true(eval_int("2 * 3 + 4 * 5") == 26);
        assert_true(eval_int("-2 * -3") == 6);
        assert_true(eval_int("--5") == 5);
        assert_true(eval_int("- (3 - 10)") == 7);
        assert_true(eval_int("  \t42\n ") == 42);
        assert_true(eval_int("0") == 0);
        assert_true(eval_int("9223372036854775807") == INT64_MAX);
        assert_true(eval_int("-9223372036854775807 - 1") == INT64_MIN);
        /* comparison binds looser than arithmetic, && looser than it, || loosest */
        assert_true(eval_bool("1 + 1 == 2"));
        assert_true(eval_bool("1 < 2 && 3 > 2"));
        assert_true(eval_bool("true || false && false"));
        assert_false(eval_bool("(true || false) && false"));
        assert_true(eval_bool("!false && !(1 > 2)"));
        assert_true(eval_bool("!!true"));
        assert_true(eval_bool("true == true"));
        assert_true(eval_bool("true != false"));
        assert_false(eval_bool("false == true"));
        assert_true(eval_bool("1 <= 1 && 1 >= 1 && 2 > 1 && 1 < 2 && 1 != 2 && 1 == 1"));
        assert_false(eval_bool("2 <= 1"));
        assert_true(eval_bool("false || true || false"));
        assert_true(eval_bool("true && true && true"));
}

static void test_units(void **state) {
        assert_true(eval_int("18G") == INT64_C(19327352832));
        assert_true(eval_int("18g") == INT64_C(19327352832));
        assert_true(eval_int("18GB") == INT64_C(19327352832));
        assert_true(eval_int("18GiB") == INT64_C(19327352832));
        assert_true(eval_int("18gib") == INT64_C(19327352832));
        assert_true(eval_int("2048K") == 2048 * 1024);
        assert_true(eval_int("2048kB") == 2048 * 1024);
        assert_true(eval_int("512M") == INT64_C(512) << 20);
        assert_true(eval_int("1T") == INT64_C(1) << 40);
        assert_true(eval_int("1P") == INT64_C(1) << 50);
        assert_true(eval_int("7E") == INT64_C(7) << 60);
        assert_true(eval_int("512B") == 512);
        assert_true(eval_int("512b") == 512);
        assert_true(eval_int("2G - 1G") == INT64_C(1) << 30);
        assert_fail_msg("12X", -EINVAL, "column 1: bad number '12X'");
        assert_fail_msg("1 + 12KX", -EINVAL, "column 5: bad number '12KX'");
        assert_fail_msg("12iB", -EINVAL, "bad number");
        assert_fail_msg("12Ki", -EINVAL, "bad number");
        assert_fail_msg("1e5", -EINVAL, "bad number");
        assert_fail_msg("1_000", -EINVAL, "bad number");
        assert_fail_msg("1.5G", -EINVAL, "column 2: unexpected '.'");
}

static void test_seed_case(void **state) {
        assert_true(eval_int("ceil(18G / (2048 * 1024)) + 2") == 9218);
        assert_true(eval_int("ceil(sga_max_size / (facts.hugepages.default_size_kb * 1024)) + hugepage_slack")
                    == 9218);
        assert_true(eval_int("pages(sga_max_size, facts.hugepages.default_size_kb) + hugepage_slack") == 9218);
        assert_true(eval_int("setting.sysctl.vm.nr_hugepages") == 9218);
}

static void test_exact_division(void **state) {
        ht_value v = eval_ok("7 / 2");
        assert_int_equal(v.type, HT_VAL_INT);
        assert_true(v.num == 7 && v.den == 2);
        char *s = NULL;
        assert_int_equal(ht_value_to_string(&v, &s), -EDOM);
        assert_null(s);

        v = eval_ok("6 / 4 * 2");   /* 3/2 * 2 = 3, exactly */
        assert_true(v.num == 3 && v.den == 1);
        assert_true(eval_int("1 / 3 + 2 / 3") == 1);
        assert_true(eval_int("10 / 3 * 3") == 10);
        assert_true(eval_int("ceil(7 / 2)") == 4);
        assert_true(eval_int("floor(7 / 2)") == 3);
        assert_true(eval_int("ceil(-7 / 2)") == -3);
        assert_true(eval_int("floor(-7 / 2)") == -4);
        assert_true(eval_int("ceil(8 / 2)") == 4);
        assert_true(eval_int("floor(-8 / 2)") == -4);
        assert_true(eval_int("ceil(1 / 1000000)") == 1);
        assert_true(eval_int("floor(1 / -1000000)") == -1);
        assert_true(eval_bool("1 / 3 < 1 / 2"));
        assert_true(eval_bool("2 / 6 == 1 / 3"));
        assert_true(eval_bool("9223372036854775807 / 2 > 9223372036854775806 / 2"));
        /* a lookup handing back an unreduced fraction is normalised */
        v = eval_ok("half");
        assert_true(v.num == 1 && v.den == 2);
        assert_true(eval_int("half * 4") == 2);
        assert_true(eval_int("kb(1)") == 1);
        assert_true(eval_int("kb(2048)") == 2);
        assert_true(eval_int("kb(2049)") == 3);
        assert_true(eval_int("kb(0)") == 0);
}

static void test_overflow(void **state) {
        assert_fail_msg("9223372036854775807 + 1", -ERANGE, "column 21: integer overflow");
        assert_fail_msg("9223372036854775808", -ERANGE, "integer overflow");
        assert_fail_msg("99999999999999999999999", -ERANGE, "integer overflow");
        assert_fail_msg("8E", -ERANGE, "integer overflow in '8E'");
        assert_fail_msg("16T * 1T * 1T", -ERANGE, "column 5: integer overflow");
        assert_fail_msg("16T*1T", -ERANGE, "integer overflow");
        assert_fail_msg("-9223372036854775807 - 2", -ERANGE, "integer overflow");
        assert_fail_msg("-(-9223372036854775807 - 1)", -ERANGE, "integer overflow");
        assert_fail_msg("abs(-9223372036854775807 - 1)", -ERANGE, "integer overflow");
        assert_fail_msg("(-9223372036854775807 - 1) / -1", -ERANGE, "integer overflow");
        assert_fail_msg("9223372036854775807 * 2 / 2", -ERANGE, "integer overflow");
        assert_fail_msg("pages(1, 9223372036854775807)", -ERANGE, "integer overflow");
        /* fractions whose terms overflow */
        assert_fail_msg("1 / 9223372036854775807 + 1 / 9223372036854775806", -ERANGE, "integer overflow");
        assert_true(eval_int("9223372036854775807 / 3 * 3") == INT64_MAX);
}

static void test_division_by_zero(void **state) {
        assert_fail_msg("1 / 0", -EDOM, "column 3: division by zero");
        assert_fail_msg("1 / (2 - 2)", -EDOM, "division by zero");
        assert_fail_msg("(1 / 2) / (0 / 5)", -EDOM, "division by zero");
        assert_fail_msg("pages(1G, 0)", -EDOM, "division by zero");
        /* not reached: short-circuit and if() do not evaluate */
        assert_false(eval_bool("false && 1 / 0 > 1"));
        assert_true(eval_bool("true || 1 / 0 > 1"));
        assert_true(eval_int("if(true, 5, 1 / 0)") == 5);
}

static void test_type_errors(void **state) {
        assert_fail_msg("1 + \"a\"", -EINVAL, "column 3: operator '+' cannot take integer and string");
        assert_fail_msg("true * 2", -EINVAL, "operator '*' cannot take boolean and integer");
        assert_fail_msg("1 == \"1\"", -EINVAL, "operator '==' cannot compare integer and string");
        assert_fail_msg("true < false", -EINVAL, "cannot order booleans");
        assert_fail_msg("1 && true", -EINVAL, "column 1: '&&' needs a boolean, got integer");
        assert_fail_msg("true && 1", -EINVAL, "column 9: '&&' needs a boolean, got integer");
        assert_fail_msg("false || \"x\"", -EINVAL, "'||' needs a boolean, got string");
        assert_fail_msg("!1", -EINVAL, "'!' needs a boolean, got integer");
        assert_fail_msg("-\"x\"", -EINVAL, "unary '-' needs an integer, got string");
        assert_fail_msg("if(1, 2, 3)", -EINVAL, "condition of if() needs a boolean, got integer");
        assert_fail_msg("ceil(\"x\")", -EINVAL, "ceil() needs an integer, got string");
        assert_fail_msg("min(1, true)", -EINVAL, "min() needs an integer, got boolean");
        assert_fail_msg("contains(1, \"x\")", -EINVAL, "contains() needs a string, got integer");
        assert_fail_msg("1 < 2 < 3", -EINVAL, "comparisons cannot be chained");
        assert_fail_msg("str(7 / 2)", -EDOM, "7/2 is not a whole number; use ceil() or floor()");
}

static void test_strings(void **state) {
        char *s = eval_str("\"a \\\"quoted\\\" \\\\ b\"");
        assert_string_equal(s, "a \"quoted\" \\ b");
        free(s);
        s = eval_str("\"\"");
        assert_string_equal(s, "");
        free(s);
        s = eval_str("\"250 \" + str(32000) + \" \" + str(8 / 2)");
        assert_string_equal(s, "250 32000 4");
        free(s);
        s = eval_str("str(true) + str(\"x\")");
        assert_string_equal(s, "truex");
        free(s);
        assert_true(eval_bool("\"abc\" == \"abc\""));
        assert_true(eval_bool("\"abc\" != \"abd\""));
        assert_true(eval_bool("\"abc\" < \"abd\""));
        assert_true(eval_bool("\"b\" >= \"abc\""));
        assert_true(eval_bool("contains(facts.kernel.release, \"al8\")"));
        assert_false(eval_bool("contains(facts.kernel.release, \"el7\")"));
        assert_true(eval_bool("contains(\"x\", \"\")"));
        assert_true(eval_bool("startswith(facts.kernel.release, \"5.10.\")"));
        assert_false(eval_bool("startswith(\"5\", \"5.10\")"));
        assert_true(eval_int("int(\"18G\")") == INT64_C(19327352832));
        assert_true(eval_int("int(\" 42 \")") == 42);
        assert_true(eval_int("int(\"-3\")") == -3);
        assert_true(eval_int("int(5)") == 5);
        assert_fail_msg("int(\"abc\")", -EINVAL, "int(): 'abc' is not an integer");
        assert_fail_msg("int(\"\")", -EINVAL, "is not an integer");
        assert_fail_msg("int(\"99999999T\")", -ERANGE, "integer overflow");
        assert_fail_msg("int(true)", -EINVAL, "int() needs a string, got boolean");
        assert_fail_msg("\"abc", -EINVAL, "column 1: unterminated string");
        assert_fail_msg("\"abc\\", -EINVAL, "unknown escape");
        assert_fail_msg("\"a\\nb\"", -EINVAL, "column 3: unknown escape");
        assert_fail_msg("\"a\nb\"", -EINVAL, "control character in string");
}

static void test_versions(void **state) {
        assert_true(eval_bool("version_ge(\"3.10.0-1160.el7\", \"3.5\")"));
        assert_false(eval_bool("version_ge(\"2.6.18-398.el5xen\", \"3.5\")"));
        assert_true(eval_bool("version_ge(\"5.10.134-16.al8.x86_64\", \"5.10.112-11\")"));
        assert_false(eval_bool("version_ge(\"5.10.112-10\", \"5.10.112-11\")"));
        assert_true(eval_bool("version_ge(\"5.10.112-11.al8\", \"5.10.112-11\")"));
        assert_true(eval_bool("version_ge(\"5.10.112-11\", \"5.10.112-11\")"));
        assert_true(eval_bool("version_lt(\"4.18.0\", \"5.4\")"));
        assert_false(eval_bool("version_lt(\"5.15.0-100.96.32.el8uek\", \"5.15\")"));
        assert_true(eval_bool("version_ge(facts.kernel.release, \"5.10.112-11\")"));
        assert_true(eval_bool("version_ge(\"10\", 9)"));
        assert_true(eval_bool("version_ge(\"3.010\", \"3.9\")"));
        /* RHEL 6 kernels: 2.6.32-303 and later (RHEL 6.4+) carry the 3.5
         * swappiness==0 change (rules/60-swappiness.rules). The
         * release number after the dash is compared as a number, the
         * ".el6.x86_64" after it only breaks a tie. */
        assert_true(eval_bool("version_ge(\"2.6.32-754.el6.x86_64\", \"2.6.32-303\")"));
        assert_true(eval_bool("version_ge(\"2.6.32-358.el6.x86_64\", \"2.6.32-303\")"));
        assert_true(eval_bool("version_ge(\"2.6.32-303.el6\", \"2.6.32-303\")"));
        assert_false(eval_bool("version_ge(\"2.6.32-279.el6.x86_64\", \"2.6.32-303\")"));
        assert_false(eval_bool("version_ge(\"2.6.32-71.el6.x86_64\", \"2.6.32-303\")"));
        assert_true(eval_bool("version_lt(\"2.6.32-754.el6.x86_64\", \"3.5\")"));
        /* Debian 6's and kernel.org's 2.6.32 are not RHEL's 2.6.32-303 */
        assert_false(eval_bool("version_ge(\"2.6.32-5-amd64\", \"2.6.32-303\")"));
        assert_false(eval_bool("version_ge(\"2.6.32.61\", \"2.6.32-303\")"));
        assert_true(eval_bool("version_ge(\"99999999999999999999999.1\", \"9999999999999999999999.2\")"));

        assert_int_equal(ht_version_compare("5.10", "5.10"), 0);
        assert_int_equal(ht_version_compare("5.10", "5_10"), 0);
        assert_true(ht_version_compare("5.10", "5.10.0") < 0);
        assert_true(ht_version_compare("5.10.1", "5.10.a") > 0);
        assert_true(ht_version_compare("el8", "el7") > 0);
        assert_true(ht_version_compare("", "1") < 0);
        assert_int_equal(ht_version_compare("", "..."), 0);
        assert_fail_msg("version_ge(true, \"1\")", -EINVAL, "version_ge() needs a string, got boolean");
}

static void test_names(void **state) {
        assert_true(eval_int("facts.memory.total_kb") == INT64_C(64) << 20);
        assert_false(eval_bool("facts.xen"));
        assert_fail_msg("ceil(sga_max_sise / 2)", -ENOENT,
                        "column 6: unknown name 'sga_max_sise' (did you mean 'sga_max_size'?)");
        assert_fail_msg("facts.memory.totl_kb", -ENOENT, "did you mean 'facts.memory.total_kb'?");
        assert_fail_msg("something_else", -ENOENT, "column 1: unknown name 'something_else'");
        char *err = eval_fail("something_else", -ENOENT);
        assert_null(strstr(err, "did you mean"));
        free(err);
        /* "-" is minus, never part of a name */
        assert_fail_msg("hugepage-slack", -ENOENT, "unknown name 'hugepage'");
        assert_true(eval_int("sga_max_size-sga_max_size") == 0);
        assert_fail_msg("broken + 1", -EIO, "cannot look up 'broken'");
        assert_fail_msg("zero_den", -EINVAL, "cannot look up 'zero_den'");
        assert_true(eval_bool("big_string + \"y\" != \"\""));
        assert_fail_msg("big_string + big_string", -ERANGE, "column 12: string too long");
        assert_fail_msg("facts.", -EINVAL, "column 6: unexpected character '.'");
        /* without candidates there is no suggestion */
        ht_value v;
        err = NULL;
        assert_int_equal(ht_expr_eval("sga_max_sise", test_lookup, NULL, &v, &err), -ENOENT);
        assert_string_equal(err, "column 1: unknown name 'sga_max_sise'\n    sga_max_sise\n    ^");
        free(err);
        /* no lookup at all */
        err = NULL;
        assert_int_equal(ht_expr_eval("x", NULL, NULL, &v, &err), -ENOENT);
        free(err);
        assert_int_equal(ht_expr_eval("1 + 1", NULL, NULL, &v, NULL), 0);
        assert_true(v.num == 2);
        assert_int_equal(ht_expr_eval("1 +", NULL, NULL, &v, NULL), -EINVAL);
}

static void test_null(void **state) {
        ht_value v = eval_ok("null");
        assert_int_equal(v.type, HT_VAL_NULL);
        v = eval_ok("facts.hugetext.mode");
        assert_int_equal(v.type, HT_VAL_NULL);
        assert_true(eval_bool("null == null"));
        assert_true(eval_bool("facts.hugetext.mode == null"));
        assert_false(eval_bool("facts.hugetext.mode != null"));
        assert_false(eval_bool("facts.hugetext.mode == 1"));
        assert_true(eval_bool("\"x\" != null"));
        assert_fail_msg("facts.hugetext.mode + 1", -ENODATA,
                        "column 1: 'facts.hugetext.mode' is unknown on this host");
        assert_fail_msg("2 * (1 + facts.hugetext.mode)", -ENODATA,
                        "column 10: 'facts.hugetext.mode' is unknown on this host");
        assert_fail_msg("ceil(if(true, facts.hugetext.mode, 1))", -ENODATA,
                        "'facts.hugetext.mode' is unknown on this host");
        assert_fail_msg("facts.hugetext.mode > 1", -ENODATA, "is unknown on this host");
        assert_fail_msg("!facts.hugetext.mode", -ENODATA, "is unknown on this host");
        assert_fail_msg("str(facts.hugetext.mode)", -ENODATA, "is unknown on this host");
        assert_fail_msg("null + 1", -EINVAL, "column 6: '+' needs a value, got null");
        assert_fail_msg("null < 1", -EINVAL, "'<' needs a value, got null");
        char *s = NULL;
        v = ht_value_null();
        assert_int_equal(ht_value_to_string(&v, &s), -ENODATA);
}

static void test_defined_if(void **state) {
        assert_true(eval_bool("defined(sga_max_size)"));
        assert_false(eval_bool("defined(no_such_name)"));
        assert_false(eval_bool("defined(facts.hugetext.mode)"));
        assert_true(eval_bool("defined(facts.xen)"));
        assert_false(eval_bool("defined(no_such) && no_such > 1"));
        assert_true(eval_int("if(defined(no_such), no_such, 7)") == 7);
        assert_true(eval_int("if(facts.xen, no_such, 8)") == 8);
        assert_true(eval_int("if(!facts.xen, 9, no_such)") == 9);
        assert_true(eval_int("if(1 > 2, 1, if(2 > 1, 2, 3))") == 2);
        assert_fail_msg("defined(broken)", -EIO, "cannot look up 'broken'");
        assert_fail_msg("defined(1)", -EINVAL, "defined() takes a name, got '1'");
        assert_fail_msg("defined(a b)", -EINVAL, "expected ')' after the name in defined()");
        assert_fail_msg("if(true, 1)", -EINVAL, "expected ',' and a third argument to if()");
        assert_fail_msg("if(true, 1, 2, 3)", -EINVAL, "expected ')' after the third argument");
        /* skipped branches are still checked for syntax */
        assert_fail_msg("if(true, 1, nosuchfn(2))", -EINVAL, "unknown function 'nosuchfn'");
        assert_fail_msg("false && (1 +)", -EINVAL, "expected a value, got ')'");
        assert_fail_msg("true || \"abc", -EINVAL, "unterminated string");
        assert_fail_msg("true || 12Q", -EINVAL, "bad number");
        assert_fail_msg("true || min()", -EINVAL, "min() takes at least 1 argument, got 0");
        assert_false(eval_bool("false && defined(x) && -no_such > ceil(no_such)"));
        assert_true(eval_int("if(false, if(no_such, \"a\", -no_such), 3)") == 3);
        /* ... but do not look anything up */
        lookups = 0;
        assert_true(eval_bool("true || sga_max_size > 0 || facts.xen"));
        assert_int_equal(lookups, 0);
}

static void test_functions(void **state) {
        assert_true(eval_int("min(3, 1, 2)") == 1);
        assert_true(eval_int("max(3, 1, 2)") == 3);
        assert_true(eval_int("max(7)") == 7);
        ht_value v = eval_ok("min(1 / 2, 1 / 3)");
        assert_true(v.num == 1 && v.den == 3);
        assert_true(eval_int("abs(-5) + abs(5)") == 10);
        assert_true(eval_int("pages(1G, 2048)") == 512);
        assert_true(eval_int("pages(1G + 1, 2048)") == 513);
        assert_true(eval_int("ceil ( 3 / 2 )") == 2);
        assert_fail_msg("ceil(1, 2)", -EINVAL, "too many arguments to ceil() (at most 1)");
        assert_fail_msg("pages(1)", -EINVAL, "pages() takes 2 arguments, got 1");
        assert_fail_msg("ciel(1)", -EINVAL, "column 1: unknown function 'ciel' (did you mean 'ceil'?)");
        assert_fail_msg("facts.x(1)", -EINVAL, "unknown function 'facts.x'");
        assert_fail_msg("max(1, 2", -EINVAL, "expected ',' or ')' in the arguments, got end of expression");
        assert_fail_msg("max(1,)", -EINVAL, "expected a value, got ')'");
        assert_fail_msg("max(1 2)", -EINVAL, "expected ',' or ')'");
        char src[256] = "max(1";
        for (int i = 0; i < 40; i++)
                strcat(src, ",1");
        strcat(src, ")");
        assert_fail_msg(src, -EINVAL, "too many arguments to max()");
}

static void test_junk(void **state) {
        assert_fail_msg("", -EINVAL, "column 1: empty expression");
        assert_fail_msg("   ", -EINVAL, "empty expression");
        assert_fail_msg(NULL, -EINVAL, "empty expression");
        assert_fail_msg("1 +", -EINVAL, "column 4: unexpected end of expression");
        assert_fail_msg("(1", -EINVAL, "expected ')', got end of expression");
        assert_fail_msg("1)", -EINVAL, "column 2: unexpected ')' after the expression");
        assert_fail_msg("1 2", -EINVAL, "unexpected '2' after the expression");
        assert_fail_msg("1 $ 2", -EINVAL, "column 3: unexpected character '$'");
        assert_fail_msg("a = 1", -EINVAL, "unexpected '=' (use '==' to compare)");
        assert_fail_msg("true & false", -EINVAL, "unexpected '&' (use '&&')");
        assert_fail_msg("true | false", -EINVAL, "unexpected '|' (use '||')");
        assert_fail_msg("1 \x01", -EINVAL, "unexpected byte 0x01");
        assert_fail_msg("\xc3\xa9", -EINVAL, "unexpected byte 0xc3");
        assert_fail_msg("*", -EINVAL, "expected a value, got '*'");
        assert_fail_msg("()", -EINVAL, "expected a value, got ')'");
        assert_fail_msg(",", -EINVAL, "expected a value");
        assert_fail_msg("!", -EINVAL, "unexpected end of expression");
}

static void test_error_snippet(void **state) {
        ht_value v;
        char *err = NULL;
        assert_int_equal(ht_expr_eval_ex("1 + foo", &env, &v, &err), -ENOENT);
        assert_string_equal(err, "column 5: unknown name 'foo'\n    1 + foo\n        ^");
        free(err);
        /* long sources are windowed so the caret stays near the error */
        strbuf b = {0};
        for (int i = 0; i < 100; i++)
                strbuf_append(&b, "1 + ");
        strbuf_append(&b, "foo");
        for (int i = 0; i < 100; i++)
                strbuf_append(&b, " + 1");
        assert_int_equal(ht_expr_eval_ex(b.data, &env, &v, &err), -ENOENT);
        assert_true(startswith(err, "column 401: unknown name 'foo'\n    ..."));
        char *l2 = strchr(err, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
        assert_true(strlen(l2) - strlen(l3) - 1 < 90);
        assert_int_equal(l2[strchr(l3, '^') - l3], 'f');
        free(err);
        strbuf_done(&b);
        /* control characters print as spaces so the caret lines up */
        assert_int_equal(ht_expr_eval_ex("1 +\n\tfoo", &env, &v, &err), -ENOENT);
        assert_string_equal(err, "column 6: unknown name 'foo'\n    1 +  foo\n         ^");
        free(err);
}

static void test_limits(void **state) {
        strbuf b = {0};
        for (int i = 0; i < HT_EXPR_MAX_DEPTH + 10; i++)
                strbuf_append(&b, "(");
        strbuf_append(&b, "1");
        for (int i = 0; i < HT_EXPR_MAX_DEPTH + 10; i++)
                strbuf_append(&b, ")");
        assert_fail_msg(b.data, -EINVAL, "expression too deeply nested");
        strbuf_done(&b);

        for (int i = 0; i < HT_EXPR_MAX_DEPTH / 2; i++)
                strbuf_append(&b, "(");
        strbuf_append(&b, "1");
        for (int i = 0; i < HT_EXPR_MAX_DEPTH / 2; i++)
                strbuf_append(&b, ")");
        assert_true(eval_int(b.data) == 1);
        strbuf_done(&b);

        for (int i = 0; i < 100000; i++)
                strbuf_append(&b, "-");
        strbuf_append(&b, "1");
        assert_fail_msg(b.data, -EINVAL, "expression too long");
        strbuf_done(&b);

        for (int i = 0; i < 1000; i++)
                strbuf_append(&b, "!");
        strbuf_append(&b, "true");
        assert_fail_msg(b.data, -EINVAL, "expression too deeply nested");
        strbuf_done(&b);

        for (int i = 0; i < 300; i++)
                strbuf_append(&b, "ceil(");
        strbuf_append(&b, "1");
        for (int i = 0; i < 300; i++)
                strbuf_append(&b, ")");
        assert_fail_msg(b.data, -EINVAL, "expression too deeply nested");
        strbuf_done(&b);

        /* long flat sums are fine: they do not nest */
        strbuf_append(&b, "0");
        for (int i = 0; i < 10000; i++)
                strbuf_append(&b, "+1");
        assert_true(eval_int(b.data) == 10000);
        strbuf_done(&b);
}

static void test_literals(void **state) {
        ht_value v = ht_value_parse_literal("18G");
        assert_int_equal(v.type, HT_VAL_INT);
        assert_true(v.num == INT64_C(19327352832) && v.den == 1);
        v = ht_value_parse_literal("42");
        assert_true(v.type == HT_VAL_INT && v.num == 42);
        v = ht_value_parse_literal("-1");
        assert_true(v.type == HT_VAL_INT && v.num == -1);
        v = ht_value_parse_literal("2048kB");
        assert_true(v.type == HT_VAL_INT && v.num == 2048 * 1024);
        v = ht_value_parse_literal("true");
        assert_true(v.type == HT_VAL_BOOL && v.num == 1);
        v = ht_value_parse_literal("false");
        assert_true(v.type == HT_VAL_BOOL && v.num == 0);
        v = ht_value_parse_literal(NULL);
        assert_int_equal(v.type, HT_VAL_NULL);

        const char *strings[] = { "yes", "no", "True", "shm", "", " 42", "1.5", "-", "-x", "18X",
                                  "99999999999999999999", "oracle" };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                v = ht_value_parse_literal(strings[i]);
                assert_int_equal(v.type, HT_VAL_STR);
                assert_string_equal(v.str, strings[i]);
                ht_value_done(&v);
                assert_int_equal(v.type, HT_VAL_NULL);
                assert_null(v.str);
        }
}

/* Python's re.search(regex, text, re.MULTILINE) on each, in order:
 * python3 -c 'import re; print(int(re.search(R, T, re.MULTILINE) is not None))' */
static const char *const match_texts[] = {
        "Linux debian12 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) x86_64", /* uname_x86 */
        "Linux alinux3 5.10.134-16.al8.aarch64 #1 SMP Thu Dec 7 14:11:24 CST 2023 aarch64", /* uname_arm */
        "processor\t: 0\nBogoMIPS\t: 200.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\nCPU implementer\t: 0x43\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0x0a1\nCPU revision\t: 0\n", /* thunderx */
        "processor\t: 0\nCPU implementer\t: 0x43\nCPU part\t: 0x0af\nCPU revision\t: 1\n", /* thunderx2 */
        "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\nCPU revision\t: 1\n", /* graviton */
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\nflags\t\t: fpu vme de pse\n", /* amd */
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n", /* intel */
        "model name\t: AMDX fake\n", /* amdx */
        "y", /* y */
        "no", /* no */
        " 1", /* one */
        "", /* empty */
};
static const struct { const char *regex, *python; } match_cases[] = {
        { "aarch64", "010000000000" },
        { "CPU part\\s+:\\s+(0x0?516)|(0x0?af)|(0x0?a[0-3])|(0x0?b8)\\b", "001100000000" },
        { "model name\\s+:.*\\bAMD\\b", "000001000000" },
        { "\\d+\\.\\d+", "111000100000" },
        { "^CPU part\\s+:\\s+0x0a1$", "001000000000" },
        { "[\\d.]+\\s", "111111100000" },
        { "\\bx86_64$", "100000000000" },
        { "(?:el7|al8)\\.", "010000000000" },
        { "^processor\\s*:\\s*\\d+$", "001111100000" },
        { "\\Aprocessor", "001111100000" },
        { "\\Aaarch64", "000000000000" },
        { "1\\n\\Z", "000110000000" },
        { "revision\\t: 1\\Z", "000000000000" },
        { "a{,3}X", "000000110000" },
        { "p{", "000000000000" },
        { "[^\\s]+$", "111111111110" },
        { "\\s*[0-9]", "111111100010" },
        { "\\b[y,Y,1,t,T]\\b", "110110001010" },
        { "processor.*BogoMIPS", "000000000000" },
        { "[\\w-]+amd64", "100000000000" },
        { "^$", "001111110001" },
        { "(?P<impl>0x4[13])\\n", "001110000000" },
        { "\\(R\\)", "000000100000" },
        { "Xeon\\S*\\sGold", "000000100000" },
        { "\\D\\d\\.\\d\\d", "110000100000" },
        { "[\\s]0x", "001110000000" },
        { "GHz$", "000000100000" },
        { "^\\w+ \\w+\\t", "001111110000" },
        { "0x0+?a", "001100000000" },
        { "implementer\\t: 0x4[^2-9]", "000010000000" },
        { "0\\WBogo", "001000000000" },
        { "0\\sBogo", "001000000000" },
        { "0[\\s]BogoMIPS", "001000000000" },
        { "^\\S+\\t: 0$", "001111100000" },
        { "\\Bcessor", "001111100000" },
};

/* matches() against what Python's re gives for the same regex and text:
 * the regexes of Debian's tuned 2.20 profiles (uname_regex, cpuinfo_regex,
 * regex_search_ternary in /usr/lib/tuned/ * /tuned.conf) and each spelling
 * regex-python.h translates or passes through. */
static void test_matches_python(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(match_cases); i++)
                for (size_t k = 0; k < ELEMENTSOF(match_texts); k++) {
                        match_text = match_texts[k];
                        strbuf b = {0};
                        strbuf_append(&b, "matches(text, \"");
                        for (const char *c = match_cases[i].regex; *c; c++) {
                                if (*c == '"' || *c == '\\')
                                        strbuf_append(&b, "\\");
                                strbuf_appendn(&b, c, 1);
                        }
                        strbuf_append(&b, "\")");
                        _cleanup_free_ char *src = strbuf_steal(&b);
                        bool got = eval_bool(src);
                        if (got != (match_cases[i].python[k] == '1'))
                                fail_msg("%s on text %zu: %d, Python says %c", src, k, got,
                                         match_cases[i].python[k]);
                }
}

/* the translator's own tests are tests/unit/test-regex-python.c; these
 * hold matches() to it */
static void test_matches_translation(void **state) {
        /* what glibc's extensions do, as Python's re does */
        match_text = "ab_1 \t\nc";
        assert_true(eval_bool("matches(text, \"^ab_1\\\\s+$\")"));
        assert_true(eval_bool("matches(text, \"\\\\w\\\\W\")"));
        assert_true(eval_bool("matches(text, \"\\\\bab\\\\B\")"));
        assert_false(eval_bool("matches(text, \"b\\\\b\")"));
        assert_true(eval_bool("matches(text, \"\\\\S\\\\s\")"));
        assert_true(eval_bool("matches(text, \"^c\\\\Z\")"));
        assert_false(eval_bool("matches(text, \"\\\\Ac\")"));
        assert_true(eval_bool("matches(text, \"\\\\Aab\")"));
        assert_true(eval_bool("matches(\"xAy\", \"x\\\\x41y\")"));
        /* documented difference: [^...] never matches a newline (REG_NEWLINE);
         * Python's does */
        assert_false(eval_bool("matches(text, \"1[^x]+c\")"));
        assert_true(eval_bool("matches(text, \"1\\\\s+c\")"));
}

static void test_matches_errors(void **state) {
        assert_fail_msg("matches(\"x\", \"(a\")", -EINVAL, "matches(): the regex \"(a\" is not one hosttune can use");
        assert_fail_msg("matches(\"x\", \"\\\\p\")", -EINVAL, "'\\p' is not supported");
        /* what POSIX cannot say is an error too (tuned's functions say -ENOTSUP) */
        assert_fail_msg("matches(\"aa\", \"(a)\\\\1\")", -EINVAL, "'\\1' is not supported (backreferences");
        assert_fail_msg("matches(1, \"a\")", -EINVAL, "matches() needs a string, got integer");
        assert_fail_msg("matches(\"a\", 1)", -EINVAL, "matches() needs a string, got integer");
        assert_fail_msg("matches(\"a\")", -EINVAL, "matches() takes 2 arguments");
        /* a null text is null, and says which fact it was */
        ht_value v = eval_ok("matches(facts.cpu.cpuinfo, \"CPU part\")");
        assert_int_equal(v.type, HT_VAL_NULL);
        assert_fail_msg("matches(facts.cpu.cpuinfo, \"x\") && true", -ENODATA,
                        "'facts.cpu.cpuinfo' is unknown on this host");
        /* the regex is checked even then */
        assert_fail_msg("matches(facts.cpu.cpuinfo, \"(\")", -EINVAL, "is not one hosttune can use");
        assert_true(eval_bool("matches(facts.kernel.uname, \"aarch64\") || matches(facts.cpu.cpuinfo, \"x\")"));
        assert_false(eval_bool("matches(facts.kernel.uname, \"x86_64\") && matches(facts.cpu.cpuinfo, \"x\")"));
}

static void test_values(void **state) {
        char *s;
        ht_value v = ht_value_int(-42);
        assert_int_equal(ht_value_to_string(&v, &s), 0);
        assert_string_equal(s, "-42");
        free(s);
        v = ht_value_bool(true);
        assert_int_equal(ht_value_to_string(&v, &s), 0);
        assert_string_equal(s, "true");
        free(s);
        v = ht_value_str("abc");
        ht_value c = ht_value_copy(&v);
        assert_ptr_not_equal(c.str, v.str);
        assert_int_equal(ht_value_to_string(&c, &s), 0);
        assert_string_equal(s, "abc");
        free(s);
        ht_value_done(&v);
        ht_value_done(&c);
        ht_value_done(NULL);
        assert_string_equal(ht_value_type_name(HT_VAL_INT), "integer");
        assert_string_equal(ht_value_type_name(HT_VAL_BOOL), "boolean");
        assert_string_equal(ht_value_type_name(HT_VAL_STR), "string");
        assert_string_equal(ht_value_type_name(HT_VAL_NULL), "null");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_arith_precedence),
                cmocka_unit_test(test_units),
                cmocka_unit_test(test_seed_case),
                cmocka_unit_test(test_exact_division),
                cmocka_unit_test(test_overflow),
                cmocka_unit_test(test_division_by_zero),
                cmocka_unit_test(test_type_errors),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_versions),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_null),
                cmocka_unit_test(test_defined_if),
                cmocka_unit_test(test_functions),
                cmocka_unit_test(test_junk),
                cmocka_unit_test(test_error_snippet),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_literals),
                cmocka_unit_test(test_values),
                cmocka_unit_test(test_matches_python),
                cmocka_unit_test(test_matches_translation),
                cmocka_unit_test(test_matches_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
