/* A bump allocator for data that is built once and freed all at once: a
 * parsed /etc/passwd or /etc/group, a resolved profile's parameters, a
 * plan's items. Objects are carved from a few malloc'd chunks and freed
 * only with the arena (ht_arena_done): no object is freed on its own, so
 * a string that is replaced stays until then (fine for data that lives
 * one command). Whoever owns the arena owns everything in it; a struct
 * that holds one says so, and never frees a member that points into it.
 *
 * Built with AddressSanitizer, every object is a chunk of its own, so an
 * overflow past an object or a use after ht_arena_done is still caught;
 * valgrind sees the chunks malloc'd and freed at ht_arena_done (a use
 * after it is a use after free there too). */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#include "util.h"

typedef struct ht_arena_chunk ht_arena_chunk;

/* Zero-initialised ({0}) is an empty arena. */
typedef struct {
        ht_arena_chunk *chunks; /* the newest first: where the next object goes */
        size_t next_size;       /* the size of the next chunk to malloc */
} ht_arena;

/* size bytes, zeroed, aligned for any type; never NULL (aborts as xmalloc). */
void *ht_arena_alloc(ht_arena *a, size_t size);
/* n elements of size bytes each, zeroed: calloc in the arena. */
void *ht_arena_calloc(ht_arena *a, size_t n, size_t size);
/* Copies of s (NULL gives NULL), of its first n bytes, of a format. */
char *ht_arena_strdup(ht_arena *a, const char *s);
char *ht_arena_strndup(ht_arena *a, const char *s, size_t n);
char *ht_arena_printf(ht_arena *a, const char *fmt, ...) _printf_(2, 3);
char *ht_arena_vprintf(ht_arena *a, const char *fmt, va_list ap) _printf_(2, 0);
/* Moves every object of src into dst (src is empty after): what
 * outlives src goes with what dst owns. */
void ht_arena_adopt(ht_arena *dst, ht_arena *src);
/* Frees every object at once; the arena is empty again (NULL is fine). */
void ht_arena_done(ht_arena *a);
