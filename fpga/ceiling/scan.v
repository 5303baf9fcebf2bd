`default_nettype none
// A measurement, not the chip: the next-busy search's word scan (the s_*
// logic of rtl/tw_core.v) pipelined for fmax, at the default 4 x 256
// geometry, on the bitmaps of rtl/tw_bitmap.v (their search ports).
// fpga/ceiling/tickpath.sh places and routes it (TOP scan_top).
//
// The search looks, for each level k, for the first busy slot after the
// pointer p_k of a base tick B (a snapshot of the counter at the start), in
// the order p_k+1 .. p_k+256; offset o_k (1..256) there is the visit at
// B - (B mod 2^8k) + o_k * 2^8k. Within a level the first hit is the
// earliest, so the scan keeps no running best: it records each level's
// first hit, and a pipelined minimum over the four levels' distances ends
// it. The answer is an absolute tick, B + the least distance.
//
// With PARALLEL = 0 one word of one level is read a clock, as today
// (levels in turn, a level left as soon as its hit is known); with
// PARALLEL = 1 the four levels' block RAMs are read in the same clock.
//
// Stages per word:
//   A  word address from the sequencer's registers
//   R  block RAM read; tw_bitmap's bypass; the level's word registered
//   M  mask and priority encoder: hit and first bit, registered
//   O  offset i*16 + j - qb + 1, recorded if the level has no hit yet
// and, once the last word has left O:
//   F1 distances (o_k << 8k) - (B mod 2^8k), two levels a pair compared
//   F2 the lesser of each pair; F3 the compare of the two, F4 the least
//   F5, F6 B + the least, in two 24-bit halves (carry registered)
module scan #(
    parameter integer PARALLEL = 0
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_start,        // registered by the caller
    input  wire [47:0] i_base,         // B, held by the caller at i_start
    input  wire        i_wr,
    input  wire [1:0]  i_wr_lvl,
    input  wire [7:0]  i_wr_slot,
    input  wire        i_wr_val,
    input  wire        i_clear_all,
    output reg         o_valid,        // the answer stands
    output reg         o_found,        // some slot is busy
    output reg  [47:0] o_next          // the earliest busy visit after B
);
    // ------------------------------------------------------------ sequencer
    reg [47:0] base_q;
    reg [7:0]  q_q [0:3];              // each level's slot after its pointer
    reg        run_q;
    reg [1:0]  lvl_q;
    reg [4:0]  i_q;                    // words of the level scanned: 0..16
    reg [3:0]  found_q;                // the level's first hit is recorded
    reg [8:0]  o_q [0:3];              // ... and its offset
    reg [3:0]  w_q [0:3];              // word address per level
    wire       level_done = i_q == 5'd16 || (PARALLEL == 0 && found_q[lvl_q]);
    integer k;
    always @(posedge i_clk) begin
        if (i_rst) begin
            run_q <= 1'b0; lvl_q <= 2'd0; i_q <= 5'd0;
        end else if (i_start) begin
            base_q <= i_base;
            for (k = 0; k < 4; k = k + 1) begin
                q_q[k] <= i_base[k*8 +: 8] + 8'd1;
                w_q[k] <= i_base[k*8 + 4 +: 4] + {3'd0, &i_base[k*8 +: 4]};
            end
            run_q <= 1'b1; lvl_q <= 2'd0; i_q <= 5'd0;
        end else if (run_q) begin
            if (PARALLEL != 0) begin
                for (k = 0; k < 4; k = k + 1) w_q[k] <= w_q[k] + 4'd1;
                i_q <= i_q + 5'd1;
                if (i_q == 5'd16) run_q <= 1'b0;
            end else if (level_done) begin
                i_q <= 5'd0;
                lvl_q <= lvl_q + 2'd1;
                if (lvl_q == 2'd3) run_q <= 1'b0;
            end else begin
                i_q <= i_q + 5'd1;
                w_q[lvl_q] <= w_q[lvl_q] + 4'd1;
            end
        end
    end

    // --------------------------------------------------------------- bitmaps
    wire [15:0] word [0:3];
    genvar gl;
    generate
        for (gl = 0; gl < 4; gl = gl + 1) begin : g_level
            /* verilator lint_off PINCONNECTEMPTY */
            tw_bitmap #(.SLOT_BITS(8)) u_bitmap (
                .i_clk(i_clk), .i_rst(i_rst), .i_clear_all(i_clear_all),
                .i_wr(i_wr && i_wr_lvl == gl), .i_wr_slot(i_wr_slot), .i_wr_val(i_wr_val),
                .i_visit_slot(8'd0), .o_visit_bit(),
                .i_search_word(w_q[gl]), .o_search_word(word[gl])
            );
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate

    // -------------------------------------------------- per word: A, R, M, O
    // One lane per level read in the same clock (one lane with PARALLEL = 0).
    localparam integer LANES = PARALLEL != 0 ? 4 : 1;
    reg        v_r, v_m, v_o;          // the stage holds a word of this scan
    reg [1:0]  lvl_r, lvl_m, lvl_o;
    reg [4:0]  i_r, i_m, i_o;
    reg [15:0] word_m [0:LANES-1];
    reg [15:0] mask_m [0:LANES-1];
    reg        hit_o [0:LANES-1];
    reg [3:0]  j_o [0:LANES-1];
    reg [3:0]  qb_m [0:LANES-1];
    reg [3:0]  qb_o [0:LANES-1];
    wire       flush = i_rst || i_start;
    // The mask of the word at i: from the slot after the pointer on the
    // first, up to it on the wrapped last.
    function [15:0] scan_mask;
        input [4:0] i;
        input [3:0] qb;
        begin
            scan_mask = i == 5'd0 ? 16'hffff << qb : i == 5'd16 ? ~(16'hffff << qb) : 16'hffff;
        end
    endfunction
    function [4:0] first_bit;          // {hit, index of the lowest set bit}
        input [15:0] w;
        integer b;
        begin
            first_bit = 5'd0;
            for (b = 15; b >= 0; b = b - 1)
                if (w[b]) first_bit = {1'b1, b[3:0]};
        end
    endfunction
    integer l;
    reg [4:0] fb;
    always @(posedge i_clk) begin
        // A -> R: what the address clock read.
        v_r   <= !flush && run_q && !(PARALLEL == 0 && level_done && found_q[lvl_q]);
        lvl_r <= lvl_q;
        i_r   <= i_q;
        // R -> M: the level's word, its mask.
        v_m   <= !flush && v_r;
        lvl_m <= lvl_r;
        i_m   <= i_r;
        for (l = 0; l < LANES; l = l + 1) begin
            word_m[l] <= word[PARALLEL != 0 ? l : lvl_r];
            qb_m[l]   <= q_q[PARALLEL != 0 ? l : lvl_r][3:0];
            mask_m[l] <= scan_mask(i_r, q_q[PARALLEL != 0 ? l : lvl_r][3:0]);
        end
        // M -> O: hit and first bit.
        v_o   <= !flush && v_m;
        lvl_o <= lvl_m;
        i_o   <= i_m;
        for (l = 0; l < LANES; l = l + 1) begin
            fb = first_bit(word_m[l] & mask_m[l]);
            hit_o[l] <= fb[4];
            j_o[l]   <= fb[3:0];
            qb_o[l]  <= qb_m[l];
        end
        // O: the level's first hit.
        if (flush)
            found_q <= 4'd0;
        else if (v_o)
            for (l = 0; l < LANES; l = l + 1)
                if (hit_o[l] && !found_q[PARALLEL != 0 ? l : lvl_o]) begin
                    found_q[PARALLEL != 0 ? l : lvl_o] <= 1'b1;
                    o_q[PARALLEL != 0 ? l : lvl_o] <= {i_o, 4'd0} + {5'd0, j_o[l]} - {5'd0, qb_o[l]} + 9'd1;
                end
    end

    // ------------------------------------------------- the least distance, F
    // The scan is over when the sequencer has stopped and no word is left.
    reg        pend_q, fin1, fin2, fin3, fin4, fin5;
    wire       over = pend_q && !run_q && !v_r && !v_m && !v_o;
    reg [33:0] d1 [0:3];               // {not found, distance}
    reg [33:0] d2a [0:1], d2b [0:1];   // each pair
    reg        lt_lo2 [0:1], lt_hi2 [0:1], eq_hi2 [0:1];
    reg [33:0] d3 [0:1];
    reg        lt_lo3, lt_hi3, eq_hi3;
    reg [33:0] d4;
    reg [24:0] sum_lo5;
    reg [23:0] hi5;
    always @(posedge i_clk) begin
        pend_q <= !i_rst && (i_start || (pend_q && !over));
        fin1   <= !flush && over;
        // F1: distance = (o_k << 8k) - (B mod 2^8k); a level without a hit
        // is farther than any.
        d1[0] <= !found_q[0] ? {1'b1, 33'd0} : {1'b0, 24'd0, o_q[0]};
        d1[1] <= !found_q[1] ? {1'b1, 33'd0} : {1'b0, 16'd0, {o_q[1], 8'd0} - {9'd0, base_q[7:0]}};
        d1[2] <= !found_q[2] ? {1'b1, 33'd0} : {1'b0, 8'd0, {o_q[2], 16'd0} - {9'd0, base_q[15:0]}};
        d1[3] <= !found_q[3] ? {1'b1, 33'd0} : {1'b0, {o_q[3], 24'd0} - {9'd0, base_q[23:0]}};
        // F2: each pair compared in two halves.
        fin2 <= !flush && fin1;
        for (l = 0; l < 2; l = l + 1) begin
            d2a[l]    <= d1[2*l];
            d2b[l]    <= d1[2*l+1];
            lt_lo2[l] <= d1[2*l+1][16:0] < d1[2*l][16:0];
            lt_hi2[l] <= d1[2*l+1][33:17] < d1[2*l][33:17];
            eq_hi2[l] <= d1[2*l+1][33:17] == d1[2*l][33:17];
        end
        // F3: the lesser of each pair; F3's compare of the two in halves.
        fin3 <= !flush && fin2;
        for (l = 0; l < 2; l = l + 1)
            d3[l] <= (lt_hi2[l] || (eq_hi2[l] && lt_lo2[l])) ? d2b[l] : d2a[l];
        fin4 <= !flush && fin3;
        lt_lo3 <= d3[1][16:0] < d3[0][16:0];
        lt_hi3 <= d3[1][33:17] < d3[0][33:17];
        eq_hi3 <= d3[1][33:17] == d3[0][33:17];
        d4     <= (lt_hi3 || (eq_hi3 && lt_lo3)) ? d3[1] : d3[0];
        // F5, F6: B + the least, the high half a clock after the low.
        fin5    <= !flush && fin4;
        sum_lo5 <= {1'b0, base_q[23:0]} + {1'b0, d4[23:0]};
        hi5     <= base_q[47:24] + {14'd0, d4[32:24]};
        o_valid <= !flush && (fin5 || o_valid);
        if (fin5) begin
            o_found <= !d4[33];
            o_next  <= {hi5 + {23'd0, sum_lo5[24]}, sum_lo5[23:0]};
        end
    end
endmodule

// The scan on a device with few pins: its inputs from a shift register fed
// by one pin, its outputs folded into one registered parity pin.
module scan_top #(
    parameter integer PARALLEL = 0
) (
    input  wire i_clk,
    input  wire i_rst,
    input  wire i_bit,
    output reg  o_parity
);
    reg [61:0] sh_q = 0;
    reg        rst_q = 1'b1;
    always @(posedge i_clk) begin
        sh_q  <= {sh_q[60:0], i_bit};
        rst_q <= i_rst;
    end
    wire        valid, found;
    wire [47:0] next;
    scan #(.PARALLEL(PARALLEL)) u_scan (
        .i_clk(i_clk), .i_rst(rst_q), .i_start(sh_q[61]), .i_base(sh_q[47:0]),
        .i_wr(sh_q[60]), .i_wr_lvl(sh_q[59:58]), .i_wr_slot(sh_q[57:50]), .i_wr_val(sh_q[49]),
        .i_clear_all(sh_q[48] && sh_q[61]),
        .o_valid(valid), .o_found(found), .o_next(next)
    );
    reg [11:0] par_q;
    integer i;
    always @(posedge i_clk) begin
        for (i = 0; i < 12; i = i + 1) par_q[i] <= ^next[i*4 +: 4];
        o_parity <= ^{par_q, valid, found};
    end
endmodule
`default_nettype wire
