/* Scheme 1 of Varghese & Lauck: the straightforward scheme. Every pending
 * timer keeps its remaining ticks, and the per-tick bookkeeping decrements
 * every one of them, firing those that reach zero: start and stop are O(1),
 * each tick costs O(n).
 *
 * Virtual time lets one pass stand for a run of ticks in which nothing
 * expires: a pass subtracts the whole run (up to the smallest remaining
 * count, which the same pass finds for the next one), so advance() costs
 * O(n) per tick that has an expiry rather than per tick. The pending timers
 * sit in a dense array so the pass is a straight sweep.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

enum { IDLE, ACTIVE, DUE };

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    uint64_t min_left;  /* <= every active timer's count; UINT64_MAX if none */
    uint64_t *left;     /* per timer: ticks remaining */
    uint32_t *pos;      /* per timer: index in active[] */
    uint8_t *state;     /* per timer */
    uint32_t *active;   /* pending timers not yet due */
    uint32_t *due;      /* reached zero in the last pass, callbacks pending */
    uint32_t nactive, ndue, ntimers;
};

static void s1_destroy(engine *e)
{
    if (!e)
        return;
    free(e->left);
    free(e->pos);
    free(e->state);
    free(e->active);
    free(e->due);
    free(e);
}

static engine *s1_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    size_t n = max_timers ? max_timers : 1;
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    e->min_left = UINT64_MAX;
    e->ntimers = max_timers;
    e->left = calloc(n, sizeof *e->left);
    e->pos = calloc(n, sizeof *e->pos);
    e->state = calloc(n, sizeof *e->state);
    e->active = calloc(n, sizeof *e->active);
    e->due = calloc(n, sizeof *e->due);
    if (!e->left || !e->pos || !e->state || !e->active || !e->due) {
        s1_destroy(e);
        return NULL;
    }
    return e;
}

static void remove_active(engine *e, uint32_t timer)
{
    uint32_t i = e->pos[timer], last = e->active[--e->nactive];
    e->active[i] = last;
    e->pos[last] = i;
}

static void s1_start(engine *e, uint32_t timer, uint64_t ticks)
{
    if (e->state[timer] == ACTIVE)
        remove_active(e, timer);
    /* A DUE timer leaves a stale entry in due[]; its state says so. */
    e->left[timer] = ticks;
    e->pos[timer] = e->nactive;
    e->active[e->nactive++] = timer;
    e->state[timer] = ACTIVE;
    if (ticks < e->min_left)
        e->min_left = ticks;
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s1_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    /* An active timer's deadline is now + its count; a due one's is now. */
    uint64_t d = e->now + (e->state[timer] == ACTIVE ? e->left[timer] : 0);
    if (eng_range_keeps(e->state[timer] != IDLE, d, e->now + lo, e->now + hi))
        return d;
    s1_start(e, timer, hi);
    return e->now + hi;
}

static int s1_stop(engine *e, uint32_t timer)
{
    switch (e->state[timer]) {
    case ACTIVE:
        remove_active(e, timer);
        break;
    case DUE:
        break;
    default:
        return 0;
    }
    e->state[timer] = IDLE;
    return 1;
}

/* One bookkeeping pass for `delta` ticks: decrement every timer, move those
 * that reach zero to due[], and find the smallest count left. */
static void pass(engine *e, uint64_t delta)
{
    uint64_t min = UINT64_MAX;
    for (uint32_t i = 0; i < e->nactive;) {
        uint32_t t = e->active[i];
        uint64_t left = e->left[t] - delta;
        e->left[t] = left;
        if (left == 0) {
            remove_active(e, t); /* active[i] is now an unvisited timer */
            e->state[t] = DUE;
            e->due[e->ndue++] = t;
            continue;
        }
        if (left < min)
            min = left;
        i++;
    }
    e->min_left = min;
}

static void s1_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    for (;;) {
        if (e->min_left > target - e->now) {
            /* Nothing expires before the target: one pass for the whole run. */
            uint64_t delta = target - e->now;
            if (delta) {
                for (uint32_t i = 0; i < e->nactive; i++)
                    e->left[e->active[i]] -= delta;
                if (e->min_left != UINT64_MAX)
                    e->min_left -= delta;
            }
            e->now = target;
            return;
        }
        e->now += e->min_left;
        pass(e, e->min_left);
        /* Callbacks only add to active[], so due[] is stable while it runs. */
        for (uint32_t j = 0; j < e->ndue; j++) {
            uint32_t t = e->due[j];
            if (e->state[t] != DUE)
                continue; /* stopped or re-armed by an earlier callback */
            e->state[t] = IDLE;
            e->cb(e->ctx, t, e->now);
        }
        e->ndue = 0;
    }
}

static uint64_t s1_ticks_until_next(engine *e, uint64_t cap)
{
    return eng_min_u64(e->min_left, cap);
}

static uint64_t s1_now(const engine *e) { return e->now; }

static size_t s1_memory(const engine *e)
{
    return sizeof *e + (size_t)e->ntimers * (sizeof *e->left + sizeof *e->pos + sizeof *e->state +
                                             sizeof *e->active + sizeof *e->due);
}

const engine_ops eng_scheme1_ops = {
    .name = "scheme1",
    .create = s1_create,
    .destroy = s1_destroy,
    .start = s1_start,
    .start_range = s1_start_range,
    .stop = s1_stop,
    .advance = s1_advance,
    .ticks_until_next = s1_ticks_until_next,
    .now = s1_now,
    .memory = s1_memory,
};
