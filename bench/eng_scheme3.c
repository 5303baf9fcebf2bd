/* Scheme 3 of Varghese & Lauck: a tree-based priority queue, here a pairing
 * heap (Fredman, Sedgewick, Sleator and Tarjan): a heap-ordered multiway
 * tree kept as child/sibling links. Start is a meld, O(1); stop and the
 * removal of the minimum pair up the removed node's children, O(log n)
 * amortised. advance() jumps from one minimum to the next.
 *
 * Each node's `prev` is its parent when it is the leftmost child, otherwise
 * its left sibling, so any node can be cut out in O(1) before its children
 * are merged back.
 */
#include <stdlib.h>

#include "engine.h"
#include "eng_util.h"

typedef struct pnode {
    struct pnode *child, *next, *prev;
    uint64_t deadline;
    int pending;
} pnode;

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    pnode *root;
    pnode *timers;
    uint32_t ntimers;
};

static void s3_destroy(engine *e)
{
    if (!e)
        return;
    free(e->timers);
    free(e);
}

static engine *s3_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    e->timers = calloc(max_timers ? max_timers : 1, sizeof *e->timers);
    e->ntimers = max_timers;
    if (!e->timers) {
        s3_destroy(e);
        return NULL;
    }
    return e;
}

/* Melds two roots (no prev, no next); the larger becomes the other's first child. */
static pnode *meld(pnode *a, pnode *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (b->deadline < a->deadline) {
        pnode *t = a;
        a = b;
        b = t;
    }
    b->next = a->child;
    if (a->child)
        a->child->prev = b;
    b->prev = a;
    a->child = b;
    return a;
}

/* The standard two-pass merge of a sibling list: meld pairs left to right,
 * then meld the pairs right to left. Iterative, so deep lists are fine. */
static pnode *merge_pairs(pnode *first)
{
    pnode *pairs = NULL; /* melded pairs, most recent first, linked by next */
    while (first) {
        pnode *a = first, *b = a->next;
        first = b ? b->next : NULL;
        a->next = a->prev = NULL;
        if (b)
            b->next = b->prev = NULL;
        pnode *m = meld(a, b);
        m->next = pairs;
        pairs = m;
    }
    pnode *root = NULL;
    while (pairs) {
        pnode *m = pairs;
        pairs = m->next;
        m->next = NULL;
        root = meld(root, m);
    }
    return root;
}

static void remove_node(engine *e, pnode *t)
{
    if (t == e->root) {
        e->root = merge_pairs(t->child);
    } else {
        if (t->prev->child == t)
            t->prev->child = t->next;
        else
            t->prev->next = t->next;
        if (t->next)
            t->next->prev = t->prev;
        t->next = t->prev = NULL;
        e->root = meld(e->root, merge_pairs(t->child));
    }
    t->child = NULL;
    t->pending = 0;
}

static void s3_start(engine *e, uint32_t timer, uint64_t ticks)
{
    pnode *t = &e->timers[timer];
    if (t->pending)
        remove_node(e, t);
    t->deadline = e->now + ticks;
    t->pending = 1;
    e->root = meld(e->root, t);
}

/* Keeps a timer already inside the range, else its end (eng_range_keeps). */
static uint64_t s3_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    const pnode *t = &e->timers[timer];
    if (eng_range_keeps(t->pending, t->deadline, e->now + lo, e->now + hi))
        return t->deadline;
    s3_start(e, timer, hi);
    return e->now + hi;
}

static int s3_stop(engine *e, uint32_t timer)
{
    pnode *t = &e->timers[timer];
    if (!t->pending)
        return 0;
    remove_node(e, t);
    return 1;
}

static void s3_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    while (e->root && e->root->deadline <= target) {
        pnode *t = e->root;
        remove_node(e, t);
        e->now = t->deadline;
        e->cb(e->ctx, (uint32_t)(t - e->timers), e->now);
    }
    e->now = target;
}

static uint64_t s3_ticks_until_next(engine *e, uint64_t cap)
{
    return e->root ? eng_min_u64(e->root->deadline - e->now, cap) : cap;
}

static uint64_t s3_now(const engine *e) { return e->now; }

static size_t s3_memory(const engine *e)
{
    return sizeof *e + (size_t)e->ntimers * sizeof *e->timers;
}

const engine_ops eng_scheme3_ops = {
    .name = "scheme3",
    .create = s3_create,
    .destroy = s3_destroy,
    .start = s3_start,
    .start_range = s3_start_range,
    .stop = s3_stop,
    .advance = s3_advance,
    .ticks_until_next = s3_ticks_until_next,
    .now = s3_now,
    .memory = s3_memory,
};
