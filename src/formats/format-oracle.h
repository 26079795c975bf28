/* Oracle Database parameter files: the text pfile (init<SID>.ora) and the
 * binary server parameter file (spfile<SID>.ora), as pure parsers (bytes
 * in, parameters out) for the workload facts and their unit and fuzz
 * tests. No host access here: an IFILE= include is a parameter named
 * "ifile" (one a path, in file order) for the caller to read through the
 * root context where it stands. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The spfile's block: "Database file: spfileORCL.ora ... N 512 byte
 * blocks" (dbfsize); every block of the sample below is 512 bytes. */
#define HT_ORA_SPFILE_BLOCK 512u
/* A parameter file bigger than this is not one (Oracle's own are a few
 * KB; 4 MB leaves room for comments). */
#define HT_ORA_MAX_FILE (4u << 20)
/* IFILE nesting Oracle allows: "You can nest initialization parameter
 * files up to three levels deep" (Oracle Database Reference, IFILE). */
#define HT_ORA_MAX_IFILE_DEPTH 3

typedef struct {
        char *sid;      /* "*" for "*.name" and a bare "name" */
        char *name;     /* lower case: "sga_max_size" */
        char *value;    /* the value as written, quotes removed, lists as "a,b" */
        unsigned line;  /* 1-based line in the text (the spfile: its text) */
} ht_ora_param;

typedef struct {
        ht_ora_param *params;
        size_t n_params;
        char **warnings;    /* "WHERE:LINE: ..." for lines that could not be parsed */
} ht_ora_pfile;

/* Parse pfile text (or the text of an spfile). where names it in
 * warnings. Lines that cannot be parsed are warned about and skipped;
 * never fails. */
void ht_ora_parse_text(const char *buf, size_t len, const char *where, ht_ora_pfile *ret);
void ht_ora_pfile_done(ht_ora_pfile *p);

/* The parameter text of an spfile: the text areas of blocks 1.. joined
 * (a parameter may span a block boundary) up to the first NUL. -EINVAL
 * with *ret_error when the bytes are not laid out as spfile blocks. */
int ht_ora_spfile_text(const char *buf, size_t len, char **ret_text, size_t *ret_len, char **ret_error);

/* Whether the file looks like an spfile (the first block's header) rather
 * than text, so an spfile named init.ora or the reverse is still read. */
bool ht_ora_is_spfile(const char *buf, size_t len);

/* The value the instance SID gets for name: "SID.name" wins over
 * "*.name" whatever the order; the last of each kind counts. NULL when
 * not set. Borrowed from p. */
const char *ht_ora_lookup(const ht_ora_pfile *p, const char *sid, const char *name);

/* An Oracle size ("18G", "512M", "1024K", "19327352832"): 0 or -EINVAL. */
int ht_ora_parse_size(const char *s, uint64_t *ret);
