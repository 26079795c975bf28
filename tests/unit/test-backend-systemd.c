/* The systemd backend's follow-ups. Fixture roots are never the running
 * host (--root: no action), so the running host is a scratch tree with
 * the context's offline_root cleared and the facts' systemd_running set
 * by hand: the plan lists SIGHUP for logind (when it runs: its
 * /run/systemd/seats) and daemon-reload for the manager, never a reboot,
 * and nothing at all when the drop-in does not change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <unistd.h>

#include "backend-common.h"
#include "backend.h"
#include "profile-model.h"
#include "util.h"
#include "tmptree.h"

static char *root;

static void add_setting(ht_resolved *r, const char *key, const char *value) {
        r->settings = xrealloc(r->settings, (r->n_settings + 1) * sizeof(ht_setting));
        r->settings[r->n_settings++] = (ht_setting){
                .backend = HT_BK_SYSTEMD,
                .key = ht_arena_strdup(&r->arena, key),
                .value = ht_arena_strdup(&r->arena, value),
                .source = ht_arena_strdup(&r->arena, "test.profile:1"),
        };
}

/* Plan r on root as the running host (live) or as a copied tree. */
static ht_plan *plan_on(ht_resolved *r, bool live) {
        ht_context *c = NULL;
        assert_int_equal(ht_context_new(root, &c), 0);
        c->offline_root = !live;
        ht_facts *f = ht_facts_new();
        f->systemd_running = true;
        ht_plan *p = ht_plan_new("test");
        assert_int_equal(ht_backend_get(HT_BK_SYSTEMD)->plan(c, f, r, p), 0);
        ht_facts_free(f);
        ht_context_free(c);
        return p;
}

static const ht_post_action *action(const ht_plan *p, const char *name) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (streq(p->actions[i].action, name))
                        return &p->actions[i];
        return NULL;
}

static int setup(void **state) {
        (void)state;
        root = tt_mkdtemp("test-backend-systemd");
        static const char *const dirs[] = {"etc", "etc/systemd", "etc/systemd/logind.conf.d", "run", "run/systemd",
                                           "run/systemd/system"};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                tt_mkdir(root, dirs[i]);
        tt_put(root, "etc/systemd/logind.conf", "[Login]\n#RemoveIPC=yes\n", 0644);
        tt_put(root, "etc/systemd/system.conf", "[Manager]\n#DefaultLimitNOFILE=1024:524288\n", 0644);
        return 0;
}

static int teardown(void **state) {
        (void)state;
        tt_rm_rf(root);
        free(root);
        return 0;
}

static void test_logind_sighup(void **state) {
        (void)state;
        ht_resolved r = {0};
        add_setting(&r, "logind.RemoveIPC", "0");
        /* logind not running (no seats directory): nothing to signal, the
         * drop-in takes effect when it starts */
        ht_plan *p = plan_on(&r, true);
        assert_int_equal(p->n_files, 1);
        assert_null(action(p, "reload-logind"));
        ht_plan_free(p);

        tt_mkdir(root, "run/systemd/seats");
        p = plan_on(&r, true);
        const ht_post_action *a = action(p, "reload-logind");
        assert_non_null(a);
        _cleanup_free_ char *argv = strv_join(a->argv, " ");
        assert_string_equal(argv, "systemctl kill --signal=SIGHUP systemd-logind.service");
        assert_null(action(p, "daemon-reload"));
        assert_false(p->reboot_required);
        assert_string_equal(p->changes[0].note,
                            "takes effect when systemd-logind re-reads its configuration (SIGHUP, below)");
        ht_plan_free(p);

        /* a copied tree or an image: the file only */
        p = plan_on(&r, false);
        assert_int_equal(p->n_files, 1);
        assert_int_equal(p->n_actions, 0);
        ht_plan_free(p);

        /* the drop-in in place: no change, nothing to run */
        _cleanup_free_ char *header = ht_managed_header("test", "#");
        _cleanup_free_ char *mine = xasprintf("%s[Login]\nRemoveIPC=no\n", header);
        tt_put(root, "etc/systemd/logind.conf.d/90-hosttune.conf", mine, 0644);
        p = plan_on(&r, true);
        assert_int_equal(p->n_files, 0);
        assert_int_equal(p->n_actions, 0);
        assert_int_equal(p->changes[0].outcome, HT_OUTCOME_KEPT);
        ht_plan_free(p);

        /* a profile without the setting: hosttune's drop-in goes, and
         * logind is told */
        ht_resolved none = {0};
        p = plan_on(&none, true);
        assert_int_equal(p->n_files, 1);
        assert_null(p->files[0].new_content);
        assert_non_null(action(p, "reload-logind"));
        ht_plan_free(p);
        _cleanup_free_ char *own = xasprintf("%s/etc/systemd/logind.conf.d/90-hosttune.conf", root);
        assert_int_equal(unlink(own), 0);
        free(r.settings);
        ht_arena_done(&r.arena); /* the settings' strings */
}

static void test_manager_daemon_reload(void **state) {
        (void)state;
        ht_resolved r = {0};
        add_setting(&r, "system.DefaultLimitNOFILE", "65536");
        ht_plan *p = plan_on(&r, true);
        assert_int_equal(p->n_files, 1);
        assert_string_equal(p->files[0].path, "/etc/systemd/system.conf.d/90-hosttune.conf");
        /* the default hard limit stays */
        assert_non_null(strstr(p->files[0].new_content, "\nDefaultLimitNOFILE=65536:524288\n"));
        const ht_post_action *a = action(p, "daemon-reload");
        assert_non_null(a);
        assert_null(a->argv);  /* apply's built-in, over D-Bus */
        assert_null(action(p, "reload-logind"));
        assert_false(p->reboot_required);
        ht_plan_free(p);
        free(r.settings);
        ht_arena_done(&r.arena); /* the settings' strings */
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_logind_sighup),
                cmocka_unit_test(test_manager_daemon_reload),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
