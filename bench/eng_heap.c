/* A binary min-heap on deadlines, the usual priority queue of event loops
 * (libuv, libevent, Go's runtime before 1.14): start, stop and the removal
 * of the minimum are O(log n). Each timer records its index in the heap, so
 * stop and re-arm move it in place instead of searching. advance() jumps
 * from one minimum to the next.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define NOT_QUEUED UINT32_MAX

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    uint32_t *heap;     /* timer indices; heap[0] is due first */
    uint32_t *pos;      /* per timer: its index in heap[], or NOT_QUEUED */
    uint64_t *deadline; /* per timer */
    uint32_t size, ntimers;
};

static void heap_destroy(engine *e)
{
    if (!e)
        return;
    free(e->heap);
    free(e->pos);
    free(e->deadline);
    free(e);
}

static engine *heap_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    size_t n = max_timers ? max_timers : 1;
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    e->ntimers = max_timers;
    e->heap = calloc(n, sizeof *e->heap);
    e->pos = malloc(n * sizeof *e->pos);
    e->deadline = calloc(n, sizeof *e->deadline);
    if (!e->heap || !e->pos || !e->deadline) {
        heap_destroy(e);
        return NULL;
    }
    for (uint32_t i = 0; i < max_timers; i++)
        e->pos[i] = NOT_QUEUED;
    return e;
}

static void sift_up(engine *e, uint32_t i)
{
    uint32_t t = e->heap[i];
    uint64_t d = e->deadline[t];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (e->deadline[e->heap[p]] <= d)
            break;
        e->heap[i] = e->heap[p];
        e->pos[e->heap[i]] = i;
        i = p;
    }
    e->heap[i] = t;
    e->pos[t] = i;
}

static void sift_down(engine *e, uint32_t i)
{
    uint32_t t = e->heap[i];
    uint64_t d = e->deadline[t];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= e->size)
            break;
        if (c + 1 < e->size && e->deadline[e->heap[c + 1]] < e->deadline[e->heap[c]])
            c++;
        if (e->deadline[e->heap[c]] >= d)
            break;
        e->heap[i] = e->heap[c];
        e->pos[e->heap[i]] = i;
        i = c;
    }
    e->heap[i] = t;
    e->pos[t] = i;
}

static void remove_at(engine *e, uint32_t i)
{
    uint32_t t = e->heap[i], last = e->heap[--e->size];
    e->pos[t] = NOT_QUEUED;
    if (i == e->size)
        return;
    e->heap[i] = last;
    e->pos[last] = i;
    if (i > 0 && e->deadline[last] < e->deadline[e->heap[(i - 1) / 2]])
        sift_up(e, i);
    else
        sift_down(e, i);
}

static void heap_start(engine *e, uint32_t timer, uint64_t ticks)
{
    uint32_t i = e->pos[timer];
    uint64_t old = e->deadline[timer];
    e->deadline[timer] = e->now + ticks;
    if (i == NOT_QUEUED) {
        i = e->size++;
        e->heap[i] = timer;
        e->pos[timer] = i;
        sift_up(e, i);
    } else if (e->deadline[timer] < old) {
        sift_up(e, i);
    } else {
        sift_down(e, i);
    }
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t heap_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    if (eng_range_keeps(e->pos[timer] != NOT_QUEUED, e->deadline[timer], e->now + lo, e->now + hi))
        return e->deadline[timer];
    heap_start(e, timer, hi);
    return e->now + hi;
}

static int heap_stop(engine *e, uint32_t timer)
{
    if (e->pos[timer] == NOT_QUEUED)
        return 0;
    remove_at(e, e->pos[timer]);
    return 1;
}

static void heap_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    while (e->size && e->deadline[e->heap[0]] <= target) {
        uint32_t t = e->heap[0];
        remove_at(e, 0);
        e->now = e->deadline[t];
        e->cb(e->ctx, t, e->now);
    }
    e->now = target;
}

static uint64_t heap_ticks_until_next(engine *e, uint64_t cap)
{
    return e->size ? eng_min_u64(e->deadline[e->heap[0]] - e->now, cap) : cap;
}

static uint64_t heap_now(const engine *e) { return e->now; }

static size_t heap_memory(const engine *e)
{
    return sizeof *e + (size_t)e->ntimers * (sizeof *e->heap + sizeof *e->pos + sizeof *e->deadline);
}

const engine_ops eng_heap_ops = {
    .name = "heap",
    .create = heap_create,
    .destroy = heap_destroy,
    .start = heap_start,
    .start_range = heap_start_range,
    .stop = heap_stop,
    .advance = heap_advance,
    .ticks_until_next = heap_ticks_until_next,
    .now = heap_now,
    .memory = heap_memory,
};
