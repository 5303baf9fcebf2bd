/* Scheme 2 of Varghese & Lauck: one list of timers ordered by deadline.
 *
 * Start is an insertion sort, O(n); stop is an unlink, O(1); the per-tick
 * bookkeeping looks only at the head, so advance() jumps straight from one
 * expiry to the next. Deadlines are absolute (64-bit), so nothing in the
 * list changes as time passes. The insertion scans from whichever end of
 * the list is nearer the new deadline.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

typedef struct tnode {
    dlist link;
    uint64_t deadline;
    int pending;
} tnode;

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    dlist list; /* ascending deadlines; equal deadlines in start order */
    tnode *timers;
    uint32_t ntimers;
};

static void s2_destroy(engine *e)
{
    if (!e)
        return;
    free(e->timers);
    free(e);
}

static engine *s2_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    dl_init(&e->list);
    e->timers = calloc(max_timers ? max_timers : 1, sizeof *e->timers);
    e->ntimers = max_timers;
    if (!e->timers) {
        s2_destroy(e);
        return NULL;
    }
    return e;
}

static uint64_t deadline_of(const dlist *l) { return ENG_CONTAINER(l, tnode, link)->deadline; }

static void s2_start(engine *e, uint32_t timer, uint64_t ticks)
{
    tnode *t = &e->timers[timer];
    if (t->pending)
        dl_unlink(&t->link);
    t->deadline = e->now + ticks;
    t->pending = 1;
    /* Scan from the end nearer in deadline: a short timer among long ones
     * (W1's pace among idles) then costs a few steps, not the whole list,
     * and one before the head or past the tail (W4's re-arms) none. */
    dlist *at;
    uint64_t d = t->deadline;
    if (!dl_empty(&e->list) &&
        (d < deadline_of(e->list.next) ||
         (d <= deadline_of(e->list.prev) && d - deadline_of(e->list.next) < deadline_of(e->list.prev) - d))) {
        at = e->list.next; /* after every timer due no later: FIFO among equals */
        while (at != &e->list && deadline_of(at) <= t->deadline)
            at = at->next;
        at = at->prev;
    } else {
        at = e->list.prev;
        while (at != &e->list && deadline_of(at) > t->deadline)
            at = at->prev;
    }
    dl_insert_after(at, &t->link);
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s2_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const tnode *t = &e->timers[timer];
    if (eng_range_keeps(t->pending, t->deadline, e->now + lo, e->now + hi))
        return t->deadline;
    s2_start(e, timer, hi);
    return e->now + hi;
}

static int s2_stop(engine *e, uint32_t timer)
{
    tnode *t = &e->timers[timer];
    if (!t->pending)
        return 0;
    dl_unlink(&t->link);
    t->pending = 0;
    return 1;
}

static void s2_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    /* One at a time from the head: a callback's new timer joins the order. */
    while (!dl_empty(&e->list) && deadline_of(e->list.next) <= target) {
        tnode *t = ENG_CONTAINER(e->list.next, tnode, link);
        dl_unlink(&t->link);
        t->pending = 0;
        e->now = t->deadline;
        e->cb(e->ctx, (uint32_t)(t - e->timers), e->now);
    }
    e->now = target;
}

static uint64_t s2_ticks_until_next(engine *e, uint64_t cap)
{
    if (dl_empty(&e->list))
        return cap;
    return eng_min_u64(deadline_of(e->list.next) - e->now, cap);
}

static uint64_t s2_now(const engine *e) { return e->now; }

static size_t s2_memory(const engine *e)
{
    return sizeof *e + (size_t)e->ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme2_ops = {
    .name = "scheme2",
    .create = s2_create,
    .destroy = s2_destroy,
    .start = s2_start,
    .start_range = s2_start_range,
    .stop = s2_stop,
    .advance = s2_advance,
    .ticks_until_next = s2_ticks_until_next,
    .now = s2_now,
    .memory = s2_memory,
};
