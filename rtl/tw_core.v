`default_nettype none
// tw_core: the tickwheel timer coprocessor (Varghese & Lauck, Appendix A).
//
// The chip holds one busy bit per wheel slot and a tick counter; level k's
// slot pointer is bits [(k+1)b-1 : kb] of the counter, so a wrap of level k-1
// is a carry into level k. Level k visits its slot on every tick whose low kb
// bits are zero. A visit of a busy slot queues an event; the host keeps every
// timer queue in its own memory and only tells the chip which slots are busy.
//
// The chip is a pipeline: every loop closes through registers, so that it
// takes one tick per clock at the iCE40 targets. docs/chip.md ("Bus and
// timing contract") gives the clock of every effect; host/tw_model.c follows
// it. A tick goes through these stages, one clock each:
//   D   the step decision (step_d, combinational from flops)
//   C1  step_q: the counter's low half steps, its carry is registered
//   C2  the high half takes the carry
//   P   tick_p = {hi_q, lo_d_q}: the new tick, consistent
//   V   tick_v: the bus's tick is tick_p, so V is where the bus met it a
//       clock ago; bitmap read addresses, a command's write and late check
//   H1  busy words leave block RAM (registered)
//   H2  the word registered again
//   G   the slot's bit picked; the entry formed
//   E   the entry pushed into the FIFO (at the end of E)
// and a bus access through these, where R is the clock the request is
// captured at the end of:
//   R   request captured into flops (i_wb_* of this clock)
//   B0  decoded (waits here while a jump or an ADVANCE sum runs)
//   B1  strobes registered: reads sample the state of this clock
//   B2  writes have taken effect; a command is in V here
//   B3  ack and read data (o_wb_ack high in B3)
module tw_core #(
    parameter integer LEVELS    = 4,   // m: 1..4
    parameter integer SLOT_BITS = 8,   // b: 2..12, each level has 2^b slots
    parameter integer FIFO_LOG2 = 4    // event FIFO holds 2^FIFO_LOG2 entries (2..12)
) (
    input  wire        i_clk,
    input  wire        i_rst,          // synchronous, active high
    // Wishbone B4 slave (classic, or pipelined with the stall), 32-bit
    // port, word addresses, no byte select
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
    localparam integer DEPTH     = 1 << FIFO_LOG2;
    localparam integer WA        = SLOT_BITS > 4 ? SLOT_BITS - 4 : 1;
    localparam integer SW        = SLOT_BITS < 4 ? 1 << SLOT_BITS : 16;
    localparam integer FW        = FIFO_LOG2 + 1;     // the FIFO's count
    localparam integer ROOM_MAX_I = DEPTH - 4;        // entries + in flight that leave room
    localparam [FW:0]  ROOM_MAX  = ROOM_MAX_I[FW:0];

    localparam [1:0] SRC_HOST = 2'd0, SRC_INT = 2'd1, SRC_EXT = 2'd2;
    localparam [3:0] OP_SET = 4'd1, OP_CLEAR = 4'd2, OP_CLEAR_ALL = 4'd3;

    // A CMD's level and slot exist: bit tests, not comparisons (which become
    // carry chains). Decoded as the request is captured, off B0's path.
    localparam [15:0] SLOT_HIGH = ~(SLOTS[15:0] - 16'd1);   // bits no slot has
    localparam [3:0]  LEVEL_OK  = (4'd1 << LEVELS) - 4'd1;    // one bit per level the build has
    function target_ok;
        // Only the level and slot fields are read.
        /* verilator lint_off UNUSEDSIGNAL */
        input [31:0] cmd;
        /* verilator lint_on UNUSEDSIGNAL */
        reg   [3:0]  level;
        reg   [15:0] slot;
        begin
            level     = cmd[TW_CMD_LEVEL_LSB +: 4];
            slot      = cmd[TW_CMD_SLOT_LSB +: 16];
            target_ok = level[3:2] == 2'd0 && LEVEL_OK[level[1:0]] && (slot & SLOT_HIGH) == 16'd0;
        end
    endfunction

    // The arm comparison is modular over TICK_BITS, so every visit the host
    // names must lie within 2^(TICK_BITS-1) ticks of now: one top-level
    // revolution (2^(m*b)) must be far shorter than that. The FIFO needs room
    // for the entries in flight (below) beside one it holds. Any other
    // geometry stops elaboration here, in Icarus, Verilator and Yosys alike,
    // with the rule in the missing module's name (an initial block's $finish
    // would stop only a simulation, and lint and synthesis would go on).
    localparam GEOMETRY_OK = LEVELS >= 1 && LEVELS <= 4 && SLOT_BITS >= 2 && SLOT_BITS <= 12
                             && LEVELS * SLOT_BITS <= 44 && FIFO_LOG2 >= 2 && FIFO_LOG2 <= 12;
    generate
        if (!GEOMETRY_OK) begin : g_unsupported_geometry
            tw_core_needs_LEVELS_1_to_4_SLOT_BITS_2_to_12_LEVELS_x_SLOT_BITS_at_most_44_FIFO_LOG2_2_to_12 u_stop ();
        end
    endgenerate
    // ====================================================== bus: R and B0
    // A request is captured at the first clock edge that sees cyc & stb with
    // no access outstanding or in B3; it is decoded (B0) in the next clock
    // unless a virtual-time jump or an ADVANCE sum holds the bus, or, with
    // VHOLD, a CMD waits for the ticks in flight.
    reg        pend_q;                 // captured, not yet in B3
    reg        req_v_q;                // captured, not yet decoded
    reg        req_we_q;
    reg        req_advrd_q;            // the request is a read of ADVANCE
    reg [5:0]  req_adr_q;
    reg [31:0] req_dat_q;
    wire       bus_hold;               // a jump or an ADVANCE sum is under way
    wire       cmd_wait;               // a CMD waits for the ticks in flight (VHOLD)
    reg        req_target_ok;          // its CMD names a level and slot the build has (decoded at capture)
    // What B1 will strobe for the access, decoded at capture (one-hot, or
    // none for a read without a side effect), so that B0 only qualifies it.
    localparam integer K_CTRL = 0, K_PRESC = 1, K_STATUS = 2, K_ADV = 3, K_ARM_LO = 4, K_ARM_HI = 5,
                       K_CMD = 6, K_SEARCH = 7, K_COAL = 8, K_POP = 9, K_NOW_LO = 10, K_NEXT_LO = 11,
                       K_BAD = 12, K_N = 13;
    reg [K_N-1:0] req_kind_q;
    function [K_N-1:0] access_kind;
        input [5:0] adr;
        input       we;
        reg         ok;                // the register allows the access
        begin
            access_kind = {K_N{1'b0}};
            // The map's access column, written out by name; the formal proof
            // (core-ind) checks it against the generated masks.
            case (adr)
                TW_REG_CTRL, TW_REG_PRESCALE, TW_REG_STATUS, TW_REG_ADVANCE, TW_REG_ARM_LO,
                TW_REG_ARM_HI, TW_REG_SEARCH, TW_REG_COALESCE:
                    ok = 1'b1;
                TW_REG_ID, TW_REG_VERSION, TW_REG_CAPS, TW_REG_NOW_LO, TW_REG_NOW_HI,
                TW_REG_EVT_INFO, TW_REG_EVT_TICK, TW_REG_CNT_EVENTS, TW_REG_CNT_LATE,
                TW_REG_CNT_OVERFLOW, TW_REG_CNT_CMDS, TW_REG_CNT_BUSERR, TW_REG_NEXT_LO,
                TW_REG_NEXT_HI:
                    ok = !we;          // read-only
                TW_REG_CMD:
                    ok = we;           // write-only
                default:
                    ok = 1'b0;
            endcase
            access_kind[K_BAD]     = !ok;
            access_kind[K_CTRL]    = we && adr == TW_REG_CTRL;
            access_kind[K_PRESC]   = we && adr == TW_REG_PRESCALE;
            access_kind[K_STATUS]  = we && adr == TW_REG_STATUS;
            access_kind[K_ADV]     = we && adr == TW_REG_ADVANCE;
            access_kind[K_ARM_LO]  = we && adr == TW_REG_ARM_LO;
            access_kind[K_ARM_HI]  = we && adr == TW_REG_ARM_HI;
            access_kind[K_CMD]     = we && adr == TW_REG_CMD;
            access_kind[K_SEARCH]  = we && adr == TW_REG_SEARCH;
            access_kind[K_COAL]    = we && adr == TW_REG_COALESCE;
            access_kind[K_POP]     = !we && adr == TW_REG_EVT_TICK;
            access_kind[K_NOW_LO]  = !we && adr == TW_REG_NOW_LO;
            access_kind[K_NEXT_LO] = !we && adr == TW_REG_NEXT_LO;
        end
    endfunction
    wire       req_cmd = req_kind_q[K_CMD];   // the request is a CMD write
    wire       dec     = req_v_q && !bus_hold && !(req_cmd && cmd_wait);
    reg        acc1_q, acc2_q, acc3_q; // the access is in B1, in B2, in B3
    // One access at a time: a pipelined master sees the core stalled from
    // the capture until the clock of the ack (a classic master ignores it).
    assign o_wb_stall = pend_q || acc3_q;
    // The master dropped cyc while the access was outstanding (Wishbone's
    // abort): the access runs its course, but its ack is not given, so that
    // it cannot be taken for the ack of the master's next request.
    reg        abort_q;
    always @(posedge i_clk)
        if (i_rst) begin
            pend_q <= 1'b0; req_v_q <= 1'b0; acc1_q <= 1'b0; acc2_q <= 1'b0; acc3_q <= 1'b0;
            o_wb_ack <= 1'b0; abort_q <= 1'b0;
            req_we_q <= 1'b0; req_adr_q <= 6'd0; req_dat_q <= 32'd0; req_advrd_q <= 1'b0;
            // (as decoded from the reset request: a read of ID, data 0)
            req_target_ok <= target_ok(32'd0); req_kind_q <= access_kind(6'd0, 1'b0);
        end else begin
            if (!pend_q && !acc3_q && i_wb_cyc && i_wb_stb) begin
                pend_q    <= 1'b1;
                req_v_q   <= 1'b1;
                req_we_q  <= i_wb_we;
                req_adr_q <= i_wb_adr;
                req_dat_q <= i_wb_dat;
                req_advrd_q <= !i_wb_we && i_wb_adr == TW_REG_ADVANCE;
                req_target_ok <= target_ok(i_wb_dat);
                req_kind_q    <= access_kind(i_wb_adr, i_wb_we);
            end else if (dec) begin
                req_v_q <= 1'b0;
                req_advrd_q <= 1'b0;
            end
            acc1_q   <= dec;
            acc2_q   <= acc1_q;
            acc3_q   <= acc2_q;
            o_wb_ack <= acc2_q && i_wb_cyc && !abort_q;
            abort_q  <= pend_q && !acc2_q && (abort_q || !i_wb_cyc);
            if (acc2_q)
                pend_q <= 1'b0;
        end

    // B1: one registered strobe per register written or read with an effect.
    reg        w_ctrl, w_presc, w_status, w_adv, w_arm_lo, w_arm_hi, w_cmd, w_search, w_coal;
    reg        r_acc, r_pop, r_now_lo, r_next_lo, bad_acc;
    // The request's flops hold still until B4 (the next capture is at the
    // end of B4 at the earliest), so B1 reads its data and address there.
    wire [5:0]  r_adr = req_adr_q;
    wire [31:0] wdat  = req_dat_q;
    reg        wop_set, wop_clear, wop_clear_all, wcmd_ok;
    reg [LEVELS-1:0] wcmd_wr;          // the level a SET or CLEAR writes, one-hot
    wire [3:0]  d_op    = req_dat_q[TW_CMD_OP_LSB +: 4];
    wire [LVL_W-1:0] d_level = req_dat_q[TW_CMD_LEVEL_LSB +: LVL_W];
    wire dr = dec && !req_we_q;
    wire [K_N-1:0] d_kind = {K_N{dec && !i_rst}} & req_kind_q;
    integer lk;
    always @(posedge i_clk) begin
        w_ctrl    <= d_kind[K_CTRL];
        w_presc   <= d_kind[K_PRESC];
        w_status  <= d_kind[K_STATUS];
        w_adv     <= d_kind[K_ADV];
        w_arm_lo  <= d_kind[K_ARM_LO];
        w_arm_hi  <= d_kind[K_ARM_HI];
        w_cmd     <= d_kind[K_CMD];
        w_search  <= d_kind[K_SEARCH];
        w_coal    <= d_kind[K_COAL];
        bad_acc   <= d_kind[K_BAD];
        r_acc     <= !i_rst && dr;
        r_pop     <= d_kind[K_POP];
        r_now_lo  <= d_kind[K_NOW_LO];
        r_next_lo <= d_kind[K_NEXT_LO];
        wop_set       <= d_op == OP_SET;
        wop_clear     <= d_op == OP_CLEAR;
        wop_clear_all <= d_op == OP_CLEAR_ALL;
        wcmd_ok       <= req_target_ok;
        for (lk = 0; lk < LEVELS; lk = lk + 1)
            wcmd_wr[lk] <= (d_op == OP_SET || d_op == OP_CLEAR) && req_target_ok
                           && d_level == lk[LVL_W-1:0];
    end

    // ================================================= control registers
    reg [1:0]  ctrl_src_q;
    reg        ctrl_irq_en_q, ctrl_vhold_q;
    reg        vmode_q;                // VHOLD in force: decoded as CTRL is written
    reg [31:0] presc_q, arm_lo_q, horizon_q;
    reg [15:0] arm_hi_q, coal_holdoff_q, coal_thresh_q;
    always @(posedge i_clk)
        if (i_rst) begin
            ctrl_src_q <= SRC_HOST; ctrl_irq_en_q <= 1'b0; ctrl_vhold_q <= 1'b0; vmode_q <= 1'b0;
            presc_q <= 0; arm_lo_q <= 0; arm_hi_q <= 0; horizon_q <= 32'hFFFF_FFFF;
            coal_holdoff_q <= 0; coal_thresh_q <= 0;
        end else begin
            if (w_ctrl) begin
                ctrl_src_q    <= wdat[TW_CTRL_TICK_SRC_LSB +: 2];
                ctrl_irq_en_q <= wdat[TW_CTRL_IRQ_EN_LSB];
                ctrl_vhold_q  <= wdat[TW_CTRL_VHOLD_LSB];
                vmode_q       <= wdat[TW_CTRL_TICK_SRC_LSB +: 2] == SRC_HOST && wdat[TW_CTRL_VHOLD_LSB];
            end
            if (w_presc)  presc_q   <= wdat;
            if (w_arm_lo) arm_lo_q  <= wdat;
            if (w_arm_hi) arm_hi_q  <= wdat[15:0];
            if (w_search) horizon_q <= wdat;
            if (w_coal) begin
                coal_holdoff_q <= wdat[TW_COALESCE_HOLDOFF_LSB +: 16];
                coal_thresh_q  <= wdat[TW_COALESCE_THRESH_LSB +: 16];
            end
        end
    wire vmode = vmode_q;

    // ===================================================== step decision, D
    reg        step_q;                 // C1: a step decided last clock
    reg        room_q;                 // virtual time may take a tick: the FIFO has room
    reg        hold_q;                 // STATUS.HOLD
    reg        fly_q;                  // a tick decided before last clock is not yet past E
    reg [2:0]  cmd_fly_q;              // clocks a CMD is still in flight (B1 .. E)
    reg        cmd_hold_q;             // cmd_fly_q > 1: the bus waits (B1 .. B6)
    reg        cmd_fly_nz_q;           // cmd_fly_q != 0
    // Prescaler: counts presc_q .. 0 in two 16-bit halves, the high half's
    // borrow registered; reload_q is set in the clock it reads 0, and in
    // every clock while the source is not the prescaler (so that switching
    // to it starts a whole period).
    reg [15:0] pc_lo_q, pc_hi_q;
    reg        pc_borrow_q, reload_q, ptick_q;
    reg [2:0]  ext_q;                  // synchroniser and edge history
    // ADVANCE: what is left is {adv_hi_q - adv_borrow_q, adv_lo_q} - adv_pend_q:
    // the decision's decrement is applied a clock later, in two 16-bit
    // halves (the high half's borrow another clock later). adv_nz_q ==
    // (left after this clock's decision != 0), kept a clock ahead.
    reg [15:0] adv_lo_q, adv_hi_q;
    reg        adv_borrow_q, adv_nz_q, adv_pend_q;
    // A write to ADVANCE adds to what is left over a few clocks (adv_st_q),
    // with the bus and virtual time held; a jump likewise (j_*).
    reg [2:0]  adv_st_q;
    reg [15:0] adv_add_hi_q;           // the written value's high half, for A_HI
    reg        adv_c_q;
    reg        adv_sat_q;              // A_HI's sum passed 2^32 - 1: A_FLAG saturates
    reg        adv_busy;               // adv_st_q != A_IDLE, registered beside it
    wire       j_run;                  // no virtual-time jump under way
    wire       j_lo_go, j_hi_go;       // a jump adds its low, then high, part
    reg [31:0] j_amt_q;
    // No host step while an ADVANCE read waits in B0, so that what is left
    // in B0 (adv_left_b0_q, which B1 reads) is still what is left in B1.
    wire       step_host = ctrl_src_q == SRC_HOST && adv_nz_q && room_q && !hold_q && j_run
                           && !adv_busy && !req_advrd_q && !(ctrl_vhold_q && (step_q || fly_q || (req_v_q && req_cmd)
                                                              || cmd_fly_nz_q));
    wire       presc_hit = (pc_lo_q == 16'd1 && pc_hi_q == 16'd0 && !reload_q) || presc_q == 32'd0;
    wire       step_d    = step_host || (ctrl_src_q == SRC_INT && ptick_q)
                        || (ctrl_src_q == SRC_EXT && ext_q[1] && !ext_q[2]);
    // {adv_hi_q, adv_lo_q} >= 1, 2, 3 (a pending high borrow leaves the low
    // half at 0xffff, so the high half's lag never matters here). In A_FLAG
    // a saturating sum is still to be applied: all ones, not zero.
    wire       adv_ge1   = |adv_lo_q || |adv_hi_q || adv_sat_q;
    wire       adv_ge2   = |adv_lo_q[15:1] || |adv_hi_q;
    wire       adv_ge3   = |adv_lo_q[15:2] || &adv_lo_q[1:0] || |adv_hi_q;
    wire       left_ge1  = adv_pend_q ? adv_ge2 : adv_ge1;
    wire       left_ge2  = adv_pend_q ? adv_ge3 : adv_ge2;
    localparam [2:0] A_IDLE = 3'd0, A_SETTLE1 = 3'd1, A_SETTLE2 = 3'd2, A_LO = 3'd3, A_HI = 3'd4,
                     A_FLAG = 3'd5;
    wire [16:0] adv_sum_lo = {1'b0, adv_lo_q} + {1'b0, req_dat_q[15:0]};   // in B4: still the write's
    wire [16:0] adv_sum_hi = {1'b0, adv_hi_q} + {1'b0, adv_add_hi_q} + {16'd0, adv_c_q};
    always @(posedge i_clk)
        if (i_rst) begin
            step_q <= 1'b0; pc_lo_q <= 0; pc_hi_q <= 0; pc_borrow_q <= 1'b0; reload_q <= 1'b1; ptick_q <= 1'b0;
            ext_q <= 0;
            adv_lo_q <= 0; adv_hi_q <= 0; adv_borrow_q <= 1'b0; adv_nz_q <= 1'b0; adv_pend_q <= 1'b0;
            adv_st_q <= A_IDLE; adv_add_hi_q <= 0; adv_c_q <= 1'b0; adv_sat_q <= 1'b0; adv_busy <= 1'b0;
        end else begin
            step_q <= step_d;
            ext_q  <= {ext_q[1:0], i_ext_tick};
            if (reload_q) begin
                {pc_hi_q, pc_lo_q} <= presc_q;
                pc_borrow_q <= 1'b0;
            end else begin
                {pc_borrow_q, pc_lo_q} <= {1'b0, pc_lo_q} - 17'd1;
                pc_hi_q <= pc_hi_q - {15'd0, pc_borrow_q};
            end
            // Only while the prescaler is the source: with PRESCALE = 0 the
            // first tick is then decided a clock after the source is set,
            // as for any other PRESCALE.
            ptick_q  <= presc_hit && ctrl_src_q == SRC_INT;
            reload_q <= presc_hit || ctrl_src_q != SRC_INT;
            // ADVANCE: the decision's decrement, a jump's amount, or a sum.
            adv_pend_q <= step_host;
            adv_nz_q   <= step_host ? left_ge2 : left_ge1;
            adv_busy   <= w_adv || (adv_st_q != A_IDLE && adv_st_q != A_FLAG);
            adv_sat_q  <= 1'b0;
            case (adv_st_q)
                A_LO: begin
                    {adv_c_q, adv_lo_q} <= adv_sum_lo;
                    adv_st_q <= A_HI;
                end
                A_HI: begin
                    // Saturating: a sum past 2^32 - 1 leaves all ones, a
                    // clock later, so that the high half's carry out fans
                    // out to the 32 flops from a flop, not from the chain.
                    adv_hi_q  <= adv_sum_hi[15:0];
                    adv_sat_q <= adv_sum_hi[16];
                    adv_st_q  <= A_FLAG;
                end
                A_FLAG: begin
                    // No step is decided and no jump runs in A_HI or here
                    // (adv_busy), so there is nothing to subtract.
                    adv_hi_q <= adv_hi_q | {16{adv_sat_q}};
                    adv_lo_q <= adv_lo_q | {16{adv_sat_q}};
                    adv_st_q <= A_IDLE;   // adv_nz_q is right again
                end
                default: begin
                    {adv_borrow_q, adv_lo_q} <= {1'b0, adv_lo_q}
                                                - {1'b0, j_lo_go ? j_amt_q[15:0] : {15'd0, adv_pend_q}};
                    adv_hi_q <= adv_hi_q - (j_hi_go ? j_amt_q[31:16] : {15'd0, adv_borrow_q});
                    if (w_adv) begin
                        adv_add_hi_q <= wdat[31:16];
                        adv_st_q  <= A_SETTLE1;
                    end else if (adv_st_q == A_SETTLE1) begin
                        adv_st_q <= A_SETTLE2;
                    end else if (adv_st_q == A_SETTLE2) begin
                        adv_st_q <= A_LO;
                    end else begin
                        adv_st_q <= A_IDLE;
                    end
                end
            endcase
        end

    // ========================================================= counter, C/P
    localparam integer HALF = TICK_BITS / 2;
    reg [HALF-1:0] lo_q, hi_q, lo_d_q;
    reg [HALF-1:0] lo_add_q;           // 1, or a jump's amount in its clock
    wire [HALF:0]  lo_sum = {1'b0, lo_q} + {1'b0, lo_add_q};
    reg            carry_q, step_c_q, step_p_q;
    // Per level k >= 1: lo_d_q's low min(kb, 24) bits are zero.
    reg [LEVELS-1:0] zero_p;
    integer zk;
    always @(posedge i_clk)
        if (i_rst) begin
            lo_q <= 0; hi_q <= 0; lo_d_q <= 0; carry_q <= 1'b0; step_c_q <= 1'b0; step_p_q <= 1'b0;
            zero_p <= {LEVELS{1'b1}};
        end else begin
            // The step enables the flops; the chain adds lo_add_q (one, or a
            // jump's low part in its clock, then its high part).
            if (step_q || j_lo_go) lo_q <= lo_sum[HALF-1:0];
            carry_q  <= (step_q || j_lo_go) && lo_sum[HALF];
            hi_q     <= hi_q + (j_hi_go ? {{(HALF-8){1'b0}}, j_amt_q[31:24]} : {{(HALF-1){1'b0}}, carry_q});
            lo_d_q   <= lo_q;
            step_c_q <= step_q;        // the step that made lo_q
            step_p_q <= step_c_q;      // ... and so lo_d_q
            for (zk = 0; zk < LEVELS; zk = zk + 1)
                zero_p[zk] <= zk == 0 || (lo_q & lo_mask(zk)) == 0;
        end
    function [HALF-1:0] lo_mask;       // level k's lower fields within the low half
        input integer k;
        lo_mask = k * SLOT_BITS >= HALF ? {HALF{1'b1}} : ({{(HALF-1){1'b0}}, 1'b1} << (k * SLOT_BITS)) - 1'b1;
    endfunction
    function [HALF-1:0] hi_mask;       // ... and within the high half
        input integer k;
        hi_mask = k * SLOT_BITS <= HALF ? {HALF{1'b0}}
                : ({{(HALF-1){1'b0}}, 1'b1} << (k * SLOT_BITS - HALF)) - 1'b1;
    endfunction
    wire [TICK_BITS-1:0] tick_p = {hi_q, lo_d_q};
    reg  [LEVELS-1:0] visit_p;
    integer vk;
    always @(*)
        for (vk = 0; vk < LEVELS; vk = vk + 1)
            visit_p[vk] = step_p_q && zero_p[vk] && (hi_q & hi_mask(vk)) == 0;

    // ========================================================= tick under V
    reg [TICK_BITS-1:0] tick_v;
    reg [LEVELS-1:0]    visit_v;
    reg                 step_v;
    always @(posedge i_clk)
        if (i_rst) begin tick_v <= 0; visit_v <= 0; step_v <= 1'b0; end
        else begin tick_v <= tick_p; visit_v <= visit_p; step_v <= step_p_q; end

    // ================================================== commands, B1 and V
    // B1 (the clock before V): the command's armed tick compared with
    // tick_p, which is tick_v in V: tick - arm as two 24-bit differences,
    // the high one both with and without the low half's borrow, so V only
    // picks a sign bit.
    reg        c_set, c_clear, c_clear_all, c_bad, c_any, bm_clear;
    reg [LEVELS-1:0]    c_wr;
    reg [LVL_W-1:0]     c_lvl;
    reg [SLOT_BITS-1:0] c_slot;
    reg        c_borrow, c_neg0, c_neg1;
    reg [LEVELS-1:0]    c_match;
    wire [LVL_W-1:0]     cmd_level = wdat[TW_CMD_LEVEL_LSB +: LVL_W];
    wire [SLOT_BITS-1:0] cmd_slot  = wdat[TW_CMD_SLOT_LSB +: SLOT_BITS];
    wire [HALF-1:0] arm_l = arm_lo_q[HALF-1:0];
    wire [HALF-1:0] arm_h = {arm_hi_q, arm_lo_q[31:HALF]};
    // Only the borrow and the sign bits are kept: the rest of each
    // difference is the carry chain that forms them.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [HALF:0]   diff_l  = {1'b0, lo_d_q} - {1'b0, arm_l};
    wire [HALF-1:0] diff_h0 = hi_q - arm_h;
    wire [HALF-1:0] diff_h1 = hi_q + ~arm_h;            // hi - arm_h - 1: one carry chain
    /* verilator lint_on UNUSEDSIGNAL */
    integer mk;
    always @(posedge i_clk) begin
        c_set       <= !i_rst && w_cmd && wop_set && wcmd_ok;
        c_clear     <= !i_rst && w_cmd && wop_clear && wcmd_ok;
        c_clear_all <= !i_rst && w_cmd && wop_clear_all;
        c_any       <= !i_rst && w_cmd;
        // Reset empties the bitmaps as CLEAR_ALL does, through a register
        // of their own.
        bm_clear    <= i_rst || (w_cmd && wop_clear_all);
        c_bad       <= !i_rst && w_cmd && !((wop_set || wop_clear) && wcmd_ok) && !wop_clear_all;
        c_wr        <= {LEVELS{!i_rst && w_cmd}} & wcmd_wr;
        c_lvl       <= cmd_level;
        c_slot      <= cmd_slot;      // in B1: the request's slot (held since R)
        c_borrow    <= diff_l[HALF];
        c_neg0      <= diff_h0[HALF-1];
        c_neg1      <= diff_h1[HALF-1];
        for (mk = 0; mk < LEVELS; mk = mk + 1)
            c_match[mk] <= tick_p[mk*SLOT_BITS +: SLOT_BITS] == c_slot;
    end
    wire reached = !(c_borrow ? c_neg1 : c_neg0);    // tick_v - arm >= 0 mod 2^48
    // A visit in V of the slot the SET names reports it: the bitmap shows a
    // command to the visit of its own clock.
    wire seen_v  = |(c_match & visit_v & c_wr);
    wire late_v  = c_set && reached && !seen_v;
    wire cmd_v   = c_set || c_clear || c_clear_all;

    // ============================================== bitmaps, visited in V
    wire [LEVELS-1:0]    busy_g;       // the visited slots' bits, in G
    wire [LEVELS*SW-1:0] search_words;
    wire [LEVELS*WA-1:0] search_waddr;
`ifdef TW_BITMAP_F_MAP
    wire [LEVELS*SLOTS-1:0] f_lvl_map;   // the bitmaps' proof shadows (core-shadow)
`endif
    genvar gl;
    generate
        for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_level
            // c_slot is cmd_slot a clock later, and the request's flops hold
            // still from R to B4, so in B1 c_slot is already the slot V
            // writes: the bitmap looks the word's written flag up a clock
            // ahead (WRITE_AHEAD) from c_slot, beside it, rather than from
            // the request register, whose fan-out spans the chip. c_match
            // likewise.
            tw_bitmap #(.SLOT_BITS(SLOT_BITS), .VISIT_PIPE(1), .WRITE_AHEAD(1)) u_bitmap (
                .i_clk(i_clk), .i_rst(1'b0), .i_clear_all(bm_clear),
                .i_wr(c_wr[gl]), .i_wr_slot(c_slot), .i_wr_val(c_set), .i_wr_slot_next(c_slot),
                .i_visit_slot(tick_v[gl*SLOT_BITS +: SLOT_BITS]), .o_visit_bit(busy_g[gl]),
                .i_search_word(search_waddr[gl*WA +: WA]), .o_search_word(search_words[gl*SW +: SW])
`ifdef TW_BITMAP_F_MAP
                , .f_map_o(f_lvl_map[gl*SLOTS +: SLOTS])
`endif
            );
        end
    endgenerate

    // ==================================================== next-busy search
    // Started a clock after every bitmap command, after reset, and when time
    // has reached its answer; its base is the tick in V of the clock before.
    wire        srch_valid, srch_found;
    wire [47:0] srch_next;
    reg         srch_start_q;
    reg  [47:0] srch_base_q;
`ifdef TW_SEARCH_F_CONTRACT
    // The search's contract (core-shadow, core-contract): the bitmaps it is
    // about (the shadow, f_bm), and its monitor: the premise held up to the
    // clock before, and the bitmaps at the start.
    wire [LEVELS*SLOTS-1:0]  f_srch_map;
    wire                     f_srch_okq;
    wire [LEVELS*SLOTS-1:0]  f_srch_smapq;
`endif
`ifdef TW_SEARCH_F_TIMING
    wire [9:0]               f_srch_since;  // the search's timing contract's clock count
`endif
    wire        srch_passed;           // tick_v has reached the answer (two clocks ago)
    wire        srch_start_d = cmd_v || srch_passed;
    always @(posedge i_clk) begin
        srch_start_q <= i_rst || srch_start_d;
        if (i_rst || srch_start_d)
            srch_base_q <= i_rst ? 48'd0 : tick_v;
    end
    tw_search #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS)) u_search (
        .i_clk(i_clk), .i_rst(i_rst), .i_start(srch_start_q), .i_base(srch_base_q),
        .o_waddr(search_waddr), .i_words(search_words),
        .o_valid(srch_valid), .o_found(srch_found), .o_next(srch_next)
`ifdef TW_SEARCH_F_CONTRACT
        , .f_map_i(f_srch_map), .f_ok_q_o(f_srch_okq), .f_smap_q_o(f_srch_smapq)
`endif
`ifdef TW_SEARCH_F_TIMING
        , .f_since_o(f_srch_since)
`endif
    );

    // ================================================ H1, H2, G: the entry
    // What the entry takes from V (the tick, the command's level and slot)
    // waits four clocks in a small block RAM rather than in four rows of
    // flops: written in V, its address read in G, out of the RAM's own
    // register in E. The flags that say whether an entry is pushed stay in
    // flops, so that reset clears them.
    localparam integer DLY_W = TICK_BITS + LVL_W + SLOT_BITS;
    reg [DLY_W-1:0] dly_mem [0:15];
    reg [3:0]       dly_wa;
    reg [DLY_W-1:0] dly_q;
    wire [3:0]      dly_ra = dly_wa - 4'd3;   // 4 bits: the address wraps
    always @(posedge i_clk) begin
        dly_mem[dly_wa] <= {tick_v, c_lvl, c_slot};
        dly_wa          <= i_rst ? 4'd0 : dly_wa + 4'd1;   // any start works; reset keeps simulation defined
        dly_q           <= dly_mem[dly_ra];
    end
    reg [LEVELS-1:0]    visit_h1, visit_h2, visit_g;
    reg                 late_h1, late_h2, late_g;
    reg                 step_h1, step_h2, step_g;
    reg                 cmd_h1, cmd_h2, cmd_g;
    always @(posedge i_clk)
        if (i_rst) begin
            visit_h1 <= 0; visit_h2 <= 0; visit_g <= 0;
            late_h1 <= 1'b0; late_h2 <= 1'b0; late_g <= 1'b0;
            step_h1 <= 1'b0; step_h2 <= 1'b0; step_g <= 1'b0;
            cmd_h1 <= 1'b0; cmd_h2 <= 1'b0; cmd_g <= 1'b0;
        end else begin
            visit_h1 <= visit_v;  visit_h2 <= visit_h1;  visit_g <= visit_h2;
            late_h1  <= late_v;   late_h2  <= late_h1;   late_g  <= late_h2;
            step_h1  <= step_v;   step_h2  <= step_h1;   step_g  <= step_h2;
            cmd_h1   <= c_any;    cmd_h2   <= cmd_h1;    cmd_g   <= cmd_h2;
        end
    wire [LEVELS-1:0] hit_g = visit_g & busy_g;
    reg  [2:0]        n_ev_g;          // events in the entry
    integer nk;
    always @(*) begin
        n_ev_g = {2'b00, late_g};
        for (nk = 0; nk < LEVELS; nk = nk + 1)
            n_ev_g = n_ev_g + {2'b00, hit_g[nk]};
    end
    wire              push_g = |hit_g || late_g;
    reg [LEVELS-1:0]  hit_e;
    reg               push_e, late_e, step_e, cmd_e;
    reg [2:0]         n_ev_e;
    always @(posedge i_clk) begin
        hit_e   <= hit_g;
        n_ev_e  <= n_ev_g;
        push_e  <= !i_rst && push_g;
        late_e  <= !i_rst && late_g;
        step_e  <= !i_rst && step_g;
        cmd_e   <= !i_rst && cmd_g;
    end
    wire [ENTRY_W-1:0] entry_e = {dly_q[DLY_W-1 -: TICK_BITS], hit_e, late_e, dly_q[0 +: LVL_W+SLOT_BITS]};

    // ========================================================= FIFO, E
    wire [ENTRY_W-1:0] head;
    wire [FW-1:0]      fifo_count;
    wire               fifo_full, fifo_full_next, fifo_empty;
    // The FIFO's own push decision: the logic below forms it from flops
    // (push_refused); the formal properties read it.
    /* verilator lint_off UNUSEDSIGNAL */
    wire               push_ok;
    /* verilator lint_on UNUSEDSIGNAL */
    reg                pop_fifo;
    wire               pop_next;        // pop_fifo's next value (the read-out's, below)
`ifdef TW_EVFIFO_F_MEM
    wire [(ENTRY_W << FIFO_LOG2)-1:0] f_fifo_mem;   // the FIFO's words, for the proofs
    wire [FIFO_LOG2-1:0]              f_fifo_rd;
`endif
    tw_evfifo #(.WIDTH(ENTRY_W), .DEPTH_LOG2(FIFO_LOG2)) u_fifo (
        .i_clk(i_clk), .i_rst(i_rst),
        .i_push(push_e), .i_data(entry_e), .o_push_ok(push_ok),
        .i_pop(pop_fifo), .o_head(head),
        .o_count(fifo_count), .o_full(fifo_full), .o_full_next(fifo_full_next), .o_empty(fifo_empty)
`ifdef TW_EVFIFO_F_MEM
        , .f_mem_o(f_fifo_mem), .f_rd_o(f_fifo_rd)
`endif
    );

    // Ticks and CMDs in flight, for the FIFO's room: virtual time takes a
    // tick only while the FIFO's entries, the entries that may still come
    // (a tick from C1 to E, a CMD from B1 to E) and what the count lags by
    // (the decisions of the last three clocks, one CMD) fit:
    // count + in flight + 4 <= DEPTH.
    // resv_q = FIFO_COUNT + in flight, kept as one count so that the room
    // flag is a comparison with a constant.
    reg [FW:0] resv_q;
    wire       set_dec = dec && req_cmd;
    wire       fifo_pop  = pop_fifo && !fifo_empty;
    // The FIFO's own decision (push_ok), decided a clock ahead into a flop
    // from the push, the fullness and the pop that E will see: a full FIFO
    // is not empty, so it takes the push exactly when it is popped in that
    // clock. pop_fifo fans out wide, and the refusal enables OVERFLOW, its
    // counter and the room count.
    reg        push_refused;    // = push_e && fifo_full && !pop_fifo
    always @(posedge i_clk)
        push_refused <= !i_rst && push_g && fifo_full_next && !pop_next;
    wire       fifo_push    = push_e && !push_refused;
`ifdef FORMAL
    // The decisions formed from flops agree with those they replace: the
    // FIFO's push, and the request's kind and target, decoded at capture.
    always @(*) if (!i_rst) begin
        assert(push_refused == (push_e && !push_ok));
        assert(push_refused == (push_e && fifo_full && !pop_fifo));
        assert(req_kind_q == access_kind(req_adr_q, req_we_q));
        assert(req_target_ok == target_ok(req_dat_q));
    end
`endif
    always @(posedge i_clk)
        if (i_rst) begin
            resv_q <= 0; room_q <= 1'b1; fly_q <= 1'b0; cmd_fly_q <= 3'd0; cmd_hold_q <= 1'b0; cmd_fly_nz_q <= 1'b0;
        end else begin
            resv_q  <= resv_q + {{FW{1'b0}}, step_q} + {{FW{1'b0}}, w_cmd} + {{FW{1'b0}}, fifo_push}
                       - {{FW{1'b0}}, step_e} - {{FW{1'b0}}, cmd_e} - {{FW{1'b0}}, fifo_pop};
            room_q  <= resv_q <= ROOM_MAX;
            // Any tick from C1 to E, registered: with step_q, every tick
            // whose visit has not yet reached the FIFO and HOLD.
            fly_q   <= step_q || step_c_q || step_p_q || step_v || step_h1 || step_h2 || step_g || step_e;
            // A CMD from B1 until its entry is past E.
            cmd_fly_q <= set_dec ? 3'd7 : cmd_fly_q - {2'd0, cmd_fly_q != 3'd0};
            cmd_hold_q <= set_dec || cmd_fly_q > 3'd2;
            cmd_fly_nz_q <= set_dec || cmd_fly_q > 3'd1;
        end
    // With VHOLD a CMD is decoded only when no tick is in flight, so that a
    // late SET's entry stops time on the tick it was judged against.
    assign cmd_wait = vmode && (step_q || fly_q);

    // ==================================== status, statistics, at the push
    reg        overflow_q, cmd_err_q;
    reg [31:0] cnt_events_q, cnt_late_q, cnt_overflow_q, cnt_cmds_q, cnt_buserr_q;
    always @(posedge i_clk)
        if (i_rst) begin
            overflow_q <= 1'b0; cmd_err_q <= 1'b0; hold_q <= 1'b0;
            cnt_events_q <= 0; cnt_late_q <= 0; cnt_overflow_q <= 0; cnt_cmds_q <= 0; cnt_buserr_q <= 0;
        end else begin
            // Sticky flags: a new occurrence wins over a clear in the same clock.
            if (push_refused) overflow_q <= 1'b1;
            else if (w_status && wdat[TW_STATUS_OVERFLOW_LSB]) overflow_q <= 1'b0;
            if (c_bad) cmd_err_q <= 1'b1;
            else if (w_status && wdat[TW_STATUS_CMD_ERR_LSB]) cmd_err_q <= 1'b0;
            if (fifo_push && vmode) hold_q <= 1'b1;
            else if (w_status && wdat[TW_STATUS_HOLD_LSB]) hold_q <= 1'b0;
            if (fifo_push)    cnt_events_q   <= cnt_events_q + {29'd0, n_ev_e};
            if (push_refused) cnt_overflow_q <= cnt_overflow_q + {29'd0, n_ev_e};
            if (late_e)             cnt_late_q     <= cnt_late_q + 32'd1;
            if (w_cmd)              cnt_cmds_q     <= cnt_cmds_q + 32'd1;
            if (bad_acc || c_bad)   cnt_buserr_q   <= cnt_buserr_q + 32'd1;
        end

    // ================================== event read-out, registered
    // The head entry's events go out late arm first, then levels upward.
    // head_q is the block RAM's own output register (the head of the clock
    // before). From it and the consumed marks, the next event is selected
    // into registers (sel_*), and EVT_INFO is formed from those and head_q a
    // clock later. After a change of the head the two disagree for a clock;
    // accesses are at least five clocks apart, so no read sees that, and
    // the emptiness that goes with the selection hides a head not yet valid.
    reg [ENTRY_W-1:0] head_q;
    reg               empty1_q;        // the FIFO was empty a clock ago (head_q's)
    reg [LEVELS-1:0]  consumed_mask_q;
    reg               consumed_late_q;
    wire [47:0]          h_tick  = head_q[ENTRY_W-1 -: 48];
    wire [LEVELS-1:0]    h_mask  = head_q[1+LVL_W+SLOT_BITS +: LEVELS];
    wire                 h_late  = head_q[LVL_W+SLOT_BITS];
    wire [LVL_W-1:0]     h_level = head_q[SLOT_BITS +: LVL_W];
    wire [SLOT_BITS-1:0] h_slot  = head_q[0 +: SLOT_BITS];
    wire                 rem_late = h_late && !consumed_late_q;
    wire [LEVELS-1:0]    rem_mask = h_mask & ~consumed_mask_q;
    reg  [LVL_W-1:0]     vis_level;
    reg  [LEVELS-1:0]    vis_bit;
    integer hk;
    always @(*) begin
        vis_level = 0;
        vis_bit   = 0;
        for (hk = LEVELS - 1; hk >= 0; hk = hk - 1)
            if (rem_mask[hk]) begin
                vis_level = hk[LVL_W-1:0];
                vis_bit   = {{(LEVELS-1){1'b0}}, 1'b1} << hk;
            end
    end
    reg               sel_late_q, sel_last_q, sel_empty_q;
    reg [LVL_W-1:0]   sel_level_q;
    reg [LEVELS-1:0]  sel_bit_q;
    wire [SLOT_BITS-1:0] ev_slot = sel_late_q ? h_slot : h_tick[sel_level_q*SLOT_BITS +: SLOT_BITS];
    wire [11:0] ev_slot12;
    generate
        if (SLOT_BITS == 12) begin : g_slot_full
            assign ev_slot12 = ev_slot;
        end else begin : g_slot_pad
            assign ev_slot12 = {{(12-SLOT_BITS){1'b0}}, ev_slot};
        end
    endgenerate
    reg [31:0] evt_info_q;
    assign pop_next = r_pop && !sel_empty_q && sel_last_q;
    always @(posedge i_clk) begin
        head_q      <= head;
        empty1_q    <= i_rst || fifo_empty;
        sel_late_q  <= rem_late;
        sel_level_q <= vis_level;
        sel_bit_q   <= vis_bit;
        sel_last_q  <= rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;
        sel_empty_q <= i_rst || empty1_q;
        evt_info_q  <= sel_empty_q ? 32'd0
                     : {1'b1, sel_late_q, sel_late_q ? h_level : sel_level_q, ev_slot12, h_tick[47:32]};
        pop_fifo    <= !i_rst && pop_next;
        if (i_rst || pop_fifo) begin
            consumed_mask_q <= 0; consumed_late_q <= 1'b0;
        end else if (r_pop && !sel_empty_q) begin
            if (sel_late_q) consumed_late_q <= 1'b1;
            else consumed_mask_q <= consumed_mask_q | sel_bit_q;
        end
    end

    // ============================ the answer against time, NEXT and the jump
    // N1: A - 1 - tick_v as A + ~tick_v in three 16-bit parts, the upper two
    // with and without a carry in; tick_v + SEARCH in two halves.
    // N2: gap = A - 1 - tick_v assembled; tick + SEARCH assembled; whether
    // time has passed the answer (gap < 0) starts the search again.
    // N3: NEXT and STATUS.SEARCHING; the gap's zero flag, for J_CMP.
    // The answer A (the search's output flops) stays put while it is valid,
    // and each stage carries whether it stood throughout.
    reg [16:0] n1_gl, n1_gm0, n1_gm1;
    reg [15:0] n1_gh0, n1_gh1;
    reg [24:0] n1_el;
    reg [23:0] n1_eh;
    reg        n1_v, n1_f;
    reg [47:0] n2_gap, n2_end;
    reg        n2_v, n2_f;
    // gap < SEARCH in three flags, each from one 16-bit comparison, combined
    // in N3 (one 32-bit chain from SEARCH's low bit was the UP5K's longest
    // path): the gap's high part is zero (and the search found a slot), and
    // its middle part is below SEARCH's high half, or equal to it with the
    // low part below SEARCH's low half.
    reg        n2_hz_f, n2_mid_lt, n2_mid_eq, n2_lo_lt;
    wire       n2_within = n2_hz_f && (n2_mid_lt || (n2_mid_eq && n2_lo_lt));
    // The gap was 0 a clock ago: only J_CMP reads it, where the gap has
    // stood for clocks (the counter settles in J_WAIT), so it is formed
    // from N2's flops rather than beside N1's sums, off tick_v's fan-out.
    reg        n3_gap_z;
    reg [47:0] next_q;
    reg        searching_q;
    wire       n2_ok   = n2_v && srch_valid && (!n2_f || !n2_gap[47]);
    // The gap's parts as N2 will assemble them, and gap < SEARCH from them.
    wire       n1_cm   = n1_gl[16] ? n1_gm1[16] : n1_gm0[16];
    wire [15:0] n1_mid = n1_gl[16] ? n1_gm1[15:0] : n1_gm0[15:0];
    wire [15:0] n1_hi  = n1_cm ? n1_gh1 : n1_gh0;
    always @(posedge i_clk) begin
        n1_gl  <= {1'b0, srch_next[15:0]} + {1'b0, ~tick_v[15:0]};
        n1_gm0 <= {1'b0, srch_next[31:16]} + {1'b0, ~tick_v[31:16]};
        n1_gm1 <= {1'b0, srch_next[31:16]} + {1'b0, ~tick_v[31:16]} + 17'd1;
        n1_gh0 <= srch_next[47:32] + ~tick_v[47:32];
        n1_gh1 <= srch_next[47:32] - tick_v[47:32];
        n1_el  <= {1'b0, tick_v[23:0]} + {1'b0, horizon_q[23:0]};
        n1_eh  <= tick_v[47:24] + {16'd0, horizon_q[31:24]};
        n1_v   <= !i_rst && srch_valid && !srch_start_q;
        n1_f   <= srch_found;
        n2_gap <= {n1_hi, n1_mid, n1_gl[15:0]};
        // Both candidates compared, then picked: no multiplexer before a chain.
        // The high part's zero test reads N1's flops (both candidates,
        // then picked), not tick_v and srch_next beside N1's chains.
        n2_hz_f   <= n1_f && (n1_cm ? n1_gh1 == 16'd0 : n1_gh0 == 16'd0);
        n2_mid_lt <= n1_gl[16] ? n1_gm1[15:0] < horizon_q[31:16] : n1_gm0[15:0] < horizon_q[31:16];
        n2_mid_eq <= n1_gl[16] ? n1_gm1[15:0] == horizon_q[31:16] : n1_gm0[15:0] == horizon_q[31:16];
        n2_lo_lt  <= n1_gl[15:0] < horizon_q[15:0];
        n2_end <= {n1_eh + {23'd0, n1_el[24]}, n1_el[23:0]};
        n2_v   <= !i_rst && n1_v && srch_valid;
        n2_f   <= n1_f;
        // NEXT: the answer if it comes within SEARCH ticks, else now +
        // SEARCH; 0 while the search runs or time has passed its answer.
        searching_q <= i_rst || !n2_ok;
        next_q      <= !n2_ok ? 48'd0 : n2_within ? srch_next : n2_end;
        n3_gap_z    <= n2_gap == 48'd0;
    end
    assign srch_passed = n2_v && n2_f && n2_gap[47] && srch_valid && !srch_start_q;
`ifdef FORMAL
    // The gap's zero flag agrees with the gap a clock old, from the second
    // clock. Proved in the local set (core-ind-local) and assumed
    // elsewhere, where it would only slow the induction.
`ifdef TW_CORE_F_LOCAL
 `define TW_CORE_F_ZEROS assert
`else
 `define TW_CORE_F_ZEROS assume
`endif
    reg        f_n_clocked;            // a clock has passed
    reg [47:0] f_n2_gap_was;
    initial f_n_clocked = 1'b0;
    always @(posedge i_clk) begin
        f_n_clocked  <= 1'b1;
        f_n2_gap_was <= n2_gap;
    end
    always @(*)
        if (f_n_clocked)
            `TW_CORE_F_ZEROS(n3_gap_z == (f_n2_gap_was == 48'd0));
`undef TW_CORE_F_ZEROS
`endif

    // The virtual-time jump. Where the answer is far ahead (or there is
    // none) and ADVANCE has far to go, virtual time stops stepping and the
    // bus is held; once the counter and the gap have settled the counter
    // adds min(A - 1 - now, what ADVANCE has left) in a few clocks: low
    // half, carry, high part; ADVANCE's remainder the same. A command that
    // slipped in, or a new search, calls the jump off.
    // The jump's states, one flop each (J_LO and J_HI are j_lo_q and
    // j_hi_q): J_WAIT (7 clocks), J_CMP, J_SEL, J_LO, J_CARRY, J_HI, J_END
    // (3 clocks, 2 when called off); j_busy_q while any runs. After a jump
    // none starts for 8 clocks (j_cool).
    reg        j_wait_q, j_cmp_q, j_sel_q, j_carry_q, j_end_q, j_busy_q;
    reg [2:0]  j_wc;                   // clocks left in J_WAIT or J_END
    reg [3:0]  j_cool;
    reg        j_seen, j_bad, j_far_q, j_adv_far_q, j_go_q;
    // J_SEL takes what ADVANCE has left rather than the gap when the gap
    // is wide (past 32 bits, or no answer) or not below it: j_big ||
    // !(gap < left), which J_CMP forms as the AND of two flags (j_pick_x,
    // j_pick_y) from the halves' comparisons, so that each bit J_SEL loads
    // is one LUT of the two flags and its two candidates.
    reg        j_pick_x, j_pick_y;
    reg        j_lo_q, j_hi_q;
    wire [31:0] adv_left = {adv_hi_q, adv_lo_q};
    wire        j_pick_adv = j_pick_x && j_pick_y;
    wire        j_big_d  = !n2_f || |n2_gap[47:32];           // in J_CMP
    wire        j_lt_hi  = n2_gap[31:16] < adv_left[31:16];
    wire        j_eq_hi  = n2_gap[31:16] == adv_left[31:16];
    wire        j_lt_lo  = n2_gap[15:0] < adv_left[15:0];
    wire        j_start  = j_go_q && !j_busy_q && !pend_q && !adv_busy && !w_adv && !hold_q;
    // Off if a command came or the search started again, the answer went,
    // time has reached it, or there is nothing to jump. The tick source
    // stays the host throughout (CTRL is not written while the bus is held;
    // core-ind proves it).
    wire        j_abort  = j_seen || !srch_valid || !n2_v || j_bad;
    wire        j_last   = j_wc == 3'd1;
    assign j_run   = !j_busy_q;
    assign j_lo_go = j_lo_q;
    assign j_hi_go = j_hi_q;
    // Also while a CMD is in flight, so that the next access sees its late
    // arm in the FIFO (and HOLD).
    assign bus_hold = j_busy_q || adv_busy || w_adv || cmd_hold_q;
    always @(posedge i_clk) begin
        // Far: at least 32 ticks to go (2 with VHOLD, where the alternative
        // is a tick every ten clocks), from the gap two clocks old.
        j_far_q     <= n2_v && !n2_gap[47] && (ctrl_vhold_q ? |n2_gap[46:1] : |n2_gap[46:5]);
        j_adv_far_q <= (ctrl_vhold_q ? |adv_left[31:1] : |adv_left[31:5]) || adv_sat_q;
        j_go_q      <= !i_rst && ctrl_src_q == SRC_HOST && adv_nz_q && n2_v && srch_valid
                       && (j_far_q || !n2_f) && j_adv_far_q && !j_busy_q && j_cool == 4'd0
                       && !hold_q && !adv_busy && !w_adv;
    end
    always @(posedge i_clk)
        if (i_rst) begin
            j_wait_q <= 1'b0; j_cmp_q <= 1'b0; j_sel_q <= 1'b0; j_carry_q <= 1'b0; j_end_q <= 1'b0;
            j_busy_q <= 1'b0; j_wc <= 3'd0; j_cool <= 4'd0; j_seen <= 1'b0;
            j_lo_q <= 1'b0; j_hi_q <= 1'b0; lo_add_q <= {{(HALF-1){1'b0}}, 1'b1}; j_amt_q <= 32'd0;
            j_pick_x <= 1'b0; j_pick_y <= 1'b0; j_bad <= 1'b0;
        end else begin
            j_wait_q  <= j_start || (j_wait_q && !j_last);   // the counter and the gap settle
            j_cmp_q   <= j_wait_q && j_last;
            j_sel_q   <= j_cmp_q;
            j_lo_q    <= j_sel_q && !j_abort;                // low halves added
            j_carry_q <= j_lo_q;                             // carry and borrow move up
            j_hi_q    <= j_carry_q;                          // high parts added
            j_end_q   <= (j_sel_q && j_abort) || j_hi_q || (j_end_q && !j_last);
            j_busy_q  <= j_start || (j_busy_q && !(j_end_q && j_last));
            // J_END's length after J_SEL is 2 (called off): loaded in J_SEL
            // whether or not it is, since J_LO .. J_HI do not read it and
            // J_HI loads 3, so that the abort is in none of its enables.
            if (!j_busy_q)             // j_start's value; not read until it
                j_wc <= 3'd7;
            else if (j_sel_q)
                j_wc <= 3'd2;
            else if (j_hi_q)
                j_wc <= 3'd3;
            else if (j_wait_q || j_end_q)
                j_wc <= j_wc - 3'd1;
            if (j_end_q && j_last)
                j_cool <= 4'd8;
            else if (j_cool != 4'd0 && !j_busy_q)
                j_cool <= j_cool - 4'd1;
            // A command or a search start in the jump's own start clock counts
            // too: the answer the jump was decided on may be gone.
            if (!j_busy_q)             // as j_start would: not read outside a jump
                j_seen <= cmd_v || srch_start_q;
            else if (cmd_v || srch_start_q)
                j_seen <= 1'b1;
            if (j_cmp_q) begin         // the gap against what ADVANCE has left
                // Nothing to jump: time has reached the answer, it is the
                // next tick, or nothing is left.
                // (From flops: the gap's zero flag, and ADVANCE's, which
                // is current here: no step is decided in a jump.)
                j_bad <= (n2_f && (n2_gap[47] || n3_gap_z)) || !adv_nz_q;
                // j_big || !(gap < left) == x && y, with gap < left ==
                // lt_hi || (eq_hi && lt_lo)
                j_pick_x <= j_big_d || !j_lt_hi;
                j_pick_y <= j_big_d || !j_eq_hi || !j_lt_lo;
            end
            // The amount and the counter's addend are loaded in J_SEL even
            // if the jump is called off: only J_LO and J_HI read the amount,
            // and a called-off jump takes no step in the clock after (the
            // host is the source and steps only outside a jump), after which
            // the addend is one again.
            if (j_sel_q)
                j_amt_q  <= j_pick_adv ? adv_left : n2_gap[31:0];
            lo_add_q <= {{(HALF-1){1'b0}}, 1'b1};
            if (j_sel_q)
                lo_add_q <= j_pick_adv ? adv_left[HALF-1:0] : n2_gap[HALF-1:0];
        end

`ifdef FORMAL
`ifndef TW_CORE_F_LOCAL
    // J_CMP reads ADVANCE's flag for "nothing left" (an invariant of the
    // jump: not in the local set).
    always @(*) if (!i_rst && j_cmp_q)
        assert(adv_nz_q == (adv_left != 32'd0));
    // ... and the gap's zero flag, from the gap a clock old: the gap has
    // not moved (the counter and the answer stood through J_WAIT's end).
    always @(*) if (!i_rst && j_cmp_q && srch_valid)
        assert(n2_gap == f_n2_gap_was);
`endif
`endif

    // ================================================ interrupt, coalescing
    // The line rises when THRESH entries wait, or when the FIFO has been
    // non-empty for HOLDOFF ticks (ticks reaching V, a jump its whole
    // length, saturating at 65535), and, while any entry waits, whenever
    // virtual time is held, the FIFO is full, or virtual time waits for room: more than DEPTH - 4
    // entries wait with ADVANCE not spent and no sum or jump running, so no
    // tick can start (room_q) and the age stands still until the host pops
    // (only a jump over empty slots can still move time).
    reg [15:0] age_q;
    reg        age_due_q, thresh_due_q, room_due_q, irq_q;
    // The jump's addition to the age, saturating, formed in J_CMP for both
    // candidates of its amount and picked in J_SEL (as j_amt_q is chosen)
    // so that J_LO only loads it. age_q stands still from J_CMP through
    // J_SEL (no tick reaches V, and the FIFO is neither pushed nor popped
    // from J_CMP to J_LO, so it cannot empty there; if it is empty J_LO
    // clears the age anyway), and so do ADVANCE's left and the gap of a
    // jump not called off.
    reg [15:0]  j_age_q, j_age_adv_q, j_age_gap_q;
    wire [16:0] j_age_adv = {1'b0, age_q} + {1'b0, adv_left[15:0]};
    wire [16:0] j_age_gap = {1'b0, age_q} + {1'b0, n2_gap[15:0]};
    wire [15:0] j_age_adv_sat = |adv_left[31:16] || j_age_adv[16] ? 16'hFFFF : j_age_adv[15:0];
    wire [15:0] j_age_gap_sat = |n2_gap[31:16] || j_age_gap[16] ? 16'hFFFF : j_age_gap[15:0];
    always @(posedge i_clk) begin
        if (j_cmp_q) begin
            j_age_adv_q <= j_age_adv_sat;
            j_age_gap_q <= j_age_gap_sat;
        end
        if (j_sel_q)
            j_age_q <= j_pick_adv ? j_age_adv_q : j_age_gap_q;
    end
    always @(posedge i_clk)
        if (i_rst) begin
            age_q <= 0; age_due_q <= 1'b1; thresh_due_q <= 1'b1; room_due_q <= 1'b0; irq_q <= 1'b0;
        end else begin
            if (fifo_empty)
                age_q <= 0;
            else if (j_lo_q)
                age_q <= j_age_q;
            else if (step_v && !(&age_q))
                age_q <= age_q + 16'd1;
            age_due_q    <= age_q >= coal_holdoff_q;
            thresh_due_q <= {{(16-FW){1'b0}}, fifo_count} >= coal_thresh_q;
            room_due_q   <= ctrl_src_q == SRC_HOST && adv_nz_q && j_run && !adv_busy
                            && {1'b0, fifo_count} > ROOM_MAX;
            irq_q        <= ctrl_irq_en_q && !fifo_empty
                            && (hold_q || fifo_full || thresh_due_q || age_due_q || room_due_q);
        end
    assign o_irq = irq_q;

    // ================================================ read mux, two stages
    reg [15:0] now_hi_latch_q, next_hi_latch_q;
    // What ADVANCE has left, every clock, for a read's B1 to take a clock
    // later: the halves' pending borrow and decrement in one subtraction,
    // off the read multiplexer's path.
    reg [31:0] adv_left_b0_q;
    always @(posedge i_clk)
        adv_left_b0_q <= {adv_hi_q, adv_lo_q} - {15'd0, adv_borrow_q, 15'd0, adv_pend_q};
    reg [31:0] grp_q [0:2];
    reg        rd1_q;
    reg [2:0]  rd1_grp_q;
    wire        advancing = adv_nz_q || adv_busy || step_q || fly_q || !j_run;
    wire [31:0] status = ({{(31-FIFO_LOG2){1'b0}}, fifo_count} << TW_STATUS_FIFO_COUNT_LSB)
                       | ({31'd0, searching_q} << TW_STATUS_SEARCHING_LSB)
                       | ({31'd0, irq_q} << TW_STATUS_IRQ_LSB)
                       | ({31'd0, advancing} << TW_STATUS_ADVANCING_LSB)
                       | ({31'd0, cmd_err_q} << TW_STATUS_CMD_ERR_LSB)
                       | ({31'd0, hold_q} << TW_STATUS_HOLD_LSB)
                       | ({31'd0, overflow_q} << TW_STATUS_OVERFLOW_LSB);
    wire [31:0] caps   = (LEVELS << TW_CAPS_LEVELS_LSB) | (SLOT_BITS << TW_CAPS_SLOT_BITS_LSB)
                       | (FIFO_LOG2 << TW_CAPS_FIFO_LOG2_LSB) | (TICK_BITS << TW_CAPS_TICK_BITS_LSB);
    wire [31:0] ctrl   = {28'd0, ctrl_vhold_q, ctrl_irq_en_q, ctrl_src_q};
    always @(posedge i_clk) begin
        if (i_rst) begin
            now_hi_latch_q <= 0; next_hi_latch_q <= 0;
        end else begin
            // NOW is the bus's tick: tick_p in B1, the tick a SET decoded
            // with this access would be judged against.
            if (r_now_lo)  now_hi_latch_q  <= tick_p[47:32];
            if (r_next_lo) next_hi_latch_q <= next_q[47:32];
        end
        rd1_q         <= !i_rst && r_acc;
        rd1_grp_q     <= r_adr[5:3];
        // Stage 1: eight registers a group, picked by the low address bits.
        // Written out by index for the synthesizer (the same choice by the
        // map's names, tried in three forms, placed slower on both boards:
        // docs/fpga.md); the C model reads by
        // the names (host/tw_model.c), and the lockstep tests compare the two
        // on every read, so a map that moves a register fails them until
        // this follows.
        case (r_adr[2:0])
            3'd0: grp_q[0] <= TW_ID_MAGIC;       3'd1: grp_q[0] <= {TW_VERSION_MAJOR, TW_VERSION_MINOR};
            3'd2: grp_q[0] <= caps;              3'd3: grp_q[0] <= ctrl;
            3'd4: grp_q[0] <= presc_q;           3'd5: grp_q[0] <= status;
            3'd6: grp_q[0] <= tick_p[31:0];      default: grp_q[0] <= {16'd0, now_hi_latch_q};
        endcase
        case (r_adr[2:0])
            // ADVANCE: what was left in B0 (no host step is decided there,
            // and no sum or jump runs), which is what is left now.
            3'd0: grp_q[1] <= adv_left_b0_q;
            3'd1: grp_q[1] <= arm_lo_q;
            3'd2: grp_q[1] <= {16'd0, arm_hi_q}; 3'd3: grp_q[1] <= 32'd0;
            3'd4: grp_q[1] <= evt_info_q;        3'd5: grp_q[1] <= empty1_q ? 32'd0 : h_tick[31:0];
            3'd6: grp_q[1] <= cnt_events_q;      default: grp_q[1] <= cnt_late_q;
        endcase
        case (r_adr[2:0])
            3'd0: grp_q[2] <= cnt_overflow_q;    3'd1: grp_q[2] <= cnt_cmds_q;
            3'd2: grp_q[2] <= cnt_buserr_q;      3'd3: grp_q[2] <= horizon_q;
            3'd4: grp_q[2] <= next_q[31:0];      3'd5: grp_q[2] <= {16'd0, next_hi_latch_q};
            3'd6: grp_q[2] <= {coal_thresh_q, coal_holdoff_q};
            default: grp_q[2] <= 32'd0;
        endcase
        // Stage 2: the group.
        if (i_rst)
            o_wb_dat <= 32'd0;
        else if (rd1_q)
            o_wb_dat <= rd1_grp_q == 3'd0 ? grp_q[0] : rd1_grp_q == 3'd1 ? grp_q[1]
                      : rd1_grp_q == 3'd2 ? grp_q[2] : 32'd0;
    end
`ifdef FORMAL
    // ==================================================================
    // Formal properties, proved by tests/formal/run.sh at a small geometry
    // (docs/verification.md lists them and their proofs). The run starts in
    // reset and stays out of it; the bus, the tick input and so every tick
    // source are otherwise free. With TW_CORE_F_INDUCT only the properties
    // proved by k-induction are kept (they and their helper invariants on
    // the pipeline hold in every reachable state); without it the rest,
    // which compare the chip with a shadow bitmap kept from the commands,
    // are proved by BMC from reset. TW_CORE_F_SHADOW adds those to the
    // induction, composed with the bitmaps' and the search's own proofs
    // (tw_bitmap's properties assumed, through TW_BITMAP_F_MAP, and the
    // search's contract, below). TW_CORE_F_ADV adds the ADVANCE
    // properties to the induction (a proof of its own: they double its
    // time). TW_CORE_F_LOCAL keeps, instead of all the rest, the properties
    // that need no invariant of the pipeline (NEXT, the prescaler, EVT_INFO,
    // the external input), so that their induction is quick.
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
    always @(*)
        assume(i_rst == !f_past_valid);
`ifdef TW_CORE_F_COVER
    // ------------------------------------------------------------- covers
    // The interesting states are reachable (the model as it is, no property
    // assumed; TW_CORE_F_COVER = 1 .. 4 picks one, for cover runs of their
    // own depth).
    reg [7:0] f_hv;                    // a virtual tick in C1 .. E
    always @(posedge i_clk)
        f_hv <= i_rst ? 8'd0 : {f_hv[6:0], step_host};
    always @(*) if (f_past_valid && !i_rst) begin
        if (`TW_CORE_F_COVER == 1) cover(late_e && push_e && push_ok);       // a late SET queued
        if (`TW_CORE_F_COVER == 2) cover(hold_q && vmode && !advancing);    // VHOLD: time stopped on the event
        if (`TW_CORE_F_COVER == 3) cover(j_hi_q && j_amt_q > 32'd2);        // a virtual-time jump
        if (`TW_CORE_F_COVER == 4) cover(push_e && !push_ok);                // an entry dropped: overflow
        // Not reachable (the induction proves it): a virtual tick's entry
        // dropped. For checking mutated copies (a room margin of 3 reaches
        // it).
        if (`TW_CORE_F_COVER == 5) cover(push_e && !push_ok && f_hv[7]);
    end
`else
    reg f_past2;                       // a clock after reset: every flop written since
    initial f_past2 = 1'b0;
    always @(posedge i_clk)
        f_past2 <= f_past_valid;
    // The search's interface (rtl/tw_search.v): o_valid falls only in the
    // clock after a start, rises no sooner than F_SRCH_MIN clocks after it
    // (the least cost is 12 + LEVELS * min(5, NW + 1) >= 14), and the answer
    // changes only as o_valid rises. The jump's proof relies on it (an
    // answer that went during J_WAIT cannot be back by J_SEL). Asserted in
    // every proof: the inductions prove it from the search's timing
    // contract (tw_answer_timing, proved by search-time-*), which they
    // assume, and from f_sst being the contract's own clock count.
    localparam integer F_SRCH_MIN = 14;
    reg [5:0] f_sst;                   // clocks since the search's last start
    always @(posedge i_clk)
        f_sst <= i_rst ? 6'd0 : srch_start_q ? 6'd1 : f_sst == 6'd63 ? f_sst : f_sst + 6'd1;
    // Combinational, on copies a clock old (a clocked property would speak of
    // the clock before).
    reg        f_sv_q, f_ss_q, f_sf_q;
    reg [47:0] f_sn_q;
    always @(posedge i_clk) begin
        f_sv_q <= srch_valid; f_ss_q <= srch_start_q; f_sf_q <= srch_found; f_sn_q <= srch_next;
    end
    wire f_srch_ok = (!(f_sv_q && srch_valid) || (srch_next == f_sn_q && srch_found == f_sf_q))
                     && (!(f_sv_q && !f_ss_q) || srch_valid) && (!f_ss_q || !srch_valid)
                     && (!srch_valid || f_sst >= F_SRCH_MIN);
    always @(*) if (f_past2) assert(f_srch_ok);
`ifdef TW_SEARCH_F_TIMING
    always @(*) if (f_past_valid) assert(f_sst == (f_srch_since > 10'd63 ? 6'd63 : f_srch_since[5:0]));
`endif

`ifndef TW_CORE_F_LOCAL
    // ---------------------------------------------------------------- bus
    // An access is taken in a clock with cyc & stb, ack low and no access
    // outstanding (taken, not yet acked); f_wait counts the clocks since
    // (R = 0, B0 = 1, ..., the ack at B3 = 4 without a hold).
    localparam integer F_DEC_MAX = 16;   // B0 at most 16 clocks after R
    localparam integer F_ACK_MAX = F_DEC_MAX + 3;
    reg       f_out;
    reg [5:0] f_wait;
    // f_aborted: cyc was low at a clock edge since the request was taken.
    reg       f_aborted;
    wire      f_take = i_wb_cyc && i_wb_stb && !f_out;
    always @(posedge i_clk)
        if (i_rst) begin
            f_out <= 1'b0; f_wait <= 6'd0; f_aborted <= 1'b0;
        end else if (f_take) begin
            f_out <= 1'b1; f_wait <= 6'd1; f_aborted <= 1'b0;
        end else begin
            if (acc3_q) f_out <= 1'b0;
            f_wait <= f_out && !acc3_q ? f_wait + 6'd1 : 6'd0;
            if (f_out && !i_wb_cyc) f_aborted <= 1'b1;
        end
    // What still holds a waiting request in B0, in clocks (0: decoded now):
    // the jump's states, the ADVANCE sum, a CMD in flight, and with VHOLD
    // the ticks in flight before a CMD.
    reg [4:0] f_hold_j, f_hold_a, f_hold_c, f_hold_f, f_hold;
    always @(*) begin
        f_hold_j = j_wait_q ? {2'd0, j_wc} + 5'd8 : j_cmp_q ? 5'd8 : j_sel_q ? 5'd7 : j_lo_q ? 5'd6
                 : j_carry_q ? 5'd5 : j_hi_q ? 5'd4 : j_end_q ? {2'd0, j_wc} : 5'd0;
        f_hold_a = w_adv ? 5'd6 : adv_st_q == 3'd0 ? 5'd0 : 5'd6 - {2'd0, adv_st_q};
        f_hold_c = cmd_fly_q > 3'd1 ? {2'd0, cmd_fly_q} - 5'd1 : 5'd0;
        f_hold_f = !(vmode && req_cmd) ? 5'd0 : step_q ? 5'd9 : step_c_q ? 5'd8 : step_p_q ? 5'd7
                 : step_v ? 5'd6 : step_h1 ? 5'd5 : step_h2 ? 5'd4 : step_g ? 5'd3 : step_e ? 5'd2
                 : fly_q ? 5'd1 : 5'd0;
        f_hold = f_hold_j;
        if (f_hold_a > f_hold) f_hold = f_hold_a;
        if (f_hold_c > f_hold) f_hold = f_hold_c;
        if (f_hold_f > f_hold) f_hold = f_hold_f;
    end
    always @(*) if (f_past_valid) begin
        // Stalled exactly while a taken request is outstanding.
        assert(o_wb_stall == f_out);
        // Never an ack without a taken request; its B3 ends it, with the
        // ack (one per request) unless cyc fell meanwhile (an abort: none),
        // within the bound (the contract: under 40 clocks).
        if (o_wb_ack) assert(f_out && f_wait <= F_ACK_MAX);
        assert(o_wb_ack == (acc3_q && !f_aborted));
        if (f_out) assert(f_wait >= 1 && f_wait <= F_ACK_MAX);
        if (f_out && !acc3_q) assert(f_wait < F_ACK_MAX);
        // Helpers: the access's stages are one-hot and bound its wait.
        assert(pend_q == (f_out && !acc3_q));
        assert(abort_q == (pend_q && f_aborted));
        assert({3'd0, req_v_q} + {3'd0, acc1_q} + {3'd0, acc2_q} + {3'd0, acc3_q} == {3'd0, f_out});
        if (req_v_q) assert({1'b0, f_wait} + {2'b0, f_hold} <= F_DEC_MAX && (f_hold == 0) == dec);
        if (step_c_q || step_p_q || step_v || step_h1 || step_h2 || step_g || step_e) assert(fly_q);
        if (acc1_q)  assert(f_wait <= F_DEC_MAX + 1);
        if (acc2_q)  assert(f_wait <= F_DEC_MAX + 2);
        if (w_ctrl || w_presc || w_status || w_adv || w_arm_lo || w_arm_hi || w_cmd || w_search
            || w_coal || r_acc || bad_acc) assert(acc1_q);
        if (c_any || c_set || c_clear || c_clear_all || c_bad || rd1_q) assert(acc2_q);
        if (!req_v_q) assert(!req_advrd_q);
        // The jump's states, one at a time, and the bus free at its start.
        assert({3'd0, j_wait_q} + {3'd0, j_cmp_q} + {3'd0, j_sel_q} + {3'd0, j_lo_q} + {3'd0, j_carry_q}
               + {3'd0, j_hi_q} + {3'd0, j_end_q} == {3'd0, j_busy_q});
        if (j_wait_q) assert(j_wc >= 3'd1 && j_wc <= 3'd7);
        if (j_end_q)  assert(j_wc >= 3'd1 && j_wc <= 3'd3);
        if (j_busy_q) assert(!acc1_q && !acc2_q);
        assert(adv_st_q <= 3'd5);
        if (adv_st_q != 3'd0) assert(!j_busy_q && !w_adv);
        // A CMD in flight, stage by stage, and the next one 7 clocks later.
        if (w_cmd)   assert(cmd_fly_q == 3'd7);
        if (c_any)   assert(cmd_fly_q == 3'd6);
        if (cmd_h1)  assert(cmd_fly_q == 3'd5);
        if (cmd_h2)  assert(cmd_fly_q == 3'd4);
        if (cmd_g)   assert(cmd_fly_q == 3'd3);
        if (cmd_e)   assert(cmd_fly_q == 3'd2);
    end

    // --------------------------------------------------------------- time
    // f_cnt: the counter with the carry between its halves added; f_left:
    // what ADVANCE has left after every decision so far.
    wire [47:0] f_cnt  = {hi_q, lo_q} + {23'd0, carry_q, 24'd0};
    wire [31:0] f_adv_raw = {adv_hi_q, adv_lo_q} - {15'd0, adv_borrow_q, 16'd0};
    wire [31:0] f_left = f_adv_raw - {31'd0, adv_pend_q};
    reg  [47:0] f_jbase;               // the counter as the jump adds its low part
    reg         f_sel1_q;              // the clock after J_SEL
    always @(posedge i_clk) begin
        if (j_lo_q) f_jbase <= f_cnt;
        f_sel1_q <= !i_rst && j_sel_q;
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            // One tick per decided step, a clock later (C1), outside a
            // jump's additions; a jump adds exactly its amount.
            if (!$past(j_lo_q) && !$past(j_hi_q))
                assert(f_cnt == $past(f_cnt) + {47'd0, $past(step_q)});
            if ($past(j_hi_q))
                assert(f_cnt == f_jbase + {16'd0, j_amt_q});
            assert(step_q == $past(step_d));
        end
    always @(*) if (f_past_valid) begin
        // Real-time sources never wait; virtual time steps only while
        // ADVANCE has ticks left, HOLD is clear and no jump runs.
        if (ctrl_src_q == SRC_INT) assert(step_d == ptick_q);
        if (ctrl_src_q == SRC_EXT) assert(step_d == (ext_q[1] && !ext_q[2]));
        if (ctrl_src_q == SRC_HOST && step_d)
            assert(f_left != 32'd0 && !hold_q && !j_busy_q && !adv_busy);
        if (ctrl_src_q == 2'd3) assert(!step_d);
        // With VHOLD, a step only with no tick and no CMD in flight.
        if (vmode && step_d)
            assert(!step_q && !fly_q && cmd_fly_q == 3'd0 && !(req_v_q && req_cmd));
        // The jump: only in virtual time, never past what ADVANCE has
        // left, never nothing; the counter steps not while it adds.
        if (j_lo_q) assert(ctrl_src_q == SRC_HOST && j_amt_q != 32'd0 && j_amt_q <= f_left);
        if (j_busy_q && !(j_wait_q && j_wc == 3'd7)) assert(!step_q);
        if (j_busy_q) assert(ctrl_src_q == SRC_HOST);
        // The ticks in flight at the jump's start reach V during J_WAIT, so
        // the counter, tick_p and tick_v agree from J_WAIT's fourth clock.
        if (j_wait_q && j_wc <= 3'd5) assert(!carry_q && !step_c_q && lo_d_q == lo_q);
        if (j_wait_q && j_wc <= 3'd4) assert(!step_p_q && tick_v == tick_p);
        // The answer the jump started on has stood since the clock before.
        if (j_go_q && srch_valid) assert(f_sst >= F_SRCH_MIN + 1);
        if (j_go_q && !srch_valid) assert(f_sst == 6'd1);
        if (j_wait_q && srch_valid) assert({3'd0, f_sst} >= F_SRCH_MIN + 9 - j_wc);
        if (j_cmp_q && srch_valid) assert(f_sst >= F_SRCH_MIN + 9);
        if (j_sel_q && srch_valid) assert(f_sst >= F_SRCH_MIN + 10);
        if (j_wait_q && !srch_valid) assert({3'd0, f_sst} <= 9 - j_wc);
        if (j_cmp_q && !srch_valid) assert(f_sst <= 6'd9);
        if (j_sel_q && !srch_valid) assert(f_sst <= 6'd10);
        if (j_cmp_q || j_sel_q) assert(!carry_q && !step_c_q && !step_p_q && lo_d_q == lo_q && tick_v == tick_p);
        if (j_go_q && ctrl_src_q != SRC_HOST) assert(acc2_q);
        if (j_wait_q || j_cmp_q || j_sel_q) assert(ctrl_src_q == SRC_HOST);
        if (j_lo_q) assert(lo_add_q == j_amt_q[HALF-1:0]);
        else if (!f_sel1_q) assert(lo_add_q == {{(HALF-1){1'b0}}, 1'b1});
        if (step_q) assert(!j_lo_q && lo_add_q == {{(HALF-1){1'b0}}, 1'b1});
        if (j_carry_q || j_hi_q) assert(f_cnt == f_jbase + {24'd0, j_amt_q[HALF-1:0]});
        if (j_hi_q) assert(!carry_q);
        // Helpers: ADVANCE's halves and flag.
        if (adv_borrow_q && !j_carry_q) assert(adv_lo_q == 16'hFFFF);
        if (adv_borrow_q) assert(adv_hi_q != 16'd0);
        if (adv_pend_q) assert(f_adv_raw != 32'd0);
        if (!j_carry_q && !j_hi_q && !(j_end_q && j_wc == 3'd3) && adv_st_q != 3'd4 && adv_st_q != 3'd5)
            assert(adv_nz_q == (f_left != 32'd0));
        if ((j_wait_q && j_wc <= 3'd5) || j_cmp_q || j_sel_q || j_lo_q)
            assert(!adv_pend_q && !adv_borrow_q);
    end

    // -------------------------------------------- entries: nothing lost
    reg [2:0] f_nev_e;
    integer fk;
    always @(*) begin
        f_nev_e = {2'b00, late_e};
        for (fk = 0; fk < LEVELS; fk = fk + 1)
            f_nev_e = f_nev_e + {2'b00, hit_e[fk]};
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            // Every entry formed with an event (G) is pushed (E) ...
            assert(push_e == (|$past(hit_g) || $past(late_g)));
            // ... and either queued and counted, or counted as dropped
            // with OVERFLOW set; nothing else moves the counts or sets it.
            if ($past(push_e && push_ok))
                assert(cnt_events_q == $past(cnt_events_q) + {29'd0, $past(f_nev_e)});
            else
                assert(cnt_events_q == $past(cnt_events_q));
            if ($past(push_e && !push_ok))
                assert(overflow_q && cnt_overflow_q == $past(cnt_overflow_q) + {29'd0, $past(f_nev_e)});
            else
                assert(cnt_overflow_q == $past(cnt_overflow_q));
            if (overflow_q && !$past(overflow_q))
                assert($past(push_e && !push_ok));
            // HOLD: set by a queued entry under VHOLD (a clear loses to it).
            if ($past(push_e && push_ok && vmode))
                assert(hold_q);
            if (hold_q && !$past(hold_q))
                assert($past(push_e && push_ok && vmode));
            // The FIFO's count moves with the pushes and pops.
            assert(fifo_count == $past(fifo_count) + {{(FW-1){1'b0}}, $past(push_e && push_ok)}
                                 - {{(FW-1){1'b0}}, $past(pop_fifo && !fifo_empty)});
        end
    always @(*) if (f_past_valid) begin
        assert(fifo_count <= DEPTH[FW-1:0]);
        if (f_past2) assert(n_ev_e == f_nev_e);
        if (push_e) assert(f_nev_e != 3'd0);
    end

    // ------------------------------ virtual time never overruns the FIFO
    // f_h_*: the stages that hold a tick decided in virtual time (the host's
    // steps). No entry with such a tick finds the FIFO full: the room flag's
    // margin covers every tick and CMD in flight.
    reg [7:0] f_h;                     // C1, C2, P, V, H1, H2, G, E
    wire [7:0] f_ts = {step_e, step_g, step_h2, step_h1, step_v, step_p_q, step_c_q, step_q};
    wire [5:0] f_cs = {cmd_e, cmd_g, cmd_h2, cmd_h1, c_any, w_cmd};   // B1, V, H1, H2, G, E
    reg  [5:0] f_claim [0:7];
    integer fs, ft;
    always @(*)
        for (fs = 0; fs < 8; fs = fs + 1) begin
            f_claim[fs] = {{(6-FW){1'b0}}, fifo_count};
            for (ft = 0; ft < 8; ft = ft + 1)
                if (ft >= fs) f_claim[fs] = f_claim[fs] + {5'd0, f_ts[ft]};
            // A CMD in stage j (B1 = 0 .. E = 5) is pushed 5 - j clocks on,
            // the tick 7 - s clocks on.
            for (ft = 0; ft < 6; ft = ft + 1)
                if (ft >= fs - 2) f_claim[fs] = f_claim[fs] + {5'd0, f_cs[ft]};
            if (fs == 0) f_claim[fs] = f_claim[fs] + {5'd0, !(|f_cs[4:0])};
            if (fs == 1) f_claim[fs] = f_claim[fs] + {5'd0, !(|f_cs)};
        end
    always @(posedge i_clk)
        f_h <= i_rst ? 8'd0 : {f_h[6:0], step_host};
    always @(*) if (f_past_valid) begin
        if (push_e && f_h[7]) assert(push_ok);
        // Helpers: the stages' flags, and the count of what is in flight.
        // A virtual tick in stage s: the FIFO's entries, what is in flight
        // to be pushed no later than it, and a CMD that may still come
        // before it (one at most: CMDs are 7 clocks apart) fit.
        for (fs = 0; fs < 8; fs = fs + 1)
            if (f_h[fs]) assert(f_claim[fs] <= DEPTH);
        if (f_h[0]) assert(step_q);   if (f_h[1]) assert(step_c_q); if (f_h[2]) assert(step_p_q);
        if (f_h[3]) assert(step_v);   if (f_h[4]) assert(step_h1);  if (f_h[5]) assert(step_h2);
        if (f_h[6]) assert(step_g);   if (f_h[7]) assert(step_e);
        assert({1'b0, resv_q} == {{(6-FW){1'b0}}, fifo_count}
                                 + {5'd0, step_c_q} + {5'd0, step_p_q} + {5'd0, step_v} + {5'd0, step_h1}
                                 + {5'd0, step_h2} + {5'd0, step_g} + {5'd0, step_e} + {5'd0, c_any}
                                 + {5'd0, cmd_h1} + {5'd0, cmd_h2} + {5'd0, cmd_g} + {5'd0, cmd_e});
        assert(cmd_hold_q == (cmd_fly_q > 3'd1) && cmd_fly_nz_q == (cmd_fly_q != 3'd0));
        assert(adv_busy == (adv_st_q != 3'd0));
        assert(vmode_q == (ctrl_src_q == SRC_HOST && ctrl_vhold_q));
        assert(req_cmd == (req_we_q && req_adr_q == TW_REG_CMD));
        if (late_e) assert(cmd_e);
        if (late_g) assert(cmd_g);
        if (late_h2) assert(cmd_h2);
        if (late_h1) assert(cmd_h1);
        if (f_past2 && |hit_e) assert(step_e);
        if (|visit_g) assert(step_g);
        if (|visit_h2) assert(step_h2);
        if (|visit_h1) assert(step_h1);
        if (|visit_v) assert(step_v);
        if (late_v) assert(c_any);
    end

    // ---------------------------------------------- STATUS.ADVANCING
    // Clear, with the host as the source, it means time has stopped where
    // ADVANCE asked: nothing is left, no step is decided, no tick is in C1
    // to E (so each visit so far has had its entry pushed), and it stays
    // so, NOW with it, until the host writes ADVANCE or CTRL.
    always @(*)
        if (f_past_valid && !i_rst && ctrl_src_q == SRC_HOST && !advancing)
            assert(f_left == 32'd0 && !step_d && f_ts == 8'd0 && !j_busy_q);
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst) && !i_rst
            && $past(ctrl_src_q == SRC_HOST && !advancing && !w_adv && !w_ctrl))
            assert(!advancing && tick_p == $past(tick_p));

    // ----------------------------------- visits and late arms, as defined
    // Level k visits on every tick whose low k*b bits are zero; a SET is late
    // when tick_v has reached its armed tick (mod 2^48) and this clock's
    // visit of the same level is not of its slot.
    function f_visits;                          // level lvl visits on tick t
        input [TICK_BITS-1:0] t;
        input integer lvl;
        f_visits = (t & ((48'd1 << (lvl * SLOT_BITS)) - 48'd1)) == 48'd0;
    endfunction
    reg [LEVELS-1:0] f_visit_v;
    integer fv;
    always @(*)
        for (fv = 0; fv < LEVELS; fv = fv + 1)
            f_visit_v[fv] = step_v && f_visits(tick_v, fv);
    wire [47:0] f_arm_ago = tick_v - {arm_hi_q, arm_lo_q};
    wire        f_reached = !f_arm_ago[47];
    wire        f_seen_v  = visit_v[c_lvl] && tick_v[c_lvl * SLOT_BITS +: SLOT_BITS] == c_slot;
    always @(*) if (f_past2) begin
        assert(visit_v == f_visit_v);
        if (c_set) assert(late_v == (f_reached && !f_seen_v));
        if (!c_set) assert(!late_v);
    end
    always @(posedge i_clk)
        if (f_past2) assert(tick_v == $past(tick_p));
    // The bitmaps' WRITE_AHEAD contract (tw_bitmap's proofs assume it): a
    // write's slot is the one given a clock before.
    always @(posedge i_clk)
        if (f_past2 && |c_wr) assert(c_slot == $past(c_slot));

    // ---------------------------------------------------- an entry's fields
    // An entry's tick, level and slot are those of its V clock, four clocks
    // before E, and each level it reports visited visits on that tick. The
    // delay RAM holds what V wrote since reset at the addresses behind its
    // write pointer, and E's word is the fourth-last.
    reg [DLY_W-1:0] f_v1, f_v2, f_v3, f_v4;    // what V wrote 1 .. 4 clocks ago
    reg [2:0]       f_since_rst;                // clocks since reset, up to 4
    always @(posedge i_clk) begin
        f_v1 <= {tick_v, c_lvl, c_slot};
        f_v2 <= f_v1; f_v3 <= f_v2; f_v4 <= f_v3;
        f_since_rst <= i_rst ? 3'd0 : f_since_rst + {2'd0, f_since_rst != 3'd4};
    end
    integer fe;
    always @(*) if (f_past_valid) begin
        if (f_since_rst >= 3'd1) assert(dly_mem[dly_wa - 4'd1] == f_v1);
        if (f_since_rst >= 3'd2) assert(dly_mem[dly_wa - 4'd2] == f_v2);
        if (f_since_rst >= 3'd3) assert(dly_mem[dly_wa - 4'd3] == f_v3);
        if (f_since_rst == 3'd4) assert(dly_q == f_v4);
        if (|visit_h1 || late_h1) assert(f_since_rst >= 3'd1);
        if (|visit_h2 || late_h2) assert(f_since_rst >= 3'd2);
        if (|visit_g || late_g)   assert(f_since_rst >= 3'd3);
        if (push_e) assert(f_since_rst == 3'd4);
        for (fe = 0; fe < LEVELS; fe = fe + 1) begin
            if (visit_h1[fe]) assert(f_visits(f_v1[DLY_W-1 -: TICK_BITS], fe));
            if (visit_h2[fe]) assert(f_visits(f_v2[DLY_W-1 -: TICK_BITS], fe));
            if (visit_g[fe])  assert(f_visits(f_v3[DLY_W-1 -: TICK_BITS], fe));
            if (push_e && hit_e[fe]) assert(f_visits(entry_e[ENTRY_W-1 -: TICK_BITS], fe));
        end
    end

`ifdef TW_EVFIFO_F_MEM
    // So every queued entry (the words from the head, as many as the count)
    // has an event, and each level it reports visited visits on its tick.
    genvar f_q;
    generate for (f_q = 0; f_q < DEPTH; f_q = f_q + 1) begin : g_f_queued
        wire [FIFO_LOG2-1:0] f_at   = f_fifo_rd + f_q;
        wire [ENTRY_W-1:0]   f_word = f_fifo_mem[f_at*ENTRY_W +: ENTRY_W];
        integer fl;
        always @(*) if (f_past_valid && f_q < fifo_count) begin
            assert(|f_word[LVL_W + SLOT_BITS +: LEVELS + 1]);
            for (fl = 0; fl < LEVELS; fl = fl + 1)
                if (f_word[LVL_W + SLOT_BITS + 1 + fl])
                    assert(f_visits(f_word[ENTRY_W-1 -: TICK_BITS], fl));
        end
    end endgenerate
`endif

    // ------------------------------------------------- the jump's landing
    // It lands before the answer that stood through J_SEL (so it crosses no
    // busy visit the search has seen).
    wire [47:0] f_to_next = srch_next - f_cnt;
    always @(*) if (f_past_valid)
        if (j_lo_q) assert(srch_valid && (!srch_found || {16'd0, j_amt_q} < f_to_next));

`ifdef TW_CORE_F_INDUCT
    // (The properties from here to the shadow bitmap are proved by the
    // induction only: core-bmc-deep, slow already, would only repeat them.)
    // ------------------------------------------ interrupt and coalescing
    // The line is a flop of its conditions (chip.md, "Interrupt"); the two
    // coalescing flags are flops of their comparisons; the age counts the
    // ticks reaching V while the FIFO is not empty, a jump its whole amount,
    // saturating at 65535, and is 0 a clock after the FIFO is seen empty.
    wire [32:0] f_age_j   = {17'd0, age_q} + {1'b0, j_amt_q};
    wire [15:0] f_age_jsat = |f_age_j[32:16] ? 16'hFFFF : f_age_j[15:0];
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            assert(irq_q == $past(ctrl_irq_en_q && fifo_count != 0
                                  && (hold_q || fifo_count == DEPTH[FW-1:0] || thresh_due_q || age_due_q
                                      || room_due_q)));
            assert(thresh_due_q == $past({{(16-FW){1'b0}}, fifo_count} >= coal_thresh_q));
            assert(room_due_q == $past(ctrl_src_q == SRC_HOST && adv_nz_q && j_run && !adv_busy
                                       && fifo_count > ROOM_MAX_I));
            assert(age_due_q == $past(age_q >= coal_holdoff_q));
            if ($past(fifo_count == 0))
                assert(age_q == 16'd0);
            else if ($past(j_lo_q))
                assert(age_q == $past(f_age_jsat));
            else if ($past(step_v))
                assert(age_q == ($past(age_q) == 16'hFFFF ? 16'hFFFF : $past(age_q) + 16'd1));
            else
                assert(age_q == $past(age_q));
        end
    always @(*) if (f_past_valid) begin
        assert(o_irq == irq_q);
        // Helpers: the jump's age is formed as its amount is; no entry is
        // pushed or popped from J_CMP on, nor a CMD in flight.
        if (j_lo_q && !fifo_empty) assert(j_age_q == f_age_jsat);
        // ... from both candidates summed in J_CMP, still current in J_SEL.
        if (j_sel_q && !j_abort && !fifo_empty)
            assert(j_age_adv_q == j_age_adv_sat && j_age_gap_q == j_age_gap_sat);
        if (j_wait_q) assert(cmd_fly_q == 3'd0 || {1'b0, cmd_fly_q} + 4'd3 <= {1'b0, j_wc});
        if (!pend_q) assert(cmd_fly_q <= 3'd5);
        if (j_wait_q && j_wc <= 3'd3) assert(!step_v);
        if (j_wait_q && j_wc <= 3'd2) assert(!step_h1);
        if (j_wait_q && j_wc <= 3'd1) assert(!step_h2);
        if (j_cmp_q) assert(cmd_fly_q == 3'd0 && !step_g);
        if (j_sel_q || j_lo_q) assert(cmd_fly_q == 3'd0 && !step_e && !push_e);
        if (pop_fifo) assert(acc2_q);
    end

    // ------------------------------------------------ statistics, CMD_ERR
    // Each counter moves by one on its own event and on nothing else
    // (wrapping, as the 32-bit sums do): CNT_LATE per late SET's entry in E
    // (queued or dropped), CNT_CMDS per CMD write in B1, CNT_BUSERR per bad
    // command in B2 and per access of a kind its address does not allow in
    // B1 (never both in one clock). The events: the B1 and B2 of such
    // accesses, judged from the request's own flops against the register
    // map and the geometry as plain comparisons.
    wire [3:0]  f_op  = req_dat_q[TW_CMD_OP_LSB +: 4];
    wire [3:0]  f_lvl = req_dat_q[TW_CMD_LEVEL_LSB +: 4];
    wire [15:0] f_slt = req_dat_q[TW_CMD_SLOT_LSB +: 16];
    wire f_cmd_ok = f_op == OP_CLEAR_ALL
                    || ((f_op == OP_SET || f_op == OP_CLEAR) && {28'd0, f_lvl} < LEVELS && {16'd0, f_slt} < SLOTS);
    // Which address allows a read or a write: the map's access column, as
    // generated, so that the decode above (access_kind) is proved to follow it.
    wire f_w_ok = TW_REGS_WRITABLE[req_adr_q];
    wire f_r_ok = TW_REGS_READABLE[req_adr_q];
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            assert(cnt_late_q == $past(cnt_late_q) + {31'd0, $past(late_e)});
            assert(cnt_cmds_q == $past(cnt_cmds_q) + {31'd0, $past(w_cmd)});
            assert(cnt_buserr_q == $past(cnt_buserr_q) + {31'd0, $past(bad_acc)} + {31'd0, $past(c_bad)});
            // CMD_ERR: set by a bad command, cleared only by writing 1 to
            // it (the two are of different accesses, so never meet).
            if ($past(c_bad))
                assert(cmd_err_q);
            else if ($past(w_status && wdat[TW_STATUS_CMD_ERR_LSB]))
                assert(!cmd_err_q);
            else
                assert(cmd_err_q == $past(cmd_err_q));
        end
    always @(*) if (f_past_valid) begin
        assert(w_cmd == (acc1_q && req_we_q && req_adr_q == TW_REG_CMD));
        assert(bad_acc == (acc1_q && !(req_we_q ? f_w_ok : f_r_ok)));
        assert(c_bad == (acc2_q && req_we_q && req_adr_q == TW_REG_CMD && !f_cmd_ok));
        // Helper: B1's op and target flags are the request's.
        if (acc1_q) assert(wop_set == (f_op == OP_SET) && wop_clear == (f_op == OP_CLEAR)
                           && wop_clear_all == (f_op == OP_CLEAR_ALL)
                           && wcmd_ok == ({28'd0, f_lvl} < LEVELS && {16'd0, f_slt} < SLOTS));
    end

    // -------------------------------------------------- event read-out
    // f_rem: the head's events not yet read (head_q and the consumed marks).
    // Only an EVT_TICK read pops, in its B2, and each pop takes an entry; a
    // read that finds the FIFO non-empty (as EVT_INFO shows it: two clocks
    // before B1) pops the head when at most one of its events is left, and
    // otherwise marks exactly one read; the marks move with nothing else.
    reg [2:0] f_rem;
    integer fr;
    always @(*) begin
        f_rem = {2'b00, h_late && !consumed_late_q};
        for (fr = 0; fr < LEVELS; fr = fr + 1)
            f_rem = f_rem + {2'b00, h_mask[fr] && !consumed_mask_q[fr]};
    end
    wire f_rd_tick = !req_we_q && req_adr_q == TW_REG_EVT_TICK;
    always @(*) if (f_past_valid) begin
        if (pop_fifo) assert(acc2_q && f_rd_tick && !fifo_empty);
        assert(r_pop == (acc1_q && f_rd_tick));
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            if ($past(r_pop))
                assert(pop_fifo == (!$past(sel_empty_q) && $past(f_rem) <= 3'd1));
            if ($past(r_pop && !sel_empty_q && f_rem > 3'd1))
                assert(f_rem == $past(f_rem) - 3'd1);
            if ($past(pop_fifo))
                assert(consumed_mask_q == 0 && !consumed_late_q);
            else if (!$past(r_pop))
                assert(consumed_mask_q == $past(consumed_mask_q) && consumed_late_q == $past(consumed_late_q));
            // Helpers: a non-empty FIFO's head stands until a pop; the
            // selection is that of the head and marks of the clock before.
            if (!$past(fifo_empty) && !$past(pop_fifo))
                assert(head == $past(head));
            if (head_q == $past(head_q) && !$past(r_pop) && !$past(pop_fifo))
                assert(sel_late_q == rem_late && sel_bit_q == vis_bit
                       && sel_last_q == (rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0));
        end

`ifdef TW_CORE_F_ADV
    // ------------------------------------------------------------ ADVANCE
    // (A proof of its own, core-ind-adv: it doubles the induction's time.)
    // What is left moves only by the host steps decided (one each, a clock
    // later in f_left), by a jump's amount over J_LO .. J_HI, and by a
    // write's sum: A_HI leaves the 33-bit sum of what was left after B1's
    // decision and the value written (its carry in adv_sat_q), and A_FLAG
    // (B6) saturates it at 2^32 - 1.
    reg [31:0] f_jleft, f_adv_w;
    reg [32:0] f_adv_sum;
    wire [32:0] f_adv_sum_d = {1'b0, f_left} - {32'd0, step_host} + {1'b0, wdat};
    always @(posedge i_clk) begin
        if (j_lo_q) f_jleft <= f_left;
        if (w_adv) begin f_adv_w <= wdat; f_adv_sum <= f_adv_sum_d; end
    end
    wire [32:0] f_adv_part = {1'b0, adv_hi_q, 16'd0} + {1'b0, adv_add_hi_q, 16'd0} + {16'd0, adv_c_q, adv_lo_q};
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            if (!$past(adv_st_q == 3'd3 || adv_st_q == 3'd4 || adv_st_q == 3'd5 || j_lo_q || j_hi_q))
                assert(f_left == $past(f_left) - {31'd0, $past(step_host)});
            if ($past(adv_st_q == 3'd5))
                assert(f_left == (f_adv_sum[32] ? 32'hFFFF_FFFF : f_adv_sum[31:0]));
            if ($past(j_hi_q))
                assert(f_left == f_jleft - j_amt_q);
        end
    always @(*) if (f_past_valid) begin
        if (adv_st_q == 3'd5)
            assert({adv_sat_q, f_left} == f_adv_sum);
        else
            assert(!adv_sat_q);
        // Helpers: the sum's stages, its operands and partial sums.
        if (adv_st_q == 3'd1) assert(acc2_q);
        if (adv_st_q == 3'd2) assert(acc3_q && !adv_pend_q);
        if (adv_st_q >= 3'd1 && adv_st_q <= 3'd3)
            assert({adv_add_hi_q, req_dat_q[15:0]} == f_adv_w && f_adv_sum == {1'b0, f_left} + {1'b0, f_adv_w});
        if (adv_st_q >= 3'd3 && adv_st_q <= 3'd5) assert(!adv_pend_q && !adv_borrow_q);
        if (adv_st_q == 3'd4) assert(f_adv_part == f_adv_sum);
        if (j_carry_q || j_hi_q) assert(f_left == f_jleft - {16'd0, j_amt_q[15:0]} && !adv_pend_q);
        if (j_hi_q) assert(!adv_borrow_q);
    end

`endif
`endif
    // core-bmc-deep proves these by BMC from reset; core-shadow by
    // k-induction, composed with the bitmaps' and the search's own proofs.
`ifdef TW_CORE_F_INDUCT
`ifdef TW_CORE_F_SHADOW
`define TW_CORE_F_SHADOW_PROPS
`endif
`else
`define TW_CORE_F_SHADOW_PROPS
`endif
`ifdef TW_CORE_F_SHADOW_PROPS
`undef TW_CORE_F_SHADOW_PROPS
    // ---------------------------------------------- against a shadow bitmap
    // Kept from the commands as they reach V: a visit hits exactly when its
    // slot is busy (after the write of its own V clock), and the search's
    // answer is the earliest busy visit after its base.
    localparam integer F_BITS = LEVELS * SLOTS;
    reg  [F_BITS-1:0] f_bm;
    reg  [F_BITS-1:0] f_bm_next;
    integer fb;
    always @(*) begin
        f_bm_next = f_bm;
        if (bm_clear)
            f_bm_next = 0;
        else
            for (fb = 0; fb < LEVELS; fb = fb + 1)
                if (c_wr[fb]) f_bm_next[fb * SLOTS + c_slot] = c_set;
    end
    always @(posedge i_clk)
        f_bm <= f_bm_next;
    reg [LEVELS-1:0] f_busy_v, f_busy_h1, f_busy_h2, f_busy_g;
    always @(*)
        for (fb = 0; fb < LEVELS; fb = fb + 1)
            f_busy_v[fb] = f_bm_next[fb * SLOTS + tick_v[fb * SLOT_BITS +: SLOT_BITS]];
    always @(posedge i_clk) begin
        f_busy_h1 <= f_busy_v; f_busy_h2 <= f_busy_h1; f_busy_g <= f_busy_h2;
    end
    reg [2:0] f_age;
    initial f_age = 3'd0;
    always @(posedge i_clk)
        if (f_age != 3'd7) f_age <= f_age + 3'd1;
    always @(*) if (f_age >= 3'd5)
        assert(hit_g == (visit_g & f_busy_g));

    // The earliest busy visit after srch_base_q.
`include "tw_first_busy.vh"
    wire [48:0] f_ref = f_first_busy(f_bm, srch_base_q);
    reg f_dirty;                       // the bitmap changed since the search's start
    always @(posedge i_clk)
        f_dirty <= i_rst ? 1'b0 : (bm_clear || |c_wr) ? 1'b1 : srch_start_q ? 1'b0 : f_dirty;
    always @(*) if (f_past2 && srch_valid && !srch_start_q && !f_dirty) begin
        assert(srch_found == f_ref[48]);
        if (f_ref[48]) assert(srch_next == srch_base_q + f_ref[47:0]);
    end
`ifdef TW_CORE_F_SHADOW
    // --------------------------------- composed with the sub-modules' proofs
    // tw_bitmap's properties (bitmap-*: its ports against its own shadow,
    // from a clear) are assumptions here, and its shadow is this one.
    always @(*) if (f_past2) assert(f_bm == f_lvl_map);
    // What the bitmaps' and the search's proofs take as given, and the
    // properties above need of the core: the bitmaps are cleared a clock
    // after reset; a bitmap write restarts the search in the next clock;
    // a search's base is the tick in V of the clock before.
    reg f_wrote_q;
    reg [47:0] f_tick_v1;
    initial f_wrote_q = 1'b0;
    always @(posedge i_clk) begin
        f_wrote_q <= f_past2 && (bm_clear || |c_wr);
        f_tick_v1 <= tick_v;
    end
    always @(*) begin
        if (f_past_valid && !f_past2) assert(bm_clear);
        if (f_wrote_q) assert(srch_start_q);
        if (f_past2 && srch_start_q) assert(srch_base_q == f_tick_v1);
    end
    // The search's contract (tw_answer_contract in rtl/tw_search.v, on the
    // search's own ports) is assumed too; it gives its monitor's state.
    assign f_srch_map = f_bm;
    // Helper: with no write since its start, the search has read the words
    // of the bitmaps as they stood then, which they still are.
    always @(*) if (f_past2 && !srch_start_q && !f_dirty) assert(f_srch_okq && f_srch_smapq == f_bm);
`ifdef TW_CORE_F_SHADOW_COVER
    // The assumptions leave the case that matters reachable from reset: a
    // search on a busy bitmap, under the contract, with its answer.
    always @(*) if (f_past2) cover(srch_valid && !srch_start_q && !f_dirty && f_srch_okq && f_ref[48]);
`endif
`endif
`endif
`else
    // TW_CORE_F_LOCAL: the properties that need no invariant of the rest.
    // ---------------------------------------------- NEXT and SEARCHING
    // From the search's answer A and the tick in V three clocks before
    // (N1 .. N3), with SEARCH unchanged over them (a read of NEXT is at
    // least five clocks after a write of SEARCH): SEARCHING is clear exactly
    // when the answer has stood valid since then and time had not passed it
    // (A - 1 - tick >= 0); NEXT is then A if A - 1 - tick < SEARCH, else
    // tick + SEARCH, and 0 while SEARCHING.
    reg [47:0] f_tv1, f_tv2, f_tv3, f_an2, f_an3;
    reg [31:0] f_hz1, f_hz2, f_hz3;
    reg [2:0]  f_sv;                   // srch_valid 1, 2, 3 clocks ago
    reg        f_st2, f_st3, f_fd2, f_fd3, f_past3, f_past4;
    initial begin f_past3 = 1'b0; f_past4 = 1'b0; end
    always @(posedge i_clk) begin
        f_tv1 <= tick_v; f_tv2 <= f_tv1; f_tv3 <= f_tv2;
        f_hz1 <= horizon_q; f_hz2 <= f_hz1; f_hz3 <= f_hz2;
        f_sv  <= {f_sv[1:0], srch_valid};
        // f_ss_q, f_sf_q and f_sn_q are the search's flops a clock ago
        f_st2 <= f_ss_q; f_st3 <= f_st2; f_fd2 <= f_sf_q; f_fd3 <= f_fd2; f_an2 <= f_sn_q; f_an3 <= f_an2;
        f_past3 <= f_past2; f_past4 <= f_past3;
    end
    wire [47:0] f_gap   = f_an3 - 48'd1 - f_tv3;
    wire        f_nx_ok = &f_sv && !f_st3 && !(f_fd3 && f_gap[47]);
    always @(*) begin
        if (f_past2 && searching_q) assert(next_q == 48'd0);
        if (f_past4 && f_hz2 == f_hz3) begin
            assert(searching_q == !f_nx_ok);
            if (!searching_q)
                assert(next_q == (f_fd3 && f_gap < {16'd0, f_hz3} ? f_an3 : f_tv3 + {16'd0, f_hz3}));
        end
    end

    // ------------------------------------------------------- prescaler
    // With TICK_SRC = 1 a step is decided exactly when f_pcd, counting the
    // clocks down from PRESCALE as it stood at the source's first clock and
    // at each step, reaches 0, or when PRESCALE was 0 a clock before; never
    // in the source's first clock (so the first step is PRESCALE + 1 clocks
    // after it, and then one every PRESCALE + 1).
    reg [31:0] f_pcd, f_presc1;
    reg        f_nint_q;               // the source was not the prescaler a clock ago
    always @(posedge i_clk) begin
        f_nint_q <= i_rst || ctrl_src_q != SRC_INT;
        f_pcd    <= ctrl_src_q != SRC_INT || f_nint_q || step_d ? presc_q : f_pcd - 32'd1;
        f_presc1 <= presc_q;
    end
    wire [31:0] f_pc = {pc_hi_q, pc_lo_q} - {15'd0, pc_borrow_q, 16'd0};
    always @(*) if (f_past2 && ctrl_src_q == SRC_INT) begin
        if (f_nint_q) assert(!step_d);
        else assert(step_d == (f_pcd == 32'd0 || f_presc1 == 32'd0));
        // Helpers: the prescaler's count is f_pcd, never 0, between reloads.
        if (!reload_q) assert(f_pc == f_pcd && f_pcd != 32'd0);
        if (!f_nint_q) assert(ptick_q == reload_q);
        if (pc_borrow_q) assert(pc_lo_q == 16'hFFFF);
    end

    // ----------------------------------------------------------- EVT_INFO
    // EVT_INFO shows the head's next unread event, the late arm first, then
    // the levels upward (a level's slot is its field of the tick), VALID
    // set; all zero when the FIFO was empty three clocks before. Its fields
    // are formed over two clocks, so they are checked where the head and
    // the consumed marks stood through both (a read is at least five
    // clocks after the pop or read that changed them).
    reg [ENTRY_W-1:0] f_hq1, f_hq2;
    reg [LEVELS-1:0]  f_cm1, f_cm2;
    reg               f_cl1, f_cl2;
    reg [2:0]         f_fe;             // fifo_empty (or reset) 1, 2, 3 clocks ago
    always @(posedge i_clk) begin
        f_hq1 <= head_q; f_hq2 <= f_hq1;
        f_cm1 <= consumed_mask_q; f_cm2 <= f_cm1;
        f_cl1 <= consumed_late_q; f_cl2 <= f_cl1;
        f_fe  <= {f_fe[1:0], i_rst || fifo_empty};
    end
    wire [47:0]          f_e_tick = f_hq1[ENTRY_W-1 -: 48];
    wire [LEVELS-1:0]    f_e_rm   = f_hq1[1+LVL_W+SLOT_BITS +: LEVELS] & ~f_cm1;
    wire                 f_e_rl   = f_hq1[LVL_W+SLOT_BITS] && !f_cl1;
    reg  [31:0]          f_info;
    integer fi;
    always @(*) begin
        f_info = 32'd0;
        for (fi = LEVELS - 1; fi >= 0; fi = fi - 1)
            if (f_e_rm[fi])
                f_info = {2'b10, fi[1:0], {(12-SLOT_BITS){1'b0}}, f_e_tick[fi * SLOT_BITS +: SLOT_BITS],
                          f_e_tick[47:32]};
        if (f_e_rl)
            f_info = {2'b11, f_hq1[SLOT_BITS +: LVL_W], {(12-SLOT_BITS){1'b0}}, f_hq1[0 +: SLOT_BITS],
                      f_e_tick[47:32]};
    end
    always @(*) if (f_past4) begin
        if (f_fe[2]) assert(evt_info_q == 32'd0);
        else if (f_hq1 == f_hq2 && f_cm1 == f_cm2 && f_cl1 == f_cl2 && (f_e_rl || |f_e_rm))
            assert(evt_info_q == f_info);
    end

    // ------------------------------------------------------- read values
    // A read's data at its ack is the register the map names at the address
    // the master gave, as it stood in the read's B1; 0 for CMD and for an
    // address the map leaves free. The multiplexer is written by index for
    // the synthesizer; this is written by name, so a map that moves a
    // register fails here until the multiplexer follows. NOW_HI and NEXT_HI
    // are the high halves of NOW and NEXT as they stood at the last read of
    // NOW_LO and NEXT_LO (0 before any), so that a read of the low half
    // and then the high half gives one 48-bit value.
    reg [15:0] f_now_hi, f_next_hi;
    // What a read of the register at adr gives, by name.
    function [31:0] f_reads;
        input [5:0] adr;
        case (adr)
            TW_REG_ID:           f_reads = TW_ID_MAGIC;
            TW_REG_VERSION:      f_reads = {TW_VERSION_MAJOR, TW_VERSION_MINOR};
            TW_REG_CAPS:         f_reads = caps;
            TW_REG_CTRL:         f_reads = ctrl;
            TW_REG_PRESCALE:     f_reads = presc_q;
            TW_REG_STATUS:       f_reads = status;
            TW_REG_NOW_LO:       f_reads = tick_p[31:0];
            TW_REG_NOW_HI:       f_reads = {16'd0, f_now_hi};
            TW_REG_ADVANCE:      f_reads = adv_left_b0_q;
            TW_REG_ARM_LO:       f_reads = arm_lo_q;
            TW_REG_ARM_HI:       f_reads = {16'd0, arm_hi_q};
            TW_REG_EVT_INFO:     f_reads = evt_info_q;
            TW_REG_EVT_TICK:     f_reads = empty1_q ? 32'd0 : h_tick[31:0];
            TW_REG_CNT_EVENTS:   f_reads = cnt_events_q;
            TW_REG_CNT_LATE:     f_reads = cnt_late_q;
            TW_REG_CNT_OVERFLOW: f_reads = cnt_overflow_q;
            TW_REG_CNT_CMDS:     f_reads = cnt_cmds_q;
            TW_REG_CNT_BUSERR:   f_reads = cnt_buserr_q;
            TW_REG_SEARCH:       f_reads = horizon_q;
            TW_REG_NEXT_LO:      f_reads = next_q[31:0];
            TW_REG_NEXT_HI:      f_reads = {16'd0, f_next_hi};
            TW_REG_COALESCE:     f_reads = {coal_thresh_q, coal_holdoff_q};
            default:             f_reads = 32'd0;
        endcase
    endfunction
    reg [5:0]  f_radr_q;               // the address of the request taken last
    reg [31:0] f_rd_b2, f_rd_b3;       // what the read gives in its B1, a clock and two on
    reg        f_rd_ack;               // a read is in B3
    reg        f_rd_now_lo, f_rd_next_lo;
    always @(posedge i_clk) begin
        if (i_rst) begin
            f_radr_q <= 6'd0; f_now_hi <= 16'd0; f_next_hi <= 16'd0;
        end else begin
            if (i_wb_cyc && i_wb_stb && !o_wb_stall)
                f_radr_q <= i_wb_adr;
            if (f_rd_now_lo)  f_now_hi  <= tick_p[47:32];
            if (f_rd_next_lo) f_next_hi <= next_q[47:32];
        end
        // B1 of a read of NOW_LO, of NEXT_LO (decided in B0, as the
        // request's address stands from its capture to B4)
        f_rd_now_lo  <= !i_rst && dec && !req_we_q && f_radr_q == TW_REG_NOW_LO;
        f_rd_next_lo <= !i_rst && dec && !req_we_q && f_radr_q == TW_REG_NEXT_LO;
        f_rd_b2  <= f_reads(f_radr_q);
        f_rd_b3  <= f_rd_b2;
        f_rd_ack <= rd1_q;
    end
    always @(*) begin
        if (f_past2 && f_rd_ack) assert(o_wb_dat == f_rd_b3);
        // Helpers: the request's flops hold the address taken; the latches
        // are the high halves above.
        if (f_past_valid)
            assert(f_radr_q == req_adr_q && f_now_hi == now_hi_latch_q && f_next_hi == next_hi_latch_q);
    end

    // The plain registers read their reset values (the map's) until written,
    // then, from the clock after a write's B1, what the master wrote in the
    // bits their fields cover (the map's), 0 in the others.
    reg [31:0] f_wdat_q;               // the data of the request taken last
    reg        f_wr_b1;                // a write is in B1 ...
    reg [5:0]  f_wadr_b1;              // ... to this address
    reg [31:0] f_ctrl, f_presc, f_arm_lo, f_arm_hi, f_search, f_coal;
    always @(posedge i_clk) begin
        if (i_rst)
            f_wdat_q <= 32'd0;
        else if (i_wb_cyc && i_wb_stb && !o_wb_stall)
            f_wdat_q <= i_wb_dat;
        f_wr_b1   <= !i_rst && dec && req_we_q;
        f_wadr_b1 <= f_radr_q;
        if (i_rst) begin
            f_ctrl <= TW_CTRL_RESET; f_presc <= TW_PRESCALE_RESET; f_arm_lo <= TW_ARM_LO_RESET;
            f_arm_hi <= TW_ARM_HI_RESET; f_search <= TW_SEARCH_RESET; f_coal <= TW_COALESCE_RESET;
        end else if (f_wr_b1)
            case (f_wadr_b1)
                TW_REG_CTRL:     f_ctrl   <= f_wdat_q & TW_CTRL_BITS;
                TW_REG_PRESCALE: f_presc  <= f_wdat_q & TW_PRESCALE_BITS;
                TW_REG_ARM_LO:   f_arm_lo <= f_wdat_q & TW_ARM_LO_BITS;
                TW_REG_ARM_HI:   f_arm_hi <= f_wdat_q & TW_ARM_HI_BITS;
                TW_REG_SEARCH:   f_search <= f_wdat_q & TW_SEARCH_BITS;
                TW_REG_COALESCE: f_coal   <= f_wdat_q & TW_COALESCE_BITS;
                default: ;
            endcase
    end
    always @(*) if (f_past_valid) begin
        assert(f_reads(TW_REG_CTRL) == f_ctrl && f_reads(TW_REG_PRESCALE) == f_presc);
        assert(f_reads(TW_REG_ARM_LO) == f_arm_lo && f_reads(TW_REG_ARM_HI) == f_arm_hi);
        assert(f_reads(TW_REG_SEARCH) == f_search && f_reads(TW_REG_COALESCE) == f_coal);
        // Helpers: the request's flops hold the data taken; B1's strobes
        // are those of a write to each.
        assert(f_wdat_q == req_dat_q);
        assert(w_ctrl == (f_wr_b1 && f_wadr_b1 == TW_REG_CTRL) && w_presc == (f_wr_b1 && f_wadr_b1 == TW_REG_PRESCALE));
        assert(w_arm_lo == (f_wr_b1 && f_wadr_b1 == TW_REG_ARM_LO) && w_arm_hi == (f_wr_b1 && f_wadr_b1 == TW_REG_ARM_HI));
        assert(w_search == (f_wr_b1 && f_wadr_b1 == TW_REG_SEARCH) && w_coal == (f_wr_b1 && f_wadr_b1 == TW_REG_COALESCE));
    end

    // ----------------------------------------------------- external input
    // With TICK_SRC = 2 a step is decided exactly in the clock after the
    // second clock edge since the input was first sampled high (high at the
    // edge two before, low at the one before that): the synchroniser's two
    // flops, and one step per rising edge the clock samples.
    reg [2:0] f_ext;                   // i_ext_tick at the last three edges
    always @(posedge i_clk)
        f_ext <= {f_ext[1:0], i_ext_tick};
    always @(*) if (f_past4 && ctrl_src_q == SRC_EXT)
        assert(step_d == (f_ext[1] && !f_ext[2]));

`endif
`endif
`endif
endmodule
`default_nettype wire
