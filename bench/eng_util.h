/* Small pieces the reference engines share: intrusive lists, a bitmap that
 * finds the next busy slot with count-trailing-zeros (as W. Ahern's
 * timeout.c does), so a wheel skips runs of empty slots in a few word reads,
 * the fields and allocation every engine has, and the timer record and
 * expiry loop of the unsorted wheels. Header-only; every function is static
 * inline. */
#ifndef TW_BENCH_ENG_UTIL_H
#define TW_BENCH_ENG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define ENG_CONTAINER(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

/* ------------------------------------------------------------------ hlist
 * A list head is one pointer (half the memory of a sentinel for big wheels);
 * each node keeps the address of the pointer that points to it, so unlink is
 * O(1) without knowing the head. Insertion is at any link position. */
typedef struct hnode {
    struct hnode *next, **pprev;
} hnode;

static inline void hl_insert(hnode **at, hnode *n)
{
    n->next = *at;
    if (*at)
        (*at)->pprev = &n->next;
    *at = n;
    n->pprev = at;
}

static inline void hl_unlink(hnode *n)
{
    *n->pprev = n->next;
    if (n->next)
        n->next->pprev = n->pprev;
    n->next = NULL;
    n->pprev = NULL;
}

/* ------------------------------------------------------------------ dlist
 * Circular, doubly linked, with a sentinel: FIFO order and O(1) at both ends. */
typedef struct dlist {
    struct dlist *next, *prev;
} dlist;

static inline void dl_init(dlist *l) { l->next = l->prev = l; }
static inline int dl_empty(const dlist *l) { return l->next == l; }

static inline void dl_insert_after(dlist *at, dlist *n)
{
    n->prev = at;
    n->next = at->next;
    at->next->prev = n;
    at->next = n;
}

static inline void dl_unlink(dlist *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->next = n->prev = n;
}

/* ----------------------------------------------------------------- bitmap
 * Three levels of 64-bit words: bit i of level k+1 says word i of level k is
 * non-zero. Finding the next set bit at or after any position costs at most
 * three ctz and a short scan of the top level (1 word up to 2^18 bits). */
#define BM_NONE SIZE_MAX

typedef struct bitmap3 {
    uint64_t *l0, *l1, *l2;
    size_t n0, n1, n2; /* words per level */
} bitmap3;

static inline int bm_init(bitmap3 *b, size_t nbits)
{
    b->n0 = (nbits + 63) / 64;
    b->n1 = (b->n0 + 63) / 64;
    b->n2 = (b->n1 + 63) / 64;
    b->l0 = calloc(b->n0 + b->n1 + b->n2, sizeof(uint64_t));
    b->l1 = b->l0 ? b->l0 + b->n0 : NULL;
    b->l2 = b->l0 ? b->l1 + b->n1 : NULL;
    return b->l0 ? 0 : -1;
}

static inline void bm_free(bitmap3 *b) { free(b->l0); }
static inline size_t bm_bytes(const bitmap3 *b) { return (b->n0 + b->n1 + b->n2) * sizeof(uint64_t); }

static inline void bm_set(bitmap3 *b, size_t i)
{
    uint64_t *w0 = &b->l0[i >> 6];
    if (*w0 == 0) {
        uint64_t *w1 = &b->l1[i >> 12];
        if (*w1 == 0)
            b->l2[i >> 18] |= UINT64_C(1) << ((i >> 12) & 63);
        *w1 |= UINT64_C(1) << ((i >> 6) & 63);
    }
    *w0 |= UINT64_C(1) << (i & 63);
}

static inline void bm_clear(bitmap3 *b, size_t i)
{
    uint64_t *w0 = &b->l0[i >> 6];
    *w0 &= ~(UINT64_C(1) << (i & 63));
    if (*w0 == 0) {
        uint64_t *w1 = &b->l1[i >> 12];
        *w1 &= ~(UINT64_C(1) << ((i >> 6) & 63));
        if (*w1 == 0)
            b->l2[i >> 18] &= ~(UINT64_C(1) << ((i >> 12) & 63));
    }
}

static inline int bm_test(const bitmap3 *b, size_t i)
{
    return (int)((b->l0[i >> 6] >> (i & 63)) & 1u);
}

/* The first set bit at or after i, or BM_NONE. */
static inline size_t bm_next(const bitmap3 *b, size_t i)
{
    size_t w = i >> 6;
    uint64_t bits;
    if (w >= b->n0)
        return BM_NONE;
    bits = b->l0[w] & (~UINT64_C(0) << (i & 63));
    if (bits)
        return (w << 6) | (size_t)__builtin_ctzll(bits);
    size_t j = w + 1; /* the next non-zero word of level 0 */
    if (j >= b->n0)
        return BM_NONE;
    size_t w1 = j >> 6;
    bits = b->l1[w1] & (~UINT64_C(0) << (j & 63));
    if (!bits) {
        size_t k = w1 + 1; /* the next non-zero word of level 1 */
        if (k >= b->n1)
            return BM_NONE;
        size_t w2 = k >> 6;
        bits = b->l2[w2] & (~UINT64_C(0) << (k & 63));
        while (!bits) {
            if (++w2 >= b->n2)
                return BM_NONE;
            bits = b->l2[w2];
        }
        w1 = (w2 << 6) | (size_t)__builtin_ctzll(bits);
        bits = b->l1[w1];
    }
    w = (w1 << 6) | (size_t)__builtin_ctzll(bits);
    return (w << 6) | (size_t)__builtin_ctzll(b->l0[w]);
}

/* The first set bit at or after i, wrapping around the end, or BM_NONE. */
static inline size_t bm_next_cyclic(const bitmap3 *b, size_t i)
{
    size_t r = bm_next(b, i);
    return (r == BM_NONE && i > 0) ? bm_next(b, 0) : r;
}

static inline uint64_t eng_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The range rule of the references that have no slot boundaries to choose
 * by (all but Scheme 7): a pending timer whose deadline is already inside
 * [lo, hi] (absolute ticks) is kept, at no cost, as the driver and Scheme 7
 * keep it; otherwise the caller starts it at hi, the choice that keeps it
 * through the most later starts of a range that moves on with time (W1's
 * idle timer). */
static inline int eng_range_keeps(int pending, uint64_t deadline, uint64_t lo, uint64_t hi)
{
    return pending && deadline >= lo && deadline <= hi;
}

/* ------------------------------------------------------------- engine base
 * The fields every engine has, first in each struct engine, so the helpers
 * below serve them all. */
#include "engine.h"

typedef struct eng_base {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    uint32_t ntimers;
} eng_base;

#define ENG_BASE(e) ((eng_base *)(void *)(e))

/* Allocates a zeroed engine of `size` bytes (eng_base first) and an array
 * of max_timers (at least one) zeroed records of `rec` bytes; NULL if either
 * fails. */
static inline void *eng_alloc(size_t size, uint32_t max_timers, engine_cb cb, void *ctx,
                              size_t rec, void **records)
{
    eng_base *b = calloc(1, size);
    if (!b)
        return NULL;
    *records = calloc(max_timers ? max_timers : 1, rec);
    if (!*records) {
        free(b);
        return NULL;
    }
    b->cb = cb;
    b->ctx = ctx;
    b->ntimers = max_timers;
    return b;
}

static inline uint64_t eng_now(const engine *e) { return ((const eng_base *)(const void *)e)->now; }

/* ticks_until_next from the tick of the next expiry or visit (UINT64_MAX: none). */
static inline uint64_t eng_until(const engine *e, uint64_t next, uint64_t cap)
{
    return next == UINT64_MAX ? cap : eng_min_u64(next - eng_now(e), cap);
}

/* ----------------------------------------------------------- wheel timers
 * The timer record of the unsorted wheels (Schemes 4, 6, 7): a list node,
 * the absolute deadline, and where the timer is. */
#define W_IDLE UINT32_MAX
#define W_EXPIRED (UINT32_MAX - 1)

typedef struct htimer {
    hnode link;
    uint64_t deadline;
    uint32_t where; /* slot index, W_EXPIRED or W_IDLE (or an engine's own mark) */
} htimer;

static inline void ht_init_all(htimer *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        t[i].where = W_IDLE;
}

/* Runs the callbacks of the expired list; each may start or stop timers
 * (a 0-tick start joins the list and runs in this same loop). */
static inline void ht_run_expired(eng_base *b, hnode **expired, htimer *timers)
{
    while (*expired) {
        htimer *t = ENG_CONTAINER(*expired, htimer, link);
        hl_unlink(&t->link);
        t->where = W_IDLE;
        b->cb(b->ctx, (uint32_t)(t - timers), b->now);
    }
}

/* Slot-count bits of a hashed wheel: max_timers rounded up to a power of
 * two, within [min_bits, max_bits]. */
static inline unsigned eng_wheel_bits(uint32_t max_timers, unsigned min_bits, unsigned max_bits)
{
    unsigned bits = min_bits;
    while (bits < max_bits && ((size_t)1 << bits) < max_timers)
        bits++;
    return bits;
}

/* Writes a byte of every page, so that the kernel maps them now: calloc's
 * big blocks are mapped on first touch, and a wheel whose slots a
 * benchmark first touches inside its timed loop would be timed on page
 * faults (W2 at small N), not on its own work. */
static inline void eng_prefault(void *p, size_t bytes)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < bytes; i += 4096)
        b[i] = 0;
    if (bytes)
        b[bytes - 1] = 0; /* the last page, when the block does not start on one */
}

/* A wheel's slot heads (nslots zeroed heads of `size` bytes) and their busy
 * bitmap, every page mapped; NULL (and nothing held) if either allocation
 * fails. */
static inline void *eng_slots_alloc(bitmap3 *busy, size_t nslots, size_t size)
{
    void *slots = calloc(nslots, size);
    if (slots && bm_init(busy, nslots) == 0) {
        eng_prefault(slots, nslots * size);
        eng_prefault(busy->l0, bm_bytes(busy));
        return slots;
    }
    free(slots);
    busy->l0 = NULL;
    return NULL;
}

/* Frees what eng_alloc and eng_slots_alloc gave a wheel engine. */
static inline void eng_wheel_free(void *e, void *slots, bitmap3 *busy, void *timers)
{
    free(slots);
    bm_free(busy);
    free(timers);
    free(e);
}

/* The next tick after now whose slot (tick & mask) is busy, or UINT64_MAX. */
static inline uint64_t eng_next_busy_tick(const bitmap3 *busy, uint64_t now, size_t mask)
{
    size_t from = (size_t)(now + 1) & mask;
    size_t s = bm_next_cyclic(busy, from);
    if (s == BM_NONE)
        return UINT64_MAX;
    return now + 1 + ((s - from) & mask);
}

#endif
