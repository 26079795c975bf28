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
};

/* /proc lists thousands of tasks on a busy host: enough for any */
#define MAX_PIDS 65536

static ht_tuner *tuner(ht_facts *f, size_t k) {
        for (size_t i = 0; i < f->n_tuners; i++)
                if (streq(f->tuners[i].name, known[k].name))
                        return &f->tuners[i];
        f->tuners = xrealloc(f->tuners, (f->n_tuners + 1) * sizeof(*f->tuners));
        f->tuners[f->n_tuners] = (ht_tuner){.name = xstrdup(known[k].name), .unit = xstrdup(known[k].unit)};
        return &f->tuners[f->n_tuners++];
}

static void collect_running(const ht_context *c, ht_facts *f) {
        _cleanup_strv_free_ char **names = NULL;
        struct stat proc;
        /* the owner of /proc: root on a host, whoever made a fixture's */
        if (ht_stat(c, "/proc", &proc) < 0 || ht_list_dir(c, "/proc", NULL, &names) < 0)
                return;
        size_t seen = 0;
        for (size_t i = 0; names && names[i] && seen < MAX_PIDS; i++) {
                uint64_t pid;
                if (!names[i][0] || strspn(names[i], "0123456789") != strlen(names[i]) ||
                    parse_u64(names[i], &pid) < 0 || pid == 0 || pid > UINT32_MAX)
                        continue;
                seen++;
                _cleanup_free_ char *dir = xasprintf("/proc/%s", names[i]);
                _cleanup_free_ char *p_comm = xasprintf("/proc/%s/comm", names[i]);
                _cleanup_free_ char *comm = NULL;
                struct stat st;
                /* a process that went away meanwhile is simply not there */
                if (ht_read_file(c, p_comm, 256, &comm, NULL) < 0)
                        continue;
                comm[strcspn(comm, "\n")] = 0;
                for (size_t k = 0; k < ELEMENTSOF(known); k++) {
                        if (!known[k].comm || !streq(comm, known[k].comm))
                                continue;
                        /* a non-root user can call a process anything:
                         * only root's (/proc/PID is owned by its uid) */
                        if (ht_stat(c, dir, &st) < 0 || st.st_uid != proc.st_uid)
                                break;
                        ht_tuner *t = tuner(f, k);
                        if (!t->running || pid < t->pid)
                                t->pid = (unsigned)pid;
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
