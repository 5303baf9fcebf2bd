/* Scheme 4 of Varghese & Lauck: the basic timing wheel, one slot per tick of
 * MaxInterval, plus the overflow list of the logic-simulation wheel (their
 * Fig. 4) so that every interval works.
 *
 * A timer due within MaxInterval of now goes to slot d mod MaxInterval, and
 * every timer in a slot is due at the same tick, so a visit fires the whole
 * list. Longer timers wait, unsorted, on the overflow list; at each
 * revolution boundary r (a multiple of MaxInterval) the list is scanned and
 * whatever is due before r + MaxInterval moves into the wheel. A lower bound
 * on the overflow's earliest deadline skips the scans that would move
 * nothing.
 *
 * Invariant: every timer in the wheel is due in [now, now + MaxInterval), so
 * a slot never mixes deadlines. A bitmap of non-empty slots lets advance()
 * jump over empty slots with count-trailing-zeros.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define S4_BITS 16 /* MaxInterval = 2^16 ticks */
#define S4_SLOTS ((size_t)1 << S4_BITS)
#define S4_MASK (S4_SLOTS - 1)
#define W_OVERFLOW (UINT32_MAX - 2)

struct engine {
    eng_base b;
    hnode **slots;
    bitmap3 busy;
    hnode *overflow;
    uint64_t overflow_min; /* <= every overflow deadline; UINT64_MAX when empty */
    hnode *expired;
    htimer *timers;
};

static void s4_destroy(engine *e)
{
    if (e)
        eng_wheel_free(e, e->slots, &e->busy, e->timers);
}

static engine *s4_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    void *timers;
    engine *e = eng_alloc(sizeof *e, max_timers, cb, ctx, sizeof *e->timers, &timers);
    if (!e)
        return NULL;
    e->timers = timers;
    e->overflow_min = UINT64_MAX;
    e->slots = eng_slots_alloc(&e->busy, S4_SLOTS, sizeof *e->slots);
    if (!e->slots) {
        s4_destroy(e);
        return NULL;
    }
    ht_init_all(e->timers, max_timers);
    return e;
}

/* Puts an unlinked timer where its deadline belongs, seen from now. */
static void place(engine *e, htimer *t)
{
    if (t->deadline == e->b.now) {
        hl_insert(&e->expired, &t->link);
        t->where = W_EXPIRED;
    } else if (t->deadline - e->b.now < S4_SLOTS) {
        size_t s = (size_t)t->deadline & S4_MASK;
        if (!e->slots[s])
            bm_set(&e->busy, s);
        hl_insert(&e->slots[s], &t->link);
        t->where = (uint32_t)s;
    } else {
        hl_insert(&e->overflow, &t->link);
        t->where = W_OVERFLOW;
        if (t->deadline < e->overflow_min)
            e->overflow_min = t->deadline;
    }
}

static void detach(engine *e, htimer *t)
{
    hl_unlink(&t->link);
    if (t->where < W_OVERFLOW && !e->slots[t->where])
        bm_clear(&e->busy, t->where);
    if (t->where == W_OVERFLOW && !e->overflow)
        e->overflow_min = UINT64_MAX;
    t->where = W_IDLE;
}

static void s4_start(engine *e, uint32_t timer, uint64_t ticks)
{
    htimer *t = &e->timers[timer];
    if (t->where != W_IDLE)
        detach(e, t);
    t->deadline = e->b.now + ticks;
    place(e, t);
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s4_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const htimer *t = &e->timers[timer];
    if (eng_range_keeps(t->where != W_IDLE, t->deadline, e->b.now + lo, e->b.now + hi))
        return t->deadline;
    s4_start(e, timer, hi);
    return e->b.now + hi;
}

static int s4_stop(engine *e, uint32_t timer)
{
    htimer *t = &e->timers[timer];
    if (t->where == W_IDLE)
        return 0;
    detach(e, t);
    return 1;
}

/* The first revolution boundary after now whose scan can move a timer: the
 * first multiple r of MaxInterval with r > now and r + MaxInterval >
 * overflow_min. UINT64_MAX if the overflow list is empty. */
static uint64_t next_scan(const engine *e)
{
    if (!e->overflow)
        return UINT64_MAX;
    uint64_t first = (e->b.now | S4_MASK) + 1;
    uint64_t need = e->overflow_min >= S4_SLOTS ? ((e->overflow_min - S4_SLOTS) | S4_MASK) + 1 : 0;
    return first > need ? first : need;
}

/* At boundary now: move everything due before now + MaxInterval into the wheel. */
static void scan_overflow(engine *e)
{
    uint64_t min = UINT64_MAX;
    hnode **at = &e->overflow;
    while (*at) {
        htimer *t = ENG_CONTAINER(*at, htimer, link);
        if (t->deadline - e->b.now >= S4_SLOTS) {
            if (t->deadline < min)
                min = t->deadline;
            at = &t->link.next;
            continue;
        }
        hl_unlink(&t->link);
        place(e, t);
    }
    e->overflow_min = min;
}

static void s4_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->b.now + ticks;
    ht_run_expired(&e->b, &e->expired, e->timers);
    for (;;) {
        uint64_t visit = eng_next_busy_tick(&e->busy, e->b.now, S4_MASK), scan = next_scan(e);
        uint64_t t = visit < scan ? visit : scan;
        if (t > target)
            break;
        e->b.now = t;
        if (t == scan)
            scan_overflow(e);
        size_t s = (size_t)t & S4_MASK;
        if (e->slots[s]) { /* every timer here is due now */
            while (e->slots[s]) {
                htimer *x = ENG_CONTAINER(e->slots[s], htimer, link);
                hl_unlink(&x->link);
                hl_insert(&e->expired, &x->link);
                x->where = W_EXPIRED;
            }
            bm_clear(&e->busy, s);
        }
        ht_run_expired(&e->b, &e->expired, e->timers);
    }
    e->b.now = target;
}

static uint64_t s4_ticks_until_next(engine *e, uint64_t cap)
{
    if (e->expired)
        return 0;
    uint64_t visit = eng_next_busy_tick(&e->busy, e->b.now, S4_MASK), scan = next_scan(e);
    return eng_until(e, visit < scan ? visit : scan, cap);
}

static size_t s4_memory(const engine *e)
{
    return sizeof *e + S4_SLOTS * sizeof *e->slots + bm_bytes(&e->busy) +
           (size_t)e->b.ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme4_ops = {
    .name = "scheme4",
    .create = s4_create,
    .destroy = s4_destroy,
    .start = s4_start,
    .start_range = s4_start_range,
    .stop = s4_stop,
    .advance = s4_advance,
    .ticks_until_next = s4_ticks_until_next,
    .now = eng_now,
    .memory = s4_memory,
};
