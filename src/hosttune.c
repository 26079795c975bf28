/* The CLI: parse options, build the root context, dispatch. Only this file
 * knows about argv and exit codes' meaning for the shell. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "context.h"
#include "facts.h"
#include "profile.h"
#include "util.h"

enum {
        OPT_ROOT = 0x100,
        OPT_STATE_DIR,
        OPT_LIVE_ROOT,
        OPT_PROFILE_PATH,
        OPT_RULES_PATH,
        OPT_COLOR,
        OPT_SET,
        OPT_DRY_RUN,
        OPT_BOOT,
        OPT_FACTS,
        OPT_VERSION,
        OPT_INTERVAL,
        OPT_SETTLE,
        OPT_TUNED_PATH,
        OPT_OUTPUT,
        OPT_FORMAT,
        OPT_TEXTFILE,
        OPT_REFUSE,
        OPT_WHAT_IF,
};

/* Which command-specific options a command takes. */
enum {
        TAKES_SET = 1 << 0,
        TAKES_DRY_RUN = 1 << 1,
        TAKES_BOOT = 1 << 2,
        TAKES_INTERVAL = 1 << 3,
        TAKES_OUTPUT = 1 << 4,
        /* --format=openmetrics and --textfile */
        TAKES_METRICS = 1 << 5,
        TAKES_SETTLE = 1 << 6,
        TAKES_REFUSE = 1 << 7,
        TAKES_WHAT_IF = 1 << 8,  /* budget --what-if (issue 37) */
};

typedef struct {
        const char *name;
        int (*run)(const ht_cmd_opts *o);
        unsigned min_args, max_args;
        unsigned takes;
        const char *usage;
        const char *description;
} command;

static const command commands[] = {
        {"facts", ht_cmd_facts, 0, 0, 0, "facts",
         "what the host is and can do"},
        {"list", ht_cmd_list, 0, 0, 0, "list",
         "profiles found on the profile path"},
        {"show", ht_cmd_show, 1, 1, TAKES_SET, "show PROFILE [--set K=V]...",
         "the resolved profile and where each value comes from"},
        {"plan", ht_cmd_plan, 1, 1, TAKES_SET, "plan PROFILE [--set K=V]...",
         "dry run: diffs and runtime changes"},
        {"apply", ht_cmd_apply, 1, 1, TAKES_SET | TAKES_DRY_RUN, "apply PROFILE [--set K=V]... [--dry-run]",
         "plan, then change the host as one transaction"},
        {"verify", ht_cmd_verify, 0, 0, TAKES_BOOT | TAKES_METRICS | TAKES_SETTLE,
         "verify [--boot] [--settle SECONDS] [--textfile PATH]",
         "compare the host with the last apply"},
        {"rollback", ht_cmd_rollback, 0, 1, 0, "rollback [TXID]",
         "undo the last (or the named) apply"},
        {"history", ht_cmd_history, 0, 0, 0, "history",
         "transactions in the journal"},
        {"recommend", ht_cmd_recommend, 0, 0, 0, "recommend",
         "which shipped profile fits this host"},
        {"status", ht_cmd_status, 0, 0, TAKES_INTERVAL | TAKES_METRICS, "status [--interval SECONDS] [--textfile PATH]",
         "what the tuning does now: page tables, HugePages, paging"},
        {"explain", ht_cmd_explain, 1, 2, 0, "explain KEY [PROFILE]",
         "why a sysctl has its value: now, every boot file in order, hosttune, verify"},
        {"import", ht_cmd_import, 2, 2, TAKES_OUTPUT, "import tuned NAME|DIR [--output FILE]",
         "a tuned profile as a hosttune profile, with what cannot carry over"},
        {"gate", ht_cmd_gate, 1, 1, TAKES_REFUSE, "gate UNIT [--refuse]",
         "before UNIT starts: its free HugePages, memlock, THP, cmdline"},
        {"budget", ht_cmd_budget, 0, 1, TAKES_SET | TAKES_WHAT_IF,
         "budget [PROFILE] [--set K=V]... [--what-if W[:K=V]]...",
         "every consumer of memory, the HugePages each needs, and whether a new one fits"},
};

static void usage(FILE *out) {
        fprintf(out,
                "Usage: hosttune [OPTIONS] COMMAND [ARGS]...\n"
                "\n"
                "Tune a host's kernel settings, devices, limits, services and boot\n"
                "command line to a profile, safely: plan first, apply as one\n"
                "transaction, verify after reboot.\n"
                "\n"
                "Commands:\n");
        /* a usage too long for the column puts its description below */
        for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
                const command *c = &commands[i];
                if (strlen(c->usage) <= 28)
                        fprintf(out, "  %-28s %s\n", c->usage, c->description);
                else
                        fprintf(out, "  %s\n  %-28s %s\n", c->usage, "", c->description);
        }
        fprintf(out,
                "\n"
                "Options:\n"
                "  --root DIR           operate on the host tree under DIR (image builds, tests)\n"
                "  --profile-path DIR   look for profiles in DIR (repeatable; searched first)\n"
                "  --rules-path DIR     look for rules in DIR (repeatable; searched first)\n"
                "  --tuned-path DIR     tuned profiles (tuned:NAME) in DIR first (repeatable)\n"
                "  --state-dir DIR      journal, backups and an image's lock (default\n"
                "                       ROOT/var/lib/hosttune; DIR itself is not under ROOT)\n"
                "  --live-root          the --root tree is the running system (its /proc\n"
                "                       and /sys are its own kernel's; its tools run,\n"
                "                       confined), not an image\n"
                "  --set NAME=VALUE     override a profile parameter (show, plan, apply, budget)\n"
                "  --dry-run            apply: print the plan, change nothing\n"
                "  --boot               verify: boot-time mode, log to the journal\n"
                "  --settle SECONDS     verify: wait up to this long for a workload started\n"
                "                       less than SECONDS ago to take its HugePages\n"
                "                       (default 120 with --boot, else 0)\n"
                "  --facts FILE         kernel facts for an offline image (from 'facts --json')\n"
                "  --interval SECONDS   status: also paging rates over SECONDS\n"
                "  --output FILE        import: write the profile to FILE (default: stdout)\n"
                "  --refuse             gate: exit 2 when the unit's HugePages or memlock\n"
                "                       limit are short (default: only warn)\n"
                "  --what-if W[:K=V]    budget: add workload profile W (its parameters K=V,\n"
                "                       comma-separated) and say whether it fits (repeatable)\n"
                "  --textfile PATH      verify, status: also write the metrics to PATH for\n"
                "                       node_exporter's textfile collector (atomically)\n"
                "  --format=FORMAT      text (the default), json, or openmetrics (verify,\n"
                "                       status: Prometheus metrics)\n"
                "  -j, --json           machine-readable output (--format=json)\n"
                "  -q, --quiet          no warnings or progress, only results and errors\n"
                "  --color=WHEN, --colour=WHEN\n"
                "                       auto (the default: colour on a terminal, unless\n"
                "                       NO_COLOR is set), always or never\n"
                "  -h, --help           this help\n"
                "  --version            the version\n"
                "\n"
                "Exit status: 0 ok and nothing pending, 1 error (the host is unchanged),\n"
                "2 plan (and apply --dry-run): changes pending / verify: drift /\n"
                "gate --refuse: the unit refused,\n"
                "3 verify: reboot pending, 4 apply/rollback: an undo stopped part-way\n"
                "(the message says what is where; rollback again finishes it).\n"
                "See hosttune(8) and hosttune.profile(5).\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *message = xvasprintf(fmt, ap);
        va_end(ap);
        fprintf(stderr, "hosttune: %s\n", message);
        ht_record_error(true, message);
        fputs("Try 'hosttune --help' for more information.\n", stderr);
        return HT_EXIT_ERROR;
}

static const command *find_command(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (streq(commands[i].name, name))
                        return &commands[i];
        return NULL;
}

static int run(int argc, char **argv) {
        static const struct option options[] = {
                {"root", required_argument, NULL, OPT_ROOT},
                {"state-dir", required_argument, NULL, OPT_STATE_DIR},
                {"live-root", no_argument, NULL, OPT_LIVE_ROOT},
                {"profile-path", required_argument, NULL, OPT_PROFILE_PATH},
                {"rules-path", required_argument, NULL, OPT_RULES_PATH},
                {"json", no_argument, NULL, 'j'},
                {"quiet", no_argument, NULL, 'q'},
                {"color", required_argument, NULL, OPT_COLOR},
                {"colour", required_argument, NULL, OPT_COLOR},
                {"set", required_argument, NULL, OPT_SET},
                {"dry-run", no_argument, NULL, OPT_DRY_RUN},
                {"boot", no_argument, NULL, OPT_BOOT},
                {"facts", required_argument, NULL, OPT_FACTS},
                {"interval", required_argument, NULL, OPT_INTERVAL},
                {"settle", required_argument, NULL, OPT_SETTLE},
                {"tuned-path", required_argument, NULL, OPT_TUNED_PATH},
                {"output", required_argument, NULL, OPT_OUTPUT},
                {"format", required_argument, NULL, OPT_FORMAT},
                {"textfile", required_argument, NULL, OPT_TEXTFILE},
                {"refuse", no_argument, NULL, OPT_REFUSE},
                {"what-if", required_argument, NULL, OPT_WHAT_IF},
                {"help", no_argument, NULL, 'h'},
                {"version", no_argument, NULL, OPT_VERSION},
                {0},
        };
        const char *root = "/", *state_dir = NULL, *color = NULL, *facts_file = NULL, *output = NULL, *textfile = NULL;
        _cleanup_strv_free_ char **profile_path = NULL, **rules_path = NULL, **sets = NULL, **tuned_path = NULL;
        _cleanup_strv_free_ char **what_if = NULL;
        bool json = false, quiet = false, dry_run = false, boot = false, live_root = false, refuse = false;
        unsigned used = 0, interval = 0;
        int settle = -1;  /* --settle, -1: not given */
        int format = -1;  /* --format, -1: not given */

        opterr = 0;
        int opt;
        /* --json (-j, --format=json) first, alone: a usage error found before it (`--set bad
         * --json plan`) then still gets the error object. getopt_long
         * with the same table reads abbreviations and option arguments as
         * the real pass does; optind = 0 starts that pass afresh. */
        {
                /* on a copy: getopt permutes what it scans, and a missing
                 * argument here would pull the command into its place */
                _cleanup_free_ char **scan = xcalloc((size_t)argc + 1, sizeof(char *));
                memcpy(scan, argv, (size_t)argc * sizeof(char *));
                while ((opt = getopt_long(argc, scan, ":hjq", options, NULL)) != -1)
                        if (opt == 'j' || (opt == OPT_FORMAT && optarg && streq(optarg, "json")))
                                ht_report_json_errors(true);
        }
        optind = 0;
        /* Options may come before or after the command (getopt permutes), so
         * both `hosttune --json plan oracle` and `hosttune plan oracle --json`
         * work. */
        /* ":" first: a missing argument is ':', not an unknown option */
        while ((opt = getopt_long(argc, argv, ":hjq", options, NULL)) != -1) {
                switch (opt) {
                case OPT_ROOT: root = optarg; break;
                case OPT_STATE_DIR: state_dir = optarg; break;
                case OPT_LIVE_ROOT: live_root = true; break;
                case OPT_PROFILE_PATH: strv_push(&profile_path, optarg); break;
                case OPT_RULES_PATH: strv_push(&rules_path, optarg); break;
                case OPT_TUNED_PATH: strv_push(&tuned_path, optarg); break;
                case OPT_OUTPUT: output = optarg; used |= TAKES_OUTPUT; break;
                /* (their error object was switched on by the pass above) */
                case 'j': json = true; break;
                case OPT_FORMAT:
                        if (streq(optarg, "text"))
                                format = HT_FORMAT_TEXT;
                        else if (streq(optarg, "json"))
                                format = HT_FORMAT_JSON;
                        else if (streq(optarg, "openmetrics")) {
                                format = HT_FORMAT_OPENMETRICS;
                                used |= TAKES_METRICS;
                        } else
                                return usage_error("--format wants text, json or openmetrics, got '%s'", optarg);
                        break;
                case OPT_TEXTFILE: textfile = optarg; used |= TAKES_METRICS; break;
                case 'q': quiet = true; break;
                case OPT_COLOR: color = optarg; break;
                case OPT_SET:
                        if (!strchr(optarg, '=') || optarg[0] == '=')
                                return usage_error("--set wants NAME=VALUE, got '%s'", optarg);
                        strv_push(&sets, optarg);
                        used |= TAKES_SET;
                        break;
                case OPT_DRY_RUN: dry_run = true; used |= TAKES_DRY_RUN; break;
                case OPT_WHAT_IF: strv_push(&what_if, optarg); used |= TAKES_WHAT_IF; break;
                case OPT_BOOT: boot = true; used |= TAKES_BOOT; break;
                case OPT_REFUSE: refuse = true; used |= TAKES_REFUSE; break;
                case OPT_FACTS: facts_file = optarg; break;
                case OPT_INTERVAL: {
                        uint64_t v;
                        if (parse_u64(optarg, &v) < 0 || v == 0 || v > 3600)
                                return usage_error("--interval wants whole seconds from 1 to 3600, got '%s'", optarg);
                        interval = (unsigned)v;
                        used |= TAKES_INTERVAL;
                        break;
                }
                case OPT_SETTLE: {
                        uint64_t v;
                        if (parse_u64(optarg, &v) < 0 || v > 240)
                                return usage_error("--settle wants whole seconds from 0 to 240, got '%s'", optarg);
                        settle = (int)v;
                        used |= TAKES_SETTLE;
                        break;
                }
                case 'h': usage(stdout); return HT_EXIT_OK;
                case OPT_VERSION: printf("hosttune %s\n", PACKAGE_VERSION); return HT_EXIT_OK;
                case ':':
                        return usage_error("option '%s' needs an argument", argv[optind - 1]);
                default:
                        return usage_error("unknown option '%s'", argv[optind - 1]);
                }
        }
        if (optind >= argc) {
                usage(stderr);
                return HT_EXIT_ERROR;
        }
        const command *cmd = find_command(argv[optind]);
        if (!cmd)
                return usage_error("unknown command '%s'", argv[optind]);
        unsigned nargs = (unsigned)(argc - optind - 1);
        if (nargs < cmd->min_args)
                return usage_error("'%s' needs %s", cmd->name, cmd->min_args == 1 ? "an argument" : "more arguments");
        if (nargs > cmd->max_args)
                return usage_error("'%s' takes %s", cmd->name,
                                   cmd->max_args == 0 ? "no arguments" :
                                   cmd->max_args == 1 ? "at most one argument" : "at most two arguments");
        if (used & ~cmd->takes)
                return usage_error("'%s' does not take %s", cmd->name,
                                   (used & ~cmd->takes & TAKES_SET) ? "--set" :
                                   (used & ~cmd->takes & TAKES_DRY_RUN) ? "--dry-run" :
                                   (used & ~cmd->takes & TAKES_BOOT) ? "--boot" :
                                   (used & ~cmd->takes & TAKES_OUTPUT) ? "--output" :
                                   (used & ~cmd->takes & TAKES_METRICS) ? (textfile ? "--textfile" : "--format=openmetrics") :
                                   (used & ~cmd->takes & TAKES_SETTLE) ? "--settle" :
                                   (used & ~cmd->takes & TAKES_WHAT_IF) ? "--what-if" :
                                   "--interval");
        if (json && format >= 0 && format != HT_FORMAT_JSON)
                return usage_error("--json and --format=%s contradict each other",
                                   format == HT_FORMAT_TEXT ? "text" : "openmetrics");
        if (json)
                format = HT_FORMAT_JSON;
        if (format < 0)
                format = HT_FORMAT_TEXT;

        ht_commands_init();
        _cleanup_(ht_context_freep) ht_context *ctx = NULL;
        int r = ht_context_new(root, &ctx);
        if (r < 0) {
                ht_report_error("cannot open root directory '%s': %s", root, ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        ctx->json = format == HT_FORMAT_JSON;
        ctx->quiet = quiet;
        if (color) {
                if (streq(color, "auto"))
                        ctx->color = HT_COLOR_AUTO;
                else if (streq(color, "always"))
                        ctx->color = HT_COLOR_ALWAYS;
                else if (streq(color, "never"))
                        ctx->color = HT_COLOR_NEVER;
                else
                        return usage_error("--color wants auto, always or never, got '%s'", color);
        }
        if (facts_file) {
                /* Check the file now, so a bad one is one clear error
                 * whatever the command. */
                _cleanup_(ht_facts_freep) ht_facts *probe = ht_facts_new();
                _cleanup_free_ char *err = NULL;
                if (ht_facts_load_kernel(probe, facts_file, &err) < 0) {
                        ht_report_error("--facts: %s", err);
                        return HT_EXIT_ERROR;
                }
                ctx->facts_file = xstrdup(facts_file);
        }
        ctx->live_root_forced = live_root;
        if (state_dir)
                ht_context_set_state_dir(ctx, state_dir);
        if (!ht_context_root_live(ctx))
                /* An image's /run is not a running system's: a lock left
                 * there would ship in the image. Its state directory holds
                 * hosttune's own files anyway. */
                ht_context_lock_in_state_dir(ctx);
        /* Directories given on the command line come first; the defaults
         * (/etc/hosttune under the root, then the shipped ones) stay
         * behind them so parents such as "base" are always found. */
        _cleanup_strv_free_ char **dflt_profiles = NULL, **dflt_rules = NULL;
        ht_profile_default_path(ctx, &dflt_profiles);
        ht_rules_default_path(ctx, &dflt_rules);
        for (size_t i = 0; dflt_profiles && dflt_profiles[i]; i++)
                strv_push(&profile_path, dflt_profiles[i]);
        for (size_t i = 0; dflt_rules && dflt_rules[i]; i++)
                strv_push(&rules_path, dflt_rules[i]);
        ctx->rules_path_given = strv_length(rules_path) - strv_length(dflt_rules);
        ctx->profile_path = TAKE_PTR(profile_path);
        ctx->rules_path = TAKE_PTR(rules_path);
        ctx->tuned_path = TAKE_PTR(tuned_path);

        ht_cmd_opts o = {
                .ctx = ctx,
                .args = argv + optind + 1,
                .sets = sets,
                .dry_run = dry_run,
                .boot = boot,
                .settle = settle,
                .facts_file = facts_file,
                .interval = interval,
                .output = output,
                .format = (ht_format)format,
                .textfile = textfile,
                .refuse = refuse,
                .what_if = what_if,
        };
        /* apply and rollback recover under the lock they hold throughout;
         * gate, run before a database starts, only reads the last commit */
        if (cmd->run != ht_cmd_rollback && !(cmd->run == ht_cmd_apply && !dry_run) && cmd->run != ht_cmd_gate)
                ht_recover_pending(ctx, cmd->run == ht_cmd_verify || cmd->run == ht_cmd_status);
        return cmd->run(&o);
}

/* Run with 0, 1 or 2 closed (`>&-`), the first file opened (the root's
 * O_PATH fd, a lock, a journal file) would become stdout and take the
 * report: each closed one is held by /dev/null, read-only, so that a
 * write to it still fails (EBADF) and is reported below, as it would
 * have been. One poll finds them all (POLLNVAL: not open), as musl's
 * start-up does, not three fcntl calls a run. /dev/null is the
 * process's own, not a host path. */
static void hold_standard_fds(void) {
        struct pollfd p[3] = {{.fd = 0}, {.fd = 1}, {.fd = 2}};
        if (poll(p, 3, 0) <= 0)
                return;
        for (int fd = 0; fd < 3; fd++)
                if (p[fd].revents & POLLNVAL) {
                        int n = open("/dev/null", O_RDONLY);
                        if (n >= 0 && n != fd)
                                close(n); /* not the lowest free fd: leave it */
                }
}

/* A report that did not reach its reader (stdout on a full disk, closed,
 * or a pipe whose reader left with SIGPIPE ignored) is a failure, said
 * once: a plan whose diff was cut must not exit 0 or 2 as if it had been
 * read. The flush is the write exit() would make anyway; no close. */
static int check_stdout(int code) {
        /* the errno of a write that failed earlier is gone: only the
         * flush's can be named */
        bool failed = ferror(stdout);
        int e = 0;
        if (fflush(stdout) != 0)
                e = errno, failed = true;
        if (!failed)
                return code;
        fprintf(stderr, "hosttune: standard output: %s: the output is incomplete\n", e ? strerror(e) : "write error");
        /* 2 and 3 are results the reader did not get */
        return code == HT_EXIT_OK || code == HT_EXIT_PENDING || code == HT_EXIT_REBOOT ? HT_EXIT_ERROR : code;
}

int main(int argc, char **argv) {
        hold_standard_fds();
        /* under --json, a failure without its document prints the error object */
        return check_stdout(ht_report_json_error(run(argc, argv)));
}
