/* Cycle-exact C twin of rtl/tw_search.v (tw_search_model.h). */
#include "tw_search_model.h"

#include <string.h>

#define TICK_MASK ((UINT64_C(1) << 48) - 1)

static unsigned slots_a_word_log2(unsigned b) { return b < 4 ? b : 4u; }
static unsigned slots_a_word(unsigned b) { return 1u << slots_a_word_log2(b); }
static unsigned words_a_level(unsigned b) { return (1u << b) / slots_a_word(b); }

/* Level k's scan as the module reads it: word i (0 .. NW) is word
 * (w0 + i) mod NW, the first masked to the slots from q on, the last (the
 * first again) to those below q. Returns the first word with a hit (NW + 1
 * if none) and its offset 1 .. 2^b from the pointer in *offset. Every
 * search start runs it on each level, so SW and NW, powers of two, are
 * used as masks rather than divisors. */
static unsigned scan_level(unsigned b, unsigned q, const uint16_t *words, unsigned *offset)
{
    unsigned sw = slots_a_word(b), nw = words_a_level(b);
    unsigned qb = q & (sw - 1u), w0 = q >> slots_a_word_log2(b);
    uint32_t all = (UINT32_C(1) << sw) - 1u;
    uint32_t from_q = (all << qb) & all;
    uint32_t hits = words[w0] & from_q;
    unsigned i = 0;
    while (!hits && ++i < nw)
        hits = words[(w0 + i) & (nw - 1u)] & all;
    if (!hits)
        hits = words[w0] & ~from_q & all; /* i == nw: the first word again */
    if (!hits)
        return nw + 1;
    *offset = i * sw + (unsigned)__builtin_ctz(hits) - qb + 1;
    return i;
}

/* Works out a search: T, each level's first address clock and word, the answer. */
static uint32_t plan(unsigned levels, unsigned b, uint64_t base, tw_search_words words,
                     uint32_t *level_start, unsigned *first_word, int *found, uint64_t *next)
{
    unsigned nw = words_a_level(b), sw = slots_a_word(b);
    uint64_t best = 0;
    int any = 0;
    uint32_t s = 1;
    for (unsigned k = 0; k < levels; k++) {
        unsigned shift = k * b;
        unsigned q = (unsigned)((base >> shift) + 1) & ((1u << b) - 1);
        unsigned offset = 0;
        unsigned h = scan_level(b, q, words[k], &offset);
        uint32_t cost = nw + 1;
        if (h <= nw) {
            uint64_t d = ((uint64_t)offset << shift) - (base & ((UINT64_C(1) << shift) - 1));
            if (!any || d < best)
                best = d;
            any = 1;
            if (h + 5 < cost)
                cost = h + 5;
        }
        if (level_start)
            level_start[k] = s;
        if (first_word)
            first_word[k] = q / sw;
        s += cost;
    }
    if (level_start)
        level_start[levels] = s;
    if (found)
        *found = any;
    if (next)
        *next = any ? (base + best) & TICK_MASK : 0;
    return s + 11;
}

int tw_search_model_init(struct tw_search_model *m, unsigned levels, unsigned slot_bits)
{
    if (levels < 1 || levels > TW_SEARCH_MAX_LEVELS || slot_bits < 2 || slot_bits > 12 ||
        levels * slot_bits > 44)
        return -1;
    memset(m, 0, sizeof *m);
    m->levels = levels;
    m->slot_bits = slot_bits;
    return 0;
}

void tw_search_model_step(struct tw_search_model *m, int start, uint64_t base, tw_search_words words)
{
    if (start) {
        m->t_valid = plan(m->levels, m->slot_bits, base, words, m->level_start, m->first_word,
                          &m->found_plan, &m->next_plan);
        m->started = 1;
        m->t = 1;
    } else if (m->started && m->t < UINT32_MAX) {
        m->t++;
    }
    if (!m->started)
        return;
    /* The answer is registered once, at T; it stands until the next one. */
    m->valid = m->t >= m->t_valid;
    if (m->t == m->t_valid) {
        m->found = m->found_plan;
        m->next = m->next_plan;
    }
    /* The word address of the level in turn; 0 once the last level is left. */
    m->waddr = 0;
    for (unsigned k = 0; k < m->levels; k++)
        if (m->t >= m->level_start[k] && m->t < m->level_start[k + 1])
            m->waddr = (m->first_word[k] + (m->t - m->level_start[k])) & (words_a_level(m->slot_bits) - 1u);
}

uint32_t tw_search_model_clocks(unsigned levels, unsigned slot_bits, uint64_t base, tw_search_words words,
                                int *found, uint64_t *next)
{
    return plan(levels, slot_bits, base, words, NULL, NULL, found, next);
}

uint32_t tw_search_model_worst_clocks(unsigned levels, unsigned slot_bits)
{
    return 12 + levels * (words_a_level(slot_bits) + 1);
}
