`timescale 1ns/1ps
`default_nettype none
// tw_search on LEVELS tw_bitmaps, against a brute force: random bitmaps
// (empty, sparse, dense, and slots placed at chosen offsets from the next
// search's pointers) and bases (random, and with fields at 0 or all ones).
// Every search checks the answer, o_valid low from the clock after i_start
// until exactly clock T of the documented formula, o_waddr on every clock,
// and that the answer stands afterwards. Some searches are abandoned by a
// new i_start (after a write, as the core does) at a random clock, and some
// writes fall in the clock before or of i_start.
//   iverilog -g2005 -Irtl -Ptb_tw_search.LEVELS=4 -Ptb_tw_search.SLOT_BITS=8 \
//     -o /tmp/tb_tw_search tests/rtl/tb_tw_search.v rtl/tw_search.v rtl/tw_bitmap.v
//   vvp /tmp/tb_tw_search [+seed=N] [+searches=N]
module tb_tw_search;
    parameter integer LEVELS    = 4;
    parameter integer SLOT_BITS = 8;
    localparam integer B     = SLOT_BITS;
    localparam integer SLOTS = 1 << B;
    localparam integer WA    = B > 4 ? B - 4 : 1;
    localparam integer SW    = B < 4 ? 1 << B : 16;
    localparam integer NW    = SLOTS / SW;

    reg clk = 0, rst = 1;
    always #5 clk = !clk;
    reg start = 0, clr = 0;
    reg [LEVELS-1:0] wr = 0;
    reg [B-1:0] wr_slot = 0;
    reg wr_val = 0;
    reg [47:0] base = 0;
    wire [LEVELS*WA-1:0] waddr;
    wire [LEVELS*SW-1:0] words;
    wire valid, found;
    wire [47:0] next;

    genvar gl;
    generate
        for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_level
            wire unused_visit;
            tw_bitmap #(.SLOT_BITS(B)) u_bitmap (
                .i_clk(clk), .i_rst(rst), .i_clear_all(clr),
                .i_wr(wr[gl]), .i_wr_slot(wr_slot), .i_wr_val(wr_val), .i_wr_slot_next(wr_slot),
                .i_visit_slot({B{1'b0}}), .o_visit_bit(unused_visit),
                .i_search_word(waddr[gl*WA +: WA]), .o_search_word(words[gl*SW +: SW])
            );
        end
    endgenerate
    tw_search #(.LEVELS(LEVELS), .SLOT_BITS(B)) dut (
        .i_clk(clk), .i_rst(rst), .i_start(start), .i_base(base),
        .o_waddr(waddr), .i_words(words),
        .o_valid(valid), .o_found(found), .o_next(next)
    );

    reg busy [0:LEVELS*SLOTS-1];
    integer seed = 1, searches = 250, errors = 0, checks = 0;
    integer n, i, k, t, r, kind, maxt = 0, abandons = 0, early = 0;

    // ------------------------------------------------------------ the model
    reg        m_found;
    reg [47:0] m_next;
    integer    m_t;                          // clock o_valid rises
    integer    m_s [0:LEVELS];               // level k's first address clock
    integer    m_w0 [0:LEVELS-1];            // level k's first word
    reg [63:0] d, best;
    integer    o, q, h, c;
    task model;
        begin
            m_found = 0; best = 0;
            m_s[0] = 1;
            for (k = 0; k < LEVELS; k = k + 1) begin
                q = (base[k*B +: B] + 1) % SLOTS;
                m_w0[k] = q / SW;
                o = 0;
                i = 1;
                while (o == 0 && i <= SLOTS) begin
                    if (busy[k*SLOTS + (base[k*B +: B] + i) % SLOTS]) o = i;
                    i = i + 1;
                end
                c = NW + 1;
                if (o != 0) begin
                    d = (64'd1 << (k * B)) * o - (base & ((48'd1 << (k * B)) - 1));
                    if (!m_found || d < best) best = d;
                    m_found = 1;
                    h = (q % SW + o - 1) / SW;
                    if (h + 5 < c) c = h + 5;
                end
                m_s[k+1] = m_s[k] + c;
            end
            m_t = m_s[LEVELS] + 11;
            m_next = m_found ? base + best[47:0] : 48'd0;
        end
    endtask
    // o_waddr's every lane at clock t (1 <= t) of a search.
    function [WA-1:0] want_addr;
        input integer t;
        integer kk, a;
        begin
            a = 0;
            for (kk = 0; kk < LEVELS; kk = kk + 1)
                if (t >= m_s[kk] && t < m_s[kk+1]) a = (m_w0[kk] + t - m_s[kk]) % NW;
            want_addr = a[WA-1:0];
        end
    endfunction

    task fail;
        input [8*40-1:0] what;
        begin
            errors = errors + 1;
            if (errors <= 10)
                $display("FAIL: search %0d base %h, clock %0d: %0s (valid %b found %b next %h; want T %0d found %b next %h)",
                         n, base, t, what, valid, found, next, m_t, m_found, m_next);
        end
    endtask

    // One clock: inputs change just after the edge, outputs are read there.
    task tick;
        begin
            @(posedge clk); #1;
        end
    endtask

    task write;
        input integer lvl, slot, val;
        begin
            wr <= 0; wr[lvl] <= 1'b1; wr_slot <= slot; wr_val <= val;
            busy[lvl*SLOTS + slot] = val;
        end
    endtask

    // A new base: random, with some fields forced to 0 or all ones (carries).
    task new_base;
        begin
            base = {$random(seed), $random(seed)};
            for (k = 0; k < 48 / B; k = k + 1)
                case ($random(seed) & 7)
                    0: base[k*B +: B] = 0;
                    1: base[k*B +: B] = {B{1'b1}};
                    default: ;
                endcase
            if (($random(seed) & 7) == 0) base[47:24] = 24'hffffff;
        end
    endtask

    // Writes before a search (the base is already chosen, so some can be
    // placed at offsets that matter: near the pointer, at word boundaries).
    task writes;
        integer lvl, cnt, o1;
        begin
            kind = $random(seed) & 7;
            if (kind == 0) begin
                clr <= 1; tick; clr <= 0;
                for (i = 0; i < LEVELS * SLOTS; i = i + 1) busy[i] = 0;
            end
            cnt = kind == 1 ? 0 : kind <= 3 ? 1 + ($random(seed) & 3)
                : kind == 4 ? SLOTS / 2 : 2 + ($random(seed) & 7);
            if (cnt > 48) cnt = 48;
            for (i = 0; i < cnt; i = i + 1) begin
                lvl = {$random(seed)} % LEVELS;
                if (kind >= 5) begin
                    // an offset 1 .. 2^b from the pointer, often a word edge
                    case ($random(seed) & 3)
                        0: o1 = 1 + {$random(seed)} % SLOTS;
                        1: o1 = SLOTS - {$random(seed)} % 3;
                        2: o1 = 1 + ({$random(seed)} % (NW + 1)) * SW - (base[lvl*B +: B] + 1) % SW
                                + {$random(seed)} % 2;
                        default: o1 = 1 + {$random(seed)} % (5 * SW);
                    endcase
                    if (o1 < 1) o1 = 1;
                    if (o1 > SLOTS) o1 = SLOTS;
                    write(lvl, (base[lvl*B +: B] + o1) % SLOTS, ($random(seed) & 7) != 0);
                end else
                    write(lvl, {$random(seed)} % SLOTS, kind == 4 ? ($random(seed) & 1)
                                                                  : ($random(seed) & 3) != 0);
                tick;
            end
            wr <= 0;
        end
    endtask

    // Runs the search started in this clock (clock 0) to its answer and a
    // few clocks on; abandon_at > 0: a write and a new start (with a new
    // base) at that clock instead.
    task run_search;
        input integer abandon_at;
        integer lvl;
        begin
            model;
            t = 0;
            start <= 1; tick; start <= 0; wr <= 0;
            t = 1;
            while (t <= m_t + 2) begin
                if (abandon_at > 0 && t == abandon_at) begin
                    // The core writes and then restarts: a write in this
                    // clock, the new start in the next, a new base with it.
                    lvl = {$random(seed)} % LEVELS;
                    write(lvl, {$random(seed)} % SLOTS, 1);
                    tick; wr <= 0;
                    new_base;
                    abandons = abandons + 1;
                    t = m_t + 3;                  // leave the loop
                end else begin
                    checks = checks + 1;
                    if (t < m_t && valid !== 1'b0) fail("valid early");
                    if (t >= m_t && valid !== 1'b1) fail("valid late");
                    if (t >= m_t && (found !== m_found || next !== m_next)) fail("answer");
                    for (k = 0; k < LEVELS; k = k + 1)
                        if (waddr[k*WA +: WA] !== want_addr(t)) fail("o_waddr");
                    tick;
                    t = t + 1;
                end
            end
        end
    endtask

    initial begin
        if ($value$plusargs("seed=%d", seed)) ;
        if ($value$plusargs("searches=%d", searches)) ;
        $display("# tb_tw_search %0dx%0d seed=%0d (replay: +seed=%0d)", LEVELS, B, seed, seed);
        for (i = 0; i < LEVELS * SLOTS; i = i + 1) busy[i] = 0;
        repeat (3) tick;
        rst <= 0; tick;
        if (valid !== 1'b0 || waddr !== 0) begin
            errors = errors + 1;
            $display("FAIL: after reset valid %b o_waddr %h", valid, waddr);
        end
        for (n = 0; n < searches; n = n + 1) begin
            new_base;
            writes;
            // Sometimes a last write in the clock of the start itself.
            if (($random(seed) & 3) == 0) begin
                k = {$random(seed)} % LEVELS;
                write(k, (base[k*B +: B] + 1 + {$random(seed)} % SLOTS) % SLOTS, 1);
            end
            r = 0;
            if (($random(seed) & 3) == 0) begin
                model;
                r = 1 + {$random(seed)} % m_t;    // 1 .. T: even in the answer's clock
            end
            run_search(r);
            if (r > 0) run_search(0);              // the restart, to its end
            if (m_t > maxt) maxt = m_t;
            if (m_t < 12 + LEVELS * (NW + 1)) early = early + 1;
            // Back to back: the answer stands until the clock after a start.
            if (($random(seed) & 7) == 0) begin
                start <= 1; tick; start <= 0;
                if (valid !== 1'b0) begin
                    errors = errors + 1;
                    $display("FAIL: valid stays up after a start");
                end
                r = 0;
                run_search(0);                     // start again at once
            end
        end
        $display("%0d searches (%0d abandoned, %0d left a level early), %0d clocks checked, longest %0d clocks (formula's worst %0d)",
                 searches, abandons, early, checks, maxt, 12 + LEVELS * (NW + 1));
        if (maxt > 12 + LEVELS * (NW + 1)) begin
            errors = errors + 1;
            $display("FAIL: a search beyond the worst case");
        end
        // The line tests/rtl/run.sh counts.
        if (errors == 0) $display("PASS tb_tw_search");
        else             $display("FAIL tb_tw_search: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
