`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for rtl/tw_core.v, the pipelined core, against
// docs/chip.md ("Bus and timing contract").
//
//   iverilog -g2005 -Irtl -Ptb_tw_core.LEVELS=4 -Ptb_tw_core.SLOT_BITS=8 -Ptb_tw_core.FIFO_LOG2=4 \
//            -o tb tests/rtl/tb_tw_core.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v
//   vvp tb [+seed=N] [+ops=N] [+trace] [+nomodel]
//
//   +seed=N  seed of the random parts (printed at start; default 1)
//   +ops=N   operations in the random section (default 1100)
//   +trace   log every bus access with the model's state
//   +nomodel the directed sections' own checks only (no per-cycle model checks)
// SLOT_BITS must be >= 4 (the directed sections use slots up to 7).
//
// Two kinds of checks run side by side:
//  * a per-cycle reference model of the chip (section "reference model"),
//    written from the contract's stages: the access (R, B0 and its holds, B1,
//    B2, B3), the step decision D (prescaler, external input, ADVANCE with
//    its remainder, the FIFO's room margin, HOLD, VHOLD's one tick in
//    flight), the counter's stages C1, C2, P, V, the visit and the entry
//    through H1, H2, G, E, the search's start and its length by tw_search's
//    formula, NEXT's stages N1..N3, the jump's states, the read-out of the
//    FIFO's head, coalescing and the IRQ flop, the counters. Every read is
//    compared with the model's value in B1; ack, irq, the bus's tick (tick_p),
//    STATUS.SEARCHING and FIFO_COUNT are compared every cycle;
//  * directed sections compute their own expected values from the register
//    documentation (rtl/tw_regs.toml) and docs/chip.md: among them NEXT
//    against a brute force over the bitmap, search restarts and the length of
//    each search against tw_search's formula and its bound, skip-ahead and the
//    jump over random sparse bitmaps (every event at its tick, clocks bounded
//    by visits), coalescing (THRESH, HOLDOFF, HOLD, IRQ_EN), the late SET at
//    the boundary and in every phase of a tick, VHOLD's exact stop.
// Two guarantees of docs/chip.md are also watched on the DUT in every clock:
// virtual time never drops a visit's entry, and a late SET is dropped only if
// the FIFO was full already.
// The random section drives random traffic and relies on the model.
//
// Bus protocol (task access), as sim/tw_vl.cpp: cyc=stb=1 from a falling edge
// until ack is seen (at most ACK_WAIT clocks), then one clock with cyc=stb=0;
// so the request is in clock R from the falling edge it is set at, and the
// next access's R is B4 of this one. "Clock c" is the interval after rising
// edge c (m_cyc counts them).
//
// White-box: tests that need ticks above 2^32 or far-away level visits jump
// the counter (poke_now) while time stands still and nothing is in flight:
// the counter's flops (lo_q, lo_d_q, hi_q, tick_v) and the model's tick, and a
// new search is started (dut.srch_start_q, dut.srch_base_q). The per-cycle
// checks read dut.tick_p, dut.searching_q, dut.fifo_count.
module tb_tw_core;
    parameter integer LEVELS    = 4;
    parameter integer SLOT_BITS = 8;
    parameter integer FIFO_LOG2 = 4;

`include "tw_regs.vh"

    localparam integer SLOTS = 1 << SLOT_BITS;
    localparam integer DEPTH = 1 << FIFO_LOG2;
    localparam integer B     = SLOT_BITS;
    localparam [3:0] OP_SET = 4'd1, OP_CLEAR = 4'd2, OP_CLEAR_ALL = 4'd3;
    localparam integer ACK_WAIT = 64;             // sim/tw_vl.cpp's bound

    // ------------------------------------------------------------------ DUT
    reg         clk = 1'b0;
    reg         rst = 1'b1;
    reg         cyc = 1'b0, stb = 1'b0, we = 1'b0;
    reg  [5:0]  adr = 6'd0;
    reg  [31:0] wdat = 32'd0;
    reg         ext = 1'b0;
    wire        ack, stall, irq;
    wire [31:0] rdat;

    tw_core #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS), .FIFO_LOG2(FIFO_LOG2)) dut (
        .i_clk(clk), .i_rst(rst),
        .i_wb_cyc(cyc), .i_wb_stb(stb), .i_wb_we(we), .i_wb_adr(adr), .i_wb_dat(wdat),
        .o_wb_ack(ack), .o_wb_stall(stall), .o_wb_dat(rdat),
        .i_ext_tick(ext), .o_irq(irq)
    );

    always #5 clk = ~clk;
    integer m_cyc = 0;                            // rising edges so far (the model counts them)

    // --------------------------------------------------------------- errors
    // Every error counts; the first 8 of each section are shown (100 in all),
    // so one broken feature does not hide the next section's findings.
    integer errors = 0;
    reg [8*40-1:0] section = "init";
    reg [8*40-1:0] err_section = "";
    integer sec_errs = 0, shown_errs = 0;
    reg err_show;

    task count_err;
        begin
            errors = errors + 1;
            if (section != err_section) begin err_section = section; sec_errs = 0; end
            sec_errs = sec_errs + 1;
            err_show = sec_errs <= 8 && shown_errs < 100;
            if (err_show) shown_errs = shown_errs + 1;
            else if (sec_errs == 9 && shown_errs < 100)
                $display("ERROR [%0s] ... further errors in this section not shown", section);
        end
    endtask

    task err;
        input [8*72-1:0] what;
        input [63:0] got, exp;
        begin
            count_err;
            if (err_show)
                $display("ERROR [%0s] cyc=%0d %0s: got 0x%0h expected 0x%0h", section, m_cyc, what, got, exp);
        end
    endtask

    task msg_err;
        input [8*100-1:0] what;
        begin
            count_err;
            if (err_show)
                $display("ERROR [%0s] cyc=%0d %0s", section, m_cyc, what);
        end
    endtask

    // same, naming a register: "<pre> <REG><post>"
    task err_reg;
        input [8*24-1:0] pre;
        input [5:0] a;
        input [8*24-1:0] post;
        input [63:0] got, exp;
        begin
            count_err;
            if (err_show)
                $display("ERROR [%0s] cyc=%0d %0s %0s%0s: got 0x%0h expected 0x%0h", section, m_cyc, pre, reg_name(a), post, got, exp);
        end
    endtask

    task check;
        input [8*72-1:0] what;
        input [63:0] got, exp;
        begin
            if (got !== exp) err(what, got, exp);
        end
    endtask

    function [8*12-1:0] reg_name;
        input [5:0] a;
        begin
            case (a)
                TW_REG_ID:           reg_name = "ID";
                TW_REG_VERSION:      reg_name = "VERSION";
                TW_REG_CAPS:         reg_name = "CAPS";
                TW_REG_CTRL:         reg_name = "CTRL";
                TW_REG_PRESCALE:     reg_name = "PRESCALE";
                TW_REG_STATUS:       reg_name = "STATUS";
                TW_REG_NOW_LO:       reg_name = "NOW_LO";
                TW_REG_NOW_HI:       reg_name = "NOW_HI";
                TW_REG_ADVANCE:      reg_name = "ADVANCE";
                TW_REG_ARM_LO:       reg_name = "ARM_LO";
                TW_REG_ARM_HI:       reg_name = "ARM_HI";
                TW_REG_CMD:          reg_name = "CMD";
                TW_REG_EVT_INFO:     reg_name = "EVT_INFO";
                TW_REG_EVT_TICK:     reg_name = "EVT_TICK";
                TW_REG_CNT_EVENTS:   reg_name = "CNT_EVENTS";
                TW_REG_CNT_LATE:     reg_name = "CNT_LATE";
                TW_REG_CNT_OVERFLOW: reg_name = "CNT_OVERFLOW";
                TW_REG_CNT_CMDS:     reg_name = "CNT_CMDS";
                TW_REG_CNT_BUSERR:   reg_name = "CNT_BUSERR";
                TW_REG_SEARCH:       reg_name = "SEARCH";
                TW_REG_NEXT_LO:      reg_name = "NEXT_LO";
                TW_REG_NEXT_HI:      reg_name = "NEXT_HI";
                TW_REG_COALESCE:     reg_name = "COALESCE";
                default:             reg_name = "unmapped";
            endcase
        end
    endfunction


    // ======================================================= reference model
    // One step per rising edge: every value of clock c is computed from the
    // model's state in c and the bus inputs of c, then the state of c+1 is
    // stored. Names follow docs/chip.md's stages.
    localparam integer SW       = (SLOTS < 16) ? SLOTS : 16;     // slots a search word
    localparam integer NW       = SLOTS / SW;                    // words a level
    localparam integer SRCH_MAX = 12 + LEVELS * (NW + 1);        // tw_search's bound (clocks)

    // control registers
    reg [1:0]  m_src;
    reg        m_irqen, m_vhold;
    reg [31:0] m_presc, m_arm_lo, m_horizon;
    reg [15:0] m_arm_hi, m_thresh, m_holdoff, m_nowhi, m_nexthi;
    // bus: R/B0 request flops, B1, B2, ack; the read value sampled in B1
    reg        m_pend, m_reqv, m_rwe, m_b1, m_b2, m_ack;
    reg [5:0]  m_radr;
    reg [31:0] m_rdat, m_rd2, m_rd3;
    reg        m_isrd2, m_isrd3;
    integer    m_b1_at = 0, m_b2_at = 0;           // clock of the last B1, B2
    integer    m_adv_st;                           // 1..5: an ADVANCE write in B2..B6
    reg [31:0] m_adv_add;
    integer    m_cmd_st;                           // 1..7: a CMD write in B1..B7
    // time: m_steps[i] is the step decided in clock c-1-i (C1 = 0, C2 = 1,
    // P = 2, V = 3, H1 = 4, H2 = 5, G = 6, E = 7)
    reg [9:0]  m_steps;
    reg [47:0] m_tick_p, m_tick_v;
    reg [3:0]  m_visit_v;
    reg [31:0] m_raw;                              // ADVANCE's remainder, the decision's decrement a clock late
    reg        m_pendd, m_nz;                      // a decrement pending; "left != 0" a clock ahead
    reg [31:0] m_pc;
    reg        m_reload, m_ptick;
    reg [2:0]  m_ext;
    reg        m_room;
    integer    m_fly;                              // ticks and CMDs in flight, for the room
    reg        m_hold, m_ovf, m_cmderr;
    reg [SLOTS-1:0] m_bv [0:LEVELS-1];             // busy bits
    // entries between V and E: me_vv[i] says one is in H1 (0) .. E (3); the
    // data of the entry formed in clock c waits at index c mod 4, which E
    // reads four clocks later just before the next V writes it
    reg [3:0]  me_vv;
    reg [47:0] me_tick [0:3];
    reg [3:0]  me_mask [0:3];
    reg        me_late [0:3];
    reg [1:0]  me_lvl  [0:3];
    reg [11:0] me_slot [0:3];
    // FIFO
    reg [47:0] mq_tick [0:DEPTH-1];
    reg [3:0]  mq_mask [0:DEPTH-1];
    reg        mq_late [0:DEPTH-1];
    reg [1:0]  mq_lvl  [0:DEPTH-1];
    reg [11:0] mq_slot [0:DEPTH-1];
    integer    mq_rd, mq_n;
    // read-out: the head a clock late, the selected event, EVT_INFO
    reg [47:0] mh_tick;
    reg [3:0]  mh_mask;
    reg        mh_late;
    reg [1:0]  mh_lvl;
    reg [11:0] mh_slot;
    reg        m_empty1, m_sel_late, m_sel_last, m_sel_empty, m_cons_late, m_popf;
    reg [1:0]  m_sel_lvl;
    reg [3:0]  m_sel_bit, m_cons_mask;
    reg [31:0] m_evt_info;
    // search and NEXT
    reg        m_s_start, m_s_valid, m_s_found, m_s_run, m_s_pfound;
    reg [47:0] m_s_base, m_s_next, m_s_pnext;
    integer    m_s_left, m_s_len;
    reg [47:0] m_n1_gap, m_n1_end, m_n2_gap, m_n2_end, m_next;
    reg        m_n1_v, m_n1_f, m_n2_v, m_n2_f, m_n2_within, m_searching;
    // jump
    reg        m_jfar, m_jadvfar, m_jgo, m_jab, m_jseen, m_jbad, m_jbig, m_jless;
    integer    m_jclk, m_jcool;
    reg [31:0] m_jamt;
    // coalescing and the line
    reg [15:0] m_age;
    reg        m_age_due, m_thr_due, m_room_due, m_irq;
    reg [31:0] m_cnt_ev, m_cnt_late, m_cnt_ovf, m_cnt_cmds, m_cnt_buserr;
    // statistics (coverage of the run)
    integer st_late = 0, st_visit_ev = 0, st_drop = 0, st_multi = 0, st_jumps = 0, st_jab = 0;
    integer st_srch_n = 0, st_srch_max = 0, st_restart = 0, st_roomwait = 0, st_holdwait = 0;
    reg [63:0] st_jump_ticks = 0;

    // index of the lowest 1 of v, -1 if none (vector halving: fast in vvp)
    function integer lowest_one;
        input [SLOTS-1:0] v;
        reg [SLOTS-1:0] x;
        integer w, pos;
        begin
            lowest_one = -1;
            if (v != 0) begin
                x = v; pos = 0;
                for (w = SLOTS / 2; w >= 1; w = w / 2)
                    if ((x & ({SLOTS{1'b1}} >> (SLOTS - w))) == 0) begin
                        x = x >> w;
                        pos = pos + w;
                    end
                lowest_one = pos;
            end
        end
    endfunction

    // offset (1..SLOTS) from the pointer of t at level k of the first busy
    // slot of the model's bitmap in circular order p+1 .. p, 0 if none
    function integer m_first_off;
        input integer k;
        input [47:0] t;
        reg [SLOTS-1:0] v, rot;
        integer q;
        begin
            v = m_bv[k];
            q = ((t >> (k * B)) + 1) % SLOTS;
            rot = (q == 0) ? v : ((v >> q) | (v << (SLOTS - q)));
            m_first_off = lowest_one(rot) + 1;
        end
    endfunction

    // A search from base t on the model's bitmap: its answer and its length
    // by tw_search's formula, T = 12 + sum_k min(h_k + 5, NW + 1).
    reg        ms_found;
    reg [47:0] ms_next;
    integer    ms_len;
    task m_search;
        input [47:0] t;
        integer k, o, q, h, ck;
        reg [47:0] d, best;
        begin
            ms_found = 1'b0; best = 0; ms_len = 12;
            for (k = 0; k < LEVELS; k = k + 1) begin
                o = m_first_off(k, t);
                q = ((t >> (k * B)) + 1) % SLOTS;
                if (o == 0) ck = NW + 1;
                else begin
                    h = ((q % SW) + o - 1) / SW;
                    ck = (h + 5 < NW + 1) ? h + 5 : NW + 1;
                    d = o;
                    d = (d << (k * B)) - (t & ((48'd1 << (k * B)) - 48'd1));
                    if (!ms_found || d < best) best = d;
                    ms_found = 1'b1;
                end
                ms_len = ms_len + ck;
            end
            ms_next = ms_found ? t + best : 48'd0;
        end
    endtask

    // register value read in B1 and whether the access is allowed
    reg [31:0] mr_val;
    reg        mr_ok;
    task m_regread;
        input [5:0] a;
        input       w;
        input       advancing;
        begin
            mr_val = 0; mr_ok = 1'b1;
            case (a)
                TW_REG_ID:       begin mr_val = TW_ID_MAGIC; mr_ok = !w; end
                TW_REG_VERSION:  begin mr_val = {TW_VERSION_MAJOR, TW_VERSION_MINOR}; mr_ok = !w; end
                TW_REG_CAPS:     begin mr_val = LEVELS | (SLOT_BITS << 4) | (FIFO_LOG2 << 8) | (48 << 16); mr_ok = !w; end
                TW_REG_CTRL:     mr_val = {28'd0, m_vhold, m_irqen, m_src};
                TW_REG_PRESCALE: mr_val = m_presc;
                TW_REG_STATUS:   mr_val = m_ovf | (m_hold << 1) | (m_cmderr << 2) | (advancing << 3)
                                          | (m_irq << 4) | (m_searching << 5) | (mq_n << 16);
                TW_REG_NOW_LO:   begin mr_val = m_tick_p[31:0]; mr_ok = !w; end
                TW_REG_NOW_HI:   begin mr_val = {16'd0, m_nowhi}; mr_ok = !w; end
                TW_REG_ADVANCE:  mr_val = m_raw;
                TW_REG_ARM_LO:   mr_val = m_arm_lo;
                TW_REG_ARM_HI:   mr_val = {16'd0, m_arm_hi};
                TW_REG_CMD:      mr_ok = w;
                TW_REG_EVT_INFO: begin mr_val = m_evt_info; mr_ok = !w; end
                TW_REG_EVT_TICK: begin mr_val = m_empty1 ? 32'd0 : mh_tick[31:0]; mr_ok = !w; end
                TW_REG_CNT_EVENTS:   begin mr_val = m_cnt_ev;     mr_ok = !w; end
                TW_REG_CNT_LATE:     begin mr_val = m_cnt_late;   mr_ok = !w; end
                TW_REG_CNT_OVERFLOW: begin mr_val = m_cnt_ovf;    mr_ok = !w; end
                TW_REG_CNT_CMDS:     begin mr_val = m_cnt_cmds;   mr_ok = !w; end
                TW_REG_CNT_BUSERR:   begin mr_val = m_cnt_buserr; mr_ok = !w; end
                TW_REG_SEARCH:       mr_val = m_horizon;
                TW_REG_NEXT_LO:      begin mr_val = m_next[31:0]; mr_ok = !w; end
                TW_REG_NEXT_HI:      begin mr_val = {16'd0, m_nexthi}; mr_ok = !w; end
                TW_REG_COALESCE:     mr_val = {m_thresh, m_holdoff};
                default: begin mr_val = 0; mr_ok = 1'b0; end
            endcase
            if (!w && !mr_ok) mr_val = 0;
        end
    endtask

    // The model's state is in flops written with <=: every right-hand side
    // is the value of clock c.
    always @(posedge clk) begin : model
        reg capture, rq_cmd, jbusy, advbusy, wadv, bushold, tfly, vmode, dec, advrd, step_host, step_d;
        reg presc_hit, advancing, rd1, wr1, cmdv, cset, cclr, call, cbad, tok, reached, seen, late;
        reg pop_now, push, push_ok, full, s_passed, n2_ok, start_d, jstart, jlo, jcarry, jhi, jlast, jabort;
        reg rem_late, clr_ovf, clr_hold, clr_err;
        reg [3:0] hit, rem_mask, vis_bit, op;
        reg [1:0] vis_lvl, clvl;
        reg [15:0] cslot;
        reg [47:0] a48, tpn;
        reg [32:0] sum, left;
        reg [11:0] slot12;
        reg [16:0] agesum;
        integer k, nev, wi, nn, ei;
        m_cyc = m_cyc + 1;
        if (rst) begin
            m_src <= 0; m_irqen <= 0; m_vhold <= 0; m_presc <= 0; m_arm_lo <= 0; m_arm_hi <= 0;
            m_horizon <= 32'hFFFF_FFFF; m_thresh <= 0; m_holdoff <= 0; m_nowhi <= 0; m_nexthi <= 0;
            m_pend <= 0; m_reqv <= 0; m_rwe <= 0; m_radr <= 0; m_rdat <= 0; m_b1 <= 0; m_b2 <= 0; m_ack <= 0;
            m_rd2 <= 0; m_rd3 <= 0; m_isrd2 <= 0; m_isrd3 <= 0; m_adv_st <= 0; m_adv_add <= 0; m_cmd_st <= 0;
            m_steps <= 0; m_tick_p <= 0; m_tick_v <= 0; m_visit_v <= 0; m_raw <= 0; m_pendd <= 0; m_nz <= 0;
            m_pc <= 0; m_reload <= 1; m_ptick <= 0; m_ext <= 0; m_room <= 1; m_fly <= 0;
            m_hold <= 0; m_ovf <= 0; m_cmderr <= 0;
            for (k = 0; k < LEVELS; k = k + 1) m_bv[k] <= 0;
            me_vv <= 0;
            mq_rd <= 0; mq_n <= 0;
            mh_tick <= 0; mh_mask <= 0; mh_late <= 0; mh_lvl <= 0; mh_slot <= 0;
            m_empty1 <= 1; m_sel_late <= 0; m_sel_last <= 0; m_sel_empty <= 1; m_cons_late <= 0; m_popf <= 0;
            m_sel_lvl <= 0; m_sel_bit <= 0; m_cons_mask <= 0; m_evt_info <= 0;
            m_s_start <= 1; m_s_valid <= 0; m_s_found <= 0; m_s_run <= 0; m_s_base <= 0; m_s_next <= 0;
            m_s_left <= 0; m_s_len <= 0; m_s_pfound <= 0; m_s_pnext <= 0;
            m_n1_v <= 0; m_n2_v <= 0; m_searching <= 1; m_next <= 0;
            m_n1_gap <= 0; m_n1_end <= 0; m_n2_gap <= 0; m_n2_end <= 0; m_n1_f <= 0; m_n2_f <= 0; m_n2_within <= 0;
            m_jfar <= 0; m_jadvfar <= 0; m_jgo <= 0; m_jab <= 0; m_jseen <= 0; m_jbad <= 0; m_jbig <= 0; m_jless <= 0;
            m_jclk <= 0; m_jcool <= 0; m_jamt <= 0;
            m_age <= 0; m_age_due <= 1; m_thr_due <= 1; m_room_due <= 0; m_irq <= 0;
            m_cnt_ev <= 0; m_cnt_late <= 0; m_cnt_ovf <= 0; m_cnt_cmds <= 0; m_cnt_buserr <= 0;
        end else begin
            // ------------------------------------------------ clock c: R, B0
            capture = !m_pend && cyc && stb && !m_ack;
            rq_cmd  = m_rwe && m_radr == TW_REG_CMD;
            jbusy   = m_jclk != 0;
            advbusy = m_adv_st != 0;
            wadv    = m_b1 && m_rwe && m_radr == TW_REG_ADVANCE;
            bushold = jbusy || advbusy || wadv || (m_cmd_st >= 1 && m_cmd_st <= 6);
            tfly    = m_steps[8:0] != 0;             // a tick in C1 .. E, or in E a clock ago
            vmode   = m_src == 2'd0 && m_vhold;
            dec     = m_reqv && !bushold && !(rq_cmd && vmode && tfly);
            advrd   = m_reqv && !m_rwe && m_radr == TW_REG_ADVANCE;
            // ------------------------------------------------ D
            step_host = m_src == 2'd0 && m_nz && m_room && !m_hold && !jbusy && !advbusy && !advrd
                        && !(m_vhold && (tfly || (m_reqv && rq_cmd) || (m_cmd_st >= 1 && m_cmd_st <= 7)));
            if (m_src == 2'd0 && m_nz && !m_room && !jbusy && !advbusy) st_roomwait = st_roomwait + 1;
            if (m_src == 2'd0 && m_nz && m_hold) st_holdwait = st_holdwait + 1;
            presc_hit = (m_pc == 32'd1 && !m_reload) || m_presc == 32'd0;
            step_d = step_host || (m_src == 2'd1 && m_ptick) || (m_src == 2'd2 && m_ext[1] && !m_ext[2]);
            advancing = m_nz || advbusy || m_steps[8:0] != 0 || jbusy;
            // ------------------------------------------------ B1, B2 (V of a CMD)
            rd1 = m_b1 && !m_rwe;
            wr1 = m_b1 && m_rwe;
            mr_val = 0; mr_ok = 1'b1;
            if (m_b1) m_regread(m_radr, m_rwe, advancing);
            cmdv  = m_cmd_st == 2;
            op    = m_rdat[31:28];
            clvl  = m_rdat[17:16];
            cslot = m_rdat[15:0];
            tok   = m_rdat[19:16] < LEVELS && cslot < SLOTS;
            cset  = cmdv && op == OP_SET && tok;
            cclr  = cmdv && op == OP_CLEAR && tok;
            call  = cmdv && op == OP_CLEAR_ALL;
            cbad  = cmdv && !(cset || cclr || call);
            // ------------------------------------------------ V: visits see this clock's command
            hit = 0;
            if (m_visit_v != 0) for (k = 0; k < LEVELS; k = k + 1)
                if (m_visit_v[k]) begin
                    if (call) hit[k] = 1'b0;
                    else if ((cset || cclr) && clvl == k && cslot == ((m_tick_v >> (k * B)) & (SLOTS - 1)))
                        hit[k] = cset;
                    else hit[k] = m_bv[k][(m_tick_v >> (k * B)) & (SLOTS - 1)];
                end
            a48     = m_tick_v - {m_arm_hi, m_arm_lo};
            reached = !a48[47];
            seen    = cset && m_visit_v[clvl] && ((m_tick_v >> (clvl * B)) & (SLOTS - 1)) == cslot;
            late    = cset && reached && !seen;
            // ------------------------------------------------ E: the push
            ei      = (m_cyc - 1) % 4;                 // the entry in E (formed in V, c - 4)
            full    = mq_n == DEPTH;
            pop_now = m_popf && mq_n > 0;
            push    = me_vv[3];
            push_ok = !full || pop_now;
            nev = 0;
            if (push) begin
                nev = me_late[ei];
                for (k = 0; k < LEVELS; k = k + 1) nev = nev + me_mask[ei][k];
            end
            // ------------------------------------------------ N2 / search
            s_passed = m_n2_v && m_n2_f && m_n2_gap[47] && m_s_valid && !m_s_start;
            n2_ok    = m_n2_v && m_s_valid && (!m_n2_f || !m_n2_gap[47]);
            start_d  = cset || cclr || call || s_passed;
            // ------------------------------------------------ the jump
            jstart = m_jgo && !jbusy && !m_pend && !advbusy && !wadv && !m_hold;
            jlo    = !m_jab && m_jclk == 10;
            jcarry = !m_jab && m_jclk == 11;
            jhi    = !m_jab && m_jclk == 12;
            jlast  = m_jab ? m_jclk == 11 : m_jclk == 15;
            jabort = m_jseen || !m_s_valid || !m_n2_v || m_src != 2'd0 || m_jbad;
            // ------------------------------------------------ read-out selection
            rem_late = mh_late && !m_cons_late;
            rem_mask = mh_mask & ~m_cons_mask;
            vis_lvl = 0; vis_bit = 0;
            for (k = LEVELS - 1; k >= 0; k = k - 1)
                if (rem_mask[k]) begin vis_lvl = k; vis_bit = 4'b0001 << k; end
            slot12 = m_sel_late ? mh_slot : ((mh_tick >> (m_sel_lvl * B)) & (SLOTS - 1));

            // ================================================ state of c+1
            // bus
            m_ack <= m_b2;
            m_rd3 <= m_rd2; m_isrd3 <= m_isrd2;
            m_rd2 <= mr_val; m_isrd2 <= rd1;
            if (m_b1) m_b1_at <= m_cyc - 1;
            if (m_b2) m_b2_at <= m_cyc - 1;
            m_b2 <= m_b1;
            m_b1 <= dec;
            if (capture) begin
                m_pend <= 1; m_reqv <= 1; m_rwe <= we; m_radr <= adr; m_rdat <= wdat;
            end else begin
                if (dec) m_reqv <= 0;
                if (m_b2) m_pend <= 0;
            end
            // writes (B1)
            if (wr1) case (m_radr)
                TW_REG_CTRL:     begin m_src <= m_rdat[1:0]; m_irqen <= m_rdat[2]; m_vhold <= m_rdat[3]; end
                TW_REG_PRESCALE: m_presc <= m_rdat;
                TW_REG_ARM_LO:   m_arm_lo <= m_rdat;
                TW_REG_ARM_HI:   m_arm_hi <= m_rdat[15:0];
                TW_REG_SEARCH:   m_horizon <= m_rdat;
                TW_REG_COALESCE: begin m_holdoff <= m_rdat[15:0]; m_thresh <= m_rdat[31:16]; end
                TW_REG_CMD:      m_cnt_cmds <= m_cnt_cmds + 1;
                default: ;
            endcase
            if ((m_b1 && !mr_ok) || cbad) m_cnt_buserr <= m_cnt_buserr + 1;
            if (rd1 && m_radr == TW_REG_NOW_LO)  m_nowhi  <= m_tick_p[47:32];
            if (rd1 && m_radr == TW_REG_NEXT_LO) m_nexthi <= m_next[47:32];
            if (dec && rq_cmd) m_cmd_st <= 1;
            else if (m_cmd_st != 0) m_cmd_st <= (m_cmd_st == 7) ? 0 : m_cmd_st + 1;
            // ADVANCE: the decision's decrement a clock late, a sum over B2..B6
            // (formed by the end of B5), a jump's amount from J_LO
            left = {1'b0, m_raw} - {32'd0, m_pendd};
            sum = left;
            if (m_adv_st == 4) begin
                sum = {1'b0, m_raw} + {1'b0, m_adv_add};
                if (sum[32]) sum = 33'h0_FFFF_FFFF;
            end
            if (jlo) sum = {1'b0, m_raw} - {1'b0, m_jamt};
            m_raw <= sum[31:0];
            m_nz <= step_host ? left >= 2 : left >= 1;
            m_pendd <= step_host;
            m_jadvfar <= m_vhold ? m_raw >= 2 : m_raw >= 32;
            if (wr1 && m_radr == TW_REG_ADVANCE) begin m_adv_st <= 1; m_adv_add <= m_rdat; end
            else if (m_adv_st != 0) m_adv_st <= (m_adv_st == 5) ? 0 : m_adv_st + 1;
            // prescaler, external input
            m_pc <= m_reload ? m_presc : m_pc - 1;
            m_ptick <= presc_hit && m_src == 2'd1;
            m_reload <= presc_hit || m_src != 2'd1;
            m_ext <= {m_ext[1:0], ext};
            // the FIFO's room from the count and the entries in flight
            m_room <= mq_n + m_fly + 4 <= DEPTH;
            m_fly <= m_fly + m_steps[0] + (wr1 && m_radr == TW_REG_CMD) - m_steps[7] - (m_cmd_st == 6);
            // counter: P takes the step in C2, a jump's low part in J_CARRY and
            // its high part in J_HI
            tpn = m_tick_p + m_steps[1];
            if (jcarry) tpn = tpn + {24'd0, m_jamt[23:0]};
            if (jhi) tpn = tpn + {16'd0, m_jamt[31:24], 24'd0};
            m_tick_p <= tpn;
            m_tick_v <= m_tick_p;
            if (m_steps[2] || m_visit_v != 0)
                for (k = 0; k < LEVELS; k = k + 1)
                    m_visit_v[k] <= m_steps[2] && (k == 0 || (m_tick_p & ((48'd1 << (k * B)) - 48'd1)) == 0);
            m_steps <= {m_steps[8:0], step_d};
            // the push at the end of E, the pop at the end of B2 of EVT_TICK
            if (push && push_ok) begin
                wi = (mq_rd + mq_n) % DEPTH;
                mq_tick[wi] <= me_tick[ei]; mq_mask[wi] <= me_mask[ei]; mq_late[wi] <= me_late[ei];
                mq_lvl[wi] <= me_lvl[ei]; mq_slot[wi] <= me_slot[ei];
                m_cnt_ev <= m_cnt_ev + nev;
                st_visit_ev = st_visit_ev + nev - me_late[ei];
                if (nev > 1) st_multi = st_multi + 1;
            end
            if (push && !push_ok) begin
                m_cnt_ovf <= m_cnt_ovf + nev;
                st_drop = st_drop + 1;
            end
            if (push && me_late[ei]) begin m_cnt_late <= m_cnt_late + 1; st_late = st_late + 1; end
            clr_ovf  = wr1 && m_radr == TW_REG_STATUS && m_rdat[0];
            clr_hold = wr1 && m_radr == TW_REG_STATUS && m_rdat[1];
            clr_err  = wr1 && m_radr == TW_REG_STATUS && m_rdat[2];
            if (push && !push_ok) m_ovf <= 1; else if (clr_ovf) m_ovf <= 0;
            if (push && push_ok && vmode) m_hold <= 1; else if (clr_hold) m_hold <= 0;
            if (cbad) m_cmderr <= 1; else if (clr_err) m_cmderr <= 0;
            nn = mq_n + ((push && push_ok) ? 1 : 0) - (pop_now ? 1 : 0);
            mq_n <= nn;
            if (pop_now) mq_rd <= (mq_rd + 1) % DEPTH;
            // the read-out: the head a clock late, the next event selected
            // from it, EVT_INFO from both
            m_evt_info <= m_sel_empty ? 32'd0
                        : {1'b1, m_sel_late, m_sel_late ? mh_lvl : m_sel_lvl, slot12, mh_tick[47:32]};
            m_sel_late <= rem_late; m_sel_lvl <= vis_lvl; m_sel_bit <= vis_bit;
            m_sel_last <= rem_late ? rem_mask == 0 : (rem_mask & ~vis_bit) == 0;
            m_sel_empty <= m_empty1;
            if (m_popf) begin m_cons_mask <= 0; m_cons_late <= 0; end
            else if (rd1 && m_radr == TW_REG_EVT_TICK && !m_sel_empty) begin
                if (m_sel_late) m_cons_late <= 1; else m_cons_mask <= m_cons_mask | m_sel_bit;
            end
            m_popf <= rd1 && m_radr == TW_REG_EVT_TICK && !m_sel_empty && m_sel_last;
            m_empty1 <= mq_n == 0;
            if (mq_n > 0) begin
                mh_tick <= mq_tick[mq_rd]; mh_mask <= mq_mask[mq_rd]; mh_late <= mq_late[mq_rd];
                mh_lvl <= mq_lvl[mq_rd]; mh_slot <= mq_slot[mq_rd];
            end
            // entries V -> H1 -> H2 -> G -> E
            me_vv <= {me_vv[2:0], hit != 0 || late};
            if (hit != 0 || late) begin
                me_tick[ei] <= m_tick_v; me_mask[ei] <= hit; me_late[ei] <= late;
                me_lvl[ei] <= clvl; me_slot[ei] <= cslot[11:0];
            end
            // the bitmap at the end of V
            if (call) for (k = 0; k < LEVELS; k = k + 1) m_bv[k] <= 0;
            else if (cset || cclr) m_bv[clvl][cslot] <= cset;
            // NEXT: N3 from N2, N2 from N1, N1 from the answer and tick_v
            m_searching <= !n2_ok;
            m_next <= !n2_ok ? 48'd0 : m_n2_within ? m_s_next : m_n2_end;
            m_n2_within <= m_n1_f && m_n1_gap[47:32] == 0 && m_n1_gap[31:0] < m_horizon;
            m_n2_gap <= m_n1_gap; m_n2_end <= m_n1_end; m_n2_f <= m_n1_f;
            m_n2_v <= m_n1_v && m_s_valid;
            m_n1_gap <= m_s_next - 48'd1 - m_tick_v;
            m_n1_end <= m_tick_v + {16'd0, m_horizon};
            m_n1_v <= m_s_valid && !m_s_start;
            m_n1_f <= m_s_found;
            // the search: started in the clock after a bitmap command's V or
            // after time passed its answer; valid T clocks after its start
            m_s_start <= start_d;
            if (start_d) m_s_base <= m_tick_v;
            if (m_s_start) begin
                m_search(m_s_base);
                m_s_valid <= 0; m_s_run <= 1; m_s_left <= ms_len - 1; m_s_len <= ms_len;
                m_s_pfound <= ms_found; m_s_pnext <= ms_next;
                if (m_s_run) st_restart = st_restart + 1;
            end else if (m_s_run) begin
                m_s_left <= m_s_left - 1;
                if (m_s_left == 1) begin
                    m_s_valid <= 1; m_s_run <= 0; m_s_found <= m_s_pfound; m_s_next <= m_s_pnext;
                    st_srch_n = st_srch_n + 1;
                    if (m_s_len > st_srch_max) st_srch_max = m_s_len;
                end
            end
            // the jump
            m_jfar <= m_n2_v && !m_n2_gap[47] && (m_vhold ? m_n2_gap[46:1] != 0 : m_n2_gap[46:5] != 0);
            m_jgo <= m_src == 2'd0 && m_nz && m_n2_v && m_s_valid && (m_jfar || !m_n2_f) && m_jadvfar
                     && !jbusy && m_jcool == 0 && !m_hold && !advbusy && !wadv;
            // a command's V or a search start from the jump's start clock on
            if (jstart) m_jseen <= cset || cclr || call || m_s_start;
            else if (cset || cclr || call || m_s_start) m_jseen <= 1;
            if (jstart) begin
                m_jclk <= 1; m_jab <= 0;
            end else if (jbusy) begin
                m_jclk <= jlast ? 0 : m_jclk + 1;
                if (m_jclk == 9 && jabort) begin m_jab <= 1; st_jab = st_jab + 1; end
            end
            if (jbusy && jlast) m_jcool <= 8;
            else if (m_jcool != 0 && !jbusy) m_jcool <= m_jcool - 1;
            if (m_jclk == 8) begin                   // J_CMP
                m_jbad  <= (m_n2_f && (m_n2_gap[47] || m_n2_gap == 0)) || m_raw == 0;
                m_jbig  <= !m_n2_f || m_n2_gap[47:32] != 0;
                m_jless <= m_n2_gap[31:0] < m_raw;
            end
            if (m_jclk == 9 && !jabort) begin        // J_SEL
                m_jamt <= (m_jbig || !m_jless) ? m_raw : m_n2_gap[31:0];
                st_jumps = st_jumps + 1;
                st_jump_ticks = st_jump_ticks + ((m_jbig || !m_jless) ? m_raw : m_n2_gap[31:0]);
            end
            // coalescing and the line
            agesum = {1'b0, m_age} + {1'b0, m_jamt[15:0]};
            if (mq_n == 0) m_age <= 0;
            else if (jlo) m_age <= (m_jamt[31:16] != 0 || agesum[16]) ? 16'hFFFF : agesum[15:0];
            else if (m_steps[3] && m_age != 16'hFFFF) m_age <= m_age + 1;
            m_age_due <= m_age >= m_holdoff;
            m_thr_due <= mq_n >= m_thresh;
            // virtual time waiting for the host to make room (chip.md)
            m_room_due <= m_src == 2'd0 && m_nz && !jbusy && !advbusy && mq_n + 4 > DEPTH;
            m_irq <= m_irqen && mq_n != 0 && (m_hold || mq_n == DEPTH || m_thr_due || m_age_due || m_room_due);
        end
    end

    // +trace: log every bus access with the model's state
    reg trace = 1'b0;
    always @(posedge clk) if (trace && !rst && cyc && stb && !m_ack && !m_pend)
        $display("trace clk=%0d %s %0s dat=%h  (model tick=%0d src=%0d adv=%0d fifo=%0d hold=%0d srch=%0d/%0d next=%0d jump=%0d)",
                 m_cyc, we ? "W" : "R", reg_name(adr), we ? wdat : 32'h0, m_tick_p, m_src, m_raw, mq_n, m_hold,
                 m_s_run, m_s_valid, m_s_next, m_jclk);

    // ack, stall and irq against the model every cycle, and every read's data
    // at its ack; white-box: the bus's tick (tick_p), STATUS.SEARCHING and
    // FIFO_COUNT too, so a wrong step or jump shows at once
    reg chk_on = 1'b1;
    always @(negedge clk) if (!rst && chk_on) begin
        if (ack !== m_ack)  err("o_wb_ack vs model", ack, m_ack);
        if (stall !== (m_pend || m_ack)) err("o_wb_stall vs model (an access outstanding)", stall, m_pend || m_ack);
        if (irq !== m_irq) err("o_irq vs model", irq, m_irq);
        if (dut.tick_p !== m_tick_p) err("bus tick (dut.tick_p) vs model", dut.tick_p, m_tick_p);
        if (dut.searching_q !== m_searching) err("STATUS.SEARCHING (dut.searching_q) vs model", dut.searching_q, m_searching);
        if (dut.fifo_count !== mq_n) err("STATUS.FIFO_COUNT (dut.fifo_count) vs model", dut.fifo_count, mq_n);
        if (ack && m_ack && m_isrd3 && rdat !== m_rd3) err_reg("read", last_adr, " (vs model)", rdat, m_rd3);
    end

    // ================================================================ bus
    // One access as sim/tw_vl.cpp makes it; called at a falling edge, so the
    // request's clock R is the present one. last_ack: clocks from R to ack.
    reg [5:0]  last_adr;
    integer    last_ack, last_r;
    task access;
        input         write;
        input  [5:0]  a;
        input  [31:0] d;
        output [31:0] q;
        integer n;
        begin
            cyc = 1'b1; stb = 1'b1; we = write; adr = a; wdat = d;
            last_adr = a; last_r = m_cyc;
            n = 0;
            @(negedge clk); n = n + 1;
            while (ack !== 1'b1 && n < ACK_WAIT) begin @(negedge clk); n = n + 1; end
            last_ack = n;
            if (ack !== 1'b1) err_reg("no ack (bounded wait) for", a, "", n, 0);
            q = rdat;
            cyc = 1'b0; stb = 1'b0; we = 1'b0; wdat = $random;
            @(negedge clk);
        end
    endtask
    reg [31:0] scratch;
    task wb_write;
        input [5:0]  a;
        input [31:0] d;
        access(1'b1, a, d, scratch);
    endtask
    task wb_read;
        input  [5:0]  a;
        output [31:0] d;
        access(1'b0, a, 32'd0, d);
    endtask

    // read and compare with an expectation of the test itself
    reg [31:0] rv;
    task expect_reg;
        input [5:0]  a;
        input [31:0] exp;
        begin
            wb_read(a, rv);
            if (rv !== exp) err_reg("read", a, "", rv, exp);
        end
    endtask

    task expect_field;   // (value >> lsb) & mask
        input [5:0]  a;
        input integer lsb;
        input [31:0] mask;
        input [31:0] exp;
        input [8*48-1:0] fname;
        begin
            wb_read(a, rv);
            if (((rv >> lsb) & mask) !== exp) begin
                count_err;
                if (err_show)
                    $display("ERROR [%0s] cyc=%0d read %0s.%0s: got 0x%0h expected 0x%0h",
                             section, m_cyc, reg_name(a), fname, (rv >> lsb) & mask, exp);
            end
        end
    endtask

    function [31:0] cmd_word;
        input [3:0] op;
        input [3:0] lvl;
        input [15:0] slot;
        begin
            cmd_word = {op, 8'd0, lvl, slot};
        end
    endfunction

    task arm;
        input [47:0] v;
        begin
            wb_write(TW_REG_ARM_HI, {16'd0, v[47:32]});
            wb_write(TW_REG_ARM_LO, v[31:0]);
        end
    endtask

    task set_slot;    // ARM + SET
        input integer lvl, slot;
        input [47:0] v;
        begin
            arm(v);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, lvl, slot));
        end
    endtask

    task clear_slot;
        input integer lvl, slot;
        wb_write(TW_REG_CMD, cmd_word(OP_CLEAR, lvl, slot));
    endtask

    task idle;
        input integer n;
        repeat (n) @(negedge clk);
    endtask

    // wait until clock c (the next access's R is then c)
    task idle_until;
        input integer c;
        begin
            if (m_cyc > c) msg_err("testbench schedule overrun (idle_until in the past)");
            while (m_cyc < c) @(negedge clk);
        end
    endtask

    task reset_dut;
        begin
            rst = 1'b1; cyc = 1'b0; stb = 1'b0; we = 1'b0; ext = 1'b0;
            @(negedge clk);
            @(negedge clk);
            rst = 1'b0;
            @(negedge clk);
        end
    endtask

    // Jump the counter (white-box) while time stands still and nothing is in
    // flight; the search's answer was about the old time, so a new one starts
    // from the new tick in this clock (in the model too).
    task poke_now;
        input [47:0] v;
        integer w0;
        begin
            w0 = m_cyc;
            while ((m_steps != 0 || m_jclk != 0 || m_pend || m_cmd_st != 0 || m_adv_st != 0) && m_cyc - w0 < 40)
                @(negedge clk);
            if (m_steps != 0 || m_jclk != 0 || m_pend || m_cmd_st != 0 || m_adv_st != 0 || dut.carry_q
                    || (m_src == 2'd0 && m_nz) || m_src == 2'd1 || m_src == 2'd2)
                msg_err("testbench: poke_now while time may move");
            dut.lo_q = v[23:0]; dut.lo_d_q = v[23:0]; dut.hi_q = v[47:24]; dut.tick_v = v;
            dut.srch_start_q = 1'b1; dut.srch_base_q = v;
            m_tick_p <= v; m_tick_v <= v;
            m_s_start <= 1'b1; m_s_base <= v;
            @(negedge clk);
        end
    endtask

    // STATUS without SEARCHING (which the model checks on every read)
    task expect_status;
        input [31:0] exp;
        begin
            wb_read(TW_REG_STATUS, rv);
            if ((rv & ~32'h20) !== exp) err_reg("read", TW_REG_STATUS, " (but SEARCHING)", rv & ~32'h20, exp);
        end
    endtask

    // poll STATUS until SEARCHING is 0
    task wait_search;
        integer w0;
        begin
            w0 = m_cyc;
            wb_read(TW_REG_STATUS, rv);
            while (rv[TW_STATUS_SEARCHING_LSB] && m_cyc - w0 < 2 * SRCH_MAX + 40)
                wb_read(TW_REG_STATUS, rv);
            if (rv[TW_STATUS_SEARCHING_LSB]) msg_err("STATUS.SEARCHING stuck at 1");
        end
    endtask

    // poll STATUS until ADVANCING is 0 (at most n clocks)
    task wait_adv;
        input integer n;
        integer w0;
        begin
            w0 = m_cyc;
            wb_read(TW_REG_STATUS, rv);
            while (rv[TW_STATUS_ADVANCING_LSB] && m_cyc - w0 < n)
                wb_read(TW_REG_STATUS, rv);
            if (rv[TW_STATUS_ADVANCING_LSB]) msg_err("STATUS.ADVANCING stuck at 1");
        end
    endtask

    // poll STATUS until HOLD is 1 (at most n clocks)
    task wait_hold;
        input integer n;
        integer w0;
        begin
            w0 = m_cyc;
            wb_read(TW_REG_STATUS, rv);
            while (!rv[TW_STATUS_HOLD_LSB] && m_cyc - w0 < n)
                wb_read(TW_REG_STATUS, rv);
            if (!rv[TW_STATUS_HOLD_LSB]) msg_err("STATUS.HOLD never set");
        end
    endtask

    function [47:0] next_visit;    // first visit of (lvl, slot) strictly after t
        input integer lvl, slot;
        input [47:0] t;
        reg [47:0] rev, v;
        begin
            rev = 48'd1 << ((lvl + 1) * B);
            v = t - (t % rev) + (slot << (lvl * B));
            if (v <= t) v = v + rev;
            next_visit = v;
        end
    endfunction

    // ------------------------------------------------------------- events
    reg        e_valid, e_late;
    reg [1:0]  e_lvl;
    reg [11:0] e_slot;
    reg [47:0] e_tick;
    task read_event;
        reg [31:0] info, lo;
        begin
            wb_read(TW_REG_EVT_INFO, info);
            e_valid = info[31]; e_late = info[30]; e_lvl = info[29:28]; e_slot = info[27:16];
            e_tick = 0;
            if (e_valid) begin
                wb_read(TW_REG_EVT_TICK, lo);
                e_tick = {info[15:0], lo};
            end
        end
    endtask

    task expect_event;
        input        late;
        input integer lvl, slot;
        input [47:0] tick;
        begin
            read_event;
            if (!e_valid) err("event missing (EVT_INFO.VALID)", 0, 1);
            else begin
                if (e_late !== late) err("EVT_INFO.LATE", e_late, late);
                if (e_lvl !== lvl)   err("EVT_INFO.LEVEL", e_lvl, lvl);
                if (e_slot !== slot) err("EVT_INFO.SLOT", e_slot, slot);
                if (e_tick !== tick) err("event tick {TICK_HI,EVT_TICK}", e_tick, tick);
            end
        end
    endtask

    task expect_no_event;
        begin
            wb_read(TW_REG_EVT_INFO, rv);
            if (rv[31] !== 1'b0) begin
                err("unexpected event (EVT_INFO)", rv, 0);
                // show it
                read_event;
                $display("       unexpected event: late=%0d level=%0d slot=%0d tick=%0d", e_late, e_lvl, e_slot, e_tick);
            end
        end
    endtask

    // drain the FIFO into dl_* (at most 256 events)
    integer    dl_n;
    reg        dl_late [0:255];
    reg [1:0]  dl_lvl  [0:255];
    reg [11:0] dl_slot [0:255];
    reg [47:0] dl_tick [0:255];
    // drain_more appends what the FIFO holds to dl_*; drain starts afresh.
    task drain_more;
        begin
            read_event;
            while (e_valid && dl_n < 256) begin
                dl_late[dl_n] = e_late; dl_lvl[dl_n] = e_lvl; dl_slot[dl_n] = e_slot; dl_tick[dl_n] = e_tick;
                dl_n = dl_n + 1;
                read_event;
            end
        end
    endtask
    task drain;
        begin
            dl_n = 0;
            drain_more;
        end
    endtask

    // ==================================================== directed sections
    integer i, j, k, n, c, t0, e0;
    reg [47:0] v, w;
    reg [31:0] x;

    // ================================================================ random
    integer seed = 1, seed2;
    integer nops = 1100;
    reg ext_rand = 1'b0;

    always @(negedge clk) if (ext_rand) begin
        #3 ext = (($random(seed2) & 3) == 0) ? ~ext : ext;
    end

    function integer urand;
        input integer n;
        begin
            urand = ($random(seed) & 32'h7FFF_FFFF) % n;
        end
    endfunction

    task t_random;
        integer op, lv, sl, r, ch;
        reg [47:0] nvis, rev;
        begin
            section = "random";
            reset_dut;
            st_late = 0; st_visit_ev = 0; st_drop = 0; st_multi = 0; st_roomwait = 0; st_holdwait = 0;
            st_srch_n = 0; st_srch_max = 0; st_restart = 0; st_jumps = 0; st_jump_ticks = 0; st_jab = 0;
            seed2 = seed ^ 32'h5A5A_1234;
            wb_write(TW_REG_CTRL, 32'h4);
            for (n = 0; n < nops; n = n + 1) begin
                op = urand(1000);
                if (op < 280) begin                        // SET
                    lv = urand(LEVELS); sl = urand(SLOTS);
                    if (urand(8) == 0) sl = 0;
                    rev = 48'd1 << ((lv + 1) * B);
                    nvis = next_visit(lv, sl, m_tick_p);
                    ch = urand(100);
                    if (ch < 55) v = nvis;
                    else if (ch < 70) v = nvis - rev;
                    else if (ch < 80) v = nvis + rev;
                    else v = m_tick_p + urand(9) - 4;
                    if (urand(4) != 0 || v[47:32] != m_arm_hi) wb_write(TW_REG_ARM_HI, v[47:32]);
                    wb_write(TW_REG_ARM_LO, v[31:0]);
                    if (urand(3) == 0) idle(urand(12));
                    wb_write(TW_REG_CMD, cmd_word(OP_SET, lv, sl));
                end else if (op < 360) begin               // CLEAR
                    wb_write(TW_REG_CMD, cmd_word(OP_CLEAR, urand(LEVELS), urand(SLOTS)));
                end else if (op < 366) begin
                    wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, urand(16), urand(65536)));
                end else if (op < 470) begin               // ADVANCE (long ones jump)
                    r = urand(12);
                    wb_write(TW_REG_ADVANCE, (r == 0) ? 0 : (r < 7) ? urand(40) : (r < 9) ? urand(400)
                                             : (r < 11) ? urand(SLOTS << B) : (urand(4) == 0) ? $random(seed) : urand(1 << 24));
                end else if (op < 700) begin               // read events
                    r = urand(6);
                    for (i = 0; i < r; i = i + 1) begin
                        if (urand(5) != 0) wb_read(TW_REG_EVT_INFO, rv);
                        if (urand(6) != 0) wb_read(TW_REG_EVT_TICK, rv);
                    end
                end else if (op < 800) begin               // read any register
                    r = urand(27);
                    wb_read((r < 23) ? r : urand(64), rv);
                end else if (op < 850) begin               // CTRL
                    r = urand(100);
                    wb_write(TW_REG_CTRL, ((r < 50) ? 0 : (r < 78) ? 1 : (r < 95) ? 2 : 3)
                                          | (urand(4) != 0 ? 4 : 0) | (urand(4) == 0 ? 8 : 0));
                end else if (op < 875) begin
                    wb_write(TW_REG_PRESCALE, (urand(8) == 0) ? urand(40) : urand(4));
                end else if (op < 905) begin
                    wb_write(TW_REG_STATUS, urand(8) | (urand(2) << 16));
                end else if (op < 925) begin               // errors
                    r = urand(3);
                    if (r == 0) wb_write(TW_REG_CMD, cmd_word(urand(16), urand(16), urand(65536)));
                    else if (r == 1) wb_write(urand(64), $random(seed));
                    else wb_read(TW_REG_CMD, rv);
                end else if (op < 935) begin               // horizon, coalescing
                    r = urand(4);
                    if (r == 0) wb_write(TW_REG_SEARCH, (urand(3) == 0) ? 32'hFFFF_FFFF : urand(3 * SLOTS));
                    else if (r == 1) wb_write(TW_REG_SEARCH, $random(seed));
                    else begin
                        x[31:16] = (urand(3) == 0) ? 16'hFFFF : urand(DEPTH + 2);
                        x[15:0]  = (urand(3) == 0) ? 16'hFFFF : urand(4 * SLOTS);
                        wb_write(TW_REG_COALESCE, x);
                    end
                end else if (op < 945) begin               // NEXT, while it may be searching
                    wb_read(TW_REG_NEXT_LO, rv);
                    if (urand(2) == 0) wb_read(TW_REG_NEXT_HI, rv);
                    if (urand(3) == 0) wb_read(TW_REG_STATUS, rv);
                end else if (op < 975) begin
                    idle(1 + urand(30));
                end else if (op < 985) begin               // toggle random ext-tick noise
                    ext_rand = !ext_rand;
                    idle(1);
                end else if (op < 990) begin               // to just before a level boundary
                    lv = urand(LEVELS);
                    rev = 48'd1 << (lv * B);
                    if (!ext_rand) begin
                        wb_write(TW_REG_CTRL, 32'h7);      // time stopped: the counter may be moved
                        idle(12);
                        v = m_tick_p - (m_tick_p % rev) + rev - urand(6);
                        if (v > m_tick_p && m_jclk == 0 && m_steps == 0) poke_now(v);
                        wb_write(TW_REG_CTRL, 32'h4);
                    end
                end else begin
                    wb_read(TW_REG_NOW_LO, rv);
                    wb_read(TW_REG_NOW_HI, rv);
                end
            end
            ext_rand = 1'b0;
            wb_write(TW_REG_CTRL, 32'h3);
            drain;
            while (dl_n != 0) drain;
            for (i = 0; i <= TW_REG_COALESCE; i = i + 1) wb_read(i, rv);
            $display("random: %0d ops, model saw %0d visit events, %0d late arms, %0d multi-event entries, %0d dropped entries, %0d clocks waiting for room, %0d held",
                     nops, st_visit_ev, st_late, st_multi, st_drop, st_roomwait, st_holdwait);
            $display("random: %0d searches (longest %0d clocks), %0d restarted, %0d jumps over %0d ticks, %0d called off",
                     st_srch_n, st_srch_max, st_restart, st_jumps, st_jump_ticks, st_jab);
        end
    endtask

    // ==================================================== directed sections
    // Collect events while virtual time runs: poll STATUS, drain what is
    // there, until ADVANCING is 0 and the FIFO is empty (at most n clocks).
    task run_collect;
        input integer n;
        integer w0;
        begin
            w0 = m_cyc;
            dl_n = 0;
            wb_read(TW_REG_STATUS, rv);
            while ((rv[TW_STATUS_ADVANCING_LSB] || rv[31:16] != 0) && m_cyc - w0 < n) begin
                if (rv[31:16] != 0)
                    drain_more;
                wb_read(TW_REG_STATUS, rv);
            end
            if (rv[TW_STATUS_ADVANCING_LSB] || rv[31:16] != 0) msg_err("virtual time did not finish (ADVANCING or FIFO_COUNT)");
        end
    endtask

    // the collected event q against (late, level, slot, tick); n: how many expected
    task expect_dl;
        input integer q;
        input         late;
        input integer lvl, slot;
        input [47:0]  tick;
        begin
            if (q >= dl_n) err("collected event missing (index)", q, dl_n);
            else if (dl_late[q] !== late || dl_lvl[q] !== lvl || dl_slot[q] !== slot || dl_tick[q] !== tick) begin
                err("collected event tick", dl_tick[q], tick);
                if (err_show) $display("       event %0d: late=%0d level=%0d slot=%0d, expected late=%0d level=%0d slot=%0d",
                                       q, dl_late[q], dl_lvl[q], dl_slot[q], late, lvl, slot);
            end
        end
    endtask

    // Wishbone's abort: a master that drops cyc before the ack gets no ack
    // for that access (it still takes effect), and its next request gets
    // its own ack and data. A pipelined master, which strobes again while
    // stall is low, is stalled while an access is outstanding, so every
    // request it gets taken is acked, each once.
    integer ab_n, ab_acks;
    reg     ab_stall;
    task t_bus_abort;
        begin
            section = "bus: abort";
            chk_on = 1'b0;                  // the reference model acks every access it takes
            cyc = 1'b1; stb = 1'b1; we = 1'b1; adr = TW_REG_ARM_LO; wdat = 32'hA5A5_A5A5;
            @(negedge clk);
            cyc = 1'b0; stb = 1'b0; we = 1'b0;
            ab_acks = 0;
            for (ab_n = 0; ab_n < 8; ab_n = ab_n + 1) begin
                @(negedge clk);
                if (ack) ab_acks = ab_acks + 1;
            end
            if (ab_acks != 0) err("acks for an access whose cycle was aborted", ab_acks, 0);
            expect_reg(TW_REG_ARM_LO, 32'hA5A5_A5A5);
            // aborted, and at once the next cycle: a read of ID
            cyc = 1'b1; stb = 1'b1; we = 1'b1; adr = TW_REG_ARM_LO; wdat = 32'h5A5A_5A5A;
            @(negedge clk);
            cyc = 1'b0; stb = 1'b0; we = 1'b0;
            @(negedge clk);
            wb_read(TW_REG_ID, rv);
            if (rv !== TW_ID_MAGIC) err_reg("read right after an aborted write", TW_REG_ID, "", rv, TW_ID_MAGIC);
            if (last_ack < 4) err("that read's ack: clocks from its R (its own, not the aborted write's)", last_ack, 4);
            repeat (8) @(negedge clk);
            chk_on = 1'b1;
            expect_reg(TW_REG_ARM_LO, 32'h5A5A_5A5A);

            section = "bus: pipelined master";
            cyc = 1'b1; stb = 1'b1; we = 1'b1; adr = TW_REG_ARM_LO; wdat = 32'h1234_5678;
            @(negedge clk);                 // taken: stall was low
            adr = TW_REG_ARM_HI; wdat = 32'h0000_9ABC;
            ab_acks = 0;
            ab_n = 0;
            ab_stall = 1'b1;
            while (ab_stall && ab_n < 40) begin
                ab_stall = stall;           // taken at the next edge if low now
                @(negedge clk);
                ab_n = ab_n + 1;
                if (ack) ab_acks = ab_acks + 1;
            end
            stb = 1'b0; we = 1'b0;
            for (ab_n = 0; ab_n < 12; ab_n = ab_n + 1) begin
                @(negedge clk);
                if (ack) ab_acks = ab_acks + 1;
            end
            cyc = 1'b0;
            @(negedge clk);
            if (ab_acks != 2) err("acks for two pipelined requests", ab_acks, 2);
            expect_reg(TW_REG_ARM_LO, 32'h1234_5678);
            expect_reg(TW_REG_ARM_HI, 32'h0000_9ABC);
        end
    endtask

    task t_ident;
        begin
            section = "ident/reset";
            reset_dut;
            // the search starts by itself after reset
            expect_field(TW_REG_STATUS, TW_STATUS_SEARCHING_LSB, 1, 1, "SEARCHING right after reset");
            if (last_ack != 4) err("read: clocks from R to ack (R, B0, B1, B2, ack in B3)", last_ack, 4);
            expect_reg(TW_REG_NEXT_LO, 0);           // 0 while searching
            expect_reg(TW_REG_ID, 32'h5457484C);
            expect_reg(TW_REG_VERSION, 32'h0001_0000);
            expect_reg(TW_REG_CAPS, LEVELS | (SLOT_BITS << 4) | (FIFO_LOG2 << 8) | (48 << 16));
            expect_reg(TW_REG_CTRL, 0);
            expect_reg(TW_REG_PRESCALE, 0);
            expect_status(0);
            expect_reg(TW_REG_NOW_LO, 0);
            expect_reg(TW_REG_NOW_HI, 0);
            expect_reg(TW_REG_ADVANCE, 0);
            expect_reg(TW_REG_ARM_LO, 0);
            expect_reg(TW_REG_ARM_HI, 0);
            expect_field(TW_REG_EVT_INFO, 31, 1, 0, "VALID");
            for (i = TW_REG_CNT_EVENTS; i <= TW_REG_CNT_BUSERR; i = i + 1)
                expect_reg(i, 0);
            expect_reg(TW_REG_SEARCH, 32'hFFFF_FFFF);
            expect_reg(TW_REG_COALESCE, 0);
            expect_reg(TW_REG_NEXT_HI, 0);
            wait_search;
            expect_reg(TW_REG_STATUS, 0);
            expect_reg(TW_REG_NEXT_LO, 32'hFFFF_FFFF);   // nothing busy: now + SEARCH
            expect_reg(TW_REG_NEXT_HI, 0);
            if (irq !== 1'b0) err("o_irq after reset", irq, 0);

            section = "readback";
            wb_write(TW_REG_PRESCALE, 32'hFFFF_FFFF);   // no tick while TICK_SRC=1 below
            if (last_ack != 4) err("write: clocks from R to ack", last_ack, 4);
            wb_write(TW_REG_CTRL, 32'hFFFF_FFFF);
            expect_reg(TW_REG_CTRL, 32'hF);
            wb_write(TW_REG_CTRL, 32'h0000_0006);
            expect_reg(TW_REG_CTRL, 32'h6);
            wb_write(TW_REG_CTRL, 32'h0000_0009);
            expect_reg(TW_REG_CTRL, 32'h9);
            wb_write(TW_REG_CTRL, 32'h0000_0003);     // reserved source: no ticks
            for (i = 0; i < 4; i = i + 1) begin
                x = (i == 0) ? 32'hFFFF_FFFF : (i == 1) ? 32'h0 : $random;
                wb_write(TW_REG_PRESCALE, x);
                expect_reg(TW_REG_PRESCALE, x);
                wb_write(TW_REG_ARM_LO, ~x);
                expect_reg(TW_REG_ARM_LO, ~x);
                wb_write(TW_REG_ARM_HI, x);
                expect_reg(TW_REG_ARM_HI, {16'd0, x[15:0]});
                wb_write(TW_REG_SEARCH, x ^ 32'h5A5A_5A5A);
                expect_reg(TW_REG_SEARCH, x ^ 32'h5A5A_5A5A);
                wb_write(TW_REG_COALESCE, ~x);
                expect_reg(TW_REG_COALESCE, ~x);
            end
            wb_write(TW_REG_SEARCH, 32'hFFFF_FFFF);
            wb_write(TW_REG_COALESCE, 0);
            // ADVANCE adds and saturates; nothing counts down with TICK_SRC=3
            wb_write(TW_REG_ADVANCE, 123);
            expect_reg(TW_REG_ADVANCE, 123);
            wb_write(TW_REG_ADVANCE, 7);
            expect_reg(TW_REG_ADVANCE, 130);
            expect_field(TW_REG_STATUS, TW_STATUS_ADVANCING_LSB, 1, 1, "ADVANCING");
            wb_write(TW_REG_ADVANCE, 32'hFFFF_FF00);
            expect_reg(TW_REG_ADVANCE, 32'hFFFF_FF82);
            wb_write(TW_REG_ADVANCE, 32'h100);
            expect_reg(TW_REG_ADVANCE, 32'hFFFF_FFFF);
            expect_reg(TW_REG_NOW_LO, 0);
            // writing 0 to STATUS changes nothing
            wb_write(TW_REG_STATUS, 0);
            expect_field(TW_REG_STATUS, 0, 32'h7, 0, "sticky bits");
            expect_reg(TW_REG_CNT_BUSERR, 0);
            // an access after a CMD waits for its late arm: 7 clocks apart, not 5
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR, 0, 1));
            expect_reg(TW_REG_ID, 32'h5457484C);
            if (last_ack != 6) err("access after a CMD: clocks from R to ack (held to B6)", last_ack, 6);
        end
    endtask

    // ADVANCE in virtual time: a jump over an empty stretch, sums, a busy
    // slot's visits at their ticks
    task t_advance;
        integer s, c0;
        reg [47:0] v0, vv;
        begin
            section = "advance";
            reset_dut;
            wait_search;
            c0 = m_cyc;
            wb_write(TW_REG_ADVANCE, 1000);             // nothing busy: one jump
            wait_adv(200);
            if (m_cyc - c0 > 60) err("ADVANCE 1000 over nothing busy: clocks (a jump, about 16)", m_cyc - c0, 60);
            expect_reg(TW_REG_NOW_LO, 1000);
            expect_reg(TW_REG_ADVANCE, 0);
            expect_field(TW_REG_STATUS, TW_STATUS_ADVANCING_LSB, 1, 0, "ADVANCING");
            // two writes back to back add
            wb_write(TW_REG_ADVANCE, 20);
            wb_write(TW_REG_ADVANCE, 22);
            wait_adv(200);
            expect_reg(TW_REG_NOW_LO, 1042);
            // an ADVANCE written while a jump runs waits for its end (the bus
            // is held); the next jump comes after its sum and the cool-down
            wb_write(TW_REG_ADVANCE, 5000);
            c0 = m_cyc;
            while (m_jclk == 0 && m_cyc - c0 < 100) @(negedge clk);
            if (m_jclk == 0) msg_err("no jump for ADVANCE 5000 over nothing busy");
            wb_write(TW_REG_ADVANCE, 3000);
            if (last_ack < 8) err("an access during a jump: clocks from R to ack (held)", last_ack, 8);
            idle(40);                                   // no access to hold the next jump's start
            wait_adv(300);
            expect_reg(TW_REG_NOW_LO, 9042);
            // a busy slot: its visits come at their ticks, every revolution
            s = 7;
            v0 = 9042;
            vv = next_visit(0, s, v0);
            set_slot(0, s, vv);
            wait_search;
            expect_reg(TW_REG_NEXT_LO, vv);
            wb_write(TW_REG_ADVANCE, 3 * SLOTS);
            run_collect(3 * SLOTS * 12 + 400);
            check("events of 3 revolutions", dl_n, 3);
            for (i = 0; i < dl_n && i < 3; i = i + 1)
                if (dl_late[i] || dl_lvl[i] != 0 || dl_slot[i] != s || dl_tick[i] != vv + i * SLOTS)
                    err("visit event tick", dl_tick[i], vv + i * SLOTS);
            expect_reg(TW_REG_NOW_LO, v0 + 3 * SLOTS);
            // ADVANCE does not count with the prescaler selected
            wb_write(TW_REG_PRESCALE, 32'hFFFF);
            wb_write(TW_REG_CTRL, 1);
            wb_write(TW_REG_ADVANCE, 10);
            idle(12);
            expect_reg(TW_REG_ADVANCE, 10);
            expect_reg(TW_REG_NOW_LO, v0 + 3 * SLOTS);
            // ... and is spent when virtual time runs again
            wb_write(TW_REG_CTRL, 0);
            run_collect(400);
            expect_reg(TW_REG_ADVANCE, 0);
            expect_reg(TW_REG_NOW_LO, v0 + 3 * SLOTS + 10);
        end
    endtask

    // SET/CLEAR at level 0: reported at exactly the visit tick, every revolution
    task t_level0;
        integer s, s2;
        begin
            section = "level0 visits";
            reset_dut;
            s = 5 % SLOTS; s2 = SLOTS - 1;
            set_slot(0, s, s);
            set_slot(0, s2, s2);
            wb_write(TW_REG_CTRL, 32'h4);           // IRQ_EN, TICK_SRC=0
            expect_no_event;
            wb_write(TW_REG_ADVANCE, 3 * SLOTS);
            run_collect(3 * SLOTS * 12 + 600);
            check("level 0: events", dl_n, 6);
            for (i = 0; i < dl_n && i < 6; i = i + 1)
                if (dl_late[i] || dl_lvl[i] != 0 || dl_slot[i] != ((i % 2) ? s2 : s)
                        || dl_tick[i] != ((i % 2) ? s2 : s) + (i / 2) * SLOTS)
                    err("level 0: event tick", dl_tick[i], ((i % 2) ? s2 : s) + (i / 2) * SLOTS);
            if (irq !== 1'b0) err("irq after draining", irq, 0);
            // CLEAR: no more reports
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR, 0, s));
            wb_write(TW_REG_ADVANCE, 2 * SLOTS);
            run_collect(2 * SLOTS * 12 + 400);
            check("level 0 after CLEAR: events", dl_n, 2);
            if (dl_tick[0] != s2 + 3 * SLOTS || dl_tick[1] != s2 + 4 * SLOTS) err("level 0 after CLEAR: ticks", dl_tick[0], s2 + 3 * SLOTS);
            clear_slot(0, s2);
            wb_write(TW_REG_ADVANCE, SLOTS + 1);
            run_collect(SLOTS * 12 + 400);
            check("level 0 after both CLEARs: events", dl_n, 0);
            expect_reg(TW_REG_CNT_LATE, 0);
            expect_reg(TW_REG_CNT_CMDS, 4);
        end
    endtask

    // level k visits ticks whose low k*b bits are zero, at slot = tick field k
    task t_levels;
        integer lv, s;
        reg [47:0] rev;
        begin
            for (lv = 1; lv < LEVELS; lv = lv + 1) begin
                section = "higher level visits";
                reset_dut;
                s = (lv == 1) ? 3 : SLOTS - 2;
                rev = 48'd1 << ((lv + 1) * B);
                v = (48'h1234_0000_0000 & ~(rev - 1)) | (s << (lv * B));   // a level-lv visit of slot s
                if (((lv + 1) * B) > 32) v = s << (lv * B);
                poke_now(v - 6);
                set_slot(lv, s, v);
                wb_write(TW_REG_ADVANCE, 12);
                run_collect(400);
                check("level visit: events", dl_n, 1);
                expect_dl(0, 0, lv, s, v);
                // next revolution of this level
                poke_now(v + rev - 5);
                wb_write(TW_REG_ADVANCE, 10);
                run_collect(400);
                check("level visit, next revolution: events", dl_n, 1);
                expect_dl(0, 0, lv, s, v + rev);
                // ticks whose field lv equals s but whose low bits are not zero: no visit
                poke_now(v + rev);
                wb_write(TW_REG_ADVANCE, 20);
                run_collect(400);
                check("no visit off the level's ticks: events", dl_n, 0);
                // a slot of that level one step further is visited one level-(lv-1) revolution later
                clear_slot(lv, s);
                w = next_visit(lv, (s + 1) % SLOTS, v + rev + 20);
                set_slot(lv, (s + 1) % SLOTS, w);
                poke_now(w - 3);
                wb_write(TW_REG_ADVANCE, 6);
                run_collect(400);
                check("level visit, next slot: events", dl_n, 1);
                expect_dl(0, 0, lv, (s + 1) % SLOTS, w);
            end
        end
    endtask

    // all levels visited in one tick, plus a late arm in the same V clock:
    // one FIFO entry, events handed out late arm first then levels upward
    task t_multi;
        integer lv, sl, late_slot;
        begin
            section = "multi-level entry";
            reset_dut;
            v = (LEVELS > 1) ? (48'd1 << ((LEVELS - 1) * B)) : SLOTS;   // slot 1 at the top level, 0 below
            late_slot = 3;
            poke_now(v - 1);
            for (lv = 0; lv < LEVELS; lv = lv + 1) begin
                sl = (v >> (lv * B)) & (SLOTS - 1);
                set_slot(lv, sl, v);
            end
            wait_search;
            expect_reg(TW_REG_NEXT_LO, v[31:0]);
            arm(v - 7);                     // already passed: the SET below is late
            // ADVANCE 1: no host step in its B2..B6, the step decided in B7 is
            // in V four clocks later; a CMD with R = B1 + 7 has its B2 there
            wb_write(TW_REG_ADVANCE, 1);
            c = m_b1_at;
            idle_until(c + 7);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, late_slot));
            check("multi: the CMD's B2 (its V) vs the ADVANCE's B1 + 10", m_b2_at, c + 10);
            wait_adv(100);
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "FIFO_COUNT (one entry)");
            expect_reg(TW_REG_CNT_EVENTS, LEVELS + 1);
            expect_reg(TW_REG_CNT_LATE, 1);
            expect_event(1, 0, late_slot, v);
            for (lv = 0; lv < LEVELS; lv = lv + 1) begin
                expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "FIFO_COUNT (mid entry)");
                expect_event(0, lv, (v >> (lv * B)) & (SLOTS - 1), v);
            end
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 0, "FIFO_COUNT (drained)");
            expect_no_event;
            // EVT_INFO alone has no side effect; EVT_TICK on an empty FIFO pops nothing
            wb_read(TW_REG_EVT_TICK, rv);
            check("EVT_TICK on an empty FIFO", rv, 0);
            expect_no_event;
        end
    endtask

    // A SET judged late or not at the boundary, time stopped at T: a SET for
    // the visit at T (NOW) is late, for T + 1 it is not
    task t_late_edge;
        reg [47:0] t;
        begin
            section = "late SET at the boundary";
            reset_dut;
            t = 300;
            wb_write(TW_REG_ADVANCE, t);
            wait_adv(300);
            wb_read(TW_REG_NOW_LO, rv);
            check("NOW", rv, t);
            wb_write(TW_REG_CTRL, 32'd3);           // time stopped
            arm(t);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, t % SLOTS));
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "a SET for NOW is late: one entry");
            expect_event(1, 0, t % SLOTS, t);
            arm(t + 1);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, (t + 1) % SLOTS));
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 0, "a SET for NOW + 1 is not late");
            expect_reg(TW_REG_CNT_LATE, 1);
            wb_write(TW_REG_CTRL, 32'd0);
            wb_write(TW_REG_ADVANCE, 1);
            wait_adv(100);
            // once ADVANCING reads 0 the visit is in the FIFO
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "the visit of T+1 when ADVANCING clears");
            expect_event(0, 0, (t + 1) % SLOTS, t + 1);
        end
    endtask

    // VHOLD: virtual time stops on exactly the tick with an event
    task t_vhold;
        integer s1, s2;
        reg [47:0] t1, t2;
        begin
            section = "vhold";
            reset_dut;
            s1 = 3; s2 = 7;
            set_slot(0, s1, s1);
            set_slot(0, s2, s2);
            if (LEVELS > 1) set_slot(1, 1, SLOTS);     // a level-1 visit at SLOTS
            wb_write(TW_REG_CTRL, 32'h8);            // VHOLD, TICK_SRC=0
            wb_write(TW_REG_ADVANCE, SLOTS + 10);
            wait_hold(40 * 12);
            expect_reg(TW_REG_NOW_LO, s1);
            expect_reg(TW_REG_ADVANCE, SLOTS + 10 - s1);
            expect_field(TW_REG_STATUS, 0, 32'hF, 32'hA, "HOLD|ADVANCING");
            wb_write(TW_REG_STATUS, 32'h5);          // other w1c bits: HOLD stays
            idle(40);
            expect_reg(TW_REG_NOW_LO, s1);
            expect_event(0, 0, s1, s1);
            idle(4);
            expect_reg(TW_REG_NOW_LO, s1);           // reading the event does not release it
            wb_write(TW_REG_STATUS, 32'h2);
            wait_hold(40 * 12);
            expect_reg(TW_REG_NOW_LO, s2);
            expect_reg(TW_REG_ADVANCE, SLOTS + 10 - s2);
            expect_event(0, 0, s2, s2);
            wb_write(TW_REG_STATUS, 32'h2);
            wait_hold(SLOTS * 12 + 100);             // (a jump may come between)
            // level 1 slot 1 at SLOTS, or with one level slot s1 a revolution on
            expect_reg(TW_REG_NOW_LO, (LEVELS > 1) ? SLOTS : SLOTS + s1);
            if (LEVELS > 1) expect_event(0, 1, 1, SLOTS);
            else expect_event(0, 0, s1, SLOTS + s1);
            wb_write(TW_REG_STATUS, 32'h2);
            if (LEVELS > 1) begin
                wait_hold(SLOTS * 12 + 100);
                expect_reg(TW_REG_NOW_LO, SLOTS + s1);
                expect_event(0, 0, s1, SLOTS + s1);
                wb_write(TW_REG_STATUS, 32'h2);
            end
            wait_hold(SLOTS * 12 + 100);
            expect_reg(TW_REG_NOW_LO, SLOTS + s2);
            expect_event(0, 0, s2, SLOTS + s2);
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 0, 0));
            wb_write(TW_REG_STATUS, 32'h2);
            wait_adv(SLOTS * 12 + 100);
            expect_reg(TW_REG_NOW_LO, SLOTS + 10);
            expect_field(TW_REG_STATUS, 0, 32'hF, 0, "HOLD|ADVANCING");
            expect_no_event;
            // a late SET in VHOLD stops time on the tick it was judged against
            arm(5);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, 9));
            expect_field(TW_REG_STATUS, 0, 32'hFFFF_000F, 32'h0001_0002, "a late SET sets HOLD (one entry)");
            expect_event(1, 0, 9, SLOTS + 10);
            expect_reg(TW_REG_NOW_LO, SLOTS + 10);
            wb_write(TW_REG_STATUS, 32'h2);
            // VHOLD without ADVANCE: HOLD is only set in virtual time
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 0, 0));
            set_slot(0, 2, next_visit(0, 2, SLOTS + 10));
            wb_write(TW_REG_PRESCALE, 0);
            wb_write(TW_REG_CTRL, 32'h9);            // VHOLD, TICK_SRC=1
            idle(SLOTS + 20);
            wb_write(TW_REG_CTRL, 32'h3);
            expect_field(TW_REG_STATUS, TW_STATUS_HOLD_LSB, 1, 0, "HOLD (real time)");
            drain;
            check("real-time events with VHOLD", dl_n > 0, 1);
        end
    endtask

    // internal prescaler: with the CTRL write's B2 in clock s, tick n's D is
    // s + P + 1 + (n-1)(P+1); NOW in B1 counts the ticks whose D <= B1 - 3
    function integer presc_ticks;
        input integer s, p, b1;
        begin
            if (b1 - 3 < s + p + 1) presc_ticks = 0;
            else presc_ticks = (b1 - 3 - (s + p + 1)) / (p + 1) + 1;
        end
    endfunction

    task t_prescale;
        integer p, q, s, cstop;
        begin
            for (p = 0; p < 6; p = p + 1) begin
                section = "prescaler";
                reset_dut;
                wb_write(TW_REG_PRESCALE, p);
                wb_write(TW_REG_CTRL, 1);
                s = m_b2_at;
                for (q = 0; q < 14; q = q + 1) begin
                    idle(q % 3);
                    wb_read(TW_REG_NOW_LO, rv);
                    check("NOW_LO with the prescaler (docs/chip.md: D = s + P + 1 + n(P + 1))", rv, presc_ticks(s, p, m_b1_at));
                end
                wb_write(TW_REG_CTRL, 3);            // ticks decided up to its B1 still happen
                cstop = m_b1_at;
                idle(p + 3);
                expect_reg(TW_REG_NOW_LO, presc_ticks(s, p, cstop + 3));
            end
            // a long run: one tick every PRESCALE + 1 clocks
            section = "prescaler period";
            reset_dut;
            wb_write(TW_REG_PRESCALE, 9);
            wb_write(TW_REG_CTRL, 1);
            s = m_b2_at;
            idle(1000);
            wb_read(TW_REG_NOW_LO, rv);
            check("NOW_LO after 1000 clocks at PRESCALE 9", rv, presc_ticks(s, 9, m_b1_at));
            // changing PRESCALE while running takes effect at the next reload
            section = "prescaler change";
            wb_write(TW_REG_PRESCALE, 3);
            idle(9);
            wb_write(TW_REG_PRESCALE, 1);
            idle(17);
            wb_read(TW_REG_NOW_LO, rv);              // compared with the model
        end
    endtask

    // external tick input: rising edges, synchronised, one tick per edge
    task t_ext;
        integer hi, lo, nt, c;
        begin
            section = "external tick";
            reset_dut;
            // edges while another source is selected are ignored
            for (i = 0; i < 3; i = i + 1) begin
                #2 ext = 1'b1; idle(2);
                #2 ext = 1'b0; idle(2);
            end
            expect_reg(TW_REG_NOW_LO, 0);
            set_slot(0, 1, 1);
            // an input already high when the source is selected is no edge
            #3 ext = 1'b1;
            idle(4);
            wb_write(TW_REG_CTRL, 32'h6);            // IRQ_EN, TICK_SRC=2
            idle(4);
            expect_reg(TW_REG_NOW_LO, 0);
            #3 ext = 1'b0;
            idle(3);
            // first edge: sampled at the end of clock c, D in c + 2, the
            // entry pushed at the end of E = D + 8, the line high from E + 2
            c = m_cyc;
            #3 ext = 1'b1;
            t0 = -1;
            while (t0 < 0 && m_cyc < c + 20) begin
                @(negedge clk);
                if (irq === 1'b1) t0 = m_cyc;
            end
            check("ext: clocks from the sampling clock to the irq", t0 - c, 2 + 8 + 2);
            nt = 1;
            for (i = 0; i < 40; i = i + 1) begin
                hi = 1 + (i % 3); lo = 1 + ((i / 3) % 3);
                idle(hi);
                #(1 + i % 4) ext = 1'b0;          // always before the next rising edge
                idle(lo);
                #(1 + (i * 3) % 4) ext = 1'b1;
                nt = nt + 1;
            end
            idle(2);
            #2 ext = 1'b0;
            idle(8);
            expect_reg(TW_REG_NOW_LO, nt);
            for (i = 1; i <= nt; i = i + SLOTS) expect_event(0, 0, 1, i);
            expect_no_event;
            // a level held high for long is one tick
            #3 ext = 1'b1;
            idle(30);
            expect_reg(TW_REG_NOW_LO, nt + 1);
            #3 ext = 1'b0;
            idle(4);
            expect_reg(TW_REG_NOW_LO, nt + 1);
        end
    endtask

    // FIFO overflow in real time
    integer nb;
    task busy_range;     // make level-0 slots 0..nb-1 busy, each for its next visit
        begin
            nb = (SLOTS < 2 * DEPTH + 8) ? SLOTS : 2 * DEPTH + 8;
            for (i = 0; i < nb; i = i + 1) begin
                wb_write(TW_REG_ARM_LO, (i == 0) ? SLOTS : i);
                wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i));
            end
        end
    endtask

    // Docs/chip.md's guarantees, watched on the DUT in every clock: virtual
    // time never overruns the FIFO (no entry of a visit whose step virtual
    // time decided, D = E - 8, is dropped), and a late SET is dropped only if the FIFO was full
    // already (at its B1), unless real-time ticks filled it meanwhile
    reg       cmd_b1_full = 1'b0;
    reg [7:0] host_d = 8'd0;                 // host_d[i]: a virtual-time step decided i + 1 clocks ago
    integer   rt_near = 0;                   // clocks since a real-time step (D), up to 14
    always @(posedge clk) if (!rst) begin
        host_d <= {host_d[6:0], dut.step_host};
        rt_near <= (dut.step_d && !dut.step_host) ? 14 : (rt_near != 0) ? rt_near - 1 : 0;
        if (dut.w_cmd) cmd_b1_full <= dut.fifo_full;
        if (dut.push_e && !dut.push_ok && host_d[7] && dut.hit_e != 0)
            msg_err("virtual time overran the FIFO: a visit's entry dropped");
        if (dut.push_e && !dut.push_ok && dut.late_e && !cmd_b1_full && rt_near == 0)
            msg_err("a late SET dropped although the FIFO was not full at its B1");
    end

    task t_overflow;
        integer hits, tt, ntot, c;
        begin
            section = "overflow (real time)";
            reset_dut;
            busy_range;
            wb_write(TW_REG_PRESCALE, 0);
            wb_write(TW_REG_CTRL, 1);                // a tick every clock, every tick visits a busy slot
            idle(DEPTH + 16);
            // FIFO full and dropping every clock: a clear in the same clock
            // as a drop loses to it
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW (set and cleared in one clock)");
            expect_event(0, 0, 1, 1);                // the oldest entry: tick 1
            wb_write(TW_REG_CTRL, 3);
            idle(12);
            wb_read(TW_REG_NOW_LO, x);
            tt = x;
            hits = 0;
            for (i = 1; i <= tt; i = i + 1) if ((i % SLOTS) < nb) hits = hits + 1;
            wb_read(TW_REG_CNT_EVENTS, rv);
            ntot = rv;
            wb_read(TW_REG_CNT_OVERFLOW, rv);
            check("real time: CNT_EVENTS + CNT_OVERFLOW = busy visits", ntot + rv, hits);
            check("real time: CNT_OVERFLOW counts the dropped events", rv > 0, 1);
            wb_write(TW_REG_STATUS, 32'h6);          // other bits: OVERFLOW stays
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW");
            // the FIFO kept the oldest entries, in order; the slot the pop
            // freed holds one later busy tick, if one came before the stop
            drain;
            check("real time: entries kept", dl_n == DEPTH - 1 || dl_n == DEPTH, 1);
            for (i = 0; i < dl_n; i = i + 1)
                if (dl_late[i] || dl_lvl[i] != 0 || (i < DEPTH - 1 && dl_tick[i] != i + 2)
                        || (i == DEPTH - 1 && (dl_tick[i] <= DEPTH + 1 || (dl_tick[i] % SLOTS) >= nb)))
                    err("real time: kept entry's tick", dl_tick[i], i + 2);
            check("real time: CNT_EVENTS = entries kept", ntot, dl_n + 1);
            expect_status(1);                        // sticky after draining
            wb_write(TW_REG_STATUS, 1);
            expect_status(0);

            // clear vs. a new drop, with ticks PRESCALE + 1 = 8 clocks apart
            section = "overflow clear vs drop";
            reset_dut;
            busy_range;
            wb_write(TW_REG_PRESCALE, 7);
            wb_write(TW_REG_CTRL, 1);
            while (mq_n < DEPTH) @(negedge clk);
            idle(8 * 3);
            // a STATUS write whose B1 is the E of a dropping tick (the push
            // at the end of E): the drop wins; one clock later: cleared
            c = 0;
            while (!(me_vv[1] && m_steps[0] == 0)) @(negedge clk);   // an entry in H2: its E is 2 clocks on
            // R now: B1 = R + 2 = that E
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW (drop and clear in one clock)");
            while (!(me_vv[1])) @(negedge clk);
            idle(1);                                 // B1 a clock after that E
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 0, "OVERFLOW (cleared after a drop)");
            wb_write(TW_REG_CTRL, 3);
        end
    endtask

    // in virtual time a full FIFO pauses ADVANCE; nothing is dropped
    task t_vfull;
        integer nadv, got, k2;
        begin
            section = "full FIFO (virtual time)";
            reset_dut;
            busy_range;
            nadv = 2 * DEPTH + 6;                    // every tick 1..nadv visits a busy slot
            wb_write(TW_REG_ADVANCE, nadv);
            idle(DEPTH * 12 + 40);
            wb_read(TW_REG_STATUS, rv);
            check("full FIFO: virtual time waits (ADVANCING)", rv[TW_STATUS_ADVANCING_LSB], 1);
            check("full FIFO: no overflow in virtual time", rv[TW_STATUS_OVERFLOW_LSB], 0);
            // the room margin: it stops with FIFO_COUNT + 4 > DEPTH at the
            // decision, so the FIFO ends between DEPTH - 3 and DEPTH
            check("full FIFO: FIFO_COUNT at the stop >= DEPTH - 3", rv[31:16] >= DEPTH - 3, 1);
            wb_read(TW_REG_NOW_LO, x);
            check("full FIFO: NOW is the last entry's tick", x, rv[31:16]);
            k2 = 0;
            n = 0;
            while (k2 < nadv && n < 20 * nadv) begin
                read_event;
                if (e_valid) begin
                    if (e_late || e_lvl != 0 || e_tick != k2 + 1) err("full FIFO: every tick's event, in order", e_tick, k2 + 1);
                    k2 = k2 + 1;
                end
                n = n + 1;
            end
            check("full FIFO: events read", k2, nadv);
            wait_adv(100);
            expect_reg(TW_REG_NOW_LO, nadv);
            expect_status(0);
            expect_reg(TW_REG_CNT_OVERFLOW, 0);
            expect_reg(TW_REG_CNT_EVENTS, nadv);

            // The same stop with the interrupt on and coalescing that never
            // comes due (THRESH and HOLDOFF at their largest): time can only
            // go on once the host pops, so the line must rise for it.
            section = "room wait raises the line (virtual time, no VHOLD)";
            reset_dut;
            busy_range;
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            wb_write(TW_REG_CTRL, 32'h4);            // host ticks, IRQ_EN, no VHOLD
            wb_write(TW_REG_ADVANCE, nadv);
            idle(DEPTH * 12 + 40);
            wb_read(TW_REG_STATUS, rv);
            check("room wait: virtual time waits (ADVANCING)", rv[TW_STATUS_ADVANCING_LSB], 1);
            irq_is(1, "o_irq while virtual time waits for room");
            k2 = 0;
            n = 0;
            while (k2 < nadv && n < 20 * nadv) begin
                read_event;
                if (e_valid) k2 = k2 + 1;
                n = n + 1;
            end
            check("room wait: every event read", k2, nadv);
            wait_adv(100);
            expect_reg(TW_REG_NOW_LO, nadv);
            irq_is(0, "o_irq once the FIFO is empty");

            // late SETs while virtual time fills the FIFO: the room kept for
            // the ticks and the CMD in flight means none is ever dropped
            section = "full FIFO, late SETs (virtual time)";
            reset_dut;
            busy_range;
            wb_write(TW_REG_ARM_LO, 0);              // every SET below is late
            nadv = 2 * DEPTH + 6;
            wb_write(TW_REG_ADVANCE, nadv);
            for (i = 0; i < 3 * DEPTH; i = i + 1) begin
                wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i % nb));
                read_event;                          // one pop a SET: the SETs alone never fill it
            end
            run_collect(nadv * 20 + 400);
            wb_read(TW_REG_CNT_OVERFLOW, x);
            expect_reg(TW_REG_CNT_EVENTS, nadv + 3 * DEPTH - x);
            expect_reg(TW_REG_NOW_LO, nadv);
            if (DEPTH >= 8) check("late SETs dropped (the SETs alone never fill it)", x, 0);

            // A late SET that finds the FIFO full is dropped, in any mode
            // (docs/chip.md): the FIFO filled by late SETs, time stopped
            section = "late SET, full FIFO, vtime";
            reset_dut;
            wb_write(TW_REG_ARM_LO, 0);
            for (i = 0; i < DEPTH; i = i + 1) wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i % SLOTS));
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, DEPTH, "FIFO_COUNT");
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 1 % LEVELS, 5));
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW after a dropped late SET");
            expect_reg(TW_REG_CNT_OVERFLOW, 1);
            expect_reg(TW_REG_CNT_LATE, DEPTH + 1);
            expect_reg(TW_REG_CNT_EVENTS, DEPTH);
            drain;
            check("late events kept", dl_n, DEPTH);
        end
    endtask

    // bad commands, unmapped addresses, writes to read-only registers
    task t_errors;
        integer be, nc;
        begin
            section = "bad commands";
            reset_dut;
            be = 0; nc = 0;
            wb_write(TW_REG_ARM_LO, 0);              // every SET below would be late
            for (i = 0; i < 8; i = i + 1) begin
                case (i)
                    0: x = cmd_word(OP_SET, LEVELS, 0);
                    1: x = cmd_word(OP_SET, 15, 1);
                    2: x = cmd_word(OP_CLEAR, LEVELS, 2);
                    3: x = cmd_word(OP_SET, 0, SLOTS);
                    4: x = cmd_word(OP_SET, 0, 16'hFFFF);
                    5: x = cmd_word(4'd0, 0, 1);
                    6: x = cmd_word(4'd4, 0, 1);
                    default: x = cmd_word(4'd15, 0, 1);
                endcase
                wb_write(TW_REG_CMD, x);
                be = be + 1; nc = nc + 1;
                expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 1, "CMD_ERR");
                expect_reg(TW_REG_CNT_BUSERR, be);
                expect_reg(TW_REG_CNT_CMDS, nc);
                wb_write(TW_REG_STATUS, 32'h3);      // other bits: CMD_ERR stays
                expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 1, "CMD_ERR");
                wb_write(TW_REG_STATUS, 32'h4);
                expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 0, "CMD_ERR cleared");
            end
            expect_reg(TW_REG_CNT_LATE, 0);
            expect_no_event;
            // valid CLEAR_ALL with junk in the level/slot fields is no error
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 15, 16'hFFFF));
            nc = nc + 1;
            expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 0, "CMD_ERR after CLEAR_ALL");
            // none of the bad commands marked anything busy
            wb_write(TW_REG_ADVANCE, SLOTS + 2);
            wait_adv(400);
            expect_no_event;
            if (LEVELS > 1) begin
                poke_now(next_visit(LEVELS - 1, 1, m_tick_p) - 2);
                wb_write(TW_REG_ADVANCE, 4);
                wait_adv(200);
                expect_no_event;
            end

            section = "bus errors";
            for (i = TW_REG_COALESCE + 1; i < 64; i = i + ((i < 28) ? 1 : 13)) begin
                wb_read(i, rv);
                be = be + 1;
                check("read of an unmapped address", rv, 0);
                wb_write(i, 32'hFFFF_FFFF);
                be = be + 1;
            end
            expect_reg(TW_REG_CNT_BUSERR, be);
            // writes to read-only registers count and change nothing
            set_slot(0, 2, next_visit(0, 2, m_tick_p));
            wb_write(TW_REG_ADVANCE, SLOTS);
            wait_adv(SLOTS * 12 + 200);
            wb_read(TW_REG_NOW_LO, x);
            for (i = 0; i <= TW_REG_COALESCE; i = i + 1)
                if (i == TW_REG_ID || i == TW_REG_VERSION || i == TW_REG_CAPS || i == TW_REG_NOW_LO
                        || i == TW_REG_NOW_HI || i == TW_REG_EVT_INFO || i == TW_REG_EVT_TICK
                        || (i >= TW_REG_CNT_EVENTS && i <= TW_REG_CNT_BUSERR)
                        || i == TW_REG_NEXT_LO || i == TW_REG_NEXT_HI) begin
                    wb_write(i, 32'h0);
                    be = be + 1;
                end
            wb_read(TW_REG_CMD, rv);                 // CMD is write-only
            be = be + 1;
            check("read of CMD", rv, 0);
            expect_reg(TW_REG_CNT_BUSERR, be);
            expect_reg(TW_REG_ID, 32'h5457484C);
            expect_reg(TW_REG_NOW_LO, x);
            expect_reg(TW_REG_CNT_CMDS, nc + 1);
            expect_reg(TW_REG_CNT_EVENTS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "FIFO_COUNT (EVT_TICK write pops nothing)");
            expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 0, "CMD_ERR (bus errors are not command errors)");
        end
    endtask

    task t_clear_all;
        integer lv;
        begin
            section = "clear all";
            reset_dut;
            for (lv = 0; lv < LEVELS; lv = lv + 1)
                for (i = 0; i < 4; i = i + 1)
                    set_slot(lv, (i * 5 + 1) % SLOTS, next_visit(lv, (i * 5 + 1) % SLOTS, 0));
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 0, 0));
            expect_field(TW_REG_STATUS, TW_STATUS_CMD_ERR_LSB, 1, 0, "CMD_ERR");
            wb_write(TW_REG_ADVANCE, SLOTS + 2);
            wait_adv(400);
            expect_no_event;
            for (lv = 1; lv < LEVELS; lv = lv + 1)
                for (i = 0; i < 4; i = i + 1) begin
                    poke_now(next_visit(lv, (i * 5 + 1) % SLOTS, m_tick_p) - 2);
                    wb_write(TW_REG_ADVANCE, 4);
                    wait_adv(200);
                end
            expect_no_event;
            expect_reg(TW_REG_CNT_EVENTS, 0);
        end
    endtask

    // interrupt = IRQ_EN && FIFO non-empty (reset coalescing)
    task t_irq;
        begin
            section = "irq";
            reset_dut;
            set_slot(0, 2, 2);
            wb_write(TW_REG_ADVANCE, 3);
            wait_adv(100);
            if (irq !== 1'b0) err("irq with IRQ_EN=0", irq, 0);
            expect_status(1 << 16);
            wb_write(TW_REG_CTRL, 32'h4);
            if (irq !== 1'b1) err("irq with IRQ_EN=1 and an event", irq, 1);
            expect_status((1 << 16) | 32'h10);
            wb_write(TW_REG_CTRL, 32'h0);
            if (irq !== 1'b0) err("irq after IRQ_EN=0", irq, 0);
            wb_write(TW_REG_CTRL, 32'h4);
            expect_event(0, 0, 2, 2);
            if (irq !== 1'b0) err("irq after the pop", irq, 0);
            expect_status(0);
        end
    endtask

    // NOW_LO latches NOW_HI; ticks above 2^32 in events and arms
    task t_now_hi;
        integer s;
        reg [47:0] st;
        begin
            section = "NOW_HI latch";
            reset_dut;
            st = 48'h1234_FFFF_FFF0;
            poke_now(st);
            expect_reg(TW_REG_NOW_HI, 0);
            expect_reg(TW_REG_NOW_LO, 32'hFFFF_FFF0);
            expect_reg(TW_REG_NOW_HI, 32'h1234);
            s = 4;
            set_slot(0, s, 48'h1235_0000_0004);      // busy: visited every revolution
            wb_write(TW_REG_ADVANCE, 32'h20);
            run_collect(32 * 12 + 400);
            expect_reg(TW_REG_NOW_HI, 32'h1234);     // not re-latched yet
            expect_reg(TW_REG_NOW_LO, 32'h10);
            expect_reg(TW_REG_NOW_HI, 32'h1235);
            j = 0;
            for (v = st + 1; v <= st + 32'h20; v = v + 1)
                if ((v & (SLOTS - 1)) == s) begin expect_dl(j, 0, 0, s, v); j = j + 1; end
            check("events across the 2^32 carry", dl_n, j);
            // arm comparison across the 2^32 boundary
            clear_slot(0, s);
            set_slot(0, 6, 48'h1234_FFFF_FFF6);      // passed: late at once
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, 1, "FIFO_COUNT after the late SET");
            expect_event(1, 0, 6, 48'h1235_0000_0010);
            clear_slot(0, 6);
            set_slot(0, 6, next_visit(0, 6, 48'h1235_0000_0010));   // ahead: no late
            expect_no_event;
            expect_reg(TW_REG_CNT_LATE, 1);
            // LO then HI is one consistent value even when the read meets the
            // carry (prescaler: one tick per clock)
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 0, 0));
            wb_write(TW_REG_PRESCALE, 0);
            for (k = 0; k < 4; k = k + 1) begin
                st = 48'h0006_FFFF_FFF8;
                wb_write(TW_REG_CTRL, 3);
                idle(12);
                poke_now(st);
                wb_write(TW_REG_CTRL, 1);
                c = m_b2_at;
                idle(k);
                for (j = 0; j < 3; j = j + 1) begin
                    wb_read(TW_REG_NOW_LO, x);
                    i = m_b1_at;
                    wb_read(TW_REG_NOW_HI, rv);
                    check("{NOW_HI,NOW_LO} across the 2^32 carry", {rv[15:0], x}, st + presc_ticks(c, 0, i));
                end
                wb_write(TW_REG_CTRL, 3);
                idle(12);
                drain;
            end
        end
    endtask

    // ================================ race-free arming at every phase of a tick
    // A SET is judged against tick_v in its B2 (its V). Each case runs twice:
    // a dry run without the racing SET records tick_v in every clock, to place
    // the SET's B2 at clock (the visit's V) + d; the real run records it again,
    // and the expected outcome follows from the real run's tick at the SET's
    // V and whether that V is the visit's own. With ADVANCE, busy level-0
    // neighbours visited at vv-1 and vv+1 keep the counter stepping one tick
    // at a time round vv (no jump crosses it); their events come exactly once.
    reg        tr_on = 1'b0, tr_sel = 1'b0;
    integer    tr_base = 0;
    reg [47:0] tr_now  [0:255];
    reg [47:0] tr_now2 [0:255];
    always @(negedge clk) if (tr_on && m_cyc >= tr_base && m_cyc - tr_base < 256) begin
        if (tr_sel) tr_now2[m_cyc - tr_base] = m_tick_v;
        else        tr_now[m_cyc - tr_base]  = m_tick_v;
    end

    reg [23:0] rc_key = 24'hFFFFFF;
    integer    rc_tv, rc_e0;
    integer rc_cases = 0, rc_late = 0, rc_visit = 0, rc_same = 0, rc_dup = 0, rc_fail = 0, rc_skip = 0;

    // reset, counter at bb, neighbours (ADVANCE only), optional busy target,
    // then start the ticks; e0 = the B2 of the starting write (vs tr_base)
    task race_setup;
        input integer p, lv, busy, s;
        input [47:0] vv, bb;
        input integer nadv;
        begin
            reset_dut;
            poke_now(bb);
            if (p < 0) begin
                set_slot(0, (lv == 0) ? s - 1 : SLOTS - 1, vv - 1);
                set_slot(0, (lv == 0) ? s + 1 : 1, vv + 1);
            end
            arm(vv);
            if (busy) wb_write(TW_REG_CMD, cmd_word(OP_SET, lv, s));
            if (p >= 0) wb_write(TW_REG_PRESCALE, p);
            tr_base = m_cyc;
            if (p >= 0) wb_write(TW_REG_CTRL, 1);
            else wb_write(TW_REG_ADVANCE, nadv);
            e0 = m_b2_at - tr_base;
        end
    endtask

    task race_case;
        input integer p;          // prescaler value, or -1 for ADVANCE
        input integer lv;
        input integer busy;
        input integer d;          // the SET's V - the visit's V, in the dry run
        integer kk, s, tv, tv2, eset, nadv, nv, nl, no, nh, q, hs1, hs2, qb2, span;
        reg [47:0] vv, bb, tset, tl, rev;
        reg [8*100-1:0] what;
        begin : rc_body
            kk = 4;
            s = (lv == 0) ? 5 % SLOTS : 2;
            rev = 48'd1 << ((lv + 1) * B);
            vv = (lv == 0) ? 3 * SLOTS + s : (s << (lv * B));
            bb = vv - kk;
            nadv = kk + 6;
            hs1 = (lv == 0) ? s - 1 : SLOTS - 1;
            hs2 = (lv == 0) ? s + 1 : 1;
            span = (p < 0) ? 80 : (kk + 3) * (p + 1) + 16;
            // the dry run, once for each (p, lv, busy)
            if (rc_key !== {p[7:0], lv[7:0], busy[7:0]}) begin
                rc_key = {p[7:0], lv[7:0], busy[7:0]};
                tr_sel = 1'b0; tr_on = 1'b1;
                race_setup(p, lv, busy, s, vv, bb, nadv);
                idle_until(tr_base + span);
                tr_on = 1'b0;
                if (p >= 0) wb_write(TW_REG_CTRL, 3);
                rc_tv = -1;
                for (q = 0; q < span && rc_tv < 0; q = q + 1) if (tr_now[q] === vv) rc_tv = q;
                rc_e0 = e0;
            end
            tv = rc_tv;
            e0 = rc_e0;
            if (tv < 0) begin
                msg_err("race dry run: the counter never reached the visit tick");
                disable rc_body;
            end
            eset = tv + d;                           // the SET's B2, from tr_base
            if (eset - 3 < e0 + ((p < 0) ? 5 : 2)) begin   // before the start's access is over: no race
                rc_skip = rc_skip + 1;
                disable rc_body;
            end
            tr_sel = 1'b1; tr_on = 1'b1;
            race_setup(p, lv, busy, s, vv, bb, nadv);
            idle_until(tr_base + eset - 3);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, lv, s));
            qb2 = m_b2_at - tr_base;
            idle_until(tr_base + span);
            tr_on = 1'b0;
            if (p >= 0) wb_write(TW_REG_CTRL, 3);
            else wait_adv(400);
            tv2 = -1;
            for (q = 0; q < span && tv2 < 0; q = q + 1) if (tr_now2[q] === vv) tv2 = q;
            tset = tr_now2[qb2];
            drain;
            nv = 0; nl = 0; no = 0; nh = 0; tl = 0;
            for (q = 0; q < dl_n; q = q + 1) begin
                if (p < 0 && dl_lvl[q] == 0 && !dl_late[q]
                    && ((dl_slot[q] == hs1 && dl_tick[q] == vv - 1) || (dl_slot[q] == hs2 && dl_tick[q] == vv + 1)))
                    nh = nh + 1;
                else if (dl_lvl[q] == lv && dl_slot[q] == s && !dl_late[q] && dl_tick[q] == vv) nv = nv + 1;
                else if (dl_lvl[q] == lv && dl_slot[q] == s && dl_late[q]) begin nl = nl + 1; tl = dl_tick[q]; end
                else if (dl_lvl[q] == lv && dl_slot[q] == s && !dl_late[q] && dl_tick[q] > vv
                         && ((dl_tick[q] - vv) % rev) == 0) ;   // a later revolution
                else no = no + 1;
            end
            rc_cases = rc_cases + 1;
            what = 0;
            if (tv2 < 0) what = "the counter never reached the visit tick";
            else if (no != 0) what = "unrelated events";
            else if (p < 0 && nh != 2) what = "neighbour visits at vv-1 and vv+1: expected one event each";
            else if (tset < vv) begin
                // armed before the visit: the visit reports it
                if (nv != 1 || nl != 0) what = "SET before the visit: expected 1 visit event, 0 late";
                else rc_visit = rc_visit + 1;
            end else if (qb2 == tv2) begin
                // the SET in the visit's own V: that visit reports it, no late event
                if (nv != 1 || nl != 0) what = "SET in the visit's V: expected 1 visit event, 0 late";
                else rc_same = rc_same + 1;
            end else if (busy) begin
                // the visit reported the busy slot; a SET naming a passed
                // visit always reports too: the visit and one LATE event
                if (nv != 1 || nl != 1 || tl != tset)
                    what = "busy slot, SET after the visit: expected the visit event and 1 LATE event";
                else rc_dup = rc_dup + 1;
            end else begin
                if (nv != 0 || nl != 1 || tl != tset) what = "idle slot, SET after the visit: expected 1 LATE event at the SET's tick";
                else rc_late = rc_late + 1;
            end
            if (what != 0) rc_fail = rc_fail + 1;
            if (what != 0 && rc_fail > 6) count_err;             // counted, not shown
            if (what != 0 && rc_fail <= 6) begin
                msg_err(what);
                if (err_show) begin
                    $display("       case: %0s level=%0d slot=%0d %0s visit tick=%0d, SET's V = visit's V %0s%0d (real run: V clock %0d, visit V %0d, tick %0d)",
                             (p < 0) ? "ADVANCE" : "PRESCALE", lv, s, busy ? "busy" : "idle", vv,
                             (d < 0) ? "-" : "+", (d < 0) ? -d : d, qb2, tv2, tset);
                    for (q = 0; q < dl_n; q = q + 1)
                        $display("       event %0d: late=%0d level=%0d slot=%0d tick=%0d", q, dl_late[q], dl_lvl[q], dl_slot[q], dl_tick[q]);
                end
            end
        end
    endtask

    task t_race;
        integer mi, p, li, lv, busy, d, span;
        begin
            section = "race-free arming";
            for (mi = 0; mi < 4; mi = mi + 1) begin
                p = (mi == 0) ? 0 : (mi == 1) ? 1 : (mi == 2) ? 3 : -1;
                span = (p < 0) ? 1 : p + 1;
                // ADVANCE needs room for the neighbours' entries in flight
                if (p >= 0 || DEPTH >= 8)
                    for (li = 0; li < 2; li = li + 1) begin
                        lv = (li == 0) ? 0 : LEVELS - 1;
                        if (!(li == 1 && lv == 0))
                            for (busy = 0; busy < 2; busy = busy + 1)
                                for (d = -2; d <= span + 1; d = d + 1)
                                    race_case(p, lv, busy, d);
                    end
            end
            $display("race: %0d cases: %0d reported by the visit, %0d SETs in the visit's own V, %0d by one LATE event, %0d busy-slot cases with visit+LATE, %0d failed, %0d too early to race",
                     rc_cases, rc_visit, rc_same, rc_late, rc_dup, rc_fail, rc_skip);
            if (rc_same == 0 || rc_late == 0 || rc_visit == 0) err("race: every outcome seen (visit, same V, late)", 0, 1);
            if (rc_fail > 6)
                $display("ERROR [race-free arming] %0d more failing cases counted but not shown", rc_fail - 6);
        end
    endtask

    // ====================================================== next-busy search
    // The directed bitmap (db_*) is the test's own record of what it SET; its
    // brute force is next_visit over every busy slot, independent of how the
    // chip (or the model) walks the wheel.
    integer    db_n = 0;
    integer    db_lv [0:63];
    integer    db_sl [0:63];
    reg        db_found;
    reg [47:0] db_best;
    task db_truth;                  // first visit of a busy slot strictly after t
        input [47:0] t;
        integer q;
        reg [47:0] vt;
        begin
            db_found = 1'b0; db_best = 0;
            for (q = 0; q < db_n; q = q + 1) begin
                vt = next_visit(db_lv[q], db_sl[q], t);
                if (!db_found || vt < db_best) begin db_found = 1'b1; db_best = vt; end
            end
        end
    endtask

    // tw_search's length from base t on the directed bitmap: 12 + sum over
    // the levels of min(h + 5, NW + 1), h the scan word of the level's first
    // busy slot after the pointer (NW + 1 if none)
    function integer db_len;
        input [47:0] t;
        integer k2, q, p, o, om, h, ck;
        begin
            db_len = 12;
            for (k2 = 0; k2 < LEVELS; k2 = k2 + 1) begin
                p = (t >> (k2 * B)) & (SLOTS - 1);
                om = 0;
                for (q = 0; q < db_n; q = q + 1)
                    if (db_lv[q] == k2) begin
                        o = (db_sl[q] - p - 1 + 2 * SLOTS) % SLOTS + 1;
                        if (om == 0 || o < om) om = o;
                    end
                if (om == 0) ck = NW + 1;
                else begin
                    h = (((p + 1) % SLOTS) % SW + om - 1) / SW;
                    ck = (h + 5 < NW + 1) ? h + 5 : NW + 1;
                end
                db_len = db_len + ck;
            end
        end
    endfunction

    // search length monitor: mon_ec is the V clock of a command (the search
    // starts a clock later, is valid T clocks after that and SEARCHING clears
    // 3 clocks on: at mon_ec + T + 4); mon_len is what the DUT shows
    integer mon_ec = -1, mon_len = -1, mon_exp = 0, mon_max = 0, mon_n = 0;
    always @(negedge clk) if (!rst && mon_ec >= 0 && mon_len < 0 && m_cyc >= mon_ec + 3
                              && dut.searching_q === 1'b0)
        mon_len = m_cyc - mon_ec;
    task mon_start;
        input integer e;
        input integer expt;
        begin
            mon_ec = e; mon_len = -1; mon_exp = expt;
        end
    endtask
    // wait for the monitored search; its length against tw_search's formula
    // and the documented bound (nothing else may restart it meanwhile)
    task mon_wait;
        input [8*40-1:0] what;
        begin
            while (mon_len < 0 && m_cyc - mon_ec < 2 * SRCH_MAX + 40) @(negedge clk);
            if (mon_len > mon_max) mon_max = mon_len;
            mon_n = mon_n + 1;
            if (mon_len < 0) msg_err("search never finished (STATUS.SEARCHING stuck)");
            else if (mon_len != mon_exp + 4) begin
                count_err;
                if (err_show)
                    $display("ERROR [%0s] cyc=%0d %0s: SEARCHING cleared %0d clocks after the command's V, expected T + 4 = %0d",
                             section, m_cyc, what, mon_len, mon_exp + 4);
            end
            if (mon_len > SRCH_MAX + 4) err("search longer than the documented bound + 4", mon_len, SRCH_MAX + 4);
        end
    endtask

    // a bitmap command whose search is measured (time stands still)
    task cmd_mon;
        input [31:0] word;
        begin
            wb_write(TW_REG_CMD, word);
            mon_start(m_b2_at, db_len(m_tick_v));
        end
    endtask

    task db_clear_all;
        begin
            db_n = 0;
            cmd_mon(cmd_word(OP_CLEAR_ALL, 0, 0));
        end
    endtask

    // SET (lv, sl) for its next visit after t (never late) and record it
    task db_add;
        input integer lv, sl;
        input [47:0] t;
        integer q, dup;
        begin
            dup = 0;
            for (q = 0; q < db_n; q = q + 1) if (db_lv[q] == lv && db_sl[q] == sl) dup = 1;
            if (!dup && db_n < 64) begin db_lv[db_n] = lv; db_sl[db_n] = sl; db_n = db_n + 1; end
            arm(next_visit(lv, sl, t));
            cmd_mon(cmd_word(OP_SET, lv, sl));
        end
    endtask

    task db_del;
        input integer lv, sl;
        integer q, r;
        begin
            r = 0;
            for (q = 0; q < db_n; q = q + 1)
                if (!(db_lv[q] == lv && db_sl[q] == sl)) begin
                    db_lv[r] = db_lv[q]; db_sl[r] = db_sl[q]; r = r + 1;
                end
            db_n = r;
            cmd_mon(cmd_word(OP_CLEAR, lv, sl));
        end
    endtask

    // read NEXT (LO then HI) and compare with the brute force at t, capped at t + h
    task expect_next;
        input [47:0] t;
        input [31:0] h;
        input [8*48-1:0] what;
        reg [47:0] exp;
        begin
            db_truth(t);
            exp = (db_found && db_best - t <= {16'd0, h}) ? db_best : t + {16'd0, h};
            wb_read(TW_REG_NEXT_LO, x);
            wb_read(TW_REG_NEXT_HI, rv);
            if ({rv[15:0], x} !== exp) begin
                err(what, {rv[15:0], x}, exp);
                if (err_show) $display("       now=%0d horizon=%0d, %0d busy slots (first: level %0d slot %0d)",
                                           t, h, db_n, db_lv[0], db_sl[0]);
            end
        end
    endtask

    // a read of NEXT_LO right after a command: 0 while the search runs
    task next_while_searching;
        integer cr;
        begin
            wb_read(TW_REG_NEXT_LO, x);
            cr = m_b1_at;
            mon_wait("search");
            if (mon_len > 0 && cr < mon_ec + mon_len && x !== 0)
                err("NEXT_LO while STATUS.SEARCHING", x, 0);
        end
    endtask

    task t_next;
        integer lvl, tr, bm, pm, pk, q, nb, h, ntr;
        reg [47:0] t, dist;
        reg [31:0] hz;
        begin
            section = "NEXT vs brute force";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);                // no ticks: time stands still
            ntr = 12;
            for (lvl = 0; lvl < LEVELS; lvl = lvl + 1)
                for (tr = 0; tr < ntr; tr = tr + 1) begin
                    // the tick: random, level lvl's pointer at the end of the
                    // wheel, at either end of a scan word, or anywhere
                    t = {$random(seed), $random(seed)};
                    t = t & ((48'd1 << 46) - 1);
                    pm = urand(6);
                    pk = (pm == 0) ? SLOTS - 1 : (pm == 1) ? SW - 1 : (pm == 2) ? 0
                       : (pm == 3) ? SW % SLOTS : urand(SLOTS);
                    v = (SLOTS - 1);
                    v = v << (lvl * B);
                    w = pk;
                    t = (t & ~v) | (w << (lvl * B));
                    if (urand(3) == 0) t = t & ~((48'd1 << (lvl * B)) - 48'd1);   // on a visit of level lvl
                    poke_now(t);
                    db_clear_all;
                    bm = tr % 8;
                    case (bm)
                        0: db_add(lvl, pk, t);                           // under the pointer: a revolution on
                        1: db_add(lvl, (pk + SLOTS - 1) % SLOTS, t);     // just behind it: wraps round
                        2: begin db_add(lvl, pk, t); db_add(lvl, (pk + 1) % SLOTS, t); end
                        3: ;                                             // nothing busy: the longest search
                        4: begin                                         // dense, every level
                            nb = 8 + urand(24);
                            for (q = 0; q < nb; q = q + 1) db_add(urand(LEVELS), urand(SLOTS), t);
                        end
                        5: begin                                         // one slot in the last (partial) scan word
                            q = (pk + 1) % SLOTS;
                            db_add(lvl, (q % SW != 0) ? q - q % SW : pk, t);
                        end
                        default: begin
                            nb = urand(5);
                            for (q = 0; q < nb; q = q + 1) db_add(lvl, urand(SLOTS), t);
                        end
                    endcase
                    if (bm != 3 && urand(3) == 0) begin               // other levels too: earliest wins
                        nb = 1 + urand(3);
                        for (q = 0; q < nb; q = q + 1) db_add(urand(LEVELS), urand(SLOTS), t);
                    end
                    next_while_searching;
                    // horizon: default, 0, around the answer, random
                    db_truth(t);
                    dist = db_found ? db_best - t : 48'd1000;
                    h = urand(7);
                    hz = (h == 0) ? 32'hFFFF_FFFF : (h == 1) ? 0 : (h == 5) ? $random(seed)
                       : (dist > 48'hFFFF_FFFF) ? 32'hFFFF_FFFF : dist[31:0] + h - 3;
                    wb_write(TW_REG_SEARCH, hz);
                    expect_next(t, hz, "NEXT vs brute force");
                    if (h != 0) begin
                        wb_write(TW_REG_SEARCH, 32'hFFFF_FFFF);
                        expect_next(t, 32'hFFFF_FFFF, "NEXT vs brute force (no horizon)");
                    end
                end
            $display("search: %0d measured, longest %0d clocks from a command's V to SEARCHING = 0 (T + 4; bound %0d + 4)",
                     mon_n, mon_max, SRCH_MAX);
        end
    endtask

    // a command while the search runs starts it again, on the new bitmap
    task t_search_restart;
        integer d, dstep, p0, ptop, nr, tz, s5;
        reg [47:0] t;
        begin
            section = "search restart";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);
            dstep = (SRCH_MAX > 100) ? SRCH_MAX / 5 : (SRCH_MAX > 24) ? SRCH_MAX / 7 : 2;
            nr = 0;
            for (d = 0; d <= SRCH_MAX + 2; d = d + dstep) begin
                t = 48'h0000_0123_4567 + d * 48'h1_0101;
                p0 = t % SLOTS;
                ptop = (t >> ((LEVELS - 1) * B)) % SLOTS;
                // A: SET while searching. Far: the top level's slot under its
                // pointer (a top revolution on); near: level 0, 2 ticks on.
                poke_now(t);
                db_clear_all;
                db_add(LEVELS - 1, ptop, t);
                mon_wait("search");
                expect_next(t, 32'hFFFF_FFFF, "NEXT (far slot only)");
                arm(next_visit(0, (p0 + 2) % SLOTS, t));
                cmd_mon(cmd_word(OP_CLEAR, 0, (p0 + 5) % SLOTS));   // idle already: changes nothing but restarts
                idle(d);
                db_lv[db_n] = 0; db_sl[db_n] = (p0 + 2) % SLOTS; db_n = db_n + 1;
                cmd_mon(cmd_word(OP_SET, 0, (p0 + 2) % SLOTS));     // d clocks into that search
                next_while_searching;
                expect_next(t, 32'hFFFF_FFFF, "NEXT after a SET while searching");
                // B: CLEAR while searching: the near slot goes, the far one stays
                cmd_mon(cmd_word(OP_CLEAR, 0, (p0 + 5) % SLOTS));
                idle(d);
                db_del(0, (p0 + 2) % SLOTS);
                next_while_searching;
                expect_next(t, 32'hFFFF_FFFF, "NEXT after a CLEAR while searching");
                // C: CLEAR_ALL while searching
                cmd_mon(cmd_word(OP_CLEAR, 0, (p0 + 5) % SLOTS));
                idle(d);
                db_clear_all;
                next_while_searching;
                expect_next(t, 32'hFFFF_FFFF, "NEXT after CLEAR_ALL while searching");
                nr = nr + 1;
            end

            // time reaching the answer starts a new search: with tick 5's V
            // in clock v, N2 sees it in v + 2, the search starts in v + 3 from
            // tick 5 and SEARCHING clears at v + 2 + T + 4
            section = "search restart at the answer";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);
            db_n = 0;
            db_add(0, 5, 0);
            if (LEVELS > 1) db_add(1, 1, 0);
            mon_wait("search");
            expect_next(0, 32'hFFFF_FFFF, "NEXT before the ticks");
            tz = SRCH_MAX + 40;                          // a search fits between two ticks
            wb_write(TW_REG_PRESCALE, tz - 1);
            wb_write(TW_REG_CTRL, 1);                    // tick n's D at s + n * tz
            s5 = m_b2_at + 5 * tz + 4;                   // tick 5's V
            mon_start(s5 + 2, db_len(5));
            idle_until(s5 - 16);
            expect_next(4, 32'hFFFF_FFFF, "NEXT just before its tick");
            idle_until(s5 + 1);
            next_while_searching;
            expect_next(5, 32'hFFFF_FFFF, "NEXT after time reached the answer");
            wb_write(TW_REG_CTRL, 3);
            drain;
        end
    endtask

    // NEXT read while the prescaler ticks once a clock (searches are outrun
    // by time): each read is 0 (searching) or the first busy visit after the
    // bus's tick of B1 - 4, the tick the answer was last checked against
    task t_next_running;
        integer q, nz, nv, s;
        reg [47:0] nw;
        begin
            section = "NEXT while time runs";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);
            db_n = 0;
            db_add(0, 3, 0); db_add(0, 4, 0); db_add(0, 5, 0);
            db_add(0, 10, 0);
            if (SLOTS >= 256) begin db_add(0, 17, 0); db_add(0, 40, 0); end   // (gaps longer than a search remain)
            if (LEVELS > 1) db_add(1, 1, 0);
            wb_write(TW_REG_PRESCALE, 0);
            wb_write(TW_REG_CTRL, 1);
            s = m_b2_at;
            nz = 0; nv = 0;
            for (q = 0; q < 200; q = q + 1) begin
                if (q % 5 == 2) idle(1);             // both clock phases
                wb_read(TW_REG_NEXT_LO, x);
                nw = presc_ticks(s, 0, m_b1_at - 4);
                if (x == 0) nz = nz + 1;
                else begin
                    nv = nv + 1;
                    db_truth(nw);
                    if (x !== db_best[31:0]) begin
                        err("NEXT_LO (not searching) vs the first busy visit after the tick of B1 - 4", x, db_best[31:0]);
                        if (err_show) $display("       tick=%0d", nw);
                    end
                end
            end
            wb_write(TW_REG_CTRL, 3);
            $display("NEXT while time runs: %0d reads, %0d while searching", nz + nv, nz);
            if (nv == 0) err("NEXT while time runs: reads with an answer", nv, 1);
        end
    endtask

    // ============================================================ skip-ahead
    // Random sparse bitmaps, long ADVANCEs: every visit of a busy slot is
    // reported at its exact tick, in order, and the clocks taken depend on the
    // number of visits, not on the number of ticks (a search and a jump each).
    integer    ex_n;
    reg [47:0] ex_tick [0:511];
    reg [1:0]  ex_lvl  [0:511];
    reg [11:0] ex_slot [0:511];
    task t_skip;
        integer tr, ntr, lmin, q, nb, lv, sl, cnt, nticks, k2, c0, cyc, lim, ok, j0;
        reg [47:0] t0, nadv, cur, rev, tend;
        reg [63:0] tot_ticks, tot_cycles;
        begin
            section = "skip-ahead";
            tot_ticks = 0; tot_cycles = 0; j0 = st_jumps;
            ntr = (SRCH_MAX > 100) ? 5 : 8;
            for (tr = 0; tr < ntr; tr = tr + 1) begin
                reset_dut;
                t0 = {$random(seed), $random(seed)};
                t0 = t0 & ((48'd1 << 46) - 1);
                poke_now(t0);
                db_n = 0;
                // The last stretch's lowest busy level is the top one, so
                // that the run always holds one long, sparse stretch: the
                // clocks-to-ticks check below is about those (eight stretches
                // all at level 0 are dense, and failed it at seed 1795410337).
                lmin = (tr < 4) ? 0 : (tr == ntr - 1) ? LEVELS - 1 : urand(LEVELS);
                nb = 1 + urand((LEVELS == 1) ? 2 : 5);
                for (q = 0; q < nb; q = q + 1) begin
                    lv = (q == 0) ? lmin : lmin + urand(LEVELS - lmin);
                    sl = urand(SLOTS);
                    if (urand(4) == 0) sl = (t0 >> (lv * B)) % SLOTS;   // the slot under the pointer
                    db_add(lv, sl, t0);
                end
                cnt = 0;
                for (q = 0; q < db_n; q = q + 1) if (db_lv[q] == lmin) cnt = cnt + 1;
                // some 4..12 visits: as many revolutions of the lowest busy level
                rev = 48'd1 << ((lmin + 1) * B);
                q = 1000 / SRCH_MAX;
                nadv = (rev * ((q < 4) ? 4 : (q > 12) ? 12 : q)) / cnt;
                nadv = nadv / 2 + ((({$random(seed), $random(seed)} & 48'hFFFF_FFFF_FFFF)) % (nadv + 1));
                if (nadv > 48'hFFFF_FFFF) nadv = 48'hFFFF_FFFF;
                if (nadv == 0) nadv = 1;
                // the visits in (t0, t0+nadv], in order (tick, then level)
                ex_n = 0; nticks = 0; cur = t0; tend = t0 + nadv;
                db_truth(cur);
                while (db_found && db_best <= tend && nticks < 200) begin
                    cur = db_best;
                    nticks = nticks + 1;
                    for (lv = 0; lv < LEVELS; lv = lv + 1)
                        for (q = 0; q < db_n; q = q + 1)
                            if (db_lv[q] == lv && next_visit(lv, db_sl[q], cur - 1) == cur && ex_n < 512) begin
                                ex_tick[ex_n] = cur; ex_lvl[ex_n] = lv; ex_slot[ex_n] = db_sl[q];
                                ex_n = ex_n + 1;
                            end
                    db_truth(cur);
                end
                if (nticks == 200) begin nadv = cur - t0; tend = cur; end
                if (urand(2) == 0) wait_search;
                c0 = m_cyc;
                wb_write(TW_REG_ADVANCE, nadv[31:0]);
                k2 = 0; ok = 1;
                // per visit: a search, a jump with its cool-down, the steps
                // round the visit and reading its events; polls of 5 clocks
                lim = (nticks + 2) * (SRCH_MAX + 80) + 12 * ex_n + 200;
                wb_read(TW_REG_STATUS, rv);
                while ((rv[TW_STATUS_ADVANCING_LSB] || rv[31:16] != 0) && m_cyc - c0 < 4 * lim) begin
                    if (rv[31:16] != 0) begin
                        read_event;
                        while (e_valid) begin
                            if (k2 >= ex_n) begin
                                if (ok) err("skip-ahead: event beyond the expected ones (tick)", e_tick, tend);
                                ok = 0;
                            end else if (e_late || e_lvl !== ex_lvl[k2] || e_slot !== ex_slot[k2] || e_tick !== ex_tick[k2]) begin
                                if (ok) begin
                                    err("skip-ahead: event tick", e_tick, ex_tick[k2]);
                                    if (err_show)
                                        $display("       event %0d: got late=%0d level=%0d slot=%0d, expected level %0d slot %0d (ADVANCE %0d from %0d)",
                                                 k2, e_late, e_lvl, e_slot, ex_lvl[k2], ex_slot[k2], nadv, t0);
                                end
                                ok = 0;
                            end
                            k2 = k2 + 1;
                            read_event;
                        end
                    end
                    wb_read(TW_REG_STATUS, rv);
                end
                cyc = m_cyc - c0;
                if (k2 != ex_n) begin
                    err("skip-ahead: number of events", k2, ex_n);
                    if (err_show) $display("       ADVANCE %0d from %0d, %0d busy slots, lowest busy level %0d", nadv, t0, db_n, lmin);
                end
                wb_read(TW_REG_NOW_LO, x);
                wb_read(TW_REG_NOW_HI, rv);
                check("skip-ahead: counter after the ADVANCE", {rv[15:0], x}, tend);
                if (cyc > lim) begin
                    err("skip-ahead: clocks for the ADVANCE (limit: by visits, not ticks)", cyc, lim);
                    if (err_show) $display("       %0d ticks, %0d visit ticks, %0d events", nadv, nticks, ex_n);
                end
                tot_ticks = tot_ticks + nadv;
                tot_cycles = tot_cycles + cyc;
            end
            $display("skip-ahead: %0d ADVANCEs, %0d ticks in %0d clocks, %0d jumps", ntr, tot_ticks, tot_cycles, st_jumps - j0);
            if (LEVELS * B >= 12 && tot_cycles * 4 > tot_ticks) err("skip-ahead: clocks x 4 vs ticks", tot_cycles * 4, tot_ticks);

            // one busy slot far away: ADVANCE 200000 costs a few jumps (where
            // the slot's visits are few)
            section = "jump";
            if ((200000 >> ((LEVELS > 1) ? 2 * B : B)) <= 16) begin
            reset_dut;
            wait_search;
            t0 = 48'h1_0000 + 48'h300;                  // level 1 slot 3 of the next level-2 period
            if (LEVELS > 1) set_slot(1, 3, t0); else set_slot(0, 3, next_visit(0, 3, 0));
            c0 = m_cyc;
            j0 = st_jumps;
            wb_write(TW_REG_ADVANCE, 200000);
            run_collect(20000);
            cyc = m_cyc - c0;
            expect_reg(TW_REG_NOW_LO, 200000);
            $display("jump: ADVANCE 200000 over one busy slot: %0d clocks, %0d events, %0d jumps", cyc, dl_n, st_jumps - j0);
            if (LEVELS > 1) begin
                check("jump: the busy slot's visits", dl_n, 200000 / (1 << (2 * B)) + ((200000 % (1 << (2 * B))) >= 48'h300 ? 1 : 0));
                if (cyc > (dl_n + 2) * (SRCH_MAX + 80) + 200) err("jump: clocks for ADVANCE 200000", cyc, (dl_n + 2) * (SRCH_MAX + 80) + 200);
            end
            for (i = 0; i < dl_n; i = i + 1)
                if (dl_late[i]) err("jump: a late event", dl_tick[i], 0);
            end
        end
    endtask

    // ============================================================ coalescing
    // irq = IRQ_EN && FIFO not empty && (HOLD || FIFO full || entries >= THRESH
    // || age >= HOLDOFF), each flag registered; age = ticks in V since the
    // FIFO last became non-empty (saturating at 0xFFFF)
    task irq_is;
        input expv;
        input [8*48-1:0] what;
        begin
            idle(1);                                      // the line is a flop after the flags
            if (irq !== expv) err(what, irq, expv);
            wb_read(TW_REG_STATUS, rv);
            if (rv[TW_STATUS_IRQ_LSB] !== expv) err("STATUS.IRQ", rv[TW_STATUS_IRQ_LSB], expv);
        end
    endtask

    // wait (at most n clocks) for irq; returns the clock it is first high in
    integer irq_edge;
    task wait_irq;
        input integer n;
        integer w0;
        begin
            w0 = m_cyc;
            irq_edge = -1;
            while (irq_edge < 0 && m_cyc - w0 < n) begin
                @(negedge clk);
                if (irq === 1'b1) irq_edge = m_cyc;
            end
        end
    endtask

    task t_coalesce;
        integer p, th, H, s, tr, jj, dd, s0;
        begin
            section = "coalescing: threshold";
            reset_dut;
            th = (DEPTH >= 3) ? 3 : 2;
            wb_write(TW_REG_COALESCE, (th << 16) | 32'hFFFF);   // THRESH th, HOLDOFF 0xFFFF
            wb_write(TW_REG_CTRL, 32'h7);                 // IRQ_EN, no ticks: the age stays 0
            wb_write(TW_REG_ARM_LO, 0);                   // every SET below is late: one entry each
            for (i = 0; i < th; i = i + 1) begin
                wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i));
                idle(5);                                  // pushed at the end of B6, the line from B9
                irq_is(i + 1 >= th, "o_irq at THRESH entries, not before");
            end
            expect_event(1, 0, 0, 0);                     // one below the threshold
            irq_is(0, "o_irq below THRESH after a pop");
            wb_write(TW_REG_COALESCE, ((th - 1) << 16) | 32'hFFFF);
            irq_is(1, "o_irq at THRESH-1 after lowering it");
            wb_write(TW_REG_COALESCE, 32'h0000_FFFF);
            irq_is(1, "o_irq with THRESH=0 (at once)");
            wb_write(TW_REG_COALESCE, 32'h0100_0000);
            irq_is(1, "o_irq with HOLDOFF=0 (at once)");
            wb_write(TW_REG_CTRL, 32'h3);                 // IRQ_EN off masks it
            irq_is(0, "o_irq with IRQ_EN=0");
            wb_write(TW_REG_CTRL, 32'h7);
            irq_is(1, "o_irq with IRQ_EN=1 again");
            drain;
            irq_is(0, "o_irq with the FIFO empty (THRESH/HOLDOFF 0)");
            wb_write(TW_REG_COALESCE, 32'h0000_0000);
            irq_is(0, "o_irq with the FIFO empty");

            // a full FIFO raises the line whatever THRESH and HOLDOFF say
            section = "coalescing: full FIFO";
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            for (i = 0; i < DEPTH; i = i + 1) begin
                wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i % SLOTS));   // late: one entry each
                idle(5);
                irq_is(i + 1 == DEPTH, "o_irq with the FIFO full, not before");
            end
            expect_event(1, 0, 0, 0);
            irq_is(0, "o_irq one entry below full");
            drain;

            // hold-off in real time (prescaler P): the first event's tick
            // (slot 3, tick 3) has D3 = s + 3(P + 1), its entry is pushed at
            // the end of D3 + 8; ticks with V from D3 + 9 on count, the j-th
            // one after D3 being D3 + j(P + 1) + 4; the line rises 3 clocks
            // after the V of the HOLDOFF-th counted tick
            for (tr = 0; tr < 6; tr = tr + 1) begin
                section = "coalescing: hold-off";
                p = (tr % 2) ? 2 : 0;
                H = (tr < 2) ? 1 : (tr < 4) ? 5 : SLOTS / 2 - 2;
                if (H > 40) H = 40;
                s = 3;
                reset_dut;
                wb_write(TW_REG_COALESCE, 32'hFFFF_0000 | H);
                set_slot(0, s, s);
                wb_write(TW_REG_PRESCALE, p);
                wb_write(TW_REG_CTRL, 32'h5);             // IRQ_EN, prescaler
                s0 = m_b2_at;
                jj = (5 + p) / (p + 1);                   // the first counted tick after D3
                dd = s0 + s * (p + 1) + (jj + H - 1) * (p + 1) + 4 + 3;
                wait_irq(dd - m_cyc + 20);
                check("hold-off: clock of the irq rise", irq_edge, dd);
                wb_write(TW_REG_CTRL, 3);
            end

            // in virtual time a jump adds all its ticks to the age, which
            // saturates (with a 4-entry FIFO virtual time waits for it to empty)
            section = "coalescing: age in virtual time";
            if (DEPTH >= 8) begin
            reset_dut;
            wb_write(TW_REG_COALESCE, 32'hFFFF_0000 | 1000);
            wb_write(TW_REG_CTRL, 32'h4);                 // IRQ_EN, TICK_SRC=0
            wb_write(TW_REG_ARM_LO, 0);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, 3)); // late: one entry at tick 0
            clear_slot(0, 3);                             // nothing busy: an ADVANCE is one jump
            wait_search;
            irq_is(0, "o_irq at age 0");
            wb_write(TW_REG_ADVANCE, 999);
            wait_adv(200);
            irq_is(0, "o_irq at age 999, HOLDOFF 1000");
            expect_reg(TW_REG_NOW_LO, 999);
            wb_write(TW_REG_ADVANCE, 1);
            wait_adv(200);
            irq_is(1, "o_irq at age 1000, HOLDOFF 1000");
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            irq_is(0, "o_irq at age 1000, HOLDOFF 0xFFFF");
            wb_write(TW_REG_ADVANCE, 32'h0002_0000);      // one jump of 2^17 ticks: the age saturates
            wait_adv(200);
            irq_is(1, "o_irq at the saturated age, HOLDOFF 0xFFFF");
            expect_reg(TW_REG_NOW_LO, 1000 + 32'h0002_0000);
            drain;
            irq_is(0, "o_irq with the FIFO empty");
            end

            // a held virtual time needs the host at once
            section = "coalescing: HOLD";
            reset_dut;
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            set_slot(0, 3, 3);
            wb_write(TW_REG_CTRL, 32'hC);                 // VHOLD, IRQ_EN, TICK_SRC=0
            wb_write(TW_REG_ADVANCE, SLOTS);
            wait_hold(SLOTS * 12);
            expect_reg(TW_REG_NOW_LO, 3);
            irq_is(1, "o_irq while HOLD");
            wb_write(TW_REG_STATUS, 32'h2);               // release: the entry still waits
            // (with 4 entries of FIFO the one waiting leaves no room for a
            // tick, and the line stays up until the jump to the end spends
            // ADVANCE: not checked at a clock here)
            if (DEPTH > 4) irq_is(0, "o_irq after HOLD is cleared");
            wait_adv(SLOTS * 12 + 200);
            expect_reg(TW_REG_NOW_LO, SLOTS);
            irq_is(0, "o_irq (entry pending, below THRESH and HOLDOFF)");
            wb_write(TW_REG_CTRL, 32'h8);                 // IRQ_EN off: no irq even with HOLD
            expect_event(0, 0, 3, 3);
            expect_no_event;
        end
    endtask

    // ================================================================= main
    reg show_times = 1'b0;
    initial begin
        #(64'd4_000_000_000);
        msg_err("timeout");
        $display("FAIL tb_tw_core: %0d errors", errors);
        $finish;
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("ops=%d", nops)) ;
        if ($test$plusargs("trace")) trace = 1'b1;
        show_times = $test$plusargs("times");
        // +nomodel: only the directed sections' own checks (to see what they
        // catch without the model)
        if ($test$plusargs("nomodel")) chk_on = 1'b0;
        $display("tb_tw_core: LEVELS=%0d SLOT_BITS=%0d FIFO_LOG2=%0d seed=%0d ops=%0d",
                 LEVELS, SLOT_BITS, FIFO_LOG2, seed, nops);
        if (SLOT_BITS < 4) begin
            // the directed sections use slot numbers up to 7 at every level
            $display("ERROR tb_tw_core supports SLOT_BITS >= 4 only");
            $display("FAIL tb_tw_core: 1 errors");
            $finish;
        end
        @(negedge clk);
        t_ident;
        if (show_times) $display("time: %0s done at clock %0d", "t_ident", m_cyc);
        t_bus_abort;
        if (show_times) $display("time: %0s done at clock %0d", "t_bus_abort", m_cyc);
        t_advance;
        if (show_times) $display("time: %0s done at clock %0d", "t_advance", m_cyc);
        t_level0;
        if (show_times) $display("time: %0s done at clock %0d", "t_level0", m_cyc);
        t_levels;
        if (show_times) $display("time: %0s done at clock %0d", "t_levels", m_cyc);
        t_multi;
        if (show_times) $display("time: %0s done at clock %0d", "t_multi", m_cyc);
        t_late_edge;
        if (show_times) $display("time: %0s done at clock %0d", "t_late_edge", m_cyc);
        t_vhold;
        if (show_times) $display("time: %0s done at clock %0d", "t_vhold", m_cyc);
        t_prescale;
        if (show_times) $display("time: %0s done at clock %0d", "t_prescale", m_cyc);
        t_ext;
        if (show_times) $display("time: %0s done at clock %0d", "t_ext", m_cyc);
        t_overflow;
        if (show_times) $display("time: %0s done at clock %0d", "t_overflow", m_cyc);
        t_vfull;
        if (show_times) $display("time: %0s done at clock %0d", "t_vfull", m_cyc);
        t_errors;
        if (show_times) $display("time: %0s done at clock %0d", "t_errors", m_cyc);
        t_clear_all;
        if (show_times) $display("time: %0s done at clock %0d", "t_clear_all", m_cyc);
        t_irq;
        if (show_times) $display("time: %0s done at clock %0d", "t_irq", m_cyc);
        t_now_hi;
        if (show_times) $display("time: %0s done at clock %0d", "t_now_hi", m_cyc);
        t_race;
        if (show_times) $display("time: %0s done at clock %0d", "t_race", m_cyc);
        t_next;
        if (show_times) $display("time: %0s done at clock %0d", "t_next", m_cyc);
        t_search_restart;
        if (show_times) $display("time: %0s done at clock %0d", "t_search_restart", m_cyc);
        t_next_running;
        if (show_times) $display("time: %0s done at clock %0d", "t_next_running", m_cyc);
        t_skip;
        if (show_times) $display("time: %0s done at clock %0d", "t_skip", m_cyc);
        t_coalesce;
        if (show_times) $display("time: %0s done at clock %0d", "t_coalesce", m_cyc);
        t_random;
        if (show_times) $display("time: %0s done at clock %0d", "t_random", m_cyc);
        chk_on = 1'b0;
        if (errors == 0) $display("PASS tb_tw_core");
        else             $display("FAIL tb_tw_core: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
