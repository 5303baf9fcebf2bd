/* tickwheel C model: a cycle-accurate copy of rtl/tw_core.v and rtl/tw_evfifo.v.
 *
 * The state struct holds exactly the chip's flops; tw_model_edge() computes one
 * rising clock edge the way the always blocks do: every combinational value is
 * derived from the current state and inputs first, then all flops update at
 * once. A register access is two edges (request, then idle while ack falls),
 * the same protocol the Verilator backend drives, so both backends agree on
 * every read value and on the cycle at which everything happens.
 *
 * wait_irq has a fast path that jumps over runs of idle cycles whose outcome is
 * known in closed form: no bus access, the next-busy search finished and not
 * about to go stale, no busy slot visited, and the interrupt line not about to
 * rise. Everything else (a running search, a virtual-time jump, which takes
 * only a few edges per event) goes through the per-cycle edge function, which
 * itself takes a short path (quiet_edge) when only the search can move.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tw_dev.h"
#include "tw_err.h"
#include "tw_regs.h"

#define TICK_BITS 48u
#define TICK_MASK ((UINT64_C(1) << TICK_BITS) - 1)
#define MAX_LEVELS 4u
#define MAX_SLOT_BITS 12u
#define MAP_WORDS ((1u << MAX_SLOT_BITS) / 64u)
#define WORD_ADDRS 64u /* 6-bit word address */

/* Word addresses, as the RTL decodes i_wb_adr. */
enum {
    ADR_ID = TW_REG_ID / 4,
    ADR_VERSION = TW_REG_VERSION / 4,
    ADR_CAPS = TW_REG_CAPS / 4,
    ADR_CTRL = TW_REG_CTRL / 4,
    ADR_PRESCALE = TW_REG_PRESCALE / 4,
    ADR_STATUS = TW_REG_STATUS / 4,
    ADR_NOW_LO = TW_REG_NOW_LO / 4,
    ADR_NOW_HI = TW_REG_NOW_HI / 4,
    ADR_ADVANCE = TW_REG_ADVANCE / 4,
    ADR_ARM_LO = TW_REG_ARM_LO / 4,
    ADR_ARM_HI = TW_REG_ARM_HI / 4,
    ADR_CMD = TW_REG_CMD / 4,
    ADR_EVT_INFO = TW_REG_EVT_INFO / 4,
    ADR_EVT_TICK = TW_REG_EVT_TICK / 4,
    ADR_CNT_EVENTS = TW_REG_CNT_EVENTS / 4,
    ADR_CNT_LATE = TW_REG_CNT_LATE / 4,
    ADR_CNT_OVERFLOW = TW_REG_CNT_OVERFLOW / 4,
    ADR_CNT_CMDS = TW_REG_CNT_CMDS / 4,
    ADR_CNT_BUSERR = TW_REG_CNT_BUSERR / 4,
    ADR_SEARCH = TW_REG_SEARCH / 4,
    ADR_NEXT_LO = TW_REG_NEXT_LO / 4,
    ADR_NEXT_HI = TW_REG_NEXT_HI / 4,
    ADR_COALESCE = TW_REG_COALESCE / 4,
};

enum { SRC_HOST = 0, SRC_INT = 1, SRC_EXT = 2 };
enum { OP_SET = 1, OP_CLEAR = 2, OP_CLEAR_ALL = 3 };

/* One FIFO entry: {tick, visit mask, late arm, arm level, arm slot}. */
typedef struct tw_entry {
    uint64_t tick;
    uint8_t mask;
    uint8_t late;
    uint8_t level;
    uint16_t slot;
} tw_entry;

typedef struct tw_model {
    /* geometry (the RTL's parameters) */
    unsigned levels, slot_bits, fifo_log2;

    /* tw_core flops */
    uint64_t now_q;
    uint64_t busy_q[MAX_LEVELS][MAP_WORDS];
    unsigned ctrl_src_q;
    bool ctrl_irq_en_q, ctrl_vhold_q;
    uint32_t prescale_q, presc_cnt_q;
    uint32_t adv_rem_q;
    uint32_t arm_lo_q;
    uint16_t arm_hi_q;
    uint16_t now_hi_snap_q;
    bool overflow_q, hold_q, cmd_err_q;
    unsigned consumed_mask_q;
    bool consumed_late_q;
    unsigned ext_sync_q; /* bit 0 first synchroniser stage, bit 2 edge history */
    uint32_t cnt_events_q, cnt_late_q, cnt_overflow_q, cnt_cmds_q, cnt_buserr_q;
    uint16_t coal_holdoff_q, coal_thresh_q;
    uint16_t irq_age_q;
    uint32_t horizon_q;
    uint16_t next_hi_snap_q;
    bool o_wb_ack;
    uint32_t o_wb_dat;

    /* next-busy search flops */
    bool s_run_q, s_valid_q, s_found_q;
    unsigned s_lvl_q; /* LVL_W = 2 bits */
    unsigned s_i_q;   /* words scanned at this level, 0 .. NWORDS */
    uint64_t s_base_q, s_best_q;

    /* tw_evfifo flops; mem_q is not reset, as in the RTL */
    tw_entry *mem_q;
    unsigned rd_ptr_q, wr_ptr_q, count_q;

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

static unsigned slots_of(const tw_model *m) { return 1u << m->slot_bits; }
static unsigned fifo_depth(const tw_model *m) { return 1u << m->fifo_log2; }
static bool fifo_full(const tw_model *m) { return m->count_q == fifo_depth(m); }
static bool fifo_empty(const tw_model *m) { return m->count_q == 0; }
/* The search scans SW = min(16, 2^b) slots of one level a cycle. */
static unsigned search_sw_log2(const tw_model *m) { return m->slot_bits < 4 ? m->slot_bits : 4u; }

/* Coalescing: enough entries, or non-empty long enough, or held or full. */
static bool irq_due(const tw_model *m)
{
    return m->hold_q || fifo_full(m) || m->count_q >= m->coal_thresh_q
        || m->irq_age_q >= m->coal_holdoff_q;
}
static bool irq_line(const tw_model *m)
{
    return m->ctrl_irq_en_q && !fifo_empty(m) && irq_due(m);
}

/* The search's answer is usable: finished, and still ahead of now (time may
 * pass it while the search runs). */
static bool search_ok(const tw_model *m)
{
    uint64_t best_dist = (m->s_best_q - m->now_q) & TICK_MASK;
    bool best_ahead = best_dist != 0 && !((best_dist >> (TICK_BITS - 1)) & 1u);
    return m->s_valid_q && (!m->s_found_q || best_ahead);
}

/* NEXT: the search's answer capped at now + horizon, 0 while not usable. */
static uint64_t next_tick(const tw_model *m)
{
    if (!search_ok(m))
        return 0;
    if (m->s_found_q && ((m->s_best_q - m->now_q) & TICK_MASK) <= m->horizon_q)
        return m->s_best_q;
    return (m->now_q + m->horizon_q) & TICK_MASK;
}

static bool busy_bit(const tw_model *m, unsigned level, unsigned slot)
{
    return (m->busy_q[level][slot / 64] >> (slot % 64)) & 1u;
}

static unsigned popcount4(unsigned v)
{
    return (v & 1u) + ((v >> 1) & 1u) + ((v >> 2) & 1u) + ((v >> 3) & 1u);
}

/* Everything the always @(*) blocks and continuous assignments compute from
 * the current state and inputs, before the edge. */
typedef struct tw_comb {
    bool acc, wr, rd;
    bool adv_step, step;
    uint64_t adv_amt, step_amt, now_next;
    unsigned hit; /* one bit per level */
    bool cmd_wr, cmd_set, cmd_clear, cmd_clear_all, cmd_bad;
    unsigned cmd_lvl, cmd_sl;
    bool late, push, push_ok, do_push;
    bool pop_evt, ev_last, rem_late;
    unsigned vis_bit;
    unsigned n_events;
    uint32_t rdata;
    bool addr_ok;
    bool fifo_empty; /* before the edge: irq_age_q needs it after the FIFO moved */
    uint64_t next_tick;
    /* next-busy search */
    bool s_start, s_hit, s_better, s_level_done;
    uint64_t s_cand;
} tw_comb;

/* The head entry's next event, in the order EVT_INFO hands them out. */
typedef struct tw_head_view {
    const tw_entry *head;
    bool rem_late;
    unsigned rem_mask, vis_level, vis_bit;
    unsigned ev_level, ev_slot;
    bool ev_last;
} tw_head_view;

static tw_head_view head_view(const tw_model *m)
{
    tw_head_view v;
    /* o_head is mem_q[rd_ptr_q] even when the FIFO is empty. */
    v.head = &m->mem_q[m->rd_ptr_q];
    v.rem_late = v.head->late && !m->consumed_late_q;
    v.rem_mask = v.head->mask & ~m->consumed_mask_q & ((1u << m->levels) - 1u);
    v.vis_level = 0;
    v.vis_bit = 0;
    for (unsigned k = 0; k < m->levels; k++) {
        if (v.rem_mask & (1u << k)) {
            v.vis_level = k;
            v.vis_bit = 1u << k;
            break;
        }
    }
    unsigned slot_mask = slots_of(m) - 1u;
    if (v.rem_late) {
        v.ev_level = v.head->level;
        v.ev_slot = v.head->slot;
        v.ev_last = v.rem_mask == 0;
    } else {
        v.ev_level = v.vis_level;
        v.ev_slot = (unsigned)(v.head->tick >> (v.vis_level * m->slot_bits)) & slot_mask;
        v.ev_last = (v.rem_mask & ~v.vis_bit) == 0;
    }
    return v;
}

static uint32_t status_value(const tw_model *m)
{
    return ((uint32_t)m->overflow_q << TW_STATUS_OVERFLOW_LSB)
         | ((uint32_t)m->hold_q << TW_STATUS_HOLD_LSB)
         | ((uint32_t)m->cmd_err_q << TW_STATUS_CMD_ERR_LSB)
         | ((uint32_t)(m->adv_rem_q != 0) << TW_STATUS_ADVANCING_LSB)
         | ((uint32_t)irq_line(m) << TW_STATUS_IRQ_LSB)
         | ((uint32_t)!search_ok(m) << TW_STATUS_SEARCHING_LSB)
         | ((uint32_t)m->count_q << TW_STATUS_FIFO_COUNT_LSB);
}

static void read_mux(const tw_model *m, const tw_bus_in *in, const tw_head_view *hv,
                     uint32_t *rdata, bool *addr_ok)
{
    uint32_t r = 0;
    bool ok = true;
    switch (in->adr) {
    case ADR_ID:
        r = TW_ID_MAGIC;
        ok = !in->we;
        break;
    case ADR_VERSION:
        r = (TW_VERSION_MAJOR << 16) | TW_VERSION_MINOR;
        ok = !in->we;
        break;
    case ADR_CAPS:
        r = ((uint32_t)m->levels << TW_CAPS_LEVELS_LSB)
          | ((uint32_t)m->slot_bits << TW_CAPS_SLOT_BITS_LSB)
          | ((uint32_t)m->fifo_log2 << TW_CAPS_FIFO_LOG2_LSB)
          | ((uint32_t)TICK_BITS << TW_CAPS_TICK_BITS_LSB);
        ok = !in->we;
        break;
    case ADR_CTRL:
        r = ((uint32_t)m->ctrl_vhold_q << TW_CTRL_VHOLD_LSB)
          | ((uint32_t)m->ctrl_irq_en_q << TW_CTRL_IRQ_EN_LSB)
          | ((uint32_t)m->ctrl_src_q << TW_CTRL_TICK_SRC_LSB);
        break;
    case ADR_PRESCALE:
        r = m->prescale_q;
        break;
    case ADR_STATUS:
        r = status_value(m);
        break;
    case ADR_NOW_LO:
        r = (uint32_t)m->now_q;
        ok = !in->we;
        break;
    case ADR_NOW_HI:
        r = m->now_hi_snap_q;
        ok = !in->we;
        break;
    case ADR_ADVANCE:
        r = m->adv_rem_q;
        break;
    case ADR_ARM_LO:
        r = m->arm_lo_q;
        break;
    case ADR_ARM_HI:
        r = m->arm_hi_q;
        break;
    case ADR_CMD:
        ok = in->we;
        break;
    case ADR_EVT_INFO: /* all zero when empty: the stale head is never shown */
        if (!fifo_empty(m))
            r = TW_EVT_INFO_VALID_MASK
              | ((uint32_t)hv->rem_late << TW_EVT_INFO_LATE_LSB)
              | ((uint32_t)hv->ev_level << TW_EVT_INFO_LEVEL_LSB)
              | ((uint32_t)hv->ev_slot << TW_EVT_INFO_SLOT_LSB)
              | (uint32_t)((hv->head->tick >> 32) & 0xFFFFu);
        ok = !in->we;
        break;
    case ADR_EVT_TICK:
        if (!fifo_empty(m))
            r = (uint32_t)hv->head->tick;
        ok = !in->we;
        break;
    case ADR_CNT_EVENTS:
        r = m->cnt_events_q;
        ok = !in->we;
        break;
    case ADR_CNT_LATE:
        r = m->cnt_late_q;
        ok = !in->we;
        break;
    case ADR_CNT_OVERFLOW:
        r = m->cnt_overflow_q;
        ok = !in->we;
        break;
    case ADR_CNT_CMDS:
        r = m->cnt_cmds_q;
        ok = !in->we;
        break;
    case ADR_CNT_BUSERR:
        r = m->cnt_buserr_q;
        ok = !in->we;
        break;
    case ADR_SEARCH:
        r = m->horizon_q;
        break;
    case ADR_NEXT_LO:
        r = (uint32_t)next_tick(m);
        ok = !in->we;
        break;
    case ADR_NEXT_HI:
        r = m->next_hi_snap_q;
        ok = !in->we;
        break;
    case ADR_COALESCE:
        r = ((uint32_t)m->coal_thresh_q << TW_COALESCE_THRESH_LSB)
          | ((uint32_t)m->coal_holdoff_q << TW_COALESCE_HOLDOFF_LSB);
        break;
    default:
        ok = false;
        break;
    }
    *rdata = r;
    *addr_ok = ok;
}

/* The next-busy search's combinational part: one word of SW slots of level
 * s_lvl_q, in circular order from the slot after the level's pointer in
 * s_base_q, judged against the counter after this cycle's step. */
static void search_comb(const tw_model *m, uint64_t now_next, bool bitmap_cmd, tw_comb *c)
{
    unsigned slot_mask = slots_of(m) - 1u;
    /* SW and NWORDS are powers of two: shifts and masks, not division
     * (this runs on every edge). */
    unsigned sw_log2 = search_sw_log2(m);
    unsigned sw = 1u << sw_log2, nwords = slots_of(m) >> sw_log2;
    uint64_t sw_mask = (UINT64_C(1) << sw) - 1u;
    unsigned shift = m->s_lvl_q * m->slot_bits;
    unsigned p = (unsigned)(m->s_base_q >> shift) & slot_mask;
    unsigned q = (p + 1u) & slot_mask;
    unsigned qw = q >> sw_log2, qb = q & (sw - 1u);
    unsigned widx = (qw + m->s_i_q) & (nwords - 1u);
    uint64_t hits = 0;
    if (m->s_lvl_q < m->levels) { /* s_map is all zero otherwise */
        unsigned bit0 = widx * sw; /* SW divides 64: one map word holds it */
        hits = (m->busy_q[m->s_lvl_q][bit0 / 64u] >> (bit0 % 64u)) & sw_mask;
    }
    if (m->s_i_q == 0)
        hits &= (sw_mask << qb) & sw_mask;
    if (m->s_i_q == nwords)
        hits &= ~(sw_mask << qb) & sw_mask;
    c->s_hit = hits != 0;
    unsigned j = hits ? (unsigned)__builtin_ctzll(hits) : 0u;
    /* 32-bit integer arithmetic, as the always block's integers */
    uint32_t o = (uint32_t)m->s_i_q * sw + j - qb + 1u;
    uint64_t low = (UINT64_C(1) << shift) - 1u;
    c->s_cand = ((m->s_base_q & ~low) + ((uint64_t)o << shift)) & TICK_MASK;
    c->s_better = !m->s_found_q || ((c->s_cand - m->s_base_q) & TICK_MASK)
                                      < ((m->s_best_q - m->s_base_q) & TICK_MASK);
    c->s_level_done = c->s_hit || m->s_i_q == nwords;

    uint64_t best_ahead = (m->s_best_q - now_next) & TICK_MASK;
    bool stale = m->s_valid_q && m->s_found_q
                 && (best_ahead == 0 || ((best_ahead >> (TICK_BITS - 1)) & 1u));
    c->s_start = (!m->s_run_q && !m->s_valid_q) || stale || bitmap_cmd;
}

static tw_comb combinational(const tw_model *m, const tw_bus_in *in)
{
    tw_comb c;
    unsigned slot_mask = slots_of(m) - 1u;

    c.acc = in->cyc && in->stb && !m->o_wb_ack;
    c.wr = c.acc && in->we;
    c.rd = c.acc && !in->we;

    /* tick source */
    bool presc_pulse = m->ctrl_src_q == SRC_INT && m->presc_cnt_q == 0;
    bool ext_rise = m->ctrl_src_q == SRC_EXT && ((m->ext_sync_q >> 1) & 1u)
                    && !((m->ext_sync_q >> 2) & 1u);
    c.adv_step = m->ctrl_src_q == SRC_HOST && m->adv_rem_q != 0 && !m->hold_q
                 && !fifo_full(m);
    /* Virtual time jumps to the tick before the search's answer, or by all
     * that is left if nothing is busy; one tick while the search runs, or
     * when time already passed the answer while the search ran. */
    uint64_t quiet_ticks = (m->s_best_q - m->now_q - 1u) & TICK_MASK;
    uint64_t adv_left = m->adv_rem_q;
    uint64_t adv_jump = !m->s_found_q || quiet_ticks > adv_left ? adv_left : quiet_ticks;
    bool may_jump = search_ok(m) && adv_jump != 0;
    c.adv_amt = may_jump ? adv_jump : 1u;
    c.step = presc_pulse || ext_rise || c.adv_step;
    c.step_amt = c.adv_step ? c.adv_amt : (c.step ? 1u : 0u);
    c.now_next = (m->now_q + c.step_amt) & TICK_MASK;

    /* visits */
    unsigned vslot[MAX_LEVELS];
    c.hit = 0;
    for (unsigned k = 0; k < m->levels; k++) {
        unsigned shift = k * m->slot_bits;
        vslot[k] = (unsigned)(c.now_next >> shift) & slot_mask;
        bool visit = c.step && (k == 0 || (c.now_next & ((UINT64_C(1) << shift) - 1u)) == 0);
        if (visit && busy_bit(m, k, vslot[k]))
            c.hit |= 1u << k;
    }

    /* commands */
    c.cmd_wr = c.wr && in->adr == ADR_CMD;
    unsigned cmd_op = (in->dat & TW_CMD_OP_MASK) >> TW_CMD_OP_LSB;
    unsigned cmd_level = (in->dat & TW_CMD_LEVEL_MASK) >> TW_CMD_LEVEL_LSB;
    unsigned cmd_slot = (in->dat & TW_CMD_SLOT_MASK) >> TW_CMD_SLOT_LSB;
    bool target_ok = cmd_level < m->levels && cmd_slot < slots_of(m);
    c.cmd_set = c.cmd_wr && cmd_op == OP_SET && target_ok;
    c.cmd_clear = c.cmd_wr && cmd_op == OP_CLEAR && target_ok;
    c.cmd_clear_all = c.cmd_wr && cmd_op == OP_CLEAR_ALL;
    c.cmd_bad = c.cmd_wr && !(c.cmd_set || c.cmd_clear || c.cmd_clear_all);
    c.cmd_lvl = cmd_level & 3u; /* LVL_W = 2 bits */
    c.cmd_sl = cmd_slot & slot_mask;

    /* race-free arming, modular over the 48-bit counter */
    uint64_t arm_tick = ((uint64_t)m->arm_hi_q << 32) | m->arm_lo_q;
    uint64_t arm_ahead = (arm_tick - c.now_next) & TICK_MASK;
    bool arm_passed = arm_ahead == 0 || ((arm_ahead >> (TICK_BITS - 1)) & 1u);
    bool arm_seen = false;
    for (unsigned k = 0; k < m->levels; k++)
        if (c.cmd_lvl == k && ((c.hit >> k) & 1u) && vslot[k] == c.cmd_sl)
            arm_seen = true;
    c.late = c.cmd_set && arm_passed && !arm_seen;

    /* event FIFO. The head's view, the read mux and NEXT matter only to a
     * bus access (a pop is a read, rdata and next_tick are latched on reads,
     * addr_ok counts on accesses), so edges without one skip them: the
     * model's speed is the simulator's, most edges are idle ones. */
    tw_head_view hv = {0};
    if (c.acc)
        hv = head_view(m);
    c.pop_evt = c.rd && in->adr == ADR_EVT_TICK && !fifo_empty(m);
    c.push = c.hit != 0 || c.late;
    c.rem_late = hv.rem_late;
    c.vis_bit = hv.vis_bit;
    c.ev_last = hv.ev_last;
    bool do_pop = c.pop_evt && c.ev_last; /* pop_evt already implies non-empty */
    c.push_ok = !fifo_full(m) || do_pop;
    c.do_push = c.push && c.push_ok;

    c.n_events = (c.late ? 1u : 0u) + popcount4(c.hit);

    c.rdata = 0;
    c.addr_ok = true;
    if (c.acc)
        read_mux(m, in, &hv, &c.rdata, &c.addr_ok);
    c.fifo_empty = fifo_empty(m);
    c.next_tick = c.rd ? next_tick(m) : 0;

    search_comb(m, c.now_next, c.cmd_set || c.cmd_clear || c.cmd_clear_all, &c);
    return c;
}

/* The next-busy search's flops at the edge: a start wins over the running
 * search's update. */
static void search_update(tw_model *m, const tw_comb *c, uint64_t now_next)
{
    if (c->s_start) {
        m->s_run_q = true;
        m->s_valid_q = false;
        m->s_found_q = false;
        m->s_lvl_q = 0;
        m->s_i_q = 0;
        m->s_base_q = now_next;
    } else if (m->s_run_q) {
        if (c->s_hit && c->s_better) {
            m->s_best_q = c->s_cand;
            m->s_found_q = true;
        }
        if (!c->s_level_done) {
            m->s_i_q++;
        } else if (m->s_lvl_q == ((m->levels - 1u) & 3u)) {
            m->s_run_q = false;
            m->s_valid_q = true;
        } else {
            m->s_lvl_q = (m->s_lvl_q + 1u) & 3u;
            m->s_i_q = 0;
        }
    }
}

/* A bus write's effect on the plain registers (CTRL, PRESCALE, ARM_*,
 * SEARCH, COALESCE); every other write effect is the edge's own. */
static void write_reg(tw_model *m, const tw_bus_in *in)
{
    switch (in->adr) {
    case ADR_CTRL:
        m->ctrl_src_q = (in->dat & TW_CTRL_TICK_SRC_MASK) >> TW_CTRL_TICK_SRC_LSB;
        m->ctrl_irq_en_q = (in->dat & TW_CTRL_IRQ_EN_MASK) != 0;
        m->ctrl_vhold_q = (in->dat & TW_CTRL_VHOLD_MASK) != 0;
        break;
    case ADR_PRESCALE:
        m->prescale_q = in->dat;
        break;
    case ADR_ARM_LO:
        m->arm_lo_q = in->dat;
        break;
    case ADR_ARM_HI:
        m->arm_hi_q = (uint16_t)in->dat;
        break;
    case ADR_SEARCH:
        m->horizon_q = in->dat;
        break;
    case ADR_COALESCE:
        m->coal_holdoff_q = (uint16_t)((in->dat & TW_COALESCE_HOLDOFF_MASK)
                                       >> TW_COALESCE_HOLDOFF_LSB);
        m->coal_thresh_q = (uint16_t)((in->dat & TW_COALESCE_THRESH_MASK)
                                      >> TW_COALESCE_THRESH_LSB);
        break;
    default:
        break;
    }
}

/* One rising edge of i_clk, all of the chip's work. */
static void full_edge(tw_model *m, const tw_bus_in *in)
{
    const tw_comb c = combinational(m, in);
    bool do_pop = c.pop_evt && c.ev_last;

    m->cycles++;

    /* tw_evfifo: the memory write is not gated by reset, as in the RTL. */
    if (c.do_push) {
        tw_entry *e = &m->mem_q[m->wr_ptr_q];
        e->tick = c.now_next;
        e->mask = (uint8_t)c.hit;
        e->late = c.late;
        e->level = (uint8_t)c.cmd_lvl;
        e->slot = (uint16_t)c.cmd_sl;
    }

    /* busy bitmap block */
    if (in->rst || c.cmd_clear_all) {
        memset(m->busy_q, 0, sizeof m->busy_q);
    } else if (c.cmd_set || c.cmd_clear) {
        uint64_t bit = UINT64_C(1) << (c.cmd_sl % 64);
        uint64_t *word = &m->busy_q[c.cmd_lvl][c.cmd_sl / 64];
        *word = c.cmd_set ? (*word | bit) : (*word & ~bit);
    }

    if (in->rst) {
        m->rd_ptr_q = 0;
        m->wr_ptr_q = 0;
        m->count_q = 0;

        m->now_q = 0;
        m->ctrl_src_q = SRC_HOST;
        m->ctrl_irq_en_q = false;
        m->ctrl_vhold_q = false;
        m->prescale_q = 0;
        m->presc_cnt_q = 0;
        m->adv_rem_q = 0;
        m->arm_lo_q = 0;
        m->arm_hi_q = 0;
        m->now_hi_snap_q = 0;
        m->overflow_q = false;
        m->hold_q = false;
        m->cmd_err_q = false;
        m->consumed_mask_q = 0;
        m->consumed_late_q = false;
        m->ext_sync_q = 0;
        m->cnt_events_q = 0;
        m->cnt_late_q = 0;
        m->cnt_overflow_q = 0;
        m->cnt_cmds_q = 0;
        m->cnt_buserr_q = 0;
        m->coal_holdoff_q = 0;
        m->coal_thresh_q = 0;
        m->irq_age_q = 0;
        m->horizon_q = UINT32_MAX;
        m->next_hi_snap_q = 0;
        m->o_wb_ack = false;
        m->o_wb_dat = 0;

        m->s_run_q = false;
        m->s_valid_q = false;
        m->s_found_q = false;
        m->s_lvl_q = 0;
        m->s_i_q = 0;
        m->s_base_q = 0;
        m->s_best_q = 0;
        return;
    }

    unsigned mask_ptr = fifo_depth(m) - 1u;
    if (c.do_push)
        m->wr_ptr_q = (m->wr_ptr_q + 1u) & mask_ptr;
    if (do_pop)
        m->rd_ptr_q = (m->rd_ptr_q + 1u) & mask_ptr;
    if (c.do_push && !do_pop)
        m->count_q++;
    else if (do_pop && !c.do_push)
        m->count_q--;

    /* Nonblocking assignments: every right-hand side below reads the state
     * from before the edge, which is still in *m until it is overwritten,
     * and no flop is read after it has been assigned. */
    /* 33-bit adv_sum; adv_amt <= adv_rem_q whenever adv_step. */
    uint64_t adv_taken = c.adv_step ? (c.adv_amt & ((UINT64_C(1) << 33) - 1u)) : 0u;
    uint64_t adv_sum = ((uint64_t)m->adv_rem_q - adv_taken
                        + ((c.wr && in->adr == ADR_ADVANCE) ? in->dat : 0u))
                     & ((UINT64_C(1) << 33) - 1u);
    /* The age saturates at 0xFFFF, also on a jump of 2^16 ticks or more. */
    uint32_t age_sum = (uint32_t)m->irq_age_q + (uint32_t)(c.step_amt & 0xFFFFu);
    bool age_sat = (age_sum >> 16) || (c.step_amt >> 16);

    m->o_wb_ack = c.acc;
    if (c.rd)
        m->o_wb_dat = c.rdata;
    if (c.rd && in->adr == ADR_NOW_LO)
        m->now_hi_snap_q = (uint16_t)(m->now_q >> 32);
    if (c.rd && in->adr == ADR_NEXT_LO)
        m->next_hi_snap_q = (uint16_t)(c.next_tick >> 32);
    if (c.fifo_empty)
        m->irq_age_q = 0;
    else
        m->irq_age_q = age_sat ? 0xFFFFu : (uint16_t)age_sum;
    m->ext_sync_q = ((m->ext_sync_q << 1) | (m->ext_tick ? 1u : 0u)) & 7u;
    m->now_q = c.now_next;
    m->adv_rem_q = (adv_sum >> 32) ? UINT32_MAX : (uint32_t)adv_sum;

    if (m->ctrl_src_q != SRC_INT || m->presc_cnt_q == 0)
        m->presc_cnt_q = m->prescale_q;
    else
        m->presc_cnt_q--;

    /* Hold is set from the pre-edge CTRL, so remember it before the write. */
    bool vhold_host = m->ctrl_src_q == SRC_HOST && m->ctrl_vhold_q;

    if (c.wr)
        write_reg(m, in);

    uint32_t buserr = m->cnt_buserr_q;
    if (c.acc && !c.addr_ok)
        m->cnt_buserr_q = buserr + 1u;

    /* Sticky flags: a new occurrence wins over a clear in the same cycle. */
    if (c.wr && in->adr == ADR_STATUS) {
        if (in->dat & TW_STATUS_OVERFLOW_MASK)
            m->overflow_q = false;
        if (in->dat & TW_STATUS_HOLD_MASK)
            m->hold_q = false;
        if (in->dat & TW_STATUS_CMD_ERR_MASK)
            m->cmd_err_q = false;
    }
    if (c.push && !c.push_ok) {
        m->overflow_q = true;
        m->cnt_overflow_q += c.n_events;
    }
    if (c.push && c.push_ok) {
        m->cnt_events_q += c.n_events;
        if (vhold_host)
            m->hold_q = true;
    }

    if (c.cmd_wr)
        m->cnt_cmds_q++;
    if (c.cmd_bad) {
        m->cmd_err_q = true;
        m->cnt_buserr_q = buserr + 1u;
    }
    if (c.late)
        m->cnt_late_q++;

    if (c.pop_evt) {
        if (c.ev_last) {
            m->consumed_mask_q = 0;
            m->consumed_late_q = false;
        } else if (c.rem_late) {
            m->consumed_late_q = true;
        } else {
            m->consumed_mask_q |= c.vis_bit;
        }
    }

    search_update(m, &c, c.now_next);
}

/* The accesses a quiet edge may carry: reads and writes whose only effect is
 * the read data or the register written. */
static bool quiet_access(const tw_bus_in *in)
{
    if (in->we)
        return in->adr == ADR_ARM_LO || in->adr == ADR_ARM_HI;
    return in->adr == ADR_STATUS || in->adr == ADR_NEXT_LO || in->adr == ADR_NEXT_HI;
}

/* An edge at which only the search, the bus handshake and a plain register
 * can move: no reset, no step (virtual time with nothing left to advance,
 * held, or the FIFO full), and the bus idle or carrying a quiet access. The
 * driver's STATUS polls while a search runs, its NEXT reads and the arm
 * tick it writes are such edges, and there are many of them: this does
 * exactly what full_edge would, without the rest of its work. Any other
 * edge is left to full_edge (returns false, having changed nothing). */
static bool quiet_edge(tw_model *m, const tw_bus_in *in)
{
    bool acc = in->cyc && in->stb && !m->o_wb_ack;
    if (in->rst || (acc && !quiet_access(in)))
        return false;
    if (m->ctrl_src_q != SRC_HOST || !(m->adv_rem_q == 0 || m->hold_q || fifo_full(m)))
        return false;

    /* A finished search with nothing found cannot go stale without a step. */
    bool search_moves = m->s_run_q || !m->s_valid_q || m->s_found_q;
    tw_comb c;
    if (search_moves)
        search_comb(m, m->now_q, false, &c);

    m->cycles++;
    if (acc && in->we) {
        write_reg(m, in);
    } else if (acc) {
        /* Read from the state before the edge; none of these is an event
         * register, so the head's view is not needed. */
        const tw_head_view no_head = {0};
        uint32_t rdata;
        bool addr_ok;
        read_mux(m, in, &no_head, &rdata, &addr_ok);
        if (in->adr == ADR_NEXT_LO)
            m->next_hi_snap_q = (uint16_t)(next_tick(m) >> 32);
        m->o_wb_dat = rdata;
    }
    m->o_wb_ack = acc;
    if (fifo_empty(m))
        m->irq_age_q = 0;
    m->ext_sync_q = ((m->ext_sync_q << 1) | (m->ext_tick ? 1u : 0u)) & 7u;
    m->presc_cnt_q = m->prescale_q;
    if (search_moves)
        search_update(m, &c, m->now_q);
    return true;
}

static void tw_model_edge(tw_model *m, const tw_bus_in *in)
{
    if (!quiet_edge(m, in))
        full_edge(m, in);
}

/* ------------------------------------------------------------ fast idle path */

#define NO_HIT UINT64_MAX

/* First busy slot at index >= start, or at any index if none is. */
static bool next_busy_slot(const uint64_t *map, unsigned nslots, unsigned start,
                           unsigned *found)
{
    unsigned nwords = (nslots + 63u) / 64u;
    for (int pass = 0; pass < 2; pass++) {
        unsigned from = pass == 0 ? start : 0;
        unsigned w = from / 64u;
        uint64_t bits = map[w] & (~UINT64_C(0) << (from % 64u));
        for (;;) {
            if (bits) {
                *found = w * 64u + (unsigned)__builtin_ctzll(bits);
                return true;
            }
            if (++w >= nwords)
                break;
            bits = map[w];
        }
    }
    return false;
}

/* Steps from now_q until the first step whose tick visits a busy slot at any
 * level (1 means the very next step), or NO_HIT if no slot is busy. */
static uint64_t steps_to_next_hit(const tw_model *m)
{
    unsigned nslots = slots_of(m);
    uint64_t best = NO_HIT;
    for (unsigned k = 0; k < m->levels; k++) {
        unsigned shift = k * m->slot_bits;
        /* Level k visits every tick whose low k*b bits are zero; the counter
         * wraps at 2^48, a multiple of every level's period, so unwrapped
         * arithmetic gives the same slots. */
        uint64_t first_turn = (m->now_q >> shift) + 1u;
        unsigned first_slot = (unsigned)first_turn & (nslots - 1u);
        unsigned slot;
        if (!next_busy_slot(m->busy_q[k], nslots, first_slot, &slot))
            continue;
        uint64_t turns = (slot - first_slot) & (nslots - 1u);
        uint64_t tick = (first_turn + turns) << shift;
        uint64_t dist = tick - m->now_q;
        if (dist < best)
            best = dist;
    }
    return best;
}

/* An idle bus has settled once ack has fallen, the synchroniser holds the
 * steady input level, and (outside the prescaler mode) the prescaler counter
 * has been reloaded. From then on only the tick source changes the state. */
static bool idle_settled(const tw_model *m)
{
    unsigned steady = m->ext_tick ? 7u : 0u;
    if (m->o_wb_ack || m->ext_sync_q != steady)
        return false;
    return m->ctrl_src_q == SRC_INT || m->presc_cnt_q == m->prescale_q;
}

/* The search has finished, and its answer does not go stale while time
 * stands still: from here only a step onto (or past) s_best_q or a bitmap
 * command restarts it, so its flops keep their values. */
static bool search_settled(const tw_model *m)
{
    if (m->s_run_q || !m->s_valid_q)
        return false;
    if (!m->s_found_q)
        return true;
    uint64_t ahead = (m->s_best_q - m->now_q) & TICK_MASK;
    return ahead != 0 && !((ahead >> (TICK_BITS - 1)) & 1u);
}

/* irq_age_q after idle cycles (at least one) that took `ticks` single steps
 * and no FIFO change: zero while empty, else ticks added, saturating. */
static void age_after_quiet(tw_model *m, uint64_t ticks)
{
    if (fifo_empty(m))
        m->irq_age_q = 0;
    else if (ticks >= 0xFFFFu - m->irq_age_q)
        m->irq_age_q = 0xFFFFu;
    else
        m->irq_age_q = (uint16_t)(m->irq_age_q + ticks);
}

/* Cycles from now up to and including the one that takes the i-th step
 * (i >= 1) in the prescaler mode, saturated instead of wrapping. The i-th
 * step is in cycle presc_cnt_q + 1 + (i - 1) * period, counting this one as 1. */
static uint64_t cycles_through_step(const tw_model *m, uint64_t i)
{
    uint64_t period = (uint64_t)m->prescale_q + 1u;
    if (i - 1u > (UINT64_MAX - m->presc_cnt_q - 1u) / period)
        return UINT64_MAX;
    return m->presc_cnt_q + 1u + (i - 1u) * period;
}

/* Run up to budget idle cycles in closed form, stopping before any cycle that
 * would visit a busy slot or restart the search, and after the cycle that
 * raises the interrupt line. Returns the cycles consumed (0: run one by hand). */
static uint64_t skip_quiet_cycles(tw_model *m, uint64_t budget)
{
    if (budget == 0 || !idle_settled(m) || !search_settled(m))
        return 0;

    if (m->ctrl_src_q == SRC_HOST) {
        if (m->adv_rem_q == 0 || m->hold_q || fifo_full(m)) {
            /* No step, no visit, no push, no search: every idle cycle is a
             * no-op. */
            age_after_quiet(m, 0);
            m->cycles += budget;
            return budget;
        }
        /* Virtual time moves: with a valid search the RTL jumps straight to
         * the tick before the next busy visit (or to the end of the advance),
         * so the edges are few; while it searches they are one tick each and
         * the search state changes every cycle. Either way: one by hand. */
        return 0;
    }

    if (m->ctrl_src_q == SRC_INT) {
        /* The first step that visits a busy slot, or that reaches the
         * search's answer (the search goes stale and restarts): the same
         * step while the answer is right, but take whichever comes first. */
        uint64_t lim = steps_to_next_hit(m);
        if (m->s_found_q) {
            uint64_t to_best = (m->s_best_q - m->now_q) & TICK_MASK;
            if (to_best < lim)
                lim = to_best;
        }
        uint64_t quiet = budget;
        if (lim != NO_HIT) {
            uint64_t before = cycles_through_step(m, lim) - 1u; /* cycles before it */
            if (before < quiet)
                quiet = before;
        }
        if (m->ctrl_irq_en_q && !fifo_empty(m) && !irq_due(m)) {
            /* The line rises in the cycle whose step brings the oldest
             * entry's age to HOLDOFF (age < HOLDOFF here); that cycle is the
             * last one wait_irq runs. */
            uint64_t through = cycles_through_step(m, (uint64_t)m->coal_holdoff_q - m->irq_age_q);
            if (through < quiet)
                quiet = through;
        }
        if (quiet == 0)
            return 0;
        uint64_t period = (uint64_t)m->prescale_q + 1u;
        uint64_t steps;
        if (quiet <= m->presc_cnt_q) {
            steps = 0;
            m->presc_cnt_q -= (uint32_t)quiet;
        } else {
            uint64_t after_first = quiet - m->presc_cnt_q - 1u;
            steps = 1u + after_first / period;
            m->presc_cnt_q = (uint32_t)(period - 1u - after_first % period);
        }
        m->now_q = (m->now_q + steps) & TICK_MASK;
        age_after_quiet(m, steps);
        m->cycles += quiet;
        return quiet;
    }

    /* External source with a steady input, or the reserved source: no ticks
     * ever come, so nothing changes. */
    age_after_quiet(m, 0);
    m->cycles += budget;
    return budget;
}

/* ------------------------------------------------------------- device ops */

static int model_access(tw_model *m, uint32_t addr, bool we, uint32_t wdata, uint32_t *rdata)
{
    if (addr % 4u != 0 || addr >= 4u * WORD_ADDRS)
        return TW_EINVAL;
    tw_bus_in req = { false, true, true, we, addr / 4u, wdata };
    tw_model_edge(m, &req);
    if (rdata)
        *rdata = m->o_wb_dat;
    tw_model_edge(m, &bus_idle);
    return TW_OK;
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

/* Runs the clock with the bus idle, in closed form across quiet stretches;
 * stops early once the interrupt line is high if asked to. */
static void run_cycles(tw_model *m, uint64_t cycles, bool stop_at_irq)
{
    while (cycles > 0 && !(stop_at_irq && irq_line(m))) {
        uint64_t skipped = irq_line(m) ? 0 : skip_quiet_cycles(m, cycles);
        if (skipped) {
            cycles -= skipped;
            continue;
        }
        tw_model_edge(m, &bus_idle);
        cycles--;
    }
}

static int model_wait_irq(void *ctx, uint64_t max_cycles)
{
    tw_model *m = ctx;
    if (!m)
        return TW_EINVAL;
    run_cycles(m, max_cycles, true);
    return irq_line(m) ? 1 : 0;
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
    return irq_line(m) ? 1 : 0;
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
    free(m->mem_q);
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
    if (cfg->levels < 1 || cfg->levels > MAX_LEVELS || cfg->slot_bits < 2
            || cfg->slot_bits > MAX_SLOT_BITS || cfg->levels * cfg->slot_bits > 44
            || cfg->fifo_log2 < 1 || cfg->fifo_log2 > 12)
        return TW_EINVAL;

    tw_model *m = calloc(1, sizeof *m);
    if (!m)
        return TW_ENOMEM;
    m->mem_q = calloc((size_t)1 << cfg->fifo_log2, sizeof *m->mem_q);
    if (!m->mem_q) {
        free(m);
        return TW_ENOMEM;
    }
    m->levels = cfg->levels;
    m->slot_bits = cfg->slot_bits;
    m->fifo_log2 = cfg->fifo_log2;
    /* calloc starts every flop and the FIFO memory at zero, as a simulator
     * without X randomisation does. Then power up the way the Verilator
     * backend does: one reset cycle and a CAPS read, so both backends agree
     * on the cycle count and on how far the next-busy search has got. */
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
