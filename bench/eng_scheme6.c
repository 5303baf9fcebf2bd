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
#define W_IDLE UINT32_MAX
#define W_EXPIRED (UINT32_MAX - 1)

typedef struct tnode {
    hnode link;
    uint64_t deadline;
    uint32_t where; /* slot, W_EXPIRED or W_IDLE */
} tnode;

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    size_t mask;
    hnode **slots;
    bitmap3 busy;
    hnode *expired; /* due now, callbacks not yet run */
    tnode *timers;
    uint32_t ntimers;
};

static void s6_destroy(engine *e)
{
    if (!e)
        return;
    free(e->slots);
    bm_free(&e->busy);
    free(e->timers);
    free(e);
}

static engine *s6_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    unsigned bits = S6_MIN_BITS;
    if (!e)
        return NULL;
    while (bits < S6_MAX_BITS && ((size_t)1 << bits) < max_timers)
        bits++;
    e->cb = cb;
    e->ctx = ctx;
    e->mask = ((size_t)1 << bits) - 1;
    e->slots = calloc(e->mask + 1, sizeof *e->slots);
    e->timers = calloc(max_timers ? max_timers : 1, sizeof *e->timers);
    e->ntimers = max_timers;
    if (!e->slots || !e->timers || bm_init(&e->busy, e->mask + 1) < 0) {
        s6_destroy(e);
        return NULL;
    }
    for (uint32_t i = 0; i < max_timers; i++)
        e->timers[i].where = W_IDLE;
    return e;
}

static void detach(engine *e, tnode *t)
{
    hl_unlink(&t->link);
    if (t->where != W_EXPIRED && !e->slots[t->where])
        bm_clear(&e->busy, t->where);
    t->where = W_IDLE;
}

static void s6_start(engine *e, uint32_t timer, uint64_t ticks)
{
    tnode *t = &e->timers[timer];
    if (t->where != W_IDLE)
        detach(e, t);
    t->deadline = e->now + ticks;
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

static int s6_stop(engine *e, uint32_t timer)
{
    tnode *t = &e->timers[timer];
    if (t->where == W_IDLE)
        return 0;
    detach(e, t);
    return 1;
}

static void run_expired(engine *e)
{
    while (e->expired) {
        tnode *t = ENG_CONTAINER(e->expired, tnode, link);
        hl_unlink(&t->link);
        t->where = W_IDLE;
        e->cb(e->ctx, (uint32_t)(t - e->timers), e->now);
    }
}

/* The next tick after now whose slot is non-empty, or UINT64_MAX. */
static uint64_t next_visit(const engine *e)
{
    size_t from = (size_t)(e->now + 1) & e->mask;
    size_t s = bm_next_cyclic(&e->busy, from);
    if (s == BM_NONE)
        return UINT64_MAX;
    return e->now + 1 + ((s - from) & e->mask);
}

static void s6_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    run_expired(e);
    for (;;) {
        uint64_t t = next_visit(e);
        if (t > target)
            break;
        e->now = t;
        size_t s = (size_t)t & e->mask;
        hnode **at = &e->slots[s];
        while (*at) {
            tnode *x = ENG_CONTAINER(*at, tnode, link);
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
        run_expired(e);
    }
    e->now = target;
}

static uint64_t s6_ticks_until_next(engine *e, uint64_t cap)
{
    if (e->expired)
        return 0;
    uint64_t t = next_visit(e);
    return t == UINT64_MAX ? cap : eng_min_u64(t - e->now, cap);
}

static uint64_t s6_now(const engine *e) { return e->now; }

static size_t s6_memory(const engine *e)
{
    return sizeof *e + (e->mask + 1) * sizeof *e->slots + bm_bytes(&e->busy) +
           (size_t)e->ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme6_ops = {
    .name = "scheme6",
    .create = s6_create,
    .destroy = s6_destroy,
    .start = s6_start,
    .start_range = NULL,
    .stop = s6_stop,
    .advance = s6_advance,
    .ticks_until_next = s6_ticks_until_next,
    .now = s6_now,
    .memory = s6_memory,
};
