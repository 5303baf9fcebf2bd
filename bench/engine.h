/* One interface over every timer engine the benchmarks and the differential
 * test compare: tickwheel's driver (on a device backend) and the software
 * reference schemes. Timers are named by index 0..max_timers-1; each engine
 * keeps its own timer records. Time is virtual: it moves only by advance().
 *
 * Semantics every engine must meet (the differential test checks them):
 * start() fires the timer exactly `ticks` after now (re-arming it if
 * pending); stop() returns 1 if it was pending; advance() runs every expiry
 * at its exact tick, in tick order, and callbacks may call start/stop on any
 * timer (themselves included); a timer started for 0 ticks fires at the
 * current tick, at the start of the next advance() call. */
#ifndef TW_BENCH_ENGINE_H
#define TW_BENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct engine engine;
typedef void (*engine_cb)(void *ctx, uint32_t timer, uint64_t now);

/* What an engine with a device (tickwheel) did on its bus, for reports. */
typedef struct engine_dev_stats {
    uint64_t reads, writes; /* bus transactions */
    uint64_t irqs;          /* waits that ended on the interrupt line */
    uint64_t events;        /* slot visits the chip reported */
    uint64_t cycles;        /* chip clock cycles */
} engine_dev_stats;

typedef struct engine_ops {
    const char *name;
    engine *(*create)(uint32_t max_timers, engine_cb cb, void *ctx);
    void (*destroy)(engine *e);
    void (*start)(engine *e, uint32_t timer, uint64_t ticks);
    /* Fire anywhere in [now+lo, now+hi]; returns the deadline chosen.
     * NULL where the engine has none (callers then use start()). */
    uint64_t (*start_range)(engine *e, uint32_t timer, uint64_t lo, uint64_t hi);
    int (*stop)(engine *e, uint32_t timer);
    void (*advance)(engine *e, uint64_t ticks);
    /* Bounded service: advance() in steps of bounded work. Returns 1 if it
     * stopped with work left (time held short of now + ticks; call again
     * with 0 before anything else), 0 once there. NULL where the engine
     * has no such mode (callers then use advance()). */
    int (*advance_step)(engine *e, uint64_t ticks);
    /* Ticks until the next expiry (a lower bound is allowed), at most cap. */
    uint64_t (*ticks_until_next)(engine *e, uint64_t cap);
    uint64_t (*now)(const engine *e);
    size_t (*memory)(const engine *e); /* bytes held, for reports */
    /* NULL for software engines. */
    void (*dev_stats)(const engine *e, engine_dev_stats *s);
} engine_ops;

/* Every engine, NULL-terminated: the driver first, then the references. */
extern const engine_ops *const all_engines[];
const engine_ops *engine_by_name(const char *name);

#endif
