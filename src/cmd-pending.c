/* Commands whose issue has not landed yet answer so plainly (issue 2 lets
 * the skeleton do this); each moves to its own file when it is built. */
#include "config.h"

#include "commands.h"

static int not_yet(const char *name) {
        ht_report_error("'%s' is not available yet in this version", name);
        return HT_EXIT_ERROR;
}

int ht_cmd_apply(const ht_cmd_opts *o) { return not_yet("apply"); }
int ht_cmd_verify(const ht_cmd_opts *o) { return not_yet("verify"); }
int ht_cmd_rollback(const ht_cmd_opts *o) { return not_yet("rollback"); }
int ht_cmd_history(const ht_cmd_opts *o) { return not_yet("history"); }
int ht_cmd_recommend(const ht_cmd_opts *o) { return not_yet("recommend"); }
int ht_cmd_list(const ht_cmd_opts *o) { return not_yet("list"); }
int ht_cmd_show(const ht_cmd_opts *o) { return not_yet("show"); }
int ht_cmd_plan(const ht_cmd_opts *o) { return not_yet("plan"); }
