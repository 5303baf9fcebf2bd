/* Scheme 6 of Varghese & Lauck: a hashed timing wheel with unsorted lists.
 *
 * A timer due at tick d lives in slot d mod M. Each visit of a slot fires the
 * timers due at that tick and leaves the ones due in later revolutions (the
 * paper decrements their high-order bits; comparing absolute 64-bit
 * deadlines is the same test and needs no write). Start and stop are O(1);
 * a timer of interval T is looked at about T/M times.
 *
 * M is a power of two: max_timers rounded up, at least 2^16 and at most 2^20
 * slots. A bitmap of non-empty slots lets advance() jump over empty slots
 * with count-trailing-zeros instead of stepping one tick at a time.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define S6_MIN_BITS 16
#define S6_MAX_BITS 20

struct engine {
    eng_base b;
    size_t mask;
    hnode **slots;
    bitmap3 busy;
    hnode *expired; /* due now, callbacks not yet run */
    htimer *timers;
};

static void s6_destroy(engine *e)
{
    if (e)
        eng_wheel_free(e, e->slots, &e->busy, e->timers);
}

static engine *s6_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    void *timers;
    engine *e = eng_alloc(sizeof *e, max_timers, cb, ctx, sizeof *e->timers, &timers);
    if (!e)
        return NULL;
    e->timers = timers;
    e->mask = ((size_t)1 << eng_wheel_bits(max_timers, S6_MIN_BITS, S6_MAX_BITS)) - 1;
    e->slots = eng_slots_alloc(&e->busy, e->mask + 1, sizeof *e->slots);
    if (!e->slots) {
        s6_destroy(e);
        return NULL;
    }
    ht_init_all(e->timers, max_timers);
    return e;
}

static void detach(engine *e, htimer *t)
{
    hl_unlink(&t->link);
    if (t->where != W_EXPIRED && !e->slots[t->where])
        bm_clear(&e->busy, t->where);
    t->where = W_IDLE;
}

static void s6_start(engine *e, uint32_t timer, uint64_t ticks)
{
    htimer *t = &e->timers[timer];
    if (t->where != W_IDLE)
        detach(e, t);
    t->deadline = e->b.now + ticks;
    if (ticks == 0) {
        hl_insert(&e->expired, &t->link);
        t->where = W_EXPIRED;
        return;
    }
    size_t s = (size_t)t->deadline & e->mask;
    if (!e->slots[s])
        bm_set(&e->busy, s);
    hl_insert(&e->slots[s], &t->link);
    t->where = (uint32_t)s;
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s6_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const htimer *t = &e->timers[timer];
    if (eng_range_keeps(t->where != W_IDLE, t->deadline, e->b.now + lo, e->b.now + hi))
        return t->deadline;
    s6_start(e, timer, hi);
    return e->b.now + hi;
}

static int s6_stop(engine *e, uint32_t timer)
{
    htimer *t = &e->timers[timer];
    if (t->where == W_IDLE)
        return 0;
    detach(e, t);
    return 1;
}

static void s6_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->b.now + ticks;
    ht_run_expired(&e->b, &e->expired, e->timers);
    for (;;) {
        uint64_t t = eng_next_busy_tick(&e->busy, e->b.now, e->mask);
        if (t > target)
            break;
        e->b.now = t;
        size_t s = (size_t)t & e->mask;
        hnode **at = &e->slots[s];
        while (*at) {
            htimer *x = ENG_CONTAINER(*at, htimer, link);
            if (x->deadline != t) {
                at = &x->link.next; /* a later revolution */
                continue;
            }
            hl_unlink(&x->link);
            hl_insert(&e->expired, &x->link);
            x->where = W_EXPIRED;
        }
        if (!e->slots[s])
            bm_clear(&e->busy, s);
        ht_run_expired(&e->b, &e->expired, e->timers);
    }
    e->b.now = target;
}

static uint64_t s6_ticks_until_next(engine *e, uint64_t cap)
{
    return e->expired ? 0 : eng_until(e, eng_next_busy_tick(&e->busy, e->b.now, e->mask), cap);
}

static size_t s6_memory(const engine *e)
{
    return sizeof *e + (e->mask + 1) * sizeof *e->slots + bm_bytes(&e->busy) +
           (size_t)e->b.ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme6_ops = {
    .name = "scheme6",
    .create = s6_create,
    .destroy = s6_destroy,
    .start = s6_start,
    .start_range = s6_start_range,
    .stop = s6_stop,
    .advance = s6_advance,
    .ticks_until_next = s6_ticks_until_next,
    .now = eng_now,
    .memory = s6_memory,
};
