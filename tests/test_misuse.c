/* Seeded random misuse: timers initialised again while queued (left idle,
 * started again elsewhere or into the same list, from the top or from
 * callbacks, several times over), mixed with starts, range starts, stops
 * and advances with small budgets, in exact and coarse mode and with slot
 * visits spread over calls. What docs/driver.md promises then, checked:
 * - a timer fires only on its own deadline, and only if started since it
 *   was last stopped, fired or initialised;
 * - every start, range start and stop succeeds;
 * - a timer started from idle after the last misuse (nothing can have made
 *   it unreachable since) fires once its deadline has passed;
 * - the wheel never wedges: an advance that reports damage succeeds again
 *   within a few calls;
 * - at the end, with every timer stopped and the whole wheel visited, no
 *   timer is counted and none fires.
 * Replay a failure with the seed it prints. */
#include <stdlib.h>
#include <string.h>

#include "tw_test.h"

enum { NTIMERS = 10, ROUNDS = 150, ROUND_OPS = 800 };

typedef struct misuse {
    tw_fixture *f;
    tw_rng rng;
    tw_timer timers[NTIMERS];
    int pending[NTIMERS]; /* started, not stopped, fired or initialised since */
    int fresh[NTIMERS];   /* and started from idle after the last misuse */
    int closing;          /* the final sweep: callbacks do nothing more */
} misuse;

static misuse *the;

static uint64_t interval(misuse *m)
{
    switch (tw_rng_below(&m->rng, 8)) {
    case 0: return 0;
    case 1: return tw_rng_below(&m->rng, 4);
    case 7: return tw_rng_below(&m->rng, 3000);
    default: return 1 + tw_rng_below(&m->rng, 40);
    }
}

static void start(misuse *m, size_t i)
{
    int was_idle = !m->pending[i] && tw_pending(&m->timers[i]) == 0;
    uint64_t a = interval(m);
    int rc = tw_rng_below(&m->rng, 4) == 0
                 ? tw_start_range(&m->f->wheel, &m->timers[i], a, a + tw_rng_below(&m->rng, 30))
                 : tw_start(&m->f->wheel, &m->timers[i], a);
    if (rc < 0) {
        tw_test_fail(__FILE__, __LINE__, "start of timer %zu: %s", i, tw_strerror(rc));
        return;
    }
    m->pending[i] = 1;
    m->fresh[i] |= was_idle;
}

static void stop(misuse *m, size_t i)
{
    int rc = tw_stop(&m->f->wheel, &m->timers[i]);
    if (rc < 0)
        tw_test_fail(__FILE__, __LINE__, "stop of timer %zu: %s", i, tw_strerror(rc));
    m->pending[i] = m->fresh[i] = 0;
}

/* tw_timer_init on a timer that may be queued: what came before may now be
 * unreachable, so no timer is fresh any more. */
static void initialise(misuse *m, size_t i)
{
    if (m->timers[i].where != 0)
        memset(m->fresh, 0, sizeof m->fresh);
    tw_timer_init(&m->timers[i], m->timers[i].callback, m->timers[i].arg);
    m->pending[i] = m->fresh[i] = 0;
}

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    misuse *m = the;
    size_t i = (size_t)(uintptr_t)arg;
    if (now != t->deadline)
        tw_test_fail(__FILE__, __LINE__, "timer %zu fired at %llu, its deadline %llu", i,
                     (unsigned long long)now, (unsigned long long)t->deadline);
    if (!m->pending[i])
        tw_test_fail(__FILE__, __LINE__, "timer %zu fired at %llu, stopped or initialised since its start", i,
                     (unsigned long long)now);
    m->pending[i] = m->fresh[i] = 0;
    if (m->closing)
        return;
    for (uint64_t k = tw_rng_below(&m->rng, 3); k > 0; k--) {
        uint64_t op = tw_rng_below(&m->rng, 8);
        size_t j = op == 0 ? i : tw_rng_below(&m->rng, NTIMERS);
        if (op < 3)
            start(m, j);
        else if (op < 5)
            stop(m, j);
        else if (op < 7)
            initialise(m, j);
    }
}

static void advance(misuse *m, uint64_t ticks, unsigned budget)
{
    tw_wheel *w = &m->f->wheel;
    int rc = tw_advance(w, ticks, budget);
    for (int calls = 0; rc == TW_ECORRUPT && calls < 50; calls++)
        rc = tw_advance(w, 0, budget);
    if (rc < 0) {
        tw_test_fail(__FILE__, __LINE__, "advance: %s (wedged?)", tw_strerror(rc));
        return;
    }
    if (tw_work_pending(w))
        return;
    uint64_t now = 0;
    (void)tw_now(w, &now);
    for (size_t i = 0; i < NTIMERS; i++)
        if (m->fresh[i] && m->pending[i] && m->timers[i].deadline < now)
            tw_test_fail(__FILE__, __LINE__, "timer %zu, started from idle after the last misuse, due at %llu, "
                         "not fired at %llu", i, (unsigned long long)m->timers[i].deadline,
                         (unsigned long long)now);
}

static void one_round(misuse *m)
{
    for (long op = 0; op < ROUND_OPS && !tw_test_failed; op++) {
        size_t i = tw_rng_below(&m->rng, NTIMERS);
        switch (tw_rng_below(&m->rng, 14)) {
        case 0: case 1: case 2: case 3: start(m, i); break;
        case 4: case 5: stop(m, i); break;
        case 6: if (tw_rng_below(&m->rng, 2)) initialise(m, i); break;
        case 7: case 8: advance(m, tw_rng_below(&m->rng, 20), 1 + (unsigned)tw_rng_below(&m->rng, 3)); break;
        case 9: advance(m, 0, 1); break;
        case 10: advance(m, tw_rng_below(&m->rng, 200), 100); break;
        case 11: {
            int rc = tw_pending(&m->timers[i]);
            if (rc != 0 && rc != 1 && rc != TW_ECORRUPT)
                tw_test_fail(__FILE__, __LINE__, "tw_pending: %d", rc);
            break;
        }
        default: initialise(m, i); break;
        }
    }
    if (tw_test_failed)
        return;
    for (size_t i = 0; i < NTIMERS; i++)
        stop(m, i);
    m->closing = 1;
    const tw_geometry *g = &m->f->wheel.geo;
    uint64_t span = UINT64_C(1) << (g->levels * g->slot_bits);
    advance(m, 2 * span + 10, 1000);
    advance(m, 2 * span + 10, 1000);
    if (tw_count_pending(&m->f->wheel) != 0)
        tw_test_fail(__FILE__, __LINE__, "%zu timers counted after every timer was stopped and the wheel visited",
                     tw_count_pending(&m->f->wheel));
}

int tw_misuse_run(const tw_backend *b, uint64_t seed)
{
    misuse *m = calloc(1, sizeof *m);
    if (!m)
        return 0;
    tw_test_failed = 0;
    tw_test_why[0] = 0;
    printf("# misuse/%s: seed=%llu rounds=%d ops=%d\n", b->name, (unsigned long long)seed, ROUNDS, ROUND_OPS);
    the = m;
    int round = 0;
    for (; round < ROUNDS && !tw_test_failed; round++) {
        tw_fixture f;
        memset(m, 0, sizeof *m);
        m->rng.s = seed + (uint64_t)round;
        tw_config cfg = {.source = TW_TIME_VIRTUAL};
        if (tw_rng_below(&m->rng, 3) == 0)
            cfg.coarse_shift = 1 + (unsigned)tw_rng_below(&m->rng, 3);
        if (tw_rng_below(&m->rng, 2))
            cfg.visit_batch = 1 + (unsigned)tw_rng_below(&m->rng, 3);
        if (tw_fixture_open_cfg(&f, b, &cfg) < 0) {
            tw_test_fail(__FILE__, __LINE__, "cannot open backend");
            break;
        }
        m->f = &f;
        for (size_t i = 0; i < NTIMERS; i++)
            tw_timer_init(&m->timers[i], on_expiry, (void *)(uintptr_t)i);
        one_round(m);
        tw_fixture_close(&f);
    }
    free(m);
    if (tw_test_failed)
        printf("FAIL misuse/%s: seed=%llu (round %d): %s\n", b->name, (unsigned long long)seed, round - 1,
               tw_test_why);
    else
        printf("ok misuse/%s\n", b->name);
    fflush(stdout);
    return !tw_test_failed;
}
