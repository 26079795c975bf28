/* hosttune budget (issue 37): one memory budget for the whole host.
 * Every consumer of memory the facts see (each Oracle instance, each
 * MySQL/MariaDB server, each JVM, other SysV and hugetlbfs users, the
 * kernel's page tables, the reserve the strictest HugePages cap keeps),
 * the HugePages each workload needs, their total against MemTotal and
 * the cap, and what is free now. The HugePages come from the same
 * resolution a plan makes (ht_make_plan: the workload profiles composed
 * by meaning), so a budget and a plan never disagree. --what-if adds a
 * planned workload and answers: does it fit, what would apply change,
 * what would have to give. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "planner.h"
#include "render.h"
#include "util.h"

static json_object *get(json_object *o, const char *dotted) {
        _cleanup_strv_free_ char **parts = strv_split(dotted, ".");
        for (size_t i = 0; o && parts[i]; i++)
                if (!json_object_object_get_ex(o, parts[i], &o))
                        return NULL;
        return o;
}

static int64_t get_i(json_object *o, const char *dotted) {
        json_object *v = get(o, dotted);
        return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
                       ? json_object_get_int64(v) : 0;
}

static const char *get_s(json_object *o, const char *dotted) {
        json_object *v = get(o, dotted);
        return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void add_s(json_object *o, const char *k, const char *v) {
        json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

/* One consumer: kind, name, bytes of memory, of which in HugePages. */
static void consumer(json_object *list, const char *kind, const char *name, int64_t bytes, int64_t huge_bytes,
                     const char *note, const char *from) {
        json_object *c = json_object_new_object();
        add_s(c, "kind", kind);
        add_s(c, "name", name);
        json_object_object_add(c, "bytes", json_object_new_int64(bytes));
        json_object_object_add(c, "hugepages_bytes", json_object_new_int64(huge_bytes));
        add_s(c, "note", note);
        add_s(c, "from", from);
        json_object_array_add(list, c);
}

/* What the facts see, consumer by consumer. */
static json_object *consumers(json_object *f) {
        json_object *l = json_object_new_array(), *a;
        if ((a = get(f, "workload.oracle.databases")) && json_object_is_type(a, json_type_array))
                for (size_t i = 0; i < json_object_array_length(a); i++) {
                        json_object *d = json_object_array_get_idx(a, i);
                        if (json_object_get_boolean(get(d, "asm")))
                                continue;
                        int64_t sga = get_i(d, "sga_max_size"), amm = get_i(d, "memory_max_target");
                        if (!amm)
                                amm = get_i(d, "memory_target");
                        _cleanup_free_ char *name = xasprintf("oracle %s", get_s(d, "sid") ? get_s(d, "sid") : "?");
                        const char *ex = get_s(d, "excluded");
                        consumer(l, "oracle", name, amm ? amm : sga + get_i(d, "pga_aggregate_target"),
                                 get_i(d, "hugepages_bytes"),
                                 amm ? "AMM (memory_target): cannot use HugePages" : ex,
                                 get_s(d, "parameter_file"));
                }
        json_object *my = get(f, "workload.mysql"), *servers = get(my, "servers");
        bool mariadb = json_object_get_boolean(get(my, "mariadb"));
        size_t n_servers = servers && json_object_is_type(servers, json_type_array)
                                   ? json_object_array_length(servers) : 0;
        /* mariadb@/mysqld@ instances: each server from its own option
         * groups (facts-mysql.c), their pages summing to what the plan
         * sizes (workload.mysql.large_pages_bytes) */
        for (size_t i = 0; i < n_servers; i++) {
                json_object *sv = json_object_array_get_idx(servers, i);
                int64_t pools = get_i(sv, "innodb_buffer_pool_size") + get_i(sv, "key_buffer_size") +
                                get_i(sv, "aria_pagecache_buffer_size") + get_i(sv, "innodb_log_buffer_size") +
                                get_i(sv, "query_cache_size");
                int64_t lp = get_i(sv, "large_pages_bytes");
                bool en = json_object_get_boolean(get(sv, "enabled")), run = json_object_get_boolean(get(sv, "running"));
                _cleanup_free_ char *name = xasprintf("%s %s", mariadb ? "mariadb" : "mysql", get_s(sv, "unit"));
                _cleanup_free_ char *note = xasprintf("%s%s%s", run ? "running" : en ? "enabled" : "",
                                                      lp ? "" : ", large_pages off: in standard pages",
                                                      get_s(sv, "instance") ? "" : ", the default server");
                const char *from = get_s(sv, "large_pages_bytes_from");
                consumer(l, "mysql", name, pools > lp ? pools : lp, lp, note, from ? from : get_s(sv, "options_from"));
        }
        if (!n_servers && my && (get_i(my, "config.innodb_buffer_pool_size") || get(my, "unit") || get_s(my, "unit"))) {
                int64_t pools = get_i(my, "config.innodb_buffer_pool_size") + get_i(my, "config.key_buffer_size") +
                                get_i(my, "config.aria_pagecache_buffer_size") +
                                get_i(my, "config.innodb_log_buffer_size") + get_i(my, "config.query_cache_size");
                json_object *units = get(my, "units");
                size_t n = units && json_object_is_type(units, json_type_array) ? json_object_array_length(units) : 0;
                /* mysqld@ instances share the option files the facts read */
                for (size_t i = 0; i < (n ? n : 1); i++) {
                        json_object *u = n ? json_object_array_get_idx(units, i) : NULL;
                        const char *un = u && json_object_is_type(u, json_type_string) ? json_object_get_string(u)
                                         : u ? get_s(u, "name") : get_s(my, "unit");
                        /* the unit file's name, not its directory */
                        if (un && strrchr(un, '/'))
                                un = strrchr(un, '/') + 1;
                        _cleanup_free_ char *name = xasprintf("%s %s", json_object_get_boolean(get(my, "mariadb"))
                                                                               ? "mariadb" : "mysql",
                                                              un ? un : "(option files)");
                        consumer(l, "mysql", name, pools, i == 0 ? get_i(my, "large_pages_bytes") : 0,
                                 get_i(my, "large_pages_bytes") ? NULL : "large_pages off: in standard pages",
                                 get_s(my, "large_pages_bytes_from"));
                }
        }
        if ((a = get(f, "workload.jvm.processes")) && json_object_is_type(a, json_type_array))
                for (size_t i = 0; i < json_object_array_length(a); i++) {
                        json_object *p = json_object_array_get_idx(a, i);
                        const char *u = get_s(p, "unit");
                        _cleanup_free_ char *name = xasprintf("jvm %" PRId64 "%s%s", get_i(p, "pid"), u ? " " : "",
                                                              u ? u : "");
                        int64_t cc = get_i(p, "reserved_code_cache_size");
                        /* HotSpot's default ReservedCodeCacheSize with tiered
                         * compilation: 240 MB (JDK's globals.hpp) */
                        if (!cc)
                                cc = 240LL << 20;
                        int64_t lp = get_i(p, "large_pages_bytes");
                        consumer(l, "jvm", name, get_i(p, "heap_bytes") + cc, lp,
                                 lp ? NULL : "no -XX:+UseLargePages: heap and code cache in standard pages",
                                 get_s(p, "options_from"));
                }
        /* other live SysV segments: those no Oracle instance accounts for */
        int64_t shm = get_i(f, "shm.total_bytes"), oracle_huge = 0;
        for (size_t i = 0; i < json_object_array_length(l); i++)
                if (streq(get_s(json_object_array_get_idx(l, i), "kind"), "oracle"))
                        oracle_huge += get_i(json_object_array_get_idx(l, i), "hugepages_bytes");
        if (shm > 0 && shm > oracle_huge) {
                _cleanup_free_ char *n = xasprintf("%" PRId64 " SysV segments", get_i(f, "shm.segments"));
                consumer(l, "sysv", n, shm - oracle_huge, 0,
                         "live shared memory beyond the Oracle SGAs above", "/proc/sysvipc/shm");
        }
        if ((a = get(f, "mounts.hugetlbfs")) && json_object_is_type(a, json_type_array))
                for (size_t i = 0; i < json_object_array_length(a); i++) {
                        _cleanup_free_ char *n = xasprintf("hugetlbfs %s", get_s(json_object_array_get_idx(a, i), "target"));
                        consumer(l, "hugetlbfs", n, 0, 0, "a mount any user with access may map pages from",
                                 "/proc/self/mountinfo");
                }
        int64_t pt = get_i(f, "memory.page_tables_kb") * 1024;
        if (pt)
                consumer(l, "kernel", "page tables now", pt, 0, "grow with every process mapping large memory in 4 KB pages",
                         "/proc/meminfo");
        return l;
}

/* The HugePages the resolution plans per workload: its composition's
 * (several workloads), else its one vm.nr_hugepages. */
static json_object *workload_pages(const ht_resolved *r, int64_t *ret_total) {
        json_object *l = json_object_new_array(), *h;
        int64_t total = 0;
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == HT_BK_SYSCTL && streq(r->settings[i].key, "vm.nr_hugepages"))
                        total = strtoll(r->settings[i].value ? r->settings[i].value : "0", NULL, 10);
        if (r->composed && json_object_object_get_ex(r->composed, "hugepages", &h) &&
            json_object_array_length(h))
                for (size_t i = 0; i < json_object_array_length(h); i++)
                        json_object_array_add(l, json_object_get(json_object_array_get_idx(h, i)));
        else if (total) {
                json_object *e = json_object_new_object();
                add_s(e, "profile", r->chain ? r->chain[strv_length(r->chain) - 1] : r->name);
                json_object_object_add(e, "pages", json_object_new_int64(total));
                for (size_t i = 0; i < r->n_settings; i++)
                        if (r->settings[i].backend == HT_BK_SYSCTL && streq(r->settings[i].key, "vm.nr_hugepages"))
                                add_s(e, "source", r->settings[i].source);
                json_object_array_add(l, e);
        }
        *ret_total = total;
        return l;
}

static const char *param_value(const ht_resolved *r, const char *name) {
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, name))
                        return r->params[i].value;
        return NULL;
}

/* The strictest HugePages cap the resolution's workloads give, percent. */
static int64_t cap_percent(const ht_resolved *r, const char **ret_source) {
        int64_t pct = 0;
        *ret_source = NULL;
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, "hugepages_max_percent")) {
                        pct = strtoll(r->params[i].value, NULL, 10);
                        *ret_source = r->params[i].source;
                }
        /* a composition: the strictest cap of its workloads that take
         * pages (compose.c), not the order-resolved parameter */
        json_object *cap, *v;
        if (r->composed && json_object_object_get_ex(r->composed, "hugepages_cap", &cap) && cap &&
            json_object_object_get_ex(cap, "percent", &v)) {
                pct = json_object_get_int64(v);
                *ret_source = json_object_object_get_ex(cap, "source", &v) ? json_object_get_string(v) : NULL;
        }
        return pct > 0 ? pct : 90;
}

typedef struct {
        ht_planning p;
        json_object *facts;
        char *profile;
        char **sets;
} budget_run;

static void run_done(budget_run *b) {
        if (b->p.resolved)
                ht_planning_done(&b->p);
        json_object_put(b->facts);
        free(b->profile);
        strv_free(b->sets);
}

/* The budget of one resolution as JSON; *ret_fits. */
static json_object *budget_json(budget_run *b, json_object *wf, bool *ret_fits) {
        json_object *o = json_object_new_object(), *f = b->facts;
        add_s(o, "profile", b->profile);
        json_object_object_add(o, "sets", ht_strv_to_json(b->sets));
        int64_t total_kb = get_i(f, "memory.total_kb"), page_kb = get_i(f, "hugepages.default_size_kb");
        const char *ps = param_value(b->p.resolved, "hugepage_size_kb");
        if (ps)
                page_kb = strtoll(ps, NULL, 10);
        json_object *mem = json_object_new_object();
        json_object_object_add(mem, "total_kb", json_object_new_int64(total_kb));
        json_object_object_add(mem, "available_kb", json_object_new_int64(get_i(f, "memory.available_kb")));
        json_object_object_add(mem, "free_kb", json_object_new_int64(get_i(f, "memory.free_kb")));
        json_object_object_add(o, "memory", mem);

        json_object *cons = consumers(wf);
        int64_t planned = 0;
        json_object *wl = workload_pages(b->p.resolved, &planned);
        const char *cap_src = NULL;
        int64_t cap = cap_percent(b->p.resolved, &cap_src);
        json_object *hp = json_object_new_object();
        json_object_object_add(hp, "page_size_kb", json_object_new_int64(page_kb));
        json_object_object_add(hp, "total_now", json_object_new_int64(get_i(f, "hugepages.total")));
        json_object_object_add(hp, "free_now", json_object_new_int64(get_i(f, "hugepages.free")));
        json_object_object_add(hp, "reserved_now", json_object_new_int64(get_i(f, "hugepages.rsvd")));
        json_object_object_add(hp, "usable_now", json_object_new_int64(get_i(f, "hugepages.free") - get_i(f, "hugepages.rsvd")));
        json_object_object_add(hp, "planned_pages", json_object_new_int64(planned));
        json_object_object_add(hp, "planned_bytes", json_object_new_int64(planned * page_kb * 1024));
        json_object_object_add(hp, "cap_percent", json_object_new_int64(cap));
        add_s(hp, "cap_source", cap_src);
        json_object_object_add(hp, "cap_bytes", json_object_new_int64(total_kb * 1024 / 100 * cap));
        json_object_object_add(hp, "workloads", wl);
        json_object_object_add(o, "hugepages", hp);

        /* standard-page memory the consumers need beside the HugePages */
        int64_t small = 0;
        for (size_t i = 0; i < json_object_array_length(cons); i++) {
                json_object *c = json_object_array_get_idx(cons, i);
                int64_t rest = get_i(c, "bytes") - get_i(c, "hugepages_bytes");
                if (rest > 0 && !streq(get_s(c, "kind"), "kernel"))
                        small += rest;
        }
        int64_t reserve = total_kb * 1024 - total_kb * 1024 / 100 * cap;
        consumer(cons, "reserve", "standard pages the cap keeps", reserve, 0,
                 "the kernel, page cache and every process outside HugePages live here", cap_src);
        json_object_object_add(o, "consumers", cons);
        int64_t huge = planned * page_kb * 1024, mem_b = total_kb * 1024;
        int64_t need = huge + small;
        json_object_object_add(o, "standard_bytes", json_object_new_int64(small));
        json_object_object_add(o, "total_bytes", json_object_new_int64(need));
        json_object_object_add(o, "free_bytes", json_object_new_int64(mem_b - need));
        bool fits = !b->p.resolved->errors && !b->p.plan->errors && huge <= total_kb * 1024 / 100 * cap &&
                    need <= mem_b;
        json_object_object_add(o, "fits", json_object_new_boolean(fits));
        char **errs = NULL;
        for (size_t i = 0; b->p.plan->errors && b->p.plan->errors[i]; i++)
                if (!strv_contains(errs, b->p.plan->errors[i]))
                        strv_push(&errs, b->p.plan->errors[i]);
        if (need > mem_b)
                strv_pushf(&errs, "the consumers need %.1f GB (%.1f GB in HugePages, %.1f GB in standard pages), "
                                  "the host has %.1f GB",
                           need / 1073741824.0, huge / 1073741824.0, small / 1073741824.0, mem_b / 1073741824.0);
        json_object_object_add(o, "errors", ht_strv_to_json(errs));
        strv_free(errs);
        *ret_fits = fits;
        return o;
}

/* "oracle:sga_max_size=48G,hugepage_slack=4": the workload, --sets. */
static int parse_what_if(const char *arg, char **ret_name, char ***sets, char **ret_error) {
        const char *colon = strchr(arg, ':');
        _cleanup_free_ char *name = colon ? xstrndup(arg, colon - arg) : xstrdup(arg);
        if (isempty(name) || strchr(name, '+') || strchr(name, '/')) {
                *ret_error = xasprintf("--what-if %s: expected WORKLOAD[:NAME=VALUE[,NAME=VALUE]...]", arg);
                return -EINVAL;
        }
        if (colon) {
                _cleanup_strv_free_ char **kv = strv_split(colon + 1, ",");
                for (size_t i = 0; kv[i]; i++) {
                        if (!strchr(kv[i], '=') || kv[i][0] == '=') {
                                *ret_error = xasprintf("--what-if %s: '%s' is not NAME=VALUE", arg, kv[i]);
                                return -EINVAL;
                        }
                        strv_push(sets, kv[i]);
                }
        }
        *ret_name = TAKE_PTR(name);
        return 0;
}

/* The workloads the facts see, as the profile to budget them with. */
static char *default_profile(json_object *f) {
        char **w = NULL;
        json_object *a = get(f, "workload.jvm.processes");
        if (get_i(f, "workload.oracle.sga_bytes") || (get(f, "workload.oracle.databases") &&
                                                      json_object_array_length(get(f, "workload.oracle.databases"))))
                strv_push(&w, "oracle");
        json_object *sv = get(f, "workload.mysql.servers");
        if (get_i(f, "workload.mysql.config.innodb_buffer_pool_size") || get_s(f, "workload.mysql.unit") ||
            (sv && json_object_is_type(sv, json_type_array) && json_object_array_length(sv)))
                strv_push(&w, "mysql");
        if (a && json_object_is_type(a, json_type_array) && json_object_array_length(a))
                strv_push(&w, "jvm");
        char *s = w ? strv_join(w, "+") : xstrdup("base");
        strv_free(w);
        return s;
}

static int plan_run(const ht_cmd_opts *o, budget_run *b, char **ret_error) {
        int r = ht_make_plan(o->ctx, b->profile, b->sets, &b->p, ret_error);
        if (r < 0) {
                b->p = (ht_planning){0};
                return r;
        }
        b->facts = ht_facts_to_json(b->p.facts);
        return 0;
}

static void print_budget(json_object *j, const char *title) {
        json_object *o;
#define GB(x) ((x) / 1073741824.0)
        printf("%s: profile %s\n", title, get_s(j, "profile"));
        printf("  memory: %.1f GB total, %.1f GB available now\n", GB(get_i(j, "memory.total_kb") * 1024.0),
               GB(get_i(j, "memory.available_kb") * 1024.0));
        printf("  consumers:\n");
        json_object *c = get(j, "consumers");
        for (size_t i = 0; c && i < json_object_array_length(c); i++) {
                json_object *e = json_object_array_get_idx(c, i);
                const char *note = get_s(e, "note");
                printf("    %-10s %-32s %8.2f GB", get_s(e, "kind"), get_s(e, "name"), GB((double)get_i(e, "bytes")));
                if (get_i(e, "hugepages_bytes"))
                        printf(", %.2f GB in HugePages", GB((double)get_i(e, "hugepages_bytes")));
                printf("%s%s\n", note ? " — " : "", note ? note : "");
        }
        printf("  HugePages (%" PRId64 " KB pages): %" PRId64 " planned (%.2f GB), cap %" PRId64 "%% (%.1f GB, %s); "
               "now %" PRId64 " total, %" PRId64 " free, %" PRId64 " reserved\n",
               get_i(j, "hugepages.page_size_kb"), get_i(j, "hugepages.planned_pages"),
               GB((double)get_i(j, "hugepages.planned_bytes")), get_i(j, "hugepages.cap_percent"),
               GB((double)get_i(j, "hugepages.cap_bytes")), get_s(j, "hugepages.cap_source") ? get_s(j, "hugepages.cap_source") : "default",
               get_i(j, "hugepages.total_now"), get_i(j, "hugepages.free_now"), get_i(j, "hugepages.reserved_now"));
        json_object *w = get(j, "hugepages.workloads");
        for (size_t i = 0; w && i < json_object_array_length(w); i++) {
                json_object *e = json_object_array_get_idx(w, i);
                printf("    %-10s %" PRId64 " pages  %s\n", get_s(e, "profile"), get_i(e, "pages"),
                       get_s(e, "source") ? get_s(e, "source") : "");
        }
        printf("  total: %.2f GB (%.2f GB HugePages + %.2f GB standard pages) of %.1f GB: %.2f GB left\n",
               GB((double)get_i(j, "total_bytes")), GB((double)get_i(j, "hugepages.planned_bytes")),
               GB((double)get_i(j, "standard_bytes")), GB(get_i(j, "memory.total_kb") * 1024.0),
               GB((double)get_i(j, "free_bytes")));
        printf("  fits: %s\n", json_object_object_get_ex(j, "fits", &o) && json_object_get_boolean(o) ? "yes" : "no");
        json_object *e = get(j, "errors");
        for (size_t i = 0; e && i < json_object_array_length(e); i++)
                printf("  error: %s\n", json_object_get_string(json_object_array_get_idx(e, i)));
#undef GB
}

int ht_cmd_budget(const ht_cmd_opts *o) {
        _cleanup_free_ char *error = NULL;
        budget_run now = {0}, then = {0};
        int code = HT_EXIT_ERROR;
        json_object *doc = NULL;
        /* the consumers (and the default profile) follow the workload facts */
        ht_facts *wfacts = NULL;
        int k = ht_facts_collect(o->ctx, HT_FACTS_WITH_WORKLOAD, &wfacts);
        if (k < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-k));
                return HT_EXIT_ERROR;
        }
        json_object *wf = ht_facts_to_json(wfacts);
        ht_facts_free(wfacts);
        now.profile = o->args[0] ? xstrdup(o->args[0]) : default_profile(wf);
        for (size_t i = 0; o->sets && o->sets[i]; i++)
                strv_push(&now.sets, o->sets[i]);
        if (plan_run(o, &now, &error) < 0) {
                ht_report_error("%s", error);
                goto out;
        }
        bool fits_now, fits_then = true;
        doc = budget_json(&now, wf, &fits_now);
        if (o->what_if) {
                then.profile = xstrdup(now.profile);
                for (size_t i = 0; now.sets && now.sets[i]; i++)
                        strv_push(&then.sets, now.sets[i]);
                json_object *added = json_object_new_array();
                for (size_t i = 0; o->what_if[i]; i++) {
                        _cleanup_free_ char *w = NULL;
                        if (parse_what_if(o->what_if[i], &w, &then.sets, &error) < 0) {
                                json_object_put(added);
                                ht_report_error("%s", error);
                                goto out;
                        }
                        json_object_array_add(added, json_object_new_string(o->what_if[i]));
                        _cleanup_strv_free_ char **parts = strv_split(then.profile, "+");
                        if (!strv_contains(parts, w)) {
                                char *p = streq(then.profile, "base") ? xstrdup(w)
                                                                      : xasprintf("%s+%s", then.profile, w);
                                free(then.profile);
                                then.profile = p;
                        }
                }
                if (plan_run(o, &then, &error) < 0) {
                        json_object_put(added);
                        ht_report_error("--what-if: %s", error);
                        goto out;
                }
                json_object *wi = budget_json(&then, wf, &fits_then);
                json_object_object_add(wi, "added", added);
                /* the planned consumers: what each workload's HugePages grow by */
                json_object *tw = get(wi, "hugepages.workloads"), *nw = get(doc, "hugepages.workloads");
                int64_t pkb = get_i(wi, "hugepages.page_size_kb");
                for (size_t i = 0; tw && i < json_object_array_length(tw); i++) {
                        json_object *e = json_object_array_get_idx(tw, i);
                        int64_t before = 0;
                        for (size_t m = 0; nw && m < json_object_array_length(nw); m++)
                                if (streq_ptr(get_s(json_object_array_get_idx(nw, m), "profile"), get_s(e, "profile")))
                                        before = get_i(json_object_array_get_idx(nw, m), "pages");
                        if (get_i(e, "pages") <= before)
                                continue;
                        _cleanup_free_ char *name = xasprintf("%s (what-if)", get_s(e, "profile"));
                        int64_t bytes = (get_i(e, "pages") - before) * pkb * 1024;
                        json_object *cons = get(wi, "consumers");
                        json_object *c = json_object_new_object();
                        add_s(c, "kind", "planned");
                        add_s(c, "name", name);
                        json_object_object_add(c, "bytes", json_object_new_int64(bytes));
                        json_object_object_add(c, "hugepages_bytes", json_object_new_int64(bytes));
                        add_s(c, "note", "HugePages the what-if adds");
                        add_s(c, "from", get_s(e, "source"));
                        json_object_array_add(cons, c);
                }
                /* what apply would change to make room */
                json_object *changes = json_object_new_array();
                for (size_t i = 0; i < then.p.plan->n_changes; i++) {
                        const ht_change *c = &then.p.plan->changes[i];
                        if (c->outcome != HT_OUTCOME_CHANGE)
                                continue;
                        json_object *e = json_object_new_object();
                        add_s(e, "backend", ht_backend_id_to_string(c->backend));
                        add_s(e, "key", c->key);
                        add_s(e, "current", c->current);
                        add_s(e, "desired", c->desired);
                        json_object_array_add(changes, e);
                }
                json_object_object_add(wi, "apply_would_change", changes);
                /* what would have to give: the shortfall, from the largest consumers */
                json_object *give = json_object_new_array();
                if (!fits_then) {
                        int64_t over_huge = get_i(wi, "hugepages.planned_bytes") - get_i(wi, "hugepages.cap_bytes");
                        int64_t over_mem = -get_i(wi, "free_bytes");
                        int64_t over = over_huge > over_mem ? over_huge : over_mem;
                        json_object *c = get(wi, "consumers");
                        for (size_t i = 0; over > 0 && c && i < json_object_array_length(c); i++) {
                                json_object *e = json_object_array_get_idx(c, i);
                                if (!get_i(e, "hugepages_bytes"))
                                        continue;
                                _cleanup_free_ char *t = xasprintf("%s: %.2f GB in HugePages", get_s(e, "name"),
                                                                   get_i(e, "hugepages_bytes") / 1073741824.0);
                                json_object_array_add(give, json_object_new_string(t));
                        }
                        if (over > 0) {
                                char *s = xasprintf("%.2f GB must give: shrink these by that much in all "
                                                    "(sga_max_size, innodb_buffer_pool_size, heap_size), or "
                                                    "add memory",
                                                    over / 1073741824.0);
                                json_object_array_add(give, json_object_new_string(s));
                                free(s);
                        }
                }
                json_object_object_add(wi, "must_give", give);
                json_object_object_add(doc, "what_if", wi);
        }
        if (o->ctx->json)
                ht_print_json(stdout, doc);
        else {
                print_budget(doc, "budget now");
                json_object *wi = get(doc, "what_if");
                if (wi) {
                        printf("\n");
                        print_budget(wi, "what if");
                        json_object *c = get(wi, "apply_would_change");
                        printf("  apply would change %zu setting%s:\n", json_object_array_length(c),
                               json_object_array_length(c) == 1 ? "" : "s");
                        for (size_t i = 0; i < json_object_array_length(c); i++) {
                                json_object *e = json_object_array_get_idx(c, i);
                                printf("    %s %s: %s -> %s\n", get_s(e, "backend"), get_s(e, "key"),
                                       get_s(e, "current") ? get_s(e, "current") : "(unset)", get_s(e, "desired"));
                        }
                        json_object *g = get(wi, "must_give");
                        for (size_t i = 0; g && i < json_object_array_length(g); i++)
                                printf("  must give: %s\n", json_object_get_string(json_object_array_get_idx(g, i)));
                }
        }
        /* 0: it fits (now, and with the what-if); 2: it does not */
        code = fits_now && fits_then ? HT_EXIT_OK : HT_EXIT_PENDING;
out:
        json_object_put(doc);
        json_object_put(wf);
        run_done(&now);
        run_done(&then);
        return code;
}
