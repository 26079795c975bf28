/* Who else tunes this host (issue 38): the tuners a database host meets,
 * each running (a root-owned process of that name in /proc) and/or
 * enabled (its unit wanted by a target: a link under
 * /etc/systemd/system/TARGET.wants/). Only known tuners, by their own
 * names: a process another user runs under such a name is not one. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* comm: the process name (/proc/PID/comm, 15 bytes at most; tuned is a
 * Python script, whose comm the kernel takes from the script's name); NULL
 * for one-shot services that apply their values and exit. */
static const struct {
        const char *name, *comm, *unit;
} known[] = {
        {"tuned", "tuned", "tuned.service"},
        {"bpftune", "bpftune", "bpftune.service"},
        {"sapconf", NULL, "sapconf.service"},
        {"saptune", NULL, "saptune.service"},
        {"kubelet", "kubelet", "kubelet.service"},
        {"dockerd", "dockerd", "docker.service"},
        {"irqbalance", "irqbalance", "irqbalance.service"},
        /* "power-profiles-daemon" cut to the 15 bytes of a comm */
        {"power-profiles-daemon", "power-profiles-", "power-profiles-daemon.service"},
};

static ht_tuner *tuner(ht_facts *f, size_t k) {
        for (size_t i = 0; i < f->n_tuners; i++)
                if (streq(f->tuners[i].name, known[k].name))
                        return &f->tuners[i];
        f->tuners = xrealloc(f->tuners, (f->n_tuners + 1) * sizeof(*f->tuners));
        f->tuners[f->n_tuners] = (ht_tuner){.name = xstrdup(known[k].name), .unit = xstrdup(known[k].unit)};
        return &f->tuners[f->n_tuners++];
}

static void collect_running(const ht_context *c, ht_facts *f) {
        const ht_proc_comm *procs;
        size_t n;
        struct stat proc;
        /* the owner of /proc: root on a host, whoever made a fixture's */
        if (ht_stat(c, "/proc", &proc) < 0 || !ht_facts_proc_comms(c, f, &procs, &n))
                return;
        for (size_t i = 0; i < n; i++) {
                if (!procs[i].comm)
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(known); k++) {
                        if (!known[k].comm || !streq(procs[i].comm, known[k].comm))
                                continue;
                        /* a non-root user can call a process anything:
                         * only root's (/proc/PID is owned by its uid) */
                        _cleanup_free_ char *dir = xasprintf("/proc/%u", procs[i].pid);
                        struct stat st;
                        if (ht_stat(c, dir, &st) < 0 || st.st_uid != proc.st_uid)
                                break;
                        ht_tuner *t = tuner(f, k);
                        if (!t->running || procs[i].pid < t->pid)
                                t->pid = procs[i].pid;
                        t->running = true;
                        break;
                }
        }
}

static void collect_enabled(const ht_context *c, ht_facts *f) {
        _cleanup_strv_free_ char **dirs = NULL;
        if (ht_list_dir(c, "/etc/systemd/system", ".wants", &dirs) < 0)
                return;
        for (size_t d = 0; dirs && dirs[d]; d++)
                for (size_t k = 0; k < ELEMENTSOF(known); k++) {
                        _cleanup_free_ char *link = xasprintf("/etc/systemd/system/%s/%s", dirs[d], known[k].unit);
                        _cleanup_free_ char *target = NULL;
                        struct stat st;
                        if (ht_lstat(c, link, &st) < 0)
                                continue;
                        /* a link to /dev/null is a masked unit, not a wanted one */
                        if (S_ISLNK(st.st_mode) && ht_readlink(c, link, &target) == 0 && streq(target, "/dev/null"))
                                continue;
                        ht_tuner *t = tuner(f, k);
                        if (!t->enabled_by)
                                t->enabled_by = TAKE_PTR(link);
                }
}

void ht_facts_collect_tuners(const ht_context *c, ht_facts *f) {
        if (!f->offline)
                collect_running(c, f);
        collect_enabled(c, f);
        for (size_t i = 0; i < f->n_tuners; i++) {
                ht_tuner *t = &f->tuners[i];
                if (!streq(t->name, "tuned"))
                        continue;
                /* the profile tuned applies at its start (tuned-adm profile
                 * writes it; tuned reads it when started without -p) */
                _cleanup_free_ char *text = NULL;
                if (ht_read_file(c, "/etc/tuned/active_profile", 64 * 1024, &text, NULL) == 0) {
                        char *s = strstrip(text);
                        if (*s && !has_control_chars(s))
                                t->profile = xstrdup(s);
                }
        }
}
