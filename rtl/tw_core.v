`default_nettype none
// tw_core: the tickwheel timer coprocessor (Varghese & Lauck, Appendix A).
//
// The chip holds one busy bit per wheel slot and a tick counter; level k's
// slot pointer is bits [(k+1)b-1 : kb] of the counter, so a wrap of level k-1
// is a carry into level k. Level k visits its slot on every tick whose low kb
// bits are zero. A visit of a busy slot queues an event; the host keeps every
// timer queue in its own memory and only tells the chip which slots are busy.
//
// Timing contract (mirrored cycle for cycle by host/tw_model.c):
//  * a bus access is one cycle with cyc&stb&!ack; its effects and read data
//    are registered at that clock edge and ack follows in the next cycle;
//  * in each cycle the counter steps at most once (now_next = now + step) and
//    every visit and every command of that cycle is judged against now_next;
//  * all events of one cycle share one FIFO entry {tick, visit mask, late arm},
//    which the EVT registers hand out one (level, slot, tick) at a time.
module tw_core #(
    parameter integer LEVELS    = 4,   // m: 1..4
    parameter integer SLOT_BITS = 8,   // b: 2..12, each level has 2^b slots
    parameter integer FIFO_LOG2 = 4    // event FIFO holds 2^FIFO_LOG2 entries
) (
    input  wire        i_clk,
    input  wire        i_rst,          // synchronous, active high
    // Wishbone B4 classic slave, 32-bit port, word addresses, no byte select
    input  wire        i_wb_cyc,
    input  wire        i_wb_stb,
    input  wire        i_wb_we,
    input  wire [5:0]  i_wb_adr,
    input  wire [31:0] i_wb_dat,
    output reg         o_wb_ack,
    output wire        o_wb_stall,
    output reg  [31:0] o_wb_dat,
    // external tick source: one tick per rising edge (asynchronous input)
    input  wire        i_ext_tick,
    output wire        o_irq
);
`include "tw_regs.vh"

    localparam integer TICK_BITS = 48;
    localparam integer SLOTS     = 1 << SLOT_BITS;
    localparam integer LVL_W     = 2;
    localparam integer ENTRY_W   = TICK_BITS + LEVELS + 1 + LVL_W + SLOT_BITS;
    localparam [LEVELS-1:0] ONE_LEVEL = 1;

    localparam [1:0] SRC_HOST = 2'd0, SRC_INT = 2'd1, SRC_EXT = 2'd2;
    localparam [3:0] OP_SET = 4'd1, OP_CLEAR = 4'd2, OP_CLEAR_ALL = 4'd3;

    // The arm comparison is modular over TICK_BITS, so every visit the host
    // names must lie within 2^(TICK_BITS-1) ticks of now: one top-level
    // revolution (2^(m*b)) must be far shorter than that.
    initial begin
        if (LEVELS < 1 || LEVELS > 4 || SLOT_BITS < 2 || SLOT_BITS > 12
                || LEVELS * SLOT_BITS > 44 || FIFO_LOG2 < 1 || FIFO_LOG2 > 12) begin
            $display("tw_core: unsupported geometry LEVELS=%0d SLOT_BITS=%0d FIFO_LOG2=%0d",
                     LEVELS, SLOT_BITS, FIFO_LOG2);
            $finish;
        end
    end

    // ------------------------------------------------------------------ state
    reg [TICK_BITS-1:0] now_q;
    reg [1:0]           ctrl_src_q;
    reg                 ctrl_irq_en_q, ctrl_vhold_q;
    reg [31:0]          prescale_q, presc_cnt_q;
    reg [31:0]          adv_rem_q;
    reg [31:0]          arm_lo_q;
    reg [15:0]          arm_hi_q;
    reg [15:0]          now_hi_snap_q;
    reg                 overflow_q, hold_q, cmd_err_q;
    reg [LEVELS-1:0]    consumed_mask_q;   // events of the head entry already read
    reg                 consumed_late_q;
    reg [2:0]           ext_sync_q;        // two synchroniser flops + edge history
    reg [31:0]          cnt_events_q, cnt_late_q, cnt_overflow_q, cnt_cmds_q, cnt_buserr_q;
    reg [15:0]          coal_holdoff_q, coal_thresh_q;
    reg [15:0]          irq_age_q;         // ticks since the FIFO last became non-empty
    reg [31:0]          horizon_q;
    reg [15:0]          next_hi_snap_q;

    // ------------------------------------------------------------- bus decode
    wire acc = i_wb_cyc && i_wb_stb && !o_wb_ack;
    wire wr  = acc && i_wb_we;
    wire rd  = acc && !i_wb_we;
    assign o_wb_stall = 1'b0;

    // ------------------------------------------------------------ tick source
    wire presc_pulse = ctrl_src_q == SRC_INT && presc_cnt_q == 0;
    wire ext_rise    = ctrl_src_q == SRC_EXT && ext_sync_q[1] && !ext_sync_q[2];

    wire fifo_full, fifo_empty, push_ok;
    wire [FIFO_LOG2:0] fifo_count;
    // Virtual time waits for the host: it never overruns the FIFO. Where the
    // search (below) vouches that no busy visit comes before its answer,
    // virtual time jumps straight to the tick before it: many slots a clock.
    wire adv_step = ctrl_src_q == SRC_HOST && adv_rem_q != 0 && !hold_q && !fifo_full;
    wire                 srch_valid_q, srch_found_q;
    // The search's answer is kept as its distance from the counter:
    // quiet_q = answer - now_q - 1, kept up to date as the counter steps, so
    // that the step below needs one comparison, not a subtraction first.
    reg  [TICK_BITS-1:0] quiet_q;
    localparam [TICK_BITS-1:0] HALF_M1 = {1'b0, {(TICK_BITS-1){1'b1}}};   // 2^47 - 1
    // Time may pass the answer while the search runs: then it vouches for nothing.
    // answer - now_q in 1 .. 2^47-1
    function passed_quiet;                    // answer - now - 1 given: answer reached
        input [TICK_BITS-1:0] q;
        passed_quiet = q[TICK_BITS-1] || q == HALF_M1;
    endfunction
    wire                 best_ahead  = !passed_quiet(quiet_q);
    wire [TICK_BITS-1:0] adv_left    = {16'd0, adv_rem_q};
    // quiet_q > adv_left; adv_left is 32 bits wide, so one 32-bit comparison.
    wire                 quiet_gt_adv = |quiet_q[TICK_BITS-1:32] || quiet_q[31:0] > adv_rem_q;
    wire                 srch_ok     = srch_valid_q && (!srch_found_q || best_ahead);
    wire                 take_quiet  = srch_found_q && !quiet_gt_adv;
    wire                 may_jump    = srch_ok && (take_quiet ? quiet_q != 0 : adv_rem_q != 0);
    wire step = presc_pulse || ext_rise || adv_step;
    // A step is one of four amounts: none, one tick, a jump to the tick before
    // the search's answer (quiet_q ticks, none of them busy), or a jump over all
    // that ADVANCE has left. Every sum and difference with the amount below is
    // formed for each amount beside this choice, from registers alone, and the
    // choice only selects among them: a step costs one carry chain and a
    // multiplexer, not a comparison followed by an add.
    wire jumped     = adv_step && may_jump;
    wire step_quiet = jumped && take_quiet;
    wire step_all   = jumped && !take_quiet;
    wire step_one   = step && !jumped;
    // The amount itself: what the search's answer is stepped on by, and for
    // the properties.
    wire [TICK_BITS-1:0] step_amt = step_quiet ? quiet_q : step_all ? adv_left
                                  : {{(TICK_BITS-1){1'b0}}, step_one};
    // Picks the value for this cycle's amount among the four formed beside it.
    function [TICK_BITS-1:0] by_step;
        input q, a, o;                        // step_quiet, step_all, step_one
        input [TICK_BITS-1:0] v_quiet, v_all, v_one, v_none;
        by_step = q ? v_quiet : a ? v_all : o ? v_one : v_none;
    endfunction
    // A distance d = x - now has been reached when d <= 0 (modulo 2^48).
    function reached;
        input [TICK_BITS-1:0] d;
        reached = d == 0 || d[TICK_BITS-1];
    endfunction
    wire [TICK_BITS-1:0] now_plus_quiet = now_q + quiet_q;    // the answer - 1
    wire [TICK_BITS-1:0] now_next = by_step(step_quiet, step_all, step_one,
                                            now_plus_quiet, now_q + adv_left, now_q + 48'd1, now_q);

    // ----------------------------------------------------------------- visits
    // The bitmaps sit in block RAM, read a cycle ahead: each cycle fetches,
    // per level, the slot after the pointer of now_next. A step of one tick
    // next cycle visits exactly that slot (a level-k visit is a carry into
    // field k, so its slot is the old one plus one). A jump visits nothing
    // busy: it lands short of the search's answer.
    // A one-tick step visits level k when it carries into field k, that is
    // when the fields below are all ones: no adder on the way.
    reg [LEVELS-1:0]    hit;
    wire [LEVELS-1:0]   busy_ahead;          // the fetched slot's busy bit
    reg  [LEVELS*SLOT_BITS-1:0] ahead_slots_q;   // the fetched slots
    reg                 carry_in;
    integer vk;
    always @(*) begin
        for (vk = 0; vk < LEVELS; vk = vk + 1) begin
            carry_in  = vk == 0 || (~now_q & ((48'd1 << (vk*SLOT_BITS)) - 48'd1)) == 48'd0;
            hit[vk]   = step && carry_in && busy_ahead[vk] && !jumped;
        end
    end
`ifdef FORMAL
    // The definition the properties hold `hit` to: level k visits its slot
    // on every step after which the fields below it are all zero.
    reg [LEVELS-1:0]    visit;
    reg [SLOT_BITS-1:0] vslot [0:LEVELS-1];
    integer fk;
    always @(*)
        for (fk = 0; fk < LEVELS; fk = fk + 1) begin
            vslot[fk] = now_next[fk*SLOT_BITS +: SLOT_BITS];
            visit[fk] = step && (fk == 0 || (now_next & ((48'd1 << (fk*SLOT_BITS)) - 48'd1)) == 48'd0);
        end
`endif

    // --------------------------------------------------------------- commands
    wire        cmd_wr    = wr && i_wb_adr == TW_REG_CMD;
    wire [3:0]  cmd_op    = i_wb_dat[TW_CMD_OP_LSB +: TW_CMD_OP_WIDTH];
    wire [3:0]  cmd_level = i_wb_dat[TW_CMD_LEVEL_LSB +: TW_CMD_LEVEL_WIDTH];
    wire [15:0] cmd_slot  = i_wb_dat[TW_CMD_SLOT_LSB +: TW_CMD_SLOT_WIDTH];
    wire cmd_target_ok = {28'd0, cmd_level} < LEVELS && {16'd0, cmd_slot} < SLOTS;
    wire cmd_set       = cmd_wr && cmd_op == OP_SET && cmd_target_ok;
    wire cmd_clear     = cmd_wr && cmd_op == OP_CLEAR && cmd_target_ok;
    wire cmd_clear_all = cmd_wr && cmd_op == OP_CLEAR_ALL;
    wire cmd_bad       = cmd_wr && !(cmd_set || cmd_clear || cmd_clear_all);
    wire [LVL_W-1:0]     cmd_lvl  = cmd_level[LVL_W-1:0];
    wire [SLOT_BITS-1:0] cmd_sl   = cmd_slot[SLOT_BITS-1:0];

    // Race-free arming: the SET names the visit tick the host means. If the
    // counter has reached it, the visit is over and the slot is reported now.
    // arm_gap_q = arm_tick - now_q, kept up to date like quiet_q, except in
    // the clock after an ARM write (arm_new_q): no access can come then (it
    // is the write's ack), so nothing looks at the distance, and that clock
    // works it out afresh from registers, arm_tick - now_q, rather than the
    // write's clock from now_next.
    wire [TICK_BITS-1:0] arm_tick  = {arm_hi_q, arm_lo_q};
    reg  [TICK_BITS-1:0] arm_gap_q;
    reg                  arm_new_q;
    wire [TICK_BITS-1:0] arm_gap   = arm_new_q ? arm_tick - now_q : arm_gap_q;
    // arm_tick - now_next, and whether it is reached, for each step amount.
    wire [TICK_BITS-1:0] arm_gap_quiet = arm_gap - quiet_q;
    wire [TICK_BITS-1:0] arm_gap_all   = arm_gap - adv_left;
    wire [TICK_BITS-1:0] arm_gap_one   = arm_gap - 48'd1;
    wire [TICK_BITS-1:0] arm_gap_d     = by_step(step_quiet, step_all, step_one,
                                                 arm_gap_quiet, arm_gap_all, arm_gap_one, arm_gap);
    // Whether the armed tick is reached after this cycle's step, from
    // arm_gap_q alone: only a SET asks, never in the clock after an ARM
    // write, so the check need not wait for the distance formed there.
    // After one tick: arm_gap_q - 1 is 0 or negative.
    localparam [TICK_BITS-1:0] HALF = {1'b1, {(TICK_BITS-1){1'b0}}};   // 2^47
    wire arm_passed = step_quiet ? reached(arm_gap_q - quiet_q) : step_all ? reached(arm_gap_q - adv_left)
                    : step_one ? arm_gap_q == 48'd1 || (reached(arm_gap_q) && arm_gap_q != HALF)
                    : reached(arm_gap_q);
    wire                 arm_wr    = wr && (i_wb_adr == TW_REG_ARM_LO || i_wb_adr == TW_REG_ARM_HI);
    // A visit of this very slot in this cycle already reports it once.
    reg  [LEVELS-1:0] slot_named;   // level k's visited slot is the SET's slot
    integer ak;
    always @(*)
        for (ak = 0; ak < LEVELS; ak = ak + 1)
            slot_named[ak] = ahead_slots_q[ak*SLOT_BITS +: SLOT_BITS] == cmd_sl;
    wire arm_seen = |(hit & slot_named & (ONE_LEVEL << cmd_lvl));
    wire late       = cmd_set && arm_passed && !arm_seen;

    // ------------------------------------------------------------- event FIFO
    wire [ENTRY_W-1:0] head;
    wire               pop_evt = rd && i_wb_adr == TW_REG_EVT_TICK && !fifo_empty;
    wire               push    = (|hit) || late;
    wire [ENTRY_W-1:0] entry   = {now_next, hit, late, cmd_lvl, cmd_sl};

    wire [TICK_BITS-1:0] h_tick  = head[ENTRY_W-1 -: TICK_BITS];
    wire [LEVELS-1:0]    h_mask  = head[1+LVL_W+SLOT_BITS +: LEVELS];
    wire                 h_late  = head[LVL_W+SLOT_BITS];
    wire [LVL_W-1:0]     h_level = head[SLOT_BITS +: LVL_W];
    wire [SLOT_BITS-1:0] h_slot  = head[0 +: SLOT_BITS];

    // The head entry's events are read late arm first, then levels upward.
    wire              rem_late = h_late && !consumed_late_q;
    wire [LEVELS-1:0] rem_mask = h_mask & ~consumed_mask_q;
    reg  [LVL_W-1:0]  vis_level;
    reg  [LEVELS-1:0] vis_bit;
    integer hk;
    always @(*) begin
        vis_level = 0;
        vis_bit   = 0;
        for (hk = LEVELS - 1; hk >= 0; hk = hk - 1)
            if (rem_mask[hk]) begin
                vis_level = hk[LVL_W-1:0];
                vis_bit   = ONE_LEVEL << hk;
            end
    end
    wire [LVL_W-1:0]     ev_level = rem_late ? h_level : vis_level;
    wire [SLOT_BITS-1:0] ev_slot  = rem_late ? h_slot
                                             : h_tick[vis_level*SLOT_BITS +: SLOT_BITS];
    wire ev_last = rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;

    tw_evfifo #(.WIDTH(ENTRY_W), .DEPTH_LOG2(FIFO_LOG2)) u_fifo (
        .i_clk(i_clk), .i_rst(i_rst),
        .i_push(push), .i_data(entry), .o_push_ok(push_ok),
        .i_pop(pop_evt && ev_last), .o_head(head),
        .o_count(fifo_count), .o_full(fifo_full), .o_empty(fifo_empty)
    );

    // Events in this cycle's entry: one per visited busy level plus the late arm.
    reg [2:0] n_events;
    integer nk;
    always @(*) begin
        n_events = {2'b00, late};
        for (nk = 0; nk < LEVELS; nk = nk + 1)
            n_events = n_events + {2'b00, hit[nk]};
    end

    // The event counters add a cycle's events a clock later, off the step's
    // path; what they read (cnt_*_now) includes the events still pending.
    reg  [2:0]  pend_events_q, pend_overflow_q;
    reg         pend_late_q;
    wire [31:0] cnt_events_now   = cnt_events_q + {29'd0, pend_events_q};
    wire [31:0] cnt_overflow_now = cnt_overflow_q + {29'd0, pend_overflow_q};
    wire [31:0] cnt_late_now     = cnt_late_q + {31'd0, pend_late_q};

    // Coalescing: hold the line until enough entries wait or the FIFO has
    // been non-empty long enough. Held or stalled virtual time (HOLD, or a
    // full FIFO) needs the host at once, whatever the settings.
    wire irq_due = hold_q || fifo_full || {{(15-FIFO_LOG2){1'b0}}, fifo_count} >= coal_thresh_q
                   || irq_age_q >= coal_holdoff_q;
    assign o_irq = ctrl_irq_en_q && !fifo_empty && irq_due;

    // ------------------------------------------------------ next-busy search
    // For each level k the first busy slot after the pointer p, in circular
    // order p+1 .. p (the last one a revolution on), is that level's next busy
    // visit; the earliest over all levels is the answer. SW slots a cycle, so
    // a search takes at most LEVELS * (NWORDS + 1) + 1 cycles.
    localparam integer SW      = SLOTS < 16 ? SLOTS : 16;
    localparam integer NWORDS  = SLOTS / SW;
    localparam integer WI_BITS = $clog2(NWORDS + 1);
    localparam integer WORD_BITS = NWORDS > 1 ? $clog2(NWORDS) : 1;

    reg                 s_run_q, s_valid_q, s_found_q;
    reg [LVL_W-1:0]     s_lvl_q;
    reg [WI_BITS-1:0]   s_i_q;             // words scanned at this level
    reg [TICK_BITS-1:0] s_base_q;
    assign srch_valid_q = s_valid_q;
    assign srch_found_q = s_found_q;

    // Each level's slot after the pointer of s_base_q, kept from the start
    // of the search (where the visit port computes them anyway), so a scan
    // cycle begins from registers.
    reg [LEVELS*SLOT_BITS-1:0] s_qs_q;
    // Ticks since the search started, s_elapsed_q = now_q - s_base_q while it
    // runs: a running search vouches for nothing, so time takes at most one
    // tick a clock then, and a search is short.
    localparam integer EL_BITS = $clog2(LEVELS * (NWORDS + 1) + 2) + 1;
    reg [EL_BITS-1:0]   s_elapsed_q;
    wire [TICK_BITS-1:0] s_elapsed = {{(TICK_BITS-EL_BITS){1'b0}}, s_elapsed_q};

    // The bits of this cycle's word that are in the scan (from the slot after
    // the pointer on the first word, up to it on the wrapped last word), and
    // the pointer's successor's bit within its word: both worked out a clock
    // ahead, so the word read meets registers only.
    localparam integer BIT_BITS = SW > 1 ? $clog2(SW) : 1;
    reg [SW-1:0]        s_mask_q;
    reg [BIT_BITS-1:0]  s_qb_q;

    reg [SW-1:0]        s_word;
    reg [SW-1:0]        s_hits;
    reg                 s_hit;
    integer sk, sj, s_shift;
    reg [SLOT_BITS:0]   s_j;
    reg [SLOT_BITS:0]   s_om1;            // s_o - 1, s_o = 1 .. 2^b slots on from p
    reg [TICK_BITS-1:0] s_cand_quiet;     // candidate - now_next - 1
    // The candidate's quiet_d, split at the level's field: below it the
    // fields of ~s_base_q less the elapsed ticks and this cycle's step
    // (s_dlow), from it up a small signed number, the slot offset plus what
    // s_dlow borrowed (s_hi). The found bit s_j and the step meet a carry
    // chain of S_HW bits, not of 48: all else comes from registers.
    localparam integer S_LOWMAX = (LEVELS - 1) * SLOT_BITS;   // the widest s_shift
    localparam integer S_DW = (S_LOWMAX > EL_BITS ? S_LOWMAX : EL_BITS) + 2;
    localparam integer S_HW = SLOT_BITS + EL_BITS + 2;
    reg [S_DW-1:0]        s_lowmask;
    reg [S_DW-1:0]        s_d0;           // (~s_base_q's fields below) - s_elapsed
    reg [63:0]            s_d0_ext;       // sign-extended (s_shift + S_HW <= 57)
    reg [S_DW-1:0]        s_dlow;         // s_d0 - step
    reg [S_HW-1:0]        s_hi_pre;       // s_i_q * SW - s_qb_q + (s_d0 >>> s_shift) - 1
    reg [S_HW-1:0]        s_hi;           // ... + s_j, less what the step borrows
    reg [TICK_BITS-1:0]   s_hi_ext;       // sign-extended
    reg [TICK_BITS-1:0] s_reach;          // (answer - s_base_q - 1 + s_low) >> s_shift
    always @(*) begin
        s_word = 0;
        for (sk = 0; sk < LEVELS; sk = sk + 1)
            if (s_lvl_q == sk[LVL_W-1:0])
                s_word = srch_words[sk*SW +: SW];
        s_shift = s_lvl_q * SLOT_BITS;
        s_hits  = s_word & s_mask_q;
        s_hit = |s_hits;
        s_j   = 0;
        for (sj = SW - 1; sj >= 0; sj = sj - 1)
            if (s_hits[sj])
                s_j = sj[SLOT_BITS:0];
        s_om1  = {{(SLOT_BITS+1-WI_BITS){1'b0}}, s_i_q} * SW[SLOT_BITS:0] + s_j
                 - {{(SLOT_BITS+1-BIT_BITS){1'b0}}, s_qb_q};
        // The candidate is (s_base_q with the fields below the level cleared)
        // + (s_o << s_shift). Its quiet_d, candidate - now_next - 1, is
        // (s_om1 << s_shift) + (~s_base_q's fields below the level)
        // - s_elapsed - step (no jump while the search runs), where
        // s_om1 = s_i_q * SW - s_qb_q + s_j. That is
        // ((s_i_q * SW - s_qb_q + s_j) << s_shift) + s_d0 - step, and
        // s_d0 - step = ((its >>> s_shift) << s_shift) + its bits below
        // s_shift, whose sum with the first term is an OR: no carry crosses
        // s_shift. The step borrows from the upper part only when s_d0's
        // bits below s_shift are all zero (always on level 0).
        s_lowmask = ({{(S_DW-1){1'b0}}, 1'b1} << s_shift) - 1'b1;
        s_d0      = (~s_base_q[S_DW-1:0] & s_lowmask) - {{(S_DW-EL_BITS){1'b0}}, s_elapsed_q};
        s_d0_ext  = {{(64-S_DW){s_d0[S_DW-1]}}, s_d0};
        s_dlow    = s_d0 - {{(S_DW-1){1'b0}}, step};
        s_hi_pre  = {{(S_HW-WI_BITS){1'b0}}, s_i_q} * SW[S_HW-1:0]
                  - {{(S_HW-BIT_BITS){1'b0}}, s_qb_q} + s_d0_ext[s_shift +: S_HW] - 1'b1;
        s_hi      = s_hi_pre + {{(S_HW-SLOT_BITS-1){1'b0}}, s_j}
                  + {{(S_HW-1){1'b0}}, !(step && (s_d0 & s_lowmask) == 0)};
        s_hi_ext  = {{(TICK_BITS-S_HW){s_hi[S_HW-1]}}, s_hi};
        s_cand_quiet = (s_hi_ext << s_shift)
                     | ({{(TICK_BITS-S_DW){1'b0}}, s_dlow & s_lowmask});
        // The answer so far is quiet_q + s_elapsed + 1 ticks from s_base_q.
        s_reach   = (quiet_q + s_elapsed + (s_base_q & ((48'd1 << s_shift) - 48'd1))) >> s_shift;
    end

    // The answer holds while time is before it and the bitmap is unchanged.
    // The answer is reached when answer - now_next <= 0, i.e. when
    // quiet_after = answer - now_next - 1 is -1 or below.
    // quiet_after only goes into a register; whether it has passed needs no
    // subtraction: a jump lands before the answer (on a jump to the tick
    // before it, quiet_after = 0; on one over all of ADVANCE, quiet_q >
    // ADVANCE's remainder), and after one tick it has passed exactly when
    // quiet_q - 1 has, that is when quiet_q itself is reached.
    wire [TICK_BITS-1:0] quiet_after = quiet_q - step_amt;
    wire s_stale = s_valid_q && s_found_q
                   && (step_one ? reached(quiet_q) : !jumped && passed_quiet(quiet_q));
    wire s_start = (!s_run_q && !s_valid_q) || s_stale || cmd_set || cmd_clear || cmd_clear_all;
    // The candidate is nearer than the answer so far when
    // (s_o << s_shift) - s_low <= answer - s_base_q - 1 (s_low: the fields of
    // s_base_q below the level), that is when s_o <= s_reach:
    // s_reach comes from registers alone, and s_o is a few bits wide.
    wire s_better = !s_found_q || |(s_reach >> (SLOT_BITS + 1)) || s_om1 < s_reach[SLOT_BITS:0];
    wire s_level_done = s_hit || s_i_q == NWORDS[WI_BITS-1:0];

    reg                 s_run_d, s_valid_d, s_found_d;
    reg [LVL_W-1:0]     s_lvl_d;
    reg [WI_BITS-1:0]   s_i_d;
    reg [TICK_BITS-1:0] s_base_d;
    reg [LVL_W-1:0]     s_lvl_c;           // where a running search goes next
    // s_i_c's top bit is the last step, back to the first word: the word
    // address wraps round the level, so it does not use that bit.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [WI_BITS-1:0]   s_i_c;
    /* verilator lint_on UNUSEDSIGNAL */
    always @(*) begin
        s_run_d   = s_run_q;
        s_valid_d = s_valid_q;
        s_found_d = s_found_q;
        s_lvl_d   = s_lvl_q;
        s_i_d     = s_i_q;
        s_base_d  = s_base_q;
        if (s_run_q) begin
            if (s_hit && s_better) begin
                s_found_d = 1'b1;
            end
            if (!s_level_done) begin
                s_i_d = s_i_q + 1'b1;
            end else if (s_lvl_q == LEVELS[LVL_W-1:0] - 1'b1) begin
                s_run_d   = 1'b0;
                s_valid_d = 1'b1;
            end else begin
                s_lvl_d = s_lvl_q + 1'b1;
                s_i_d   = 0;
            end
        end
        s_lvl_c = s_lvl_d;
        s_i_c   = s_i_d;
        if (i_rst) begin
            s_run_d   = 1'b0;
            s_valid_d = 1'b0;
            s_found_d = 1'b0;
            s_lvl_d   = 0;
            s_i_d     = 0;
            s_base_d  = 0;
        end else if (s_start) begin
            s_run_d   = 1'b1;
            s_valid_d = 1'b0;
            s_found_d = 1'b0;
            s_lvl_d   = 0;
            s_i_d     = 0;
            s_base_d  = now_next;
            end
    end

    // A new answer's distance is worked out from the old time and stepped on.
    wire s_take = !s_start && s_run_q && s_hit && s_better;
    always @(posedge i_clk) begin
        if (i_rst)
            quiet_q <= {TICK_BITS{1'b1}};
        else if (s_take)
            quiet_q <= s_cand_quiet;
        else
            quiet_q <= quiet_after;
        s_elapsed_q <= s_start ? {EL_BITS{1'b0}} : s_elapsed_q + {{(EL_BITS-1){1'b0}}, step};
        if (s_start)
            s_qs_q <= ahead_slots_d;
        s_run_q   <= s_run_d;
        s_valid_q <= s_valid_d;
        s_found_q <= s_found_d;
        s_lvl_q   <= s_lvl_d;
        s_i_q     <= s_i_d;
        s_base_q  <= s_base_d;
    end

    // The word the search scans next cycle: its level's slot after the
    // pointer, plus the words already scanned (wrapping round the level).
    // A new search starts at level 0's slot after now_next, which the visit
    // port fetches anyway; the choice comes last, so a restart does not wait
    // for an adder. Only the word part of a slot is used here; its bit
    // within the word and the scan's mask of that word are registered here.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [SLOT_BITS-1:0] s_q_c;
    wire [SLOT_BITS-1:0] s_q_start = ahead_slots_d[0 +: SLOT_BITS];
    /* verilator lint_on UNUSEDSIGNAL */
    reg [WORD_BITS-1:0] s_word_d;
    reg [BIT_BITS-1:0]  s_qb_d;
    reg [SW-1:0]        s_mask_d;
    wire [WI_BITS-1:0]  s_i_n = s_start ? {WI_BITS{1'b0}} : s_i_c;
    integer wk;
    always @(*) begin
        s_q_c = 0;
        for (wk = 0; wk < LEVELS; wk = wk + 1)
            if (s_lvl_c == wk[LVL_W-1:0])
                s_q_c = s_qs_q[wk*SLOT_BITS +: SLOT_BITS];
        s_word_d = 0;
        if (NWORDS > 1)
            s_word_d = s_start ? s_q_start[SLOT_BITS-1 -: WORD_BITS]
                               : s_q_c[SLOT_BITS-1 -: WORD_BITS] + s_i_c[WORD_BITS-1:0];
        s_qb_d   = s_start ? s_q_start[BIT_BITS-1:0] : s_q_c[BIT_BITS-1:0];
        s_mask_d = {SW{1'b1}};
        if (s_i_n == 0)
            s_mask_d = s_mask_d & ({SW{1'b1}} << s_qb_d);
        if (s_i_n == NWORDS[WI_BITS-1:0])
            s_mask_d = s_mask_d & ~({SW{1'b1}} << s_qb_d);
    end
    always @(posedge i_clk) begin
        s_qb_q   <= s_qb_d;
        s_mask_q <= s_mask_d;
    end

    // The bitmaps: one SET or CLEAR per cycle, or CLEAR_ALL.
    wire [LEVELS*SW-1:0] srch_words;
    reg  [LEVELS*SLOT_BITS-1:0] ahead_slots_d;
    integer ck;
    always @(*)
        for (ck = 0; ck < LEVELS; ck = ck + 1)
            ahead_slots_d[ck*SLOT_BITS +: SLOT_BITS] = now_next[ck*SLOT_BITS +: SLOT_BITS] + 1'b1;
    always @(posedge i_clk)
        ahead_slots_q <= ahead_slots_d;
    genvar gl;
    generate
        for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_level
            localparam [LVL_W-1:0] LVL = gl;
            tw_bitmap #(.SLOT_BITS(SLOT_BITS)) u_bitmap (
                .i_clk(i_clk), .i_rst(i_rst),
                .i_clear_all(cmd_clear_all),
                .i_wr((cmd_set || cmd_clear) && cmd_lvl == LVL),
                .i_wr_slot(cmd_sl), .i_wr_val(cmd_set),
                .i_visit_slot(ahead_slots_d[gl*SLOT_BITS +: SLOT_BITS]),
                .o_visit_bit(busy_ahead[gl]),
                .i_search_word(s_word_d),
                .o_search_word(srch_words[gl*SW +: SW])
            );
        end
    endgenerate

    // NEXT: the answer capped at now + horizon. The answer is now_q + quiet_q + 1.
    wire [TICK_BITS-1:0] best_tick = now_plus_quiet + 48'd1;
    wire [TICK_BITS-1:0] horizon_end = now_q + {16'd0, horizon_q};
    wire [TICK_BITS-1:0] next_tick = !srch_ok ? 48'd0
                                   : s_found_q && quiet_q < {16'd0, horizon_q} ? best_tick
                                   : horizon_end;

    // ------------------------------------------------------------- registers
    wire [31:0] caps = (LEVELS << TW_CAPS_LEVELS_LSB) | (SLOT_BITS << TW_CAPS_SLOT_BITS_LSB)
                     | (FIFO_LOG2 << TW_CAPS_FIFO_LOG2_LSB) | (TICK_BITS << TW_CAPS_TICK_BITS_LSB);
    wire [31:0] status = ({31'd0, overflow_q} << TW_STATUS_OVERFLOW_LSB)
                       | ({31'd0, hold_q} << TW_STATUS_HOLD_LSB)
                       | ({31'd0, cmd_err_q} << TW_STATUS_CMD_ERR_LSB)
                       | ({31'd0, adv_rem_q != 0} << TW_STATUS_ADVANCING_LSB)
                       | ({31'd0, o_irq} << TW_STATUS_IRQ_LSB)
                       | ({31'd0, !srch_ok} << TW_STATUS_SEARCHING_LSB)
                       | ({{(31-FIFO_LOG2){1'b0}}, fifo_count} << TW_STATUS_FIFO_COUNT_LSB);
    wire [11:0] ev_slot12;
    generate
        if (SLOT_BITS == 12) begin : g_slot_full
            assign ev_slot12 = ev_slot;
        end else begin : g_slot_pad
            assign ev_slot12 = {{(12-SLOT_BITS){1'b0}}, ev_slot};
        end
    endgenerate
    // An empty FIFO reads all zero: the stale head entry is never shown.
    wire [31:0] evt_info = fifo_empty ? 32'd0 : {1'b1, rem_late, ev_level, ev_slot12, h_tick[47:32]};
    wire [31:0] evt_tick = fifo_empty ? 32'd0 : h_tick[31:0];
    wire [31:0] ctrl = {28'd0, ctrl_vhold_q, ctrl_irq_en_q, ctrl_src_q};

    // The read data of register `adr`, called in the clock of a read: a
    // function rather than logic of its own, so that a Verilated model works
    // it out on reads only (the same multiplexer in hardware).
    function [31:0] read_mux;
        input [5:0] adr;
        begin
            read_mux = 32'd0;
            case (adr)
                TW_REG_ID:            read_mux = TW_ID_MAGIC;
                TW_REG_VERSION:       read_mux = {TW_VERSION_MAJOR, TW_VERSION_MINOR};
                TW_REG_CAPS:          read_mux = caps;
                TW_REG_CTRL:          read_mux = ctrl;
                TW_REG_PRESCALE:      read_mux = prescale_q;
                TW_REG_STATUS:        read_mux = status;
                TW_REG_NOW_LO:        read_mux = now_q[31:0];
                TW_REG_NOW_HI:        read_mux = {16'd0, now_hi_snap_q};
                TW_REG_ADVANCE:       read_mux = adv_rem_q;
                TW_REG_ARM_LO:        read_mux = arm_lo_q;
                TW_REG_ARM_HI:        read_mux = {16'd0, arm_hi_q};
                TW_REG_EVT_INFO:      read_mux = evt_info;
                TW_REG_EVT_TICK:      read_mux = evt_tick;
                TW_REG_CNT_EVENTS:    read_mux = cnt_events_now;
                TW_REG_CNT_LATE:      read_mux = cnt_late_now;
                TW_REG_CNT_OVERFLOW:  read_mux = cnt_overflow_now;
                TW_REG_CNT_CMDS:      read_mux = cnt_cmds_q;
                TW_REG_CNT_BUSERR:    read_mux = cnt_buserr_q;
                TW_REG_SEARCH:        read_mux = horizon_q;
                TW_REG_NEXT_LO:       read_mux = next_tick[31:0];
                TW_REG_NEXT_HI:       read_mux = {16'd0, next_hi_snap_q};
                TW_REG_COALESCE:      read_mux = {coal_thresh_q, coal_holdoff_q};
                default: ;
            endcase
        end
    endfunction
    reg        addr_ok;   // the access names a register that allows it
    always @(*)
        case (i_wb_adr)
            TW_REG_CTRL, TW_REG_PRESCALE, TW_REG_STATUS, TW_REG_ADVANCE, TW_REG_ARM_LO,
            TW_REG_ARM_HI, TW_REG_SEARCH, TW_REG_COALESCE:
                addr_ok = 1'b1;
            TW_REG_ID, TW_REG_VERSION, TW_REG_CAPS, TW_REG_NOW_LO, TW_REG_NOW_HI,
            TW_REG_EVT_INFO, TW_REG_EVT_TICK, TW_REG_CNT_EVENTS, TW_REG_CNT_LATE,
            TW_REG_CNT_OVERFLOW, TW_REG_CNT_CMDS, TW_REG_CNT_BUSERR, TW_REG_NEXT_LO,
            TW_REG_NEXT_HI:
                addr_ok = !i_wb_we;   // read-only
            TW_REG_CMD:
                addr_ok = i_wb_we;    // write-only
            default:
                addr_ok = 1'b0;
        endcase

    // What ADVANCE has left after this cycle's step (a jump to the answer
    // takes quiet_q <= adv_rem_q ticks, the other jump all of them).
    wire [31:0] adv_after = step_quiet ? adv_rem_q - quiet_q[31:0] : step_all ? 32'd0
                          : adv_step ? adv_rem_q - 32'd1 : adv_rem_q;
    // ... plus what a write to ADVANCE adds, saturating.
    function [31:0] adv_plus;
        input [31:0] left, add;
        reg   [32:0] sum;
        begin
            sum      = {1'b0, left} + {1'b0, add};
            adv_plus = sum[32] ? 32'hFFFF_FFFF : sum[31:0];
        end
    endfunction
    // The coalescing age after the step, saturating at 0xFFFF, formed for
    // each step amount like the counter.
    function [15:0] age_plus;
        input [15:0]          age;
        input [TICK_BITS-1:0] amt;
        reg   [16:0]          sum;
        begin
            sum      = {1'b0, age} + {1'b0, amt[15:0]};
            age_plus = sum[16] || |amt[TICK_BITS-1:16] ? 16'hFFFF : sum[15:0];
        end
    endfunction
    wire [15:0] age_quiet = age_plus(irq_age_q, quiet_q);
    wire [15:0] age_all   = age_plus(irq_age_q, adv_left);
    wire [15:0] age_one   = &irq_age_q ? irq_age_q : irq_age_q + 16'd1;
    wire [15:0] age_next  = step_quiet ? age_quiet : step_all ? age_all
                          : step_one ? age_one : irq_age_q;

    always @(posedge i_clk) begin
        if (i_rst) begin
            now_q           <= 0;
            arm_gap_q       <= 0;
            arm_new_q       <= 1'b0;
            ctrl_src_q      <= SRC_HOST;
            ctrl_irq_en_q   <= 1'b0;
            ctrl_vhold_q    <= 1'b0;
            prescale_q      <= 0;
            presc_cnt_q     <= 0;
            adv_rem_q       <= 0;
            arm_lo_q        <= 0;
            arm_hi_q        <= 0;
            now_hi_snap_q   <= 0;
            overflow_q      <= 1'b0;
            hold_q          <= 1'b0;
            cmd_err_q       <= 1'b0;
            consumed_mask_q <= 0;
            consumed_late_q <= 1'b0;
            ext_sync_q      <= 0;
            cnt_events_q    <= 0;
            cnt_late_q      <= 0;
            pend_events_q   <= 0;
            pend_overflow_q <= 0;
            pend_late_q     <= 1'b0;
            cnt_overflow_q  <= 0;
            cnt_cmds_q      <= 0;
            cnt_buserr_q    <= 0;
            coal_holdoff_q  <= 0;
            coal_thresh_q   <= 0;
            irq_age_q       <= 0;
            horizon_q       <= 32'hFFFF_FFFF;
            next_hi_snap_q  <= 0;
            o_wb_ack        <= 1'b0;
            o_wb_dat        <= 0;
        end else begin
            o_wb_ack   <= acc;
            if (rd)
                o_wb_dat <= read_mux(i_wb_adr);
            ext_sync_q <= {ext_sync_q[1:0], i_ext_tick};
            now_q      <= now_next;
            arm_gap_q  <= arm_gap_d;
            arm_new_q  <= arm_wr;
            if (wr && i_wb_adr == TW_REG_ADVANCE)
                adv_rem_q <= adv_plus(adv_after, i_wb_dat);
            else
                adv_rem_q <= adv_after;

            if (ctrl_src_q != SRC_INT || presc_cnt_q == 0)
                presc_cnt_q <= prescale_q;
            else
                presc_cnt_q <= presc_cnt_q - 1;

            if (rd && i_wb_adr == TW_REG_NOW_LO)
                now_hi_snap_q <= now_q[47:32];
            if (rd && i_wb_adr == TW_REG_NEXT_LO)
                next_hi_snap_q <= next_tick[47:32];
            if (fifo_empty)
                irq_age_q <= 0;
            else
                irq_age_q <= age_next;

            if (wr) begin
                case (i_wb_adr)
                    TW_REG_CTRL: begin
                        ctrl_src_q    <= i_wb_dat[TW_CTRL_TICK_SRC_LSB +: TW_CTRL_TICK_SRC_WIDTH];
                        ctrl_irq_en_q <= i_wb_dat[TW_CTRL_IRQ_EN_LSB];
                        ctrl_vhold_q  <= i_wb_dat[TW_CTRL_VHOLD_LSB];
                    end
                    TW_REG_PRESCALE: prescale_q <= i_wb_dat;
                    TW_REG_ARM_LO:   arm_lo_q   <= i_wb_dat;
                    TW_REG_ARM_HI:   arm_hi_q   <= i_wb_dat[15:0];
                    TW_REG_SEARCH:   horizon_q  <= i_wb_dat;
                    TW_REG_COALESCE: begin
                        coal_holdoff_q <= i_wb_dat[TW_COALESCE_HOLDOFF_LSB +: 16];
                        coal_thresh_q  <= i_wb_dat[TW_COALESCE_THRESH_LSB +: 16];
                    end
                    default: ;
                endcase
            end
            if (acc && !addr_ok)
                cnt_buserr_q <= cnt_buserr_q + 1;

            // Sticky flags: a new occurrence wins over a clear in the same cycle.
            if (wr && i_wb_adr == TW_REG_STATUS) begin
                if (i_wb_dat[TW_STATUS_OVERFLOW_LSB]) overflow_q <= 1'b0;
                if (i_wb_dat[TW_STATUS_HOLD_LSB])     hold_q     <= 1'b0;
                if (i_wb_dat[TW_STATUS_CMD_ERR_LSB])  cmd_err_q  <= 1'b0;
            end
            pend_events_q   <= push && push_ok ? n_events : 3'd0;
            pend_overflow_q <= push && !push_ok ? n_events : 3'd0;
            pend_late_q     <= late;
            cnt_events_q    <= cnt_events_now;
            cnt_overflow_q  <= cnt_overflow_now;
            cnt_late_q      <= cnt_late_now;
            if (push && !push_ok)
                overflow_q <= 1'b1;
            if (push && push_ok) begin
                if (ctrl_src_q == SRC_HOST && ctrl_vhold_q)
                    hold_q <= 1'b1;
            end

            if (cmd_wr)
                cnt_cmds_q <= cnt_cmds_q + 1;
            if (cmd_bad) begin
                cmd_err_q    <= 1'b1;
                cnt_buserr_q <= cnt_buserr_q + 1;
            end

            if (pop_evt) begin
                if (ev_last) begin
                    consumed_mask_q <= 0;
                    consumed_late_q <= 1'b0;
                end else if (rem_late) begin
                    consumed_late_q <= 1'b1;
                end else begin
                    consumed_mask_q <= consumed_mask_q | vis_bit;
                end
            end
        end
    end

`ifdef FORMAL
    // ==================================================================
    // Formal properties, proved by tests/formal/run.sh at a small geometry
    // (docs/verification.md). They name only the counter, the visit and
    // command signals, the FIFO's and the bus ports, never the bitmap's
    // storage or the search: a shadow bitmap kept from the commands stands
    // in for it, so they check whichever storage the chip uses. Properties
    // that need the shadow to match the storage hold from reset (BMC); the
    // rest hold in every state (k-induction, with TW_CORE_F_INDUCT defined).
    // Assumed: the run starts in reset. The bus, the tick input and so the
    // tick source (host advance with its jumps, prescaler, external) are free.
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
    always @(*)
        if (!f_past_valid)
            assume(i_rst);

    wire f_acc  = i_wb_cyc && i_wb_stb && !o_wb_ack;
    wire f_wr   = f_acc && i_wb_we;
    wire f_rd   = f_acc && !i_wb_we;
    wire f_clr_overflow = f_wr && i_wb_adr == TW_REG_STATUS && i_wb_dat[TW_STATUS_OVERFLOW_LSB];

    // ---- Wishbone B4 classic slave: ack only in response to cyc&stb, one
    // ack per access (a strobe held through its ack is the next access),
    // every access acked in the next cycle, none after reset, no stall, and
    // read data that changes only in answer to a read.
    always @(*)
        assert(!o_wb_stall);
    always @(posedge i_clk)
        if (f_past_valid) begin
            if ($past(i_rst))
                assert(!o_wb_ack);
            else begin
                assert(o_wb_ack == ($past(i_wb_cyc) && $past(i_wb_stb) && !$past(o_wb_ack)));
                if (!$past(f_rd))
                    assert(o_wb_dat == $past(o_wb_dat));
            end
        end

    // ---- Commands decode from the bus alone.
    always @(*) if (f_past_valid) begin
        assert(cmd_set == (f_wr && i_wb_adr == TW_REG_CMD && i_wb_dat[TW_CMD_OP_LSB +: TW_CMD_OP_WIDTH] == 4'd1
                           && i_wb_dat[TW_CMD_LEVEL_LSB +: TW_CMD_LEVEL_WIDTH] < LEVELS
                           && i_wb_dat[TW_CMD_SLOT_LSB +: TW_CMD_SLOT_WIDTH] < SLOTS));
        assert(cmd_clear == (f_wr && i_wb_adr == TW_REG_CMD && i_wb_dat[TW_CMD_OP_LSB +: TW_CMD_OP_WIDTH] == 4'd2
                             && i_wb_dat[TW_CMD_LEVEL_LSB +: TW_CMD_LEVEL_WIDTH] < LEVELS
                             && i_wb_dat[TW_CMD_SLOT_LSB +: TW_CMD_SLOT_WIDTH] < SLOTS));
        assert(cmd_clear_all == (f_wr && i_wb_adr == TW_REG_CMD
                                 && i_wb_dat[TW_CMD_OP_LSB +: TW_CMD_OP_WIDTH] == 4'd3));
        if (cmd_set || cmd_clear)
            assert({2'b00, cmd_lvl} == i_wb_dat[TW_CMD_LEVEL_LSB +: 4]
                   && {{(16-SLOT_BITS){1'b0}}, cmd_sl} == i_wb_dat[TW_CMD_SLOT_LSB +: 16]);
    end

    // ---- The counter and the wheel pointers. Time moves only on a step, by
    // step_amt (more than 1 only when virtual time jumps); level k's pointer is field k of the counter, and level k
    // visits exactly on the steps that make the counter's low k*b bits zero.
    always @(*) if (f_past_valid) begin
        assert(now_next == now_q + step_amt);
        assert((step_amt != 0) == step);
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst))
            assert(now_q == $past(now_next));
    // `visit` and `vslot` (defined next to `hit`) are this relation itself;
    // `hit` is held to them below.

    // ---- Race-free arming. A SET whose named tick the counter has reached
    // (modulo 2^48, as the chip compares) reports the slot exactly once in
    // its cycle: by this cycle's visit of that slot, or else as a late arm;
    // a SET for a tick ahead is never late; nothing else is late.
    wire [TICK_BITS-1:0] f_arm_ahead   = arm_tick - now_next;
    wire                 f_arm_reached = f_arm_ahead == 0 || f_arm_ahead[TICK_BITS-1];
    // Whether this cycle's visits hit slot `sl` of level `lvl`.
    reg [LEVELS*SLOT_BITS-1:0] f_vslots;
    always @(*)
        for (fk = 0; fk < LEVELS; fk = fk + 1)
            f_vslots[fk*SLOT_BITS +: SLOT_BITS] = vslot[fk];
    function f_hits;
        input [LEVELS-1:0]           h;
        input [LEVELS*SLOT_BITS-1:0] slots;
        input [LVL_W-1:0]            lvl;
        input [SLOT_BITS-1:0]        sl;
        integer k;
        begin
            f_hits = 1'b0;
            for (k = 0; k < LEVELS; k = k + 1)
                if (lvl == k[LVL_W-1:0] && h[k] && slots[k*SLOT_BITS +: SLOT_BITS] == sl)
                    f_hits = 1'b1;
        end
    endfunction
    wire f_arm_visited = f_hits(hit, f_vslots, cmd_lvl, cmd_sl);
    always @(*) if (f_past_valid)
        assert(!late || cmd_set);
`ifndef TW_CORE_F_INDUCT
    // From reset only: the chip keeps the distance to the armed tick and the
    // slots it fetched ahead in registers of its own.
    always @(*) if (f_past_valid && !i_rst && cmd_set) begin
        assert(late == (f_arm_reached && !f_arm_visited));
        if (late)
            assert(!f_arm_visited);
    end
`endif

    // ---- Events into the FIFO: one entry a cycle carrying this cycle's tick,
    // its visited busy levels and the late arm; pushed whenever there is one.
    always @(*) if (f_past_valid) begin
        assert(push == (|hit || late));
        assert(hit == (hit & visit));
        assert(entry == {now_next, hit, late, cmd_lvl, cmd_sl});
        assert(!o_irq || !fifo_empty);
    end

    // ---- Overflow: set by a refused push, and only so; stays set until the
    // host clears it (a new refusal in the clearing cycle wins).
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            if ($past(push) && !$past(push_ok))
                assert(overflow_q);
            else if ($past(overflow_q) && !$past(f_clr_overflow))
                assert(overflow_q);
            else if (!$past(overflow_q))
                assert(!overflow_q);
        end

`ifndef TW_CORE_F_INDUCT
    // ---- The shadow bitmap: what the commands since reset made busy.
    reg [SLOTS-1:0] f_busy [0:LEVELS-1];
    integer fl;
    always @(posedge i_clk)
        for (fl = 0; fl < LEVELS; fl = fl + 1) begin
            if (i_rst || cmd_clear_all)
                f_busy[fl] <= 0;
            else if ((cmd_set || cmd_clear) && cmd_lvl == fl[LVL_W-1:0])
                f_busy[fl][cmd_sl] <= cmd_set;
        end

    // Busy-bit semantics: a visit hits exactly when the visited slot is busy,
    // so every visit of a busy slot queues an event and no event names a
    // slot that is not busy.
    always @(*) if (f_past_valid && !i_rst)
        for (fk = 0; fk < LEVELS; fk = fk + 1)
            assert(hit[fk] == (visit[fk] && f_busy[fk][vslot[fk]]));

`ifdef TW_CORE_F_SKIP
    // Virtual-time jumps skip no busy visit: every busy slot's next visit
    // after now_q lies at or beyond now_next.
    function [TICK_BITS-1:0] f_next_visit;   // first tick after t at which level k visits slot s
        input [TICK_BITS-1:0] t;
        input integer k, s;
        reg [TICK_BITS-1:0] span, v;
        begin
            span = 48'd1 << ((k + 1) * SLOT_BITS);
            v = (t & ~(span - 48'd1)) + ({{(TICK_BITS-SLOT_BITS){1'b0}}, s[SLOT_BITS-1:0]} << (k * SLOT_BITS));
            f_next_visit = v > t ? v : v + span;
        end
    endfunction
    // Bounded requests keep the solver's work small; a jump is still any
    // length the search allows, up to a revolution of the top level and more.
    always @(*)
        if (f_wr && i_wb_adr == TW_REG_ADVANCE)
            assume(i_wb_dat < 32'd64);
    integer fs;
    always @(*) if (f_past_valid && !i_rst && step)
        for (fk = 0; fk < LEVELS; fk = fk + 1)
            for (fs = 0; fs < SLOTS; fs = fs + 1)
                if (f_busy[fk][fs])
                    assert(f_next_visit(now_q, fk, fs) - now_q >= step_amt);
    always @(*) if (f_past_valid && !i_rst)
        cover(step && step_amt > 48'd2 && |f_busy[1]);       // a jump with a level-1 slot busy

`else
    // ---- End to end: one arbitrary event E (late flag, level, slot, tick)
    // is read by the host exactly as many times as it was queued. The host
    // reads EVT_INFO and then, if valid, EVT_TICK (which pops), as the
    // driver does; this is assumed of the bus master here.
    // The tick source here is the prescaler or the external input (the
    // host never writes ADVANCE): jumps are the business of the proof above.
    always @(*)
        assume(!(f_wr && i_wb_adr == TW_REG_ADVANCE));
    (* anyconst *) reg                 f_e_late;
    (* anyconst *) reg [LVL_W-1:0]     f_e_lvl;
    (* anyconst *) reg [SLOT_BITS-1:0] f_e_slot;
    (* anyconst *) reg [TICK_BITS-1:0] f_e_tick;
    wire f_e_hit = f_hits(hit, f_vslots, f_e_lvl, f_e_slot);
    wire f_e_queued = push && push_ok && now_next == f_e_tick
                      && (f_e_late ? late && cmd_lvl == f_e_lvl && cmd_sl == f_e_slot : f_e_hit);

    wire f_rd_info = f_rd && i_wb_adr == TW_REG_EVT_INFO;
    wire f_rd_tick = f_rd && i_wb_adr == TW_REG_EVT_TICK;
    reg        f_info_resp, f_tick_resp, f_last_info;
    reg [31:0] f_info;
    reg [2:0]  f_e_in, f_e_out;
    wire f_e_read = f_tick_resp && f_info[TW_EVT_INFO_VALID_LSB]
                    && f_info[TW_EVT_INFO_LATE_LSB] == f_e_late
                    && f_info[TW_EVT_INFO_LEVEL_LSB +: LVL_W] == f_e_lvl
                    && f_info[TW_EVT_INFO_SLOT_LSB +: TW_EVT_INFO_SLOT_WIDTH] == {{(12-SLOT_BITS){1'b0}}, f_e_slot}
                    && {f_info[TW_EVT_INFO_TICK_HI_LSB +: 16], o_wb_dat} == f_e_tick;
    always @(posedge i_clk) begin
        f_info_resp <= !i_rst && f_rd_info;
        f_tick_resp <= !i_rst && f_rd_tick;
        if (f_info_resp)
            f_info <= o_wb_dat;
        if (i_rst)
            f_last_info <= 1'b0;
        else if (f_acc)
            f_last_info <= f_rd_info;
        if (i_rst) begin
            f_e_in  <= 0;
            f_e_out <= 0;
        end else begin
            if (f_e_queued && f_e_in != 3'd7)
                f_e_in <= f_e_in + 1'b1;
            if (f_e_read && f_e_out != 3'd7)
                f_e_out <= f_e_out + 1'b1;
        end
    end
    always @(*)
        if (f_rd_tick)
            assume(f_last_info && !f_info_resp && f_info[TW_EVT_INFO_VALID_LSB]);
    always @(*) if (f_past_valid && !i_rst && f_e_in != 3'd7) begin
        // never read more often than queued (no duplicate, nothing invented)
        assert(f_e_out <= f_e_in);
        // an empty FIFO has handed out everything queued (nothing lost)
        if (fifo_empty && !f_tick_resp)
            assert(f_e_out == f_e_in);
    end

    // ---- Not vacuous.
    always @(*) if (f_past_valid && !i_rst) begin
        cover(f_e_read && !f_e_late && f_e_lvl == 0);        // a level-0 visit event read
        cover(f_e_read && !f_e_late && f_e_lvl == 1);        // a level-1 visit event read
        cover(f_e_read && f_e_late);                         // a late arm read
    end
`endif
    always @(*) if (f_past_valid && !i_rst) begin
        cover(cmd_set && f_arm_reached && f_arm_visited);    // armed as its slot is visited
        cover(push && !push_ok);                             // overflow
        cover(overflow_q && f_clr_overflow);                 // ... cleared by the host
    end
`endif

    // ==================================================================
    // Statistics counters, interrupt coalescing and the next-busy answer
    // (tests/formal/run.sh: `core-ind` and `core-next-bmc`). Stated from the
    // bus, the events (`hit`, `late`) and the shadow bitmap only.
    // ==================================================================
`ifdef TW_CORE_F_INDUCT
    // ---- Statistics counters (k-induction): each CNT_* register reads the
    // number of its occurrences since reset, wrapping, counted here from
    // the bus and the events.
    wire f_ro_adr = i_wb_adr == TW_REG_ID || i_wb_adr == TW_REG_VERSION || i_wb_adr == TW_REG_CAPS
                 || i_wb_adr == TW_REG_NOW_LO || i_wb_adr == TW_REG_NOW_HI
                 || i_wb_adr == TW_REG_EVT_INFO || i_wb_adr == TW_REG_EVT_TICK
                 || (i_wb_adr >= TW_REG_CNT_EVENTS && i_wb_adr <= TW_REG_CNT_BUSERR)
                 || i_wb_adr == TW_REG_NEXT_LO || i_wb_adr == TW_REG_NEXT_HI;
    wire [3:0] f_op = i_wb_dat[TW_CMD_OP_LSB +: TW_CMD_OP_WIDTH];
    wire f_cmd_wr   = f_wr && i_wb_adr == TW_REG_CMD;
    wire f_cmd_ok   = f_op == 4'd3 || ((f_op == 4'd1 || f_op == 4'd2)
                      && i_wb_dat[TW_CMD_LEVEL_LSB +: TW_CMD_LEVEL_WIDTH] < LEVELS
                      && i_wb_dat[TW_CMD_SLOT_LSB +: TW_CMD_SLOT_WIDTH] < SLOTS);
    // unmapped address, a write to a read-only register, a read of CMD, or a bad command
    wire f_bus_err  = (f_acc && (i_wb_adr > TW_REG_COALESCE || (i_wb_we && f_ro_adr)
                                 || (!i_wb_we && i_wb_adr == TW_REG_CMD)))
                      || (f_cmd_wr && !f_cmd_ok);
    reg [31:0] f_cnt_events, f_cnt_late, f_cnt_overflow, f_cnt_cmds, f_cnt_buserr;
    always @(posedge i_clk)
        if (i_rst) begin
            f_cnt_events   <= 0;
            f_cnt_late     <= 0;
            f_cnt_overflow <= 0;
            f_cnt_cmds     <= 0;
            f_cnt_buserr   <= 0;
        end else begin
            // an event is queued, or dropped when its cycle's entry is refused
            if (push_ok)
                f_cnt_events   <= f_cnt_events + {29'd0, n_events};
            else
                f_cnt_overflow <= f_cnt_overflow + {29'd0, n_events};
            f_cnt_late   <= f_cnt_late + {31'd0, late};
            f_cnt_cmds   <= f_cnt_cmds + {31'd0, f_cmd_wr};
            f_cnt_buserr <= f_cnt_buserr + {31'd0, f_bus_err};
        end
    always @(*) if (f_past_valid && !i_rst) begin
        // the event counters add a clock late; what they show includes the pending part
        assert(cnt_events_now == f_cnt_events && cnt_late_now == f_cnt_late
               && cnt_overflow_now == f_cnt_overflow && cnt_cmds_q == f_cnt_cmds
               && cnt_buserr_q == f_cnt_buserr);
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst) && $past(f_rd))
            case ($past(i_wb_adr))
                TW_REG_CNT_EVENTS:   assert(o_wb_dat == $past(f_cnt_events));
                TW_REG_CNT_LATE:     assert(o_wb_dat == $past(f_cnt_late));
                TW_REG_CNT_OVERFLOW: assert(o_wb_dat == $past(f_cnt_overflow));
                TW_REG_CNT_CMDS:     assert(o_wb_dat == $past(f_cnt_cmds));
                TW_REG_CNT_BUSERR:   assert(o_wb_dat == $past(f_cnt_buserr));
                default: ;
            endcase
`endif

`ifdef TW_CORE_F_NEXT
`ifndef TW_CORE_F_INDUCT
    // ---- Interrupt coalescing (BMC): with IRQ enabled and the FIFO
    // non-empty, the line is up exactly when virtual time is held, the FIFO
    // is full, COALESCE.THRESH entries wait, or COALESCE.HOLDOFF ticks have
    // passed since the FIFO last became non-empty (f_ne_tick: the tick then).
    reg [TICK_BITS-1:0] f_ne_tick;
    always @(posedge i_clk)
        if (i_rst || fifo_empty)
            f_ne_tick <= now_next;
    wire [TICK_BITS-1:0] f_ne_ticks = now_q - f_ne_tick;
    always @(*) if (f_past_valid && !i_rst)
        assert(o_irq == (ctrl_irq_en_q && !fifo_empty
                         && (hold_q || fifo_full
                             || {{(31-FIFO_LOG2){1'b0}}, fifo_count} >= {16'd0, coal_thresh_q}
                             || f_ne_ticks >= {32'd0, coal_holdoff_q})));

    // ---- The next-busy answer (BMC): whenever STATUS.SEARCHING is clear,
    // NEXT is the earliest visit after now of a slot busy in the shadow
    // bitmap, or now + SEARCH if that comes first; while it is set, NEXT
    // reads 0. A NEXT_LO read returns bits 31:0 and latches 47:32 for NEXT_HI.
    // Level k visits slot s on the ticks whose field k is s and whose lower
    // fields are zero, once every span = 2^((k+1)b) ticks: the next one after
    // now is at s*2^(kb) - (now mod span) ticks, plus span if that is not
    // positive. Worked out in F_W bits (a top-level revolution and one more).
    localparam integer F_W = LEVELS * SLOT_BITS + 1;
    wire [LEVELS*SLOTS*F_W-1:0] f_nb_dists;
    genvar fgk, fgs;
    generate
        for (fgk = 0; fgk < LEVELS; fgk = fgk + 1) begin : g_f_nb_level
            for (fgs = 0; fgs < SLOTS; fgs = fgs + 1) begin : g_f_nb_slot
                localparam [F_W-1:0] AT   = fgs << (fgk * SLOT_BITS);
                localparam [F_W-1:0] SPAN = 1 << ((fgk + 1) * SLOT_BITS);
                wire [F_W-1:0] off = {{(F_W-(fgk+1)*SLOT_BITS){1'b0}}, now_q[(fgk+1)*SLOT_BITS-1:0]};
                assign f_nb_dists[(fgk*SLOTS+fgs)*F_W +: F_W] = AT > off ? AT - off : AT + SPAN - off;
            end
        end
    endgenerate
    reg [F_W-1:0] f_nb_first;             // ticks to the earliest busy visit
    reg           f_nb_any;               // there is one (a slot is busy)
    integer fbk, fbs;
    always @(*) begin
        f_nb_first = {F_W{1'b1}};
        f_nb_any   = 1'b0;
        for (fbk = 0; fbk < LEVELS; fbk = fbk + 1)
            for (fbs = 0; fbs < SLOTS; fbs = fbs + 1)
                if (f_busy[fbk][fbs] && f_nb_dists[(fbk*SLOTS+fbs)*F_W +: F_W] < f_nb_first) begin
                    f_nb_first = f_nb_dists[(fbk*SLOTS+fbs)*F_W +: F_W];
                    f_nb_any   = 1'b1;
                end
    end
    wire                 f_searching = status[TW_STATUS_SEARCHING_LSB];
    wire [TICK_BITS-1:0] f_nb_ticks  = {{(TICK_BITS-F_W){1'b0}}, f_nb_first};
    wire [TICK_BITS-1:0] f_nb_cap    = {16'd0, horizon_q};
    wire [TICK_BITS-1:0] f_nb_expect = f_searching ? 48'd0
                                     : now_q + (f_nb_any && f_nb_ticks < f_nb_cap ? f_nb_ticks : f_nb_cap);
    reg [15:0] f_next_hi;
    always @(posedge i_clk)
        if (i_rst)
            f_next_hi <= 0;
        else if (f_rd && i_wb_adr == TW_REG_NEXT_LO)
            f_next_hi <= f_nb_expect[47:32];
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst) && $past(f_rd)) begin
            if ($past(i_wb_adr) == TW_REG_NEXT_LO)
                assert(o_wb_dat == $past(f_nb_expect[31:0]));
            if ($past(i_wb_adr) == TW_REG_NEXT_HI)
                assert(o_wb_dat == {16'd0, $past(f_next_hi)});
        end
    always @(*) if (f_past_valid && !i_rst) begin
        assert(next_tick == f_nb_expect);
        // an answer found at level 1 with level 0 empty, before the horizon
        cover(!f_searching && f_busy[0] == 0 && f_busy[1] != 0 && f_nb_ticks < f_nb_cap);
        cover(o_irq && fifo_count == 1 && coal_thresh_q > 1);   // raised by the holdoff
    end
`endif
`endif
`endif
endmodule
`default_nettype wire
