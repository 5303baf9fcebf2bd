/* Lawn (A. Lev-Libfeld): timers bucketed by TTL rather than by expiry time.
 *
 * Each distinct TTL has one FIFO queue. Timers of equal TTL expire in the
 * order they started, so a queue is sorted by deadline just by appending to
 * it: start and stop are O(1) (plus a hash lookup of the TTL), there is no
 * range limit and no overflow. The bookkeeping keeps the closest expiration
 * (a lower bound); on a tick that reaches it, it looks at the head of every
 * queue, so that tick costs O(t) for t distinct TTLs. Empty queues are
 * removed, as in the paper.
 *
 * Queues come from a pool of max_timers (the worst case: every timer its own
 * TTL); a linear-probing hash maps a TTL to its queue; no allocation after
 * create().
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

#define NO_BUCKET UINT32_MAX

typedef struct lnode {
    dlist link;
    uint64_t deadline;
    uint32_t bucket; /* pool index, or NO_BUCKET when expired or idle */
    int pending;
} lnode;

typedef struct bucket {
    dlist queue; /* FIFO: ascending deadlines */
    uint64_t ttl;
    uint32_t live; /* index in live[], or in the free list when unused */
} bucket;

typedef struct slot {
    uint64_t ttl;
    uint32_t bucket; /* NO_BUCKET: empty */
} slot;

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    uint64_t closest; /* <= every queued deadline; UINT64_MAX if none */
    dlist expired;
    lnode *timers;
    bucket *pool;
    uint32_t *live, nlive; /* buckets in use, scanned on an expiry tick */
    uint32_t *free_list, nfree;
    slot *hash;
    size_t hash_mask;
    uint32_t ntimers;
};

static void lawn_destroy(engine *e)
{
    if (!e)
        return;
    free(e->timers);
    free(e->pool);
    free(e->live);
    free(e->free_list);
    free(e->hash);
    free(e);
}

static engine *lawn_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    size_t n = max_timers ? max_timers : 1, hsize = 16;
    if (!e)
        return NULL;
    while (hsize < 2 * n)
        hsize *= 2;
    e->cb = cb;
    e->ctx = ctx;
    e->closest = UINT64_MAX;
    dl_init(&e->expired);
    e->ntimers = max_timers;
    e->timers = calloc(n, sizeof *e->timers);
    e->pool = calloc(n, sizeof *e->pool);
    e->live = calloc(n, sizeof *e->live);
    e->free_list = calloc(n, sizeof *e->free_list);
    e->hash = calloc(hsize, sizeof *e->hash);
    e->hash_mask = hsize - 1;
    if (!e->timers || !e->pool || !e->live || !e->free_list || !e->hash) {
        lawn_destroy(e);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        e->timers[i].bucket = NO_BUCKET;
        e->free_list[i] = (uint32_t)(n - 1 - i);
    }
    e->nfree = (uint32_t)n;
    for (size_t i = 0; i < hsize; i++)
        e->hash[i].bucket = NO_BUCKET;
    return e;
}

/* ------------------------------------------------------------ TTL hash */

static size_t home(const engine *e, uint64_t ttl)
{
    return (size_t)((ttl * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & e->hash_mask;
}

/* The queue for ttl, created if there is none. */
static uint32_t bucket_for(engine *e, uint64_t ttl)
{
    size_t i = home(e, ttl);
    while (e->hash[i].bucket != NO_BUCKET) {
        if (e->hash[i].ttl == ttl)
            return e->hash[i].bucket;
        i = (i + 1) & e->hash_mask;
    }
    uint32_t b = e->free_list[--e->nfree]; /* at most one queue per timer */
    dl_init(&e->pool[b].queue);
    e->pool[b].ttl = ttl;
    e->pool[b].live = e->nlive;
    e->live[e->nlive++] = b;
    e->hash[i].ttl = ttl;
    e->hash[i].bucket = b;
    return b;
}

/* Removes an empty queue: from the hash (backward-shift deletion, no
 * tombstones), from live[], back to the pool. */
static void bucket_remove(engine *e, uint32_t b)
{
    size_t i = home(e, e->pool[b].ttl);
    while (e->hash[i].bucket != b)
        i = (i + 1) & e->hash_mask;
    for (size_t j = (i + 1) & e->hash_mask; e->hash[j].bucket != NO_BUCKET; j = (j + 1) & e->hash_mask) {
        size_t h = home(e, e->hash[j].ttl);
        /* The entry at j may fill the hole at i unless its home lies in (i, j]. */
        if (((j - h) & e->hash_mask) >= ((j - i) & e->hash_mask)) {
            e->hash[i] = e->hash[j];
            i = j;
        }
    }
    e->hash[i].bucket = NO_BUCKET;

    uint32_t at = e->pool[b].live, last = e->live[--e->nlive];
    e->live[at] = last;
    e->pool[last].live = at;
    e->free_list[e->nfree++] = b;
}

/* -------------------------------------------------------------- timers */

static void detach(engine *e, lnode *t)
{
    dl_unlink(&t->link);
    if (t->bucket != NO_BUCKET && dl_empty(&e->pool[t->bucket].queue))
        bucket_remove(e, t->bucket);
    t->bucket = NO_BUCKET;
    t->pending = 0;
}

static void lawn_start(engine *e, uint32_t timer, uint64_t ttl)
{
    lnode *t = &e->timers[timer];
    if (t->pending)
        detach(e, t);
    t->deadline = e->now + ttl;
    t->pending = 1;
    if (ttl == 0) {
        dl_insert_after(e->expired.prev, &t->link);
        return;
    }
    t->bucket = bucket_for(e, ttl);
    dl_insert_after(e->pool[t->bucket].queue.prev, &t->link);
    if (t->deadline < e->closest)
        e->closest = t->deadline;
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t lawn_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const lnode *t = &e->timers[timer];
    if (eng_range_keeps(t->pending, t->deadline, e->now + lo, e->now + hi))
        return t->deadline;
    lawn_start(e, timer, hi);
    return e->now + hi;
}

static int lawn_stop(engine *e, uint32_t timer)
{
    lnode *t = &e->timers[timer];
    if (!t->pending)
        return 0;
    detach(e, t);
    return 1;
}

static void run_expired(engine *e)
{
    while (!dl_empty(&e->expired)) {
        lnode *t = ENG_CONTAINER(e->expired.next, lnode, link);
        dl_unlink(&t->link);
        t->pending = 0;
        e->cb(e->ctx, (uint32_t)(t - e->timers), e->now);
    }
}

/* The bookkeeping of tick now (= closest): mow every queue down to now and
 * find the new closest expiration among the heads. */
static void mow(engine *e)
{
    uint64_t closest = UINT64_MAX;
    for (uint32_t i = 0; i < e->nlive;) {
        uint32_t b = e->live[i];
        dlist *q = &e->pool[b].queue;
        while (!dl_empty(q) && ENG_CONTAINER(q->next, lnode, link)->deadline <= e->now) {
            lnode *t = ENG_CONTAINER(q->next, lnode, link);
            dl_unlink(&t->link);
            t->bucket = NO_BUCKET;
            dl_insert_after(e->expired.prev, &t->link);
        }
        if (dl_empty(q)) {
            bucket_remove(e, b); /* live[i] is now an unvisited queue */
            continue;
        }
        uint64_t d = ENG_CONTAINER(q->next, lnode, link)->deadline;
        if (d < closest)
            closest = d;
        i++;
    }
    e->closest = closest;
}

static void lawn_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    run_expired(e);
    while (e->closest <= target) {
        e->now = e->closest;
        mow(e);
        run_expired(e);
    }
    e->now = target;
}

static uint64_t lawn_ticks_until_next(engine *e, uint64_t cap)
{
    if (!dl_empty(&e->expired))
        return 0;
    return e->closest == UINT64_MAX ? cap : eng_min_u64(e->closest - e->now, cap);
}

static uint64_t lawn_now(const engine *e) { return e->now; }

static size_t lawn_memory(const engine *e)
{
    return sizeof *e + (size_t)e->ntimers * (sizeof *e->timers + sizeof *e->pool + sizeof *e->live +
                                             sizeof *e->free_list) +
           (e->hash_mask + 1) * sizeof *e->hash;
}

const engine_ops eng_lawn_ops = {
    .name = "lawn",
    .create = lawn_create,
    .destroy = lawn_destroy,
    .start = lawn_start,
    .start_range = lawn_start_range,
    .stop = lawn_stop,
    .advance = lawn_advance,
    .ticks_until_next = lawn_ticks_until_next,
    .now = lawn_now,
    .memory = lawn_memory,
};
