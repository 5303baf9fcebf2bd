`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for rtl/tw_core.v.
//
//   iverilog -g2005 -Irtl -Ptb_tw_core.LEVELS=4 -Ptb_tw_core.SLOT_BITS=8 -Ptb_tw_core.FIFO_LOG2=4 \
//            -o tb tests/rtl/tb_tw_core.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v
//   vvp tb [+seed=N] [+ops=N] [+trace]
//
//   +seed=N  seed of the random section (printed at start; default 1)
//   +ops=N   operations in the random section (default 3000)
//   +trace   log every bus access with the model's state
// SLOT_BITS must be >= 4 (the directed sections use slots up to 7).
//
// Two kinds of checks run side by side:
//  * a behavioural per-cycle reference model of the chip (section "reference
//    model") follows the bus, the tick input and reset, including the
//    next-busy search engine cycle by cycle, ADVANCE's skip-ahead and the
//    interrupt coalescing; every bus read is compared with the model's
//    prediction, and ack, irq, the tick counter and STATUS.SEARCHING are
//    compared every cycle;
//  * directed sections compute their own expected values from the register
//    documentation (rtl/tw_regs.toml) and the timing contract in tw_core.v:
//    among them NEXT against a brute force over the bitmap, search restarts
//    and the documented search-length bound, skip-ahead over random sparse
//    bitmaps (every event at its tick, cycles bounded by visits not ticks),
//    and coalescing (THRESH, HOLDOFF, HOLD, IRQ_EN).
// The random section drives random traffic and relies on the model.
//
// Bus protocol (tasks wb_write / wb_read): one cycle with cyc=stb=1 (effects
// at that rising edge, ack in the next cycle), then one cycle with cyc=stb=0.
// All stimulus changes happen at falling edges; "ncyc" counts rising edges, so
// an access started when ncyc == c takes effect at edge c+1.
//
// White-box: the tests that need ticks above 2^32 or far-away level visits,
// and an occasional random step, jump the tick counter by assigning
// dut.now_q (and the model's counter) between bus accesses; such a jump also
// drops the search's answer (dut.s_valid_q/s_run_q), which was about the old
// time, so a new search starts. The per-cycle checks read dut.now_q and
// dut.status.
module tb_tw_core;
    parameter integer LEVELS    = 4;
    parameter integer SLOT_BITS = 8;
    parameter integer FIFO_LOG2 = 4;

`include "tw_regs.vh"

    localparam integer SLOTS = 1 << SLOT_BITS;
    localparam integer DEPTH = 1 << FIFO_LOG2;
    localparam integer B     = SLOT_BITS;
    localparam [3:0] OP_SET = 4'd1, OP_CLEAR = 4'd2, OP_CLEAR_ALL = 4'd3;

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

    integer ncyc = 0;
    always @(posedge clk) ncyc = ncyc + 1;

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
                $display("ERROR [%0s] cyc=%0d %0s: got 0x%0h expected 0x%0h", section, ncyc, what, got, exp);
        end
    endtask

    task msg_err;
        input [8*100-1:0] what;
        begin
            count_err;
            if (err_show)
                $display("ERROR [%0s] cyc=%0d %0s", section, ncyc, what);
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
                $display("ERROR [%0s] cyc=%0d %0s %0s%0s: got 0x%0h expected 0x%0h", section, ncyc, pre, reg_name(a), post, got, exp);
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
    // Follows the register documentation and the timing contract: in each
    // cycle the counter steps at most once (by one tick, or in virtual time by
    // a skip-ahead jump), visits and commands are judged against the stepped
    // value, all events of a cycle share one FIFO entry.
    //
    // The next-busy search engine is modelled cycle by cycle:
    //  * a search starts at the edge of every SET/CLEAR/CLEAR_ALL, at the edge
    //    where time reaches the answer, and whenever it is neither running nor
    //    valid (after reset); its base is the counter after that edge;
    //  * it scans the levels 0, 1, .., m-1 in turn; at each level it walks
    //    the slots in circular order from the pointer p (p+1 .. p, the last one
    //    a revolution on) SW = min(16, 2^b) slots a cycle in aligned words, so
    //    a level takes (word of the first busy slot, counted from the word of
    //    p+1) + 1 cycles, or 2^b/SW + 1 cycles when it has no busy slot;
    //  * the answer is the earliest of the levels' first busy visits.
    // The model's own reading of the documentation where the RTL leaves a
    // choice: an answer that time has already reached (the visit passed while
    // the search ran) is no answer: STATUS.SEARCHING stays 1, NEXT reads 0 and
    // ADVANCE takes one tick, until the search started at that edge is done.
    // NEXT itself is predicted from now, not from the model's search state:
    // the first visit of any busy slot strictly after now, capped at
    // now + SEARCH. (The directed section "NEXT vs brute force" checks the
    // same against next_visit over every busy slot.)
    localparam integer SW         = (SLOTS < 16) ? SLOTS : 16;   // slots scanned a cycle
    localparam integer NWORDS     = SLOTS / SW;
    localparam integer SRCH_LEN   = LEVELS * (NWORDS + 1);       // longest search, edges from start to done
    localparam integer SRCH_BOUND = SRCH_LEN + 1;                // documented bound (cycles)

    reg [47:0] m_now;
    reg [SLOTS-1:0] m_bv [0:LEVELS-1];  // busy bits, one vector per level
    reg [1:0]  m_src;
    reg        m_irqen, m_vhold;
    reg [31:0] m_presc, m_pcnt, m_adv, m_arm_lo;
    reg [15:0] m_arm_hi, m_nowhi;
    reg        m_ovf, m_hold, m_cmderr;
    reg [2:0]  m_sync;
    reg [31:0] m_cnt_ev, m_cnt_late, m_cnt_ovf, m_cnt_cmds, m_cnt_buserr;
    reg        m_ack;
    reg [31:0] m_rdata, m_rmask;        // predicted read data and which bits are defined
    reg [47:0] mq_tick [0:DEPTH-1];
    reg [3:0]  mq_mask [0:DEPTH-1];
    reg        mq_late [0:DEPTH-1];
    reg [3:0]  mq_lvl  [0:DEPTH-1];
    reg [15:0] mq_slot [0:DEPTH-1];
    integer    mq_rd, mq_n;
    reg [3:0]  m_cons_mask;
    reg        m_cons_late;
    // search engine, horizon, coalescing
    reg        m_srun, m_svalid, m_sfound;
    integer    m_slvl, m_si, m_so, m_shw, m_slen;
    reg [47:0] m_sbase, m_sbest;
    reg [31:0] m_horizon;
    reg [15:0] m_nexthi, m_thresh, m_holdoff, m_age;

    // model statistics (coverage)
    integer st_late = 0, st_visit_ev = 0, st_drop = 0, st_multi = 0, st_fullpause = 0;
    integer st_srch_n = 0, st_srch_max = 0, st_jumps = 0, st_stale = 0, st_restart_cmd = 0;
    integer st_srch_all = 0;            // longest search of the whole run (never reset)
    reg [63:0] st_jump_ticks = 0;

    // head event as EVT_INFO hands it out: late arm first, then levels upward
    reg        mh_valid, mh_late, mh_last;
    reg [3:0]  mh_lvl, mh_bit;
    reg [15:0] mh_slot;
    reg [47:0] mh_tick;

    task m_head;
        integer j;
        reg [3:0] rem;
        begin
            mh_valid = mq_n > 0;
            mh_late = 1'b0; mh_lvl = 0; mh_bit = 0; mh_slot = 0; mh_tick = 0; mh_last = 1'b0;
            if (mh_valid) begin
                mh_tick = mq_tick[mq_rd];
                rem = mq_mask[mq_rd] & ~m_cons_mask;
                if (mq_late[mq_rd] && !m_cons_late) begin
                    mh_late = 1'b1;
                    mh_lvl  = mq_lvl[mq_rd];
                    mh_slot = mq_slot[mq_rd];
                    mh_last = rem == 0;
                end else begin
                    for (j = LEVELS - 1; j >= 0; j = j - 1)
                        if (rem[j]) begin
                            mh_lvl = j;
                            mh_bit = 4'b0001 << j;
                        end
                    mh_slot = (mh_tick >> (mh_lvl * B)) & (SLOTS - 1);
                    mh_last = (rem & ~mh_bit) == 0;
                end
            end
        end
    endtask

    // the search's answer is usable: valid and still ahead of now
    function m_sok;
        input dummy;
        reg [47:0] a;
        begin
            a = m_sbest - m_now;
            m_sok = m_svalid && !(m_sfound && (a == 0 || a[47]));
        end
    endfunction

    // the interrupt line: IRQ_EN && pending && (HOLD || FIFO full || count >= THRESH
    // || age >= HOLDOFF)
    function m_irq;
        input dummy;
        begin
            m_irq = m_irqen && mq_n > 0 && (m_hold || mq_n == DEPTH || mq_n >= m_thresh || m_age >= m_holdoff);
        end
    endfunction

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
    // slot in circular order p+1 .. p, 0 if the level has none
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

    // the first visit of any busy slot strictly after t: at each level the
    // first busy slot after the pointer, a level-k slot step being 2^(kb) ticks
    reg        mt_found;
    reg [47:0] mt_tick;
    task m_truth;
        input [47:0] t;
        integer k2, o2;
        reg [47:0] vt;
        begin
            mt_found = 1'b0; mt_tick = 0;
            for (k2 = 0; k2 < LEVELS; k2 = k2 + 1) begin
                o2 = m_first_off(k2, t);
                if (o2 != 0) begin
                    vt = o2;
                    vt = (t & ~((48'd1 << (k2 * B)) - 48'd1)) + (vt << (k2 * B));
                    if (!mt_found || vt - t < mt_tick - t) begin
                        mt_found = 1'b1;
                        mt_tick  = vt;
                    end
                end
            end
        end
    endtask

    // NEXT as it reads now
    reg [47:0] m_next;
    task m_next_pred;
        begin
            m_next = 0;
            if (m_sok(1'b0)) begin
                m_truth(m_now);
                if (mt_found && mt_tick - m_now <= {16'd0, m_horizon}) m_next = mt_tick;
                else m_next = m_now + {16'd0, m_horizon};
            end
        end
    endtask

    // first busy slot of level m_slvl after the pointer of m_sbase (offset
    // 1..SLOTS, 0: none) and the scan cycle that finds it
    task m_scan_level;
        integer p, q;
        begin
            p = (m_sbase >> (m_slvl * B)) & (SLOTS - 1);
            m_so = m_first_off(m_slvl, m_sbase);
            q = (p + 1) % SLOTS;
            m_shw = (m_so == 0) ? -1 : ((q % SW) + m_so - 1) / SW;
        end
    endtask

    // register read value (before this cycle's update) and whether the
    // access is allowed
    reg [31:0] mr_val, mr_mask;
    reg        mr_ok;
    task m_regread;
        input [5:0] a;
        input       w;
        begin
            mr_val = 0; mr_mask = 32'hFFFF_FFFF; mr_ok = 1'b1;
            case (a)
                TW_REG_ID:       begin mr_val = TW_ID_MAGIC; mr_ok = !w; end
                TW_REG_VERSION:  begin mr_val = {TW_VERSION_MAJOR, TW_VERSION_MINOR}; mr_ok = !w; end
                TW_REG_CAPS:     begin mr_val = LEVELS | (SLOT_BITS << 4) | (FIFO_LOG2 << 8) | (48 << 16); mr_ok = !w; end
                TW_REG_CTRL:     mr_val = {28'd0, m_vhold, m_irqen, m_src};
                TW_REG_PRESCALE: mr_val = m_presc;
                TW_REG_STATUS:   mr_val = m_ovf | (m_hold << 1) | (m_cmderr << 2) | ((m_adv != 0) << 3)
                                          | (m_irq(1'b0) << 4) | (!m_sok(1'b0) << 5) | (mq_n << 16);
                TW_REG_NOW_LO:   begin mr_val = m_now[31:0]; mr_ok = !w; end
                TW_REG_NOW_HI:   begin mr_val = {16'd0, m_nowhi}; mr_ok = !w; end
                TW_REG_ADVANCE:  mr_val = m_adv;
                TW_REG_ARM_LO:   mr_val = m_arm_lo;
                TW_REG_ARM_HI:   mr_val = {16'd0, m_arm_hi};
                TW_REG_CMD:      begin mr_ok = w; end
                TW_REG_EVT_INFO: begin
                    mr_ok = !w;
                    if (mh_valid)
                        mr_val = {1'b1, mh_late, mh_lvl[1:0], mh_slot[11:0], mh_tick[47:32]};
                    else begin
                        mr_val = 0; mr_mask = 32'h8000_0000;   // only VALID is defined
                    end
                end
                TW_REG_EVT_TICK: begin
                    mr_ok = !w;
                    mr_val = mh_tick[31:0];
                    if (!mh_valid) mr_mask = 0;
                end
                TW_REG_CNT_EVENTS:   begin mr_val = m_cnt_ev;     mr_ok = !w; end
                TW_REG_CNT_LATE:     begin mr_val = m_cnt_late;   mr_ok = !w; end
                TW_REG_CNT_OVERFLOW: begin mr_val = m_cnt_ovf;    mr_ok = !w; end
                TW_REG_CNT_CMDS:     begin mr_val = m_cnt_cmds;   mr_ok = !w; end
                TW_REG_CNT_BUSERR:   begin mr_val = m_cnt_buserr; mr_ok = !w; end
                TW_REG_SEARCH:       mr_val = m_horizon;
                TW_REG_NEXT_LO:      begin
                    mr_ok = !w;
                    if (!w) begin m_next_pred; mr_val = m_next[31:0]; end
                end
                TW_REG_NEXT_HI:      begin mr_val = {16'd0, m_nexthi}; mr_ok = !w; end
                TW_REG_COALESCE:     mr_val = {m_thresh, m_holdoff};
                default: begin mr_val = 0; mr_ok = 1'b0; end
            endcase
        end
    endtask

    always @(posedge clk) begin : model
        reg acc, wr, rd, presc_pulse, ext_rise, adv_step, step, cmdw, tok, cset, cclr, call, cbad;
        reg passed, seen, late, push, push_ok, pop, pop_entry, vhold_now, sok, stale, sstart, shit;
        reg [47:0] nn, vtick, ahead, old_now, amt, quiet, cand, sa;
        reg [LEVELS-1:0] hit;
        reg [15:0] vs [0:3];
        reg [3:0] op, clvl;
        reg [15:0] cslot;
        reg [32:0] sum;
        reg [47:0] agesum;
        integer k, nev, wi, old_n;
        if (rst) begin
            m_now = 0; m_src = 0; m_irqen = 0; m_vhold = 0; m_presc = 0; m_pcnt = 0; m_adv = 0;
            m_arm_lo = 0; m_arm_hi = 0; m_nowhi = 0; m_ovf = 0; m_hold = 0; m_cmderr = 0;
            m_sync = 0; m_cnt_ev = 0; m_cnt_late = 0; m_cnt_ovf = 0; m_cnt_cmds = 0; m_cnt_buserr = 0;
            m_ack = 0; m_rdata = 0; m_rmask = 0; mq_rd = 0; mq_n = 0; m_cons_mask = 0; m_cons_late = 0;
            m_srun = 0; m_svalid = 0; m_sfound = 0; m_slvl = 0; m_si = 0; m_so = 0; m_shw = -1; m_slen = 0;
            m_sbase = 0; m_sbest = 0; m_horizon = 32'hFFFF_FFFF; m_nexthi = 0;
            m_thresh = 0; m_holdoff = 0; m_age = 0;
            for (k = 0; k < LEVELS; k = k + 1) m_bv[k] = 0;
        end else begin
            acc = cyc && stb && !m_ack;
            wr  = acc && we;
            rd  = acc && !we;
            m_head;
            presc_pulse = m_src == 2'd1 && m_pcnt == 0;
            ext_rise    = m_src == 2'd2 && m_sync[1] && !m_sync[2];
            adv_step    = m_src == 2'd0 && m_adv != 0 && !m_hold && mq_n < DEPTH;
            if (m_src == 2'd0 && m_adv != 0 && !m_hold && mq_n == DEPTH) st_fullpause = st_fullpause + 1;
            step = presc_pulse || ext_rise || adv_step;
            // skip-ahead: with a usable answer, ADVANCE jumps to the tick before
            // the next busy visit, or by all remaining ticks if that comes first
            sok = m_sok(1'b0);
            amt = step ? 48'd1 : 48'd0;
            if (adv_step && sok) begin
                if (!m_sfound) amt = {16'd0, m_adv};
                else begin
                    quiet = m_sbest - m_now - 48'd1;
                    amt = (quiet > {16'd0, m_adv}) ? {16'd0, m_adv} : quiet;
                end
                if (amt == 0) amt = 1;
            end
            if (m_svalid && !sok && adv_step) st_stale = st_stale + 1;
            if (amt > 1) begin st_jumps = st_jumps + 1; st_jump_ticks = st_jump_ticks + amt; end
            nn = m_now + amt;
            hit = 0;
            for (k = 0; k < LEVELS; k = k + 1) begin
                vs[k] = (nn >> (k * B)) & (SLOTS - 1);
                if (step && (k == 0 || (nn & ((48'd1 << (k * B)) - 48'd1)) == 0) && m_bv[k][vs[k]])
                    hit[k] = 1'b1;
            end
            op    = wdat[31:28];
            clvl  = wdat[19:16];
            cslot = wdat[15:0];
            cmdw  = wr && adr == TW_REG_CMD;
            tok   = clvl < LEVELS && cslot < SLOTS;
            cset  = cmdw && op == OP_SET && tok;
            cclr  = cmdw && op == OP_CLEAR && tok;
            call  = cmdw && op == OP_CLEAR_ALL;
            cbad  = cmdw && !(cset || cclr || call);
            vtick  = {m_arm_hi, m_arm_lo};
            ahead  = vtick - nn;
            passed = ahead == 0 || ahead[47];
            seen   = cset && hit[clvl] && vs[clvl] == cslot;
            late   = cset && passed && !seen;
            nev = late;
            for (k = 0; k < LEVELS; k = k + 1) nev = nev + hit[k];
            pop       = rd && adr == TW_REG_EVT_TICK && mq_n > 0;
            pop_entry = pop && mh_last;
            push      = hit != 0 || late;
            push_ok   = mq_n < DEPTH || pop_entry;
            if (acc) m_regread(adr, we);
            else mr_ok = 1'b1;
            vhold_now = m_src == 2'd0 && m_vhold;      // CTRL before this edge's write
            sa     = m_sbest - nn;
            stale  = m_svalid && m_sfound && (sa == 0 || sa[47]);
            sstart = (!m_srun && !m_svalid) || stale || cset || cclr || call;
            old_n  = mq_n;

            // ---- update (every right-hand side above used the old state)
            old_now = m_now;
            m_ack = acc;
            if (rd) begin m_rdata = mr_val; m_rmask = mr_mask; end
            m_sync = {m_sync[1:0], ext};
            m_now  = nn;
            sum = {1'b0, m_adv} - (adv_step ? amt[32:0] : 33'd0)
                  + ((wr && adr == TW_REG_ADVANCE) ? {1'b0, wdat} : 33'd0);
            m_adv = sum[32] ? 32'hFFFF_FFFF : sum[31:0];
            if (m_src != 2'd1 || m_pcnt == 0) m_pcnt = m_presc; else m_pcnt = m_pcnt - 1;
            if (rd && adr == TW_REG_NOW_LO) m_nowhi = old_now[47:32];
            if (rd && adr == TW_REG_NEXT_LO) m_nexthi = m_next[47:32];
            // age: ticks the FIFO has been non-empty, saturating
            if (old_n == 0) m_age = 0;
            else begin
                agesum = {32'd0, m_age} + amt;
                m_age = (agesum > 48'hFFFF) ? 16'hFFFF : agesum[15:0];
            end
            if (wr) case (adr)
                TW_REG_CTRL:     begin m_src = wdat[1:0]; m_irqen = wdat[2]; m_vhold = wdat[3]; end
                TW_REG_PRESCALE: m_presc = wdat;
                TW_REG_ARM_LO:   m_arm_lo = wdat;
                TW_REG_ARM_HI:   m_arm_hi = wdat[15:0];
                TW_REG_SEARCH:   m_horizon = wdat;
                TW_REG_COALESCE: begin m_holdoff = wdat[15:0]; m_thresh = wdat[31:16]; end
                default: ;
            endcase
            if (acc && !mr_ok) m_cnt_buserr = m_cnt_buserr + 1;
            if (wr && adr == TW_REG_STATUS) begin
                if (wdat[0]) m_ovf = 0;
                if (wdat[1]) m_hold = 0;
                if (wdat[2]) m_cmderr = 0;
            end
            // FIFO: write at the tail (if full, the tail is the head being popped)
            if (push && push_ok) begin
                wi = (mq_rd + mq_n) % DEPTH;
                mq_tick[wi] = nn; mq_mask[wi] = hit; mq_late[wi] = late;
                mq_lvl[wi] = clvl; mq_slot[wi] = cslot;
                m_cnt_ev = m_cnt_ev + nev;
                if (vhold_now) m_hold = 1;
                st_visit_ev = st_visit_ev + nev - late;
                if (nev > 1) st_multi = st_multi + 1;
            end
            if (push && !push_ok) begin
                m_ovf = 1;
                m_cnt_ovf = m_cnt_ovf + nev;
                st_drop = st_drop + 1;
            end
            if (pop) begin
                if (mh_last) begin
                    m_cons_mask = 0; m_cons_late = 0;
                    mq_rd = (mq_rd + 1) % DEPTH;
                    mq_n = mq_n - 1;
                end else if (mh_late) m_cons_late = 1;
                else m_cons_mask = m_cons_mask | mh_bit;
            end
            if (push && push_ok) mq_n = mq_n + 1;
            if (cmdw) m_cnt_cmds = m_cnt_cmds + 1;
            if (cbad) begin m_cmderr = 1; m_cnt_buserr = m_cnt_buserr + 1; end
            if (late) begin m_cnt_late = m_cnt_late + 1; st_late = st_late + 1; end
            // search engine (scans the bitmap as it was before this edge)
            if (sstart) begin
                if (m_srun && (cset || cclr || call)) st_restart_cmd = st_restart_cmd + 1;
                m_srun = 1; m_svalid = 0; m_sfound = 0; m_slvl = 0; m_si = 0; m_slen = 0;
                m_sbase = nn;
            end else if (m_srun) begin
                if (m_si == 0) m_scan_level;
                shit = m_so != 0 && m_shw == m_si;
                if (shit) begin
                    cand = m_so;
                    cand = (m_sbase & ~((48'd1 << (m_slvl * B)) - 48'd1)) + (cand << (m_slvl * B));
                    if (!m_sfound || cand - m_sbase < m_sbest - m_sbase) begin
                        m_sbest = cand;
                        m_sfound = 1;
                    end
                end
                m_slen = m_slen + 1;
                if (!(shit || m_si == NWORDS)) m_si = m_si + 1;
                else if (m_slvl == LEVELS - 1) begin
                    m_srun = 0; m_svalid = 1;
                    st_srch_n = st_srch_n + 1;
                    if (m_slen > st_srch_max) st_srch_max = m_slen;
                    if (m_slen > st_srch_all) st_srch_all = m_slen;
                end else begin
                    m_slvl = m_slvl + 1; m_si = 0;
                end
            end
            if (call) for (k = 0; k < LEVELS; k = k + 1) m_bv[k] = 0;
            else if (cset || cclr) m_bv[clvl][cslot] = cset;
        end
    end

    // +trace: log every bus access and every model push/drop
    reg trace = 1'b0;
    always @(posedge clk) if (trace && !rst) begin
        if (cyc && stb && !m_ack)
            $display("trace cyc=%0d %s %0s dat=%h  (model now=%0d src=%0d adv=%0d fifo=%0d hold=%0d srch=%0d/%0d best=%0d)", ncyc + 1,
                     we ? "W" : "R", reg_name(adr), we ? wdat : 32'h0, m_now, m_src, m_adv, mq_n, m_hold,
                     m_srun, m_svalid, m_sbest);
    end

    // ack, stall and irq against the model, every cycle; white-box: the tick
    // counter and STATUS.SEARCHING too, so a wrong jump shows at once
    reg chk_on = 1'b1;
    always @(negedge clk) if (!rst && chk_on) begin
        if (ack !== m_ack)  err("o_wb_ack vs model", ack, m_ack);
        if (stall !== 1'b0) err("o_wb_stall", stall, 0);
        if (irq !== m_irq(1'b0)) err("o_irq vs model", irq, m_irq(1'b0));
        if (dut.now_q !== m_now) err("tick counter (dut.now_q) vs model", dut.now_q, m_now);
        if (dut.status[TW_STATUS_SEARCHING_LSB] !== !m_sok(1'b0))
            err("STATUS.SEARCHING (dut.status) vs model", dut.status[TW_STATUS_SEARCHING_LSB], !m_sok(1'b0));
    end

    // ================================================================ bus
    task wb_write;
        input [5:0]  a;
        input [31:0] d;
        begin
            cyc = 1'b1; stb = 1'b1; we = 1'b1; adr = a; wdat = d;
            @(negedge clk);
            if (ack !== 1'b1) err_reg("no ack for write to", a, "", ack, 1);
            cyc = 1'b0; stb = 1'b0; we = 1'b0; wdat = $random;
            @(negedge clk);
        end
    endtask

    task wb_read;
        input  [5:0]  a;
        output [31:0] d;
        begin
            cyc = 1'b1; stb = 1'b1; we = 1'b0; adr = a; wdat = $random;
            @(negedge clk);
            if (ack !== 1'b1) err_reg("no ack for read of", a, "", ack, 1);
            d = rdat;
            if ((rdat & m_rmask) !== (m_rdata & m_rmask))
                err_reg("read", a, " (vs model)", rdat, m_rdata);
            cyc = 1'b0; stb = 1'b0;
            @(negedge clk);
        end
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
                             section, ncyc, reg_name(a), fname, (rv >> lsb) & mask, exp);
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

    // wait until the next access would take effect at edge c+1
    task idle_until;
        input integer c;
        begin
            if (ncyc > c) msg_err("testbench schedule overrun (idle_until in the past)");
            while (ncyc < c) @(negedge clk);
        end
    endtask

    task reset_dut;
        begin
            rst = 1'b1; cyc = 1'b0; stb = 1'b0; we = 1'b0; ext = 1'b0;
            @(negedge clk);
            @(negedge clk);
            rst = 1'b0;
        end
    endtask

    // jump the counter (white-box); the search's answer was about the old
    // time, so it is dropped and a new search starts at the next edge
    task poke_now;
        input [47:0] v;
        begin
            dut.now_q = v;
            m_now = v;
            dut.s_valid_q = 1'b0;
            dut.s_run_q   = 1'b0;
            m_svalid = 1'b0;
            m_srun   = 1'b0;
            dut.arm_gap_q = {dut.arm_hi_q, dut.arm_lo_q} - v;
            -> poked;
        end
    endtask

    // The bitmaps fetch each level's next slot a cycle ahead, and the core
    // keeps the distance to the armed tick, all from the old time: redo them
    // as if the counter had always been at the new one.
    event poked;
    genvar gk;
    generate
        for (gk = 0; gk < LEVELS; gk = gk + 1) begin : g_refetch
            always @(poked) begin : refetch
                reg [SLOT_BITS-1:0] sl;
                sl = dut.now_q[gk*SLOT_BITS +: SLOT_BITS] + 1'b1;
                dut.g_level[gk].u_bitmap.visit_raw_q  = dut.g_level[gk].u_bitmap.mem_visit[sl >> $clog2(SW)];
                dut.g_level[gk].u_bitmap.visit_bit_q  = sl % SW;
                dut.g_level[gk].u_bitmap.visit_seen_q = dut.g_level[gk].u_bitmap.written_q[sl >> $clog2(SW)];
                dut.g_level[gk].u_bitmap.visit_byp_q  = 1'b0;
                dut.ahead_slots_q[gk*SLOT_BITS +: SLOT_BITS] = sl;
            end
        end
    endgenerate

    // STATUS without SEARCHING (which the model checks on every read)
    task expect_status;
        input [31:0] exp;
        begin
            wb_read(TW_REG_STATUS, rv);
            if ((rv & ~32'h20) !== exp) err_reg("read", TW_REG_STATUS, " (but SEARCHING)", rv & ~32'h20, exp);
        end
    endtask

    // poll STATUS until SEARCHING is 0 (SRCH_BOUND + a few cycles at most)
    task wait_search;
        integer w0;
        begin
            w0 = ncyc;
            wb_read(TW_REG_STATUS, rv);
            while (rv[TW_STATUS_SEARCHING_LSB] && ncyc - w0 < 2 * SRCH_BOUND + 20)
                wb_read(TW_REG_STATUS, rv);
            if (rv[TW_STATUS_SEARCHING_LSB]) msg_err("STATUS.SEARCHING stuck at 1");
        end
    endtask

    // search length monitor: set mon_ec to the edge of a command (or of the
    // tick that reaches the answer); mon_len becomes the number of edges after
    // it until the DUT's STATUS.SEARCHING reads 0 (white-box, every cycle)
    integer mon_ec = -1, mon_len = -1, mon_max = 0;
    always @(negedge clk) if (!rst && mon_ec >= 0 && mon_len < 0 && ncyc >= mon_ec
                              && dut.status[TW_STATUS_SEARCHING_LSB] === 1'b0)
        mon_len = ncyc - mon_ec;
    task mon_start;
        input integer e;
        begin
            mon_ec = e; mon_len = -1;
        end
    endtask
    // wait for the monitored search and check its length against the bound
    // (nothing else may restart the search meanwhile: no ticks)
    task mon_wait;
        input [8*40-1:0] what;
        begin
            while (mon_len < 0 && ncyc - mon_ec < 2 * SRCH_BOUND + 20) @(negedge clk);
            if (mon_len > mon_max) mon_max = mon_len;
            if (mon_len < 0) msg_err("search never finished (STATUS.SEARCHING stuck)");
            else if (mon_len == 0) err("search length: SEARCHING was 0 right after the restart", 0, 1);
            else if (mon_len > SRCH_BOUND) begin
                count_err;
                if (err_show)
                    $display("ERROR [%0s] cyc=%0d %0s: search took %0d cycles, documented bound %0d",
                             section, ncyc, what, mon_len, SRCH_BOUND);
            end
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
    task drain;
        begin
            dl_n = 0;
            read_event;
            while (e_valid && dl_n < 256) begin
                dl_late[dl_n] = e_late; dl_lvl[dl_n] = e_lvl; dl_slot[dl_n] = e_slot; dl_tick[dl_n] = e_tick;
                dl_n = dl_n + 1;
                read_event;
            end
        end
    endtask

    // ==================================================== directed sections
    integer i, j, k, n, c, t0, e0;
    reg [47:0] v, w;
    reg [31:0] x;

    task t_ident;
        begin
            section = "ident/reset";
            reset_dut;
            // the search starts by itself after reset (idle and invalid)
            expect_field(TW_REG_STATUS, TW_STATUS_SEARCHING_LSB, 1, 1, "SEARCHING right after reset");
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
        end
    endtask

    // ADVANCE in TICK_SRC=0: one tick per clock while the search runs; with
    // its answer ready, one step jumps to the tick before the next busy visit,
    // or by all remaining ticks if that comes first
    task t_advance;
        integer E, s, nt, ee;
        reg [47:0] v0, vv;
        begin
            section = "advance";
            reset_dut;
            wait_search;
            E = ncyc + 1;
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR_ALL, 0, 0));   // the search restarts at edge E
            e0 = ncyc + 1;
            wb_write(TW_REG_ADVANCE, 1000);                       // ticks from edge e0+1
            // nothing is busy: the search scans every word of every level and is
            // done at edge E+SRCH_LEN; edges up to that one take one tick each,
            // the next one takes all the rest
            for (j = 0; ncyc < E + SRCH_LEN + 4; j = j + 1) begin
                c  = ncyc + 1;                       // a read takes effect at edge c
                ee = c - 1;                          // and returns the state after edge c-1
                nt = (ee <= E + SRCH_LEN) ? ee - e0 : 1000;
                case (j % 3)
                    0: begin wb_read(TW_REG_NOW_LO, rv);  check("NOW_LO while advancing", rv, nt); end
                    1: begin wb_read(TW_REG_ADVANCE, rv); check("ADVANCE remaining", rv, 1000 - nt); end
                    default: begin
                        wb_read(TW_REG_STATUS, rv);
                        check("STATUS.SEARCHING while advancing", rv[TW_STATUS_SEARCHING_LSB], ee < E + SRCH_LEN);
                        check("STATUS.ADVANCING", rv[TW_STATUS_ADVANCING_LSB], nt != 1000);
                    end
                endcase
            end
            expect_reg(TW_REG_NOW_LO, 1000);
            expect_reg(TW_REG_ADVANCE, 0);
            expect_field(TW_REG_STATUS, TW_STATUS_ADVANCING_LSB, 1, 0, "ADVANCING");
            // answer ready and nothing busy: a whole ADVANCE is one step
            wb_write(TW_REG_ADVANCE, 12345);
            expect_reg(TW_REG_NOW_LO, 13345);
            expect_reg(TW_REG_ADVANCE, 0);
            // adding while advancing
            wb_write(TW_REG_ADVANCE, 10);
            wb_write(TW_REG_ADVANCE, 5);
            expect_reg(TW_REG_NOW_LO, 13360);
            // a busy slot: the first step lands on the tick before its visit,
            // the next one on the visit; then one tick per clock while the
            // search started by the visit runs
            s = 7;
            v0 = 13360;
            vv = next_visit(0, s, v0);
            set_slot(0, s, vv);
            wait_search;
            expect_reg(TW_REG_NEXT_LO, vv);
            e0 = ncyc + 1;
            wb_write(TW_REG_ADVANCE, 3 * SLOTS);
            wb_read(TW_REG_NOW_LO, rv);              // after edge e0+1
            check("NOW_LO after the first step (tick before the visit)", rv, vv - 1);
            wb_read(TW_REG_NOW_LO, rv);              // after edge e0+3
            check("NOW_LO two steps after the visit", rv, vv + 1);
            idle(4 * SRCH_BOUND + 10);
            expect_reg(TW_REG_NOW_LO, v0 + 3 * SLOTS);
            for (i = 0; i < 3; i = i + 1) expect_event(0, 0, s, vv + i * SLOTS);
            expect_no_event;
            // ADVANCE does not count with the prescaler selected
            wb_write(TW_REG_PRESCALE, 32'hFFFF);
            wb_write(TW_REG_CTRL, 1);
            wb_write(TW_REG_ADVANCE, 10);
            idle(12);
            expect_reg(TW_REG_ADVANCE, 10);
            expect_reg(TW_REG_NOW_LO, v0 + 3 * SLOTS);
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
            e0 = ncyc + 1;
            wb_write(TW_REG_ADVANCE, 3 * SLOTS);
            // irq rises right after the edge that reaches tick s (ADVANCE may
            // jump, so the counter is looked at, not the number of cycles)
            t0 = -1;
            while (ncyc < e0 + 3 * SLOTS + 2 && t0 < 0) begin
                @(negedge clk);
                if (irq === 1'b1) begin t0 = ncyc; v = dut.now_q; end
            end
            check("tick counter (dut.now_q) when irq first rises", v, s);
            if (t0 - e0 > s) err("cycles from ADVANCE to the first event (no faster than one tick a clock)", t0 - e0, s);
            idle(3 * SLOTS + 2);
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF,
                         (DEPTH < 6) ? DEPTH : 6, "FIFO_COUNT");
            // virtual time pauses while the FIFO is full and resumes as it drains
            for (i = 0; i < 6; i = i + 1) begin
                if (i >= DEPTH) idle(SLOTS + 2);
                expect_event(0, 0, (i % 2) ? s2 : s, ((i % 2) ? s2 : s) + (i / 2) * SLOTS);
            end
            expect_no_event;
            if (irq !== 1'b0) err("irq after draining", irq, 0);
            // CLEAR: no more reports
            wb_write(TW_REG_CMD, cmd_word(OP_CLEAR, 0, s));
            wb_write(TW_REG_ADVANCE, 2 * SLOTS);
            idle(2 * SLOTS + 2);
            expect_event(0, 0, s2, s2 + 3 * SLOTS);
            expect_event(0, 0, s2, s2 + 4 * SLOTS);
            expect_no_event;
            clear_slot(0, s2);
            wb_write(TW_REG_ADVANCE, SLOTS + 1);
            idle(SLOTS + 3);
            expect_no_event;
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
                idle(14);
                expect_event(0, lv, s, v);
                expect_no_event;
                // next revolution of this level
                poke_now(v + rev - 5);
                wb_write(TW_REG_ADVANCE, 10);
                idle(12);
                expect_event(0, lv, s, v + rev);
                expect_no_event;
                // ticks whose field lv equals s but whose low bits are not zero: no visit
                poke_now(v + rev);
                wb_write(TW_REG_ADVANCE, 20);
                idle(22);
                expect_no_event;
                // a slot of that level one step further is visited one level-(lv-1) revolution later
                clear_slot(lv, s);
                w = next_visit(lv, (s + 1) % SLOTS, v + rev + 20);
                set_slot(lv, (s + 1) % SLOTS, w);
                poke_now(w - 3);
                wb_write(TW_REG_ADVANCE, 6);
                idle(8);
                expect_event(0, lv, (s + 1) % SLOTS, w);
                expect_no_event;
            end
        end
    endtask

    // all levels visited in one tick, plus a late arm in the same cycle:
    // one FIFO entry, events handed out late arm first then levels upward
    task t_multi;
        integer lv, sl, late_slot;
        begin
            section = "multi-level entry";
            reset_dut;
            v = (LEVELS > 1) ? (48'd1 << ((LEVELS - 1) * B)) : SLOTS;   // slot 1 at the top level, 0 below
            late_slot = 3;
            poke_now(v - 8);
            for (lv = 0; lv < LEVELS; lv = lv + 1) begin
                sl = (v >> (lv * B)) & (SLOTS - 1);
                set_slot(lv, sl, v);
            end
            wait_search;                    // answer: v, 8 ticks ahead
            expect_reg(TW_REG_NEXT_LO, v[31:0]);
            arm(v - 7);                     // already passed: the SET below is late
            e0 = ncyc + 1;
            wb_write(TW_REG_ADVANCE, 8);    // edge e0+1 jumps to v-1, edge e0+2 reaches v
            idle_until(e0 + 1);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, late_slot));   // effect at the edge of tick v
            idle(4);
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
            expect_no_event;
        end
    endtask

    // VHOLD: virtual time stops right after the tick with an event
    task t_vhold;
        integer s1, s2;
        begin
            section = "vhold";
            reset_dut;
            s1 = 3; s2 = 7;
            set_slot(0, s1, s1);
            set_slot(0, s2, s2);
            wb_write(TW_REG_CTRL, 32'h8);            // VHOLD, TICK_SRC=0
            wb_write(TW_REG_ADVANCE, SLOTS);
            idle(SLOTS + 4);
            expect_reg(TW_REG_NOW_LO, s1);
            expect_reg(TW_REG_ADVANCE, SLOTS - s1);
            expect_field(TW_REG_STATUS, 0, 32'hF, 32'hA, "HOLD|ADVANCING");
            wb_write(TW_REG_STATUS, 32'h5);          // other w1c bits: HOLD stays
            idle(4);
            expect_reg(TW_REG_NOW_LO, s1);
            expect_event(0, 0, s1, s1);
            idle(4);
            expect_reg(TW_REG_NOW_LO, s1);           // reading the event does not release it
            wb_write(TW_REG_STATUS, 32'h2);
            idle(SLOTS + 4);
            expect_reg(TW_REG_NOW_LO, s2);
            expect_reg(TW_REG_ADVANCE, SLOTS - s2);
            expect_field(TW_REG_STATUS, TW_STATUS_HOLD_LSB, 1, 1, "HOLD");
            wb_write(TW_REG_STATUS, 32'h2);
            idle(SLOTS + 4);
            expect_reg(TW_REG_NOW_LO, SLOTS);
            expect_reg(TW_REG_ADVANCE, 0);
            expect_field(TW_REG_STATUS, 0, 32'hF, 0, "HOLD|ADVANCING");
            expect_event(0, 0, s2, s2);
            expect_no_event;
            // VHOLD without ADVANCE: HOLD is only set in virtual time
            wb_write(TW_REG_PRESCALE, 0);
            wb_write(TW_REG_CTRL, 32'h9);            // VHOLD, TICK_SRC=1
            idle(SLOTS);
            wb_write(TW_REG_CTRL, 32'h3);
            expect_field(TW_REG_STATUS, TW_STATUS_HOLD_LSB, 1, 0, "HOLD (real time)");
        end
    endtask

    // internal prescaler: one tick every PRESCALE+1 cycles
    task t_prescale;
        integer p, q;
        begin
            for (p = 0; p < 6; p = p + 1) begin
                section = "prescaler";
                reset_dut;
                wb_write(TW_REG_PRESCALE, p);
                e0 = ncyc + 1;
                wb_write(TW_REG_CTRL, 1);            // ticks at edges e0 + n*(p+1)
                for (q = 0; q < 14; q = q + 1) begin
                    idle(q % 3);
                    c = ncyc + 1;                    // the read takes effect at edge c
                    wb_read(TW_REG_NOW_LO, rv);      // and returns the count after edge c-1
                    check("NOW_LO with the prescaler", rv, (c - 1 - e0) / (p + 1));
                end
                c = ncyc + 1;
                wb_write(TW_REG_CTRL, 3);            // the tick at edge c still happens
                idle(p + 3);
                expect_reg(TW_REG_NOW_LO, (c - e0) / (p + 1));
            end
            // changing PRESCALE while running takes effect at the next reload
            section = "prescaler change";
            reset_dut;
            wb_write(TW_REG_PRESCALE, 3);
            wb_write(TW_REG_CTRL, 1);
            idle(9);
            wb_write(TW_REG_PRESCALE, 1);
            idle(17);
            wb_read(TW_REG_NOW_LO, rv);              // compared with the model
        end
    endtask

    // external tick input: rising edges, synchronised, one tick per edge
    task t_ext;
        integer hi, lo, nt;
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
            // first edge: measure the synchroniser latency through the irq
            c = ncyc;
            #3 ext = 1'b1;                           // between edges c and c+1
            t0 = -1;
            while (t0 < 0 && ncyc < c + 10) begin
                @(negedge clk);
                if (irq === 1'b1) t0 = ncyc;
            end
            check("ext edge to tick latency (edges)", t0 - c, 3);
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
            idle(5);
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

    task t_overflow;
        integer hits, tt, tstop, tp, ll, ls, tp_hit, hl;
        begin
            section = "overflow (real time)";
            reset_dut;
            busy_range;
            wb_write(TW_REG_ARM_LO, 0);              // a SET below is late
            wb_write(TW_REG_PRESCALE, 0);
            e0 = ncyc + 1;
            wb_write(TW_REG_CTRL, 1);                // tick n at edge e0+n, every tick visits a busy slot
            idle_until(e0 + DEPTH + 2);
            // FIFO full since tick DEPTH. A drop in the same cycle as the
            // clear: the new occurrence wins.
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW (set and cleared in one cycle)");
            // a late arm dropped with the visit of the same cycle: both count
            hl = nb < SLOTS || LEVELS > 1;          // an idle slot exists for it
            if (nb < SLOTS) begin ll = 0; ls = SLOTS - 1; end else begin ll = 1; ls = 0; end
            if (hl) wb_write(TW_REG_CMD, cmd_word(OP_SET, ll, ls));
            else idle(2);
            // a pop in the same cycle as a visit: that visit's entry is taken
            c = ncyc;
            expect_event(0, 0, 1, 1);                // EVT_TICK pops at edge c+3
            tp = c + 3 - e0;
            tp_hit = (tp % SLOTS) < nb;
            tstop = ncyc + 1;
            wb_write(TW_REG_CTRL, 3);                // last tick at edge tstop
            tt = tstop - e0;
            hits = 0;
            for (i = 1; i <= tt; i = i + 1) if ((i % SLOTS) < nb) hits = hits + 1;
            expect_reg(TW_REG_NOW_LO, tt);
            expect_status(1 | ((DEPTH - 1 + tp_hit) << 16));
            expect_reg(TW_REG_CNT_EVENTS, DEPTH + tp_hit);
            expect_reg(TW_REG_CNT_OVERFLOW, hits + hl - DEPTH - tp_hit);
            expect_reg(TW_REG_CNT_LATE, hl);
            wb_write(TW_REG_STATUS, 32'h6);          // other bits: OVERFLOW stays
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW");
            for (i = 2; i <= DEPTH; i = i + 1)
                expect_event(0, 0, i % SLOTS, i);
            if (tp_hit) expect_event(0, 0, tp % SLOTS, tp);
            expect_no_event;
            expect_status(1);            // sticky after draining
            wb_write(TW_REG_STATUS, 1);
            expect_status(0);
            expect_reg(TW_REG_CNT_OVERFLOW, hits + hl - DEPTH - tp_hit);

            // clear vs. a new drop in the same cycle, with ticks far enough
            // apart (PRESCALE=3: tick n at edge e0+4n) to read STATUS between
            section = "overflow clear vs drop";
            reset_dut;
            busy_range;
            wb_write(TW_REG_PRESCALE, 3);
            e0 = ncyc + 1;
            wb_write(TW_REG_CTRL, 1);
            idle_until(e0 + 4 * (DEPTH + 2));        // clear one edge after a dropping tick
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 0, "OVERFLOW (cleared between drops)");
            idle_until(e0 + 4 * (DEPTH + 4) - 1);    // clear at the edge of a dropping tick
            wb_write(TW_REG_STATUS, 1);
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW (drop and clear in one cycle)");
            wb_write(TW_REG_CTRL, 3);
        end
    endtask

    // in virtual time a full FIFO pauses ADVANCE; nothing is dropped
    task t_vfull;
        integer nadv, got;
        begin
            section = "full FIFO (virtual time)";
            reset_dut;
            busy_range;
            nadv = 2 * DEPTH + 6;                    // every tick 1..nadv visits a busy slot
            wb_write(TW_REG_ADVANCE, nadv);
            idle(DEPTH + 10);
            expect_reg(TW_REG_NOW_LO, DEPTH);
            expect_reg(TW_REG_ADVANCE, nadv - DEPTH);
            expect_status((DEPTH << 16) | 32'h8);
            // one pop lets exactly one more tick through
            expect_event(0, 0, 1 % SLOTS, 1);
            expect_reg(TW_REG_ADVANCE, nadv - DEPTH - 1);
            idle(5);
            expect_reg(TW_REG_NOW_LO, DEPTH + 1);
            got = 1;
            for (i = 2; i <= nadv; i = i + 1) expect_event(0, 0, i % SLOTS, i);
            expect_no_event;
            expect_reg(TW_REG_NOW_LO, nadv);
            expect_status(0);
            expect_reg(TW_REG_CNT_OVERFLOW, 0);
            expect_reg(TW_REG_CNT_EVENTS, nadv);

            // A late SET while the FIFO is full in virtual time: docs/chip.md
            // says it is dropped as in real time ("in any mode"; the driver
            // never arms late in virtual time), although rtl/tw_regs.toml
            // calls STATUS.OVERFLOW "real time only". The chip.md rule is checked.
            section = "late SET, full FIFO, vtime";
            reset_dut;
            busy_range;
            wb_write(TW_REG_ADVANCE, DEPTH + 1);
            idle(DEPTH + 6);                         // FIFO full after tick DEPTH
            expect_field(TW_REG_STATUS, TW_STATUS_FIFO_COUNT_LSB, 32'hFFFF, DEPTH, "FIFO_COUNT");
            clear_slot(0, 1);                        // visited at tick 1 already
            wb_write(TW_REG_ARM_LO, 1);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, 1));   // late: visit 1 has passed
            expect_field(TW_REG_STATUS, TW_STATUS_OVERFLOW_LSB, 1, 1, "OVERFLOW after a dropped late SET");
            expect_reg(TW_REG_CNT_OVERFLOW, 1);
            expect_reg(TW_REG_CNT_LATE, 1);
            expect_reg(TW_REG_CNT_EVENTS, DEPTH);
            expect_reg(TW_REG_ADVANCE, 1);           // still paused, nothing else dropped
            drain;
            got = 0;
            for (i = 0; i < dl_n; i = i + 1)
                if (dl_late[i]) got = got + 1;
            check("late events queued by a SET that found the FIFO full", got, 0);
            check("events drained (DEPTH visits + the paused tick)", dl_n, DEPTH + 1);
            expect_reg(TW_REG_CNT_OVERFLOW, 1);
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
            idle(SLOTS + 4);
            expect_no_event;
            if (LEVELS > 1) begin
                poke_now(next_visit(LEVELS - 1, 1, m_now) - 2);
                wb_write(TW_REG_ADVANCE, 4);
                idle(6);
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
            set_slot(0, 2, next_visit(0, 2, m_now));
            wb_write(TW_REG_ADVANCE, SLOTS);
            idle(SLOTS + 2);
            wb_read(TW_REG_NOW_LO, x);
            for (i = 0; i <= TW_REG_COALESCE; i = i + 1)
                if (i == TW_REG_ID || i == TW_REG_VERSION || i == TW_REG_CAPS || i == TW_REG_NOW_LO
                        || i == TW_REG_NOW_HI || i == TW_REG_EVT_INFO || i == TW_REG_EVT_TICK
                        || (i >= TW_REG_CNT_EVENTS && i <= TW_REG_CNT_BUSERR)
                        || i == TW_REG_NEXT_LO || i == TW_REG_NEXT_HI) begin
                    wb_write(i, 32'h0);
                    be = be + 1;
                end
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
            idle(SLOTS + 4);
            expect_no_event;
            for (lv = 1; lv < LEVELS; lv = lv + 1)
                for (i = 0; i < 4; i = i + 1) begin
                    poke_now(next_visit(lv, (i * 5 + 1) % SLOTS, m_now) - 2);
                    wb_write(TW_REG_ADVANCE, 4);
                    idle(6);
                end
            expect_no_event;
            expect_reg(TW_REG_CNT_EVENTS, 0);
        end
    endtask

    // interrupt = IRQ_EN && FIFO non-empty
    task t_irq;
        begin
            section = "irq";
            reset_dut;
            set_slot(0, 2, 2);
            wb_write(TW_REG_ADVANCE, 3);
            idle(5);
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
        integer s, ne;
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
            idle(32'h24);
            expect_reg(TW_REG_NOW_HI, 32'h1234);     // not re-latched yet
            expect_reg(TW_REG_NOW_LO, 32'h10);
            expect_reg(TW_REG_NOW_HI, 32'h1235);
            for (v = st + 1; v <= st + 32'h20; v = v + 1)
                if ((v & (SLOTS - 1)) == s) expect_event(0, 0, s, v);
            expect_no_event;
            // arm comparison across the 2^32 boundary
            clear_slot(0, s);
            set_slot(0, 6, 48'h1234_FFFF_FFF6);      // passed: late at once
            expect_event(1, 0, 6, 48'h1235_0000_0010);
            clear_slot(0, 6);
            set_slot(0, 6, next_visit(0, 6, 48'h1235_0000_0010));   // ahead: no late
            expect_no_event;
            expect_reg(TW_REG_CNT_LATE, 1);
            // LO then HI is one consistent value even when the read meets the
            // carry (prescaler: one tick per clock whatever the search does)
            wb_write(TW_REG_PRESCALE, 0);
            for (k = 0; k < 4; k = k + 1) begin
                st = 48'h0006_FFFF_FFFD;
                poke_now(st);
                e0 = ncyc + 1;
                wb_write(TW_REG_CTRL, 1);            // tick st+n at edge e0+n
                idle(k);
                for (j = 0; j < 3; j = j + 1) begin
                    c = ncyc + 1;                    // NOW_LO takes effect at edge c
                    wb_read(TW_REG_NOW_LO, x);
                    wb_read(TW_REG_NOW_HI, rv);
                    check("{NOW_HI,NOW_LO} across the 2^32 carry", {rv[15:0], x}, st + (c - 1 - e0));
                end
                wb_write(TW_REG_CTRL, 0);
                drain;
            end
            // one ADVANCE step across the carry (slot 6's visit is 9 ticks on)
            st = 48'h0006_FFFF_FFFD;
            poke_now(st);
            wait_search;
            wb_write(TW_REG_ADVANCE, 8);
            wb_read(TW_REG_NOW_LO, x);
            wb_read(TW_REG_NOW_HI, rv);
            check("{NOW_HI,NOW_LO} one ADVANCE step across the 2^32 carry", {rv[15:0], x}, st + 8);
            wb_write(TW_REG_ADVANCE, 1);
            expect_event(0, 0, 6, st + 9);
            expect_no_event;
        end
    endtask

    // ================================ race-free arming at every phase of a tick
    // With the prescaler the tick of every edge is known in advance. With
    // ADVANCE the chip may jump, so each ADVANCE case runs twice: a dry run
    // without the racing SET records the counter after every edge (the
    // model's, which the per-cycle check ties to the DUT's), then the real run
    // SETs at a chosen edge around the one that reaches the visit tick vv.
    // Busy level-0 neighbours visited at vv-1 and vv+1 restart the search
    // there, so the counter steps onto vv by a single tick (checked) and the
    // race is still at tick resolution; their own events must come at exactly
    // vv-1 and vv+1.
    reg        tr_on = 1'b0, tr_sel = 1'b0;
    integer    tr_e0 = 0;
    reg [47:0] tr_now  [0:127];
    reg [47:0] tr_now2 [0:127];
    always @(negedge clk) if (tr_on && ncyc >= tr_e0 && ncyc - tr_e0 < 128) begin
        if (tr_sel) tr_now2[ncyc - tr_e0] = m_now;
        else        tr_now[ncyc - tr_e0]  = m_now;
    end

    integer rc_cases = 0, rc_late = 0, rc_visit = 0, rc_dup = 0, rc_fail = 0;
    integer rc_adv = 0, rc_single = 0, rc_skip = 0;

    // reset, counter at bb, neighbours (ADVANCE only), optional busy target,
    // then start the ticks: the first one at edge e0+1
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
            e0 = ncyc + 1;
            tr_e0 = e0;
            if (p >= 0) wb_write(TW_REG_CTRL, 1);
            else wb_write(TW_REG_ADVANCE, nadv);
        end
    endtask

    task race_case;
        input integer p;          // prescaler value, or -1 for ADVANCE
        input integer lv;
        input integer busy;
        input integer d;          // SET edge - edge of the tick that reaches v
        integer per, kk, s, tv, eset, nadv, nv, nl, no, nh, q, stop, hs1, hs2, single;
        reg [47:0] vv, bb, tset, tl, rev;
        reg [8*100-1:0] what;
        begin : rc_body
            per = (p < 0) ? 1 : p + 1;
            kk = 6;
            s = (lv == 0) ? 5 % SLOTS : 2;
            rev = 48'd1 << ((lv + 1) * B);
            vv = (lv == 0) ? 3 * SLOTS + s : (s << (lv * B));
            bb = vv - kk;
            nadv = kk + 8;
            hs1 = (lv == 0) ? s - 1 : SLOTS - 1;
            hs2 = (lv == 0) ? s + 1 : 1;
            single = 1;
            if (p >= 0) tv = kk * per;               // edge (after e0) at which the counter reaches vv
            else begin
                tr_sel = 1'b0; tr_on = 1'b1;
                race_setup(p, lv, busy, s, vv, bb, nadv);
                idle_until(e0 + nadv + 24);
                tr_on = 1'b0;
                tv = -1;
                for (q = 1; q < nadv + 24 && tv < 0; q = q + 1) if (tr_now[q] >= vv) tv = q;
                if (tv < 0) begin
                    msg_err("race dry run: the counter never reached the visit tick");
                    disable rc_body;
                end
                single = tr_now[tv - 1] == vv - 1 && tr_now[tv] == vv;
                rc_adv = rc_adv + 1;
                if (single) rc_single = rc_single + 1;
            end
            eset = tv + d;                           // edge of the SET, after e0
            if (eset < 2) begin                      // before the ticks start: not a race
                rc_skip = rc_skip + 1;
                disable rc_body;
            end
            tr_sel = 1'b1; tr_on = p < 0;
            race_setup(p, lv, busy, s, vv, bb, nadv);
            idle_until(e0 + eset - 1);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, lv, s));   // takes effect at edge e0+eset
            if (p >= 0) begin
                tset = bb + eset / per;
                stop = e0 + ((tv > eset) ? tv : eset) + 2 * per + 2;
                idle_until(stop);
                wb_write(TW_REG_CTRL, 3);
            end else begin
                tset = tr_now[eset];
                q = 0;
                while (m_adv != 0 && q < 100) begin @(negedge clk); q = q + 1; end
                idle(2);
                tr_on = 1'b0;
                if (tr_now2[eset] !== tset) err("race: counter at the SET (real run vs dry run)", tr_now2[eset], tset);
            end
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
            if (no != 0) what = "unrelated events";
            else if (p < 0 && nh != 2) what = "neighbour visits at vv-1 and vv+1: expected one event each";
            else if (tset < vv) begin
                // armed before the visit: the visit reports it
                if (nv != 1 || nl != 0) what = "SET before the visit: expected 1 visit event, 0 late";
                else rc_visit = rc_visit + 1;
            end else if (busy && eset == tv) begin
                // the visit in the same cycle reports the busy slot; no second (late) event
                if (nv != 1 || nl != 0) what = "busy slot, SET in the visit cycle: expected 1 visit event, 0 late";
                else rc_visit = rc_visit + 1;
            end else if (busy) begin
                // The visit at vv reported the busy slot, and a SET naming a
                // passed visit always reports too (the chip cannot tell whether
                // the bit was already set when that visit passed): exactly the
                // visit event plus one LATE event at the SET's tick.
                if (nv != 1 || nl != 1 || tl != tset)
                    what = "busy slot, SET after the visit: expected the visit event and 1 LATE event";
                else rc_dup = rc_dup + 1;
            end else begin
                // idle slot, visit passed: exactly one late event at the tick of the SET
                if (nv != 0 || nl != 1 || tl != tset) what = "idle slot, SET at/after the visit: expected 1 LATE event at the SET's tick";
                else rc_late = rc_late + 1;
            end
            if (what != 0) rc_fail = rc_fail + 1;
            if (what != 0 && rc_fail > 6) count_err;             // counted, not shown
            if (what != 0 && rc_fail <= 6) begin
                msg_err(what);
                if (err_show) begin
                    $display("       case: %0s level=%0d slot=%0d %0s visit tick=%0d, SET edge = visit edge %0s%0d (counter then %0d)",
                             (p < 0) ? "ADVANCE" : "PRESCALE", lv, s, busy ? "busy" : "idle", vv,
                             (d < 0) ? "-" : "+", (d < 0) ? -d : d, tset);
                    if (p >= 0) $display("       PRESCALE=%0d", p);
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
                span = 2 * ((p < 0) ? 1 : p + 1) + 2;
                for (li = 0; li < 3; li = li + 1) begin
                    lv = (li == 0) ? 0 : (li == 1) ? 1 : LEVELS - 1;
                    if (lv < LEVELS && !(li == 2 && lv <= 1))
                        for (busy = 0; busy < 2; busy = busy + 1)
                            for (d = -span; d <= span; d = d + 1)
                                race_case(p, lv, busy, d);
                end
            end
            $display("race: %0d cases: %0d reported by the visit, %0d by one LATE event, %0d busy-slot cases with visit+LATE, %0d failed; ADVANCE: %0d of %0d dry runs step onto the visit by one tick, %0d SETs before the first tick skipped",
                     rc_cases, rc_visit, rc_late, rc_dup, rc_fail, rc_single, rc_adv, rc_skip);
            if (rc_single != rc_adv) err("race: ADVANCE dry runs that step onto the visit tick by one tick", rc_single, rc_adv);
            if (rc_fail > 6)
                $display("ERROR [race-free arming] %0d more failing cases counted but not shown", rc_fail - 6);
        end
    endtask

    // ================================================================ random
    integer seed = 1, seed2;
    integer nops = 3000;
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
            st_late = 0; st_visit_ev = 0; st_drop = 0; st_multi = 0; st_fullpause = 0;
            st_srch_n = 0; st_srch_max = 0; st_restart_cmd = 0; st_jumps = 0; st_jump_ticks = 0; st_stale = 0;
            seed2 = seed ^ 32'h5A5A_1234;
            wb_write(TW_REG_CTRL, 32'h4);
            for (n = 0; n < nops; n = n + 1) begin
                op = urand(1000);
                if (op < 280) begin                        // SET
                    lv = urand(LEVELS); sl = urand(SLOTS);
                    if (urand(8) == 0) sl = 0;
                    rev = 48'd1 << ((lv + 1) * B);
                    nvis = next_visit(lv, sl, m_now);
                    ch = urand(100);
                    if (ch < 55) v = nvis;
                    else if (ch < 70) v = nvis - rev;
                    else if (ch < 80) v = nvis + rev;
                    else v = m_now + urand(9) - 4;
                    if (urand(4) != 0 || v[47:32] != m_arm_hi) wb_write(TW_REG_ARM_HI, v[47:32]);
                    wb_write(TW_REG_ARM_LO, v[31:0]);
                    if (urand(3) == 0) idle(urand(4));
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
                    idle(1 + urand(20));
                end else if (op < 985) begin               // toggle random ext-tick noise
                    ext_rand = !ext_rand;
                    idle(1);
                end else if (op < 990) begin               // jump to just before a level boundary
                    lv = urand(LEVELS);
                    rev = 48'd1 << (lv * B);
                    v = m_now - (m_now % rev) + rev - urand(6);
                    if (v > m_now) poke_now(v);
                end else begin
                    x = m_now;
                    wb_read(TW_REG_NOW_LO, rv);
                    wb_read(TW_REG_NOW_HI, rv);
                end
            end
            ext_rand = 1'b0;
            wb_write(TW_REG_CTRL, 32'h3);
            drain;
            while (dl_n != 0) drain;
            for (i = 0; i <= TW_REG_COALESCE; i = i + 1) wb_read(i, rv);
            $display("random: %0d ops, model saw %0d visit events, %0d late arms, %0d multi-event entries, %0d dropped entries, %0d full-FIFO pause cycles",
                     nops, st_visit_ev, st_late, st_multi, st_drop, st_fullpause);
            $display("random: %0d searches (longest %0d cycles), %0d restarted by a command, %0d ADVANCE jumps over %0d ticks, %0d steps on a passed answer",
                     st_srch_n, st_srch_max, st_restart_cmd, st_jumps, st_jump_ticks, st_stale);
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

    // a bitmap command whose search is measured (mon_*)
    task cmd_mon;
        input [31:0] word;
        begin
            mon_start(ncyc + 1);
            wb_write(TW_REG_CMD, word);
        end
    endtask

    task db_clear_all;
        begin
            cmd_mon(cmd_word(OP_CLEAR_ALL, 0, 0));
            db_n = 0;
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

    // a read of NEXT_LO right after a command: 0 if the search still ran
    task next_while_searching;
        integer cr;
        begin
            cr = ncyc + 1;                           // takes effect at edge cr, sees the state after cr-1
            wb_read(TW_REG_NEXT_LO, x);
            mon_wait("search");
            if (mon_len > 0 && cr - 1 < mon_ec + mon_len && x !== 0)
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
            ntr = 48;
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
            $display("search: longest measured %0d cycles (nothing busy: %0d), documented bound %0d",
                     mon_max, SRCH_LEN, SRCH_BOUND);
        end
    endtask

    // a command while the search runs starts it again, on the new bitmap
    task t_search_restart;
        integer d, dstep, p0, ptop, nr;
        reg [47:0] t, vn;
        begin
            section = "search restart";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);
            dstep = (SRCH_LEN > 24) ? SRCH_LEN / 12 : 1;
            nr = 0;
            for (d = 0; d <= SRCH_LEN + 2; d = d + dstep) begin
                t = 48'h0000_0123_4567 + d * 48'h1_0101;
                p0 = t % SLOTS;
                ptop = (t >> ((LEVELS - 1) * B)) % SLOTS;
                // A: SET while searching. Far: the top level's slot under its
                // pointer (a top revolution on); near: level 0, 2 ticks on.
                db_clear_all;
                poke_now(t);
                db_add(LEVELS - 1, ptop, t);
                mon_wait("search");
                expect_next(t, 32'hFFFF_FFFF, "NEXT (far slot only)");
                arm(next_visit(0, (p0 + 2) % SLOTS, t));
                cmd_mon(cmd_word(OP_CLEAR, 0, (p0 + 5) % SLOTS));   // idle already: changes nothing but restarts
                idle(d);
                db_lv[db_n] = 0; db_sl[db_n] = (p0 + 2) % SLOTS; db_n = db_n + 1;
                cmd_mon(cmd_word(OP_SET, 0, (p0 + 2) % SLOTS));     // d cycles into that search
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

            // time reaching the answer starts a new search
            section = "search restart at the answer";
            reset_dut;
            wb_write(TW_REG_CTRL, 3);
            db_n = 0;
            db_add(0, 5, 0);
            if (LEVELS > 1) db_add(1, 1, 0);
            mon_wait("search");
            expect_next(0, 32'hFFFF_FFFF, "NEXT before the ticks");
            wb_write(TW_REG_PRESCALE, SRCH_BOUND + 4);   // a search fits between two ticks
            e0 = ncyc + 1;
            wb_write(TW_REG_CTRL, 1);                    // tick n at edge e0 + n*(SRCH_BOUND+5)
            idle_until(e0 + 5 * (SRCH_BOUND + 5) - 6);
            expect_next(4, 32'hFFFF_FFFF, "NEXT just before its tick");
            mon_start(e0 + 5 * (SRCH_BOUND + 5));        // the edge of tick 5
            idle_until(e0 + 5 * (SRCH_BOUND + 5));
            next_while_searching;
            expect_next(5, 32'hFFFF_FFFF, "NEXT after time reached the answer");
            wb_write(TW_REG_CTRL, 3);
            drain;
        end
    endtask

    // NEXT read on every other clock while the prescaler ticks once a clock
    // (searches are outrun by time): each read is either 0 (searching) or the
    // first busy visit strictly after the tick at the read, never a visit
    // that has passed and never the horizon while a busy visit comes first.
    task t_next_running;
        integer q, nz, nv;
        reg [47:0] nw;
        begin
            section = "NEXT while time runs";
            reset_dut;
            db_n = 0;
            db_add(0, 3, 0); db_add(0, 4, 0); db_add(0, 5, 0);
            db_add(0, 10, 0); db_add(0, 17 % SLOTS, 0); db_add(0, 40 % SLOTS, 0);
            if (LEVELS > 1) db_add(1, 1, 0);
            wb_write(TW_REG_PRESCALE, 0);
            e0 = ncyc + 1;
            wb_write(TW_REG_CTRL, 1);                // tick n at edge e0+n
            nz = 0; nv = 0;
            for (q = 0; q < 240; q = q + 1) begin
                if (q % 5 == 2) idle(1);             // both clock phases
                c = ncyc + 1;                        // the read takes effect at edge c
                wb_read(TW_REG_NEXT_LO, x);          // and sees the tick after edge c-1
                nw = c - 1 - e0;
                if (x == 0) nz = nz + 1;
                else begin
                    nv = nv + 1;
                    db_truth(nw);
                    if (x !== db_best[31:0]) begin
                        err("NEXT_LO (not searching) vs the first busy visit after now", x, db_best[31:0]);
                        if (err_show) $display("       now=%0d", nw);
                    end
                end
            end
            wb_write(TW_REG_CTRL, 3);
            $display("NEXT while time runs: %0d reads, %0d while searching", nz + nv, nz);
        end
    endtask

    // ============================================================ skip-ahead
    // Random sparse bitmaps, long ADVANCEs: every visit of a busy slot is
    // reported at its exact tick, in order, and the cycles taken depend on the
    // number of visits, not on the number of ticks.
    integer    ex_n;
    reg [47:0] ex_tick [0:511];
    reg [1:0]  ex_lvl  [0:511];
    reg [11:0] ex_slot [0:511];
    task t_skip;
        integer tr, ntr, lmin, q, nb, lv, sl, cnt, nticks, k2, c0, cyc, lim, ok;
        reg [47:0] t0, nadv, cur, rev, tend;
        reg [63:0] tot_ticks, tot_cycles;
        begin
            section = "skip-ahead";
            tot_ticks = 0; tot_cycles = 0;
            ntr = 24;
            for (tr = 0; tr < ntr; tr = tr + 1) begin
                reset_dut;
                t0 = {$random(seed), $random(seed)};
                t0 = t0 & ((48'd1 << 46) - 1);
                poke_now(t0);
                db_n = 0;
                lmin = (tr < 4) ? 0 : urand(LEVELS);
                nb = 1 + urand((LEVELS == 1) ? 2 : 5);
                for (q = 0; q < nb; q = q + 1) begin
                    lv = (q == 0) ? lmin : lmin + urand(LEVELS - lmin);
                    sl = urand(SLOTS);
                    if (urand(4) == 0) sl = (t0 >> (lv * B)) % SLOTS;   // the slot under the pointer
                    db_add(lv, sl, t0);
                end
                cnt = 0;
                for (q = 0; q < db_n; q = q + 1) if (db_lv[q] == lmin) cnt = cnt + 1;
                // some 10..40 visits (fewer where a search is long): as many
                // revolutions of the lowest busy level
                rev = 48'd1 << ((lmin + 1) * B);
                q = 2500 / SRCH_BOUND;
                nadv = (rev * ((q < 10) ? 10 : (q > 40) ? 40 : q)) / cnt;
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
                c0 = ncyc;
                wb_write(TW_REG_ADVANCE, nadv[31:0]);
                k2 = 0; ok = 1;
                lim = (nticks + 2) * (SRCH_BOUND + 2) + 8 * ex_n + 64;
                wb_read(TW_REG_STATUS, rv);
                while ((rv[TW_STATUS_ADVANCING_LSB] || rv[31:16] != 0) && ncyc - c0 < 4 * lim) begin
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
                cyc = ncyc - c0;
                if (k2 != ex_n) begin
                    err("skip-ahead: number of events", k2, ex_n);
                    if (err_show) $display("       ADVANCE %0d from %0d, %0d busy slots, lowest busy level %0d", nadv, t0, db_n, lmin);
                end
                wb_read(TW_REG_NOW_LO, x);
                wb_read(TW_REG_NOW_HI, rv);
                check("skip-ahead: counter after the ADVANCE", {rv[15:0], x}, tend);
                if (cyc > lim) begin
                    err("skip-ahead: cycles for the ADVANCE (limit: by visits, not ticks)", cyc, lim);
                    if (err_show) $display("       %0d ticks, %0d visit ticks, %0d events", nadv, nticks, ex_n);
                end
                tot_ticks = tot_ticks + nadv;
                tot_cycles = tot_cycles + cyc;
            end
            $display("skip-ahead: %0d ADVANCEs, %0d ticks in %0d cycles", ntr, tot_ticks, tot_cycles);
            if (tot_cycles * 4 > tot_ticks) err("skip-ahead: cycles x 4 vs ticks", tot_cycles * 4, tot_ticks);
        end
    endtask

    // ============================================================ coalescing
    // irq = IRQ_EN && FIFO not empty && (HOLD || FIFO full || entries >= THRESH
    // || age >= HOLDOFF), age = ticks since the FIFO last became non-empty
    // (saturating at 0xFFFF)
    task irq_is;
        input expv;
        input [8*48-1:0] what;
        begin
            if (irq !== expv) err(what, irq, expv);
            wb_read(TW_REG_STATUS, rv);
            if (rv[TW_STATUS_IRQ_LSB] !== expv) err("STATUS.IRQ", rv[TW_STATUS_IRQ_LSB], expv);
        end
    endtask

    // wait (at most n cycles) for irq; returns the edge after which it rose
    integer irq_edge;
    task wait_irq;
        input integer n;
        integer w0;
        begin
            w0 = ncyc;
            irq_edge = -1;
            while (irq_edge < 0 && ncyc - w0 < n) begin
                @(negedge clk);
                if (irq === 1'b1) irq_edge = ncyc;
            end
        end
    endtask

    task t_coalesce;
        integer p, th, H, s, tr;
        begin
            section = "coalescing: threshold";
            reset_dut;
            th = (DEPTH >= 3) ? 3 : 2;
            wb_write(TW_REG_COALESCE, (th << 16) | 32'hFFFF);   // THRESH th, HOLDOFF 0xFFFF
            wb_write(TW_REG_CTRL, 32'h7);                 // IRQ_EN, no ticks: the age stays 0
            wb_write(TW_REG_ARM_LO, 0);                   // every SET below is late: one entry each
            for (i = 0; i < th; i = i + 1) begin
                wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, i));
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
                irq_is(i + 1 == DEPTH, "o_irq with the FIFO full, not before");
            end
            expect_event(1, 0, 0, 0);
            irq_is(0, "o_irq one entry below full");
            drain;

            // hold-off in real time: the line rises on the tick HOLDOFF ticks
            // after the FIFO became non-empty, and waits again after it emptied
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
                e0 = ncyc + 1;
                wb_write(TW_REG_CTRL, 32'h5);             // IRQ_EN, prescaler: tick n at edge e0 + n*(p+1)
                wait_irq((s + H + 2) * (p + 1) + 4);
                check("hold-off: edge of the irq rise - start (first event)", irq_edge - e0, (s + H) * (p + 1));
                // empty the FIFO: the age starts again at the next event
                // (4 ticks after a jump to just before the next revolution)
                drain;
                if (irq !== 1'b0) err("o_irq after draining", irq, 0);
                wb_write(TW_REG_CTRL, 3);
                poke_now(s + SLOTS - 4);
                e0 = ncyc + 1;
                wb_write(TW_REG_CTRL, 32'h5);
                wait_irq((H + 6) * (p + 1) + 4);
                check("hold-off: edge of the irq rise - start (next revolution)", irq_edge - e0, (4 + H) * (p + 1));
                wb_write(TW_REG_CTRL, 3);
            end

            // the age counts from the time the FIFO became non-empty: popping
            // the older entry while a newer one waits does not start it again
            section = "coalescing: age of a non-empty FIFO";
            reset_dut;
            wb_write(TW_REG_COALESCE, 32'hFFFF_0000 | 12);
            set_slot(0, 2, 2);
            set_slot(0, 7, 7);
            wb_write(TW_REG_PRESCALE, 3);
            e0 = ncyc + 1;
            wb_write(TW_REG_CTRL, 32'h5);                 // tick n at edge e0 + 4n
            idle_until(e0 + 4 * 9);
            expect_event(0, 0, 2, 2);                     // tick 9 or 10: the entry of tick 7 waits
            irq_is(0, "o_irq before HOLDOFF");
            wait_irq(4 * 20);
            check("age: edge of the irq rise - start (2 + HOLDOFF ticks)", irq_edge - e0, 4 * (2 + 12));
            wb_write(TW_REG_CTRL, 3);

            // in virtual time a jump adds all its ticks to the age, which saturates
            section = "coalescing: age in virtual time";
            reset_dut;
            wb_write(TW_REG_COALESCE, 32'hFFFF_0000 | 1000);
            wb_write(TW_REG_CTRL, 32'h4);                 // IRQ_EN, TICK_SRC=0
            wb_write(TW_REG_ARM_LO, 0);
            wb_write(TW_REG_CMD, cmd_word(OP_SET, 0, 3)); // late: one entry at tick 0
            clear_slot(0, 3);                             // nothing busy: an ADVANCE is one jump
            wait_search;
            irq_is(0, "o_irq at age 0");
            wb_write(TW_REG_ADVANCE, 999);
            irq_is(0, "o_irq at age 999, HOLDOFF 1000");
            expect_reg(TW_REG_NOW_LO, 999);
            wb_write(TW_REG_ADVANCE, 1);
            irq_is(1, "o_irq at age 1000, HOLDOFF 1000");
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            irq_is(0, "o_irq at age 1000, HOLDOFF 0xFFFF");
            wb_write(TW_REG_ADVANCE, 32'h0002_0000);      // one jump of 2^17 ticks: the age saturates
            irq_is(1, "o_irq at the saturated age, HOLDOFF 0xFFFF");
            expect_reg(TW_REG_NOW_LO, 1000 + 32'h0002_0000);
            drain;
            irq_is(0, "o_irq with the FIFO empty");

            // a held virtual time needs the host at once
            section = "coalescing: HOLD";
            reset_dut;
            wb_write(TW_REG_COALESCE, 32'hFFFF_FFFF);
            set_slot(0, 3, 3);
            wb_write(TW_REG_CTRL, 32'hC);                 // VHOLD, IRQ_EN, TICK_SRC=0
            wb_write(TW_REG_ADVANCE, SLOTS);
            idle(SLOTS + 4);
            expect_reg(TW_REG_NOW_LO, 3);
            irq_is(1, "o_irq while HOLD");
            expect_field(TW_REG_STATUS, TW_STATUS_HOLD_LSB, 1, 1, "HOLD");
            wb_write(TW_REG_STATUS, 32'h2);               // release: the entry still waits
            irq_is(0, "o_irq after HOLD is cleared");
            idle(SLOTS + 4);
            expect_reg(TW_REG_NOW_LO, SLOTS);
            irq_is(0, "o_irq (entry pending, below THRESH and HOLDOFF)");
            wb_write(TW_REG_CTRL, 32'h8);                 // IRQ_EN off: no irq even with HOLD
            expect_event(0, 0, 3, 3);
            expect_no_event;
        end
    endtask

    // ================================================================= main
    initial begin
        #(64'd2_000_000_000);
        msg_err("timeout");
        $display("FAIL tb_tw_core: %0d errors", errors);
        $finish;
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("ops=%d", nops)) ;
        if ($test$plusargs("trace")) trace = 1'b1;
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
        t_advance;
        t_level0;
        t_levels;
        t_multi;
        t_vhold;
        t_prescale;
        t_ext;
        t_overflow;
        t_vfull;
        t_errors;
        t_clear_all;
        t_irq;
        t_now_hi;
        t_race;
        t_next;
        t_search_restart;
        t_next_running;
        t_skip;
        t_coalesce;
        t_random;
        // the model's searches follow the DUT's STATUS.SEARCHING cycle by cycle
        chk_on = 1'b0;
        section = "search bound";
        $display("search: longest of the run %0d cycles (%0d by the DUT's SEARCHING after a command), documented bound %0d",
                 st_srch_all, mon_max, SRCH_BOUND);
        if (st_srch_all > SRCH_BOUND) err("longest search of the run (cycles)", st_srch_all, SRCH_BOUND);
        if (mon_max > SRCH_BOUND) err("longest search after a command (cycles)", mon_max, SRCH_BOUND);
        if (errors == 0) $display("PASS tb_tw_core");
        else             $display("FAIL tb_tw_core: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
