/* Seeded randomised comparison with an oracle: every expiry must happen at
 * exactly its deadline (virtual time), once, and never after a stop.
 * Replay a failure with the seed it prints. */
#include <stdlib.h>
#include <string.h>

#include "tw_test.h"

enum { NTIMERS = 512 };

typedef struct oracle {
    tw_fixture *f;
    tw_rng rng;
    tw_timer timers[NTIMERS];
    int pending[NTIMERS];
    uint64_t deadline[NTIMERS];
    uint64_t fired, started, stopped, zero_restarts;
    unsigned level_bits; /* levels * slot_bits */
    unsigned coarse_shift;
    long errors;
} oracle;

static oracle *the_oracle; /* callbacks reach it through their arg; this is for checks */

static uint64_t random_interval(oracle *o)
{
    unsigned b = o->f->wheel.geo.slot_bits;
    uint64_t r = tw_rng_below(&o->rng, 100);
    if (r < 5)
        return 0;
    if (r < 55)
        return 1 + tw_rng_below(&o->rng, 64);
    if (r < 85)
        return 1 + tw_rng_below(&o->rng, UINT64_C(4) << b);
    /* Past the top level where the geometry is small; long either way. */
    return 1 + tw_rng_below(&o->rng, UINT64_C(1) << (o->level_bits < 20 ? o->level_bits + 2 : 20));
}

static void oracle_start(oracle *o, size_t i, uint64_t ticks)
{
    uint64_t now = 0;
    tw_now(&o->f->wheel, &now);
    int rc = tw_start(&o->f->wheel, &o->timers[i], ticks);
    if (rc < 0) {
        tw_test_fail(__FILE__, __LINE__, "tw_start: %s", tw_strerror(rc));
        o->errors++;
        return;
    }
    /* Coarse mode may round up, within its stated slack; exact mode may not. */
    uint64_t promised = o->timers[i].deadline, wanted = now + ticks;
    uint64_t slack = o->coarse_shift ? ticks / ((UINT64_C(1) << o->coarse_shift) - 1) : 0;
    if (promised < wanted || promised - wanted > slack) {
        tw_test_fail(__FILE__, __LINE__, "timer %zu for %llu ticks at %llu: deadline %llu", i,
                     (unsigned long long)ticks, (unsigned long long)now, (unsigned long long)promised);
        o->errors++;
    }
    o->pending[i] = 1;
    o->deadline[i] = promised;
    o->started++;
}

/* A range start: the timer keeps its deadline if already inside the range,
 * otherwise gets one inside it; the expiry check then holds it to that tick. */
static void oracle_start_range(oracle *o, size_t i, uint64_t a, uint64_t b)
{
    uint64_t now = 0;
    tw_now(&o->f->wheel, &now);
    int in_range = o->pending[i] && o->deadline[i] >= now + a && o->deadline[i] <= now + b;
    uint64_t before = o->timers[i].deadline;
    int rc = tw_start_range(&o->f->wheel, &o->timers[i], a, b);
    uint64_t d = o->timers[i].deadline;
    if (rc < 0 || d < now + a || d > now + b || (in_range && d != before)) {
        tw_test_fail(__FILE__, __LINE__, "tw_start_range(timer %zu, %llu, %llu) at %llu: rc=%d deadline %llu",
                     i, (unsigned long long)a, (unsigned long long)b, (unsigned long long)now, rc,
                     (unsigned long long)d);
        o->errors++;
        return;
    }
    o->pending[i] = 1;
    o->deadline[i] = d;
    o->started++;
}

static void oracle_stop(oracle *o, size_t i)
{
    int rc = tw_stop(&o->f->wheel, &o->timers[i]);
    if (rc != o->pending[i]) {
        tw_test_fail(__FILE__, __LINE__, "tw_stop(timer %zu) = %d, oracle says pending=%d", i, rc,
                     o->pending[i]);
        o->errors++;
    }
    o->pending[i] = 0;
    o->stopped++;
}

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    oracle *o = the_oracle;
    size_t i = (size_t)(uintptr_t)arg;
    (void)t;
    if (!o->pending[i] || now != o->deadline[i]) {
        tw_test_fail(__FILE__, __LINE__, "timer %zu fired at %llu: pending=%d deadline=%llu", i,
                     (unsigned long long)now, o->pending[i], (unsigned long long)o->deadline[i]);
        o->errors++;
    }
    o->pending[i] = 0;
    o->fired++;
    /* Re-entrant work from inside the callback: restarts (itself now, so
     * that it fires again at this tick, maybe many times over), range
     * starts and stops of any timer. */
    uint64_t r = tw_rng_below(&o->rng, 10);
    if (r == 0)
        oracle_start(o, i, random_interval(o));
    else if (r == 1)
        oracle_start(o, tw_rng_below(&o->rng, NTIMERS), random_interval(o));
    else if (r == 2)
        oracle_stop(o, tw_rng_below(&o->rng, NTIMERS));
    else if (r == 3) {
        oracle_start(o, i, 0);
        o->zero_restarts++;
    } else if (r == 4) {
        uint64_t a = random_interval(o);
        oracle_start_range(o, tw_rng_below(&o->rng, NTIMERS), a, a + random_interval(o));
    }
}

/* After time has fully reached `now`, nothing due may still be pending. */
static void check_nothing_due(oracle *o)
{
    uint64_t now = 0;
    tw_now(&o->f->wheel, &now);
    for (size_t i = 0; i < NTIMERS; i++)
        if (o->pending[i] && o->deadline[i] <= now) {
            tw_test_fail(__FILE__, __LINE__, "timer %zu due at %llu still pending at %llu", i,
                         (unsigned long long)o->deadline[i], (unsigned long long)now);
            o->errors++;
            return;
        }
}

/* visit_batch > 0 spreads slot visits over calls: advances then stop early
 * with work pending, and the random operations run while a visit is half
 * done (time held); everything must still fire on its exact tick. */
int tw_random_run(const tw_backend *b, uint64_t seed, long ops, uint64_t summary[6], unsigned coarse_shift,
                  unsigned visit_batch)
{
    tw_fixture f;
    oracle *o = calloc(1, sizeof *o);
    if (!o)
        return 0;
    tw_test_failed = 0;
    tw_test_why[0] = 0;
    const char *mode = coarse_shift ? "coarse" : visit_batch ? "batch" : "oracle";
    printf("# random/%s/%s: seed=%llu ops=%ld visit_batch=%u\n", b->name, mode, (unsigned long long)seed, ops,
           visit_batch);
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .coarse_shift = coarse_shift, .visit_batch = visit_batch};
    if (tw_fixture_open_cfg(&f, b, &cfg) < 0) {
        tw_test_fail(__FILE__, __LINE__, "cannot open backend");
        goto out;
    }
    o->f = &f;
    o->coarse_shift = coarse_shift;
    o->rng.s = seed;
    o->level_bits = f.wheel.geo.levels * f.wheel.geo.slot_bits;
    the_oracle = o;
    for (size_t i = 0; i < NTIMERS; i++)
        tw_timer_init(&o->timers[i], on_expiry, (void *)(uintptr_t)i);

    for (long op = 0; op < ops && !o->errors; op++) {
        uint64_t r = tw_rng_below(&o->rng, 100);
        size_t i = tw_rng_below(&o->rng, NTIMERS);
        if (r < 35) {
            oracle_start(o, i, random_interval(o));
        } else if (r < 45) {
            uint64_t a = random_interval(o);
            oracle_start_range(o, i, a, a + random_interval(o));
        } else if (r < 65) {
            oracle_stop(o, i);
        } else if (r < 95) {
            int rc = tw_advance(&f.wheel, 1 + tw_rng_below(&o->rng, 48), 100000);
            if (rc < 0) {
                tw_test_fail(__FILE__, __LINE__, "tw_advance: %s", tw_strerror(rc));
                break;
            }
            if (!tw_work_pending(&f.wheel))
                check_nothing_due(o);
        } else {
            /* A small budget: time may stop early; a later call finishes. */
            int rc = tw_advance(&f.wheel, tw_rng_below(&o->rng, 200), 1 + (unsigned)tw_rng_below(&o->rng, 3));
            if (rc < 0) {
                tw_test_fail(__FILE__, __LINE__, "tw_advance(budget): %s", tw_strerror(rc));
                break;
            }
        }
    }
    /* Finish: run every pending budget, then check the end state. */
    for (long n = 0; !o->errors && tw_work_pending(&f.wheel); n++) {
        int rc = tw_advance(&f.wheel, 0, 100000);
        if (rc < 0 || n > 10 * NTIMERS) {
            tw_test_fail(__FILE__, __LINE__, "finishing: %s after %ld calls", rc < 0 ? tw_strerror(rc) : "still pending", n);
            break;
        }
    }
    check_nothing_due(o);
    size_t live = 0;
    for (size_t i = 0; i < NTIMERS; i++)
        live += (size_t)o->pending[i];
    if (live != tw_count_pending(&f.wheel))
        tw_test_fail(__FILE__, __LINE__, "driver counts %zu pending, oracle %zu",
                     tw_count_pending(&f.wheel), live);
    printf("# random/%s: started=%llu stopped=%llu fired=%llu (%llu restarted at once) events=%llu now=%llu\n",
           b->name, (unsigned long long)o->started, (unsigned long long)o->stopped,
           (unsigned long long)o->fired, (unsigned long long)o->zero_restarts,
           (unsigned long long)f.wheel.stats.events, (unsigned long long)f.wheel.now);
    if (o->fired == 0)
        tw_test_fail(__FILE__, __LINE__, "nothing fired: the workload is broken");
    if (summary) {
        summary[0] = o->fired;
        summary[1] = f.wheel.stats.events;
        summary[2] = f.wheel.now;
        summary[3] = tw_dev_cycles(&f.dev);
        summary[4] = f.dev.reads;
        summary[5] = f.dev.writes;
    }
out:
    tw_fixture_close(&f);
    free(o);
    if (tw_test_failed)
        printf("FAIL random/%s/%s: seed=%llu: %s\n", b->name, mode, (unsigned long long)seed, tw_test_why);
    else
        printf("ok random/%s/%s\n", b->name, mode);
    fflush(stdout);
    return !tw_test_failed;
}
