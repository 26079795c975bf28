/* format-block: the device kinds the block backend and the block facts
 * share, and queue/scheduler's text as the kernel prints it
 * (block/elevator.c elv_iosched_show: the current one bracketed, a
 * trailing blank; a bare "none" on a blk-mq queue without elevators). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "format-block.h"
#include "util.h"

static void test_kinds(void **state) {
        (void)state;
        static const struct { const char *name, *kind; bool never, stacked; } cases[] = {
                {"sda", "disk", false, false},       {"nvme0n1", "disk", false, false},
                {"vda", "disk", false, false},       {"xvda", "disk", false, false},
                {"mmcblk0", "disk", false, false},   {"dm-0", "dm", false, true},
                {"md127", "md", false, true},        {"md_d0", "md", false, true},
                {"loop7", "loop", true, false},      {"ram0", "ram", true, false},
                {"zram0", "zram", true, false},      {"sr0", "optical", true, false},
                {"nbd3", "nbd", true, false},        {"fd0", "floppy", true, false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ht_block_kind k = ht_block_kind_of(cases[i].name);
                assert_string_equal(ht_block_kind_to_string(k), cases[i].kind);
                assert_int_equal(ht_block_kind_never_touched(k), cases[i].never);
                assert_int_equal(ht_block_kind_stacked(k), cases[i].stacked);
        }
}

static void test_scheduler(void **state) {
        (void)state;
        char **w = ht_block_scheduler_offered("none [mq-deadline] kyber bfq \n");
        char *sel = ht_block_scheduler_selected("none [mq-deadline] kyber bfq \n");
        assert_non_null(w);
        assert_int_equal(strv_length(w), 4);
        assert_string_equal(w[0], "none");
        assert_string_equal(w[1], "mq-deadline");
        assert_string_equal(w[3], "bfq");
        assert_string_equal(sel, "mq-deadline");
        strv_free(w);
        free(sel);

        /* a stacked blk-mq device: no choice */
        assert_null(ht_block_scheduler_offered("none\n"));
        assert_null(ht_block_scheduler_selected("none\n"));
        /* single-queue kernels */
        sel = ht_block_scheduler_selected("noop deadline [cfq] ");
        assert_string_equal(sel, "cfq");
        free(sel);
        /* garbage: an empty or unclosed bracket selects nothing */
        assert_null(ht_block_scheduler_selected("[] none"));
        assert_null(ht_block_scheduler_selected("[none"));
}

/* drivers/nvme/host/core.c names a hidden path "nvme%dc%dn%d" */
static void test_hidden_nvme_path(void **state) {
        (void)state;
        static const struct { const char *name; bool hidden; } cases[] = {
                {"nvme0c0n1", true},  {"nvme12c3n45", true}, {"nvme0n1", false},  {"nvme0c0n", false},
                {"nvme0cn1", false},  {"nvmec0n1", false},   {"nvme0c0n1p1", false}, {"sda", false},
                {"nvme0c0n1x", false}, {"", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_int_equal(ht_block_hidden_nvme_path(cases[i].name), cases[i].hidden);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kinds),
                cmocka_unit_test(test_hidden_nvme_path),
                cmocka_unit_test(test_scheduler),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
