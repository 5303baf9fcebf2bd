/* tickwheel C model: a cycle-accurate copy of rtl/tw_core.v (the pipelined
 * core) with rtl/tw_bitmap.v, rtl/tw_evfifo.v and, through its own twin
 * host/tw_search_model.c, rtl/tw_search.v.
 *
 * struct tw_flops holds the chip's flops; the bitmaps, the FIFO's memory and
 * the entry delay RAM are beside it. tw_model_edge() computes one rising
 * clock edge the way the always blocks do: every right-hand side reads the
 * state from before the edge (the struct is copied, the copy updated), then
 * the block RAMs are written and the search steps. A few flops are kept in
 * a reduced form that gives the same values wherever they are read: the
 * visit port's registered word and bypass as the visited bit it yields
 * (hit_h1), the late check's three sign and borrow flops as its verdict
 * (c_reached), the jump's comparison flags as theirs (j_less), the NEXT
 * stage's 16-bit parts as whole 48-bit sums (n1_gap, n1_end), and of the
 * read multiplexer's three group registers the one the access reads.
 *
 * A register access is driven as sim/tw_vl.cpp drives the Verilated chip:
 * the request held until ack (at most ACK_WAIT_MAX edges), then one idle
 * clock; power-up is the same reset clock and CAPS read. So both backends
 * agree on every read value and on the cycle at which everything happens
 * (docs/chip.md, "Bus and timing contract", gives the clocks).
 *
 * Quiet stretches are cheap. A state is quiet when an idle edge would move
 * no flop but the delay RAM's address and output and nothing but the
 * search's clock count: no tick, command, jump or ADVANCE sum under way and
 * none about to start, everything that follows them settled (time stopped:
 * ADVANCE spent, HOLD, or no tick source). The edge tells whether it was
 * quiet; from a quiet state every idle edge up to the search's answer is
 * quiet too, so waits run in closed form (skip_quiet()), and so do reads,
 * ARM writes and flag-clearing STATUS writes (fast_access()), the driver's
 * STATUS polls among them, an ADVANCE write with none left (fast_access()
 * too, up to the sum's first step), a CMD write with time held together
 * with the access after it (fast_cmd()), and an EVT_TICK read with no step
 * able to start (fast_pop(), the read-out alone stepped) together with the
 * access after it once the read-out settles quiet (settle_pop()). Any other edge is
 * computed whole. Real-time stretches (the prescaler or the external input
 * ticking) are computed edge by edge.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tw_dev.h"
#include "tw_err.h"
#include "tw_regs.h"
#include "tw_search_model.h"

#define TICK_BITS 48u
#define TICK_MASK ((UINT64_C(1) << TICK_BITS) - 1)
#define HALF_MASK ((UINT32_C(1) << 24) - 1)
#define MAX_LEVELS 4u
#define MAX_WORDS 256u   /* 2^12 slots / 16 */
#define ACK_WAIT_MAX 64  /* as sim/tw_vl.cpp */

/* Word addresses, as the RTL decodes i_wb_adr. */
enum {
    ADR_ADVANCE = TW_REG_ADVANCE / 4,
    ADR_CTRL = TW_REG_CTRL / 4,
    ADR_PRESCALE = TW_REG_PRESCALE / 4,
    ADR_STATUS = TW_REG_STATUS / 4,
    ADR_ARM_LO = TW_REG_ARM_LO / 4,
    ADR_ARM_HI = TW_REG_ARM_HI / 4,
    ADR_CMD = TW_REG_CMD / 4,
    ADR_EVT_TICK = TW_REG_EVT_TICK / 4,
    ADR_NOW_LO = TW_REG_NOW_LO / 4,
    ADR_NEXT_LO = TW_REG_NEXT_LO / 4,
    ADR_SEARCH = TW_REG_SEARCH / 4,
    ADR_COALESCE = TW_REG_COALESCE / 4,
};

enum { SRC_HOST = 0, SRC_INT = 1, SRC_EXT = 2 };
enum { OP_SET = 1, OP_CLEAR = 2, OP_CLEAR_ALL = 3 };
enum { A_IDLE = 0, A_SETTLE1 = 1, A_SETTLE2 = 2, A_LO = 3, A_HI = 4, A_FLAG = 5 };

/* One FIFO entry: {tick, visit mask, late arm, arm level, arm slot}. */
typedef struct tw_entry {
    uint64_t tick;
    uint8_t mask, late, level;
    uint16_t slot;
} tw_entry;

/* The entry's tick, level and slot on their way from V to E. */
typedef struct tw_dly {
    uint64_t tick;
    uint8_t lvl;
    uint16_t slot;
} tw_dly;

typedef struct tw_flops {
    /* bus: R and B0 */
    bool pend_q, req_v_q, req_we_q, req_advrd_q;
    uint8_t req_adr_q;
    uint32_t req_dat_q;
    bool acc1_q, acc2_q, o_wb_ack;
    /* B1 strobes */
    bool w_ctrl, w_presc, w_status, w_adv, w_arm_lo, w_arm_hi, w_cmd, w_search, w_coal;
    bool r_acc, r_pop, r_now_lo, r_next_lo, bad_acc;
    bool wop_set, wop_clear, wop_clear_all, wcmd_ok;
    uint8_t wcmd_wr;
    /* control registers */
    uint8_t ctrl_src_q;
    bool ctrl_irq_en_q, ctrl_vhold_q;
    uint32_t presc_q, arm_lo_q, horizon_q;
    uint16_t arm_hi_q, coal_holdoff_q, coal_thresh_q;
    /* step decision, prescaler, ADVANCE */
    bool step_q, room_q, hold_q, fly_q;
    uint8_t cmd_fly_q;
    uint16_t pc_lo_q, pc_hi_q;
    bool pc_borrow_q, reload_q, ptick_q;
    uint8_t ext_q;
    uint16_t adv_lo_q, adv_hi_q;
    bool adv_borrow_q, adv_nz_q, adv_pend_q;
    uint8_t adv_st_q;
    uint16_t adv_add_hi_q;
    bool adv_c_q;
    bool adv_sat_q; /* A_HI's sum passed 2^32 - 1: A_FLAG saturates */
    uint32_t j_amt_q;
    /* counter: C1, C2, P */
    uint32_t lo_q, hi_q, lo_d_q, lo_add_q;
    bool carry_q, step_c_q, step_p_q;
    uint8_t zero_p;
    /* V */
    uint64_t tick_v;
    uint8_t visit_v;
    bool step_v;
    /* commands, B1 and V */
    bool c_set, c_clear, c_clear_all, c_bad, c_any, bm_clear, c_reached;
    uint8_t c_wr, c_lvl, c_match;
    uint16_t c_slot;
    /* search start */
    bool srch_start_q;
    uint64_t srch_base_q;
    /* H1, H2, G, E (the delay RAM's address and output are last, below) */
    uint8_t hit_h1, hit_h2, hit_g;
    bool late_h1, late_h2, late_g, step_h1, step_h2, step_g, cmd_h1, cmd_h2, cmd_g;
    uint8_t hit_e, n_ev_e;
    bool push_e, late_e, step_e, cmd_e;
    /* FIFO */
    uint16_t rd_ptr_q, wr_ptr_q, count_q;
    bool pop_fifo;
    uint8_t fly_n_q;
    /* status and statistics */
    bool overflow_q, cmd_err_q;
    uint32_t cnt_events_q, cnt_late_q, cnt_overflow_q, cnt_cmds_q, cnt_buserr_q;
    /* event read-out */
    tw_entry head_q;
    bool empty1_q, consumed_late_q, sel_late_q, sel_last_q, sel_empty_q;
    uint8_t consumed_mask_q, sel_level_q, sel_bit_q;
    uint32_t evt_info_q;
    /* the answer against time: N1, N2, N3 */
    uint64_t n1_gap, n1_end, n2_gap, n2_end, next_q;
    bool n1_v, n1_f, n2_v, n2_f, n2_within, searching_q;
    /* the jump */
    bool j_far_q, j_adv_far_q, j_go_q;
    bool j_wait_q, j_cmp_q, j_sel_q, j_carry_q, j_end_q, j_busy_q, j_lo_q, j_hi_q;
    uint8_t j_wc, j_cool;
    bool j_seen, j_big, j_bad, j_less;
    /* interrupt */
    uint16_t age_q;
    bool age_due_q, thresh_due_q, room_due_q, irq_q;
    /* read multiplexer */
    uint16_t now_hi_latch_q, next_hi_latch_q;
    uint32_t grp_q; /* the group register the access in B1 picked */
    bool rd1_q;
    uint32_t o_wb_dat;
    /* Last, so that quiet() can leave them out: the entry delay RAM's write
     * address and output, read only by a push. */
    uint8_t dly_wa;
    tw_dly dly_q;
} tw_flops;

typedef struct tw_model {
    /* geometry (the RTL's parameters) and what follows from it */
    unsigned levels, slot_bits, fifo_log2;
    unsigned sw_log2;
    uint32_t lo_mask[MAX_LEVELS], hi_mask[MAX_LEVELS];

    tw_flops fbuf[2], *f; /* the state, in one of two buffers */
    size_t flops_size;
    /* block RAMs: the bitmaps (as their search ports read them, bit i of
     * word w slot w * SW + i), the FIFO's memory, the entry delay RAM */
    uint16_t map[MAX_LEVELS][MAX_WORDS];
    tw_entry *fifo_mem;
    tw_dly dly_mem[4]; /* of 16 words only the last four written are read */
    struct tw_search_model srch;
    const uint16_t *words[TW_SEARCH_MAX_LEVELS];

    /* inputs held between calls, and the edge count */
    bool ext_tick;
    uint64_t cycles;
    /* An idle edge would change no flop but the delay RAM's address and
     * output, no memory but that RAM, and the search only by its clock
     * count (quiet_edges() says for how many edges). */
    bool quiet;
    /* The state is the one fast_cmd() left: a search started afresh, the
     * command in H2 with no late entry behind it, at least seven clocks
     * before the search answers; settling needs no more than the next
     * access's seven clocks (fast_access()). */
    bool cmd_settle;
    /* The state is the one fast_pop() left: the read-out settles in the
     * next two clocks, whatever the bus does in them (settle_pop()). */
    bool pop_settle;
    /* What the flops computed from the request's data (and tick_p and the
     * armed tick) were last computed from: unchanged inputs, unchanged
     * flops. */
    bool decoded, cmd_in_ok;
    uint32_t decoded_dat, cmd_in_dat;
    uint64_t cmd_in_tick, cmd_in_arm;
} tw_model;

typedef struct tw_bus_in {
    bool rst, cyc, stb, we;
    unsigned adr; /* word address, 6 bits */
    uint32_t dat;
} tw_bus_in;

static const tw_bus_in bus_idle = { false, false, false, false, 0, 0 };

static unsigned popcount4(unsigned v)
{
    return (v & 1u) + ((v >> 1) & 1u) + ((v >> 2) & 1u) + ((v >> 3) & 1u);
}

static bool map_bit(const tw_model *m, unsigned level, unsigned slot)
{
    return (m->map[level][slot >> m->sw_log2] >> (slot & ((1u << m->sw_log2) - 1u))) & 1u;
}

static uint32_t caps_value(const tw_model *m)
{
    return ((uint32_t)m->levels << TW_CAPS_LEVELS_LSB) | ((uint32_t)m->slot_bits << TW_CAPS_SLOT_BITS_LSB)
         | ((uint32_t)m->fifo_log2 << TW_CAPS_FIFO_LOG2_LSB) | ((uint32_t)TICK_BITS << TW_CAPS_TICK_BITS_LSB);
}

static bool adv_busy(const tw_flops *f) { return f->adv_st_q != A_IDLE; }

/* The interrupt line after a clock, from the state before it; also after a
 * closed-form STATUS write, which changes only the flags it reads. */
static bool irq_next(const tw_flops *f, unsigned depth)
{
    return f->ctrl_irq_en_q && f->count_q != 0
           && (f->hold_q || f->count_q == depth || f->thresh_due_q || f->age_due_q || f->room_due_q);
}

/* The coalescing flags and the line after a clock (N) from the state before
 * it (F): one definition for the whole edge and the read-out clock. */
static void coalesce_next(const tw_flops *f, tw_flops *n, unsigned depth)
{
    n->age_due_q = f->age_q >= f->coal_holdoff_q;
    n->thresh_due_q = f->count_q >= f->coal_thresh_q;
    n->room_due_q = f->ctrl_src_q == SRC_HOST && f->adv_nz_q && !f->j_busy_q && !adv_busy(f) && f->count_q + 4u > depth;
    n->irq_q = irq_next(f, depth);
}

static bool advancing(const tw_flops *f)
{
    return f->adv_nz_q || adv_busy(f) || f->step_q || f->fly_q || f->j_busy_q;
}

static uint32_t status_value(const tw_model *m)
{
    const tw_flops *f = m->f;
    return ((uint32_t)f->count_q << TW_STATUS_FIFO_COUNT_LSB)
         | ((uint32_t)f->searching_q << TW_STATUS_SEARCHING_LSB)
         | ((uint32_t)f->irq_q << TW_STATUS_IRQ_LSB)
         | ((uint32_t)advancing(f) << TW_STATUS_ADVANCING_LSB)
         | ((uint32_t)f->cmd_err_q << TW_STATUS_CMD_ERR_LSB)
         | ((uint32_t)f->hold_q << TW_STATUS_HOLD_LSB)
         | ((uint32_t)f->overflow_q << TW_STATUS_OVERFLOW_LSB);
}

/* The read multiplexer's first stage: the group register that address adr
 * selects, from the state of this clock (B1). */
static uint32_t read_group(const tw_model *m, unsigned adr)
{
    const tw_flops *f = m->f;
    /* Word addresses, by the map's names (tw_regs.h gives byte addresses). */
    switch (adr * 4) {
    case TW_REG_ID: return TW_ID_MAGIC;
    case TW_REG_VERSION: return (TW_VERSION_MAJOR << TW_VERSION_MAJOR_LSB) | (TW_VERSION_MINOR << TW_VERSION_MINOR_LSB);
    case TW_REG_CAPS: return caps_value(m);
    case TW_REG_CTRL:
        return ((uint32_t)f->ctrl_vhold_q << TW_CTRL_VHOLD_LSB) | ((uint32_t)f->ctrl_irq_en_q << TW_CTRL_IRQ_EN_LSB)
             | ((uint32_t)f->ctrl_src_q << TW_CTRL_TICK_SRC_LSB);
    case TW_REG_PRESCALE: return f->presc_q;
    case TW_REG_STATUS: return status_value(m);
    case TW_REG_NOW_LO: return f->lo_d_q | (f->hi_q << 24); /* tick_p[31:0] */
    case TW_REG_NOW_HI: return f->now_hi_latch_q;
    case TW_REG_ADVANCE: return ((uint32_t)(uint16_t)(f->adv_hi_q - f->adv_borrow_q) << 16) | f->adv_lo_q;
    case TW_REG_ARM_LO: return f->arm_lo_q;
    case TW_REG_ARM_HI: return f->arm_hi_q;
    case TW_REG_EVT_INFO: return f->evt_info_q;
    case TW_REG_EVT_TICK: return f->empty1_q ? 0 : (uint32_t)f->head_q.tick;
    case TW_REG_CNT_EVENTS: return f->cnt_events_q;
    case TW_REG_CNT_LATE: return f->cnt_late_q;
    case TW_REG_CNT_OVERFLOW: return f->cnt_overflow_q;
    case TW_REG_CNT_CMDS: return f->cnt_cmds_q;
    case TW_REG_CNT_BUSERR: return f->cnt_buserr_q;
    case TW_REG_SEARCH: return f->horizon_q;
    case TW_REG_NEXT_LO: return (uint32_t)f->next_q;
    case TW_REG_NEXT_HI: return f->next_hi_latch_q;
    case TW_REG_COALESCE:
        return ((uint32_t)f->coal_thresh_q << TW_COALESCE_THRESH_LSB) | ((uint32_t)f->coal_holdoff_q << TW_COALESCE_HOLDOFF_LSB);
    default: return 0;
    }
}

/* The access names a register that allows it (d_addr_ok): the map's access
 * column, as generated. */
static bool addr_ok(unsigned adr, bool we)
{
    return (((we ? TW_REGS_WRITABLE : TW_REGS_READABLE) >> (adr & (TW_REG_COUNT - 1))) & 1u) != 0;
}

/* B0: the request's data decoded as a command (the flops of B1). */
static void decode_request(const tw_model *m, tw_flops *n, uint32_t dat)
{
    const unsigned d_op = (dat >> TW_CMD_OP_LSB) & 15u;
    const unsigned d_level = (dat >> TW_CMD_LEVEL_LSB) & 15u;
    const unsigned d_slot = (dat >> TW_CMD_SLOT_LSB) & 0xFFFFu;
    const bool target_ok = (d_level >> 2) == 0 && (d_level & 3u) < m->levels
                           && (d_slot & ~((1u << m->slot_bits) - 1u)) == 0;
    n->wop_set = d_op == OP_SET;
    n->wop_clear = d_op == OP_CLEAR;
    n->wop_clear_all = d_op == OP_CLEAR_ALL;
    n->wcmd_ok = target_ok;
    n->wcmd_wr = (uint8_t)((d_op == OP_SET || d_op == OP_CLEAR) && target_ok ? 1u << (d_level & 3u) : 0u);
}

/* B1: a command's level and slot, the late check's verdict against tick_p
 * and whether tick_p's slot at each level is the command's (the flops of
 * V), from the request's data, tick_p and the armed tick. */
static void command_inputs(const tw_model *m, tw_flops *n, uint32_t dat, uint64_t tick_p, uint64_t arm)
{
    const unsigned slot_mask = (1u << m->slot_bits) - 1u;
    const unsigned cmd_slot = (dat >> TW_CMD_SLOT_LSB) & slot_mask;
    n->c_lvl = (uint8_t)((dat >> TW_CMD_LEVEL_LSB) & 3u);
    n->c_slot = (uint16_t)cmd_slot;
    n->c_reached = !((((tick_p - arm) & TICK_MASK) >> 47) & 1u);
    uint8_t match = 0;
    for (unsigned k = 0; k < m->levels; k++)
        if (((tick_p >> (k * m->slot_bits)) & slot_mask) == cmd_slot)
            match |= (uint8_t)(1u << k);
    n->c_match = match;
}

/* command_inputs() with the state's own tick_p and armed tick. */
static void command_v_inputs(const tw_model *m, tw_flops *f, uint32_t dat)
{
    const uint64_t tick_p = ((uint64_t)f->hi_q << 24) | f->lo_d_q;
    const uint64_t arm = ((uint64_t)f->arm_hi_q << 32) | f->arm_lo_q;
    command_inputs(m, f, dat, tick_p, arm);
}

/* The event read-out's flops (head, selection, EVT_INFO, the pop and what
 * was consumed of the head) at an edge from state m, into np. */
static void readout(const tw_model *mdl, const tw_flops *m, tw_flops *np)
{
    const bool fifo_empty = m->count_q == 0;
    const unsigned slot_mask = (1u << mdl->slot_bits) - 1u;
    np->head_q = mdl->fifo_mem[m->rd_ptr_q];
    np->empty1_q = fifo_empty;
    {
        const tw_entry *h = &m->head_q;
        const bool rem_late = h->late && !m->consumed_late_q;
        const unsigned rem_mask = h->mask & ~m->consumed_mask_q & 15u;
        const unsigned vis_level = rem_mask ? (unsigned)__builtin_ctz(rem_mask) : 0u;
        const unsigned vis_bit = rem_mask ? 1u << vis_level : 0u;
        np->sel_late_q = rem_late;
        np->sel_level_q = (uint8_t)vis_level;
        np->sel_bit_q = (uint8_t)vis_bit;
        np->sel_last_q = rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;
        np->sel_empty_q = m->empty1_q;
        if (m->sel_empty_q) {
            np->evt_info_q = 0;
        } else {
            unsigned slot = m->sel_late_q ? h->slot
                                          : (unsigned)(h->tick >> (m->sel_level_q * mdl->slot_bits)) & slot_mask;
            unsigned level = m->sel_late_q ? h->level : m->sel_level_q;
            np->evt_info_q = TW_EVT_INFO_VALID_MASK | ((uint32_t)m->sel_late_q << TW_EVT_INFO_LATE_LSB)
                         | ((uint32_t)level << TW_EVT_INFO_LEVEL_LSB) | ((uint32_t)slot << TW_EVT_INFO_SLOT_LSB)
                         | ((uint32_t)(h->tick >> 32) & 0xFFFFu) << TW_EVT_INFO_TICK_HI_LSB;
        }
        np->pop_fifo = m->r_pop && !m->sel_empty_q && m->sel_last_q;
        if (m->pop_fifo) {
            np->consumed_mask_q = 0;
            np->consumed_late_q = false;
        } else if (m->r_pop && !m->sel_empty_q) {
            if (m->sel_late_q)
                np->consumed_late_q = true;
            else
                np->consumed_mask_q = (uint8_t)(m->consumed_mask_q | m->sel_bit_q);
        }
    }
}

/* One rising edge of i_clk, or with commit false only what it would do.
 * Returns whether it is quiet: it changes no flop but the delay RAM's
 * address and output, no memory but that RAM, and the search only by its
 * clock count (no start, no change of its outputs). From a state where an
 * idle edge is quiet, so is the next idle edge, until the search's answer
 * comes (quiet_edges()). */
static bool edge(tw_model *mdl, const tw_bus_in *in, bool commit)
{
    /* Nonblocking assignments: the state after the edge is formed in the
     * other buffer, every right-hand side reading the one before. */
    const tw_flops *m = mdl->f;
    tw_flops *np = mdl->f == &mdl->fbuf[0] ? &mdl->fbuf[1] : &mdl->fbuf[0];
    memcpy(np, m, mdl->flops_size); /* a call, not an inlined string copy */
    const bool rst = in->rst;
    const unsigned depth = 1u << mdl->fifo_log2;
    const unsigned slot_mask = (1u << mdl->slot_bits) - 1u;
    bool mem_changed = false;

    /* the search's outputs, before the edge */
    const bool sv = mdl->srch.valid, sf = mdl->srch.found;
    const uint64_t snext = mdl->srch.next;

    /* ---------------------------------------------------- combinational */
    const bool src_host = m->ctrl_src_q == SRC_HOST;
    const bool vmode = src_host && m->ctrl_vhold_q;
    const bool req_cmd = m->req_we_q && m->req_adr_q == ADR_CMD;
    const bool a_busy = adv_busy(m);
    const bool bus_hold = m->j_busy_q || a_busy || m->w_adv || m->cmd_fly_q > 1;
    const bool cmd_wait = vmode && (m->step_q || m->fly_q);
    const bool dec = m->req_v_q && !bus_hold && !(req_cmd && cmd_wait);
    const bool step_host = src_host && m->adv_nz_q && m->room_q && !m->hold_q && !m->j_busy_q && !a_busy
                           && !m->req_advrd_q
                           && !(m->ctrl_vhold_q && (m->step_q || m->fly_q || (m->req_v_q && req_cmd)
                                                    || m->cmd_fly_q != 0));
    const bool presc_hit = (m->pc_lo_q == 1 && m->pc_hi_q == 0 && !m->reload_q) || m->presc_q == 0;
    const bool step_d = step_host || (m->ctrl_src_q == SRC_INT && m->ptick_q)
                        || (m->ctrl_src_q == SRC_EXT && (m->ext_q & 2) && !(m->ext_q & 4));
    const bool fifo_empty = m->count_q == 0, fifo_full = m->count_q == depth;
    const uint32_t adv_left = ((uint32_t)m->adv_hi_q << 16) | m->adv_lo_q;
    const bool cmd_v = m->c_set || m->c_clear || m->c_clear_all;
    const bool srch_passed = m->n2_v && m->n2_f && (m->n2_gap >> 47) && sv && !m->srch_start_q;
    const bool j_start = m->j_go_q && !m->j_busy_q && !m->pend_q && !a_busy && !m->w_adv && !m->hold_q;
    const bool j_abort = m->j_seen || !sv || !m->n2_v || m->j_bad;
    const bool j_last = m->j_wc == 1;
    const uint32_t wdat = m->req_dat_q;

    /* ------------------------------------------------------- bus, R/B0 */
    if (!m->pend_q && in->cyc && in->stb && !m->o_wb_ack) {
        np->pend_q = true;
        np->req_v_q = true;
        np->req_we_q = in->we;
        np->req_adr_q = (uint8_t)(in->adr & (TW_REG_COUNT - 1));
        np->req_dat_q = in->dat;
        np->req_advrd_q = !in->we && (in->adr & (TW_REG_COUNT - 1)) == ADR_ADVANCE;
    } else if (dec) {
        np->req_v_q = false;
        np->req_advrd_q = false;
    }
    np->acc1_q = dec;
    np->acc2_q = m->acc1_q;
    np->o_wb_ack = m->acc2_q;
    if (m->acc2_q)
        np->pend_q = false;

    /* B1 strobes */
    {
        const bool dw = dec && m->req_we_q, dr = dec && !m->req_we_q;
        const unsigned a = m->req_adr_q;
        np->w_ctrl = dw && a == ADR_CTRL;
        np->w_presc = dw && a == ADR_PRESCALE;
        np->w_status = dw && a == ADR_STATUS;
        np->w_adv = dw && a == ADR_ADVANCE;
        np->w_arm_lo = dw && a == ADR_ARM_LO;
        np->w_arm_hi = dw && a == ADR_ARM_HI;
        np->w_cmd = dw && a == ADR_CMD;
        np->w_search = dw && a == ADR_SEARCH;
        np->w_coal = dw && a == ADR_COALESCE;
        np->bad_acc = dec && !addr_ok(a, m->req_we_q);
        np->r_acc = dr;
        np->r_pop = dr && a == ADR_EVT_TICK;
        np->r_now_lo = dr && a == ADR_NOW_LO;
        np->r_next_lo = dr && a == ADR_NEXT_LO;
        /* A function of req_dat_q alone: computed again only when it moved. */
        if (!mdl->decoded || mdl->decoded_dat != wdat) {
            decode_request(mdl, np, wdat);
            mdl->decoded = commit;
            mdl->decoded_dat = wdat;
        }
    }

    /* control registers */
    if (m->w_ctrl) {
        np->ctrl_src_q = (uint8_t)((wdat & TW_CTRL_TICK_SRC_MASK) >> TW_CTRL_TICK_SRC_LSB);
        np->ctrl_irq_en_q = (wdat & TW_CTRL_IRQ_EN_MASK) != 0;
        np->ctrl_vhold_q = (wdat & TW_CTRL_VHOLD_MASK) != 0;
    }
    if (m->w_presc)
        np->presc_q = wdat;
    if (m->w_arm_lo)
        np->arm_lo_q = wdat;
    if (m->w_arm_hi)
        np->arm_hi_q = (uint16_t)wdat;
    if (m->w_search)
        np->horizon_q = wdat;
    if (m->w_coal) {
        np->coal_holdoff_q = (uint16_t)((wdat & TW_COALESCE_HOLDOFF_MASK) >> TW_COALESCE_HOLDOFF_LSB);
        np->coal_thresh_q = (uint16_t)((wdat & TW_COALESCE_THRESH_MASK) >> TW_COALESCE_THRESH_LSB);
    }

    /* ------------------------------------------ step decision, D; ADVANCE */
    np->step_q = step_d;
    np->ext_q = (uint8_t)(((m->ext_q << 1) | (mdl->ext_tick ? 1u : 0u)) & 7u);
    if (m->reload_q) {
        np->pc_hi_q = (uint16_t)(m->presc_q >> 16);
        np->pc_lo_q = (uint16_t)m->presc_q;
        np->pc_borrow_q = false;
    } else {
        np->pc_borrow_q = m->pc_lo_q == 0;
        np->pc_lo_q = (uint16_t)(m->pc_lo_q - 1u);
        np->pc_hi_q = (uint16_t)(m->pc_hi_q - m->pc_borrow_q);
    }
    np->ptick_q = presc_hit && m->ctrl_src_q == SRC_INT;
    np->reload_q = presc_hit || m->ctrl_src_q != SRC_INT;
    {
        const bool ge1 = m->adv_lo_q || m->adv_hi_q || m->adv_sat_q;
        const bool ge2 = (m->adv_lo_q >> 1) || m->adv_hi_q;
        const bool ge3 = (m->adv_lo_q >> 2) || (m->adv_lo_q & 3u) == 3u || m->adv_hi_q;
        const bool left_ge1 = m->adv_pend_q ? ge2 : ge1;
        const bool left_ge2 = m->adv_pend_q ? ge3 : ge2;
        np->adv_pend_q = step_host;
        np->adv_nz_q = step_host ? left_ge2 : left_ge1;
    }
    np->adv_sat_q = false;
    switch (m->adv_st_q) {
    case A_LO: {
        uint32_t s = (uint32_t)m->adv_lo_q + (wdat & 0xFFFFu);
        np->adv_c_q = (s >> 16) & 1u;
        np->adv_lo_q = (uint16_t)s;
        np->adv_st_q = A_HI;
        break;
    }
    case A_HI: {
        uint32_t s = (uint32_t)m->adv_hi_q + m->adv_add_hi_q + m->adv_c_q;
        np->adv_hi_q = (uint16_t)s;
        np->adv_sat_q = (s >> 16) & 1u;
        np->adv_st_q = A_FLAG;
        break;
    }
    case A_FLAG:
        if (m->adv_sat_q)
            np->adv_hi_q = np->adv_lo_q = 0xFFFF;
        np->adv_st_q = A_IDLE;
        break;
    default: {
        uint32_t sub_lo = m->j_lo_q ? (m->j_amt_q & 0xFFFFu) : m->adv_pend_q;
        np->adv_borrow_q = m->adv_lo_q < sub_lo;
        np->adv_lo_q = (uint16_t)(m->adv_lo_q - sub_lo);
        np->adv_hi_q = (uint16_t)(m->adv_hi_q - (m->j_hi_q ? (m->j_amt_q >> 16) : m->adv_borrow_q));
        if (m->w_adv) {
            np->adv_add_hi_q = (uint16_t)(wdat >> 16);
            np->adv_st_q = A_SETTLE1;
        } else if (m->adv_st_q == A_SETTLE1) {
            np->adv_st_q = A_SETTLE2;
        } else if (m->adv_st_q == A_SETTLE2) {
            np->adv_st_q = A_LO;
        } else {
            np->adv_st_q = A_IDLE;
        }
        break;
    }
    }

    /* --------------------------------------------------- counter, C1/C2/P */
    {
        const bool en = m->step_q || m->j_lo_q;
        const uint32_t lo_sum = m->lo_q + m->lo_add_q;
        if (en)
            np->lo_q = lo_sum & HALF_MASK;
        np->carry_q = en && (lo_sum >> 24);
        np->hi_q = (m->hi_q + (m->j_hi_q ? (m->j_amt_q >> 24) : m->carry_q)) & HALF_MASK;
        np->lo_d_q = m->lo_q;
        np->step_c_q = m->step_q;
        np->step_p_q = m->step_c_q;
        uint8_t z = 1;
        for (unsigned k = 1; k < mdl->levels; k++)
            if ((m->lo_q & mdl->lo_mask[k]) == 0)
                z |= (uint8_t)(1u << k);
        np->zero_p = z;
    }
    const uint64_t tick_p = ((uint64_t)m->hi_q << 24) | m->lo_d_q;
    {
        uint8_t vp = 0;
        if (m->step_p_q)
            for (unsigned k = 0; k < mdl->levels; k++)
                if (((m->zero_p >> k) & 1u) && (m->hi_q & mdl->hi_mask[k]) == 0)
                    vp |= (uint8_t)(1u << k);
        np->tick_v = tick_p;
        np->visit_v = vp;
        np->step_v = m->step_p_q;
    }

    /* ------------------------------------------------- commands, B1 and V */
    np->c_set = m->w_cmd && m->wop_set && m->wcmd_ok;
    np->c_clear = m->w_cmd && m->wop_clear && m->wcmd_ok;
    np->c_clear_all = m->w_cmd && m->wop_clear_all;
    np->c_any = m->w_cmd;
    np->bm_clear = m->w_cmd && m->wop_clear_all;
    np->c_bad = m->w_cmd && !((m->wop_set || m->wop_clear) && m->wcmd_ok) && !m->wop_clear_all;
    np->c_wr = m->w_cmd ? m->wcmd_wr : 0;
    {
        /* A function of the request's data, tick_p and the armed tick:
         * computed again only when one of them moved. */
        const uint64_t arm = ((uint64_t)m->arm_hi_q << 32) | m->arm_lo_q;
        if (!mdl->cmd_in_ok || mdl->cmd_in_dat != wdat || mdl->cmd_in_tick != tick_p || mdl->cmd_in_arm != arm) {
            command_inputs(mdl, np, wdat, tick_p, arm);
            mdl->cmd_in_ok = commit;
            mdl->cmd_in_dat = wdat;
            mdl->cmd_in_tick = tick_p;
            mdl->cmd_in_arm = arm;
        }
    }
    const bool seen_v = (m->c_match & m->visit_v & m->c_wr) != 0;
    const bool late_v = m->c_set && m->c_reached && !seen_v;

    /* --------------------------------------------------- search start */
    np->srch_start_q = cmd_v || srch_passed;
    if (cmd_v || srch_passed)
        np->srch_base_q = m->tick_v;

    /* ------------------------------------------------- H1, H2, G, E */
    np->dly_q = mdl->dly_mem[(m->dly_wa + 1u) & 3u]; /* written three clocks ago */
    np->dly_wa = (uint8_t)((m->dly_wa + 1u) & 3u);
    np->hit_h2 = m->hit_h1;
    np->hit_g = m->hit_h2;
    np->late_h1 = late_v;
    np->late_h2 = m->late_h1;
    np->late_g = m->late_h2;
    np->step_h1 = m->step_v;
    np->step_h2 = m->step_h1;
    np->step_g = m->step_h2;
    np->cmd_h1 = m->c_any;
    np->cmd_h2 = m->cmd_h1;
    np->cmd_g = m->cmd_h2;
    np->hit_e = m->hit_g;
    np->n_ev_e = (uint8_t)(m->late_g + popcount4(m->hit_g));
    np->push_e = m->hit_g || m->late_g;
    np->late_e = m->late_g;
    np->step_e = m->step_g;
    np->cmd_e = m->cmd_g;

    /* ----------------------------------------------------------- FIFO */
    const bool do_pop = m->pop_fifo && !fifo_empty;
    const bool push_ok = !fifo_full || do_pop;
    const bool do_push = m->push_e && push_ok;
    if (do_push)
        np->wr_ptr_q = (uint16_t)((m->wr_ptr_q + 1u) & (depth - 1u));
    if (do_pop)
        np->rd_ptr_q = (uint16_t)((m->rd_ptr_q + 1u) & (depth - 1u));
    if (do_push && !do_pop)
        np->count_q = (uint16_t)(m->count_q + 1u);
    else if (do_pop && !do_push)
        np->count_q = (uint16_t)(m->count_q - 1u);

    /* in flight, the FIFO's room */
    np->fly_n_q = (uint8_t)((m->fly_n_q + m->step_q + m->w_cmd - m->step_e - m->cmd_e) & 15u);
    np->room_q = (unsigned)m->count_q + m->fly_n_q + 4u <= depth;
    np->fly_q = m->step_q || m->step_c_q || m->step_p_q || m->step_v || m->step_h1 || m->step_h2 || m->step_g
              || m->step_e;
    np->cmd_fly_q = (uint8_t)(dec && req_cmd ? 7u : m->cmd_fly_q - (m->cmd_fly_q != 0 ? 1u : 0u));

    /* status, statistics, at the push */
    if (m->push_e && !push_ok)
        np->overflow_q = true;
    else if (m->w_status && (wdat & TW_STATUS_OVERFLOW_MASK))
        np->overflow_q = false;
    if (m->c_bad)
        np->cmd_err_q = true;
    else if (m->w_status && (wdat & TW_STATUS_CMD_ERR_MASK))
        np->cmd_err_q = false;
    if (m->push_e && push_ok && vmode)
        np->hold_q = true;
    else if (m->w_status && (wdat & TW_STATUS_HOLD_MASK))
        np->hold_q = false;
    if (m->push_e && push_ok)
        np->cnt_events_q += m->n_ev_e;
    if (m->push_e && !push_ok)
        np->cnt_overflow_q += m->n_ev_e;
    if (m->late_e)
        np->cnt_late_q++;
    if (m->w_cmd)
        np->cnt_cmds_q++;
    if (m->bad_acc || m->c_bad)
        np->cnt_buserr_q++;

    /* ------------------------------------------------ event read-out */
    readout(mdl, m, np);

    /* --------------------------------------- the answer against time */
    np->n1_gap = (snext + (~m->tick_v & TICK_MASK)) & TICK_MASK;
    np->n1_end = (m->tick_v + m->horizon_q) & TICK_MASK;
    np->n1_v = sv && !m->srch_start_q;
    np->n1_f = sf;
    np->n2_gap = m->n1_gap;
    np->n2_within = m->n1_f && (m->n1_gap >> 32) == 0 && (uint32_t)m->n1_gap < m->horizon_q;
    np->n2_end = m->n1_end;
    np->n2_v = m->n1_v && sv;
    np->n2_f = m->n1_f;
    {
        const bool n2_ok = m->n2_v && sv && (!m->n2_f || !(m->n2_gap >> 47));
        np->searching_q = !n2_ok;
        np->next_q = !n2_ok ? 0 : m->n2_within ? snext : m->n2_end;
    }

    /* ------------------------------------------------------- the jump */
    np->j_far_q = m->n2_v && !(m->n2_gap >> 47)
                && (m->ctrl_vhold_q ? ((m->n2_gap >> 1) & 0x3FFFFFFFFFFFull) != 0
                                    : ((m->n2_gap >> 5) & 0x3FFFFFFFFFFull) != 0);
    np->j_adv_far_q = (m->ctrl_vhold_q ? (adv_left >> 1) != 0 : (adv_left >> 5) != 0) || m->adv_sat_q;
    np->j_go_q = src_host && m->adv_nz_q && m->n2_v && sv && (m->j_far_q || !m->n2_f) && m->j_adv_far_q
               && !m->j_busy_q && m->j_cool == 0 && !m->hold_q && !a_busy && !m->w_adv;
    np->j_wait_q = j_start || (m->j_wait_q && !j_last);
    np->j_cmp_q = m->j_wait_q && j_last;
    np->j_sel_q = m->j_cmp_q;
    np->j_lo_q = m->j_sel_q && !j_abort;
    np->j_carry_q = m->j_lo_q;
    np->j_hi_q = m->j_carry_q;
    np->j_end_q = (m->j_sel_q && j_abort) || m->j_hi_q || (m->j_end_q && !j_last);
    np->j_busy_q = j_start || (m->j_busy_q && !(m->j_end_q && j_last));
    if (j_start)
        np->j_wc = 7;
    else if (m->j_sel_q && j_abort)
        np->j_wc = 2;
    else if (m->j_hi_q)
        np->j_wc = 3;
    else if (m->j_wait_q || m->j_end_q)
        np->j_wc = (uint8_t)((m->j_wc - 1u) & 7u);
    if (m->j_end_q && j_last)
        np->j_cool = 8;
    else if (m->j_cool != 0 && !m->j_busy_q)
        np->j_cool = (uint8_t)(m->j_cool - 1u);
    if (j_start)
        np->j_seen = cmd_v || m->srch_start_q;
    else if (cmd_v || m->srch_start_q)
        np->j_seen = true;
    if (m->j_cmp_q) {
        np->j_bad = (m->n2_f && ((m->n2_gap >> 47) || m->n2_gap == 0)) || adv_left == 0;
        np->j_big = !m->n2_f || (m->n2_gap >> 32) != 0;
        np->j_less = (uint32_t)m->n2_gap < adv_left;
    }
    np->lo_add_q = 1;
    if (m->j_sel_q) {
        /* As the RTL: the addend is loaded whether or not the jump is called
           off (no step follows J_SEL). */
        uint32_t amt = m->j_big || !m->j_less ? adv_left : (uint32_t)m->n2_gap;
        if (!j_abort)
            np->j_amt_q = amt;
        np->lo_add_q = amt & HALF_MASK;
    }

    /* ------------------------------------------ interrupt, coalescing */
    if (fifo_empty)
        np->age_q = 0;
    else if (m->j_lo_q)
        np->age_q = (m->j_amt_q >> 16) || (uint32_t)m->age_q + (m->j_amt_q & 0xFFFFu) > 0xFFFFu
                      ? 0xFFFF
                      : (uint16_t)(m->age_q + (m->j_amt_q & 0xFFFFu));
    else if (m->step_v && m->age_q != 0xFFFF)
        np->age_q = (uint16_t)(m->age_q + 1u);
    coalesce_next(m, np, depth);

    /* -------------------------------------------------- read mux */
    if (m->r_now_lo)
        np->now_hi_latch_q = (uint16_t)(tick_p >> 32);
    if (m->r_next_lo)
        np->next_hi_latch_q = (uint16_t)(m->next_q >> 32);
    np->rd1_q = m->r_acc;
    if (m->r_acc)
        np->grp_q = read_group(mdl, m->req_adr_q);
    if (m->rd1_q)
        np->o_wb_dat = m->grp_q;

    /* ------------------------------------------------------- reset */
    if (rst) {
        np->pend_q = np->req_v_q = np->acc1_q = np->acc2_q = np->o_wb_ack = false;
        np->req_we_q = false;
        np->req_adr_q = 0;
        np->req_dat_q = 0;
        np->req_advrd_q = false;
        np->w_ctrl = np->w_presc = np->w_status = np->w_adv = np->w_arm_lo = np->w_arm_hi = np->w_cmd = np->w_search = false;
        np->w_coal = np->bad_acc = np->r_acc = np->r_pop = np->r_now_lo = np->r_next_lo = false;
        np->ctrl_src_q = SRC_HOST;
        np->ctrl_irq_en_q = np->ctrl_vhold_q = false;
        np->presc_q = np->arm_lo_q = 0;
        np->arm_hi_q = 0;
        np->horizon_q = UINT32_MAX;
        np->coal_holdoff_q = np->coal_thresh_q = 0;
        np->step_q = false;
        np->pc_lo_q = np->pc_hi_q = 0;
        np->pc_borrow_q = false;
        np->reload_q = true;
        np->ptick_q = false;
        np->ext_q = 0;
        np->adv_lo_q = np->adv_hi_q = 0;
        np->adv_borrow_q = np->adv_nz_q = np->adv_pend_q = false;
        np->adv_st_q = A_IDLE;
        np->adv_add_hi_q = 0;
        np->adv_c_q = np->adv_sat_q = false;
        np->lo_q = np->hi_q = np->lo_d_q = 0;
        np->carry_q = np->step_c_q = np->step_p_q = false;
        np->zero_p = (uint8_t)((1u << mdl->levels) - 1u);
        np->tick_v = 0;
        np->visit_v = 0;
        np->step_v = false;
        np->c_set = np->c_clear = np->c_clear_all = np->c_any = np->c_bad = false;
        np->bm_clear = true;
        np->c_wr = 0;
        np->srch_start_q = true;
        np->srch_base_q = 0;
        np->hit_h1 = np->hit_h2 = np->hit_g = 0;
        np->late_h1 = np->late_h2 = np->late_g = false;
        np->step_h1 = np->step_h2 = np->step_g = false;
        np->cmd_h1 = np->cmd_h2 = np->cmd_g = false;
        np->push_e = np->late_e = np->step_e = np->cmd_e = false;
        np->rd_ptr_q = np->wr_ptr_q = np->count_q = 0;
        np->fly_n_q = 0;
        np->room_q = true;
        np->fly_q = false;
        np->cmd_fly_q = 0;
        np->overflow_q = np->cmd_err_q = np->hold_q = false;
        np->cnt_events_q = np->cnt_late_q = np->cnt_overflow_q = np->cnt_cmds_q = np->cnt_buserr_q = 0;
        np->empty1_q = true;
        np->sel_empty_q = true;
        np->pop_fifo = false;
        np->consumed_mask_q = 0;
        np->consumed_late_q = false;
        np->n1_v = np->n2_v = false;
        np->searching_q = true;
        np->j_go_q = false;
        np->j_wait_q = np->j_cmp_q = np->j_sel_q = np->j_carry_q = np->j_end_q = np->j_busy_q = false;
        np->j_wc = 0;
        np->j_cool = 0;
        np->j_seen = np->j_lo_q = np->j_hi_q = false;
        np->lo_add_q = 1;
        np->j_amt_q = 0;
        np->j_big = np->j_bad = np->j_less = false;
        np->age_q = 0;
        np->age_due_q = np->thresh_due_q = true;
        np->room_due_q = false;
        np->irq_q = false;
        np->now_hi_latch_q = np->next_hi_latch_q = 0;
        np->rd1_q = false;
        np->o_wb_dat = 0;
        np->dly_wa = 0;
    }

    /* ------------------------------------------------- block RAMs */
    if (!commit) {
        /* The delay RAM is left out of quietness; a visit needs visit_v,
         * a flop. */
        bool srch_out = rst || m->srch_start_q
                        || (mdl->srch.started && mdl->srch.t + 1u >= mdl->srch.t_valid && !sv);
        return !do_push && !m->bm_clear && !m->c_wr && !srch_out
               && memcmp(np, m, offsetof(tw_flops, dly_wa)) == 0;
    }
    mdl->cycles++;
    if (do_push) {
        tw_entry *e = &mdl->fifo_mem[m->wr_ptr_q];
        e->tick = m->dly_q.tick;
        e->mask = m->hit_e;
        e->late = m->late_e;
        e->level = m->dly_q.lvl;
        e->slot = m->dly_q.slot;
        mem_changed = true;
    }
    /* The entry delay RAM: written every clock. */
    tw_dly *d = &mdl->dly_mem[m->dly_wa & 3u];
    d->tick = m->tick_v;
    d->lvl = m->c_lvl;
    d->slot = m->c_slot;
    /* The bitmaps: CLEAR_ALL, or one bit, at the end of V; the visit port
     * reads the slot of tick_v as it stands after that write. */
    if (m->bm_clear) {
        memset(mdl->map, 0, sizeof mdl->map);
        mem_changed = true;
    } else if (m->c_wr) {
        unsigned lvl = (unsigned)__builtin_ctz(m->c_wr);
        uint16_t bit = (uint16_t)(1u << (m->c_slot & ((1u << mdl->sw_log2) - 1u)));
        uint16_t *w = &mdl->map[lvl][m->c_slot >> mdl->sw_log2];
        *w = m->c_set ? (uint16_t)(*w | bit) : (uint16_t)(*w & ~bit);
        mem_changed = true;
    }
    {
        uint8_t hit = 0;
        if (m->visit_v)
            for (unsigned k = 0; k < mdl->levels; k++)
                if (((m->visit_v >> k) & 1u) && map_bit(mdl, k, (unsigned)(m->tick_v >> (k * mdl->slot_bits)) & slot_mask))
                    hit |= (uint8_t)(1u << k);
        np->hit_h1 = rst ? 0 : hit;
    }
    /* The search, its bitmaps read in the start's clock. Once its answer
     * has come, stepping it changes nothing: it is left alone. */
    bool srch_out = false;
    if (rst) {
        tw_search_model_init(&mdl->srch, mdl->levels, mdl->slot_bits);
        srch_out = true;
    } else if (!m->srch_start_q && mdl->srch.started && mdl->srch.t + 1u < mdl->srch.t_valid) {
        mdl->srch.t++; /* its outputs stay; only the count moves (its word address is not used) */
    } else if (m->srch_start_q || (mdl->srch.started && mdl->srch.t < mdl->srch.t_valid)) {
        tw_search_model_step(&mdl->srch, m->srch_start_q, m->srch_base_q, mdl->words);
        srch_out = m->srch_start_q || mdl->srch.valid != sv;
    }

    bool idle = !in->rst && !in->cyc;
    bool quiet = idle && !mem_changed && !srch_out && memcmp(np, m, offsetof(tw_flops, dly_wa)) == 0;
    mdl->f = np;
    return quiet;
}

/* A committed edge; an idle one tells whether the state is quiet. */
static void tw_model_edge(tw_model *mdl, const tw_bus_in *in)
{
    mdl->cmd_settle = false;
    mdl->pop_settle = false;
    mdl->quiet = edge(mdl, in, true);
}

/* ---------------------------------------------------- quiet stretches */

/* Idle edges that stay quiet from a quiet state: all of them, or those
 * before the running search's answer comes. */
static uint64_t quiet_edges(const tw_model *m)
{
    const struct tw_search_model *s = &m->srch;
    if (s->started && s->t < s->t_valid)
        return s->t_valid - s->t - 1u;
    return UINT64_MAX;
}

/* One clock of the entry delay RAM: the word written three clocks ago is
 * read, this clock's written. */
static void dly_clock(tw_model *m, const tw_dly *in)
{
    tw_flops *f = m->f;
    f->dly_q = m->dly_mem[(f->dly_wa + 1u) & 3u];
    m->dly_mem[f->dly_wa & 3u] = *in;
    f->dly_wa = (uint8_t)((f->dly_wa + 1u) & 3u);
}

/* k quiet edges at once (k <= quiet_edges()): the delay RAM and the
 * search's clock count are all that move. */
static void skip_quiet(tw_model *m, uint64_t k)
{
    const tw_dly cur = { m->f->tick_v, m->f->c_lvl, m->f->c_slot };
    uint64_t clocked = k < 5 ? k : 5; /* after four the RAM holds cur throughout */
    for (uint64_t i = 0; i < clocked; i++)
        dly_clock(m, &cur);
    m->f->dly_wa = (uint8_t)((m->f->dly_wa + (k - clocked)) & 3u);
    if (m->srch.started && m->srch.t < m->srch.t_valid)
        m->srch.t += (uint32_t)k; /* stays below t_valid: only the count moves */
    m->cycles += k;
}

/* Runs the clock with the bus idle; stops early once the interrupt line is
 * high if asked to. Quiet stretches go in closed form. */
static void run_cycles(tw_model *m, uint64_t cycles, bool stop_at_irq)
{
    while (cycles > 0 && !(stop_at_irq && m->f->irq_q)) {
        if (m->quiet) {
            uint64_t k = quiet_edges(m);
            if (k > cycles)
                k = cycles;
            if (k) {
                skip_quiet(m, k);
                cycles -= k;
                continue;
            }
        }
        tw_model_edge(m, &bus_idle);
        cycles--;
    }
}

/* Cheap signs that an idle edge would not be quiet, checked before working
 * one out: something in flight on the bus, in the tick or command pipeline,
 * the jump, an ADVANCE sum, the FIFO's read-out or a search start, or the
 * prescaler as the tick source. */
static bool maybe_quiet(const tw_flops *f)
{
    return !(f->pend_q | f->acc1_q | f->acc2_q | f->o_wb_ack | f->rd1_q | f->step_q | f->fly_q | f->step_c_q
             | f->step_p_q | f->j_busy_q | f->j_go_q | f->adv_pend_q | f->pop_fifo | f->push_e | f->srch_start_q
             | f->cmd_h1 | f->cmd_h2 | f->cmd_g | f->cmd_e)
           && f->cmd_fly_q == 0 && f->adv_st_q == A_IDLE && f->empty1_q == (f->count_q == 0)
           && f->sel_empty_q == f->empty1_q
           && f->ctrl_src_q != SRC_INT; /* the prescaler moves every clock */
}

/* One clock in which only the event read-out, the FIFO's pointers and
 * count and what follows the count (room, threshold, age, interrupt line)
 * move: no push, no step, no jump. */
static void readout_clock(tw_model *m)
{
    const unsigned depth = 1u << m->fifo_log2;
    tw_flops *f = m->f;
    tw_flops *n = f == &m->fbuf[0] ? &m->fbuf[1] : &m->fbuf[0];
    memcpy(n, f, m->flops_size);
    readout(m, f, n);
    if (f->pop_fifo && f->count_q != 0) {
        n->rd_ptr_q = (uint16_t)((f->rd_ptr_q + 1u) & (depth - 1u));
        n->count_q = (uint16_t)(f->count_q - 1u);
    }
    n->room_q = (unsigned)f->count_q + f->fly_n_q + 4u <= depth;
    if (f->count_q == 0)
        n->age_q = 0;
    coalesce_next(f, n, depth);
    n->r_pop = false;
    m->f = n;
}

/* Right after fast_pop(), before the next access: its R and B0 move only
 * the bus's flops and the read-out settles meanwhile, so the two can be
 * taken one after the other. If the read-out settles in those two clocks
 * to a quiet state, the state is taken as settled (the access's closed
 * form counts the two clocks) and true returned; else nothing changes. */
static bool settle_pop(tw_model *m)
{
    if (!m->pop_settle)
        return false;
    m->pop_settle = false;
    tw_flops *home = m->f;
    const tw_flops saved = *home;
    readout_clock(m);
    readout_clock(m); /* back in home */
    if (maybe_quiet(m->f) && edge(m, &bus_idle, false)) {
        m->quiet = true;
        return true;
    }
    *home = saved;
    m->f = home;
    return false;
}

/* The delay RAM through a closed-form access of CLOCKS clocks: the entry
 * in V before the access (OLD) for R and B0, F's after. */
static void dly_access(tw_model *m, const tw_flops *f, const tw_dly *old, unsigned clocks)
{
    const tw_dly cur = { f->tick_v, f->c_lvl, f->c_slot };
    dly_clock(m, old);
    dly_clock(m, old);
    for (unsigned i = 2; i < clocks; i++)
        dly_clock(m, &cur);
}

/* B0 of a closed-form access: the command's V inputs and what the edge
 * model records of the request it decoded. */
static void capture_request(tw_model *m, tw_flops *f, uint32_t dat)
{
    command_v_inputs(m, f, dat);
    m->decoded = true;
    m->decoded_dat = dat;
    m->cmd_in_ok = true;
    m->cmd_in_dat = dat;
    m->cmd_in_tick = ((uint64_t)f->hi_q << 24) | f->lo_d_q;
    m->cmd_in_arm = ((uint64_t)f->arm_hi_q << 32) | f->arm_lo_q;
}

/* The entry of a closed-form access: the search's outputs still for five
 * clocks, and the model quiet, settling a pop's read-out or trying one idle
 * edge to get there. False, having changed nothing, otherwise. */
static bool reach_quiet(tw_model *m)
{
    if (quiet_edges(m) < 5)
        return false;
    if (!m->quiet && !settle_pop(m)) {
        if (!maybe_quiet(m->f) || !edge(m, &bus_idle, false))
            return false;
        m->quiet = true;
    }
    return true;
}

/* The entry of fast_cmd() and fast_pop(): reach_quiet() with time held
 * (HOLD, ADVANCE spent, or no host tick source). */
static bool enter_held_quiet(tw_model *m)
{
    const tw_flops *f = m->f;
    /* the cheap test first: the trial edge costs a whole clock */
    if (f->ctrl_src_q == SRC_HOST && f->adv_nz_q && !f->hold_q)
        return false; /* a jump or a step could start once the search answers */
    return reach_quiet(m);
}

/* A register access from a quiet state that leaves it quiet, in closed
 * form: a read of anything but EVT_TICK (which pops), a write of ARM_LO or
 * ARM_HI, or of STATUS when no ADVANCE is left. Its five clocks (R, B0,
 * B1, B2, B3 with the bus idle) move the bus's flops, decode the request's
 * data, and give the read the value the register has in B1, which is its
 * value now; nothing else can move, since in a quiet state no tick,
 * command, jump or ADVANCE sum is under way and none can start. An ADVANCE
 * write with none left is taken too: it leaves the state not quiet, the
 * sum due in the next clock. Returns false, having changed nothing, for
 * any other access or state. */
static bool fast_access(tw_model *m, unsigned adr, bool we, uint32_t dat, uint32_t *rdata)
{
    tw_flops *f = m->f;
    /* A STATUS write clears flags; with no ADVANCE left (or no host tick
     * source) a cleared HOLD lets nothing start, and only the interrupt
     * line follows. */
    const bool status_ok = adr == ADR_STATUS && (f->ctrl_src_q != SRC_HOST || !f->adv_nz_q);
    /* An ADVANCE write with none left, host ticks: nothing can start before
     * the sum (adv_nz stays low), so its five clocks only take the sum's
     * state machine from B1 to A_LO; the sum itself is computed edge by
     * edge in the next access. */
    const bool adv_ok = adr == ADR_ADVANCE && f->ctrl_src_q == SRC_HOST && !f->adv_nz_q && !m->cmd_settle;
    if (we ? !(adr == ADR_ARM_LO || adr == ADR_ARM_HI || status_ok || adv_ok) : adr == ADR_EVT_TICK)
        return false;
    unsigned clocks = 5;
    if (m->cmd_settle) {
        /* Right after fast_cmd(): the access waits two clocks more for the
         * command (cmd_fly), and by its B1 the command has left E and
         * lowered the fly count again, and the search's restart has
         * reached N2 (no answer, SEARCHING up, NEXT 0, no far jump). The
         * search's outputs hold meanwhile. */
        if (quiet_edges(m) < 7)
            return false;
        f->cmd_h2 = false;
        f->fly_n_q = (uint8_t)((f->fly_n_q - 1u) & 15u);
        f->room_q = (unsigned)f->count_q + f->fly_n_q + 4u <= (1u << m->fifo_log2);
        f->cmd_fly_q = 0;
        f->n1_v = f->n2_v = false;
        f->searching_q = true;
        f->next_q = 0;
        f->j_far_q = false;
        m->cmd_settle = false;
        m->quiet = true;
        clocks = 7;
    } else if (!reach_quiet(m)) {
        return false;
    }
    const uint32_t val = we ? 0 : read_group(m, adr);
    /* The delay RAM takes the old command level and slot for two more
     * clocks (R, B0), the request's from B1 on. */
    const tw_dly old = { f->tick_v, f->c_lvl, f->c_slot };
    f->req_we_q = we;
    f->req_adr_q = (uint8_t)adr;
    f->req_dat_q = dat;
    decode_request(m, f, dat);
    if (we && adr == ADR_ARM_LO)
        f->arm_lo_q = dat;
    if (we && adr == ADR_ARM_HI)
        f->arm_hi_q = (uint16_t)dat;
    if (we && adr == ADR_STATUS) {
        /* B1 clears, the clock after it the interrupt line follows */
        if (dat & TW_STATUS_OVERFLOW_MASK)
            f->overflow_q = false;
        if (dat & TW_STATUS_CMD_ERR_MASK)
            f->cmd_err_q = false;
        if (dat & TW_STATUS_HOLD_MASK)
            f->hold_q = false;
        f->irq_q = irq_next(f, 1u << m->fifo_log2);
    }
    capture_request(m, f, dat);
    dly_access(m, f, &old, clocks);
    if (m->srch.started && m->srch.t < m->srch.t_valid)
        m->srch.t += clocks;
    m->cycles += clocks;
    if (!we) {
        if (adr == ADR_NOW_LO)
            f->now_hi_latch_q = (uint16_t)(f->hi_q >> 8); /* tick_p[47:32] */
        if (adr == ADR_NEXT_LO)
            f->next_hi_latch_q = (uint16_t)(f->next_q >> 32);
        f->grp_q = val;
        f->o_wb_dat = val;
        if (rdata)
            *rdata = val;
    }
    if (!addr_ok(adr, we))
        f->cnt_buserr_q++;
    if (we && adr == ADR_ADVANCE) {
        /* B1 starts the sum (SETTLE1), B2 and B3 settle it: A_LO next */
        f->adv_add_hi_q = (uint16_t)(dat >> 16);
        f->adv_st_q = A_LO;
        m->quiet = false;
    }
    return true;
}

/* A CMD write from a quiet state in which time cannot move whatever the
 * search answers (HOLD, ADVANCE spent, or no host tick source), in closed
 * form up to the access's end: R and B0 as for fast_access(); B1 latches
 * the command (cnt_cmds, fly_n); V writes the bitmap, gives the late
 * verdict (no tick is in V, so nothing was seen) and starts the search
 * again; the idle clock after the ack starts it and passes the command on
 * to H2. The state after that is not quiet: the next edges are computed
 * whole. Requires the running search's answer to be at least five clocks
 * away, so that its outputs stay still until the restart. Returns false,
 * having changed nothing, for any other state. */
static bool fast_cmd(tw_model *m, uint32_t dat)
{
    if (!enter_held_quiet(m))
        return false;
    tw_flops *f = m->f;
    const unsigned depth = 1u << m->fifo_log2;
    const tw_dly old = { f->tick_v, f->c_lvl, f->c_slot };
    /* R, B0: the request and its decode; the B1 flops from the data */
    f->req_we_q = true;
    f->req_adr_q = ADR_CMD;
    f->req_dat_q = dat;
    decode_request(m, f, dat);
    capture_request(m, f, dat);
    /* B1 */
    const bool c_set = f->wop_set && f->wcmd_ok, c_clear = f->wop_clear && f->wcmd_ok;
    const bool c_clear_all = f->wop_clear_all;
    const bool c_bad = !((f->wop_set || f->wop_clear) && f->wcmd_ok) && !f->wop_clear_all;
    const uint8_t c_wr = f->wcmd_wr;
    f->cnt_cmds_q++;
    f->fly_n_q = (uint8_t)((f->fly_n_q + 1u) & 15u);
    /* V (room_q from the fly count B1 raised) */
    const bool cmd_v = c_set || c_clear || c_clear_all;
    const bool late_v = c_set && f->c_reached; /* visit_v is 0: nothing seen */
    f->room_q = (unsigned)f->count_q + f->fly_n_q + 4u <= depth;
    if (c_bad) {
        f->cmd_err_q = true;
        f->cnt_buserr_q++;
    }
    if (cmd_v) {
        f->srch_base_q = f->tick_v;
        f->j_seen = true;
    }
    if (c_clear_all) {
        memset(m->map, 0, sizeof m->map);
    } else if (c_wr) {
        unsigned lvl = (unsigned)__builtin_ctz(c_wr);
        uint16_t bit = (uint16_t)(1u << (f->c_slot & ((1u << m->sw_log2) - 1u)));
        uint16_t *w = &m->map[lvl][f->c_slot >> m->sw_log2];
        *w = c_set ? (uint16_t)(*w | bit) : (uint16_t)(*w & ~bit);
    }
    /* the delay RAM: the old command for R and B0, the new one after */
    dly_access(m, f, &old, 5);
    /* the search: four clocks of the running one, then the restart */
    if (m->srch.started && m->srch.t < m->srch.t_valid)
        m->srch.t += 4;
    if (cmd_v) {
        tw_search_model_step(&m->srch, 1, f->srch_base_q, m->words);
        f->n1_v = false;
    } else if (m->srch.started && m->srch.t < m->srch.t_valid) {
        m->srch.t++;
    }
    /* the idle clock after the ack: the command in H2 */
    f->cmd_h2 = true;
    f->late_h2 = late_v;
    f->cmd_fly_q = 4;
    m->cycles += 5;
    m->quiet = false;
    m->cmd_settle = cmd_v && !late_v && !m->srch.valid && quiet_edges(m) >= 7;
    return true;
}

/* An EVT_TICK read (which pops) from a quiet state in which no step can
 * start (the FIFO's room moves with the pop), in closed form up to the
 * access's end: R and B0 as for fast_access(); B1 takes the head's tick
 * into the read multiplexer and marks what the read consumed, raising the
 * pop when it was the head's last event; B2 pops; B3 the read-out, the
 * room, the threshold, the age and the interrupt line follow the count.
 * Only the read-out's flops and those move, so they alone are stepped.
 * The state after that is not quiet: the read-out's settling is computed
 * whole in the next edges. Returns false, having changed nothing, for any
 * other state. */
static bool fast_pop(tw_model *m, uint32_t *rdata)
{
    if (m->cmd_settle || !enter_held_quiet(m))
        return false;
    tw_flops *f = m->f;
    const tw_dly old = { f->tick_v, f->c_lvl, f->c_slot };
    /* R, B0 */
    f->req_we_q = false;
    f->req_adr_q = ADR_EVT_TICK;
    f->req_dat_q = 0;
    decode_request(m, f, 0);
    capture_request(m, f, 0);
    const uint32_t val = read_group(m, ADR_EVT_TICK);
    /* B1, B2, B3: the read-out with the pop strobe in B1 */
    f->r_pop = true;
    for (int i = 0; i < 3; i++)
        readout_clock(m);
    f = m->f;
    dly_access(m, f, &old, 5);
    if (m->srch.started && m->srch.t < m->srch.t_valid)
        m->srch.t += 5;
    m->cycles += 5;
    f->grp_q = val;
    f->o_wb_dat = val;
    if (rdata)
        *rdata = val;
    m->quiet = false;
    m->pop_settle = true;
    return true;
}

/* ------------------------------------------------------------- device ops */

static int model_access(tw_model *m, uint32_t addr, bool we, uint32_t wdata, uint32_t *rdata)
{
    if (addr % 4u != 0 || addr / 4u >= TW_REG_COUNT)
        return TW_EINVAL;
    if (fast_access(m, addr / 4u, we, wdata, rdata))
        return TW_OK;
    if (we && addr / 4u == ADR_CMD && fast_cmd(m, wdata))
        return TW_OK;
    if (!we && addr / 4u == ADR_EVT_TICK && fast_pop(m, rdata))
        return TW_OK;
    tw_bus_in req = { false, true, true, we, addr / 4u, wdata };
    bool acked = false;
    for (int k = 0; k < ACK_WAIT_MAX && !acked; k++) {
        tw_model_edge(m, &req);
        acked = m->f->o_wb_ack;
    }
    if (acked && rdata)
        *rdata = m->f->o_wb_dat;
    tw_model_edge(m, &bus_idle);
    return acked ? TW_OK : TW_ETIMEDOUT;
}

static int model_read(void *ctx, uint32_t addr, uint32_t *value)
{
    if (!ctx || !value)
        return TW_EINVAL;
    return model_access(ctx, addr, false, 0, value);
}

static int model_write(void *ctx, uint32_t addr, uint32_t value)
{
    if (!ctx)
        return TW_EINVAL;
    return model_access(ctx, addr, true, value, NULL);
}

static int model_wait_irq(void *ctx, uint64_t max_cycles)
{
    tw_model *m = ctx;
    if (!m)
        return TW_EINVAL;
    run_cycles(m, max_cycles, true);
    return m->f->irq_q ? 1 : 0;
}

static const tw_dev_ops model_ops;

/* Not a device op: a real chip's clock runs whatever the host does. A host
 * program that stands in for a board (examples/event_loop.c) runs the model's
 * clock from a thread of its own with this, interrupt line high or not. */
int tw_model_run(tw_dev *dev, uint64_t cycles)
{
    if (!dev || dev->ops != &model_ops || !dev->ctx)
        return TW_EINVAL;
    tw_model *m = dev->ctx;
    run_cycles(m, cycles, false);
    return m->f->irq_q ? 1 : 0;
}

static uint64_t model_cycles(void *ctx)
{
    const tw_model *m = ctx;
    return m ? m->cycles : 0;
}

static void model_set_ext_tick(void *ctx, int level)
{
    tw_model *m = ctx;
    if (m && m->ext_tick != (level != 0)) {
        m->ext_tick = level != 0;
        m->quiet = false; /* the synchroniser will move */
        m->cmd_settle = false;
        m->pop_settle = false;
    }
}

static void model_reset(void *ctx)
{
    tw_model *m = ctx;
    if (!m)
        return;
    tw_bus_in in = bus_idle;
    in.rst = true;
    tw_model_edge(m, &in);
}

static void model_close(void *ctx)
{
    tw_model *m = ctx;
    if (!m)
        return;
    free(m->fifo_mem);
    free(m);
}

static const tw_dev_ops model_ops = {
    .name = "model",
    .read = model_read,
    .write = model_write,
    .wait_irq = model_wait_irq,
    .cycles = model_cycles,
    .set_ext_tick = model_set_ext_tick,
    .reset = model_reset,
    .close = model_close,
};

int tw_model_open(tw_dev *dev, const tw_sim_config *cfg)
{
    if (!dev || !cfg)
        return TW_EINVAL;
    /* The same geometry check as tw_core's initial block. */
    if (cfg->levels < 1 || cfg->levels > MAX_LEVELS || cfg->slot_bits < 2 || cfg->slot_bits > 12
            || cfg->levels * cfg->slot_bits > 44 || cfg->fifo_log2 < 2 || cfg->fifo_log2 > 12)
        return TW_EINVAL;

    tw_model *m = calloc(1, sizeof *m);
    if (!m)
        return TW_ENOMEM;
    m->fifo_mem = calloc((size_t)1 << cfg->fifo_log2, sizeof *m->fifo_mem);
    if (!m->fifo_mem) {
        free(m);
        return TW_ENOMEM;
    }
    m->f = &m->fbuf[0];
    m->flops_size = sizeof m->fbuf[0];
    m->levels = cfg->levels;
    m->slot_bits = cfg->slot_bits;
    m->fifo_log2 = cfg->fifo_log2;
    m->sw_log2 = cfg->slot_bits < 4 ? cfg->slot_bits : 4u;
    for (unsigned k = 0; k < MAX_LEVELS; k++) {
        unsigned kb = k * cfg->slot_bits;
        m->lo_mask[k] = kb >= 24 ? HALF_MASK : (UINT32_C(1) << kb) - 1u;
        m->hi_mask[k] = kb <= 24 ? 0 : (UINT32_C(1) << (kb - 24)) - 1u;
        m->words[k] = m->map[k];
    }
    tw_search_model_init(&m->srch, m->levels, m->slot_bits);
    /* calloc starts every flop and memory at zero, as Verilator does here.
     * Then power up the way the Verilator backend does: one reset cycle and
     * a CAPS read, so both backends agree on the cycle count and on how far
     * the next-busy search has got. */
    tw_bus_in rst = bus_idle;
    rst.rst = true;
    tw_model_edge(m, &rst);
    model_access(m, TW_REG_CAPS, false, 0, NULL);

    dev->ops = &model_ops;
    dev->ctx = m;
    dev->reads = 0;
    dev->writes = 0;
    dev->waits = 0;
    dev->irqs = 0;
    return TW_OK;
}
