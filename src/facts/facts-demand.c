/* The facts a plan reads only when an expression names them: the
 * workloads' (a part at a time) and the devices'. A plan collects the
 * host's facts up front (HT_FACTS_HOST) and leaves these out, since
 * reading them costs (every process, every disk); the profile room's
 * expression environment asks for them here by name (ht_facts_need)
 * instead of reading them itself. */
#include "config.h"

#include <string.h>

#include "facts.h"
#include "util.h"

/* The part of the workload facts a dotted name needs:
 * workload.oracle.*, workload.warnings.oracle, ... read only that
 * workload's files; anything else ("workload", workload.processes) all. */
static unsigned workload_part(const char *dotted) {
        static const struct {
                const char *name;
                unsigned part;
        } parts[] = {
                {"oracle", HT_WORKLOAD_ORACLE},
                {"mysql", HT_WORKLOAD_MYSQL},
                {"jvm", HT_WORKLOAD_JVM},
        };
        const char *g = startswith(dotted, "workload.warnings.") ? dotted + 18
                        : startswith(dotted, "workload.")        ? dotted + 9
                                                                 : NULL;
        if (!g)
                return HT_WORKLOAD_ALL;
        size_t n = strcspn(g, ".");
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                if (strlen(parts[i].name) == n && strncmp(g, parts[i].name, n) == 0)
                        return parts[i].part;
        return HT_WORKLOAD_ALL;
}

static void load_workload(const ht_context *c, json_object *facts, const char *dotted, ht_facts_demand *d) {
        /* a lazy tree's collected workload group, built before it is
         * looked at here */
        ht_facts_json_fill(facts, "workload");
        /* facts that came with their workload part (collected with it, or
         * a --facts file) are kept as they are */
        if (!d->workload_parts && json_object_object_get_ex(facts, "workload", NULL))
                d->workload_parts = HT_WORKLOAD_ALL;
        unsigned want = workload_part(dotted);
        if ((want & d->workload_parts) == want)
                return;
        ht_workload_trust trust = {0};
        if (d->trust)
                d->trust(d->userdata, &trust);
        json_object *have = NULL;
        if (want == HT_WORKLOAD_ALL || !d->workload_parts ||
            !json_object_object_get_ex(facts, "workload", &have)) {
                /* all of it read anew: what was read before is replaced */
                if (d->workload_parts)
                        want = HT_WORKLOAD_ALL;
                json_object_object_add(facts, "workload", ht_facts_workload_json(c, want, &trust));
                d->workload_parts |= want;
                return;
        }
        json_object *fresh = ht_facts_workload_json(c, want, &trust);
        /* one more workload beside those read before: its group and its
         * warnings move into the tree the resolver has */
        static const char *const groups[] = {"oracle", "mysql", "jvm"};
        json_object *ws_have = NULL, *ws_fresh = NULL;
        json_object_object_get_ex(have, "warnings", &ws_have);
        json_object_object_get_ex(fresh, "warnings", &ws_fresh);
        for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                if (!(want & (1u << i)))
                        continue;
                json_object *o = NULL;
                if (json_object_object_get_ex(fresh, groups[i], &o))
                        json_object_object_add(have, groups[i], json_object_get(o));
                if (ws_have && ws_fresh && json_object_object_get_ex(ws_fresh, groups[i], &o))
                        json_object_object_add(ws_have, groups[i], json_object_get(o));
        }
        json_object_put(fresh);
        d->workload_parts |= want;
}

/* facts.block and facts.cpu.cpufreq of a running host, read on first
 * use; a --facts file's (an image) and collected ones stay. */
static void load_devices(const ht_context *c, json_object *facts, ht_facts_demand *d, char ***warnings) {
        d->devices_read = true;
        json_object *block = ht_facts_lookup_field(facts, "block.devices", NULL);
        json_object *offline = ht_facts_lookup_field(facts, "image.offline", NULL);
        /* through the look-up, which builds a lazy tree's "cpu" */
        json_object *cpu = ht_facts_lookup_field(facts, "cpu", NULL);
        if (block || (offline && json_object_get_boolean(offline)) || !json_object_is_type(cpu, json_type_object))
                return;
        json_object *devs = ht_facts_devices_json(c, warnings), *o = NULL;
        if (json_object_object_get_ex(devs, "block", &o))
                json_object_object_add(facts, "block", json_object_get(o));
        if (json_object_object_get_ex(devs, "cpufreq", &o))
                json_object_object_add(cpu, "cpufreq", json_object_get(o));
        json_object_put(devs);
}

static bool names_devices(const char *dotted) {
        return streq(dotted, "block") || startswith(dotted, "block.") || streq(dotted, "cpu") ||
               streq(dotted, "cpu.cpufreq") || startswith(dotted, "cpu.cpufreq.");
}

void ht_facts_need(const ht_context *c, json_object *facts, const char *dotted, ht_facts_demand *d,
                   char ***warnings) {
        if (!c || !facts || !json_object_is_type(facts, json_type_object))
                return;
        if (!d->devices_read && names_devices(dotted))
                load_devices(c, facts, d, warnings);
        if (streq(dotted, "workload") || startswith(dotted, "workload."))
                load_workload(c, facts, dotted, d);
}
