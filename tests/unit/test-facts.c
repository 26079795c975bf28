/* Unit tests of the facts parsers on strings, garbage included, and of
 * collection through a throwaway root with broken sources. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "context.h"
#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* Whether some warning contains needle. */
static bool warned(const ht_facts *f, const char *needle) {
        for (size_t i = 0; f->warnings && f->warnings[i]; i++)
                if (strstr(f->warnings[i], needle))
                        return true;
        return false;
}

static void parse_meminfo(ht_facts *f, const char *s) {
        ht_facts_parse_meminfo(f, s, strlen(s), "meminfo");
}

static const char MEMINFO_OK[] =
        "MemTotal:       16377536 kB\n"
        "MemFree:        14978204 kB\n"
        "MemAvailable:   15689732 kB\n"
        "SwapTotal:       1000444 kB\n"
        "PageTables:         3508 kB\n"
        "HugePages_Total:     512\n"
        "HugePages_Free:      500\n"
        "HugePages_Rsvd:        3\n"
        "HugePages_Surp:        0\n"
        "Hugepagesize:       2048 kB\n"
        "Hugetlb:         1048576 kB\n";

static void test_meminfo_ok(void **state) {
        ht_facts *f = ht_facts_new();
        parse_meminfo(f, MEMINFO_OK);
        assert_true(f->memory_known);
        assert_int_equal(f->mem_total_kb, 16377536);
        assert_int_equal(f->mem_available_kb, 15689732);
        assert_int_equal(f->page_tables_kb, 3508);
        assert_int_equal(f->swap_total_kb, 1000444);
        assert_int_equal(f->hugepages_supported, HT_YES);
        assert_int_equal(f->hugepages_total, 512);
        assert_int_equal(f->hugepages_free, 500);
        assert_int_equal(f->hugepages_rsvd, 3);
        assert_int_equal(f->hugepages_surp, 0);
        assert_int_equal(f->hugepage_default_kb, 2048);
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);
}

static void test_meminfo_no_hugepages(void **state) {
        /* the RHEL 5 Xen kernel: no HugePages lines at all */
        ht_facts *f = ht_facts_new();
        parse_meminfo(f, "MemTotal:      8388608 kB\nMemFree:       6124512 kB\n"
                         "PageTables:       8764 kB\nVmallocChunk: 34359733755 kB\n");
        assert_true(f->memory_known);
        assert_int_equal(f->mem_total_kb, 8388608);
        assert_int_equal(f->hugepages_supported, HT_NO);
        assert_true(f->hugepages_total == HT_U64_UNKNOWN);
        assert_true(f->hugepage_default_kb == HT_U64_UNKNOWN);
        assert_true(f->mem_available_kb == HT_U64_UNKNOWN); /* 2.6.18 had none */
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);
}

static void test_meminfo_truncated(void **state) {
        /* cut mid-line before the HugePages lines: the last line is not
         * trusted and HugePages support stays unknown, not "no" */
        ht_facts *f = ht_facts_new();
        parse_meminfo(f, "MemTotal:       16377536 kB\nMemFree:        149");
        assert_int_equal(f->mem_total_kb, 16377536);
        assert_true(f->mem_free_kb == HT_U64_UNKNOWN);
        assert_int_equal(f->hugepages_supported, HT_UNKNOWN);
        assert_true(warned(f, "meminfo:2: truncated line"));
        ht_facts_free(f);

        /* cut inside the HugePages block: the number read is not used */
        f = ht_facts_new();
        parse_meminfo(f, "MemTotal:       16377536 kB\nHugePages_Total:     51");
        assert_int_equal(f->hugepages_supported, HT_UNKNOWN);
        assert_true(f->hugepages_total == HT_U64_UNKNOWN);
        assert_true(warned(f, "truncated"));
        ht_facts_free(f);

        /* empty file */
        f = ht_facts_new();
        parse_meminfo(f, "");
        assert_false(f->memory_known);
        assert_int_equal(f->hugepages_supported, HT_UNKNOWN);
        assert_true(warned(f, "no valid MemTotal"));
        ht_facts_free(f);
}

static void test_meminfo_garbage(void **state) {
        ht_facts *f = ht_facts_new();
        parse_meminfo(f, "MemTotal:       lots kB\n"
                         "MemFree:        -12 kB\n"
                         "PageTables:     3508\n"           /* unit missing */
                         "HugePages_Total:   12 kB\n"       /* a count with a unit */
                         "HugePages_Free:  99999999999999999999999\n"
                         "this is not meminfo\n"
                         "Hugepagesize:       2048 kB\n");
        assert_false(f->memory_known);
        assert_true(f->mem_total_kb == HT_U64_UNKNOWN);
        assert_true(f->mem_free_kb == HT_U64_UNKNOWN);
        assert_true(f->page_tables_kb == HT_U64_UNKNOWN);
        assert_true(f->hugepages_total == HT_U64_UNKNOWN);
        assert_true(f->hugepages_free == HT_U64_UNKNOWN);
        assert_int_equal(f->hugepage_default_kb, 2048);
        assert_true(warned(f, "meminfo:1: MemTotal has a garbled value"));
        assert_true(warned(f, "more bad lines"));
        assert_true(warned(f, "no valid MemTotal"));
        ht_facts_free(f);

        /* binary junk: NUL bytes and control characters */
        static const char junk[] = "MemTotal: 1\0\x01\x02\xff\xfe garbage\n";
        f = ht_facts_new();
        ht_facts_parse_meminfo(f, junk, sizeof(junk) - 1, "meminfo");
        assert_true(warned(f, "binary data"));
        assert_int_equal(f->hugepages_supported, HT_UNKNOWN);
        ht_facts_free(f);
}

static void test_bracketed(void **state) {
        char *s = NULL;
        assert_int_equal(ht_parse_bracketed("always [madvise] never", &s), 0);
        assert_string_equal(s, "madvise");
        free(s);
        assert_int_equal(ht_parse_bracketed("[always] madvise never", &s), 0);
        assert_string_equal(s, "always");
        free(s);
        assert_int_equal(ht_parse_bracketed("always defer defer+madvise [madvise] never", &s), 0);
        assert_string_equal(s, "madvise");
        free(s);
        s = NULL;
        assert_int_equal(ht_parse_bracketed("always madvise never", &s), -EINVAL);
        assert_int_equal(ht_parse_bracketed("[always] [madvise] never", &s), -EINVAL);
        assert_int_equal(ht_parse_bracketed("always [] never", &s), -EINVAL);
        assert_int_equal(ht_parse_bracketed("always [madv", &s), -EINVAL);
        assert_int_equal(ht_parse_bracketed("[a b]", &s), -EINVAL);
        assert_null(s);
}

static const char SHM_HDR[] =
        "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n";

static void test_shm(void **state) {
        strbuf b = {0};
        strbuf_append(&b, SHM_HDR);
        strbuf_append(&b, "         0          3   600               9142272  2811  3412    126 54321 54322 54321 54322 1705312811 1705312790 1705312788               9142272                     0\n");
        strbuf_append(&b, "         0          4   600           19243466752  2811  3412    126 54321 54322 54321 54322 1705312811 1705312790 1705312788           17095983104                     0\n");
        strbuf_append(&b, "-1893045228          6   600                 24576  2811  3412    126 54321 54322 54321 54322 1705312811 1705312790 1705312788                 24576                     0\n");
        ht_facts *f = ht_facts_new();
        ht_facts_parse_shm(f, b.data, b.len, "shm");
        assert_true(f->shm_known);
        assert_int_equal(f->n_shm, 3);
        assert_int_equal(f->shm_total_bytes, UINT64_C(9142272) + UINT64_C(19243466752) + 24576);
        assert_int_equal(f->shm[1].size_bytes, UINT64_C(19243466752));
        assert_int_equal(f->shm[1].shmid, 4);
        assert_int_equal(f->shm[1].uid, 54321);
        assert_int_equal(f->shm[1].nattch, 126);
        assert_int_equal(f->shm[2].key, 0x8f2a6c14); /* printed signed */
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);
        strbuf_done(&b);

        /* header only: known, zero */
        f = ht_facts_new();
        ht_facts_parse_shm(f, SHM_HDR, strlen(SHM_HDR), "shm");
        assert_true(f->shm_known);
        assert_int_equal(f->n_shm, 0);
        assert_int_equal(f->shm_total_bytes, 0);
        ht_facts_free(f);

        /* the 2.6.18 layout has no rss/swap columns: found by name */
        static const char old[] =
                "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime\n"
                "         0      32768   600                524288  4021  4188      2     0     0     0     0 1400000000          0 1400000000\n";
        f = ht_facts_new();
        ht_facts_parse_shm(f, old, strlen(old), "shm");
        assert_true(f->shm_known);
        assert_int_equal(f->n_shm, 1);
        assert_int_equal(f->shm_total_bytes, 524288);
        ht_facts_free(f);
}

static void test_shm_garbage(void **state) {
        ht_facts *f = ht_facts_new();
        const char *s = "key size\n1 2\n";
        ht_facts_parse_shm(f, s, strlen(s), "shm");
        assert_false(f->shm_known);
        assert_true(warned(f, "shm:1: not the kernel's header"));
        ht_facts_free(f);

        /* a garbled segment makes the total unknown: an under-count would
         * under-size HugePages */
        strbuf b = {0};
        strbuf_append(&b, SHM_HDR);
        strbuf_append(&b, "         0          3   600               9142272  2811  3412    126 54321 54322 54321 54322 1 1 1 1 0\n");
        strbuf_append(&b, "         0          4   600           lots  2811  3412    126 54321 54322 54321 54322 1 1 1 1 0\n");
        strbuf_append(&b, "         0          5   600           1");
        f = ht_facts_new();
        ht_facts_parse_shm(f, b.data, b.len, "shm");
        assert_false(f->shm_known);
        assert_true(warned(f, "shm:3: garbled segment line"));
        assert_true(warned(f, "shm:4: truncated"));
        ht_facts_free(f);
        strbuf_done(&b);

        f = ht_facts_new();
        ht_facts_parse_shm(f, "", 0, "shm");
        assert_false(f->shm_known);
        assert_true(warned(f, "empty"));
        ht_facts_free(f);
}

static void test_os_release(void **state) {
        static const char s[] =
                "# comment\n"
                "NAME=\"Alibaba Cloud Linux\"\n"
                "ID='alinux'\n"
                "VERSION_ID=\"3\"\n"
                "PRETTY_NAME=\"A \\\"quoted\\\" \\$name\"\n"
                "ID_LIKE=\"rhel fedora centos anolis\"\n";
        ht_facts *f = ht_facts_new();
        ht_facts_parse_os_release(f, s, sizeof(s) - 1, "os-release");
        assert_string_equal(f->os_id, "alinux");
        assert_string_equal(f->os_version_id, "3");
        assert_string_equal(f->os_name, "Alibaba Cloud Linux");
        assert_string_equal(f->os_pretty_name, "A \"quoted\" $name");
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);

        /* bare words, as Debian writes ID=debian */
        f = ht_facts_new();
        ht_facts_parse_os_release(f, "ID=debian\nVERSION_ID=12\n", 23, "os-release");
        assert_string_equal(f->os_id, "debian");
        assert_string_equal(f->os_version_id, "12");
        ht_facts_free(f);
}

/* os-release values as a shell reads them; the parse copies runs of
 * bytes at once (issue 34), these pin what it gives. */
static void test_shell_unquote(void **state) {
        static const struct {
                const char *in, *out; /* out NULL: broken quoting */
        } cases[] = {
                {"debian", "debian"},
                {"\"Debian GNU/Linux 12 (bookworm)\"", "Debian GNU/Linux 12 (bookworm)"},
                {"'single $quoted \\x'", "single $quoted \\x"},
                {"\"a\\\"b\\\\c\\$d\\`e\"", "a\"b\\c$d`e"},
                {"\"a\\nb\\\"\"", "a\\nb\""},
                {"abc\\ def", "abc def"},
                {"a\"b c\"d'e f'g", "ab cde fg"},
                {"word # a comment", "word"},
                {"word\t", "word"},
                {"", ""},
                {"ends\\", "ends\\"},
                {"\"\"", ""},
                {"\"unterminated", NULL},
                {"'unterminated", NULL},
                {"word trailing", NULL},
                {"\"ends\\", NULL},
                {"\"ends\\\\", NULL},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *u = ht_shell_unquote(cases[i].in);
                if (!cases[i].out)
                        assert_null(u);
                else {
                        assert_non_null(u);
                        assert_string_equal(u, cases[i].out);
                }
        }
}

static void test_os_release_junk(void **state) {
        static const char s[] =
                "ID=\"ol\"\n"
                "VERSION_ID=\"8.\x01\x02\"\n"       /* control characters */
                "NAME=\"\xff\xfe\xfd\"\n"           /* not UTF-8 */
                "PRETTY_NAME=\"unterminated\n"
                "\x7f\x45\x4c\x46\x02\x01\x01\n"    /* an ELF header */
                "ID=\"ol\0junk after a NUL\"\n";
        ht_facts *f = ht_facts_new();
        ht_facts_parse_os_release(f, s, sizeof(s) - 1, "os-release");
        assert_string_equal(f->os_id, "ol");
        assert_null(f->os_version_id);
        assert_null(f->os_name);
        assert_null(f->os_pretty_name);
        assert_true(warned(f, "os-release:2: not a KEY=value line"));
        assert_true(warned(f, "binary data"));
        assert_true(warned(f, "more bad lines"));
        /* warnings never carry the junk bytes themselves */
        for (size_t i = 0; f->warnings[i]; i++)
                assert_false(has_control_chars(f->warnings[i]));
        ht_facts_free(f);

        f = ht_facts_new();
        ht_facts_parse_os_release(f, "\x01\x02\x03", 3, "os-release");
        assert_null(f->os_id);
        assert_true(warned(f, "no ID= line"));
        ht_facts_free(f);
}

static void test_release_files(void **state) {
        static const struct {
                const char *file, *content, *id, *version;
        } cases[] = {
                {"redhat-release", "Red Hat Enterprise Linux Server release 5.11 (Tikanga)\n", "rhel", "5.11"},
                {"redhat-release", "Red Hat Enterprise Linux AS release 4 (Nahant Update 9)\n", "rhel", "4"},
                {"redhat-release", "Red Hat Enterprise Linux Server release 6.10 (Santiago)\n", "rhel", "6.10"},
                {"oracle-release", "Oracle Linux Server release 6.10\n", "ol", "6.10"},
                {"redhat-release", "Enterprise Linux Enterprise Linux Server release 5.11 (Carthage)\n", "ol", "5.11"},
                {"centos-release", "CentOS release 6.10 (Final)\n", "centos", "6.10"},
                {"centos-release", "CentOS Linux release 7.9.2009 (Core)\n", "centos", "7.9.2009"},
                {"SuSE-release", "SUSE Linux Enterprise Server 11 (x86_64)\nVERSION = 11\nPATCHLEVEL = 4\n", "sles", "11.4"},
                {"SuSE-release", "openSUSE 13.1 (x86_64)\nVERSION = 13.1\nCODENAME = Bottle\n", "opensuse", "13.1"},
                {"debian_version", "6.0.10\n", "debian", "6"},
                {"debian_version", "bookworm/sid\n", "debian", NULL},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *id = NULL, *version = NULL, *pretty = NULL;
                assert_int_equal(ht_parse_release_file(cases[i].file, cases[i].content, &id, &version, &pretty), 0);
                assert_string_equal(id, cases[i].id);
                if (cases[i].version)
                        assert_string_equal(version, cases[i].version);
                else
                        assert_null(version);
                assert_non_null(pretty);
                free(id);
                free(version);
                free(pretty);
        }
        char *id = NULL, *version = NULL;
        assert_int_equal(ht_parse_release_file("redhat-release", "Windows 95\n", &id, &version, NULL), -EINVAL);
        assert_int_equal(ht_parse_release_file("redhat-release", "\x01\x02\n", &id, &version, NULL), -EINVAL);
        assert_int_equal(ht_parse_release_file("redhat-release", "", &id, &version, NULL), -EINVAL);
        assert_null(id);
}

static const char GRUB_CONF[] =
        "# grub.conf generated by anaconda\n"
        "default=0\n"
        "timeout=5\n"
        "hiddenmenu\n"
        "title Red Hat Enterprise Linux Server (2.6.18-398.el5xen)\n"
        "\troot (hd0,0)\n"
        "\tkernel /xen.gz-2.6.18-398.el5 dom0_mem=2048M\n"
        "\tmodule /vmlinuz-2.6.18-398.el5xen ro root=/dev/VolGroup00/LogVol00 rhgb quiet\n"
        "\tmodule /initrd-2.6.18-398.el5xen.img\n"
        "title Red Hat Enterprise Linux Server-base (2.6.18-398.el5)\n"
        "\troot (hd0,0)\n"
        "\tkernel /vmlinuz-2.6.18-398.el5 ro root=/dev/VolGroup00/LogVol00 rhgb quiet\n"
        "\tinitrd /initrd-2.6.18-398.el5.img\n";

static void test_grub_legacy(void **state) {
        ht_facts *f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, GRUB_CONF, strlen(GRUB_CONF), "grub.conf");
        assert_int_equal(f->n_boot_entries, 2);
        assert_int_equal(f->grub_legacy_default, 0);
        assert_int_equal(f->default_entry, 0);
        assert_true(f->boot_entries[0].xen);
        assert_string_equal(f->boot_entries[0].kernel, "/vmlinuz-2.6.18-398.el5xen");
        assert_string_equal(f->boot_entries[0].version, "2.6.18-398.el5xen");
        assert_string_equal(f->boot_entries[0].options, "ro root=/dev/VolGroup00/LogVol00 rhgb quiet");
        assert_false(f->boot_entries[1].xen);
        assert_string_equal(f->boot_entries[1].version, "2.6.18-398.el5");
        assert_string_equal(f->boot_entries[1].title, "Red Hat Enterprise Linux Server-base (2.6.18-398.el5)");
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);

        /* "default 1" with a space, kernel with a device prefix */
        static const char menu_lst[] =
                "default 1\n"
                "title SLES 11\n  kernel (hd0,1)/boot/vmlinuz-3.0.101-63-xen root=/dev/sda2\n"
                "title SLES 11 default\n  kernel (hd0,1)/boot/vmlinuz-3.0.101-63-default root=/dev/sda2\n";
        f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, menu_lst, strlen(menu_lst), "menu.lst");
        assert_int_equal(f->default_entry, 1);
        assert_true(f->boot_entries[0].xen);   /* a -xen kernel booted directly */
        assert_false(f->boot_entries[1].xen);
        assert_string_equal(f->boot_entries[1].version, "3.0.101-63-default");
        ht_facts_free(f);
}

static void test_grub_legacy_bad_default(void **state) {
        char *s = xasprintf("%s", GRUB_CONF);
        char *p = strstr(s, "default=0");
        p[8] = '7';
        ht_facts *f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, s, strlen(s), "grub.conf");
        assert_int_equal(f->n_boot_entries, 2);
        assert_int_equal(f->grub_legacy_default, -1);
        assert_int_equal(f->default_entry, -1);
        assert_true(warned(f, "grub.conf:2: default=7 is out of range (2 entries)"));
        ht_facts_free(f);

        p[8] = 'x';
        f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, s, strlen(s), "grub.conf");
        assert_int_equal(f->default_entry, -1);
        assert_true(warned(f, "is not an entry number"));
        ht_facts_free(f);
        free(s);

        /* default=saved: the number comes from /boot/grub/default */
        f = ht_facts_new();
        static const char saved[] = "default=saved\ntitle a\nkernel /vmlinuz-1\ntitle b\nkernel /vmlinuz-2\n";
        ht_facts_parse_grub_legacy(f, saved, strlen(saved), "menu.lst");
        assert_int_equal(f->default_entry, -1);
        assert_true(f->grub_legacy_saved);
        assert_int_equal(strv_length(f->warnings), 0);
        static const char dflt[] = "1\n#\n#\n# WARNING: If you want to edit this file directly, do not remove any line\n";
        ht_facts_parse_grub_default(f, dflt, strlen(dflt), "default");
        assert_int_equal(f->default_entry, 1);
        ht_facts_parse_grub_default(f, "7\n", 2, "default");
        assert_true(warned(f, "default:1: entry 7 is out of range (2 entries)"));
        ht_facts_parse_grub_default(f, "\n#\n", 3, "default");
        assert_true(warned(f, "is not an entry number"));
        assert_int_equal(f->default_entry, 1);
        ht_facts_free(f);

        f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, "\x01\x02\x03\nnonsense\n", 13, "grub.conf");
        assert_int_equal(f->n_boot_entries, 0);
        assert_int_equal(f->default_entry, -1);
        assert_true(warned(f, "binary junk"));
        assert_true(warned(f, "no title entries"));
        ht_facts_free(f);
}

/* The entry a kernel switch makes the default (facts-switch.c). */
static const char FIELD_CONF[] =
        "default=0\n"
        "title Xen (2.6.18-398.el5xen)\n"
        "\tkernel /xen.gz-2.6.18-398.el5 dom0_mem=2048M\n"
        "\tmodule /vmlinuz-2.6.18-398.el5xen ro root=/dev/sda2\n"
        "\tmodule /initrd-2.6.18-398.el5xen.img\n"
        "title DOS\n\trootnoverify (hd0,1)\n\tchainloader +1\n"
        "title Memtest86+ (4.10)\n\tkernel --type=netbsd /elf-memtest86+-4.10\n"
        "title Memory test\n\tkernel /memtest86+-1.65\n"
        "title newer (2.6.18-400.el5)\n\tkernel /vmlinuz-2.6.18-400.el5 ro root=/dev/sda2\n"
        "title debug (2.6.18-402.el5debug)\n\tkernel /vmlinuz-2.6.18-402.el5debug ro root=/dev/sda2\n"
        "title base (2.6.18-398.el5)\n\tkernel /vmlinuz-2.6.18-398.el5 ro root=/dev/sda2\n";

static ht_facts *field_facts(const char *conf, const char *release) {
        ht_facts *f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, conf, strlen(conf), "grub.conf");
        f->kernel_release = xstrdup(release);
        f->kernel_xen = true;
        return f;
}

static void test_switch_entry(void **state) {
        ht_facts *f = field_facts(FIELD_CONF, "2.6.18-398.el5xen");
        assert_int_equal(f->n_boot_entries, 7);
        assert_int_equal(strv_length(f->warnings), 0); /* DOS has no kernel line, and needs none */
        assert_true(f->boot_entries[1].chainloader);
        assert_false(f->boot_entries[1].linux_image);
        assert_false(f->boot_entries[2].linux_image);  /* --type=netbsd */
        assert_string_equal(f->boot_entries[2].kernel, "/elf-memtest86+-4.10");
        assert_false(f->boot_entries[3].linux_image);  /* memtest86+-1.65 */
        assert_true(f->boot_entries[0].linux_image);   /* the Xen entry's Linux module */
        /* the running kernel's own non-Xen build, not the newest */
        assert_int_equal(ht_boot_switch_entry(f), 6);
        ht_facts_free(f);

        /* no build of the running version: the newest, debug builds last */
        f = field_facts(FIELD_CONF, "2.6.18-92.el5xen");
        assert_int_equal(ht_boot_switch_entry(f), 4);
        /* a default that already boots Linux without Xen is kept */
        f->default_entry = 6;
        assert_int_equal(ht_boot_switch_entry(f), 6);
        /* ... but not a default that is Memtest or DOS */
        f->default_entry = 2;
        assert_int_equal(ht_boot_switch_entry(f), 4);
        f->default_entry = 1;
        assert_int_equal(ht_boot_switch_entry(f), 4);
        ht_facts_free(f);

        /* SUSE: the flavour replaces "xen" ("-default", "-smp") */
        static const char sles[] =
                "default 0\n"
                "title Xen\n  kernel /boot/xen.gz\n  module /boot/vmlinuz-2.6.16.60-0.21-xen root=/dev/sda2\n"
                "title SLES 10 SP2 (newer)\n  kernel /boot/vmlinuz-2.6.16.60-0.42-smp root=/dev/sda2\n"
                "title SLES 10 SP2\n  kernel /boot/vmlinuz-2.6.16.60-0.21-smp root=/dev/sda2\n";
        f = field_facts(sles, "2.6.16.60-0.21-xen");
        assert_int_equal(ht_boot_switch_entry(f), 2);
        ht_facts_free(f);

        /* only Xen, DOS and Memtest: none */
        static const char none[] =
                "title Xen\n\tkernel /xen.gz-2.6.18-398.el5\n\tmodule /vmlinuz-2.6.18-398.el5xen ro\n"
                "title DOS\n\tchainloader +1\n"
                "title Memtest86+\n\tkernel --type=netbsd /elf-memtest86+-4.10\n";
        f = field_facts(none, "2.6.18-398.el5xen");
        assert_int_equal(ht_boot_switch_entry(f), -1);
        ht_facts_free(f);
}

static void test_grubenv_and_bls(void **state) {
        strbuf b = {0};
        strbuf_append(&b, "# GRUB Environment Block\nsaved_entry=abc-5.15.0\n"
                          "kernelopts=root=/dev/mapper/ol-root ro rhgb quiet\n");
        while (b.len < 1024)
                strbuf_append(&b, "#");
        ht_facts *f = ht_facts_new();
        ht_facts_parse_grubenv(f, b.data, b.len, "grubenv");
        assert_string_equal(f->grubenv_kernelopts, "root=/dev/mapper/ol-root ro rhgb quiet");
        assert_string_equal(f->grubenv_saved_entry, "abc-5.15.0");
        assert_int_equal(strv_length(f->warnings), 0);

        static const char entry[] =
                "title Oracle Linux Server (5.15.0) 8.9\n"
                "version 5.15.0-206.153.7.1.el8uek.x86_64\n"
                "linux /vmlinuz-5.15.0-206.153.7.1.el8uek.x86_64\n"
                "initrd /initramfs-5.15.0-206.153.7.1.el8uek.x86_64.img $tuned_initrd\n"
                "options $kernelopts $tuned_params\n"
                "options ${kernelopts_extra} hugepages=10\n"
                "grub_class kernel\n";
        ht_boot_entry e = {.id = xstrdup("abc-5.15.0")};
        ht_parse_bls_entry(f, entry, strlen(entry), "entry.conf", &e);
        assert_string_equal(e.title, "Oracle Linux Server (5.15.0) 8.9");
        assert_string_equal(e.version, "5.15.0-206.153.7.1.el8uek.x86_64");
        assert_string_equal(e.kernel, "/vmlinuz-5.15.0-206.153.7.1.el8uek.x86_64");
        assert_string_equal(e.options, "root=/dev/mapper/ol-root ro rhgb quiet hugepages=10");
        assert_false(e.xen);
        ht_boot_entry_done(&e);
        ht_facts_free(f);

        /* wrong size and no header */
        f = ht_facts_new();
        ht_facts_parse_grubenv(f, "# GRUB Environment Block\nkernelopts=ro\n", 39, "grubenv");
        assert_true(warned(f, "39 bytes, GRUB wants exactly 1024"));
        assert_string_equal(f->grubenv_kernelopts, "ro");
        ht_facts_free(f);
        f = ht_facts_new();
        ht_facts_parse_grubenv(f, "kernelopts=ro\n", 14, "grubenv");
        assert_null(f->grubenv_kernelopts);
        assert_true(warned(f, "no \"# GRUB Environment Block\" header"));
        ht_facts_free(f);
        strbuf_done(&b);
}

static void test_vercmp(void **state) {
        assert_true(ht_version_compare("m-5.15.0-206.el8uek.x86_64", "m-4.18.0-513.5.1.el8_9.x86_64") > 0);
        assert_true(ht_version_compare("m-4.18.0-513.5.1.el8_9.x86_64", "m-4.18.0-477.27.1.el8_8.x86_64") > 0);
        assert_true(ht_version_compare("m-4.18.0-10", "m-4.18.0-9") > 0);
        assert_true(ht_version_compare("m-0-rescue", "m-4.18.0") < 0);
        assert_int_equal(ht_version_compare("1.0", "1.0"), 0);
        assert_true(ht_version_compare("1.0.1", "1.0") > 0);
}

static void test_cpuinfo(void **state) {
        static const char s[] =
                "processor\t: 0\nflags\t\t: fpu pse pae hypervisor lm avx2\n\n"
                "processor\t: 1\nflags\t\t: fpu pse pae hypervisor lm avx2\n\n";
        ht_facts *f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, s, strlen(s), "cpuinfo");
        assert_int_equal(f->cpu_count, 2);
        assert_true(strv_contains(f->cpu_flags, "pse"));
        assert_true(strv_contains(f->cpu_flags, "hypervisor"));
        assert_true(strv_contains(f->cpu_flags, "avx2"));
        assert_false(strv_contains(f->cpu_flags, "pdpe1gb"));
        assert_false(strv_contains(f->cpu_flags, "fpu")); /* not of interest */
        ht_facts_free(f);

        /* whole words only, split at blanks, in the interesting flags'
         * order; the last line has no newline */
        static const char t[] = "processor : 0\nflags:htt\tavx512fx  nx\tlm x aes\r avx512f ht\npse";
        f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, t, strlen(t), "cpuinfo");
        _cleanup_free_ char *got = strv_join(f->cpu_flags, ",");
        assert_string_equal(got, "lm,nx,ht,avx512f");
        ht_facts_free(f);

        f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, "garbage\n", 8, "cpuinfo");
        assert_int_equal(f->cpu_count, 0);
        assert_null(f->cpu_flags);
        assert_true(warned(f, "no \"processor\" lines"));
        ht_facts_free(f);
}

/* The other architectures' /proc/cpuinfo, as their kernels print it
 * (arch/arm64/kernel/cpuinfo.c, arch/s390/kernel/processor.c,
 * arch/powerpc/kernel/setup-common.c show_cpuinfo): the arm64 and s390x
 * texts are those of kata-containers' tests
 * (src/runtime/cli/kata-check_data_arm64_test.go, a Cortex-A57, and
 * kata-check_data_s390x_test.go, a z13), the ppc64le one a POWER9 pSeries
 * KVM guest's. */
static const char CPUINFO_ARM64[] =
        "processor\t: 0\nBogoMIPS\t: 500.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd07\n"
        "CPU revision\t: 2\n\n"
        "processor\t: 1\nBogoMIPS\t: 500.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd07\n"
        "CPU revision\t: 2\n\n";

static void test_cpuinfo_other_arches(void **state) {
        ht_facts *f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, CPUINFO_ARM64, strlen(CPUINFO_ARM64), "cpuinfo");
        assert_int_equal(f->cpu_count, 2);
        _cleanup_free_ char *arm = strv_join(f->cpu_flags, ",");
        assert_string_equal(arm, "aes");
        assert_false(f->cpu_flags_x86); /* no "hypervisor" flag to look for */
        assert_null(f->warnings[0]);
        ht_facts_free(f);

        /* s390x: one "processor N:" line a CPU, lower-case "features" */
        static const char s390x[] =
                "vendor_id       : IBM/S390\n# processors    : 4\nbogomips per cpu: 20325.00\n"
                "max thread id   : 0\n"
                "features\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx sie \n"
                "cache0          : level=1 type=Data scope=Private size=128K line_size=256 associativity=8\n"
                "processor 0: version = FF,  identification = FFFFFF,  machine = 2964\n"
                "processor 1: version = FF,  identification = FFFFFF,  machine = 2964\n"
                "processor 2: version = FF,  identification = FFFFFF,  machine = 2964\n"
                "processor 3: version = FF,  identification = FFFFFF,  machine = 2964\n\n"
                "cpu number      : 0\ncpu MHz dynamic : 5000\ncpu MHz static  : 5000\n";
        f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, s390x, strlen(s390x), "cpuinfo");
        assert_int_equal(f->cpu_count, 4);
        assert_non_null(f->cpu_flags); /* read, none of interest */
        assert_null(f->cpu_flags[0]);
        assert_false(f->cpu_flags_x86);
        assert_null(f->warnings[0]);
        ht_facts_free(f);

        /* ppc64le: no flags line at all, which is no fault of the file */
        static const char ppc[] =
                "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\n"
                "clock\t\t: 2200.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n"
                "processor\t: 1\ncpu\t\t: POWER9 (architected), altivec supported\n"
                "clock\t\t: 2200.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n"
                "timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM pSeries (emulated by qemu)\n"
                "machine\t\t: CHRP IBM pSeries (emulated by qemu)\nMMU\t\t: Radix\n";
        f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, ppc, strlen(ppc), "cpuinfo");
        assert_int_equal(f->cpu_count, 2);
        assert_null(f->cpu_flags);
        assert_null(f->warnings[0]);
        ht_facts_free(f);

        /* "processor" followed by junk is no s390x CPU line */
        static const char junk[] = "processor x: 1\nprocessor 1a: 2\nprocessor : 0\nflags : lm\n";
        f = ht_facts_new();
        ht_facts_parse_cpuinfo(f, junk, strlen(junk), "cpuinfo");
        assert_int_equal(f->cpu_count, 1);
        assert_true(f->cpu_flags_x86);
        ht_facts_free(f);
}

static void test_dmi(void **state) {
        assert_string_equal(ht_hypervisor_from_dmi("QEMU", "Standard PC (i440FX + PIIX, 1996)", "SeaBIOS"), "kvm");
        assert_string_equal(ht_hypervisor_from_dmi("Alibaba Cloud", "Alibaba Cloud ECS", "SeaBIOS"), "alibaba");
        assert_string_equal(ht_hypervisor_from_dmi("Amazon EC2", "m5.large", "Amazon EC2"), "amazon");
        assert_string_equal(ht_hypervisor_from_dmi("VMware, Inc.", "VMware7,1", NULL), "vmware");
        assert_string_equal(ht_hypervisor_from_dmi("Microsoft Corporation", "Virtual Machine", NULL), "hyperv");
        assert_string_equal(ht_hypervisor_from_dmi("Xen", "HVM domU", "Xen"), "xen");
        /* GCP (x86 and the arm64 Tau T2A alike) */
        assert_string_equal(ht_hypervisor_from_dmi("Google", "Google Compute Engine", "Google"), "google");
        /* OCI's VMs show QEMU's strings (only chassis_asset_tag says
         * OracleCloud.com): KVM, as systemd-detect-virt calls them */
        assert_string_equal(ht_hypervisor_from_dmi("QEMU", "KVM Virtual Machine", "EFI Development Kit II / OVMF"),
                            "kvm");
        /* an arm64 Azure VM: Hyper-V's strings there too */
        assert_string_equal(ht_hypervisor_from_dmi("Microsoft Corporation", "Virtual Machine", "Microsoft Corporation"),
                            "hyperv");
        assert_null(ht_hypervisor_from_dmi("Microsoft Corporation", "Surface Pro", NULL));
        assert_null(ht_hypervisor_from_dmi("Dell Inc.", "PowerEdge R740", "Dell Inc."));
        assert_null(ht_hypervisor_from_dmi(NULL, NULL, NULL));
}

static void test_cmdline_value(void **state) {
        char *v = ht_cmdline_value("ro transparent_hugepage=always quiet transparent_hugepage=never", "transparent_hugepage");
        assert_string_equal(v, "never"); /* the last one wins */
        free(v);
        assert_null(ht_cmdline_value("ro notransparent_hugepage=always", "transparent_hugepage"));
        assert_null(ht_cmdline_value("ro transparent_hugepage", "transparent_hugepage"));
        assert_null(ht_cmdline_value(NULL, "audit"));
        v = ht_cmdline_value("a=\"x y\" audit=0", "audit");
        assert_string_equal(v, "0");
        free(v);
}

static void test_mountinfo(void **state) {
        static const char s[] =
                "22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
                "23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
                "28 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
                "35 23 0:30 / /proc/sys/fs/binfmt_misc rw,relatime shared:13 - autofs systemd-1 rw,fd=30\n"
                "37 24 0:31 / /dev/hugepages rw,relatime shared:15 - hugetlbfs hugetlbfs rw,pagesize=2M\n"
                "38 24 0:32 / /mnt/huge1g rw,relatime shared:16 - hugetlbfs nodev rw,pagesize=1G\n"
                "39 24 0:33 / /mnt/hugedefault rw,relatime shared:17 - hugetlbfs nodev rw\n"
                "40 28 8:1 / /boot rw,relatime shared:18 - ext4 /dev/sda1 rw\n"
                "867 23 0:62 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw\n";
        ht_facts *f = ht_facts_new();
        f->hugepage_default_kb = 2048;
        ht_facts_parse_mountinfo(f, s, strlen(s), "mountinfo");
        assert_int_equal(f->n_hugetlbfs, 3);
        assert_string_equal(f->hugetlbfs[0].target, "/dev/hugepages");
        assert_int_equal(f->hugetlbfs[0].pagesize_kb, 2048);
        assert_int_equal(f->hugetlbfs[1].pagesize_kb, 1048576);
        assert_int_equal(f->hugetlbfs[2].pagesize_kb, 2048); /* the default size */
        assert_int_equal(f->sys_readonly, HT_NO);
        assert_int_equal(f->proc_sys_readonly, HT_YES);
        assert_true(f->boot_separate);
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);
}

static void test_mountinfo_garbage(void **state) {
        ht_facts *f = ht_facts_new();
        const char *s = "\x01\x02 garbage that is not mountinfo\n";
        ht_facts_parse_mountinfo(f, s, strlen(s), "mountinfo");
        assert_int_equal(f->sys_readonly, HT_UNKNOWN);
        assert_true(warned(f, "mountinfo"));
        ht_facts_free(f);

        f = ht_facts_new();
        s = "22 28 0:21 / /sys ro,nosuid - sysfs sysfs ro\n"
            "broken line\n"
            "28 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw\n";
        ht_facts_parse_mountinfo(f, s, strlen(s), "mountinfo");
        assert_int_equal(f->sys_readonly, HT_YES);
        assert_true(warned(f, "1 lines libmount could not parse"));
        ht_facts_free(f);

        f = ht_facts_new();
        ht_facts_parse_mountinfo(f, "", 0, "mountinfo");
        assert_int_equal(f->proc_sys_readonly, HT_UNKNOWN);
        assert_true(warned(f, "empty"));
        ht_facts_free(f);

        /* "pagesize" with no value (found by fuzz-facts): a warning, not a
         * NULL string handed to strndup */
        f = ht_facts_new();
        f->hugepage_default_kb = 2048;
        s = "37 24 0:31 / /dev/hugepages rw,relatime - hugetlbfs hugetlbfs rw,pagesize\n";
        ht_facts_parse_mountinfo(f, s, strlen(s), "mountinfo");
        assert_int_equal(f->n_hugetlbfs, 1);
        assert_int_equal(f->hugetlbfs[0].pagesize_kb, 2048);
        assert_true(warned(f, "bad pagesize"));
        ht_facts_free(f);
}

static void test_json_and_lookup(void **state) {
        ht_facts *f = ht_facts_new();
        parse_meminfo(f, MEMINFO_OK);
        f->hugepage_sizes_kb = xmalloc(2 * sizeof(uint64_t));
        f->hugepage_sizes_kb[0] = 2048;
        f->hugepage_sizes_kb[1] = 1048576;
        f->n_hugepage_sizes = 2;
        json_object *j = ht_facts_to_json(f);
        bool exists;
        json_object *v = ht_facts_lookup(j, "memory.total_kb", &exists);
        assert_true(exists);
        assert_int_equal(json_object_get_int64(v), 16377536);
        v = ht_facts_lookup(j, "hugepages.sizes_kb.1", &exists);
        assert_int_equal(json_object_get_int64(v), 1048576);
        v = ht_facts_lookup(j, "hugepages.supported", &exists);
        assert_true(json_object_get_boolean(v));
        /* unknown facts exist with a null value */
        v = ht_facts_lookup(j, "kernel.release", &exists);
        assert_null(v);
        assert_true(exists);
        v = ht_facts_lookup(j, "thp.supported", &exists);
        assert_null(v);
        assert_true(exists);
        /* names that do not exist */
        assert_null(ht_facts_lookup(j, "memory.nope", &exists));
        assert_false(exists);
        assert_null(ht_facts_lookup(j, "memory..total_kb", &exists));
        assert_false(exists);
        assert_null(ht_facts_lookup(j, "kernel.release.x", &exists));
        assert_false(exists);
        assert_null(ht_facts_lookup(j, "hugepages.sizes_kb.9", &exists));
        assert_false(exists);
        assert_null(ht_facts_lookup(j, "", &exists));
        assert_false(exists);
        /* the DESIGN.md names are all there */
        static const char *const names[] = {
                "kernel.release", "kernel.xen", "kernel.cmdline", "hypervisor", "os.id", "os.version_id",
                "memory.total_kb", "hugepages.supported", "hugepages.default_size_kb", "hugepages.sizes_kb",
                "hugepages.total", "hugepages.free", "thp.supported", "thp.enabled", "hugetext.supported",
                "hugetext.enabled", "bootloader.kind", "shm.segments", "shm.total_bytes", "boot_id",
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                ht_facts_lookup(j, names[i], &exists);
                assert_true(exists);
        }
        json_object_put(j);
        ht_facts_free(f);
}

/* ---- collection through a throwaway root ---- */

static char tmpl[] = "/tmp/ht-facts-XXXXXX";

static void put(const char *rel, const char *content) {
        char *p = xasprintf("%s/%s", tmpl, rel);
        /* create parent directories */
        for (char *s = strchr(p + strlen(tmpl) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                mkdir(p, 0755);
                *s = '/';
        }
        FILE *fp = fopen(p, "w");
        assert_non_null(fp);
        fputs(content, fp);
        fclose(fp);
        free(p);
}

static void ln(const char *target, const char *rel) {
        char *p = xasprintf("%s/%s", tmpl, rel);
        assert_int_equal(symlink(target, p), 0);
        free(p);
}

static int setup(void **state) {
        return mkdtemp(tmpl) ? 0 : -1;
}

static int teardown(void **state) {
        char *cmd[] = {"rm", "-rf", tmpl, NULL};
        pid_t pid = fork();
        if (pid == 0) {
                execvp(cmd[0], cmd);
                _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
        return 0;
}

static void test_collect_broken_root(void **state) {
        /* a root with hostile sources: os-release leading out of the root,
         * garbage meminfo, a grub.conf whose default is out of range */
        put("proc/meminfo", "\x01\x02\x03 nothing like meminfo");
        put("proc/cmdline", "ro quiet\n");
        put("proc/sys/kernel/osrelease", "2.6.32-754.el6.x86_64\n");
        put("proc/sys/kernel/random/boot_id", "not-a-uuid\n");
        put("sys/kernel/mm/redhat_transparent_hugepage/enabled", "[always] madvise never\n");
        put("sys/kernel/mm/redhat_transparent_hugepage/defrag", "always madvise never\n");
        put("boot/grub/grub.conf", "default=3\ntitle CentOS (2.6.32-754.el6.x86_64)\n"
                                   "\tkernel /vmlinuz-2.6.32-754.el6.x86_64 ro\n");
        put("etc/centos-release", "CentOS release 6.10 (Final)\n");
        ln("../../../../../../../../../etc/os-release", "etc/os-release");

        ht_context *c;
        assert_int_equal(ht_context_new(tmpl, &c), 0);
        ht_facts *f = NULL;
        assert_int_equal(ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f), 0);

        assert_true(warned(f, "etc/os-release: a symlink leads out of the root"));
        assert_string_equal(f->os_id, "centos"); /* fell back to centos-release */
        assert_string_equal(f->os_version_id, "6.10");
        assert_false(f->memory_known);
        assert_int_equal(f->hugepages_supported, HT_UNKNOWN);
        assert_true(warned(f, "proc/meminfo"));
        assert_null(f->boot_id);
        assert_true(warned(f, "is not a UUID"));
        assert_int_equal(f->thp_supported, HT_YES);
        assert_string_equal(f->thp_sysfs_dir, "/sys/kernel/mm/redhat_transparent_hugepage");
        assert_string_equal(f->thp_enabled, "always");
        assert_null(f->thp_defrag);
        assert_true(warned(f, "defrag: \"always madvise never\" has no single [bracketed] choice"));
        assert_int_equal(f->bootloader, HT_BOOT_GRUB_LEGACY);
        assert_int_equal(f->default_entry, -1);
        assert_true(warned(f, "default=3 is out of range"));
        assert_true(warned(f, "proc/cpuinfo: missing"));
        assert_true(warned(f, "proc/sysvipc/shm: missing"));
        assert_false(f->systemd_running);
        /* warnings name files under the root so users can open them */
        assert_true(warned(f, tmpl));

        json_object *j = ht_facts_to_json(f);
        bool exists;
        assert_null(ht_facts_lookup(j, "memory.total_kb", &exists));
        assert_true(exists);
        assert_null(ht_facts_lookup(j, "bootloader.default", &exists));
        assert_true(exists);
        json_object_put(j);
        ht_facts_free(f);

        /* an empty root: everything unknown, still no failure */
        ht_context_free(c);
        char *empty = xasprintf("%s/empty", tmpl);
        assert_int_equal(mkdir(empty, 0755), 0);
        assert_int_equal(ht_context_new(empty, &c), 0);
        assert_int_equal(ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f), 0);
        assert_null(f->kernel_release);
        assert_null(f->os_id);
        assert_int_equal(f->bootloader, HT_BOOT_NONE);
        assert_int_equal(f->thp_supported, HT_UNKNOWN);
        /* no /proc/sys or /sys: an offline image, said once instead of a
         * warning per kernel file */
        assert_true(f->offline);
        assert_true(warned(f, "is an offline image (no /proc/sys or /sys)"));
        assert_true(warned(f, "pass --facts FILE"));
        ht_facts_free(f);
        ht_context_free(c);
        free(empty);
}

/* An arm64 KVM guest (QEMU's virt machine with EDK2, as
 * systemd-detect-virt's DMI table names it): no CPU flag says "guest" on
 * arm64, so DMI does; the x86 rule, no "hypervisor" flag means bare
 * metal, called it "none". */
static void test_collect_arm64_guest(void **state) {
        put("arm64/proc/cpuinfo", CPUINFO_ARM64);
        put("arm64/proc/sys/kernel/osrelease", "6.1.0-18-arm64\n");
        put("arm64/sys/class/dmi/id/sys_vendor", "QEMU\n");
        put("arm64/sys/class/dmi/id/product_name", "KVM Virtual Machine\n");
        put("arm64/sys/class/dmi/id/bios_vendor", "EFI Development Kit II / OVMF\n");
        _cleanup_free_ char *root = xasprintf("%s/arm64", tmpl);
        ht_context *c;
        assert_int_equal(ht_context_new(root, &c), 0);
        ht_facts *f = NULL;
        assert_int_equal(ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f), 0);
        assert_int_equal(f->cpu_count, 2);
        assert_string_equal(f->hypervisor, "kvm");
        ht_facts_free(f);
        ht_context_free(c);
}

/* The hypervisor of an arm64 host with Amazon's DMI strings (no CPU flag
 * says guest there): a Graviton VM is "amazon", a bare-metal instance
 * (c6g.metal) "none", told by SMBIOS's "virtual machine" bit where root
 * reads it, else by the instance type's name (systemd's detect_vm_dmi()).
 * Before, every one was "amazon". */
static const char *arm64_ec2_hypervisor(const char *dir, const char *product, int vm_bit) {
        char *rel = xasprintf("%s/proc/cpuinfo", dir);
        put(rel, CPUINFO_ARM64);
        free(rel);
        rel = xasprintf("%s/proc/sys/kernel/osrelease", dir);
        put(rel, "6.1.0-18-cloud-arm64\n");
        free(rel);
        rel = xasprintf("%s/sys/class/dmi/id/sys_vendor", dir);
        put(rel, "Amazon EC2\n");
        free(rel);
        rel = xasprintf("%s/sys/class/dmi/id/product_name", dir);
        char *line = xasprintf("%s\n", product);
        put(rel, line);
        free(line);
        free(rel);
        rel = xasprintf("%s/sys/class/dmi/id/bios_vendor", dir);
        put(rel, "Amazon EC2\n");
        free(rel);
        if (vm_bit >= 0) {
                /* a type 0 table of 0x18 bytes (two extension bytes),
                 * strings after it: extension byte 2 is at 0x13 */
                unsigned char raw[0x18 + 4] = {0, 0x18};
                raw[0x13] = vm_bit ? 0x10 : 0x0c;
                rel = xasprintf("%s/sys/firmware/dmi/entries/0-0/raw", dir);
                put(rel, ""); /* its directories; the bytes below */
                free(rel);
                char *p = xasprintf("%s/%s/sys/firmware/dmi/entries/0-0/raw", tmpl, dir);
                FILE *fp = fopen(p, "w");
                assert_non_null(fp);
                assert_int_equal(fwrite(raw, 1, sizeof raw, fp), sizeof raw);
                fclose(fp);
                free(p);
        }
        _cleanup_free_ char *root = xasprintf("%s/%s", tmpl, dir);
        ht_context *c;
        assert_int_equal(ht_context_new(root, &c), 0);
        ht_facts *f = NULL;
        assert_int_equal(ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f), 0);
        static char out[32];
        snprintf(out, sizeof out, "%s", f->hypervisor ? f->hypervisor : "(null)");
        ht_facts_free(f);
        ht_context_free(c);
        return out;
}

static void test_collect_arm64_ec2(void **state) {
        (void)state;
        assert_string_equal(arm64_ec2_hypervisor("ec2-vm", "m7g.large", -1), "amazon");
        assert_string_equal(arm64_ec2_hypervisor("ec2-metal", "c6g.metal", -1), "none");
        assert_string_equal(arm64_ec2_hypervisor("ec2-metal-sized", "m7g.metal-48xl", -1), "none");
        assert_string_equal(arm64_ec2_hypervisor("ec2-metalish", "x2.metalwork", -1), "amazon");
        /* the SMBIOS bit, where it can be read, wins over the name */
        assert_string_equal(arm64_ec2_hypervisor("ec2-bit-unset", "m7g.large", 0), "none");
        assert_string_equal(arm64_ec2_hypervisor("ec2-bit-set", "c6g.metal", 1), "amazon");
}

/* container= in PID 1's environment: NUL-separated, the last one wins,
 * an empty value means "no container", junk is container-other. */
static void test_environ_container(void **state) {
        (void)state;
        bool k8s = true;
        static const char a[] = "PATH=/bin\0container=podman\0HOME=/";
        char *v = ht_environ_container(a, sizeof a - 1, &k8s);
        assert_string_equal(v, "podman");
        assert_false(k8s);
        free(v);
        static const char b[] = "container=lxc\0KUBERNETES_SERVICE_HOST=10.96.0.1\0container=systemd-nspawn";
        v = ht_environ_container(b, sizeof b - 1, &k8s);
        assert_string_equal(v, "systemd-nspawn");
        assert_true(k8s);
        free(v);
        static const char c[] = "container=\0X=1";
        v = ht_environ_container(c, sizeof c - 1, NULL);
        assert_string_equal(v, "");
        free(v);
        static const char d[] = "container=a\033[2Jb";
        v = ht_environ_container(d, sizeof d - 1, NULL);
        assert_string_equal(v, "container-other");
        free(v);
        static const char e[] = "CONTAINER=docker\0xcontainer=docker\0KUBERNETES_SERVICE_HOST=";
        v = ht_environ_container(e, sizeof e - 1, &k8s);
        assert_null(v);
        assert_false(k8s);
        assert_null(ht_environ_container("", 0, NULL));
}

/* cpu.cpuinfo: each distinct line once, first appearance order. */
static void test_cpuinfo_distinct_lines(void **state) {
        char *t = ht_cpuinfo_distinct_lines("processor\t: 0\nmodel\t: X\n\nprocessor\t: 1\nmodel\t: X\n\n");
        assert_string_equal(t, "processor\t: 0\nmodel\t: X\n\nprocessor\t: 1");
        free(t);
        t = ht_cpuinfo_distinct_lines("");
        assert_string_equal(t, "");
        free(t);
        t = ht_cpuinfo_distinct_lines("a\nb\na\nb\nc");
        assert_string_equal(t, "a\nb\nc");
        free(t);
        /* lines longer than a word, equal but for a byte past the first
         * eight, or a prefix of another; the last without a newline */
        t = ht_cpuinfo_distinct_lines("model name\t: A1\nmodel name\t: A2\nmodel name\t: A1\n"
                                      "model name\t: A\nmodel name\t: A2\nmodel name\t: A");
        assert_string_equal(t, "model name\t: A1\nmodel name\t: A2\nmodel name\t: A");
        free(t);
        /* 4096 CPUs: one line each for processor and apicid, the rest shared */
        strbuf b = {0};
        for (int i = 0; i < 4096; i++)
                strbuf_appendf(&b, "processor\t: %d\nflags\t\t: fpu vme\napicid\t\t: %d\n\n", i, i);
        t = ht_cpuinfo_distinct_lines(b.data);
        size_t lines = 1;
        for (const char *p = t; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, 2 + 2 * 4096);
        assert_true(startswith(t, "processor\t: 0\nflags\t\t: fpu vme\napicid\t\t: 0\n\nprocessor\t: 1\napicid\t\t: 1\n"));
        free(t);
        strbuf_done(&b);
}

static void test_release_machine(void **state) {
        assert_string_equal(ht_release_machine("4.18.0-513.5.1.el8_9.x86_64"), "x86_64");
        assert_string_equal(ht_release_machine("5.10.134-16.al8.aarch64"), "aarch64");
        assert_string_equal(ht_release_machine("5.15.0-206.153.7.1.el8uek.x86_64"), "x86_64");
        assert_string_equal(ht_release_machine("6.1.0-18-amd64"), "x86_64");
        assert_string_equal(ht_release_machine("6.1.0-18-cloud-arm64"), "aarch64");
        assert_string_equal(ht_release_machine("6.1.0-18-686-pae"), "i686");
        /* RHEL 9's kernel variants: the architecture before the '+' */
        assert_string_equal(ht_release_machine("5.14.0-362.8.1.el9_3.aarch64+64k"), "aarch64");
        assert_string_equal(ht_release_machine("6.12.0-55.9.1.el10_0.aarch64+64k"), "aarch64");
        assert_string_equal(ht_release_machine("5.14.0-354.el9.aarch64+rt-64k"), "aarch64");
        assert_string_equal(ht_release_machine("5.14.0-327.el9.aarch64+64k-debug"), "aarch64");
        assert_string_equal(ht_release_machine("5.14.0-354.el9.x86_64+rt"), "x86_64");
        assert_string_equal(ht_release_machine("5.14.0-354.el9.x86_64+debug"), "x86_64");
        /* a kernel built from a modified tree ("6.1.0+") names none */
        assert_null(ht_release_machine("6.1.0+"));
        assert_null(ht_release_machine("2.6.18-398.el5xen"));
        assert_null(ht_release_machine("6.1.102"));
        assert_null(ht_release_machine(NULL));
        assert_string_equal(ht_kernel_config_machine("#\n# Linux kernel version: 2.6.18\n#\nCONFIG_X86_64=y\nCONFIG_XEN=y\n"),
                            "x86_64");
        assert_string_equal(ht_kernel_config_machine("CONFIG_ARM64=y"), "aarch64");
        assert_string_equal(ht_kernel_config_machine("# CONFIG_X86_64 is not set\nCONFIG_X86_32=y\n"), "i686");
        assert_null(ht_kernel_config_machine("# CONFIG_X86_64 is not set\nCONFIG_X86_64=m\n"));
        assert_null(ht_kernel_config_machine(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_meminfo_ok),
                cmocka_unit_test(test_meminfo_no_hugepages),
                cmocka_unit_test(test_meminfo_truncated),
                cmocka_unit_test(test_meminfo_garbage),
                cmocka_unit_test(test_bracketed),
                cmocka_unit_test(test_shm),
                cmocka_unit_test(test_shm_garbage),
                cmocka_unit_test(test_os_release),
                cmocka_unit_test(test_os_release_junk),
                cmocka_unit_test(test_shell_unquote),
                cmocka_unit_test(test_release_files),
                cmocka_unit_test(test_grub_legacy),
                cmocka_unit_test(test_grub_legacy_bad_default),
                cmocka_unit_test(test_switch_entry),
                cmocka_unit_test(test_grubenv_and_bls),
                cmocka_unit_test(test_vercmp),
                cmocka_unit_test(test_cpuinfo),
                cmocka_unit_test(test_cpuinfo_other_arches),
                cmocka_unit_test(test_dmi),
                cmocka_unit_test(test_environ_container),
                cmocka_unit_test(test_cmdline_value),
                cmocka_unit_test(test_mountinfo),
                cmocka_unit_test(test_mountinfo_garbage),
                cmocka_unit_test(test_json_and_lookup),
                cmocka_unit_test(test_collect_broken_root),
                cmocka_unit_test(test_collect_arm64_guest),
                cmocka_unit_test(test_collect_arm64_ec2),
                cmocka_unit_test(test_cpuinfo_distinct_lines),
                cmocka_unit_test(test_release_machine),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
