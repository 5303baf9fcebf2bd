/* tickwheel: host driver for the tickwheel timer coprocessor.
 *
 * The chip keeps one busy bit per wheel slot and steps a pointer per level
 * every tick; it interrupts only when a pointer reaches a busy slot. This
 * driver keeps every timer in host memory: intrusive doubly linked lists per
 * slot, absolute 64-bit deadlines, caller-allocated timers, no allocation.
 *
 *   tw_geometry g;  tw_probe(dev, &g);
 *   void *mem = malloc(tw_mem_size(&g));
 *   tw_wheel w;     tw_init(&w, dev, mem, tw_mem_size(&g), &cfg);
 *   tw_timer t;     tw_timer_init(&t, on_expiry, arg);
 *   tw_start(&w, &t, 1000);           ... fires 1000 ticks from now
 *   tw_advance(&w, 5000, 64);         virtual time: run 5000 ticks
 *   tw_service(&w, 64);               real time: handle pending expiries
 *
 * Every call returns 0 (or a count) on success and a negative TW_E* code on
 * failure; tw_strerror() names it. Nothing here is thread-safe: one wheel,
 * one thread (callbacks run on it).
 */
#ifndef TICKWHEEL_H
#define TICKWHEEL_H

#include <stddef.h>
#include <stdint.h>

#include "tw_dev.h"
#include "tw_err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_list {
    struct tw_list *next, *prev;
} tw_list;

typedef struct tw_timer tw_timer;
/* Runs once per expiry; `now` is the chip tick at which the timer fired.
 * It may start, stop or re-arm any timer, itself included. */
typedef void (*tw_callback)(tw_timer *timer, uint64_t now, void *arg);

/* Caller-allocated; its fields are the driver's. The ones every start,
 * stop and slot visit reads come first, in 32 bytes, so that they share a
 * cache line more often; the callback and its argument, read only when the
 * timer fires, come last. */
struct tw_timer {
    tw_list link;
    uint64_t deadline;
    uint32_t magic;
    uint32_t where; /* idle (0), or the wheel's tag | expired (1) or 2 + slot index */
    tw_callback callback;
    void *arg;
};

typedef struct tw_geometry {
    unsigned levels;     /* m */
    unsigned slot_bits;  /* b: 2^b slots per level */
    unsigned fifo_log2;
    unsigned tick_bits;
} tw_geometry;

enum tw_time_source {
    TW_TIME_VIRTUAL = 0,  /* time moves only by tw_advance(): exact ticks */
    TW_TIME_INTERNAL = 1, /* chip's prescaler: one tick every prescale+1 cycles */
    TW_TIME_EXTERNAL = 2, /* chip's external tick input */
};

typedef struct tw_config {
    enum tw_time_source source;
    uint32_t prescale;
    /* Real time: interrupt once this many event entries wait, or once the
     * FIFO has been non-empty irq_holdoff ticks (0: at once). */
    uint16_t irq_threshold, irq_holdoff;
    /* 0: exact mode, every timer fires on its tick (cascading down levels).
     * s > 0: coarse mode, no cascades: tw_start rounds a deadline up to a slot
     * boundary, late by at most interval / (2^s - 1) ticks; a timer is seen
     * at most 2^s + 1 times before it fires (below the top level's reach).
     * Range starts stay inside their range in either mode. At most 16. */
    unsigned coarse_shift;
    /* Bits 63:48 of the wheel's 64-bit time at start (the chip counts 48). */
    uint16_t epoch;
    /* Bounded service for slots holding many timers: a call moves at most
     * this many timers out of visited slots (fired, moved down a level, or
     * re-placed after a lazy re-arm) and leaves the rest for the next call,
     * with time held (virtual) and tw_work_pending() true. 0: no bound, a
     * call finishes every visit it starts. */
    unsigned visit_batch;
} tw_config;

typedef struct tw_stats {
    uint64_t started, stopped, fired;
    uint64_t events;          /* events read from the chip */
    uint64_t empty_events;    /* events for a slot with no timer left (after stops) */
    uint64_t late_events;     /* events the chip reported at arm time */
    uint64_t bad_events;      /* impossible events: counted, never used */
    uint64_t overflows;       /* FIFO overflows recovered */
    uint64_t resyncs;         /* full sweeps of the wheel */
    uint64_t cascades;        /* timers moved to another slot by an event */
    uint64_t lazy_rearms;     /* re-arms to a later deadline, left in place */
    uint64_t range_kept;      /* range starts already satisfied */
    uint64_t arms, clears;    /* bitmap commands sent */
    uint64_t bus_errors;      /* failed register accesses (each repaired by a resync) */
    uint64_t chip_resets;     /* chip found reset (time went back, CTRL lost): rebuilt */
    uint64_t late_fires;      /* timers found due after their tick (real-time latency or a fault) */
    uint64_t visit_splits;    /* calls that left a slot visit for the next one (visit_batch) */
} tw_stats;

typedef struct tw_wheel {
    tw_dev *dev;
    tw_geometry geo;
    enum tw_time_source source;
    unsigned coarse_shift;  /* 0: exact mode */
    uint32_t slot_mask;
    uint32_t timer_tag;     /* the high half of its queued timers' `where` */
    uint32_t salvages;      /* list salvages so far: each gives the kept timers a new tag */
    size_t nslots;          /* levels << slot_bits */
    tw_list *slots;         /* one list head per slot (caller memory) */
    uint64_t *armed;        /* mirror of the chip's busy bits (caller memory) */
    tw_list expired;        /* due timers whose callbacks have not run */
    uint64_t now;           /* <= chip time, >= every event handled */
    uint64_t adv_target;    /* virtual time: where tw_advance is heading */
    uint64_t adv_issued;    /* virtual time: ticks requested from the chip so far */
    uint32_t arm_hi;        /* last value written to ARM_HI */
    uint32_t horizon;       /* last value written to SEARCH */
    int arm_hi_known;
    int in_callbacks;
    tw_list *mark;          /* in the expired list while callbacks run: where they end */
    int need_resync;        /* a bus error or bad event: sweep before trusting events */
    size_t pending;         /* timers started and not yet fired or stopped */
    tw_stats stats;
    /* What tw_init configured, to set a chip up again after it was reset. */
    uint32_t ctrl, prescale, coalesce;
    int chip_reset;         /* the chip lost its state: rebuild before trusting it */
    uint64_t adv_unsure;    /* virtual time: an ADVANCE write that may have happened */
    tw_list visiting;       /* timers of the slot being visited, not yet looked at */
    size_t visit_idx;       /* that slot */
    unsigned visit_batch;   /* tw_config.visit_batch */
    unsigned visit_left;    /* what the running call may still move */
} tw_wheel;

const char *tw_strerror(int err);

/* Reads the chip's ID, version and geometry. */
int tw_probe(tw_dev *dev, tw_geometry *geo);
/* Bytes of caller memory tw_init needs for this geometry. */
size_t tw_mem_size(const tw_geometry *geo);
/* Probes the chip and takes it over: clears its bitmap and events, runs
 * out an ADVANCE a host that stopped mid-call left behind, starts its clock
 * source. One wheel drives a chip. `mem` is tw_mem_size() bytes aligned for
 * a pointer (malloc's are). After a failure every call refuses the wheel. */
int tw_init(tw_wheel *w, tw_dev *dev, void *mem, size_t mem_size, const tw_config *cfg);

/* Makes t an idle timer. Stop a queued timer first: one initialised while
 * queued is forgotten, not stopped, and its slot's visit reports the stale
 * entry with TW_ECORRUPT (docs/driver.md, under Use). */
int tw_timer_init(tw_timer *t, tw_callback cb, void *arg);
/* Fire `ticks` after now. Re-arms a pending timer. 0: due at once, run by
 * the next tw_service call (a callback's restart with 0 is not run again by
 * the call running it) or, in virtual time, by tw_advance before time moves
 * on. A re-arm to a later deadline checks the timer's own links only; the
 * slot's visit checks its neighbours. */
int tw_start(tw_wheel *w, tw_timer *t, uint64_t ticks);
/* Fire anywhere in [now + min_ticks, now + max_ticks]. Does nothing if the
 * timer is already pending inside that range; otherwise picks the latest
 * deadline in range that fires without a cascade (a slot boundary of the
 * level it lands on), or the end of the range if none does. */
int tw_start_range(tw_wheel *w, tw_timer *t, uint64_t min_ticks, uint64_t max_ticks);
/* 1 if the timer was pending (it will not fire), 0 if it was not.
 * TW_EINVAL for a timer pending on another wheel (start likewise). */
int tw_stop(tw_wheel *w, tw_timer *t);
/* 1 if pending, 0 if not, TW_ECORRUPT for a damaged timer. */
int tw_pending(const tw_timer *t);
/* Handles the chip's pending events and runs at most `budget` callbacks;
 * returns how many ran. Later calls resume where this one stopped. Not
 * from inside a callback (TW_ESTATE). */
int tw_service(tw_wheel *w, unsigned budget);
/* Virtual time: moves time forward by `ticks`, running every expiry at its
 * exact tick, at most `budget` callbacks; returns how many ran. If the budget
 * runs out first, time stops there; tw_advance(w, 0, budget) continues. So
 * does it after an error: the target stands (tw_advance_to is safe to
 * repeat). TW_ESTATE in real time or from inside a callback. */
int tw_advance(tw_wheel *w, uint64_t ticks, unsigned budget);
/* Virtual time: tw_advance to an absolute tick (not before the last target). */
int tw_advance_to(tw_wheel *w, uint64_t tick, unsigned budget);
/* Ticks until the chip's next visit of a busy slot, at most `cap`: 0 if
 * callbacks or events are waiting. The chip's search answers it. It is a
 * lower bound on the next expiry (a visit may only move timers down a level),
 * so sleeping this long never oversleeps an expiry. */
int tw_ticks_until_next(tw_wheel *w, uint64_t cap, uint64_t *ticks);
/* The chip's current tick (read from the chip in real time). */
int tw_now(tw_wheel *w, uint64_t *now);
/* 1 if the last service or advance stopped with work left for the next
 * call (callbacks due, a slot visit unfinished, or virtual time short of the
 * tw_advance target), 0 if not. An event loop calls again while it is 1. */
int tw_work_pending(const tw_wheel *w);
/* Timers pending (in slots or expired, not yet called back). */
size_t tw_count_pending(const tw_wheel *w);

#ifdef __cplusplus
}
#endif

#endif
