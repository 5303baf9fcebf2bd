`default_nettype none
// This file holds tickpath, its bitmap and FIFO and its top on pins, as
// fpga/ceiling/tickpath.sh reads it: not every module is named after it.
/* verilator lint_off DECLFILENAME */
// A measurement, not the chip: tickwheel's tick path (rtl/tw_core.v at the
// default 4 x 256 geometry) laid out as a pipeline for fmax, to learn how
// fast an iCE40 can run it at one tick per clock. fpga/ceiling/tickpath.sh
// places and routes it. Left out: the next-busy search, the virtual-time
// jump, coalescing, VHOLD (see fpga/ceiling/README.md).
//
// Stages (every loop closes through registers only):
//   D  step decision, registered a clock ahead (step_q)
//   C  counter: low half lo_q += step_q, its carry registered, high half
//      hi_q += carry_q a clock later
//   P  {hi_q, lo_d_q}: the counter a clock ago, consistent; per-level
//      "fields below are zero" flags; the SET's split arm comparison
//   V  the tick under visit: bitmap read addresses, bitmap writes, late check
//   H  busy words back from block RAM (tp_bitmap), the written bit patched in
//   H2 the slot's bit picked from its word (tp_bitmap)
//   G  the entry {tick, hits, late, lvl, slot}
//   E  FIFO push
// Time as the bus sees it (NOW, the late check) is the tick in stage V.
module tickpath #(
    parameter integer WITH_SCAN = 0,  // 1: fpga/ceiling/scan.v on the search ports
    parameter integer WITH_JUMP = 0   // 1 (with WITH_SCAN): the virtual-time jump
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_wb_cyc,
    input  wire        i_wb_stb,
    input  wire        i_wb_we,
    input  wire [5:0]  i_wb_adr,
    input  wire [31:0] i_wb_dat,
    output reg         o_wb_ack,
    output reg  [31:0] o_wb_dat,
    input  wire        i_ext_tick,
    output reg         o_irq,
    output reg         o_search_parity   // keeps the bitmaps' search ports alive
);
`include "tw_regs.vh"
    localparam integer LEVELS = 4, SB = 8, FIFO_LOG2 = 4;
    localparam integer ENTRY_W = 48 + LEVELS + 1 + 2 + SB;
    localparam [1:0] SRC_HOST = 2'd0, SRC_INT = 2'd1, SRC_EXT = 2'd2;
    localparam [3:0] OP_SET = 4'd1, OP_CLEAR = 4'd2, OP_CLEAR_ALL = 4'd3;

    // ------------------------------------------------------------- bus, B0/B1
    reg        cyc_q, stb_q, we_q;
    reg [5:0]  adr_q;
    reg [31:0] dat_q;
    reg        busy_q;                 // an access taken, its stb not yet dropped
    always @(posedge i_clk) begin
        cyc_q <= i_wb_cyc; stb_q <= i_wb_stb; we_q <= i_wb_we;
        adr_q <= i_wb_adr; dat_q <= i_wb_dat;
    end
    wire j_run;                        // no virtual-time jump under way
    reg        j_lo_q, j_hi_q;         // a jump adds its low, then high, part
    wire       j_lo_go_q = WITH_JUMP != 0 && j_lo_q;
    wire       j_hi_go_q = WITH_JUMP != 0 && j_hi_q;
    reg [31:0] j_amt_q;
    wire acc = cyc_q && stb_q && !busy_q && j_run;
    // B1: one registered strobe per register written or read with an effect.
    reg        w_ctrl, w_presc, w_status, w_adv, w_arm_lo, w_arm_hi, w_cmd, w_search, w_bad;
    reg        r_acc, r_pop, r_now_lo;
    reg [5:0]  r_adr;
    reg [31:0] wdat;
    reg        wdat_nz;                // wdat != 0, for ADVANCE
    reg        wop_set, wop_clear, wop_clear_all, wcmd_ok;
    reg [3:0]  wcmd_wr;
    always @(posedge i_clk) begin
        busy_q   <= i_rst ? 1'b0 : acc ? 1'b1 : stb_q ? busy_q : 1'b0;
        w_ctrl   <= acc && we_q && adr_q == TW_REG_CTRL;
        w_presc  <= acc && we_q && adr_q == TW_REG_PRESCALE;
        w_status <= acc && we_q && adr_q == TW_REG_STATUS;
        w_adv    <= acc && we_q && adr_q == TW_REG_ADVANCE;
        w_arm_lo <= acc && we_q && adr_q == TW_REG_ARM_LO;
        w_arm_hi <= acc && we_q && adr_q == TW_REG_ARM_HI;
        w_cmd    <= acc && we_q && adr_q == TW_REG_CMD;
        w_search <= acc && we_q && adr_q == TW_REG_SEARCH;
        w_bad    <= acc && we_q && !(adr_q == TW_REG_CTRL || adr_q == TW_REG_PRESCALE
                     || adr_q == TW_REG_STATUS || adr_q == TW_REG_ADVANCE || adr_q == TW_REG_ARM_LO
                     || adr_q == TW_REG_ARM_HI || adr_q == TW_REG_CMD || adr_q == TW_REG_SEARCH);
        r_acc    <= acc && !we_q;
        r_pop    <= acc && !we_q && adr_q == TW_REG_EVT_TICK;
        r_now_lo <= acc && !we_q && adr_q == TW_REG_NOW_LO;
        r_adr    <= adr_q;
        wdat     <= dat_q;
        wdat_nz  <= |dat_q;
        // A CMD's op and whether its level and slot exist, decoded here.
        wop_set       <= dat_q[TW_CMD_OP_LSB +: 4] == OP_SET;
        wop_clear     <= dat_q[TW_CMD_OP_LSB +: 4] == OP_CLEAR;
        wop_clear_all <= dat_q[TW_CMD_OP_LSB +: 4] == OP_CLEAR_ALL;
        wcmd_ok       <= dat_q[TW_CMD_LEVEL_LSB + 2 +: 2] == 2'd0 && dat_q[TW_CMD_SLOT_LSB + 8 +: 8] == 8'd0;
        // A SET or CLEAR of an existing slot: the level it writes, one-hot.
        wcmd_wr       <= (dat_q[TW_CMD_OP_LSB +: 4] == OP_SET || dat_q[TW_CMD_OP_LSB +: 4] == OP_CLEAR)
                         && dat_q[TW_CMD_LEVEL_LSB + 2 +: 2] == 2'd0 && dat_q[TW_CMD_SLOT_LSB + 8 +: 8] == 8'd0
                         ? 4'd1 << dat_q[TW_CMD_LEVEL_LSB +: 2] : 4'd0;
    end

    // ------------------------------------------------------ control registers
    reg [1:0]  ctrl_src_q;
    reg        ctrl_irq_en_q;
    reg [31:0] presc_q, arm_lo_q, search_q;
    reg [15:0] arm_hi_q;
    reg        presc_zero_q;
    always @(posedge i_clk)
        if (i_rst) begin
            ctrl_src_q <= 2'd3; ctrl_irq_en_q <= 1'b0;
            presc_q <= 0; presc_zero_q <= 1'b1;
            arm_lo_q <= 0; arm_hi_q <= 0; search_q <= 0;
        end else begin
            if (w_ctrl) begin
                ctrl_src_q    <= wdat[TW_CTRL_TICK_SRC_LSB +: 2];
                ctrl_irq_en_q <= wdat[TW_CTRL_IRQ_EN_LSB];
            end
            if (w_presc) begin presc_q <= wdat; presc_zero_q <= !wdat_nz; end
            if (w_arm_lo) arm_lo_q <= wdat;
            if (w_arm_hi) arm_hi_q <= wdat[15:0];
            if (w_search) search_q <= wdat;
        end

    // ------------------------------------------------------- step decision, D
    reg        step_q;
    // The FIFO has 11 free entries: ticks decided but not yet in it (D..E
    // plus this flag's own lag) and one late entry. Virtual time stops
    // stepping this far from full.
    reg        room_q;
    reg        hold_q;
    // Prescaler: counts presc_q..0 in two 16-bit halves, the high half's
    // borrow registered; reload_q is set in the clock it reads 0. (At
    // pc == 1 no borrow is pending: the last one left the low half at 0xffff.)
    reg [15:0] pc_lo_q, pc_hi_q;
    reg        pc_borrow_q;
    reg        reload_q;
    // External tick: synchroniser and edge.
    reg [2:0]  ext_q;
    // ADVANCE: what is left is {adv_hi_q, adv_lo_q} - adv_pend_q, the
    // decision's decrement applied a clock later, in two 16-bit halves (the
    // high half's borrow registered a clock later again). adv_nz_q ==
    // (left != 0) is kept a clock ahead so that the decision reads one flop.
    reg [15:0] adv_lo_q, adv_hi_q;
    reg        adv_borrow_q, adv_nz_q, adv_pend_q;
    wire       step_host = ctrl_src_q == SRC_HOST && adv_nz_q && room_q && !hold_q && j_run;
    wire       step_d    = step_host || (ctrl_src_q == SRC_INT && reload_q)
                        || (ctrl_src_q == SRC_EXT && ext_q[1] && !ext_q[2]);
    // {adv_hi_q, adv_lo_q} >= 1, 2, 3 (a pending high borrow leaves the low
    // half at 0xffff, so the high half's lag never matters here).
    wire       adv_ge1   = |adv_lo_q || |adv_hi_q;
    wire       adv_ge2   = |adv_lo_q[15:1] || |adv_hi_q;
    wire       adv_ge3   = |adv_lo_q[15:2] || &adv_lo_q[1:0] || |adv_hi_q;
    // left >= 1 and left >= 2, with the pending decrement taken off.
    wire       left_ge1  = adv_pend_q ? adv_ge2 : adv_ge1;
    wire       left_ge2  = adv_pend_q ? adv_ge3 : adv_ge2;
    always @(posedge i_clk)
        if (i_rst) begin
            step_q <= 1'b0; pc_lo_q <= 0; pc_hi_q <= 0; pc_borrow_q <= 1'b0; reload_q <= 1'b0; ext_q <= 0;
            adv_lo_q <= 0; adv_hi_q <= 0; adv_borrow_q <= 1'b0; adv_nz_q <= 1'b0; adv_pend_q <= 1'b0;
        end else begin
            step_q   <= step_d;
            ext_q    <= {ext_q[1:0], i_ext_tick};
            if (reload_q) begin
                {pc_hi_q, pc_lo_q} <= presc_q;
                pc_borrow_q <= 1'b0;
            end else begin
                {pc_borrow_q, pc_lo_q} <= {1'b0, pc_lo_q} - 17'd1;
                pc_hi_q <= pc_hi_q - {15'd0, pc_borrow_q};
            end
            reload_q <= (pc_lo_q == 16'd1 && pc_hi_q == 16'd0) || presc_zero_q;
            if (w_adv) begin
                adv_lo_q <= wdat[15:0]; adv_hi_q <= wdat[31:16];
                adv_borrow_q <= 1'b0; adv_nz_q <= wdat_nz; adv_pend_q <= 1'b0;
            end else begin
                adv_pend_q <= step_host;
                {adv_borrow_q, adv_lo_q} <= {1'b0, adv_lo_q}
                                            - {1'b0, j_lo_go_q ? j_amt_q[15:0] : {15'd0, adv_pend_q}};
                adv_hi_q <= adv_hi_q - (j_hi_go_q ? j_amt_q[31:16] : {15'd0, adv_borrow_q});
                adv_nz_q <= step_host ? left_ge2 : left_ge1;
            end
        end

    // ---------------------------------------------------------- counter, C/P
    reg [23:0] lo_q, hi_q, lo_d_q;
    reg [23:0] lo_add_q;               // 1, or a jump's amount in its clock
    wire [24:0] lo_sum = {1'b0, lo_q} + {1'b0, WITH_JUMP != 0 ? lo_add_q : 24'd1};
    reg        carry_q, step_c_q, stepped_p;
    reg [2:0]  zero_p;                 // lo_d_q's low 8, 16, 24 bits are zero
    always @(posedge i_clk)
        if (i_rst) begin
            lo_q <= 0; hi_q <= 0; lo_d_q <= 0; carry_q <= 1'b0; step_c_q <= 1'b0; stepped_p <= 1'b0;
            zero_p <= 3'b111;
        end else begin
            // The step enables the flops; the chain adds a constant one.
            // (A jump adds its amount instead: lo_add_q, then the high part.)
            if (step_q || j_lo_go_q) lo_q <= lo_sum[23:0];
            carry_q   <= (step_q || j_lo_go_q) && lo_sum[24];
            hi_q      <= hi_q + (j_hi_go_q ? {16'd0, j_amt_q[31:24]} : {23'd0, carry_q});
            lo_d_q    <= lo_q;
            step_c_q  <= step_q;       // the step that made lo_q
            stepped_p <= step_c_q;     // ... and so lo_d_q
            zero_p    <= {lo_q[23:0] == 0, lo_q[15:0] == 0, lo_q[7:0] == 0};
        end
    wire [47:0] tick_p  = {hi_q, lo_d_q};
    wire [3:0]  visit_p = {4{stepped_p}} & {zero_p, 1'b1};

    // ----------------------------------------------------------- tick under V
    reg [47:0] tick_v;
    reg [3:0]  visit_v;
    always @(posedge i_clk)
        if (i_rst) begin tick_v <= 0; visit_v <= 0; end
        else begin tick_v <= tick_p; visit_v <= visit_p; end

    // ------------------------------------------------ commands, B2 and V
    // B2 (the clock before V): decode the command and compare its armed tick
    // with tick_p, which is tick_v in the next clock: tick - arm as two
    // 24-bit differences, the high one both with and without the low
    // half's borrow, so V only picks a sign bit.
    reg        c_set, c_clear, c_clear_all, c_bad, bm_clear;
    reg [3:0]  c_wr;                   // the level a SET or CLEAR writes
    reg [1:0]  c_lvl;
    reg [7:0]  c_slot;
    reg        c_borrow, c_neg0, c_neg1;
    reg [3:0]  c_match;
    // The level's and slot's upper bits were checked in B1 (wcmd_ok).
    wire [1:0]  cmd_level = wdat[TW_CMD_LEVEL_LSB +: 2];
    wire [7:0]  cmd_slot  = wdat[TW_CMD_SLOT_LSB +: 8];
    wire [23:0] arm_l = arm_lo_q[23:0];
    wire [23:0] arm_h = {arm_hi_q, arm_lo_q[31:24]};
    // Only the borrow and the sign bits are kept: the rest of each
    // difference is the carry chain that forms them.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [24:0] diff_l  = {1'b0, lo_d_q} - {1'b0, arm_l};
    wire [23:0] diff_h0 = hi_q - arm_h;
    wire [23:0] diff_h1 = hi_q + ~arm_h;            // hi - arm_h - 1: one carry chain
    /* verilator lint_on UNUSEDSIGNAL */
    always @(posedge i_clk) begin
        c_set       <= !i_rst && w_cmd && wop_set && wcmd_ok;
        c_clear     <= !i_rst && w_cmd && wop_clear && wcmd_ok;
        c_clear_all <= !i_rst && w_cmd && wop_clear_all;
        // Reset empties the bitmaps as CLEAR_ALL does: their own register,
        // so that the reset does not reach into their read paths.
        bm_clear    <= i_rst || (w_cmd && wop_clear_all);
        c_bad       <= !i_rst && (w_bad || (w_cmd && !((wop_set || wop_clear) && wcmd_ok) && !wop_clear_all));
        c_wr        <= {4{!i_rst && w_cmd}} & wcmd_wr;
        c_lvl       <= cmd_level;
        c_slot      <= cmd_slot;
        c_borrow    <= diff_l[24];
        c_neg0      <= diff_h0[23];
        c_neg1      <= diff_h1[23];
        // Per level: the tick's slot is the command's slot.
        c_match     <= {tick_p[24 +: 8] == cmd_slot, tick_p[16 +: 8] == cmd_slot,
                        tick_p[8 +: 8] == cmd_slot, tick_p[0 +: 8] == cmd_slot};
    end
    wire reached = !(c_borrow ? c_neg1 : c_neg0);    // tick_v - arm >= 0 mod 2^48
    // The visit in V of the slot the SET names reports it (the bitmap's
    // bypass shows the SET to that visit).
    wire seen_v  = |(c_match & visit_v & c_wr);
    wire late_v  = c_set && reached && !seen_v;

    // ------------------------------------------------ bitmaps, read in V
    wire [3:0]  busy_h;                // despite its name, valid in G
    wire [15:0] search_word [0:3];
    wire [15:0] scan_waddr;            // the search ports' word addresses
    genvar gl;
    generate
        for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_level
            tp_bitmap u_bitmap (
                .i_clk(i_clk), .i_rst(1'b0), .i_clear_all(bm_clear),
                .i_wr(c_wr[gl]), .i_wr_slot(c_slot), .i_wr_val(c_set),
                .i_visit_slot(tick_v[gl*SB +: SB]), .o_visit_bit(busy_h[gl]),
                .i_search_word(scan_waddr[gl*4 +: 4]), .o_search_word(search_word[gl])
            );
        end
    endgenerate
    // The search ports: read by the scan, restarted after every bitmap
    // command from the tick under visit, or folded into a parity.
    wire        scan_valid, scan_found;
    // The counter has reached the answer; without the scan nothing reads it.
    /* verilator lint_off UNUSEDSIGNAL */
    wire        scan_passed;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [47:0] scan_next;
    generate
        if (WITH_SCAN != 0) begin : g_scan
            reg         scan_start_q;
            reg  [47:0] scan_base_q;
            always @(posedge i_clk) begin
                scan_start_q <= i_rst || c_set || c_clear || c_clear_all
                                || (scan_passed && scan_valid && scan_found);
                scan_base_q  <= tick_v;
            end
            scan_core u_scan (
                // Reset restarts the scan (scan_start_q), which is all it needs.
                .i_clk(i_clk), .i_rst(1'b0), .i_start(scan_start_q), .i_base(scan_base_q),
                .o_waddr(scan_waddr),
                .i_words({search_word[3], search_word[2], search_word[1], search_word[0]}),
                .o_valid(scan_valid), .o_found(scan_found), .o_next(scan_next)
            );
            always @(posedge i_clk) o_search_parity <= 1'b0;
        end else begin : g_no_scan
            reg [15:0] search_word_q [0:3];
            assign scan_waddr = search_q[15:0];
            assign scan_valid = 1'b0;
            assign scan_found = 1'b0;
            assign scan_next  = 48'd0;
            always @(posedge i_clk) begin
                search_word_q[0] <= search_word[0]; search_word_q[1] <= search_word[1];
                search_word_q[2] <= search_word[2]; search_word_q[3] <= search_word[3];
                o_search_parity <= ^{search_word_q[0], search_word_q[1], search_word_q[2], search_word_q[3]};
            end
        end
    endgenerate

    // ------------------------------------------------ entry, H; push, E
    reg [47:0] tick_h;
    reg [3:0]  visit_h;
    reg        late_h;
    reg [1:0]  lvl_h;
    reg [7:0]  slot_h;
    always @(posedge i_clk) begin
        tick_h  <= tick_v;
        visit_h <= i_rst ? 4'd0 : visit_v;
        late_h  <= !i_rst && late_v;
        lvl_h   <= c_lvl;
        slot_h  <= c_slot;
    end
    // H2, G: waiting for the busy bits, which tp_bitmap registers twice
    // on their way out of block RAM.
    reg [47:0] tick_h2, tick_g;
    reg [3:0]  visit_h2, visit_g;
    reg        late_h2, late_g;
    reg [1:0]  lvl_h2, lvl_g;
    reg [7:0]  slot_h2, slot_g;
    always @(posedge i_clk) begin
        tick_h2  <= tick_h;                   tick_g  <= tick_h2;
        visit_h2 <= i_rst ? 4'd0 : visit_h;   visit_g <= i_rst ? 4'd0 : visit_h2;
        late_h2  <= !i_rst && late_h;         late_g  <= !i_rst && late_h2;
        lvl_h2   <= lvl_h;                    lvl_g   <= lvl_h2;
        slot_h2  <= slot_h;                   slot_g  <= slot_h2;
    end
    wire [3:0] hit_g = visit_g & busy_h;      // busy_h: tp_bitmap's registered output
    reg [ENTRY_W-1:0] entry_e;
    reg               push_e;
    reg               late_e;
    always @(posedge i_clk) begin
        entry_e    <= {tick_g, hit_g, late_g, lvl_g, slot_g};
        push_e     <= !i_rst && (|hit_g || late_g);
        late_e     <= !i_rst && late_g;
    end

    wire [ENTRY_W-1:0] head;
    wire [FIFO_LOG2:0] fifo_count;
    wire               fifo_empty, push_ok;
    reg                pop_fifo;
    tp_evfifo #(.WIDTH(ENTRY_W), .DEPTH_LOG2(FIFO_LOG2)) u_fifo (
        .i_clk(i_clk), .i_rst(i_rst),
        .i_push(push_e), .i_data(entry_e), .o_push_ok(push_ok),
        .i_pop(pop_fifo), .o_head(head),
        // The push decides on push_ok, and STATUS shows the count: the
        // full flag has no reader here.
        /* verilator lint_off PINCONNECTEMPTY */
        .o_count(fifo_count), .o_full(), .o_empty(fifo_empty)
        /* verilator lint_on PINCONNECTEMPTY */
    );

    // Status and statistics, a clock after E.
    reg        overflow_q, cmd_err_q;
    reg        dropped_q, cmd_q, bad_q, late_cnt_q;
    reg [2:0]  events_q;
    reg        pushed_q;
    reg [4:0]  pushed_ev_q;            // the pushed entry's hits and late flag
    reg [31:0] cnt_events_q, cnt_late_q, cnt_overflow_q, cnt_cmds_q, cnt_buserr_q;
    reg [4:0]  cnt_c_q;
    always @(posedge i_clk)
        if (i_rst) begin
            overflow_q <= 1'b0; cmd_err_q <= 1'b0; hold_q <= 1'b0; room_q <= 1'b1;
            dropped_q <= 1'b0; pushed_q <= 1'b0; cmd_q <= 1'b0; bad_q <= 1'b0; late_cnt_q <= 1'b0; events_q <= 0;
            cnt_events_q <= 0; cnt_late_q <= 0; cnt_overflow_q <= 0; cnt_cmds_q <= 0; cnt_buserr_q <= 0;
            cnt_c_q <= 0;
        end else begin
            // fifo_count <= 16 - 11, written out (ABC made a carry chain
            // of the comparison).
            room_q     <= !(fifo_count[4] || fifo_count[3] || (fifo_count[2] && fifo_count[1]));
            dropped_q  <= push_e && !push_ok;
            pushed_q   <= push_e && push_ok;
            pushed_ev_q <= entry_e[2+SB +: 5];
            events_q   <= !pushed_q ? 3'd0 : {2'd0, pushed_ev_q[0]} + {2'd0, pushed_ev_q[1]}
                          + {2'd0, pushed_ev_q[2]} + {2'd0, pushed_ev_q[3]} + {2'd0, pushed_ev_q[4]};
            late_cnt_q <= late_e && push_ok;
            cmd_q      <= c_set || c_clear || c_clear_all;
            bad_q      <= c_bad;
            if (dropped_q) overflow_q <= 1'b1;
            else if (w_status && wdat[TW_STATUS_OVERFLOW_LSB]) overflow_q <= 1'b0;
            if (bad_q) cmd_err_q <= 1'b1;
            else if (w_status && wdat[TW_STATUS_CMD_ERR_LSB]) cmd_err_q <= 1'b0;
            if (w_status && wdat[TW_STATUS_HOLD_LSB]) hold_q <= 1'b0;
            // 16-bit halves, the high half's carry registered (a read may
            // see the high half a clock behind).
            {cnt_c_q[0], cnt_events_q[15:0]}   <= {1'b0, cnt_events_q[15:0]} + {14'd0, events_q};
            {cnt_c_q[1], cnt_late_q[15:0]}     <= {1'b0, cnt_late_q[15:0]} + {16'd0, late_cnt_q};
            {cnt_c_q[2], cnt_overflow_q[15:0]} <= {1'b0, cnt_overflow_q[15:0]} + {16'd0, dropped_q};
            {cnt_c_q[3], cnt_cmds_q[15:0]}     <= {1'b0, cnt_cmds_q[15:0]} + {16'd0, cmd_q};
            {cnt_c_q[4], cnt_buserr_q[15:0]}   <= {1'b0, cnt_buserr_q[15:0]} + {16'd0, bad_q};
            cnt_events_q[31:16]   <= cnt_events_q[31:16] + {15'd0, cnt_c_q[0]};
            cnt_late_q[31:16]     <= cnt_late_q[31:16] + {15'd0, cnt_c_q[1]};
            cnt_overflow_q[31:16] <= cnt_overflow_q[31:16] + {15'd0, cnt_c_q[2]};
            cnt_cmds_q[31:16]     <= cnt_cmds_q[31:16] + {15'd0, cnt_c_q[3]};
            cnt_buserr_q[31:16]   <= cnt_buserr_q[31:16] + {15'd0, cnt_c_q[4]};
        end

    // -------------------------------------------- event read-out, registered
    // The head entry's events go out late arm first, then levels upward;
    // EVT_INFO and EVT_TICK are formed from a registered copy of the head.
    // They lag a pop by four clocks, less than the bus's access spacing.
    reg [ENTRY_W-1:0] head_q, head2_q;    // head_q is the block RAM's own output register
    reg               empty1_q, empty_q;
    reg [3:0]         consumed_mask_q;
    reg               consumed_late_q;
    wire [47:0] h_tick  = head2_q[ENTRY_W-1 -: 48];
    wire [3:0]  h_mask  = head2_q[1+2+SB +: 4];
    wire        h_late  = head2_q[2+SB];
    wire [1:0]  h_level = head2_q[SB +: 2];
    wire [7:0]  h_slot  = head2_q[0 +: SB];
    wire        rem_late = h_late && !consumed_late_q;
    wire [3:0]  rem_mask = h_mask & ~consumed_mask_q;
    wire [1:0]  vis_level = rem_mask[0] ? 2'd0 : rem_mask[1] ? 2'd1 : rem_mask[2] ? 2'd2 : 2'd3;
    wire [3:0]  vis_bit   = rem_mask & ~(rem_mask - 4'd1);
    reg [31:0] evt_info_q, evt_tick_q;
    reg        ev_last_q, rem_late_q;
    reg [3:0]  vis_bit_q;
    always @(posedge i_clk) begin
        head_q     <= head;
        head2_q    <= head_q;
        empty1_q   <= fifo_empty;
        empty_q    <= empty1_q;
        evt_info_q <= empty_q ? 32'd0
                    : {1'b1, rem_late, rem_late ? h_level : vis_level, 4'd0,
                       rem_late ? h_slot : h_tick[vis_level*8 +: 8], h_tick[47:32]};
        evt_tick_q <= h_tick[31:0];
        ev_last_q  <= rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;
        rem_late_q <= rem_late;
        vis_bit_q  <= vis_bit;
        pop_fifo   <= !i_rst && r_pop && !empty_q && ev_last_q;
        if (i_rst || pop_fifo) begin
            consumed_mask_q <= 0; consumed_late_q <= 1'b0;
        end else if (r_pop && !empty_q) begin
            if (rem_late_q) consumed_late_q <= 1'b1;
            else consumed_mask_q <= consumed_mask_q | vis_bit_q;
        end
    end

    // ---------------------------------------------- virtual-time jump
    // Where the search's answer A is far ahead and ADVANCE has far to go,
    // stepping stops, the counter settles, and it adds
    // min(A - 1 - now, what ADVANCE has left) in a few clocks: low half,
    // carry, high part; ADVANCE's remainder the same. Bus accesses wait
    // meanwhile, so no SET is judged while the counter jumps; a command
    // that slipped in before calls the jump off.
    // A - 1 - now from tick_p, two clocks behind it: gap1_q, as A + ~now in
    // three 16-bit parts, the upper two formed with and without a carry in.
    reg [16:0] j_gl_q, j_gm0_q, j_gm1_q;
    reg [15:0] j_gh0_q, j_gh1_q;
    reg [47:0] j_gap1_q;
    reg        j_far_q, j_passed_q;
    reg [1:0]  j_fresh_q;              // the answer has stood since gap1 started from it
    always @(posedge i_clk) begin
        j_fresh_q <= i_rst ? 2'd0 : {j_fresh_q[0], scan_valid} & {2{scan_valid}};
        j_gl_q   <= {1'b0, scan_next[15:0]} + {1'b0, ~tick_p[15:0]};
        j_gm0_q  <= {1'b0, scan_next[31:16]} + {1'b0, ~tick_p[31:16]};
        j_gm1_q  <= {1'b0, scan_next[31:16]} + {1'b0, ~tick_p[31:16]} + 17'd1;
        j_gh0_q  <= scan_next[47:32] + ~tick_p[47:32];
        j_gh1_q  <= scan_next[47:32] - tick_p[47:32];
        j_gap1_q <= {(j_gl_q[16] ? j_gm1_q[16] : j_gm0_q[16]) ? j_gh1_q : j_gh0_q,
                     j_gl_q[16] ? j_gm1_q[15:0] : j_gm0_q[15:0], j_gl_q[15:0]};
        j_far_q    <= j_fresh_q[1] && !j_gap1_q[47] && |j_gap1_q[46:5];
        j_passed_q <= j_fresh_q[1] && j_gap1_q[47];
    end
    assign scan_passed = j_passed_q;
    localparam [2:0] J_RUN = 3'd0, J_WAIT = 3'd1, J_CMP = 3'd2, J_SEL = 3'd3,
                     J_LO = 3'd4, J_CARRY = 3'd5, J_HI = 3'd6, J_END = 3'd7;
    reg [2:0]  j_state;
    reg [3:0]  j_cnt;
    reg        j_cmd_seen, j_big, j_lt_hi, j_eq_hi, j_lt_lo;
    wire [31:0] adv_left = {adv_hi_q, adv_lo_q};
    // Whether to jump, registered a clock ahead (from flags a clock old).
    reg        j_go_q, j_adv_far_q;
    always @(posedge i_clk) begin
        j_adv_far_q <= |adv_left[31:5];
        j_go_q      <= WITH_JUMP != 0 && !i_rst && ctrl_src_q == SRC_HOST && adv_nz_q && scan_valid
                       && (j_far_q || !scan_found) && j_adv_far_q && j_run && j_cnt == 4'd0;
    end
    assign j_run = j_state == J_RUN;
    always @(posedge i_clk)
        if (i_rst) begin
            j_state <= J_RUN; j_cnt <= 4'd0; j_cmd_seen <= 1'b0;
            j_lo_q <= 1'b0; j_hi_q <= 1'b0; lo_add_q <= 24'd1; j_amt_q <= 32'd0;
        end else begin
            j_lo_q <= 1'b0;
            j_hi_q <= 1'b0;
            lo_add_q  <= 24'd1;
            if (c_set || c_clear || c_clear_all) j_cmd_seen <= 1'b1;
            case (j_state)
                J_RUN: begin
                    if (j_cnt != 4'd0) j_cnt <= j_cnt - 4'd1;
                    if (j_go_q && !busy_q) begin
                        j_state <= J_WAIT; j_cnt <= 4'd6; j_cmd_seen <= 1'b0;
                    end
                end
                J_WAIT: begin          // the counter and gap1 settle
                    j_cnt <= j_cnt - 4'd1;
                    if (j_cnt == 4'd1) j_state <= J_CMP;
                end
                J_CMP: begin           // gap1 against what ADVANCE has left
                    j_big   <= !scan_found || |j_gap1_q[47:32];
                    j_lt_hi <= j_gap1_q[31:16] < adv_left[31:16];
                    j_eq_hi <= j_gap1_q[31:16] == adv_left[31:16];
                    j_lt_lo <= j_gap1_q[15:0] < adv_left[15:0];
                    j_state <= J_SEL;
                end
                J_SEL: begin
                    if (j_cmd_seen || !scan_valid) begin
                        j_state <= J_END; j_cnt <= 4'd2;
                    end else begin
                        j_amt_q  <= j_big || !(j_lt_hi || (j_eq_hi && j_lt_lo)) ? adv_left : j_gap1_q[31:0];
                        lo_add_q <= j_big || !(j_lt_hi || (j_eq_hi && j_lt_lo)) ? adv_left[23:0] : j_gap1_q[23:0];
                        j_lo_q <= 1'b1;
                        j_state <= J_LO;
                    end
                end
                J_LO:    j_state <= J_CARRY;   // low halves added (j_lo_go_q)
                J_CARRY: begin                 // carry and borrow move up
                    j_hi_q <= 1'b1;
                    j_state <= J_HI;
                end
                J_HI: begin                    // high parts added (j_hi_go_q)
                    j_state <= J_END; j_cnt <= 4'd2;
                end
                default: begin                 // ADVANCE's flag settles
                    j_cnt <= j_cnt - 4'd1;
                    if (j_cnt == 4'd1) begin j_state <= J_RUN; j_cnt <= 4'd8; end
                end
            endcase
        end

    // ---------------------------------------------- read mux, two stages
    reg [15:0] now_hi_latch_q;
    reg [31:0] grp_q [0:5];
    reg        rd1_q;
    reg [2:0]  rd1_grp_q;
    wire [31:0] status = {11'd0, fifo_count, 10'd0, 1'b0, o_irq, adv_nz_q, cmd_err_q, hold_q, overflow_q};
    wire [31:0] caps   = {8'd0, 8'd48, 4'd0, 4'd4, 4'd8, 1'b0, 3'd4};
    always @(posedge i_clk) begin
        if (r_now_lo) now_hi_latch_q <= tick_v[47:32];
        rd1_q     <= !i_rst && r_acc;
        rd1_grp_q <= r_adr[5:3];
        // Stage 1: eight registers a group, picked by the low address bits.
        case (r_adr[2:0])
            3'd0: grp_q[0] <= TW_ID_MAGIC;          3'd1: grp_q[0] <= {TW_VERSION_MAJOR, TW_VERSION_MINOR};
            3'd2: grp_q[0] <= caps;                 3'd3: grp_q[0] <= {28'd0, 1'b0, ctrl_irq_en_q, ctrl_src_q};
            3'd4: grp_q[0] <= presc_q;              3'd5: grp_q[0] <= status;
            3'd6: grp_q[0] <= tick_v[31:0];         default: grp_q[0] <= {16'd0, now_hi_latch_q};
        endcase
        case (r_adr[2:0])
            3'd0: grp_q[1] <= {adv_hi_q, adv_lo_q}; 3'd1: grp_q[1] <= arm_lo_q;
            3'd2: grp_q[1] <= {16'd0, arm_hi_q};    3'd3: grp_q[1] <= 32'd0;
            3'd4: grp_q[1] <= evt_info_q;           3'd5: grp_q[1] <= evt_tick_q;
            3'd6: grp_q[1] <= cnt_events_q;         default: grp_q[1] <= cnt_late_q;
        endcase
        case (r_adr[2:0])
            3'd0: grp_q[2] <= cnt_overflow_q;       3'd1: grp_q[2] <= cnt_cmds_q;
            3'd2: grp_q[2] <= cnt_buserr_q;         3'd3: grp_q[2] <= search_q;
            3'd4: grp_q[2] <= scan_next[31:0];
            3'd5: grp_q[2] <= {scan_valid, scan_found, 14'd0, scan_next[47:32]};
            default: grp_q[2] <= 32'd0;
        endcase
        // Stage 2: the group.
        o_wb_ack <= rd1_q || (!i_rst && (w_ctrl || w_presc || w_status || w_adv || w_arm_lo
                                         || w_arm_hi || w_cmd || w_search || w_bad));
        o_wb_dat <= !rd1_q ? 32'd0 : rd1_grp_q == 3'd0 ? grp_q[0] : rd1_grp_q == 3'd1 ? grp_q[1]
                  : rd1_grp_q == 3'd2 ? grp_q[2] : 32'd0;
        o_irq    <= ctrl_irq_en_q && !empty_q;
    end
endmodule

// The prototype on a device with few pins: the bus request comes from a
// shift register fed by one pin (so it is arbitrary and nothing folds
// away), and the read data, ack, IRQ and the search ports' parity leave
// through one registered parity pin.
// One top on pins per measurement: tickpath.sh names the one it builds.
/* verilator lint_off MULTITOP */
module tickpath_top #(
    parameter integer WITH_SCAN = 0,
    parameter integer WITH_JUMP = 0
) (
    input  wire i_clk,
    input  wire i_rst,
    input  wire i_bit,
    input  wire i_ext_tick,
    output reg  o_parity
);
    reg [40:0] sh_q = 0;
    reg        rst_q = 1'b1;
    always @(posedge i_clk) begin
        sh_q  <= {sh_q[39:0], i_bit};
        rst_q <= i_rst;
    end
    wire        ack, irq, sp;
    wire [31:0] dat;
    tickpath #(.WITH_SCAN(WITH_SCAN), .WITH_JUMP(WITH_JUMP)) u_tp (
        .i_clk(i_clk), .i_rst(rst_q),
        .i_wb_cyc(sh_q[40]), .i_wb_stb(sh_q[39]), .i_wb_we(sh_q[38]), .i_wb_adr(sh_q[37:32]),
        .i_wb_dat(sh_q[31:0]), .o_wb_ack(ack), .o_wb_dat(dat),
        .i_ext_tick(i_ext_tick), .o_irq(irq), .o_search_parity(sp)
    );
    reg [7:0] par_q;
    integer i;
    always @(posedge i_clk) begin
        for (i = 0; i < 8; i = i + 1) par_q[i] <= ^dat[i*4 +: 4];
        o_parity <= ^{par_q, ack, irq, sp};
    end
endmodule
/* verilator lint_on MULTITOP */
`default_nettype wire

`default_nettype none
// tp_bitmap: rtl/tw_bitmap.v with its visit port pipelined. The same block
// RAM words, written-word flags and same-clock bypass, but the visit read
// takes two more clocks: the word leaving block RAM is registered (one LUT
// a bit after the RAM: the written-word flag), and the slot's bit, or the
// bit written in the address's clock, is picked from that register and
// registered again.
// o_visit_bit is thus the bitmap as it stood after the address's clock,
// two clocks later than tw_bitmap gives it. The search port is tw_bitmap's.
module tp_bitmap (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_clear_all,
    input  wire        i_wr,
    input  wire [7:0]  i_wr_slot,
    input  wire        i_wr_val,
    input  wire [7:0]  i_visit_slot,
    output reg         o_visit_bit,
    input  wire [3:0]  i_search_word,
    output wire [15:0] o_search_word
);
    wire [3:0] wr_word  = i_wr_slot[7:4];
    wire [3:0] wr_bit   = i_wr_slot[3:0];
    wire [3:0] vis_word = i_visit_slot[7:4];

    reg [15:0] mem_visit  [0:15];
    reg [15:0] mem_search [0:15];
    reg [15:0] written_q;
    wire       do_wr     = i_wr && !i_rst && !i_clear_all;
    wire       word_seen = written_q[wr_word];

    function [15:0] written_word;
        input [15:0] old;
        input        seen;
        input [3:0]  bit_ix;
        input        val;
        integer i;
        reg hit, mask, data;
        for (i = 0; i < 16; i = i + 1) begin
            hit  = i[3:0] == bit_ix;
            mask = seen ? hit : 1'b1;
            data = val ? hit : 1'b0;
            written_word[i] = mask ? data : old[i];
        end
    endfunction
    always @(posedge i_clk)
        if (do_wr) begin
            mem_visit[wr_word]  <= written_word(mem_visit[wr_word], word_seen, wr_bit, i_wr_val);
            mem_search[wr_word] <= written_word(mem_search[wr_word], word_seen, wr_bit, i_wr_val);
        end

    reg [15:0] visit_raw_q, search_raw_q;
    reg        visit_seen_q, search_seen_q, search_byp_q;
    reg [3:0]  visit_bit_q;            // the slot's bit in its word
    reg        visit_byp_q;            // this clock's write is to the slot visited
    reg [3:0]  byp_bit_q;
    reg        byp_val_q;
    always @(posedge i_clk) begin
        visit_raw_q   <= mem_visit[vis_word];
        search_raw_q  <= mem_search[i_search_word];
        visit_bit_q   <= i_visit_slot[3:0];
        visit_seen_q  <= written_q[vis_word] && !i_clear_all && !i_rst;
        search_seen_q <= written_q[i_search_word] && !i_clear_all && !i_rst;
        visit_byp_q   <= do_wr && i_wr_slot == i_visit_slot;
        search_byp_q  <= do_wr && wr_word == i_search_word;
        byp_bit_q     <= wr_bit;
        byp_val_q     <= i_wr_val;
        if (i_rst || i_clear_all)
            written_q <= 0;
        else if (do_wr)
            written_q[wr_word] <= 1'b1;
    end

    // Visit: the word registered as it leaves the RAM, then the slot's bit
    // (or the bit written in the address's clock).
    reg [15:0] visit_word_q;
    reg [3:0]  visit_bit2_q;
    reg        visit_byp2_q, visit_val2_q;
    always @(posedge i_clk) begin
        visit_word_q <= visit_seen_q ? visit_raw_q : 16'd0;
        visit_bit2_q <= visit_bit_q;
        visit_byp2_q <= visit_byp_q;
        visit_val2_q <= byp_val_q;
        o_visit_bit  <= visit_byp2_q ? visit_val2_q : visit_word_q[visit_bit2_q];
    end

    wire [15:0] byp_onehot = 16'd1 << byp_bit_q;
    wire [15:0] search_old = search_seen_q ? search_raw_q : 16'd0;
    assign o_search_word = !search_byp_q ? search_old
                         : byp_val_q ? search_old | byp_onehot : search_old & ~byp_onehot;
endmodule
`default_nettype wire

`default_nettype none
// tp_evfifo: rtl/tw_evfifo.v with its full and empty flags registered
// beside the count, so that the push/pop decision starts from flops.
module tp_evfifo #(
    parameter integer WIDTH = 8,
    parameter integer DEPTH_LOG2 = 4
) (
    input  wire                  i_clk,
    input  wire                  i_rst,
    input  wire                  i_push,
    input  wire [WIDTH-1:0]      i_data,
    output wire                  o_push_ok,
    input  wire                  i_pop,
    output wire [WIDTH-1:0]      o_head,
    output wire [DEPTH_LOG2:0]   o_count,
    output reg                   o_full,
    output reg                   o_empty
);
    localparam integer DEPTH = 1 << DEPTH_LOG2;
    reg [WIDTH-1:0]      mem_q [0:DEPTH-1];
    reg [DEPTH_LOG2-1:0] rd_ptr_q, wr_ptr_q;
    reg [DEPTH_LOG2:0]   count_q;
    assign o_count = count_q;
    assign o_head  = mem_q[rd_ptr_q];
    wire do_pop  = i_pop && !o_empty;
    assign o_push_ok = !o_full || do_pop;
    wire do_push = i_push && o_push_ok;
    always @(posedge i_clk)
        if (do_push)
            mem_q[wr_ptr_q] <= i_data;
    always @(posedge i_clk)
        if (i_rst) begin
            rd_ptr_q <= 0; wr_ptr_q <= 0; count_q <= 0; o_full <= 1'b0; o_empty <= 1'b1;
        end else begin
            if (do_push) wr_ptr_q <= wr_ptr_q + 1'b1;
            if (do_pop)  rd_ptr_q <= rd_ptr_q + 1'b1;
            case ({do_push, do_pop})
                2'b10: begin
                    count_q <= count_q + 1'b1;
                    o_full  <= count_q == DEPTH[DEPTH_LOG2:0] - 1'b1;
                    o_empty <= 1'b0;
                end
                2'b01: begin
                    count_q <= count_q - 1'b1;
                    o_full  <= 1'b0;
                    o_empty <= count_q == 1;
                end
                default: ;
            endcase
        end
endmodule
`default_nettype wire
/* verilator lint_on DECLFILENAME */
