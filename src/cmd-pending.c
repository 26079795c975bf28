/* Commands whose issue has not landed yet answer so plainly (issue 2 lets
 * the skeleton do this); each moves to its own file when it is built. */
#include "config.h"

#include "commands.h"

static int not_yet(const char *name) {
        ht_report_error("'%s' is not available yet in this version", name);
        return HT_EXIT_ERROR;
}

int ht_cmd_recommend(const ht_cmd_opts *o) { return not_yet("recommend"); }
