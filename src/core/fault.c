#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "interrupt.h"
#include "util.h"

static unsigned long n_points;  /* fault points reached, any name */
static unsigned long n_named;   /* times the configured step was reached */
static unsigned long n_paused;  /* the same for HOSTTUNE_FAULT_PAUSE */
/* times each step of HOSTTUNE_FAULT_FAIL was reached, one per entry */
#define MAX_FAIL_SPECS 8
static unsigned long n_fail_reached[MAX_FAIL_SPECS];

void ht_fault_reset(void) {
        n_points = 0;
        n_named = 0;
        n_paused = 0;
        memset(n_fail_reached, 0, sizeof(n_fail_reached));
}

/* Whether this fault point is the one spec (N, STEP or STEP:N) names;
 * counts the named step's hits in *named. */
static bool spec_hit(const char *spec, const char *step, unsigned long *named) {
        uint64_t n;
        if (parse_u64(spec, &n) == 0)
                return n_points == n;
        const char *colon = strchr(spec, ':');
        size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
        if (strlen(step) != len || strncmp(step, spec, len) != 0)
                return false;
        (*named)++;
        uint64_t want = 1;
        if (colon && parse_u64(colon + 1, &want) < 0)
                return false;
        return *named == want;
}

void ht_fault_point(const char *step) {
        const char *spec = getenv("HOSTTUNE_FAULT_AFTER");
        const char *pause_spec = getenv("HOSTTUNE_FAULT_PAUSE");
        const char *trace = getenv("HOSTTUNE_FAULT_TRACE");
        bool tracing = !isempty(trace) && !streq(trace, "0");
        if ((isempty(spec) && isempty(pause_spec) && !tracing) || !step)
                return;

        n_points++;
        if (tracing)
                dprintf(STDERR_FILENO, "hosttune: fault point %lu: %s\n", n_points, step);
        if (!isempty(spec) && spec_hit(spec, step, &n_named))
                raise(SIGKILL);
        if (!isempty(pause_spec) && spec_hit(pause_spec, step, &n_paused)) {
                /* The power-cut test (tests/boot, scenario powercut) cuts
                 * the machine's power while we wait here: whatever this
                 * step has not fsynced is then lost. */
                dprintf(STDERR_FILENO, "hosttune: fault point %lu: %s: paused (HOSTTUNE_FAULT_PAUSE)\n", n_points,
                        step);
                /* until then, or a signal apply and rollback catch
                 * (interrupt.h), so a test can interrupt this very step.
                 * Blocked while checked and taken only inside sigsuspend:
                 * one that came between the check and a pause() would be
                 * lost and the wait never end (seen under valgrind). */
                sigset_t held, old;
                sigemptyset(&held);
                sigaddset(&held, SIGINT);
                sigaddset(&held, SIGTERM);
                sigaddset(&held, SIGHUP);
                sigprocmask(SIG_BLOCK, &held, &old);
                while (!ht_interrupted())
                        sigsuspend(&old);
                sigprocmask(SIG_SETMASK, &old, NULL);
        }
}


int ht_fault_fail(const char *step) {
        const char *spec = getenv("HOSTTUNE_FAULT_FAIL");
        if (isempty(spec) || !step)
                return 0;
        _cleanup_strv_free_ char **specs = strv_split(spec, ",");
        for (size_t i = 0; specs && specs[i] && i < MAX_FAIL_SPECS; i++) {
                const char *colon = strchr(specs[i], ':');
                size_t len = colon ? (size_t)(colon - specs[i]) : strlen(specs[i]);
                if (strlen(step) != len || strncmp(step, specs[i], len) != 0)
                        continue;
                uint64_t want = 1;
                if (colon && parse_u64(colon + 1, &want) < 0)
                        continue;
                if (++n_fail_reached[i] == want) {
                        if (getenv("HOSTTUNE_FAULT_TRACE"))
                                dprintf(STDERR_FILENO, "hosttune: fault: %s fails (EIO)\n", step);
                        return -EIO;
                }
        }
        return 0;
}
