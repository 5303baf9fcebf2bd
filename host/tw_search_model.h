/* Cycle-exact C twin of rtl/tw_search.v, the next-busy search's word scan.
 *
 * The model gives, clock for clock, what the module's outputs show: o_valid,
 * o_found, o_next and o_waddr (every level's lane shows the same address).
 * Timing, from the clock of i_start (clock 0): o_valid is low from clock 1
 * and rises at clock T = 12 + sum over levels of C_k, with
 * C_k = min(h_k + 5, NW + 1): NW = 2^b / SW words of SW = min(16, 2^b) slots
 * a level, h_k the index (0..NW) of level k's first scanned word with a busy
 * slot (none: C_k = NW + 1). rtl/tw_search.v's header has the details.
 *
 * The bitmaps are read in the start's clock: the module reads them during the
 * search, which gives the same answer because they do not change during a
 * search (the core restarts it after every bitmap write). A write in the
 * clock of i_start is seen by both. */
#ifndef TW_SEARCH_MODEL_H
#define TW_SEARCH_MODEL_H

#include <stdint.h>

#define TW_SEARCH_MAX_LEVELS 4

struct tw_search_model {
    unsigned levels, slot_bits;
    /* outputs, as in the clock after the last tw_search_model_step() */
    int      valid, found;
    uint64_t next;
    unsigned waddr;
    /* the search under way */
    int      started;                  /* a search was started since reset */
    uint32_t t;                        /* clocks since its start (saturating) */
    uint32_t t_valid;                  /* the clock o_valid rises, T */
    uint32_t level_start[TW_SEARCH_MAX_LEVELS + 1]; /* level k's first address clock */
    unsigned first_word[TW_SEARCH_MAX_LEVELS];
    int      found_plan;               /* the answer it will give at T */
    uint64_t next_plan;
};

/* Bitmap words as the search ports give them: words[k][w] holds level k's
 * slots w * SW .. w * SW + SW - 1, bit i slot w * SW + i. */
typedef const uint16_t *const tw_search_words[TW_SEARCH_MAX_LEVELS];

/* The state after reset (1 <= levels <= 4, 2 <= slot_bits <= 12,
 * levels * slot_bits <= 44). Returns 0, or -1 for a geometry out of range. */
int tw_search_model_init(struct tw_search_model *m, unsigned levels, unsigned slot_bits);
/* One clock edge with the module's inputs of that clock: start (i_start),
 * base (i_base, read with start) and the bitmaps (read with start). */
void tw_search_model_step(struct tw_search_model *m, int start, uint64_t base, tw_search_words words);
/* T for a search from base over these bitmaps, and its answer (found, next:
 * either may be NULL). */
uint32_t tw_search_model_clocks(unsigned levels, unsigned slot_bits, uint64_t base, tw_search_words words,
                                int *found, uint64_t *next);
/* The longest search of a geometry: 12 + levels * (2^b / SW + 1). */
uint32_t tw_search_model_worst_clocks(unsigned levels, unsigned slot_bits);

#endif
