/* Small helpers shared by every room: ownership macros, strings, string
 * lists, number and unit parsing. Nothing here touches the host. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The version of every top-level --json document's layout, printed as its
 * "schema_version" (schemas/COMMAND.schema.json describe it). Within a major
 * version fields are only added (MINOR goes up); a field removed or
 * renamed, or a type changed, makes a new MAJOR (hosttune(8), JSON OUTPUT). */
#define HT_JSON_SCHEMA_VERSION "1.0"

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Hand ownership out of a cleanup-scoped variable. */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b) {
        return a && b ? strcmp(a, b) == 0 : a == b;
}
static inline bool isempty(const char *s) { return !s || !*s; }

/* Abort on allocation failure: a tuning agent out of memory cannot do
 * anything sensible, and checking every strdup hides the real logic. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
char *xvasprintf(const char *fmt, va_list ap) _printf_(1, 0);
/* fmt formatted into buf (size bytes; not NUL-terminated) by the fast
 * path xvasprintf takes for the conversions joins use (%s, %d, %u, %zu,
 * ...); ap is copied, not consumed. The length, or -1: it does not fit,
 * or fmt has another conversion (then use vsnprintf). */
ssize_t ht_format_join(char *buf, size_t size, const char *fmt, va_list ap);
/* Set *ret_error (when ret_error is not NULL) to the message. */
void ht_set_error(char **ret_error, const char *fmt, ...) _printf_(2, 3);
/* ht_set_error, then r: the library's one way to fail with a message,
 * `return ht_error(ret_error, -EINVAL, "%s:%u: ...", ...)`. A macro so the
 * compiler sees what it returns (what the caller's r < 0 then means for
 * its outputs); r is read before the message is made (-errno). */
#define ht_error(ret_error, r, ...) ({ int _r = (r); ht_set_error((ret_error), __VA_ARGS__); _r; })

/* strerror(err) in hosttune's terms (EXDEV: a symlink out of the root). */
const char *ht_strerror(int err);
/* All of fd (at most max bytes, else -EFBIG), NUL-terminated. */
int ht_read_fd(int fd, size_t max, char **ret, size_t *ret_len);
/* The same, for a regular file whose size the caller knows (fstat): fewer
 * reads; once that many bytes are in, a short read is the end (POSIX: a
 * regular file reads short only at its end). */
int ht_read_fd_hint(int fd, size_t max, size_t size_hint, char **ret, size_t *ret_len);
/* When a read(2) shorter than asked is the end of the file, so that no
 * read of 0 bytes is needed to see it. */
typedef enum {
        HT_EOF_READ0,      /* only a read of 0: procfs's seq_files return a
                            * page's worth of records at a time */
        HT_EOF_SHORT,      /* any short read: a regular file (POSIX), a
                            * /proc/sys value (one handler call fills the
                            * buffer: proc_sys_call_handler) */
        HT_EOF_SHORT_PAGE, /* a short read that asked for at most a page:
                            * a sysfs attribute (one show of at most
                            * PAGE_SIZE; kernfs reads a binary one a page
                            * at a time) */
} ht_eof_rule;
int ht_read_fd_eof(int fd, size_t max, size_t size_hint, ht_eof_rule rule, char **ret, size_t *ret_len);
/* The list as a JSON array of strings (empty for NULL). */
struct json_object;
struct json_object *ht_strv_to_json(char *const *l);
/* A parser's complaint about LINE: with lenient, a warning pushed to
 * *warnings (0); else *ret_error set to "LINE: MSG" (-EINVAL). */
int ht_line_problem(char ***warnings, bool lenient, unsigned line, const char *msg, char **ret_error);
bool startswith(const char *s, const char *prefix);
bool endswith(const char *s, const char *suffix);
/* Strip leading and trailing whitespace in place; returns s moved forward. */
char *strstrip(char *s);
/* Collapse runs of whitespace to one space and strip the ends (kernel
 * values like kernel.sem are printed with tabs). Returns a new string. */
char *normalize_ws(const char *s);
/* normalize_ws into out (room for strlen(s) + 1 bytes: it never grows);
 * the length written. For callers that keep the result on their stack. */
size_t ht_normalize_ws_into(const char *s, char *out);
/* streq(normalize_ws(a), normalize_ws(b)) without making either: the
 * comparison of kernel values ("4096\t87380" against "4096 87380"),
 * one pass over both and no allocation. */
bool ht_ws_equal(const char *a, const char *b);
/* Every character of s is a letter, a digit or one of extra. */
bool ht_word_chars(const char *s, const char *extra);
/* True when s holds a byte < 0x20 (other than tab) or 0x7f. */
bool has_control_chars(const char *s);
/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when
 * it is not one: overlong forms, surrogates, past U+10FFFF, cut short. */
size_t ht_utf8_len(const unsigned char *p);
bool ht_valid_utf8(const char *s);
/* Make text from the host safe to print on a terminal, in place (it never
 * grows): control characters (C0 but tab, and newline when multiline;
 * DEL; C1) and bytes that are not UTF-8 become '?', so a value from a
 * file or process another user controls cannot move the cursor, clear the
 * screen or forge a line. JSON needs none of this: json-c escapes the
 * control characters and ht_print_json replaces what is not UTF-8. */
void ht_text_sanitize(char *s, bool multiline);
/* A sanitized copy of s (one line; NULL gives ""). */
char *ht_text_safe(const char *s);
/* s written to out as ht_text_sanitize would leave it (NULL writes
 * nothing), without a copy for text that is printable ASCII (nearly all
 * of it: the scan stops at the first other byte, and only the rest is
 * copied and sanitized). The printer's way to show host text. */
void ht_text_write_safe(FILE *out, const char *s, bool multiline);

/* A NULL-terminated list of owned strings. */
typedef char **strv_t;
size_t strv_length(char *const *l);
void strv_free(char **l);
static inline void strv_freep(char ***l) { strv_free(*l); }
#define _cleanup_strv_free_ _cleanup_(strv_freep)
/* Append a copy of s; *l may be NULL. */
void strv_push(char ***l, const char *s);
void strv_push_take(char ***l, char *s);
/* strv_push for long lists: *n counts it and *cap is its room, doubled
 * when full, where strv_push counts the list at every push. */
void strv_push_counted(char ***l, size_t *n, size_t *cap, const char *s);
void strv_pushf(char ***l, const char *fmt, ...) _printf_(2, 3);
bool strv_contains(char *const *l, const char *s);
/* Split on any byte of sep, dropping empty words. */
char **strv_split(const char *s, const char *sep);
char *strv_join(char *const *l, const char *sep);
int strv_sort_cmp(const void *a, const void *b);
/* Sort keys[0..n) by strcmp, stably, moving the elements of each parallel
 * array along (lists kept side by side: names and their paths): arrays
 * is NULL-terminated, sizes the size of each array's elements (at most
 * 64 bytes). An insertion sort: these lists are a few dozen names. */
void strv_sort_parallel(char **keys, size_t n, void *const *arrays, const size_t *sizes);

/* Parse a whole decimal integer (no octal: "0755" is 755); -EINVAL on junk, -ERANGE on
 * overflow. */
int parse_u64(const char *s, uint64_t *ret);
/* "2026-12-01T15:33:22Z" (the journal's UTC times) as seconds since the
 * epoch, or -1 when s is NULL or not that form. */
int64_t ht_parse_iso_time(const char *s);
int parse_i64(const char *s, int64_t *ret);
/* "18G", "512M", "4096", "2 kB": a size in bytes with binary suffixes
 * K/M/G/T (and their kB/KiB forms). -ERANGE on overflow. */
int parse_size_bytes(const char *s, uint64_t *ret);
/* Whether s is a true value: "1", "yes" or "true", any case. Everything
 * else (NULL, "", "0", "no", "false", junk) is false, so a switch that
 * turns a safety feature off needs an unmistakable yes. */
bool ht_is_true(const char *s);
/* ht_is_true(getenv(name)): the one reading of hosttune's boolean
 * environment variables (HOSTTUNE_NO_AUDIT, HOSTTUNE_INSECURE_PROFILES,
 * HOSTTUNE_NO_BUILTIN_PROFILES). */
bool ht_env_true(const char *name);

/* Compare versions as rpm does: runs of digits as numbers, runs of
 * letters as bytes, anything else separates; a number ranks above
 * letters and the longer version wins a tie ("5.10.112-11.al8" >
 * "5.10.112-11"). <0, 0, >0. */
int ht_version_compare(const char *a, const char *b);

/* Levenshtein distance, for "did you mean" suggestions. */
size_t edit_distance(const char *a, const char *b);
/* The candidate closest to word (or NULL when nothing is close enough). */
const char *closest_word(const char *word, char *const *candidates);

/* A growing byte buffer for building file contents and reports. */
typedef struct {
        char *data;
        size_t len, cap;
} strbuf;
/* libconfig 1.5 exports a strbuf_append of its own, and an executable's
 * symbol of the same name would take over libconfig's calls to it: ours
 * is named ht_strbuf_append in the object files. */
#define strbuf_append(b, s) ht_strbuf_append(b, s)
void strbuf_append(strbuf *b, const char *s);
/* Room for EXTRA more bytes and the NUL, so appends do not realloc. */
void strbuf_grow(strbuf *b, size_t extra);
void strbuf_appendn(strbuf *b, const char *s, size_t n);
void strbuf_appendf(strbuf *b, const char *fmt, ...) _printf_(2, 3);
/* Hand the NUL-terminated contents to the caller and reset the buffer. */
char *strbuf_steal(strbuf *b);
void strbuf_done(strbuf *b);

/* Append word as a POSIX shell reads it back as one word: bare when it
 * holds only characters no shell treats specially, else in single
 * quotes (a quote inside as '\''); a word with control characters
 * (a newline, a terminal escape) as $'...' with \xHH escapes, so a
 * command printed for pasting is one line and runs nothing else.
 * Every command line hosttune prints for a person to run goes through
 * here: its words may come from files or processes others control. */
void ht_shell_word_append(strbuf *b, const char *word);
/* argv as one command line of ht_shell_word_append words. */
char *ht_shell_join(char *const *argv);
