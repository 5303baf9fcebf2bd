/* Scheme 7 of Varghese & Lauck: hierarchical timing wheels with cascades,
 * in the manner of Ratas (external time, range scheduling) and W. Ahern's
 * timeout.c (64-slot wheels, a bitmap word per level, count-trailing-zeros).
 *
 * Level k has 64 slots of 2^(6k) ticks; 11 levels cover all of 64-bit time,
 * so there is no overflow list. A timer due at d, placed at time now, goes
 * to the level of the most significant 6-bit field in which d and now
 * differ, at that level's slot for d. That slot is next visited at d rounded
 * down to the level's slot width, which is when the timer fires (d itself)
 * or moves down a level (a cascade): at most one visit per level.
 *
 * Invariant: a non-empty slot s of level k has s > field k of now, and its
 * timers agree with now above field k. So the next visit of level k is the
 * first set bit above now's field, and a lower level's next visit always
 * comes before a higher level's: the lowest level with a candidate wins.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define S7_BITS 6
#define S7_SLOTS (1u << S7_BITS)
#define S7_LEVELS 11 /* ceil(64 / 6) */

struct engine {
    eng_base b;
    uint64_t busy[S7_LEVELS]; /* bit s of level k: slot (k, s) is non-empty */
    hnode *slots[S7_LEVELS * S7_SLOTS];
    hnode *expired;
    htimer *timers;
};

static unsigned field(uint64_t t, unsigned level)
{
    return (unsigned)(t >> (level * S7_BITS)) & (S7_SLOTS - 1);
}

/* The level deadline d goes to from time now < d. */
static unsigned level_of(uint64_t d, uint64_t now)
{
    return (63u - (unsigned)__builtin_clzll(d ^ now)) / S7_BITS;
}

static void s7_destroy(engine *e)
{
    if (!e)
        return;
    free(e->timers);
    free(e);
}

static engine *s7_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    void *timers;
    engine *e = eng_alloc(sizeof *e, max_timers, cb, ctx, sizeof *e->timers, &timers);
    if (!e)
        return NULL;
    e->timers = timers;
    ht_init_all(e->timers, max_timers);
    return e;
}

/* Puts an unlinked timer where its deadline belongs, seen from now. */
static void place(engine *e, htimer *t)
{
    if (t->deadline <= e->b.now) {
        hl_insert(&e->expired, &t->link);
        t->where = W_EXPIRED;
        return;
    }
    unsigned level = level_of(t->deadline, e->b.now);
    unsigned slot = field(t->deadline, level);
    unsigned idx = level * S7_SLOTS + slot;
    e->busy[level] |= UINT64_C(1) << slot;
    hl_insert(&e->slots[idx], &t->link);
    t->where = idx;
}

static void detach(engine *e, htimer *t)
{
    hl_unlink(&t->link);
    if (t->where != W_EXPIRED && !e->slots[t->where])
        e->busy[t->where / S7_SLOTS] &= ~(UINT64_C(1) << (t->where % S7_SLOTS));
    t->where = W_IDLE;
}

static void s7_start(engine *e, uint32_t timer, uint64_t ticks)
{
    htimer *t = &e->timers[timer];
    if (t->where != W_IDLE)
        detach(e, t);
    t->deadline = e->b.now + ticks;
    place(e, t);
}

/* Ratas's rule, as the tickwheel driver applies it: keep a pending timer
 * already inside [lo, hi]; otherwise round the end of the range down to ever
 * coarser slot widths and take the first result that sits on a slot boundary
 * of the level it goes to (it fires in place, no cascade); else the end of
 * the range. */
static uint64_t s7_start_range(engine *e, uint32_t timer, uint64_t lo_ticks, uint64_t hi_ticks)
{
    htimer *t = &e->timers[timer];
    uint64_t lo = e->b.now + lo_ticks, hi = e->b.now + hi_ticks;
    if (t->where != W_IDLE && t->deadline >= lo && t->deadline <= hi)
        return t->deadline;
    uint64_t d = hi;
    for (unsigned k = 0; k < S7_LEVELS; k++) {
        uint64_t c = hi & ~((UINT64_C(1) << (k * S7_BITS)) - 1);
        if (c < lo || c <= e->b.now)
            break;
        if ((c & ((UINT64_C(1) << (level_of(c, e->b.now) * S7_BITS)) - 1)) == 0) {
            d = c;
            break;
        }
    }
    s7_start(e, timer, d - e->b.now);
    return d;
}

static int s7_stop(engine *e, uint32_t timer)
{
    htimer *t = &e->timers[timer];
    if (t->where == W_IDLE)
        return 0;
    detach(e, t);
    return 1;
}

/* The next visit of a non-empty slot after now, or UINT64_MAX. */
static uint64_t next_visit(const engine *e)
{
    for (unsigned k = 0; k < S7_LEVELS; k++) {
        unsigned pos = field(e->b.now, k);
        uint64_t bits = e->busy[k] & (~UINT64_C(1) << pos); /* slots above pos */
        if (!bits)
            continue;
        unsigned shift = (k + 1) * S7_BITS;
        uint64_t base = shift >= 64 ? 0 : e->b.now & ~((UINT64_C(1) << shift) - 1);
        return base | ((uint64_t)__builtin_ctzll(bits) << (k * S7_BITS));
    }
    return UINT64_MAX;
}

static void s7_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->b.now + ticks;
    ht_run_expired(&e->b, &e->expired, e->timers);
    for (;;) {
        uint64_t t = next_visit(e);
        if (t > target)
            break;
        e->b.now = t;
        /* Every level whose pointer lands on a slot boundary at t: level 0
         * always, level k when the fields below it are all zero. Timers
         * cascade into slots above the (zero) fields of t, never into a slot
         * visited now. */
        for (unsigned k = 0; k < S7_LEVELS; k++) {
            if (k > 0 && (t & ((UINT64_C(1) << (k * S7_BITS)) - 1)) != 0)
                break;
            unsigned slot = field(t, k);
            if (!(e->busy[k] & (UINT64_C(1) << slot)))
                continue;
            hnode **head = &e->slots[k * S7_SLOTS + slot];
            e->busy[k] &= ~(UINT64_C(1) << slot);
            while (*head) {
                htimer *x = ENG_CONTAINER(*head, htimer, link);
                hl_unlink(&x->link);
                place(e, x);
            }
        }
        ht_run_expired(&e->b, &e->expired, e->timers);
    }
    e->b.now = target;
}

static uint64_t s7_ticks_until_next(engine *e, uint64_t cap)
{
    if (e->expired)
        return 0;
    return eng_until(e, next_visit(e), cap);
}

static size_t s7_memory(const engine *e)
{
    return sizeof *e + (size_t)e->b.ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme7_ops = {
    .name = "scheme7",
    .create = s7_create,
    .destroy = s7_destroy,
    .start = s7_start,
    .start_range = s7_start_range,
    .stop = s7_stop,
    .advance = s7_advance,
    .ticks_until_next = s7_ticks_until_next,
    .now = eng_now,
    .memory = s7_memory,
};
