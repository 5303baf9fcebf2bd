/* tickwheel driver: Scheme 6 / Scheme 7 timer queues in host memory, with the
 * chip reporting which slot needs attention.
 *
 * Placement. A timer with deadline d, placed when the driver's time is h,
 * goes to the level of the most significant b-bit field in which d and h
 * differ, at that level's slot for d. That slot is not visited between h and
 * d's field boundary, so the first visit is the right moment to fire the
 * timer (level 0) or move it down (cascade): at most m events per timer.
 * Deadlines beyond the top level's reach park in the top level at their
 * field's slot and are looked at once per top revolution (with m = 1 this is
 * Scheme 6: T/M visits per timer).
 *
 * Invariants:
 *  - w->now never exceeds the chip's time and never falls below the tick of
 *    an event already handled, so a visit after w->now has not been handled.
 *  - A slot whose list is non-empty has its bit set on the chip (armed[]).
 *    The converse need not hold: stop leaves the bit set, and the next visit
 *    of the emptied slot clears it, so stop costs no bus transaction.
 *  - Every SET names the visit it means; the chip reports at once a visit it
 *    has already passed, so no arm is ever lost to bus latency.
 */
#include "tickwheel.h"

#include <limits.h>
#include <string.h>

#include "tw_regs.h"

#define TW_TIMER_MAGIC 0x74775431u /* "twT1" */
#define WHERE_IDLE 0u
#define WHERE_EXPIRED 1u
#define WHERE_SLOT0 2u
/* A queued timer's `where` carries its wheel's tag in the high half, so a
 * timer passed to another wheel is refused instead of corrupting both
 * wheels' counts; the low half is its place (expired or 2 + slot index). */
#define WHERE_PLACE(where) ((where) & 0xFFFFu)
#define WHERE_TAG(where) ((where) & ~0xFFFFu)
#define TICK_MASK ((UINT64_C(1) << 48) - 1)
#define ADVANCE_CHUNK 0xFFFF0000u /* below the chip's saturating 32-bit count */
#define ADVANCE_SLICE_MIN 256u    /* cycles to wait before looking at STATUS again, */
#define ADVANCE_SLICE_MAX 65536u  /* doubling while nothing happens */
#define CMD_SET 1u
#define CMD_CLEAR 2u
#define CMD_CLEAR_ALL 3u

const char *tw_strerror(int err)
{
    switch (err) {
    case TW_OK: return "success";
    case TW_EINVAL: return "invalid argument";
    case TW_ECORRUPT: return "timer not initialised or corrupted";
    case TW_ERANGE: return "interval runs past the end of 64-bit time";
    case TW_ENODEV: return "no tickwheel device (none there, closed, or wrong ID or version)";
    case TW_EIO: return "bus transaction failed";
    case TW_ETIMEDOUT: return "device did not respond in time";
    case TW_EDEVICE: return "device returned an impossible value";
    case TW_ENOMEM: return "not enough memory (the caller's buffer, or an allocation)";
    case TW_ESTATE: return "call not valid in this state";
    case TW_EBUSY: return "resource held by another user (e.g. the IRQ's GPIO line)";
    default: return "unknown error";
    }
}

/* ---------------------------------------------------------------- lists */

static void list_init(tw_list *l) { l->next = l->prev = l; }
static int list_empty(const tw_list *l) { return l->next == l; }

static void list_append(tw_list *head, tw_list *n)
{
    n->prev = head->prev;
    n->next = head;
    head->prev->next = n;
    head->prev = n;
}

static void list_unlink(tw_list *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->next = n->prev = n;
}

/* Moves every node of list `from` to the empty list `to`, in one step. */
static void list_take_all(tw_list *to, tw_list *from)
{
    if (list_empty(from))
        return;
    to->next = from->next;
    to->prev = from->prev;
    from->next->prev = to;
    from->prev->next = to;
    list_init(from);
}

/* A slot visit spread over calls (visit_batch) is not finished. */
static int visit_pending(const tw_wheel *w)
{
    return !list_empty(&w->visiting);
}

static tw_timer *timer_of(tw_list *l)
{
    return (tw_timer *)((char *)l - offsetof(tw_timer, link));
}

/* ------------------------------------------------------------ geometry */

static uint64_t field(const tw_wheel *w, uint64_t t, unsigned level)
{
    return (t >> (level * w->geo.slot_bits)) & w->slot_mask;
}

/* The level a deadline d goes to when placed at time h < d.
 * Exact mode: the most significant b-bit field in which d and h differ, so
 * the first visit of its slot is when it fires or moves down (cascades).
 * Coarse mode: the coarsest level whose slots are no wider than the slack
 * allowed, (d - h) >> coarse_shift; the timer then stays in its slot until
 * the visit at d itself. Beyond the top level's reach: the top level. */
static unsigned place_level(const tw_wheel *w, uint64_t d, uint64_t h)
{
    uint64_t key = w->coarse_shift ? (d - h) >> w->coarse_shift : d ^ h;
    /* The number of whole b-bit fields below key's top bit, counted with
     * three shifts (a chip has at most four levels) rather than a division
     * by b, which a start's other work cannot hide (docs/performance.md, W2). */
    unsigned b = w->geo.slot_bits;
    unsigned level = (unsigned)((key >> b) != 0) + (unsigned)((key >> 2 * b) != 0) +
                     (unsigned)((key >> 3 * b) != 0);
    return level < w->geo.levels ? level : w->geo.levels - 1;
}

/* Slot index (level << b | slot) for deadline d placed at time h < d. */
static size_t place(const tw_wheel *w, uint64_t d, uint64_t h)
{
    unsigned level = place_level(w, d, h);
    return ((size_t)level << w->geo.slot_bits) | (size_t)field(w, d, level);
}

/* Does a visit of slot idx fall on tick d? A timer due at d then waits there
 * for that visit, however many earlier revolutions pass it by. */
static int visit_at(const tw_wheel *w, size_t idx, uint64_t d)
{
    unsigned level = (unsigned)(idx >> w->geo.slot_bits);
    uint64_t below = (UINT64_C(1) << (level * w->geo.slot_bits)) - 1;
    return (d & below) == 0 && field(w, d, level) == (idx & w->slot_mask);
}

/* Coarse mode: round d up to a slot boundary of the level it lands on, so it
 * fires straight from its slot. Rounding can lift it a level; a few rounds
 * settle it. The slack stays within (deadline - h) >> coarse_shift. Kept
 * out of line: its loop would cost every exact-mode start a larger frame. */
__attribute__((noinline)) static uint64_t coarse_round(const tw_wheel *w, uint64_t d, uint64_t h)
{
    for (unsigned i = 0; i < w->geo.levels; i++) {
        uint64_t unit = UINT64_C(1) << (place_level(w, d, h) * w->geo.slot_bits);
        uint64_t up = (d + unit - 1) & ~(unit - 1);
        if (up < d)
            break; /* the end of time: keep it exact */
        if (up == d)
            return d;
        d = up;
    }
    return d;
}

static inline uint64_t coarse_deadline(const tw_wheel *w, uint64_t d, uint64_t h)
{
    return w->coarse_shift ? coarse_round(w, d, h) : d;
}

/* First visit of slot `idx` strictly after tick h. */
static uint64_t next_visit(const tw_wheel *w, size_t idx, uint64_t h)
{
    unsigned level = (unsigned)(idx >> w->geo.slot_bits);
    unsigned shift = level * w->geo.slot_bits;
    uint64_t revolution = UINT64_C(1) << (shift + w->geo.slot_bits);
    uint64_t v = (h & ~(revolution - 1)) + ((uint64_t)(idx & w->slot_mask) << shift);
    return v <= h ? v + revolution : v;
}

/* The 64-bit tick nearest `ref` whose low 48 bits are `t48`, kept inside
 * 64-bit time at both ends (a device value must not wrap the driver's time). */
static uint64_t extend_tick(uint64_t ref, uint64_t t48)
{
    uint64_t diff = (t48 - ref) & TICK_MASK;
    uint64_t back = (UINT64_C(1) << 48) - diff;
    if ((diff & (UINT64_C(1) << 47)) && ref >= back)
        return ref - back;
    return ref + diff < ref ? UINT64_MAX : ref + diff;
}

/* -------------------------------------------------------------- device */

/* A failed access may still have happened (a lost answer): whatever it
 * was, the next resync rebuilds the chip's view from the driver's lists. */
static int reg_read(tw_wheel *w, uint32_t addr, uint32_t *v)
{
    int rc = tw_dev_read(w->dev, addr, v);
    if (rc < 0) {
        w->need_resync = 1;
        w->stats.bus_errors++;
    }
    return rc;
}

static int reg_write(tw_wheel *w, uint32_t addr, uint32_t v)
{
    int rc = tw_dev_write(w->dev, addr, v);
    if (rc < 0) {
        w->need_resync = 1;
        w->stats.bus_errors++;
    }
    return rc;
}

static uint32_t cmd_word(unsigned op, size_t idx, unsigned slot_bits)
{
    return TW_PUT(TW_CMD_OP, op) | TW_PUT(TW_CMD_LEVEL, idx >> slot_bits) |
           TW_PUT(TW_CMD_SLOT, idx & ((1u << slot_bits) - 1));
}

/* The chip's 48-bit time, extended to 64 bits around w->now. */
static int read_chip_now(tw_wheel *w, uint64_t *now)
{
    uint32_t lo, hi;
    int rc = reg_read(w, TW_REG_NOW_LO, &lo);
    if (rc == 0)
        rc = reg_read(w, TW_REG_NOW_HI, &hi);
    if (rc < 0)
        return rc;
    if (hi > 0xFFFFu) {
        /* Impossible: never used. The sweep it asks for handles whatever
         * was popped before this reading (an event is not read twice). */
        w->stats.bad_events++;
        w->need_resync = 1;
        return TW_EDEVICE;
    }
    *now = extend_tick(w->now, ((uint64_t)hi << 32) | lo);
    return 0;
}

/* The chip has lost its state: rebuild it before trusting it again. */
static void chip_lost(tw_wheel *w)
{
    if (!w->chip_reset)
        w->stats.chip_resets++;
    w->chip_reset = 1;
}

/* Real time: bring w->now up to the chip's time. Time never goes back: a
 * chip behind the driver has been reset, and is rebuilt before it is used;
 * until then its time means nothing. A reset chip counts from 0 again,
 * which past 2^47 reads as a jump forward across a 2^48 boundary (the
 * counter's wrap, once in months of real time): such a reading is believed
 * only while CTRL still holds what tw_init wrote, which a reset clears. */
static int sync_chip_now(tw_wheel *w)
{
    uint64_t t;
    uint32_t ctrl;
    if (w->chip_reset)
        return 0;
    int rc = read_chip_now(w, &t);
    if (rc < 0)
        return rc;
    if (t > w->now && (t >> 48) != (w->now >> 48)) {
        rc = reg_read(w, TW_REG_CTRL, &ctrl);
        if (rc < 0)
            return rc;
        if (ctrl != w->ctrl) {
            chip_lost(w);
            return 0;
        }
    }
    if (t > w->now)
        w->now = t;
    else if (t < w->now)
        chip_lost(w);
    return 0;
}

/* Virtual time is the driver's own: only real time costs a bus read. */
static inline int sync_now(tw_wheel *w)
{
    return w->source == TW_TIME_VIRTUAL ? 0 : sync_chip_now(w);
}

static int arm_slot(tw_wheel *w, size_t idx, uint64_t visit)
{
    uint32_t hi = (uint32_t)((visit >> 32) & 0xFFFFu);
    int rc = 0;
    if (!w->arm_hi_known || w->arm_hi != hi) {
        rc = reg_write(w, TW_REG_ARM_HI, hi);
        if (rc < 0)
            return rc;
        w->arm_hi = hi;
        w->arm_hi_known = 1;
    }
    rc = reg_write(w, TW_REG_ARM_LO, (uint32_t)visit);
    if (rc == 0)
        rc = reg_write(w, TW_REG_CMD, cmd_word(CMD_SET, idx, w->geo.slot_bits));
    if (rc < 0)
        return rc;
    w->armed[idx / 64] |= UINT64_C(1) << (idx % 64);
    w->stats.arms++;
    return 0;
}

static int slot_armed(const tw_wheel *w, size_t idx)
{
    return (int)((w->armed[idx / 64] >> (idx % 64)) & 1u);
}

static int clear_slot(tw_wheel *w, size_t idx)
{
    int rc = reg_write(w, TW_REG_CMD, cmd_word(CMD_CLEAR, idx, w->geo.slot_bits));
    if (rc < 0)
        return rc;
    w->armed[idx / 64] &= ~(UINT64_C(1) << (idx % 64));
    w->stats.clears++;
    return 0;
}

/* --------------------------------------------------------------- timers */

/* A queued timer's own links: set, and aligned. */
static int links_set(const tw_timer *t)
{
    /* A link that is not even aligned is not followed at all. */
    uintptr_t misaligned = ((uintptr_t)t->link.next | (uintptr_t)t->link.prev) % _Alignof(tw_list);
    return t->link.next && t->link.prev && !misaligned;
}

/* A queued timer's links, checked before the driver follows them: its
 * neighbours must point back at it. Costs two loads of the neighbours,
 * which the unlink that follows needs anyway. */
static int links_ok(const tw_timer *t)
{
    return links_set(t) && t->link.next->prev == &t->link && t->link.prev->next == &t->link;
}

/* A timer met on a visit or expired list before the driver follows it: not
 * marked idle (initialised again while queued), its links whole. */
static int listed_ok(const tw_timer *t)
{
    return t->where != WHERE_IDLE && links_ok(t);
}

static int link_usable(const tw_list *l)
{
    return l && (uintptr_t)l % _Alignof(tw_list) == 0;
}

static int is_head(const tw_wheel *w, const tw_list *n)
{
    uintptr_t a = (uintptr_t)n, first = (uintptr_t)w->slots;
    return n == &w->expired || n == &w->visiting || n == w->mark ||
           (a >= first && a < first + w->nslots * sizeof *w->slots);
}

/* Each salvage gives the timers it keeps a new tag, a step that is odd in
 * the tag's 16 bits (2^16 salvages before a tag comes back), so that a
 * timer it could not reach is known as lost, not as this wheel's: for the
 * last LOST_REMEMBERED salvages, a stop or start makes it idle first. */
#define TAG_STEP (UINT32_C(0x9E37) << 16)
#define TAG_STEP_INVERSE 0x7787u /* 0x9E37 * 0x7787 = 1 mod 2^16 */
enum { LOST_REMEMBERED = 64, TIMER_LOST = 1 };

static int lost_here(const tw_wheel *w, uint32_t where)
{
    uint32_t back = (((w->timer_tag - WHERE_TAG(where)) >> 16) * TAG_STEP_INVERSE) & 0xFFFFu;
    return where != WHERE_IDLE && back >= 1 && back <= LOST_REMEMBERED && back <= w->salvages;
}

static void salvage_lists(tw_wheel *w);

/* Mends list `head` when t, its first timer, fails its check, without
 * following a damaged link: walking back from the node before `head` over
 * set and aligned links that point back only (bounded by the timers
 * queued), it takes out
 * - t itself if the walk meets it: its successor is the node whose prev is
 *   t (t's own next overwritten, or t initialised again and maybe queued
 *   elsewhere since: t itself is not touched, where it is now is its own);
 * - else t's successor, if the walk met that one and it does not link back
 *   to t: a stale entry (a timer initialised again while queued, left idle
 *   or started elsewhere), bypassed the same way.
 * An entry the walk meets linked forwards to the node it came from is no
 * stale one but the same timer started again into this very list, further
 * on: taking out what lies between would lose the timers there. Whatever
 * it took out, if anything, the lists are then salvaged, which mends the
 * rest and counts the queued timers again (a cut may hold more than one
 * entry where misuse came upon misuse). */
__attribute__((noinline, cold)) static void drop_damaged_first(tw_wheel *w, tw_list *head, tw_timer *t)
{
    tw_list *after_t = links_set(t) && t->link.prev == head ? t->link.next : NULL;
    tw_list *n = head, *after_stale = NULL;
    int after_t_met = 0;
    for (size_t k = 0; k <= w->pending + 2; k++) {
        tw_list *p = n->prev;
        if (!link_usable(p) || p == n)
            break;
        if (p == &t->link) {
            if (t->link.next != n) { /* else t is queued again here, at the end */
                head->next = n;
                n->prev = head;
            }
            after_stale = NULL;
            break;
        }
        if (p == after_t && !after_t_met) {
            after_t_met = 1;
            /* Unless t itself comes later in the walk, or this is the
             * successor queued again further on (its next links back). */
            if (p != head && p->prev != &t->link && p->next != n)
                after_stale = n;
        }
        /* Not back over a link that does not point back: it may lead
         * into another list. */
        if (p == head || p->next != n)
            break;
        n = p;
    }
    if (after_stale) {
        t->link.next = after_stale;
        after_stale->prev = &t->link;
    }
    salvage_lists(w);
}

/* Takes out the node before `node` (in list `head`) when it does not link
 * forward to `node`: a stale entry, its timer initialised again while
 * queued, or a damaged one. An append or unlink next to it would write
 * through it into memory the list no longer owns. Its predecessor is the
 * node, found walking forward from `head` over set and aligned links that
 * point back only (bounded by the timers queued), whose next is it. Then,
 * found or not, the lists are salvaged (mended, counted again).
 * drop_stale_before: 0 if the node before is whole, else 1. */
__attribute__((noinline, cold)) static int take_out_stale(tw_wheel *w, tw_list *head, tw_list *node)
{
    tw_list *stale = node->prev, *m = head;
    for (size_t k = 0; k <= w->pending + 2; k++) {
        tw_list *next = m->next;
        if (!link_usable(next) || next == m)
            break;
        if (next == stale) {
            m->next = node;
            node->prev = m;
            break;
        }
        if (next == head || next->prev != m)
            break;
        m = next;
    }
    salvage_lists(w); /* the cut may hold more than the stale entry */
    return 1;
}

/* The check is inline, on every append; the walk is for damaged lists. */
static inline int drop_stale_before(tw_wheel *w, tw_list *head, tw_list *node)
{
    return node->prev->next == node ? 0 : take_out_stale(w, head, node);
}

/* Whether a salvage keeps node n: one of this wheel's queued timers not
 * kept yet (tagged `old`), which it tags `new` (so that a walk that comes
 * round to it again stops there), or the run of callbacks' mark, once. */
static int keep_node(tw_wheel *w, tw_list *n, uint32_t old, uint32_t new, int *mark_kept)
{
    if (n == w->mark) {
        if (*mark_kept)
            return 0;
        return *mark_kept = 1;
    }
    if (is_head(w, n))
        return 0;
    tw_timer *t = timer_of(n);
    if (t->where == WHERE_IDLE || WHERE_TAG(t->where) != old)
        return 0;
    t->where = new | WHERE_PLACE(t->where);
    return 1;
}

/* Makes list `head` whole: keeps the nodes reachable from the head
 * forwards, then backwards, over usable links that point back, and joins
 * the two runs. Every step keeps a node never kept before, so the walks
 * end. Returns the timers kept. */
static size_t mend_list(tw_wheel *w, tw_list *head, uint32_t new, int *mark_kept)
{
    size_t kept = 0;
    uint32_t old = w->timer_tag;
    tw_list *a = head, *b = head;
    for (;;) {
        tw_list *n = a->next;
        if (n == head) {
            head->prev = a; /* whole forwards: that is the list */
            return kept;
        }
        if (!link_usable(n) || n->prev != a || !keep_node(w, n, old, new, mark_kept))
            break;
        kept += n != w->mark;
        a = n;
    }
    for (;;) {
        tw_list *n = b->prev;
        if (n == head || n == a || !link_usable(n) || n->next != b || !keep_node(w, n, old, new, mark_kept))
            break;
        kept += n != w->mark;
        b = n;
    }
    a->next = b;
    b->prev = a;
    return kept;
}

/* Where a list is found damaged or with stale entries: mends every list
 * (mend_list), counts the queued timers again and gives them a new tag; the
 * timers no list reaches any more (between two stale entries, say) are
 * lost to the wheel, known by their old tag (lost_here). Error path only:
 * it walks every list. */
__attribute__((noinline, cold)) static void salvage_lists(tw_wheel *w)
{
    uint32_t new = w->timer_tag + TAG_STEP;
    int mark_kept = 0;
    size_t n = mend_list(w, &w->expired, new, &mark_kept);
    /* The mark must stay in the expired list, reachable from its head: the
     * run of callbacks stops at it and unlinks it. Linked whole is not
     * enough (it may sit in a run no list reaches); and no other list may
     * keep it. */
    if (w->mark && !mark_kept)
        list_append(&w->expired, w->mark);
    mark_kept = 1;
    n += mend_list(w, &w->visiting, new, &mark_kept);
    for (size_t i = 0; i < w->nslots; i++)
        n += mend_list(w, &w->slots[i], new, &mark_kept);
    w->pending = n;
    w->timer_tag = new;
    w->salvages++;
}

/* A neighbour of a queued timer that does not link back to it looks stale,
 * not damaged: a timer, idle or queued with its links set where it is now
 * (initialised again while queued, and maybe started again, on this wheel
 * or another). */
static int looks_stale(const tw_wheel *w, tw_list *n)
{
    if (!link_usable(n) || is_head(w, n))
        return 0;
    const tw_timer *s = timer_of(n);
    if (s->magic != TW_TIMER_MAGIC)
        return 0;
    if (s->where == WHERE_IDLE)
        return n->next == n && n->prev == n;
    return links_set(s);
}

/* A timer a salvage could not reach (lost_here) is in no list, and no list
 * links to it: it becomes idle. Its old entry was counted out then. */
static void forget_lost(tw_timer *t)
{
    list_init(&t->link);
    t->where = WHERE_IDLE;
}

/* Before queued timer t is unlinked (a stop, a re-arm that moves it): when
 * a neighbour that does not link back to it looks stale, mends the lists
 * first (salvage_lists), so that a healthy timer beside a timer initialised
 * again can still be stopped or moved. Anything else (links unset, or
 * pointing at what is no timer of this wheel) is damage to t itself, which
 * is refused as it is. A timer no list reaches after the mending (between
 * two stale entries) is in none and uncounted: it is made idle. Returns 0
 * if t is then linked whole, 1 if it was made idle, else TW_ECORRUPT.
 * Error path only. */
__attribute__((noinline, cold)) static int mend_around(tw_wheel *w, tw_timer *t)
{
    tw_list *me = &t->link;
    if (!links_set(t))
        return TW_ECORRUPT;
    if (me->prev->next != me && !looks_stale(w, me->prev))
        return TW_ECORRUPT;
    if (me->next->prev != me && !looks_stale(w, me->next))
        return TW_ECORRUPT;
    salvage_lists(w);
    if (WHERE_TAG(t->where) == w->timer_tag && links_ok(t))
        return 0;
    forget_lost(t);
    return 1;
}

/* Appends queued timer t (unlinked, counted) to `head`, after taking out a
 * stale last entry (which salvages the lists). */
static void append_timer(tw_wheel *w, tw_list *head, tw_timer *t)
{
    if (drop_stale_before(w, head, head)) {
        /* Salvaged: t was counted, but in no list during the count, and
         * keeps its place under the new tag. */
        w->pending++;
        if (t->where != WHERE_IDLE)
            t->where = w->timer_tag | WHERE_PLACE(t->where);
    }
    list_append(head, &t->link);
}

/* The checks every call makes on a timer. Its links are checked where they
 * are followed (links_ok before an unlink), so a start that leaves the
 * timer where it is touches only the timer itself. */
static inline int timer_check(const tw_wheel *w, const tw_timer *t)
{
    if (!t)
        return TW_EINVAL;
    if (t->magic != TW_TIMER_MAGIC)
        return TW_ECORRUPT;
    /* An idle timer links to itself (tw_timer_init, every unlink); a queued
     * one never does: a `where` that says otherwise was written over. */
    int alone = t->link.next == &t->link;
    if (t->where == WHERE_IDLE)
        return alone && t->link.prev == &t->link ? 0 : TW_ECORRUPT;
    if (alone)
        return TW_ECORRUPT;
    /* One compare for both: this wheel's tag, and expired or a slot it has
     * (less the tag, `where` - 1 is 0 or 1 + a slot index). */
    if (w && t->where - w->timer_tag - WHERE_EXPIRED > w->nslots) {
        if (WHERE_TAG(t->where) == w->timer_tag)
            return TW_ECORRUPT;
        return lost_here(w, t->where) ? TIMER_LOST : TW_EINVAL; /* else another wheel's */
    }
    return 0;
}

int tw_timer_init(tw_timer *t, tw_callback cb, void *arg)
{
    if (!t || !cb)
        return TW_EINVAL;
    memset(t, 0, sizeof(*t));
    list_init(&t->link);
    t->callback = cb;
    t->arg = arg;
    t->magic = TW_TIMER_MAGIC;
    t->where = WHERE_IDLE;
    return 0;
}

int tw_pending(const tw_timer *t)
{
    int rc = timer_check(NULL, t);
    if (rc < 0)
        return rc;
    if (t->where != WHERE_IDLE && !links_ok(t))
        return TW_ECORRUPT;
    return t->where != WHERE_IDLE;
}

/* Puts t (unlinked) into the slot for its deadline as seen from w->now. */
static int insert(tw_wheel *w, tw_timer *t)
{
    size_t idx;
    if (t->deadline <= w->now) {
        append_timer(w, &w->expired, t);
        t->where = w->timer_tag | WHERE_EXPIRED;
        return 0;
    }
    idx = place(w, t->deadline, w->now);
    append_timer(w, &w->slots[idx], t);
    t->where = w->timer_tag | (WHERE_SLOT0 + (uint32_t)idx);
    if (!slot_armed(w, idx))
        return arm_slot(w, idx, next_visit(w, idx, w->now));
    return 0;
}

/* Validates the call and brings the driver's time up to date. */
static inline int start_prologue(tw_wheel *w, tw_timer *t)
{
    int rc;
    if (!w || !w->slots)
        return TW_EINVAL;
    rc = timer_check(w, t);
    if (rc < 0)
        return rc;
    if (rc == TIMER_LOST)
        forget_lost(t);
    return sync_now(w);
}

/* In real time a start lands somewhere inside tick `now`: deadlines round up
 * by one, so a timer never runs for less than its interval in whole ticks. */
static int deadline_after(const tw_wheel *w, uint64_t ticks, uint64_t *deadline)
{
    uint64_t partial = (w->source != TW_TIME_VIRTUAL && ticks) ? 1 : 0;
    /* w->now can be UINT64_MAX itself (real time held at the end of time):
     * the partial tick is added to the side that cannot wrap. */
    if (ticks > UINT64_MAX - w->now || ticks + partial > UINT64_MAX - w->now)
        return TW_ERANGE;
    *deadline = w->now + ticks + partial;
    return 0;
}

static int start_at(tw_wheel *w, tw_timer *t, uint64_t deadline)
{
    if (WHERE_PLACE(t->where) >= WHERE_SLOT0 && deadline >= t->deadline && !w->coarse_shift) {
        /* Later deadline: the slot's next visit comes no later than the old
         * deadline, and that visit places the timer again. No bus traffic.
         * The timer stays where it is, so only its own links are checked
         * here (the neighbours are other timers' cache lines); the visit
         * checks them whole before it follows them. */
        if (!links_set(t))
            return TW_ECORRUPT;
        t->deadline = deadline;
        w->stats.started++;
        w->stats.lazy_rearms++;
        return 0;
    }
    int mended = t->where != WHERE_IDLE && !links_ok(t) ? mend_around(w, t) : 0;
    if (mended < 0)
        return mended;
    if (t->where != WHERE_IDLE)
        list_unlink(&t->link);
    else
        w->pending++;
    w->stats.started++;
    t->deadline = deadline;
    /* Queued: a failed arm is not the caller's error. need_resync makes the
     * next service, advance or ticks_until_next re-arm it (bus_errors counts). */
    (void)insert(w, t);
    return 0;
}

int tw_start(tw_wheel *w, tw_timer *t, uint64_t ticks)
{
    uint64_t deadline = 0;
    int rc = start_prologue(w, t);
    if (rc == 0)
        rc = deadline_after(w, ticks, &deadline);
    return rc < 0 ? rc : start_at(w, t, coarse_deadline(w, deadline, w->now));
}

/* Does deadline d, placed at time h, fire straight from its slot? Only if
 * it sits on a slot boundary of the level it goes to. */
static int fires_without_cascade(const tw_wheel *w, uint64_t d, uint64_t h)
{
    return visit_at(w, place(w, d, h), d);
}

/* The latest deadline in [lo, hi] that fires straight from its slot: the
 * end of the range rounded down to ever coarser slot boundaries; else hi. */
static uint64_t range_deadline(const tw_wheel *w, uint64_t lo, uint64_t hi)
{
    for (unsigned k = 0; k < w->geo.levels; k++) {
        uint64_t d = hi & ~((UINT64_C(1) << (k * w->geo.slot_bits)) - 1);
        if (d < lo || d <= w->now)
            break;
        if (fires_without_cascade(w, d, w->now))
            return d;
    }
    return hi;
}

int tw_start_range(tw_wheel *w, tw_timer *t, uint64_t min_ticks, uint64_t max_ticks)
{
    uint64_t lo, hi;
    int rc = start_prologue(w, t);
    if (rc < 0)
        return rc;
    if (min_ticks > max_ticks)
        return TW_EINVAL;
    rc = deadline_after(w, min_ticks, &lo);
    if (rc == 0)
        rc = deadline_after(w, max_ticks, &hi);
    if (rc < 0)
        return rc;
    if (t->where != WHERE_IDLE && t->deadline >= lo && t->deadline <= hi) {
        if (!links_set(t))
            return TW_ECORRUPT; /* as a re-arm that leaves it in its slot */
        w->stats.range_kept++;
        return 0;
    }
    return start_at(w, t, range_deadline(w, lo, hi));
}

int tw_stop(tw_wheel *w, tw_timer *t)
{
    int rc;
    if (!w || !w->slots)
        return TW_EINVAL;
    rc = timer_check(w, t);
    if (rc < 0)
        return rc;
    if (rc == TIMER_LOST) {
        forget_lost(t);
        w->stats.stopped++;
        return 1;
    }
    if (t->where == WHERE_IDLE)
        return 0;
    rc = links_ok(t) ? 0 : mend_around(w, t);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        list_unlink(&t->link);
        t->where = WHERE_IDLE;
        w->pending--;
    } /* else in no list any more, uncounted, and idle now */
    w->stats.stopped++;
    return 1;
}

int tw_work_pending(const tw_wheel *w)
{
    if (!w || !w->slots)
        return 0;
    return !list_empty(&w->expired) || visit_pending(w) ||
           (w->source == TW_TIME_VIRTUAL && w->now != w->adv_target);
}

size_t tw_count_pending(const tw_wheel *w)
{
    return w && w->slots ? w->pending : 0;
}

/* ---------------------------------------------------------------- events */

/* One timer of a visited slot idx: fire it if due, else move it to where it
 * now belongs (back to idx if the slot's next visit is still its moment). */
static int visit_one(tw_wheel *w, size_t idx, tw_timer *t)
{
    size_t to = idx;
    list_unlink(&t->link);
    if (t->deadline <= w->now) {
        if (t->deadline < w->now)
            w->stats.late_fires++;
        append_timer(w, &w->expired, t);
        t->where = w->timer_tag | WHERE_EXPIRED;
        return 0;
    }
    /* Exact mode keeps a timer only for a visit at its very deadline;
     * coarse mode keeps it for that visit however many revolutions off
     * it is (at most 2^s + 1 looks, as placed). */
    if (!(w->coarse_shift ? visit_at(w, idx, t->deadline)
                          : next_visit(w, idx, w->now) == t->deadline))
        to = place(w, t->deadline, w->now); /* idx again: a later revolution */
    append_timer(w, &w->slots[to], t);
    if (to == idx)
        return 0;
    w->stats.cascades++;
    t->where = w->timer_tag | (WHERE_SLOT0 + (uint32_t)to);
    return slot_armed(w, to) ? 0 : arm_slot(w, to, next_visit(w, to, w->now));
}

/* Goes on with the slot visit in progress, moving at most w->visit_left
 * timers when visit_batch bounds the call (unbounded if `all`). Returns 1
 * once the visit is finished, 0 if timers are left for the next call. The
 * timers left keep their slot's `where`, so stop and re-arm work on them as
 * on any queued timer; time does not move on until they are seen. */
static int visit_continue(tw_wheel *w, int all, int *rc)
{
    size_t idx = w->visit_idx;
    size_t walked = 0;
    int salvaged = 0;
    while (visit_pending(w)) {
        /* A slot cannot hold more timers than are queued: a longer walk is
         * a list the caller's memory broke (a queued timer initialised
         * again, say), and might never end. The lists are mended once;
         * a second time would be a driver fault, and the visit stops. */
        if (++walked > w->pending + 1) {
            *rc = TW_ECORRUPT;
            if (salvaged++)
                return 1;
            salvage_lists(w);
            walked = 0;
            continue;
        }
        if (!all && w->visit_batch) {
            if (w->visit_left == 0) {
                w->stats.visit_splits++;
                return 0;
            }
            w->visit_left--;
        }
        tw_timer *t = timer_of(w->visiting.next);
        if (!listed_ok(t) || t->link.prev != &w->visiting) {
            /* A queued timer the caller's memory broke (initialised again,
             * or its links overwritten after a re-arm that left it in its
             * slot): reported, and the visit goes on without it if it can
             * be taken out. */
            *rc = TW_ECORRUPT;
            drop_damaged_first(w, &w->visiting, t);
            walked = 0; /* the lists were salvaged, counted again */
            continue;
        }
        /* A visit walks timers spread over the caller's memory, and the
         * check above has already waited for the next one (its link back):
         * fetch the one after it while these two are handled. */
        __builtin_prefetch(t->link.next->next);
        int r = visit_one(w, idx, t);
        if (r < 0)
            *rc = r;
    }
    if (list_empty(&w->slots[idx]) && slot_armed(w, idx)) {
        int r = clear_slot(w, idx);
        if (r < 0)
            *rc = r;
    }
    return 1;
}

/* A visit of slot idx: its timers move to the visit list in one step, so
 * a visit can be spread over calls (visit_batch) while new timers placed
 * in idx wait for its next visit. Returns as visit_continue. */
static int visit_start(tw_wheel *w, size_t idx, int all, int *rc)
{
    tw_list *slot = &w->slots[idx];
    w->visit_idx = idx;
    /* The move writes into the first and last entries: a stale one there
     * is taken out first, and reported. */
    if (drop_stale_before(w, slot, slot))
        *rc = TW_ECORRUPT;
    if (!list_empty(slot) && slot->next->prev != slot) {
        *rc = TW_ECORRUPT;
        drop_damaged_first(w, slot, timer_of(slot->next));
    }
    list_take_all(&w->visiting, slot);
    return visit_continue(w, all, rc);
}

/* A whole visit of slot idx at once: fire what is due, move the rest. */
static int handle_slot(tw_wheel *w, size_t idx)
{
    int rc = 0;
    (void)visit_start(w, idx, 1, &rc);
    return rc;
}

/* Every slot at once, at the chip's present time: the recovery path after a
 * FIFO overflow, a bad event or a bus error. It re-arms every non-empty
 * slot, so whatever the chip missed is reported again. */
static int resync(tw_wheel *w)
{
    size_t idx;
    int rc = 0;
    w->stats.resyncs++;
    w->need_resync = 0;
    if (visit_pending(w))
        (void)visit_continue(w, 1, &rc);
    for (idx = 0; idx < w->nslots; idx++) {
        if (list_empty(&w->slots[idx])) {
            /* The chip's bit is unknown after a failed CLEAR: forget it, so
             * the next timer placed here arms it again. */
            w->armed[idx / 64] &= ~(UINT64_C(1) << (idx % 64));
            continue;
        }
        int r = handle_slot(w, idx);
        if (r == 0 && !list_empty(&w->slots[idx]))
            r = arm_slot(w, idx, next_visit(w, idx, w->now));
        if (r < 0)
            rc = r;
    }
    if (rc < 0)
        w->need_resync = 1;
    return rc;
}

/* Can the chip have reached `tick`? In virtual time, only ticks it was asked
 * for (or may have been: an unconfirmed ADVANCE); in real time, only ticks up
 * to its clock, read again when an event is past the last reading. An event
 * from the future would fire timers early, so it is refused. */
static int tick_reached(tw_wheel *w, uint64_t tick, uint64_t *bound)
{
    uint64_t t;
    if (tick <= *bound)
        return 1;
    if (w->source == TW_TIME_VIRTUAL)
        return 0;
    int rc = read_chip_now(w, &t);
    if (rc < 0)
        return rc;
    *bound = t;
    return tick <= t;
}

/* Goes on with a visit in progress, then reads and handles at most `max`
 * events from the chip's FIFO (UINT_MAX: until it is empty). Returns the
 * number handled. A FIFO that never empties is either a chip outpacing the host (real
 * time: stop here, the next service goes on) or a broken device (virtual
 * time holds the chip on each tick with events, so the bound is generous). */
static int drain_events(tw_wheel *w, unsigned max)
{
    int handled = 0;
    int limit = (int)((2u << w->geo.fifo_log2) * (w->geo.levels + 1) + 16);
    uint64_t bound = w->source == TW_TIME_VIRTUAL ? w->adv_issued + w->adv_unsure : w->now;
    int rc = 0;
    if (visit_pending(w) && !visit_continue(w, 0, &rc))
        return rc < 0 ? rc : 0;
    if (rc < 0)
        return rc;
    for (;;) {
        if ((unsigned)handled >= max)
            return handled; /* as many as STATUS counted: no read to see it empty */
        if (handled >= limit) {
            if (w->source != TW_TIME_VIRTUAL)
                return handled;
            w->stats.bad_events++;
            w->need_resync = 1;
            return TW_EDEVICE;
        }
        uint32_t info, lo;
        rc = reg_read(w, TW_REG_EVT_INFO, &info);
        if (rc < 0)
            return rc;
        if (!TW_GET(TW_EVT_INFO_VALID, info))
            return handled;
        rc = reg_read(w, TW_REG_EVT_TICK, &lo);
        if (rc < 0)
            return rc;
        handled++;
        w->stats.events++;
        unsigned level = TW_GET(TW_EVT_INFO_LEVEL, info);
        uint32_t slot = TW_GET(TW_EVT_INFO_SLOT, info);
        uint64_t tick = extend_tick(w->now, ((uint64_t)TW_GET(TW_EVT_INFO_TICK_HI, info) << 32) | lo);
        int reached = tick_reached(w, tick, &bound);
        if (reached < 0)
            return reached;
        if (level >= w->geo.levels || slot > w->slot_mask || !reached) {
            /* Never used as an index; the event it replaced may be real. */
            w->stats.bad_events++;
            w->need_resync = 1;
            continue;
        }
        if (TW_GET(TW_EVT_INFO_LATE, info))
            w->stats.late_events++;
        if (tick > w->now)
            w->now = tick;
        size_t idx = ((size_t)level << w->geo.slot_bits) | slot;
        if (list_empty(&w->slots[idx]))
            w->stats.empty_events++;
        int done = visit_start(w, idx, 0, &rc);
        if (rc < 0)
            return rc;
        if (!done)
            return handled; /* the rest of the visit is the next call's */
    }
}

/* Runs at most `budget` of the timers that had expired when the call began:
 * a mark ends the batch, so a timer a callback starts again with 0 ticks
 * waits for the next call, and a callback that always does cannot keep one
 * call running. Returns how many ran, or TW_ECORRUPT for a damaged timer
 * (taken out of the list, see drop_damaged_first). */
static int run_callbacks(tw_wheel *w, unsigned budget)
{
    unsigned ran = 0;
    tw_list batch_end;
    int rc = 0;
    if (list_empty(&w->expired))
        return 0;
    /* Damage done since the last run (a timer initialised again, say):
     * mended before the mark goes in, reported; the others run at the
     * next call. */
    tw_timer *first = timer_of(w->expired.next);
    int damaged = first->link.prev != &w->expired || !listed_ok(first);
    if (damaged)
        drop_damaged_first(w, &w->expired, first);
    if (drop_stale_before(w, &w->expired, &w->expired) || damaged)
        return TW_ECORRUPT;
    list_append(&w->expired, &batch_end);
    w->mark = &batch_end;
    w->in_callbacks = 1;
    while (ran < budget && w->expired.next != &batch_end) {
        tw_timer *t = timer_of(w->expired.next);
        if (!listed_ok(t) || t->link.prev != &w->expired) {
            /* Reported; the other timers run at the next call. */
            drop_damaged_first(w, &w->expired, t);
            rc = TW_ECORRUPT;
            break;
        }
        list_unlink(&t->link);
        t->where = WHERE_IDLE;
        w->pending--;
        w->stats.fired++;
        ran++;
        t->callback(t, w->now, t->arg);
    }
    /* A callback may have initialised again a timer next to the mark:
     * take it out (reported) before the unlink writes into it. */
    int stale_after = batch_end.next != &w->expired && batch_end.next->prev != &batch_end;
    if (stale_after)
        drop_damaged_first(w, &batch_end, timer_of(batch_end.next));
    if (drop_stale_before(w, &w->expired, &batch_end) || stale_after)
        rc = TW_ECORRUPT;
    w->mark = NULL;
    list_unlink(&batch_end);
    w->in_callbacks = 0;
    return rc < 0 ? rc : (int)ran;
}

/* What a STATUS reading says went wrong: a FIFO count the FIFO cannot hold,
 * or an overflow (in virtual time too: late arms after a failed call can
 * fill the FIFO), each swept from the driver's own records. */
static int status_faults(tw_wheel *w, uint32_t st)
{
    int rc;
    if (TW_GET(TW_STATUS_FIFO_COUNT, st) > (1u << w->geo.fifo_log2)) {
        w->stats.bad_events++;
        w->need_resync = 1;
    }
    if (TW_GET(TW_STATUS_OVERFLOW, st)) {
        w->stats.overflows++;
        /* Clear first: anything dropped after this shows up as a new overflow. */
        rc = reg_write(w, TW_REG_STATUS, TW_STATUS_OVERFLOW_MASK);
        if (rc < 0)
            return rc;
        w->need_resync = 1;
    }
    return 0;
}

/* Real time: notice an overflow and rebuild from the driver's own records. */
static int check_status(tw_wheel *w)
{
    uint32_t st;
    int rc = reg_read(w, TW_REG_STATUS, &st);
    return rc < 0 ? rc : status_faults(w, st);
}

/* The chip state tw_init sets up: clock stopped, bitmap clear, stale events
 * dropped, flags cleared, prescaler, coalescing and search horizon written. */
static int chip_setup(tw_wheel *w)
{
    int rc = reg_write(w, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, 3));
    if (rc == 0)
        rc = reg_write(w, TW_REG_CMD, TW_PUT(TW_CMD_OP, CMD_CLEAR_ALL));
    /* Drop stale events; with the clock stopped no more come (bounded for a
     * broken device that always shows one). */
    for (unsigned n = 0; rc == 0 && n <= (1u << w->geo.fifo_log2) * (w->geo.levels + 1); n++) {
        uint32_t info, lo;
        rc = reg_read(w, TW_REG_EVT_INFO, &info);
        if (rc < 0 || !TW_GET(TW_EVT_INFO_VALID, info))
            break;
        rc = reg_read(w, TW_REG_EVT_TICK, &lo);
    }
    if (rc == 0)
        rc = reg_write(w, TW_REG_STATUS, TW_STATUS_OVERFLOW_MASK | TW_STATUS_HOLD_MASK |
                                             TW_STATUS_CMD_ERR_MASK);
    if (rc == 0)
        rc = reg_write(w, TW_REG_PRESCALE, w->prescale);
    if (rc == 0)
        rc = reg_write(w, TW_REG_COALESCE, w->coalesce);
    w->horizon = UINT32_MAX;
    if (rc == 0)
        rc = reg_write(w, TW_REG_SEARCH, w->horizon);
    return rc;
}

/* Polls of STATUS while the chip jumps an empty stretch of virtual time: a
 * next-busy search over an empty bitmap and one jump, two cycles a read. */
static unsigned jump_polls(const tw_wheel *w)
{
    return w->geo.levels * ((1u << w->geo.slot_bits) / 2 + 2) + 16;
}

/* Polls STATUS until ADVANCE has no ticks left; TW_ETIMEDOUT after
 * max_polls reads that find it still advancing. */
static int wait_advance_out(tw_wheel *w, unsigned max_polls)
{
    uint32_t st;
    for (unsigned polls = 0;; polls++) {
        int rc = reg_read(w, TW_REG_STATUS, &st);
        if (rc < 0 || !TW_GET(TW_STATUS_ADVANCING, st))
            return rc;
        if (polls > max_polls)
            return TW_ETIMEDOUT;
    }
}

/* The chip was reset (its time went back, its CTRL lost what tw_init wrote,
 * or virtual time ended somewhere else than asked): set it up again, run its
 * clock forward in virtual time to the driver's last confirmed time, and
 * re-arm every slot that holds a timer. Every visit after w->now is armed
 * again, so none is lost; ticks a real-time chip missed while it was down are
 * gone, and timers due in them fire late (counted in late_fires). */
static int rebuild_chip(tw_wheel *w)
{
    uint32_t ctrl = 0;
    uint64_t t;
    int rc;
    w->need_resync = 1;
    memset(w->armed, 0, (w->nslots + 63) / 64 * sizeof(uint64_t));
    w->arm_hi_known = 0;
    /* A chip whose CTRL is as tw_init wrote it was not reset (a bad
     * reading of its time, or virtual time that ended elsewhere): its
     * counter never went back, so a time ahead of the driver's stands. */
    rc = reg_read(w, TW_REG_CTRL, &ctrl);
    int kept = rc == 0 && ctrl == w->ctrl;
    /* A chip that came back as something else, or as another build (another
     * geometry), cannot hold this wheel's slots: refused until it is the
     * same again. */
    uint32_t id = 0, caps = 0;
    if (rc == 0)
        rc = reg_read(w, TW_REG_ID, &id);
    if (rc == 0)
        rc = reg_read(w, TW_REG_CAPS, &caps);
    if (rc == 0 && (id != TW_ID_MAGIC || TW_GET(TW_CAPS_LEVELS, caps) != w->geo.levels ||
                    TW_GET(TW_CAPS_SLOT_BITS, caps) != w->geo.slot_bits ||
                    TW_GET(TW_CAPS_FIFO_LOG2, caps) != w->geo.fifo_log2))
        rc = TW_ENODEV;
    if (rc == 0)
        rc = chip_setup(w);
    if (rc == 0)
        rc = reg_write(w, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, TW_TIME_VIRTUAL));
    /* At most 2^48 / ADVANCE_CHUNK jumps, each over an empty bitmap. */
    for (unsigned jumps = 0; rc == 0; jumps++) {
        rc = read_chip_now(w, &t);
        if (rc < 0)
            break;
        uint64_t behind = (w->now - t) & TICK_MASK;
        if (behind == 0)
            break;
        if (kept && t > w->now) {
            /* Running it forward to w->now would take it round the whole
             * 48-bit counter. Timers due before t fire at once, late. In
             * virtual time a chip past what it was asked for is broken. */
            if (w->source == TW_TIME_VIRTUAL && t > w->adv_issued + w->adv_unsure) {
                rc = TW_EDEVICE;
                break;
            }
            w->now = t;
            break;
        }
        if (jumps > (TICK_MASK / ADVANCE_CHUNK) + 2) {
            rc = TW_ETIMEDOUT;
            break;
        }
        rc = reg_write(w, TW_REG_ADVANCE, (uint32_t)(behind < ADVANCE_CHUNK ? behind : ADVANCE_CHUNK));
        if (rc == 0)
            rc = wait_advance_out(w, jump_polls(w));
    }
    if (rc < 0)
        return rc; /* chip_reset stays set: the next call tries again */
    w->adv_issued = w->now;
    w->adv_unsure = 0;
    rc = resync(w);
    if (rc == 0)
        rc = reg_write(w, TW_REG_CTRL, w->ctrl);
    /* Done only once CTRL is back; a reset while this ran would undo part
     * of it, and then the chip's time has gone back. */
    if (rc == 0) {
        w->chip_reset = 0;
        rc = sync_now(w);
    }
    if (rc == 0 && w->chip_reset)
        rc = TW_EDEVICE; /* the next call rebuilds again */
    if (rc < 0)
        w->need_resync = 1;
    return rc;
}

/* Virtual time: a failed call can leave the driver behind the chip, which
 * holds on a tick whose events were not all read. The sweep then goes at the
 * chip's time: from the driver's, it would arm visits the chip has passed,
 * each reported at once, enough of them to overflow the FIFO again. */
static int sync_virtual_now(tw_wheel *w)
{
    uint64_t t;
    if (w->chip_reset)
        return 0;
    int rc = read_chip_now(w, &t);
    if (rc < 0)
        return rc;
    if (t < w->now || t > w->adv_issued + w->adv_unsure)
        chip_lost(w); /* gone back, or past what it was asked for */
    else
        w->now = t;
    return 0;
}

static int recover_if_needed(tw_wheel *w)
{
    int rc;
    if (!w->need_resync && !w->chip_reset)
        return 0;
    rc = w->source == TW_TIME_VIRTUAL ? sync_virtual_now(w) : sync_now(w);
    if (rc == 0 && w->chip_reset)
        return rebuild_chip(w);
    if (rc == 0)
        rc = resync(w);
    return rc;
}

/* Real time: a chip that was reset has stopped ticking, cleared its bitmap
 * and masked its interrupt, so it would never report another timer. Its
 * CTRL no longer reads what tw_init wrote, and its time has gone back. */
static int check_alive(tw_wheel *w)
{
    uint32_t ctrl;
    int rc = reg_read(w, TW_REG_CTRL, &ctrl);
    if (rc < 0)
        return rc;
    if (ctrl != w->ctrl)
        chip_lost(w);
    rc = sync_now(w);
    if (rc == 0 && w->chip_reset)
        rc = rebuild_chip(w);
    return rc;
}

int tw_service(tw_wheel *w, unsigned budget)
{
    int rc;
    if (!w || !w->slots || budget == 0)
        return TW_EINVAL;
    if (w->in_callbacks)
        return TW_ESTATE;
    w->visit_left = w->visit_batch;
    if (w->source != TW_TIME_VIRTUAL) {
        rc = check_alive(w);
        if (rc == 0)
            rc = check_status(w);
        if (rc < 0)
            return rc;
    }
    rc = drain_events(w, UINT_MAX);
    if (rc < 0)
        return rc;
    rc = recover_if_needed(w);
    if (rc < 0)
        return rc;
    return run_callbacks(w, budget);
}

/* Virtual time, the chip stopped: is it where the driver sent it? A chip
 * that was reset is elsewhere; an ADVANCE write whose answer was lost may or
 * may not have happened, and the chip's time tells which. Returns 1 if the
 * chip had to be rebuilt (w->now is then the last confirmed time). */
static int confirm_advanced(tw_wheel *w)
{
    uint64_t t;
    int rc = read_chip_now(w, &t);
    if (rc < 0)
        return rc;
    if (w->adv_unsure && t == w->adv_issued + w->adv_unsure)
        w->adv_issued = t;
    w->adv_unsure = 0;
    if (t == w->adv_issued)
        return 0;
    chip_lost(w);
    rc = rebuild_chip(w);
    return rc < 0 ? rc : 1;
}

/* Rounds of a tw_advance call that may pass while time stands still: the
 * events of one tick, one drain or interrupt each at most, with the room of
 * drain_events's own bound. Past it the chip is repeating itself. */
static unsigned stall_limit(const tw_wheel *w)
{
    return (2u << w->geo.fifo_log2) * (w->geo.levels + 1) + 16;
}

/* One more round at w->now; true once too many have passed there. The
 * count starts again wherever time has moved, by whatever path. */
static int stalled(const tw_wheel *w, uint64_t *at, unsigned *rounds)
{
    if (w->now != *at) {
        *at = w->now;
        *rounds = 0;
    }
    return ++*rounds > stall_limit(w);
}

int tw_advance(tw_wheel *w, uint64_t ticks, unsigned budget)
{
    unsigned ran = 0, rebuilds = 0, phantom_counts = 0, stalls = 0;
    uint64_t slice = ADVANCE_SLICE_MIN, waited = 0, stall_now;
    int rc;
    if (!w || !w->slots || budget == 0)
        return TW_EINVAL;
    if (w->source != TW_TIME_VIRTUAL || w->in_callbacks)
        return TW_ESTATE;
    if (ticks > UINT64_MAX - w->adv_target)
        return TW_ERANGE;
    w->adv_target += ticks;
    w->visit_left = w->visit_batch;
    stall_now = w->now;

    for (;;) {
        rc = run_callbacks(w, budget - ran);
        if (rc < 0)
            return rc;
        ran += (unsigned)rc;
        if (!list_empty(&w->expired)) {
            if (ran == budget)
                return (int)ran; /* budget spent: the chip holds at w->now */
            continue;            /* started again with 0 ticks: due now too */
        }

        if (visit_pending(w)) {
            rc = 0;
            int done = visit_continue(w, 0, &rc);
            if (rc < 0)
                return rc;
            if (!done) { /* visit_batch spent: the chip holds at w->now */
                rc = run_callbacks(w, budget - ran);
                return rc < 0 ? rc : (int)ran + rc;
            }
            continue;
        }
        rc = recover_if_needed(w);
        if (rc < 0)
            return rc;
        if (!list_empty(&w->expired))
            continue;

        /* STATUS first: its FIFO count says how many events to read, so
         * neither an empty FIFO nor the end of a full one costs a read. */
        uint32_t st;
        rc = reg_read(w, TW_REG_STATUS, &st);
        if (rc == 0)
            rc = status_faults(w, st);
        if (rc < 0)
            return rc;
        if (w->need_resync) {
            /* Swept at the top of the loop; a STATUS that asks for it again
             * and again without time moving is broken. */
            if (stalled(w, &stall_now, &stalls))
                return TW_EDEVICE;
            continue;
        }
        if (TW_GET(TW_STATUS_FIFO_COUNT, st) != 0) {
            rc = drain_events(w, TW_GET(TW_STATUS_FIFO_COUNT, st));
            if (rc < 0)
                return rc;
            /* A count with no event behind it, again and again, or events
             * that never move time on (the same one shown for ever): broken. */
            if ((rc == 0 && ++phantom_counts > 16) || stalled(w, &stall_now, &stalls)) {
                w->stats.bad_events++;
                w->need_resync = 1;
                return TW_EDEVICE;
            }
            continue;
        }
        if (TW_GET(TW_STATUS_HOLD, st)) {
            /* Every expiry of this tick has run: let time go on. */
            rc = reg_write(w, TW_REG_STATUS, TW_STATUS_HOLD_MASK);
            if (rc < 0)
                return rc;
        }
        if (!TW_GET(TW_STATUS_ADVANCING, st)) {
            /* Every tick asked for is taken and handled: the chip should be
             * there. Checked whenever ticks were asked for since the last
             * check (an event on the last tick already showed it there). */
            if (w->now != w->adv_issued || w->adv_unsure) {
                rc = confirm_advanced(w);
                if (rc < 0)
                    return rc;
                if (rc > 0) {
                    /* A chip that keeps losing its time is broken, not reset. */
                    if (++rebuilds > 2)
                        return TW_EDEVICE;
                    continue;
                }
            }
            w->now = w->adv_issued;
            if (w->adv_issued == w->adv_target)
                return (int)ran;
            uint64_t chunk = w->adv_target - w->adv_issued;
            if (chunk > ADVANCE_CHUNK)
                chunk = ADVANCE_CHUNK;
            rc = reg_write(w, TW_REG_ADVANCE, (uint32_t)chunk);
            if (rc < 0) {
                w->adv_unsure = chunk;
                return rc;
            }
            w->adv_issued += chunk;
            slice = ADVANCE_SLICE_MIN;
            waited = 0;
        }
        /* At worst one tick per clock, and usually far less: the chip skips
         * empty stretches in a search (tens of clocks) and a jump. So wait in
         * growing slices, and look at STATUS in between; waiting longer than
         * one clock a tick, with nothing happening, means the chip stopped. */
        uint64_t left = w->adv_issued - w->now + 4;
        rc = tw_dev_wait_irq(w->dev, slice < left ? slice : left);
        if (rc < 0)
            return rc;
        if (rc > 0) {
            /* An interrupt that time never follows: a line stuck high on a
             * chip that stopped. */
            if (stalled(w, &stall_now, &stalls))
                return TW_ETIMEDOUT;
            slice = ADVANCE_SLICE_MIN;
            waited = 0;
            continue;
        }
        waited += slice < left ? slice : left;
        if (waited > 2 * left + 4 * ADVANCE_SLICE_MAX)
            return TW_ETIMEDOUT;
        if (slice < ADVANCE_SLICE_MAX)
            slice *= 2;
    }
}

int tw_advance_to(tw_wheel *w, uint64_t tick, unsigned budget)
{
    if (!w || !w->slots)
        return TW_EINVAL;
    if (w->source != TW_TIME_VIRTUAL || w->in_callbacks)
        return TW_ESTATE; /* as tw_advance says, whatever the tick */
    if (tick < w->adv_target)
        return TW_EINVAL; /* time never goes back */
    return tw_advance(w, tick - w->adv_target, budget);
}

/* Polls of STATUS before the search must be done: two searches of the
 * documented bound LEVELS * (2^b / min(16, 2^b) + 1) + 1 cycles (one running
 * may end on the present tick and start again), at two cycles a read. */
static unsigned search_polls(const tw_wheel *w)
{
    unsigned slots = 1u << w->geo.slot_bits;
    unsigned per_cycle = slots < 16 ? slots : 16;
    return w->geo.levels * (slots / per_cycle + 1) + 1 + 4;
}

int tw_ticks_until_next(tw_wheel *w, uint64_t cap, uint64_t *ticks)
{
    uint32_t st = 0, lo, hi, horizon;
    unsigned polls;
    int rc;
    if (!w || !w->slots || !ticks)
        return TW_EINVAL;
    *ticks = 0;
    rc = recover_if_needed(w); /* the chip's answer must cover every timer */
    if (rc < 0)
        return rc;
    if (!list_empty(&w->expired) || visit_pending(w))
        return 0; /* callbacks or a visit's timers are due now */
    rc = sync_now(w);
    if (rc == 0 && w->chip_reset)
        rc = rebuild_chip(w);
    if (rc < 0)
        return rc;
    if (!list_empty(&w->expired))
        return 0;
    horizon = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    if (horizon != w->horizon) {
        rc = reg_write(w, TW_REG_SEARCH, horizon);
        if (rc < 0)
            return rc;
        w->horizon = horizon;
    }
    for (polls = 0;; polls++) {
        rc = reg_read(w, TW_REG_STATUS, &st);
        if (rc < 0)
            return rc;
        if (TW_GET(TW_STATUS_FIFO_COUNT, st) != 0)
            return 0; /* events are waiting: there is work now */
        if (!TW_GET(TW_STATUS_SEARCHING, st))
            break;
        if (polls > search_polls(w))
            return TW_ETIMEDOUT;
    }
    rc = reg_read(w, TW_REG_NEXT_LO, &lo);
    if (rc == 0)
        rc = reg_read(w, TW_REG_NEXT_HI, &hi);
    if (rc < 0)
        return rc;
    if (hi > 0xFFFFu)
        return TW_EDEVICE;
    uint64_t next = extend_tick(w->now, ((uint64_t)hi << 32) | lo);
    /* The chip may have moved on since w->now was read: never less than 0. */
    *ticks = next > w->now ? next - w->now : 0;
    if (*ticks > cap)
        *ticks = cap;
    return 0;
}

int tw_now(tw_wheel *w, uint64_t *now)
{
    int rc;
    if (!w || !now || !w->slots)
        return TW_EINVAL;
    rc = sync_now(w);
    if (rc < 0)
        return rc;
    *now = w->now;
    return 0;
}

/* ------------------------------------------------------------------ init */

int tw_probe(tw_dev *dev, tw_geometry *geo)
{
    uint32_t id, version, caps;
    int rc;
    if (!dev || !geo)
        return TW_EINVAL;
    rc = tw_dev_read(dev, TW_REG_ID, &id); /* TW_ENODEV if the device was closed */
    if (rc < 0)
        return rc;
    if (id != TW_ID_MAGIC)
        return TW_ENODEV;
    rc = tw_dev_read(dev, TW_REG_VERSION, &version);
    if (rc == 0)
        rc = tw_dev_read(dev, TW_REG_CAPS, &caps);
    if (rc < 0)
        return rc;
    if (TW_GET(TW_VERSION_MAJOR, version) != TW_VERSION_MAJOR)
        return TW_ENODEV;
    geo->levels = TW_GET(TW_CAPS_LEVELS, caps);
    geo->slot_bits = TW_GET(TW_CAPS_SLOT_BITS, caps);
    geo->fifo_log2 = TW_GET(TW_CAPS_FIFO_LOG2, caps);
    geo->tick_bits = TW_GET(TW_CAPS_TICK_BITS, caps);
    if (geo->levels < 1 || geo->levels > 4 || geo->slot_bits < 2 || geo->slot_bits > 12 ||
        geo->levels * geo->slot_bits > 44 || geo->fifo_log2 < 1 || geo->fifo_log2 > 12 ||
        geo->tick_bits != 48)
        return TW_EDEVICE;
    return 0;
}

size_t tw_mem_size(const tw_geometry *geo)
{
    size_t nslots;
    if (!geo || geo->levels < 1 || geo->levels > 4 || geo->slot_bits < 2 || geo->slot_bits > 12)
        return 0;
    nslots = (size_t)geo->levels << geo->slot_bits;
    return nslots * sizeof(tw_list) + (nslots + 63) / 64 * sizeof(uint64_t);
}

/* Counts tw_init calls, so that a wheel initialised again (after a failure,
 * say) gets a new tag: the timers it had queued, which its new lists no
 * longer hold, are then refused as another wheel's rather than re-armed in
 * place and lost. Atomic: wheels may be initialised on several threads. */
#ifndef __STDC_NO_ATOMICS__
static _Atomic uint_least32_t wheel_inits;
#else
static uint_least32_t wheel_inits;
#endif

/* The high half of a queued timer's `where` (timer_check): a hash of the
 * wheel's address and its memory's, so that two wheels share one only by
 * chance (one pair in 65,536), plus the count of initialisations, so that
 * the same wheel's next 65,535 lives each have a tag of their own. */
static uint32_t wheel_tag(const tw_wheel *w, const void *mem)
{
    uint64_t h = ((uint64_t)(uintptr_t)w ^ ((uint64_t)(uintptr_t)mem << 1)) * UINT64_C(0x9E3779B97F4A7C15);
    uint32_t life = (uint32_t)wheel_inits++;
    return (((uint32_t)(h >> 48) + life) & 0xFFFFu) << 16;
}

/* A host that stopped in the middle of an ADVANCE (killed inside
 * tw_advance) leaves ticks that the chip takes as soon as its source is 0
 * again. With the bitmap clear they make no events: run them out now, so
 * the chip's time is where this wheel starts and stays. */
static int finish_stale_advance(tw_wheel *w)
{
    uint32_t left;
    int rc = reg_read(w, TW_REG_ADVANCE, &left);
    if (rc < 0 || left == 0)
        return rc;
    rc = reg_write(w, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, TW_TIME_VIRTUAL));
    /* At most 2^32 ticks over an empty bitmap: two jumps of the horizon. */
    if (rc == 0)
        rc = wait_advance_out(w, 3 * jump_polls(w));
    if (rc == 0)
        rc = reg_write(w, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, 3));
    return rc;
}

int tw_init(tw_wheel *w, tw_dev *dev, void *mem, size_t mem_size, const tw_config *cfg)
{
    tw_geometry geo;
    size_t i;
    int rc;
    if (!w)
        return TW_EINVAL;
    w->slots = NULL; /* until tw_init succeeds, every call refuses the wheel */
    if (!dev || !mem || !cfg || cfg->source > TW_TIME_EXTERNAL || cfg->coarse_shift > 16)
        return TW_EINVAL;
    if ((uintptr_t)mem % _Alignof(tw_list) != 0)
        return TW_EINVAL;
    rc = tw_probe(dev, &geo);
    if (rc < 0)
        return rc;
    if (mem_size < tw_mem_size(&geo))
        return TW_ENOMEM;

    memset(w, 0, sizeof(*w));
    w->dev = dev;
    w->geo = geo;
    w->timer_tag = wheel_tag(w, mem);
    w->source = cfg->source;
    w->coarse_shift = cfg->coarse_shift;
    w->slot_mask = (1u << geo.slot_bits) - 1;
    w->nslots = (size_t)geo.levels << geo.slot_bits;
    w->slots = mem;
    w->armed = (uint64_t *)(w->slots + w->nslots);
    for (i = 0; i < w->nslots; i++)
        list_init(&w->slots[i]);
    memset(w->armed, 0, (w->nslots + 63) / 64 * sizeof(uint64_t));
    list_init(&w->expired);
    list_init(&w->visiting);
    w->visit_batch = cfg->visit_batch;

    w->ctrl = TW_PUT(TW_CTRL_TICK_SRC, cfg->source) | TW_CTRL_IRQ_EN_MASK |
              (cfg->source == TW_TIME_VIRTUAL ? TW_CTRL_VHOLD_MASK : 0);
    w->prescale = cfg->prescale;
    w->coalesce = TW_PUT(TW_COALESCE_THRESH, cfg->irq_threshold) |
                  TW_PUT(TW_COALESCE_HOLDOFF, cfg->irq_holdoff);

    /* Stop the clock, forget old state, then start the chosen source. */
    rc = chip_setup(w);
    if (rc == 0)
        rc = finish_stale_advance(w);
    if (rc == 0) {
        /* 64-bit time: the epoch above the chip's 48-bit counter. */
        w->now = 0;
        rc = read_chip_now(w, &w->now);
        w->now = ((uint64_t)cfg->epoch << 48) | (w->now & TICK_MASK);
    }
    if (rc == 0) {
        w->adv_target = w->adv_issued = w->now;
        w->stats = (tw_stats){0};
        w->need_resync = 0;
        rc = tw_dev_write(dev, TW_REG_CTRL, w->ctrl);
    }
    if (rc < 0)
        w->slots = NULL; /* not a wheel: every later call refuses it */
    return rc;
}
