/* The bump allocator (arena.h). */
#include "config.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ONE_PER_CHUNK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ONE_PER_CHUNK 1
#endif
#endif
#ifndef ARENA_ONE_PER_CHUNK
#define ARENA_ONE_PER_CHUNK 0
#endif

#define ALIGN alignof(max_align_t)
/* The first chunk: under 1 KiB with its header and malloc's, a request
 * glibc serves from its small bins without consolidating its fast bins
 * (malloc_consolidate is what a larger one costs after many frees). */
#define FIRST_CHUNK (1008 - sizeof(ht_arena_chunk))
#define MAX_CHUNK (64 * 1024 - 64)

struct ht_arena_chunk {
        ht_arena_chunk *next;
        size_t used, size;
        alignas(max_align_t) unsigned char data[];
};

static size_t round_up(size_t n) {
        return (n + ALIGN - 1) & ~(ALIGN - 1);
}

/* A chunk with room for at least need bytes, put in front. */
static ht_arena_chunk *chunk_new(ht_arena *a, size_t need) {
        size_t size = ARENA_ONE_PER_CHUNK ? need : (a->next_size ? a->next_size : FIRST_CHUNK);
        if (size < need)
                size = need;
        if (!ARENA_ONE_PER_CHUNK && a->next_size < MAX_CHUNK)
                a->next_size = (a->next_size ? a->next_size : FIRST_CHUNK) * 2;
        ht_arena_chunk *c = xmalloc(sizeof(*c) + size);
        *c = (ht_arena_chunk){.next = a->chunks, .size = size};
        a->chunks = c;
        return c;
}

/* Room for n bytes, not zeroed. */
static void *bump(ht_arena *a, size_t n) {
        ht_arena_chunk *c = a->chunks;
        size_t at = c ? round_up(c->used) : 0;
        if (!c || ARENA_ONE_PER_CHUNK || at > c->size || c->size - at < n) {
                c = chunk_new(a, n);
                at = 0;
        }
        c->used = at + n;
        return c->data + at;
}

void *ht_arena_alloc(ht_arena *a, size_t size) {
        void *p = bump(a, size ? size : 1);
        memset(p, 0, size);
        return p;
}

void *ht_arena_calloc(ht_arena *a, size_t n, size_t size) {
        if (size && n > SIZE_MAX / size)
                abort();
        return ht_arena_alloc(a, n * size);
}

/* a copy of n bytes at s, NUL-terminated */
static char *copy(ht_arena *a, const char *s, size_t n) {
        char *d = bump(a, n + 1);
        memcpy(d, s, n);
        d[n] = 0;
        return d;
}

char *ht_arena_strndup(ht_arena *a, const char *s, size_t n) {
        return s ? copy(a, s, strnlen(s, n)) : NULL;
}

char *ht_arena_strdup(ht_arena *a, const char *s) {
        return s ? copy(a, s, strlen(s)) : NULL;
}

char *ht_arena_vprintf(ht_arena *a, const char *fmt, va_list ap) {
        /* formatted straight into the free end of the newest chunk when it
         * fits (xvasprintf's fast path, ht_format_join); else on the stack
         * (by the join or vsnprintf) and copied; else measured there and
         * formatted again */
        ht_arena_chunk *c = a->chunks;
        size_t at = c ? round_up(c->used) : 0;
        if (c && !ARENA_ONE_PER_CHUNK && at < c->size) {
                char *d = (char *)c->data + at;
                ssize_t n = ht_format_join(d, c->size - at, fmt, ap);
                if (n >= 0) {
                        d[n] = 0;
                        c->used = at + (size_t)n + 1;
                        return d;
                }
        }
        char stack[512];
        ssize_t n = ht_format_join(stack, sizeof(stack), fmt, ap);
        if (n >= 0)
                return copy(a, stack, (size_t)n);
        va_list aq;
        va_copy(aq, ap);
        int len = vsnprintf(stack, sizeof(stack), fmt, aq);
        va_end(aq);
        if (len < 0)
                abort();
        if ((size_t)len < sizeof(stack))
                return copy(a, stack, (size_t)len);
        char *d = bump(a, (size_t)len + 1);
        vsnprintf(d, (size_t)len + 1, fmt, ap);
        return d;
}

char *ht_arena_printf(ht_arena *a, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *d = ht_arena_vprintf(a, fmt, ap);
        va_end(ap);
        return d;
}

void ht_arena_adopt(ht_arena *dst, ht_arena *src) {
        if (!src->chunks)
                return;
        /* src's chunks after dst's newest, which stays the one to fill */
        ht_arena_chunk *last = src->chunks;
        while (last->next)
                last = last->next;
        if (dst->chunks) {
                last->next = dst->chunks->next;
                dst->chunks->next = src->chunks;
        } else {
                dst->chunks = src->chunks;
                dst->next_size = src->next_size;
        }
        *src = (ht_arena){0};
}

void ht_arena_done(ht_arena *a) {
        if (!a)
                return;
        for (ht_arena_chunk *c = a->chunks, *next; c; c = next) {
                next = c->next;
                free(c);
        }
        *a = (ht_arena){0};
}
