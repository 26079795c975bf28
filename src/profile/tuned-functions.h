/* tuned's ${f:NAME:ARG:...} functions (tuned 2.20,
 * tuned/profiles/functions/), evaluated from facts.
 *
 * Scanning as tuned's Functions.expand: left to right, "${" opens and
 * "}" closes, innermost call first; a call's text is split on every ':'
 * not preceded by a backslash and then "\:" becomes ':' in each
 * argument; "\${" is not expanded, and afterwards the first "\${f:"
 * of each line loses its backslash (tuned's re.sub(r'\\(\${f:.*})')
 * does only the first, greedily). A ${...} that is no call (no "f:"
 * after "${") stays as it is, and so does a call whose function gives
 * no value in tuned (kb2s or s2kb of a non-integer, a passing
 * assertion). A result is not scanned again. tuned's quirks are kept
 * (its scan skips the character after an empty result at the very
 * start), except that what tuned only logs as an error fails here:
 * unpaired braces and an invalid hexadecimal mask (-EINVAL); an unknown
 * function or a wrong number of arguments, whose call tuned leaves in
 * the value, is -ENOEXEC, so the caller can treat the value as one
 * tuned would not write (cpu-partitioning-powersave's assertion of a
 * max_power_state holding ':' has too many arguments).
 *
 * The functions (cpulists as tuned's cpulist_unpack reads them: "1-3",
 * "0x" masks whose ','-separated groups join until ",,", "^N"/"!N"
 * exclusions; junk gives the empty list, as in tuned):
 *   strip            the arguments joined, Python's str.strip()
 *   kb2s, s2kb       KiB to 512-byte sectors and back (s2kb rounds half
 *                    to even through a float, as tuned's round(n / 2))
 *   cpulist_unpack   "0-2,5" → "0,1,2,5";  cpulist_pack: → "0-2,5"
 *   cpulist_invert   the online CPUs (facts cpu.online) not in the list,
 *                    in tuned's order: a CPython set's (online "2,9",
 *                    invert "0" gives "9,2"; ascending for dense lists)
 *   cpulist2hex      the mask in comma-separated 32-bit groups
 *                    ("00000001,00000003"); cpulist2hex_invert: of the
 *                    inverted list; hex2cpulist: a mask to a list
 *   cpulist_online, cpulist_present  the listed CPUs that are online /
 *                    present (facts cpu.online / cpu.present)
 *   cpulist2devs     "cpu0,cpu1,..."
 *   virt_check       tuned runs virt-what and takes ARG1 when it prints
 *                    anything (VM or a container it knows), else ARG2.
 *                    Here: facts hypervisor set and not "none" (kvm,
 *                    xen incl. dom0, vmware, ..., "other" = virt-what's
 *                    "virt") → ARG1; container docker, podman, lxc*,
 *                    openvz → ARG1 (virt-what's container checks);
 *                    hypervisor "none" and no container → ARG2; any
 *                    other container on "none" (systemd-nspawn,
 *                    kubernetes, ...: virt-what's answer depends on the
 *                    cgroup paths) or no hypervisor fact → -ENOTSUP.
 *   cpuinfo_check    REGEX1:STR1:REGEX2:STR2:...[:FALLBACK] against
 *                    facts cpu.cpuinfo (the distinct lines of
 *                    /proc/cpuinfo: a pattern spanning lines can differ)
 *   regex_search_ternary  STR:REGEX:IFMATCH:ELSE
 *   assertion, assertion_non_equal  TEXT:A:B fails (-EINVAL) unless A is
 *                    (is not) B
 * Regexes are Python's, translated by ht_regex_from_python().
 * -ENOTSUP: exec (runs a program), check_net_queue_count without a
 * number (runs nproc: the daemon's CPU affinity), calc_isolated_cores
 * (each CPU's package from /sys/devices/system/cpu/cpu*\/topology), and
 * the functions above whose facts are missing, and a regex POSIX cannot
 * express. -EINVAL beyond tuned: CPU numbers above 8191 (Linux's largest
 * NR_CPUS), a value over 1 MiB, more than 64 nested "${". Numbers are
 * read as Python's int() reads them: whitespace, signs, underscores
 * ("1_024"), and other scripts' decimal digits. */
#pragma once
#include <json-c/json.h>
/* Expand every ${f:NAME:ARGS} in text as tuned's Functions.expand does
 * (same scanning, nesting, escaping and argument splitting on ':'),
 * evaluating against facts (the facts JSON, as ht_facts_to_json makes
 * it; may lack members: treat missing as unknown).
 * 0 and *ret (malloc'd) on success. -ENOTSUP with *ret_error naming the
 * function and why, for a function that cannot be evaluated from facts
 * without running anything (exec, and any that needs a program or live
 * state facts lack); -ENOEXEC with *ret_error for a call tuned logs
 * and leaves unexpanded (an unknown or invalid function name, a wrong
 * number of arguments: its value stays "${f:...}", which hosttune does
 * not carry); -EINVAL for the rest (an assertion that fails: tuned's
 * message; unpaired braces, a bad mask, the limits below).
 * No file:line in messages: the caller prefixes it. */
int ht_tuned_expand_functions(const char *text, json_object *facts, char **ret, char **ret_error);
