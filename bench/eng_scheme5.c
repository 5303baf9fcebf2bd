/* Scheme 5 of Varghese & Lauck: a hashed timing wheel with sorted lists.
 *
 * A timer due at tick d lives in slot d mod M, in a list kept sorted by
 * deadline, so a visit of a slot only looks at its head: per-tick work is
 * O(1) plus the expiries, and start costs an insertion sort into one slot's
 * list (O(1) on average when timers spread over the slots, O(n) at worst:
 * the scheme leans on the hash spreading them). The insertion scans from the
 * tail, where a new timer usually belongs (timers started together with one
 * interval share a slot and arrive in order).
 *
 * M is a power of two: max_timers rounded up, at least 2^16 and at most 2^20
 * slots. A bitmap of non-empty slots lets advance() jump over empty slots
 * with count-trailing-zeros instead of stepping one tick at a time.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define S5_MIN_BITS 16
#define S5_MAX_BITS 20

typedef struct tnode {
    dlist link;
    uint64_t deadline;
    uint32_t where; /* slot, W_EXPIRED or W_IDLE */
} tnode;

struct engine {
    eng_base b;
    size_t mask;
    dlist *slots; /* sentinels: ascending deadlines, FIFO among equals */
    bitmap3 busy;
    dlist expired; /* due now, callbacks not yet run */
    tnode *timers;
};

static void s5_destroy(engine *e)
{
    if (e)
        eng_wheel_free(e, e->slots, &e->busy, e->timers);
}

static engine *s5_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    void *timers;
    engine *e = eng_alloc(sizeof *e, max_timers, cb, ctx, sizeof *e->timers, &timers);
    if (!e)
        return NULL;
    e->timers = timers;
    e->mask = ((size_t)1 << eng_wheel_bits(max_timers, S5_MIN_BITS, S5_MAX_BITS)) - 1;
    e->slots = eng_slots_alloc(&e->busy, e->mask + 1, sizeof *e->slots);
    if (!e->slots) {
        s5_destroy(e);
        return NULL;
    }
    for (size_t s = 0; s <= e->mask; s++)
        dl_init(&e->slots[s]);
    dl_init(&e->expired);
    for (uint32_t i = 0; i < max_timers; i++)
        e->timers[i].where = W_IDLE;
    return e;
}

static void detach(engine *e, tnode *t)
{
    dl_unlink(&t->link);
    if (t->where != W_EXPIRED && dl_empty(&e->slots[t->where]))
        bm_clear(&e->busy, t->where);
    t->where = W_IDLE;
}

static void s5_start(engine *e, uint32_t timer, uint64_t ticks)
{
    tnode *t = &e->timers[timer];
    if (t->where != W_IDLE)
        detach(e, t);
    t->deadline = e->b.now + ticks;
    if (ticks == 0) {
        dl_insert_after(e->expired.prev, &t->link);
        t->where = W_EXPIRED;
        return;
    }
    size_t s = (size_t)t->deadline & e->mask;
    dlist *head = &e->slots[s], *at = head->prev;
    if (dl_empty(head))
        bm_set(&e->busy, s);
    /* After every timer due no later: FIFO among equal deadlines. */
    while (at != head && ENG_CONTAINER(at, tnode, link)->deadline > t->deadline)
        at = at->prev;
    dl_insert_after(at, &t->link);
    t->where = (uint32_t)s;
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s5_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const tnode *t = &e->timers[timer];
    if (eng_range_keeps(t->where != W_IDLE, t->deadline, e->b.now + lo, e->b.now + hi))
        return t->deadline;
    s5_start(e, timer, hi);
    return e->b.now + hi;
}

static int s5_stop(engine *e, uint32_t timer)
{
    tnode *t = &e->timers[timer];
    if (t->where == W_IDLE)
        return 0;
    detach(e, t);
    return 1;
}

static void run_expired(engine *e)
{
    while (!dl_empty(&e->expired)) {
        tnode *t = ENG_CONTAINER(e->expired.next, tnode, link);
        dl_unlink(&t->link);
        t->where = W_IDLE;
        e->b.cb(e->b.ctx, (uint32_t)(t - e->timers), e->b.now);
    }
}

static void s5_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->b.now + ticks;
    run_expired(e);
    for (;;) {
        uint64_t t = eng_next_busy_tick(&e->busy, e->b.now, e->mask);
        if (t > target)
            break;
        e->b.now = t;
        size_t s = (size_t)t & e->mask;
        /* Sorted: the due timers are at the head; the rest wait for later
         * revolutions. */
        dlist *head = &e->slots[s];
        while (!dl_empty(head)) {
            tnode *x = ENG_CONTAINER(head->next, tnode, link);
            if (x->deadline != t)
                break;
            dl_unlink(&x->link);
            dl_insert_after(e->expired.prev, &x->link);
            x->where = W_EXPIRED;
        }
        if (dl_empty(head))
            bm_clear(&e->busy, s);
        run_expired(e);
    }
    e->b.now = target;
}

static uint64_t s5_ticks_until_next(engine *e, uint64_t cap)
{
    if (!dl_empty(&e->expired))
        return 0;
    return eng_until(e, eng_next_busy_tick(&e->busy, e->b.now, e->mask), cap);
}

static size_t s5_memory(const engine *e)
{
    return sizeof *e + (e->mask + 1) * sizeof *e->slots + bm_bytes(&e->busy) +
           (size_t)e->b.ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme5_ops = {
    .name = "scheme5",
    .create = s5_create,
    .destroy = s5_destroy,
    .start = s5_start,
    .start_range = s5_start_range,
    .stop = s5_stop,
    .advance = s5_advance,
    .ticks_until_next = s5_ticks_until_next,
    .now = eng_now,
    .memory = s5_memory,
};
