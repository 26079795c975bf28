/* tuned's ${f:...} functions (tuned-functions.c). The expected values of
 * test_tuned_values are tuned 2.20's own: each input was run through
 * tuned.profiles.functions.functions.Functions().expand (Debian's
 * tuned 2.20.0-1, Python 3.11) with /sys/devices/system/cpu/online
 * "0-7", .../present "0-15", the /proc/cpuinfo of FACTS below and
 * virt-what printing "kvm". Where tuned only logs an error (and keeps
 * the text) or raises, hosttune fails with -EINVAL: the messages are
 * hosttune's, tuned's own where it logs one. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tuned-functions.h"
#include "util.h"

#define FACTS                                                                                                   \
        "{\"hypervisor\":\"kvm\",\"container\":null,\"cpu\":{\"online\":\"0-7\",\"present\":\"0-15\","        \
        "\"cpuinfo\":\"processor\\t: 0\\nvendor_id\\t: GenuineIntel\\nmodel name\\t: Intel(R) Xeon(R) Gold 6248 " \
        "CPU @ 2.50GHz\\nflags\\t\\t: fpu vme avx2 hypervisor\"}}"

static const struct {
        const char *in, *out;
        int r;
        const char *error;
} tuned_values[] = {
        {"${f:strip:  a b  }", "a b", 0, NULL},
        {"${f:strip:\t x :y \n}", "x y", 0, NULL},
        {"${f:strip: a:b:c }", "abc", 0, NULL},
        {"${f:strip:\xc2""\xa0""x\xe3""\x80""\x80""}", "x", 0, NULL},
        {"${f:kb2s:4}", "8", 0, NULL},
        {"${f:kb2s: +128 }", "256", 0, NULL},
        {"${f:kb2s:-3}", "-6", 0, NULL},
        {"${f:kb2s:1_024}", "2048", 0, NULL},
        {"${f:kb2s:99999999999999999999}", "199999999999999999998", 0, NULL},
        {"${f:kb2s:abc}", "${f:kb2s:abc}", 0, NULL},
        {"${f:kb2s:1__0}", "${f:kb2s:1__0}", 0, NULL},
        {"${f:kb2s:4:5}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'kb2s'"},
        {"${f:s2kb:8}", "4", 0, NULL},
        {"${f:s2kb:5}", "2", 0, NULL},
        {"${f:s2kb:7}", "4", 0, NULL},
        {"${f:s2kb:-3}", "-2", 0, NULL},
        {"${f:s2kb:1}", "0", 0, NULL},
        {"${f:s2kb:99999999999999999999}", "50000000000000000000", 0, NULL},
        {"${f:s2kb:18014398509481985}", "9007199254740992", 0, NULL},
        {"${f:s2kb:x}", "${f:s2kb:x}", 0, NULL},
        {"${f:cpulist_unpack:1-3,4}", "1,2,3,4", 0, NULL},
        {"${f:cpulist_unpack:0-5,^3}", "0,1,2,4,5", 0, NULL},
        {"${f:cpulist_unpack:0-5,!1-2}", "0,3,4,5", 0, NULL},
        {"${f:cpulist_unpack:0xf,00000000,,3}", "3,32,33,34,35", 0, NULL},
        {"${f:cpulist_unpack:0x_f}", "0,1,2,3", 0, NULL},
        {"${f:cpulist_unpack:'0-2'}", "0,1,2", 0, NULL},
        {"${f:cpulist_unpack:\"1,3\"}", "1,3", 0, NULL},
        {"${f:cpulist_unpack: 2 - 4 ,+7}", "2,3,4,7", 0, NULL},
        {"${f:cpulist_unpack:5-3}", "", 0, NULL},
        {"${f:cpulist_unpack:1-3-9}", "1,2,3", 0, NULL},
        {"${f:cpulist_unpack:1,abc,3}", "", 0, NULL},
        {"${f:cpulist_unpack:0-3,^x}", "", 0, NULL},
        {"${f:cpulist_unpack:0-3:8-9}", "0,1,2,3,8,9", 0, NULL},
        {"${f:cpulist_unpack}", "", 0, NULL},
        {"${f:cpulist_unpack:0xg}", NULL, -EINVAL, "cpulist_unpack: invalid hexadecimal mask '0xg'"},
        {"${f:cpulist_pack:1,2,3,5}", "1-3,5", 0, NULL},
        {"${f:cpulist_pack:0-3,5,7-8,10}", "0-3,5,7-8,10", 0, NULL},
        {"${f:cpulist_pack:9,1,0,2}", "0-2,9", 0, NULL},
        {"${f:cpulist_pack:4}", "4", 0, NULL},
        {"${f:cpulist_pack:abc}", "", 0, NULL},
        {"${f:cpulist2hex:0}", "00000001", 0, NULL},
        {"${f:cpulist2hex:0-3}", "0000000f", 0, NULL},
        {"${f:cpulist2hex:1,3,32}", "00000001,0000000a", 0, NULL},
        {"${f:cpulist2hex:0-63}", "ffffffff,ffffffff", 0, NULL},
        {"${f:cpulist2hex:x}", "00000000", 0, NULL},
        {"${f:cpulist2hex:2:5}", "00000024", 0, NULL},
        {"${f:cpulist2hex_invert:0-3}", "000000f0", 0, NULL},
        {"${f:cpulist2hex_invert:1}", "000000fd", 0, NULL},
        {"${f:hex2cpulist:f}", "0,1,2,3", 0, NULL},
        {"${f:hex2cpulist:0x00000001,00000003}", "0,1,32", 0, NULL},
        {"${f:hex2cpulist:-f}", "", 0, NULL},
        {"${f:hex2cpulist:0x}", NULL, -EINVAL, "hex2cpulist: invalid hexadecimal mask '0x'"},
        {"${f:hex2cpulist:zz}", NULL, -EINVAL, "hex2cpulist: invalid hexadecimal mask 'zz'"},
        {"${f:cpulist_invert:0,2}", "1,3,4,5,6,7", 0, NULL},
        {"${f:cpulist_invert:0-7}", "", 0, NULL},
        {"${f:cpulist_invert:1-3:5}", "0,4,6,7", 0, NULL},
        {"${f:cpulist_online:1,6-9}", "1,6,7", 0, NULL},
        {"${f:cpulist_online:0-3:12}", "0,1,2,3", 0, NULL},
        {"${f:cpulist_present:3,14-20}", "3,14,15", 0, NULL},
        {"${f:cpulist_present:0,,20}", "0", 0, NULL},
        {"${f:cpulist2devs:0-2,5}", "cpu0,cpu1,cpu2,cpu5", 0, NULL},
        {"${f:cpulist2devs:1:3}", "cpu1,cpu3", 0, NULL},
        {"${f:cpulist2devs}", "", 0, NULL},
        {"${f:regex_search_ternary:3:\\s*[0-9]: isolcpus=3:}", " isolcpus=3", 0, NULL},
        {"${f:regex_search_ternary::\\s*[0-9]: isolcpus=:}", "", 0, NULL},
        {"${f:regex_search_ternary:y:\\b[y,Y,1,t,T]\\b:managed_irq,domain,:}", "managed_irq,domain,", 0, NULL},
        {"${f:regex_search_ternary:no:\\b[y,Y,1,t,T]\\b:managed_irq,domain,:}", "", 0, NULL},
        {"${f:regex_search_ternary:a.b:\\d+:T:F}", "F", 0, NULL},
        {"${f:regex_search_ternary:x:[:T:F}", NULL, -EINVAL, "regex_search_ternary: invalid regular expression '['"},
        {"${f:regex_search_ternary:x:y:T}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'regex_search_ternary'"},
        {"${f:cpuinfo_check:GenuineIntel:intel:AuthenticAMD:amd:other}", "intel", 0, NULL},
        {"${f:cpuinfo_check:AuthenticAMD:amd:\\bavx2\\b:avx2}", "avx2", 0, NULL},
        {"${f:cpuinfo_check:^flags\\s*\\:.*\\bavx512f\\b:avx512}", "", 0, NULL},
        {"${f:cpuinfo_check:nomatch:x:fallback}", "fallback", 0, NULL},
        {"${f:cpuinfo_check:x}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'cpuinfo_check'"},
        {"${f:assertion:cores set:1:1}", "${f:assertion:cores set:1:1}", 0, NULL},
        {"${f:assertion:cores set:1:2}", NULL, -EINVAL, "assertion 'cores set' failed: '1' != '2'"},
        {"${f:assertion_non_equal:isolated_cores are set:a:b}", "${f:assertion_non_equal:isolated_cores are set:a:b}", 0, NULL},
        {"${f:assertion_non_equal:isolated_cores are set:a:a}", NULL, -EINVAL, "assertion 'isolated_cores are set' failed: 'a' == 'a'"},
        {"${f:assertion:x:y}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'assertion'"},
        {"${f:virt_check:virtual-guest:throughput-performance}", "virtual-guest", 0, NULL},
        {"${f:virt_check:a}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'virt_check'"},
        {"${f:nonexistent:1}", NULL, -ENOEXEC, "function 'nonexistent' not implemented"},
        {"${f:}", NULL, -ENOEXEC, "invalid function name ''"},
        {"${f:bad-name:1}", NULL, -ENOEXEC, "invalid function name 'bad-name'"},
        {"${f}", NULL, -EINVAL, "'${f}' names no function"},
        {"${f:strip}", NULL, -ENOEXEC, "invalid number of arguments for builtin function 'strip'"},
        {"${f:strip:a\\:b}", "a:b", 0, NULL},
        {"${f:strip:a\\\\:b}", "a\\:b", 0, NULL},
        {"${v}${f:strip: x }${other}", "${v}x${other}", 0, NULL},
        {"$${f:strip: x }", "$x", 0, NULL},
        {"\\${f:strip: x }", "${f:strip: x }", 0, NULL},
        {"\\${f:strip:x}\\${f:strip:y}", "${f:strip:x}\\${f:strip:y}", 0, NULL},
        {"\\${f:strip:x}\n\\${f:strip:y}", "${f:strip:x}\n${f:strip:y}", 0, NULL},
        {"${f:strip:${f:cpulist_pack:${f:cpulist_unpack:1,2,3}}}", "1-3", 0, NULL},
        {"${f:cpulist2hex:${f:cpulist_invert:${f:cpulist_unpack:0-3}}}", "000000f0", 0, NULL},
        {"a${f:strip: }${f:strip:x}", "ax", 0, NULL},
        {"${f:strip: }${f:strip:x}", NULL, -EINVAL, "invalid variable syntax, non pair '}' in: '${f:strip: }${f:strip:x}'"},
        {"${f:strip:x\\}", "x\\", 0, NULL},
        {"x}", NULL, -EINVAL, "invalid variable syntax, non pair '}' in: 'x}'"},
        {"${x", NULL, -EINVAL, "invalid variable syntax, non pair '{' in: '${x'"},
        {"${x}}", NULL, -EINVAL, "invalid variable syntax, non pair '}' in: '${x}}'"},
        {"plain text", "plain text", 0, NULL},
};

static int expand(const char *facts_json, const char *in, char **out, char **error) {
        json_object *facts = json_tokener_parse(facts_json);
        assert_non_null(facts);
        *out = *error = NULL;
        int r = ht_tuned_expand_functions(in, facts, out, error);
        json_object_put(facts);
        if (r < 0) {
                assert_null(*out);
                assert_non_null(*error);
        } else {
                assert_non_null(*out);
                assert_null(*error);
        }
        return r;
}

static void check(const char *facts, const char *in, int want_r, const char *want) {
        _cleanup_free_ char *out = NULL, *error = NULL;
        int r = expand(facts, in, &out, &error);
        if (r != want_r || !streq(want_r < 0 ? error : out, want))
                fail_msg("%s: got %d '%s', want %d '%s'", in, r, r < 0 ? error : out, want_r, want);
}

static void test_tuned_values(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(tuned_values); i++)
                check(FACTS, tuned_values[i].in, tuned_values[i].r,
                      tuned_values[i].r < 0 ? tuned_values[i].error : tuned_values[i].out);
}

/* Where the facts decide: virt_check's mapping of virt-what, the CPU
 * lists' online and present sets. */
static void test_facts(void **state) {
        const char *call = "${f:virt_check:vm:metal}";
        check("{\"hypervisor\":\"kvm\",\"container\":null}", call, 0, "vm");
        check("{\"hypervisor\":\"xen\",\"container\":null}", call, 0, "vm");     /* dom0 too: virt-what says xen */
        check("{\"hypervisor\":\"other\",\"container\":null}", call, 0, "vm");   /* virt-what's "virt" */
        check("{\"hypervisor\":\"none\",\"container\":null}", call, 0, "metal");
        check("{\"hypervisor\":\"none\"}", call, 0, "metal");
        check("{\"hypervisor\":\"none\",\"container\":\"docker\"}", call, 0, "vm");
        check("{\"hypervisor\":\"none\",\"container\":\"podman\"}", call, 0, "vm");
        check("{\"hypervisor\":\"none\",\"container\":\"lxc-libvirt\"}", call, 0, "vm");
        check("{\"hypervisor\":\"amazon\",\"container\":\"kubernetes\"}", call, 0, "vm");
        check("{\"hypervisor\":\"none\",\"container\":\"systemd-nspawn\"}", call, -ENOTSUP,
              "virt_check: tuned asks virt-what, whose answer in a systemd-nspawn container on bare metal depends "
              "on the container's cgroup paths, which the facts lack");
        check("{}", call, -ENOTSUP,
              "virt_check: tuned asks virt-what whether this is a virtual machine; the facts do not say (no hypervisor)");
        check("{\"hypervisor\":null,\"container\":null}", call, -ENOTSUP,
              "virt_check: tuned asks virt-what whether this is a virtual machine; the facts do not say (no hypervisor)");

        /* tuned prints cpulist_invert in a CPython set's order (tuned's
         * own values, online and list as given) */
        check("{\"cpu\":{\"online\":\"2,9\"}}", "${f:cpulist_invert:0}", 0, "9,2");
        check("{\"cpu\":{\"online\":\"0,2-3,9,64-65\"}}", "${f:cpulist_invert:0,,1}", 0, "64,65,2,3,9");
        check("{\"cpu\":{\"online\":\"0,2-3,9,64-65\"}}", "${f:cpulist_invert:63:3}", 0, "0,65,2,64,9");
        check("{\"cpu\":{\"online\":\"393,676,1296,1405,1661,1786,1843,3264,4178,7622\"}}", "${f:cpulist_invert:1}", 0,
              "3264,676,7622,393,1296,4178,1405,1843,1786,1661");
        check("{\"cpu\":{\"online\":\"0-7\"}}", "${f:cpulist_invert:2,5}", 0, "0,1,3,4,6,7");
        check("{\"cpu\":{\"online\":\"0-3,8-11\"}}", "${f:cpulist_invert:1-2}", 0, "0,3,8,9,10,11");
        check("{\"cpu\":{\"online\":\"0-3,8-11\"}}", "${f:cpulist2hex_invert:1-2}", 0, "00000f09");
        check("{\"cpu\":{\"online\":\"0-3\",\"present\":\"0-7\"}}", "${f:cpulist_online:2-6}", 0, "2,3");
        check("{\"cpu\":{\"online\":\"0-3\",\"present\":\"0-7\"}}", "${f:cpulist_present:2-9}", 0, "2,3,4,5,6,7");
        check("{\"cpu\":{\"present\":\"0-7\"}}", "${f:cpulist_online:1}", -ENOTSUP,
              "cpulist_online needs the online CPUs (/sys/devices/system/cpu/online), which the facts lack (cpu.online)");
        check("{\"cpu\":{\"online\":\"0-7\"}}", "${f:cpulist_present:1}", -ENOTSUP,
              "cpulist_present needs the present CPUs (/sys/devices/system/cpu/present), which the facts lack (cpu.present)");
        check("{}", "${f:cpulist_invert:1}", -ENOTSUP,
              "cpulist_invert needs the online CPUs (/sys/devices/system/cpu/online), which the facts lack (cpu.online)");
        check("{\"cpu\":{\"count\":4}}", "${f:cpuinfo_check:x:y}", -ENOTSUP,
              "cpuinfo_check needs /proc/cpuinfo, which the facts lack (cpu.cpuinfo)");
        /* a fact of the wrong type is as good as none */
        check("{\"cpu\":{\"online\":7}}", "${f:cpulist_invert:1}", -ENOTSUP,
              "cpulist_invert needs the online CPUs (/sys/devices/system/cpu/online), which the facts lack (cpu.online)");
        check("{\"cpu\":7}", "${f:cpulist_invert:1}", -ENOTSUP,
              "cpulist_invert needs the online CPUs (/sys/devices/system/cpu/online), which the facts lack (cpu.online)");
        /* the functions that need no facts work without any */
        check("{}", "${f:cpulist_pack:0,1,2}", 0, "0-2");
}

/* What needs a program or live state, and where hosttune stops short of
 * Python. */
static void test_not_supported(void **state) {
        check(FACTS, "${f:strip:${f:exec:mktemp:-d}}", -ENOTSUP,
              "exec runs 'mktemp' and takes its output; hosttune runs no programs to read a profile");
        check(FACTS, "${f:exec}", -ENOEXEC, "invalid number of arguments for builtin function 'exec'");
        /* tuned's own words before it runs nproc: a number is taken as is */
        check(FACTS, "combined ${f:check_net_queue_count:4}", 0, "combined 4");
        check(FACTS, "combined ${f:check_net_queue_count:${netdev_queue_count}}", -ENOTSUP,
              "check_net_queue_count: without a queue count ('${netdev_queue_count}') tuned runs nproc, the number of "
              "CPUs its daemon may run on, which the facts lack");
        check(FACTS, "${f:calc_isolated_cores}", -ENOTSUP,
              "calc_isolated_cores needs each CPU's package "
              "(/sys/devices/system/cpu/cpu*/topology/physical_package_id), which the facts lack");
        check(FACTS, "${f:calc_isolated_cores:2}", -ENOTSUP,
              "calc_isolated_cores needs each CPU's package "
              "(/sys/devices/system/cpu/cpu*/topology/physical_package_id), which the facts lack");
        check(FACTS, "${f:calc_isolated_cores:-1}", -EINVAL,
              "invalid argument '-1' for builtin function 'calc_isolated_cores', it must be non-negative integer");
        check(FACTS, "${f:calc_isolated_cores:1:2}", -ENOEXEC,
              "invalid number of arguments for builtin function 'calc_isolated_cores'");
        /* lookaround has no POSIX form */
        check(FACTS, "${f:regex_search_ternary:ab:a(?=b):T:F}", -ENOTSUP,
              "regex_search_ternary: the regular expression 'a(?=b)' uses Python syntax POSIX regular expressions "
              "lack (backreferences, lookaround, inline flags, ...)");
        /* int() reads every script's decimal digits, as Python does */
        check(FACTS, "${f:kb2s:\xd9\xa3}", 0, "6");
        check(FACTS, "${f:cpulist_unpack:1,\xd9\xa3-\xf0\x9d\x9f\x93}", 0, "1,3,4,5");
        check(FACTS, "${f:hex2cpulist:\xd9\xa3" "f}", 0, "0,1,2,3,4,5");
        check(FACTS, "${f:s2kb: \xd9\xa1\xd9\xa5 }", 0, "8");
        /* ... and other letters are junk (tuned: ValueError, the call stays) */
        check(FACTS, "${f:kb2s:x\xd9\xa3}", 0, "${f:kb2s:x\xd9\xa3}");
        check(FACTS, "${f:kb2s:\xef\xbc\x91\xe2\x85\xa0}", 0, "${f:kb2s:\xef\xbc\x91\xe2\x85\xa0}");
        /* Unicode whitespace is whitespace to str.strip() and int() */
        check(FACTS, "${f:kb2s:\xc2\xa0" "21\xe3\x80\x80}", 0, "42");
}

static void test_limits(void **state) {
        /* Linux has at most 8192 CPUs; tuned's lists have no bound */
        _cleanup_free_ char *out = NULL, *error = NULL;
        assert_int_equal(expand(FACTS, "${f:cpulist_pack:${f:cpulist_unpack:0-8191}}", &out, &error), 0);
        assert_string_equal(out, "0-8191");
        free(out);
        assert_int_equal(expand(FACTS, "${f:cpulist2hex:8191}", &out, &error), 0);
        assert_int_equal(strlen(out), 2048 + 255);
        assert_true(startswith(out, "80000000,00000000,"));
        check(FACTS, "${f:cpulist_unpack:0-8192}", -EINVAL, "cpulist_unpack: CPU 8192 is above 8191, the most Linux has");
        check(FACTS, "${f:cpulist_unpack:99999999999999999999999}", -EINVAL,
              "cpulist_unpack: CPU 18446744073709551615 is above 8191, the most Linux has");
        strbuf b = {0};
        strbuf_append(&b, "${f:hex2cpulist:1");
        for (int i = 0; i < 2048; i++)
                strbuf_append(&b, "0");
        strbuf_append(&b, "}");
        free(out);
        out = NULL;
        assert_int_equal(expand(FACTS, b.data, &out, &error), -EINVAL);
        assert_true(startswith(error, "hex2cpulist: mask '1000"));
        assert_true(endswith(error, "' names a CPU above 8191, the most Linux has"));
        strbuf_done(&b);
        free(error);
        error = NULL;
        strbuf_append(&b, "${f:hex2cpulist:08");
        for (int i = 0; i < 2047; i++)
                strbuf_append(&b, "0");
        strbuf_append(&b, "}");
        assert_int_equal(expand(FACTS, b.data, &out, &error), 0);
        assert_string_equal(out, "8191");
        strbuf_done(&b);
        /* excluding CPUs beyond the bound is harmless */
        check(FACTS, "${f:cpulist_unpack:0-3,^2-99999999999}", 0, "0,1");

        /* nesting and growth are bounded */
        for (int i = 0; i < 65; i++)
                strbuf_append(&b, "${f:strip:");
        for (int i = 0; i < 65; i++)
                strbuf_append(&b, "}");
        free(out);
        free(error);
        out = error = NULL;
        assert_int_equal(expand(FACTS, b.data, &out, &error), -EINVAL);
        assert_true(startswith(error, "more than 64 nested '${' in: "));
        strbuf_done(&b);
        for (int i = 0; i < 64; i++)
                strbuf_append(&b, "${f:strip:${f:cpulist2devs:0-8191}}");
        free(error);
        error = NULL;
        assert_int_equal(expand(FACTS, b.data, &out, &error), -EINVAL);
        assert_true(endswith(error, ": the expanded value grows beyond 1048576 bytes"));
        strbuf_done(&b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_tuned_values),
                cmocka_unit_test(test_facts),
                cmocka_unit_test(test_not_supported),
                cmocka_unit_test(test_limits),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
