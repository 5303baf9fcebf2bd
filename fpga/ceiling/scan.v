`default_nettype none
// This file holds the scan, its core and its top on pins, as
// fpga/ceiling/tickpath.sh reads it: not every module is named after it.
/* verilator lint_off DECLFILENAME */
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
//   M  the word masked; per nibble, any bit and the first
//   N  the first nibble with a bit: hit and first bit j
//   O  offset i*16 - qb + 1 (formed in R) + j, recorded if the level has
//      no hit yet; the sequencer leaves a level once O has its hit
// and, once the last word has left O:
//   F1 distances (o_k << 8k) - (B mod 2^8k)
//   F2 two levels a pair compared, in parts of at most 12 bits; F3 the
//   lesser of each pair; F4, F5 the same for the two
//   F6, F7 B + the least, in two 24-bit halves (carry registered)
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
    output wire        o_valid,        // the answer stands
    output wire        o_found,        // some slot is busy
    output wire [47:0] o_next          // the earliest busy visit after B
);
    wire [15:0] waddr;
    wire [63:0] words;
    genvar gl;
    generate
        for (gl = 0; gl < 4; gl = gl + 1) begin : g_level
            /* verilator lint_off PINCONNECTEMPTY */
            tw_bitmap #(.SLOT_BITS(8)) u_bitmap (
                .i_clk(i_clk), .i_rst(i_rst), .i_clear_all(i_clear_all),
                .i_wr(i_wr && i_wr_lvl == gl), .i_wr_slot(i_wr_slot), .i_wr_val(i_wr_val),
                .i_visit_slot(8'd0), .o_visit_bit(),
                .i_search_word(waddr[gl*4 +: 4]), .o_search_word(words[gl*16 +: 16])
            );
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate
    scan_core #(.PARALLEL(PARALLEL)) u_core (
        .i_clk(i_clk), .i_rst(i_rst), .i_start(i_start), .i_base(i_base),
        .o_waddr(waddr), .i_words(words),
        .o_valid(o_valid), .o_found(o_found), .o_next(o_next)
    );
endmodule

// The scan itself, on the bitmaps' search ports: o_waddr (a word address
// per level, from registers) is read on i_words in the next clock, as
// tw_bitmap's search port gives it.
module scan_core #(
    parameter integer PARALLEL = 0
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_start,
    input  wire [47:0] i_base,
    output wire [15:0] o_waddr,
    input  wire [63:0] i_words,
    output reg         o_valid,
    output reg         o_found,
    output reg  [47:0] o_next
);
    // ------------------------------------------------------------ sequencer
    reg [47:0] base_q;
    reg [7:0]  q_q [0:3];              // each level's slot after its pointer
    reg        run_q;
    reg [1:0]  lvl_q;
    reg [4:0]  i_q;                    // words of the level scanned: 0..16
    reg [3:0]  found_q;                // the level's first hit is recorded
    reg [8:0]  o_q [0:3];              // ... and its offset
    reg [3:0]  w0_q [0:3];             // each level's first word
    reg [3:0]  w_q [0:3];              // word address per level (PARALLEL)
    reg [3:0]  w_cur_q;                // word address of the level in turn
    reg        last_q;                 // i_q == 16
    reg        skip_q;                 // the level in turn has its hit
    wire       level_done = last_q || (PARALLEL == 0 && skip_q);
    wire       hit_here;               // O records a hit of the level in turn
    integer k;
    always @(posedge i_clk) begin
        if (i_rst) begin
            run_q <= 1'b0; lvl_q <= 2'd0; i_q <= 5'd0; last_q <= 1'b0; skip_q <= 1'b0;
        end else if (i_start) begin
            base_q <= i_base;
            for (k = 0; k < 4; k = k + 1) begin
                q_q[k]  <= i_base[k*8 +: 8] + 8'd1;
                w0_q[k] <= i_base[k*8 + 4 +: 4] + {3'd0, &i_base[k*8 +: 4]};
                w_q[k]  <= i_base[k*8 + 4 +: 4] + {3'd0, &i_base[k*8 +: 4]};
            end
            w_cur_q <= i_base[4 +: 4] + {3'd0, &i_base[0 +: 4]};
            run_q <= 1'b1; lvl_q <= 2'd0; i_q <= 5'd0; last_q <= 1'b0; skip_q <= 1'b0;
        end else if (run_q) begin
            if (PARALLEL != 0) begin
                for (k = 0; k < 4; k = k + 1) w_q[k] <= w_q[k] + 4'd1;
                i_q    <= i_q + 5'd1;
                last_q <= i_q == 5'd15;
                if (last_q) run_q <= 1'b0;
            end else if (level_done) begin
                i_q     <= 5'd0;
                last_q  <= 1'b0;
                skip_q  <= 1'b0;
                lvl_q   <= lvl_q + 2'd1;
                w_cur_q <= w0_q[lvl_q + 2'd1];
                if (lvl_q == 2'd3) run_q <= 1'b0;
            end else begin
                i_q     <= i_q + 5'd1;
                last_q  <= i_q == 5'd15;
                skip_q  <= skip_q || hit_here;
                w_cur_q <= w_cur_q + 4'd1;
            end
        end
    end

    // --------------------------------------------------------------- bitmaps
    wire [15:0] word [0:3];
    genvar gw;
    generate
        for (gw = 0; gw < 4; gw = gw + 1) begin : g_word
            assign o_waddr[gw*4 +: 4] = PARALLEL != 0 ? w_q[gw] : w_cur_q;
            assign word[gw] = i_words[gw*16 +: 16];
        end
    endgenerate

    // -------------------------------------------------- per word: A .. O
    // One lane per level read in the same clock (one lane with PARALLEL = 0).
    localparam integer LANES = PARALLEL != 0 ? 4 : 1;
    reg        v_r, v_m, v_n, v_o;     // the stage holds a word of this scan
    reg [1:0]  lvl_r, lvl_m, lvl_n, lvl_o;
    reg [4:0]  i_r;
    reg [15:0] word_m [0:LANES-1];
    reg [15:0] mask_m [0:LANES-1];
    reg [8:0]  c_m [0:LANES-1];        // i*16 - qb + 1: the offset of bit 0
    reg [8:0]  c_n [0:LANES-1];
    reg [8:0]  c_o [0:LANES-1];
    reg [3:0]  nz_n [0:LANES-1];       // per nibble: some bit of the scan set
    reg [7:0]  ix_n [0:LANES-1];       // per nibble: its first such bit
    reg        hit_o [0:LANES-1];
    reg [3:0]  j_o [0:LANES-1];
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
    function [1:0] first4;             // the lowest set bit of four (0 if none)
        // w[3] need not be read: the answer is 3 whether it is set or not.
        /* verilator lint_off UNUSEDSIGNAL */
        input [3:0] w;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            first4 = w[0] ? 2'd0 : w[1] ? 2'd1 : w[2] ? 2'd2 : 2'd3;
        end
    endfunction
    integer l, n;
    // Per lane: the masked word in M, the first nibble with a bit in N.
    wire [15:0] hits_m [0:LANES-1];
    wire [1:0]  nib_n [0:LANES-1];
    genvar gn;
    generate
        for (gn = 0; gn < LANES; gn = gn + 1) begin : g_lane
            assign hits_m[gn] = word_m[gn] & mask_m[gn];
            assign nib_n[gn]  = first4(nz_n[gn]);
        end
    endgenerate
    assign hit_here = v_o && hit_o[0] && lvl_o == lvl_q;
    always @(posedge i_clk) begin
        // A -> R: what the address clock read.
        v_r   <= !flush && run_q && !(PARALLEL == 0 && skip_q);
        lvl_r <= lvl_q;
        i_r   <= i_q;
        // R -> M: the level's word, its mask.
        v_m   <= !flush && v_r;
        lvl_m <= lvl_r;
        for (l = 0; l < LANES; l = l + 1) begin
            word_m[l] <= word[PARALLEL != 0 ? l[1:0] : lvl_r];
            mask_m[l] <= scan_mask(i_r, q_q[PARALLEL != 0 ? l[1:0] : lvl_r][3:0]);
            c_m[l]    <= {i_r, 4'd0} - {5'd0, q_q[PARALLEL != 0 ? l[1:0] : lvl_r][3:0]} + 9'd1;
        end
        // M -> N: per nibble of the masked word, any bit and the first.
        v_n   <= !flush && v_m;
        lvl_n <= lvl_m;
        for (l = 0; l < LANES; l = l + 1) begin
            for (n = 0; n < 4; n = n + 1) begin
                nz_n[l][n]         <= |hits_m[l][n*4 +: 4];
                ix_n[l][n*2 +: 2]  <= first4(hits_m[l][n*4 +: 4]);
            end
            c_n[l] <= c_m[l];
        end
        // N -> O: the first nibble with a bit, and so the first bit.
        v_o   <= !flush && v_n;
        lvl_o <= lvl_n;
        for (l = 0; l < LANES; l = l + 1) begin
            hit_o[l] <= |nz_n[l];
            j_o[l]   <= {nib_n[l], ix_n[l][nib_n[l]*2 +: 2]};
            c_o[l]   <= c_n[l];
        end
        // O: the level's first hit.
        if (flush)
            found_q <= 4'd0;
        else if (v_o)
            for (l = 0; l < LANES; l = l + 1)
                if (hit_o[l] && !found_q[PARALLEL != 0 ? l[1:0] : lvl_o]) begin
                    found_q[PARALLEL != 0 ? l[1:0] : lvl_o] <= 1'b1;
                    o_q[PARALLEL != 0 ? l[1:0] : lvl_o] <= c_o[l] + {5'd0, j_o[l]};
                end
    end

    // ------------------------------------------------- the least distance, F
    // The scan is over when the sequencer has stopped and no word is left.
    reg        pend_q, fin1, fin2, fin3, fin4, fin5, fin6;
    wire       over = pend_q && !run_q && !v_r && !v_m && !v_n && !v_o;
    reg [33:0] d1 [0:3];               // {not found, distance}
    reg [7:0]  neg_l1;
    reg [15:0] neg_l2;
    reg [23:0] neg_l3;
    reg        nz_l1, nz_l2, nz_l3;
    reg [33:0] d2a [0:1], d2b [0:1];   // each pair
    reg [2:0]  lt2 [0:1], eq2 [0:1];   // b < a, b == a, per part
    reg [33:0] d3 [0:1];
    reg [33:0] d4a, d4b;
    reg [2:0]  lt4, eq4;
    reg [33:0] d5;
    reg [24:0] sum_lo6;
    reg [23:0] hi6;
    // b < a and b == a in three parts (bits 11:0, 23:12, 33:24), so that
    // no compare is more than 12 bits long.
    function [5:0] cmp_parts;          // {lt[2:0], eq[2:0]}
        input [33:0] b, a;
        begin
            cmp_parts = {b[33:24] < a[33:24], b[23:12] < a[23:12], b[11:0] < a[11:0],
                         b[33:24] == a[33:24], b[23:12] == a[23:12], b[11:0] == a[11:0]};
        end
    endfunction
    function less;                     // from the parts
        input [2:0] lt;
        // eq[0] need not be read: equal low parts are not less.
        /* verilator lint_off UNUSEDSIGNAL */
        input [2:0] eq;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            less = lt[2] || (eq[2] && (lt[1] || (eq[1] && lt[0])));
        end
    endfunction
    always @(posedge i_clk) begin
        pend_q <= !i_rst && (i_start || (pend_q && !over));
        fin1   <= !flush && over;
        // F1: distance = (o_k << 8k) - (B mod 2^8k); a level without a hit
        // is farther than any.
        // (o << s) - L = ((o - (L != 0)) << s) | (-L mod 2^s): no carry
        // crosses s; -L and L != 0 are worked out while the scan runs.
        neg_l1 <= -base_q[7:0];  nz_l1 <= |base_q[7:0];
        neg_l2 <= -base_q[15:0]; nz_l2 <= |base_q[15:0];
        neg_l3 <= -base_q[23:0]; nz_l3 <= |base_q[23:0];
        d1[0] <= !found_q[0] ? {1'b1, 33'd0} : {1'b0, 24'd0, o_q[0]};
        d1[1] <= !found_q[1] ? {1'b1, 33'd0} : {1'b0, 16'd0, o_q[1] - {8'd0, nz_l1}, neg_l1};
        d1[2] <= !found_q[2] ? {1'b1, 33'd0} : {1'b0, 8'd0, o_q[2] - {8'd0, nz_l2}, neg_l2};
        d1[3] <= !found_q[3] ? {1'b1, 33'd0} : {1'b0, o_q[3] - {8'd0, nz_l3}, neg_l3};
        // F2: each pair compared in parts; F3: the lesser of each pair.
        fin2 <= !flush && fin1;
        for (l = 0; l < 2; l = l + 1) begin
            d2a[l] <= d1[2*l];
            d2b[l] <= d1[2*l+1];
            {lt2[l], eq2[l]} <= cmp_parts(d1[2*l+1], d1[2*l]);
        end
        fin3 <= !flush && fin2;
        for (l = 0; l < 2; l = l + 1)
            d3[l] <= less(lt2[l], eq2[l]) ? d2b[l] : d2a[l];
        // F4, F5: the same for the two.
        fin4 <= !flush && fin3;
        d4a <= d3[0];
        d4b <= d3[1];
        {lt4, eq4} <= cmp_parts(d3[1], d3[0]);
        fin5 <= !flush && fin4;
        d5   <= less(lt4, eq4) ? d4b : d4a;
        // F6, F7: B + the least, the high half a clock after the low.
        fin6    <= !flush && fin5;
        sum_lo6 <= {1'b0, base_q[23:0]} + {1'b0, d5[23:0]};
        hi6     <= base_q[47:24] + {14'd0, d5[32:24]};
        o_valid <= !flush && (fin6 || o_valid);
        if (fin6) begin
            o_found <= !d5[33];
            o_next  <= {hi6 + {23'd0, sum_lo6[24]}, sum_lo6[23:0]};
        end
    end
endmodule

// The scan on a device with few pins: its inputs from a shift register fed
// by one pin, its outputs folded into one registered parity pin.
// One top on pins per measurement: tickpath.sh names the one it builds.
/* verilator lint_off MULTITOP */
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
/* verilator lint_on MULTITOP */
`default_nettype wire
/* verilator lint_on DECLFILENAME */
