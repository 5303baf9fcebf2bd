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
 * (c_reached), the jump's byte comparisons as theirs (j_less), the NEXT
 * stage's 16-bit parts as whole 48-bit sums (n1_gap, n1_end), and of the
 * read multiplexer's three group registers the one the access reads.
 *
 * A register access is driven as sim/tw_vl.cpp drives the Verilated chip:
 * the request held until ack (at most ACK_WAIT_MAX edges), then one idle
 * clock; power-up is the same reset clock and CAPS read. So both backends
 * agree on every read value and on the cycle at which everything happens
 * (docs/chip.md, "Bus and timing contract", gives the clocks).
 *
 * Idle stretches are cheap: when an idle edge leaves every flop as it was
 * (time stopped or nothing to do, the search settled), every later idle edge
 * does too, and the rest of the wait is counted in closed form. With the
 * prescaler running, a stretch of ticks that visit no busy slot and cannot
 * change the interrupt line, NEXT or the search is also run in closed form
 * (skip_ticks()).
 */
#include <stdbool.h>
#include <stdint.h>
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
    /* H1, H2, G, E */
    uint8_t dly_wa;
    tw_dly dly_q;
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
    bool age_due_q, thresh_due_q, irq_q;
    /* read multiplexer */
    uint16_t now_hi_latch_q, next_hi_latch_q;
    uint32_t grp_q; /* the group register the access in B1 picked */
    bool rd1_q;
    uint32_t o_wb_dat;
} tw_flops;

typedef struct tw_model {
    /* geometry (the RTL's parameters) and what follows from it */
    unsigned levels, slot_bits, fifo_log2;
    unsigned sw_log2, nwords;
    uint32_t lo_mask[MAX_LEVELS], hi_mask[MAX_LEVELS];

    tw_flops f;
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

static bool advancing(const tw_flops *f)
{
    return f->adv_nz_q || adv_busy(f) || f->step_q || f->fly_q || f->j_busy_q;
}

static uint32_t status_value(const tw_model *m)
{
    const tw_flops *f = &m->f;
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
    const tw_flops *f = &m->f;
    switch (adr) {
    case 0: return TW_ID_MAGIC;
    case 1: return (TW_VERSION_MAJOR << TW_VERSION_MAJOR_LSB) | (TW_VERSION_MINOR << TW_VERSION_MINOR_LSB);
    case 2: return caps_value(m);
    case 3:
        return ((uint32_t)f->ctrl_vhold_q << TW_CTRL_VHOLD_LSB) | ((uint32_t)f->ctrl_irq_en_q << TW_CTRL_IRQ_EN_LSB)
             | ((uint32_t)f->ctrl_src_q << TW_CTRL_TICK_SRC_LSB);
    case 4: return f->presc_q;
    case 5: return status_value(m);
    case 6: return f->lo_d_q | (f->hi_q << 24); /* tick_p[31:0] */
    case 7: return f->now_hi_latch_q;
    case 8: return ((uint32_t)(uint16_t)(f->adv_hi_q - f->adv_borrow_q) << 16) | f->adv_lo_q;
    case 9: return f->arm_lo_q;
    case 10: return f->arm_hi_q;
    case 12: return f->evt_info_q;
    case 13: return f->empty1_q ? 0 : (uint32_t)f->head_q.tick;
    case 14: return f->cnt_events_q;
    case 15: return f->cnt_late_q;
    case 16: return f->cnt_overflow_q;
    case 17: return f->cnt_cmds_q;
    case 18: return f->cnt_buserr_q;
    case 19: return f->horizon_q;
    case 20: return (uint32_t)f->next_q;
    case 21: return f->next_hi_latch_q;
    case 22: return ((uint32_t)f->coal_thresh_q << 16) | f->coal_holdoff_q;
    default: return 0;
    }
}

/* The access names a register that allows it (d_addr_ok). */
static bool addr_ok(unsigned adr, bool we)
{
    switch (adr) {
    case 3: case 4: case 5: case 8: case 9: case 10: case 19: case 22:
        return true;
    case 0: case 1: case 2: case 6: case 7: case 12: case 13: case 14: case 15: case 16: case 17: case 18:
    case 20: case 21:
        return !we;
    case 11:
        return we;
    default:
        return false;
    }
}

/* One rising edge of i_clk. Returns whether it changed nothing at all (no
 * flop, no memory, no search progress): then, with the same inputs, no
 * later edge does either. */
static bool tw_model_edge(tw_model *mdl, const tw_bus_in *in)
{
    const tw_flops *m = &mdl->f;
    tw_flops n = *m;
    const bool rst = in->rst;
    const unsigned depth = 1u << mdl->fifo_log2;
    const unsigned slot_mask = (1u << mdl->slot_bits) - 1u;
    bool mem_changed = false;

    mdl->cycles++;

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
    const bool j_abort = m->j_seen || !sv || !m->n2_v || !src_host || m->j_bad;
    const bool j_last = m->j_wc == 1;
    const uint32_t wdat = m->req_dat_q;

    /* ------------------------------------------------------- bus, R/B0 */
    if (!m->pend_q && in->cyc && in->stb && !m->o_wb_ack) {
        n.pend_q = true;
        n.req_v_q = true;
        n.req_we_q = in->we;
        n.req_adr_q = (uint8_t)(in->adr & 63u);
        n.req_dat_q = in->dat;
        n.req_advrd_q = !in->we && (in->adr & 63u) == ADR_ADVANCE;
    } else if (dec) {
        n.req_v_q = false;
        n.req_advrd_q = false;
    }
    n.acc1_q = dec;
    n.acc2_q = m->acc1_q;
    n.o_wb_ack = m->acc2_q;
    if (m->acc2_q)
        n.pend_q = false;

    /* B1 strobes */
    {
        const bool dw = dec && m->req_we_q, dr = dec && !m->req_we_q;
        const unsigned a = m->req_adr_q;
        n.w_ctrl = dw && a == ADR_CTRL;
        n.w_presc = dw && a == ADR_PRESCALE;
        n.w_status = dw && a == ADR_STATUS;
        n.w_adv = dw && a == ADR_ADVANCE;
        n.w_arm_lo = dw && a == ADR_ARM_LO;
        n.w_arm_hi = dw && a == ADR_ARM_HI;
        n.w_cmd = dw && a == ADR_CMD;
        n.w_search = dw && a == ADR_SEARCH;
        n.w_coal = dw && a == ADR_COALESCE;
        n.bad_acc = dec && !addr_ok(a, m->req_we_q);
        n.r_acc = dr;
        n.r_pop = dr && a == ADR_EVT_TICK;
        n.r_now_lo = dr && a == ADR_NOW_LO;
        n.r_next_lo = dr && a == ADR_NEXT_LO;
        const unsigned d_op = (wdat >> TW_CMD_OP_LSB) & 15u;
        const unsigned d_level = (wdat >> TW_CMD_LEVEL_LSB) & 15u;
        const unsigned d_slot = (wdat >> TW_CMD_SLOT_LSB) & 0xFFFFu;
        const bool target_ok = (d_level >> 2) == 0 && (d_level & 3u) < mdl->levels && (d_slot & ~slot_mask) == 0;
        n.wop_set = d_op == OP_SET;
        n.wop_clear = d_op == OP_CLEAR;
        n.wop_clear_all = d_op == OP_CLEAR_ALL;
        n.wcmd_ok = target_ok;
        n.wcmd_wr = (uint8_t)((d_op == OP_SET || d_op == OP_CLEAR) && target_ok ? 1u << (d_level & 3u) : 0u);
    }

    /* control registers */
    if (m->w_ctrl) {
        n.ctrl_src_q = (uint8_t)((wdat & TW_CTRL_TICK_SRC_MASK) >> TW_CTRL_TICK_SRC_LSB);
        n.ctrl_irq_en_q = (wdat & TW_CTRL_IRQ_EN_MASK) != 0;
        n.ctrl_vhold_q = (wdat & TW_CTRL_VHOLD_MASK) != 0;
    }
    if (m->w_presc)
        n.presc_q = wdat;
    if (m->w_arm_lo)
        n.arm_lo_q = wdat;
    if (m->w_arm_hi)
        n.arm_hi_q = (uint16_t)wdat;
    if (m->w_search)
        n.horizon_q = wdat;
    if (m->w_coal) {
        n.coal_holdoff_q = (uint16_t)((wdat & TW_COALESCE_HOLDOFF_MASK) >> TW_COALESCE_HOLDOFF_LSB);
        n.coal_thresh_q = (uint16_t)((wdat & TW_COALESCE_THRESH_MASK) >> TW_COALESCE_THRESH_LSB);
    }

    /* ------------------------------------------ step decision, D; ADVANCE */
    n.step_q = step_d;
    n.ext_q = (uint8_t)(((m->ext_q << 1) | (mdl->ext_tick ? 1u : 0u)) & 7u);
    if (m->reload_q) {
        n.pc_hi_q = (uint16_t)(m->presc_q >> 16);
        n.pc_lo_q = (uint16_t)m->presc_q;
        n.pc_borrow_q = false;
    } else {
        n.pc_borrow_q = m->pc_lo_q == 0;
        n.pc_lo_q = (uint16_t)(m->pc_lo_q - 1u);
        n.pc_hi_q = (uint16_t)(m->pc_hi_q - m->pc_borrow_q);
    }
    n.ptick_q = presc_hit;
    n.reload_q = presc_hit || m->ctrl_src_q != SRC_INT;
    {
        const bool ge1 = m->adv_lo_q || m->adv_hi_q;
        const bool ge2 = (m->adv_lo_q >> 1) || m->adv_hi_q;
        const bool ge3 = (m->adv_lo_q >> 2) || (m->adv_lo_q & 3u) == 3u || m->adv_hi_q;
        const bool left_ge1 = m->adv_pend_q ? ge2 : ge1;
        const bool left_ge2 = m->adv_pend_q ? ge3 : ge2;
        n.adv_pend_q = step_host;
        n.adv_nz_q = step_host ? left_ge2 : left_ge1;
    }
    switch (m->adv_st_q) {
    case A_LO: {
        uint32_t s = (uint32_t)m->adv_lo_q + (wdat & 0xFFFFu);
        n.adv_c_q = (s >> 16) & 1u;
        n.adv_lo_q = (uint16_t)s;
        n.adv_st_q = A_HI;
        break;
    }
    case A_HI: {
        uint32_t s = (uint32_t)m->adv_hi_q + m->adv_add_hi_q + m->adv_c_q;
        if (s >> 16) {
            n.adv_hi_q = 0xFFFF;
            n.adv_lo_q = 0xFFFF;
        } else {
            n.adv_hi_q = (uint16_t)s;
        }
        n.adv_st_q = A_FLAG;
        break;
    }
    default: {
        uint32_t sub_lo = m->j_lo_q ? (m->j_amt_q & 0xFFFFu) : m->adv_pend_q;
        n.adv_borrow_q = m->adv_lo_q < sub_lo;
        n.adv_lo_q = (uint16_t)(m->adv_lo_q - sub_lo);
        n.adv_hi_q = (uint16_t)(m->adv_hi_q - (m->j_hi_q ? (m->j_amt_q >> 16) : m->adv_borrow_q));
        if (m->w_adv) {
            n.adv_add_hi_q = (uint16_t)(wdat >> 16);
            n.adv_st_q = A_SETTLE1;
        } else if (m->adv_st_q == A_SETTLE1) {
            n.adv_st_q = A_SETTLE2;
        } else if (m->adv_st_q == A_SETTLE2) {
            n.adv_st_q = A_LO;
        } else {
            n.adv_st_q = A_IDLE;
        }
        break;
    }
    }

    /* --------------------------------------------------- counter, C1/C2/P */
    {
        const bool en = m->step_q || m->j_lo_q;
        const uint32_t lo_sum = m->lo_q + m->lo_add_q;
        if (en)
            n.lo_q = lo_sum & HALF_MASK;
        n.carry_q = en && (lo_sum >> 24);
        n.hi_q = (m->hi_q + (m->j_hi_q ? (m->j_amt_q >> 24) : m->carry_q)) & HALF_MASK;
        n.lo_d_q = m->lo_q;
        n.step_c_q = m->step_q;
        n.step_p_q = m->step_c_q;
        uint8_t z = 1;
        for (unsigned k = 1; k < mdl->levels; k++)
            if ((m->lo_q & mdl->lo_mask[k]) == 0)
                z |= (uint8_t)(1u << k);
        n.zero_p = z;
    }
    const uint64_t tick_p = ((uint64_t)m->hi_q << 24) | m->lo_d_q;
    {
        uint8_t vp = 0;
        if (m->step_p_q)
            for (unsigned k = 0; k < mdl->levels; k++)
                if (((m->zero_p >> k) & 1u) && (m->hi_q & mdl->hi_mask[k]) == 0)
                    vp |= (uint8_t)(1u << k);
        n.tick_v = tick_p;
        n.visit_v = vp;
        n.step_v = m->step_p_q;
    }

    /* ------------------------------------------------- commands, B1 and V */
    n.c_set = m->w_cmd && m->wop_set && m->wcmd_ok;
    n.c_clear = m->w_cmd && m->wop_clear && m->wcmd_ok;
    n.c_clear_all = m->w_cmd && m->wop_clear_all;
    n.c_any = m->w_cmd;
    n.bm_clear = m->w_cmd && m->wop_clear_all;
    n.c_bad = m->w_cmd && !((m->wop_set || m->wop_clear) && m->wcmd_ok) && !m->wop_clear_all;
    n.c_wr = m->w_cmd ? m->wcmd_wr : 0;
    n.c_lvl = (uint8_t)((wdat >> TW_CMD_LEVEL_LSB) & 3u);
    {
        const unsigned cmd_slot = (wdat >> TW_CMD_SLOT_LSB) & slot_mask;
        n.c_slot = (uint16_t)cmd_slot;
        const uint64_t arm = ((uint64_t)m->arm_hi_q << 32) | m->arm_lo_q;
        n.c_reached = !((((tick_p - arm) & TICK_MASK) >> 47) & 1u);
        uint8_t match = 0;
        for (unsigned k = 0; k < mdl->levels; k++)
            if (((tick_p >> (k * mdl->slot_bits)) & slot_mask) == cmd_slot)
                match |= (uint8_t)(1u << k);
        n.c_match = match;
    }
    const bool seen_v = (m->c_match & m->visit_v & m->c_wr) != 0;
    const bool late_v = m->c_set && m->c_reached && !seen_v;

    /* --------------------------------------------------- search start */
    n.srch_start_q = cmd_v || srch_passed;
    if (cmd_v || srch_passed)
        n.srch_base_q = m->tick_v;

    /* ------------------------------------------------- H1, H2, G, E */
    n.dly_q = mdl->dly_mem[(m->dly_wa + 1u) & 3u]; /* written three clocks ago */
    n.dly_wa = (uint8_t)((m->dly_wa + 1u) & 3u);
    n.hit_h2 = m->hit_h1;
    n.hit_g = m->hit_h2;
    n.late_h1 = late_v;
    n.late_h2 = m->late_h1;
    n.late_g = m->late_h2;
    n.step_h1 = m->step_v;
    n.step_h2 = m->step_h1;
    n.step_g = m->step_h2;
    n.cmd_h1 = m->c_any;
    n.cmd_h2 = m->cmd_h1;
    n.cmd_g = m->cmd_h2;
    n.hit_e = m->hit_g;
    n.n_ev_e = (uint8_t)(m->late_g + popcount4(m->hit_g));
    n.push_e = m->hit_g || m->late_g;
    n.late_e = m->late_g;
    n.step_e = m->step_g;
    n.cmd_e = m->cmd_g;

    /* ----------------------------------------------------------- FIFO */
    const bool do_pop = m->pop_fifo && !fifo_empty;
    const bool push_ok = !fifo_full || do_pop;
    const bool do_push = m->push_e && push_ok;
    if (do_push)
        n.wr_ptr_q = (uint16_t)((m->wr_ptr_q + 1u) & (depth - 1u));
    if (do_pop)
        n.rd_ptr_q = (uint16_t)((m->rd_ptr_q + 1u) & (depth - 1u));
    if (do_push && !do_pop)
        n.count_q = (uint16_t)(m->count_q + 1u);
    else if (do_pop && !do_push)
        n.count_q = (uint16_t)(m->count_q - 1u);

    /* in flight, the FIFO's room */
    n.fly_n_q = (uint8_t)((m->fly_n_q + m->step_q + m->w_cmd - m->step_e - m->cmd_e) & 15u);
    n.room_q = (unsigned)m->count_q + m->fly_n_q + 4u <= depth;
    n.fly_q = m->step_q || m->step_c_q || m->step_p_q || m->step_v || m->step_h1 || m->step_h2 || m->step_g
              || m->step_e;
    n.cmd_fly_q = (uint8_t)(dec && req_cmd ? 7u : m->cmd_fly_q - (m->cmd_fly_q != 0 ? 1u : 0u));

    /* status, statistics, at the push */
    if (m->push_e && !push_ok)
        n.overflow_q = true;
    else if (m->w_status && (wdat & TW_STATUS_OVERFLOW_MASK))
        n.overflow_q = false;
    if (m->c_bad)
        n.cmd_err_q = true;
    else if (m->w_status && (wdat & TW_STATUS_CMD_ERR_MASK))
        n.cmd_err_q = false;
    if (m->push_e && push_ok && vmode)
        n.hold_q = true;
    else if (m->w_status && (wdat & TW_STATUS_HOLD_MASK))
        n.hold_q = false;
    if (m->push_e && push_ok)
        n.cnt_events_q += m->n_ev_e;
    if (m->push_e && !push_ok)
        n.cnt_overflow_q += m->n_ev_e;
    if (m->late_e)
        n.cnt_late_q++;
    if (m->w_cmd)
        n.cnt_cmds_q++;
    if (m->bad_acc || m->c_bad)
        n.cnt_buserr_q++;

    /* ------------------------------------------------ event read-out */
    n.head_q = mdl->fifo_mem[m->rd_ptr_q];
    n.empty1_q = fifo_empty;
    {
        const tw_entry *h = &m->head_q;
        const bool rem_late = h->late && !m->consumed_late_q;
        const unsigned rem_mask = h->mask & ~m->consumed_mask_q & 15u;
        const unsigned vis_level = rem_mask ? (unsigned)__builtin_ctz(rem_mask) : 0u;
        const unsigned vis_bit = rem_mask ? 1u << vis_level : 0u;
        n.sel_late_q = rem_late;
        n.sel_level_q = (uint8_t)vis_level;
        n.sel_bit_q = (uint8_t)vis_bit;
        n.sel_last_q = rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;
        n.sel_empty_q = m->empty1_q;
        if (m->sel_empty_q) {
            n.evt_info_q = 0;
        } else {
            unsigned slot = m->sel_late_q ? h->slot
                                          : (unsigned)(h->tick >> (m->sel_level_q * mdl->slot_bits)) & slot_mask;
            unsigned level = m->sel_late_q ? h->level : m->sel_level_q;
            n.evt_info_q = TW_EVT_INFO_VALID_MASK | ((uint32_t)m->sel_late_q << TW_EVT_INFO_LATE_LSB)
                         | ((uint32_t)level << TW_EVT_INFO_LEVEL_LSB) | ((uint32_t)slot << TW_EVT_INFO_SLOT_LSB)
                         | (uint32_t)((h->tick >> 32) & 0xFFFFu);
        }
        n.pop_fifo = m->r_pop && !m->sel_empty_q && m->sel_last_q;
        if (m->pop_fifo) {
            n.consumed_mask_q = 0;
            n.consumed_late_q = false;
        } else if (m->r_pop && !m->sel_empty_q) {
            if (m->sel_late_q)
                n.consumed_late_q = true;
            else
                n.consumed_mask_q = (uint8_t)(m->consumed_mask_q | m->sel_bit_q);
        }
    }

    /* --------------------------------------- the answer against time */
    n.n1_gap = (snext + (~m->tick_v & TICK_MASK)) & TICK_MASK;
    n.n1_end = (m->tick_v + m->horizon_q) & TICK_MASK;
    n.n1_v = sv && !m->srch_start_q;
    n.n1_f = sf;
    n.n2_gap = m->n1_gap;
    n.n2_within = m->n1_f && (m->n1_gap >> 32) == 0 && (uint32_t)m->n1_gap < m->horizon_q;
    n.n2_end = m->n1_end;
    n.n2_v = m->n1_v && sv;
    n.n2_f = m->n1_f;
    {
        const bool n2_ok = m->n2_v && sv && (!m->n2_f || !(m->n2_gap >> 47));
        n.searching_q = !n2_ok;
        n.next_q = !n2_ok ? 0 : m->n2_within ? snext : m->n2_end;
    }

    /* ------------------------------------------------------- the jump */
    n.j_far_q = m->n2_v && !(m->n2_gap >> 47)
                && (m->ctrl_vhold_q ? ((m->n2_gap >> 1) & 0x3FFFFFFFFFFFull) != 0
                                    : ((m->n2_gap >> 5) & 0x3FFFFFFFFFFull) != 0);
    n.j_adv_far_q = m->ctrl_vhold_q ? (adv_left >> 1) != 0 : (adv_left >> 5) != 0;
    n.j_go_q = src_host && m->adv_nz_q && m->n2_v && sv && (m->j_far_q || !m->n2_f) && m->j_adv_far_q
               && !m->j_busy_q && m->j_cool == 0 && !m->hold_q && !a_busy && !m->w_adv;
    n.j_wait_q = j_start || (m->j_wait_q && !j_last);
    n.j_cmp_q = m->j_wait_q && j_last;
    n.j_sel_q = m->j_cmp_q;
    n.j_lo_q = m->j_sel_q && !j_abort;
    n.j_carry_q = m->j_lo_q;
    n.j_hi_q = m->j_carry_q;
    n.j_end_q = (m->j_sel_q && j_abort) || m->j_hi_q || (m->j_end_q && !j_last);
    n.j_busy_q = j_start || (m->j_busy_q && !(m->j_end_q && j_last));
    if (j_start)
        n.j_wc = 7;
    else if (m->j_sel_q && j_abort)
        n.j_wc = 2;
    else if (m->j_hi_q)
        n.j_wc = 3;
    else if (m->j_wait_q || m->j_end_q)
        n.j_wc = (uint8_t)((m->j_wc - 1u) & 7u);
    if (m->j_end_q && j_last)
        n.j_cool = 8;
    else if (m->j_cool != 0 && !m->j_busy_q)
        n.j_cool = (uint8_t)(m->j_cool - 1u);
    if (j_start)
        n.j_seen = false;
    else if (cmd_v || m->srch_start_q)
        n.j_seen = true;
    if (m->j_cmp_q) {
        n.j_bad = (m->n2_f && ((m->n2_gap >> 47) || m->n2_gap == 0)) || adv_left == 0;
        n.j_big = !m->n2_f || (m->n2_gap >> 32) != 0;
        n.j_less = (uint32_t)m->n2_gap < adv_left;
    }
    n.lo_add_q = 1;
    if (m->j_sel_q && !j_abort) {
        uint32_t amt = m->j_big || !m->j_less ? adv_left : (uint32_t)m->n2_gap;
        n.j_amt_q = amt;
        n.lo_add_q = amt & HALF_MASK;
    }

    /* ------------------------------------------ interrupt, coalescing */
    if (fifo_empty)
        n.age_q = 0;
    else if (m->j_lo_q)
        n.age_q = (m->j_amt_q >> 16) || (uint32_t)m->age_q + (m->j_amt_q & 0xFFFFu) > 0xFFFFu
                      ? 0xFFFF
                      : (uint16_t)(m->age_q + (m->j_amt_q & 0xFFFFu));
    else if (m->step_v && m->age_q != 0xFFFF)
        n.age_q = (uint16_t)(m->age_q + 1u);
    n.age_due_q = m->age_q >= m->coal_holdoff_q;
    n.thresh_due_q = m->count_q >= m->coal_thresh_q;
    n.irq_q = m->ctrl_irq_en_q && !fifo_empty && (m->hold_q || fifo_full || m->thresh_due_q || m->age_due_q);

    /* -------------------------------------------------- read mux */
    if (m->r_now_lo)
        n.now_hi_latch_q = (uint16_t)(tick_p >> 32);
    if (m->r_next_lo)
        n.next_hi_latch_q = (uint16_t)(m->next_q >> 32);
    n.rd1_q = m->r_acc;
    if (m->r_acc)
        n.grp_q = read_group(mdl, m->req_adr_q);
    if (m->rd1_q)
        n.o_wb_dat = m->grp_q;

    /* ------------------------------------------------------- reset */
    if (rst) {
        n.pend_q = n.req_v_q = n.acc1_q = n.acc2_q = n.o_wb_ack = false;
        n.req_we_q = false;
        n.req_adr_q = 0;
        n.req_dat_q = 0;
        n.req_advrd_q = false;
        n.w_ctrl = n.w_presc = n.w_status = n.w_adv = n.w_arm_lo = n.w_arm_hi = n.w_cmd = n.w_search = false;
        n.w_coal = n.bad_acc = n.r_acc = n.r_pop = n.r_now_lo = n.r_next_lo = false;
        n.ctrl_src_q = SRC_HOST;
        n.ctrl_irq_en_q = n.ctrl_vhold_q = false;
        n.presc_q = n.arm_lo_q = 0;
        n.arm_hi_q = 0;
        n.horizon_q = UINT32_MAX;
        n.coal_holdoff_q = n.coal_thresh_q = 0;
        n.step_q = false;
        n.pc_lo_q = n.pc_hi_q = 0;
        n.pc_borrow_q = false;
        n.reload_q = true;
        n.ptick_q = false;
        n.ext_q = 0;
        n.adv_lo_q = n.adv_hi_q = 0;
        n.adv_borrow_q = n.adv_nz_q = n.adv_pend_q = false;
        n.adv_st_q = A_IDLE;
        n.adv_add_hi_q = 0;
        n.adv_c_q = false;
        n.lo_q = n.hi_q = n.lo_d_q = 0;
        n.carry_q = n.step_c_q = n.step_p_q = false;
        n.zero_p = (uint8_t)((1u << mdl->levels) - 1u);
        n.tick_v = 0;
        n.visit_v = 0;
        n.step_v = false;
        n.c_set = n.c_clear = n.c_clear_all = n.c_any = n.c_bad = false;
        n.bm_clear = true;
        n.c_wr = 0;
        n.srch_start_q = true;
        n.srch_base_q = 0;
        n.hit_h1 = n.hit_h2 = n.hit_g = 0;
        n.late_h1 = n.late_h2 = n.late_g = false;
        n.step_h1 = n.step_h2 = n.step_g = false;
        n.cmd_h1 = n.cmd_h2 = n.cmd_g = false;
        n.push_e = n.late_e = n.step_e = n.cmd_e = false;
        n.rd_ptr_q = n.wr_ptr_q = n.count_q = 0;
        n.fly_n_q = 0;
        n.room_q = true;
        n.fly_q = false;
        n.cmd_fly_q = 0;
        n.overflow_q = n.cmd_err_q = n.hold_q = false;
        n.cnt_events_q = n.cnt_late_q = n.cnt_overflow_q = n.cnt_cmds_q = n.cnt_buserr_q = 0;
        n.empty1_q = true;
        n.sel_empty_q = true;
        n.pop_fifo = false;
        n.consumed_mask_q = 0;
        n.consumed_late_q = false;
        n.n1_v = n.n2_v = false;
        n.searching_q = true;
        n.j_go_q = false;
        n.j_wait_q = n.j_cmp_q = n.j_sel_q = n.j_carry_q = n.j_end_q = n.j_busy_q = false;
        n.j_wc = 0;
        n.j_cool = 0;
        n.j_seen = n.j_lo_q = n.j_hi_q = false;
        n.lo_add_q = 1;
        n.j_amt_q = 0;
        n.j_big = n.j_bad = n.j_less = false;
        n.age_q = 0;
        n.age_due_q = n.thresh_due_q = true;
        n.irq_q = false;
        n.now_hi_latch_q = n.next_hi_latch_q = 0;
        n.rd1_q = false;
        n.o_wb_dat = 0;
    }

    /* ------------------------------------------------- block RAMs */
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
    if (d->tick != m->tick_v || d->lvl != m->c_lvl || d->slot != m->c_slot) {
        d->tick = m->tick_v;
        d->lvl = m->c_lvl;
        d->slot = m->c_slot;
        mem_changed = true;
    }
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
        n.hit_h1 = rst ? 0 : hit;
    }
    /* The search, its bitmaps read in the start's clock. */
    bool srch_moved = false;
    if (rst) {
        tw_search_model_init(&mdl->srch, mdl->levels, mdl->slot_bits);
        srch_moved = true;
    } else if (m->srch_start_q || (mdl->srch.started && mdl->srch.t < mdl->srch.t_valid)) {
        tw_search_model_step(&mdl->srch, m->srch_start_q, m->srch_base_q, mdl->words);
        srch_moved = true;
    }

    /* The delay RAM's write address moves every clock; it is not seen while
     * the RAM's four words are alike (dly_steady()). */
    uint8_t wa = n.dly_wa;
    n.dly_wa = m->dly_wa;
    bool same = !mem_changed && !srch_moved && memcmp(&n, m, sizeof n) == 0;
    n.dly_wa = wa;
    mdl->f = n;
    return same;
}

/* ------------------------------------------------------------- idle runs */

/* The entry delay RAM's four words all hold what is written every clock:
 * then its write address is never seen. */
static bool dly_steady(const tw_model *m)
{
    const tw_flops *f = &m->f;
    for (unsigned i = 0; i < 4; i++) {
        const tw_dly *d = &m->dly_mem[i];
        if (d->tick != f->tick_v || d->lvl != f->c_lvl || d->slot != f->c_slot)
            return false;
    }
    return true;
}

/* Runs the clock with the bus idle; stops early once the interrupt line is
 * high if asked to. A fixed point ends the work: the rest is counted. */
static void run_cycles(tw_model *m, uint64_t cycles, bool stop_at_irq)
{
    while (cycles > 0 && !(stop_at_irq && m->f.irq_q)) {
        bool same = tw_model_edge(m, &bus_idle);
        cycles--;
        if (same && dly_steady(m)) {
            m->cycles += cycles;
            m->f.dly_wa = (uint8_t)((m->f.dly_wa + cycles) & 3u);
            return;
        }
    }
}

/* ------------------------------------------------------------- device ops */

static int model_access(tw_model *m, uint32_t addr, bool we, uint32_t wdata, uint32_t *rdata)
{
    if (addr % 4u != 0 || addr / 4u >= TW_REG_COUNT)
        return TW_EINVAL;
    tw_bus_in req = { false, true, true, we, addr / 4u, wdata };
    bool acked = false;
    for (int k = 0; k < ACK_WAIT_MAX && !acked; k++) {
        tw_model_edge(m, &req);
        acked = m->f.o_wb_ack;
    }
    if (acked && rdata)
        *rdata = m->f.o_wb_dat;
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
    return m->f.irq_q ? 1 : 0;
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
    return m->f.irq_q ? 1 : 0;
}

static uint64_t model_cycles(void *ctx)
{
    const tw_model *m = ctx;
    return m ? m->cycles : 0;
}

static void model_set_ext_tick(void *ctx, int level)
{
    tw_model *m = ctx;
    if (m)
        m->ext_tick = level != 0;
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
    m->levels = cfg->levels;
    m->slot_bits = cfg->slot_bits;
    m->fifo_log2 = cfg->fifo_log2;
    m->sw_log2 = cfg->slot_bits < 4 ? cfg->slot_bits : 4u;
    m->nwords = (1u << cfg->slot_bits) >> m->sw_log2;
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
