`default_nettype none
// tw_search: the next-busy search's word scan, pipelined, on the search
// ports of one tw_bitmap per level: LEVELS 1..4, SLOT_BITS 2..12,
// LEVELS * SLOT_BITS <= 44.
//
// What it answers. For a base tick B (i_base), each level k has the pointer
// p_k = B[(k+1)b-1:kb] (b = SLOT_BITS). Its first busy slot in the circular
// order p_k+1, ..., p_k+2^b (the last a full revolution on) is the slot at
// offset o_k (1..2^b), the visit at tick B - (B mod 2^kb) + o_k * 2^kb, that
// is at distance d_k = o_k * 2^kb - (B mod 2^kb) from B. o_next is B + the
// least d_k over the levels with a busy slot (mod 2^48); o_found says there
// is one. With none, o_next is 0.
//
// How. One word of SW = min(16, 2^b) slots a clock, levels in order 0, 1,
// ..., a level left as soon as its first hit is known (within a level the
// first hit is the earliest, so no running best is kept). Level k's scan
// reads NW + 1 words (NW = 2^b / SW words in its bitmap), starting at the
// word of its first slot q_k = p_k + 1: word 0 masked to the slots from q_k
// up, words 1 .. NW-1 whole, word NW (word 0 again) masked to the slots
// below q_k. A pipelined minimum over the levels' distances ends the search.
//
// Timing (the C model, host/tw_search_model.c, mirrors it clock for clock).
// Number the clocks from i_start's clock, 0. i_start abandons any search at
// once. o_valid is low from clock 1 until it rises at clock
//
//     T = 12 + sum over levels k of C_k,   C_k = min(h_k + 5, NW + 1),
//
// where h_k is the index (0 .. NW) of level k's first scanned word that has
// a busy slot in its mask, h_k = floor(((q_k mod SW) + o_k - 1) / SW), or
// infinity if level k has no busy slot. o_valid then stays high until the
// clock after the next i_start; o_found and o_next change only in clock T
// (they keep the last answer meanwhile, 0 after reset). Level 0 is read
// from clock 1, level k from clock 1 + C_0 + ... + C_(k-1); a level's word i
// is addressed at its start + i: o_waddr shows, on every level's lane, word
// ((q_k >> log2 SW) + i) mod NW of the level in turn at level k's start + i
// for i = 0 .. C_k - 1 (the word address is 0 when NW = 1), and 0 before the
// first search and from clock T - 11 of a search on.
// Worst case (no level has a hit late enough to leave early):
//
//     T_max = 12 + LEVELS * (2^b / SW + 1):  4 x 8: 80, 1 x 12: 269,
//     2 x 4: 16, 3 x 5: 21, 1 x 2: 14.
//
// The 12: the start clock, the 4 clocks a word takes to pass the pipeline
// after its address, and 7 for the minimum and the final sum. The 5 of a
// level left early: a hit is known 3 clocks after its word's address, the
// level is left on a registered flag a clock later, and the next level's
// first word is addressed the clock after that.
//
// The caller holds i_base from i_start until o_valid (the search reads it
// throughout: no copy is kept). The bitmaps must not change during a search
// (the caller restarts it after a bitmap write); writes up to and including
// i_start's clock are seen (the first word is addressed in clock 1, and
// tw_bitmap's search port shows the writes up to its address's clock).
// i_rst (synchronous) stops any search: o_valid, o_found, o_next and
// o_waddr read 0 until the next i_start.
//
// Ports: o_waddr and i_words hold one lane per level, level k at
// [k*WA +: WA] and [k*SW +: SW], WA = max(b - 4, 1) address bits and
// SW = min(2^b, 16) slots (bit i of level k's word at address w is slot
// w * SW + i), as tw_bitmap's search port has them.
//
// Stages of a word addressed in clock t:
//   t    A  o_waddr from the sequencer's registers; the word's mask and the
//           offset of its bit 0 registered for R
//   t+1  R  the search port's word (tw_bitmap's bypass) of the level,
//           registered
//   t+2  M  masked; per nibble, any bit and the first
//   t+3  N  the first nibble with a bit: hit and first bit j; a hit of the
//           level in turn sets its "leave" flag
//   t+4  O  offset o = i * SW - (q mod SW) + 1 + j recorded, less
//           (B mod 2^kb != 0), if the level has no hit yet
// and after the last level is left in clock x (its last word at O in x+4):
//   x+5 F1 (the distances are wiring from the offsets); x+6 F2 two pairs
//   compared in parts of <= 12 bits;
//   x+7 F3 the lesser of each; x+8 F4, x+9 F5 the same for the two;
//   x+10 F6 B + the least, low 24 bits (carry registered); x+11 F7 the high
//   part, o_valid, o_found, o_next registered: high from x+12 = T.
module tw_search #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_start,
    input  wire [47:0] i_base,
    output wire [LEVELS*(SLOT_BITS > 4 ? SLOT_BITS - 4 : 1)-1:0]  o_waddr,
    input  wire [LEVELS*(SLOT_BITS < 4 ? 1 << SLOT_BITS : 16)-1:0] i_words,
    output reg         o_valid,
    output reg         o_found,
    output reg  [47:0] o_next
`ifdef TW_SEARCH_F_CONTRACT
    ,
    // For a caller's proof: the bitmaps the words come from (level l's slot
    // s at bit l * 2^b + s), and the contract's monitor (tw_answer_contract
    // below).
    input  wire [LEVELS*(1 << SLOT_BITS)-1:0] f_map_i,
    output wire                               f_ok_q_o,
    output wire [LEVELS*(1 << SLOT_BITS)-1:0] f_smap_q_o
`endif
`ifdef TW_SEARCH_F_TIMING
    ,
    // For a caller's proof: clocks since the last start, as
    // tw_answer_timing (below) counts them.
    output wire [9:0] f_since_o
`endif
);
    localparam integer B        = SLOT_BITS;
    localparam integer WA       = B > 4 ? B - 4 : 1;           // word address bits
    localparam integer SW       = B < 4 ? 1 << B : 16;         // slots a word
    localparam integer NW       = (1 << B) / SW;               // words a level
    localparam integer BIT_BITS = B < 4 ? B : 4;               // bit index in a word
    localparam integer IW       = NW > 1 ? WA + 1 : 1;         // word count 0 .. NW
    localparam integer OW       = B + 1;                       // offset 1 .. 2^b
    localparam integer LVL_W    = LEVELS > 1 ? $clog2(LEVELS) : 1;
    localparam integer DW       = LEVELS * B + 1;              // distance <= 2^(m b)
    localparam integer NP       = (DW + 1 + 11) / 12;          // compare parts
    localparam integer FW       = NP * 12;                     // {not found, 0.., distance}
    localparam [IW-1:0]    LAST_I   = NW[IW-1:0] - 1'b1;
    localparam [LVL_W-1:0] LAST_LVL = LEVELS[LVL_W-1:0] - 1'b1;

    // ------------------------------------------------------------ sequencer
    reg                  run_q;
    reg [LVL_W-1:0]      lvl_q;
    reg [IW-1:0]         i_q;               // words of the level addressed
    reg                  first_q, last_q;   // i_q == 0, i_q == NW
    reg                  skip_q;            // the level in turn has its hit
    reg [WA-1:0]         w_cur_q;           // word address of the level in turn
    // q_k of the level in turn at the bottom, then the levels after it.
    reg [(LEVELS+1)*B-1:0] qs_q;
    wire [BIT_BITS-1:0]  qb_cur = qs_q[BIT_BITS-1:0];
    wire                 level_done = last_q || skip_q;
    wire                 hit_n_here;        // N holds a hit of the level in turn
    wire                 flush = i_rst || i_start;
    wire                 scan_end = run_q && level_done && lvl_q == LAST_LVL;

    // The first slot after each pointer, and the word it lies in.
    reg [(LEVELS+1)*B-1:0] q_start;
    integer k;
    always @(*) begin
        q_start = 0;
        for (k = 0; k < LEVELS; k = k + 1)
            q_start[k*B +: B] = i_base[k*B +: B] + 1'b1;
    end
    function [WA-1:0] first_word;
        // The bit index in the word is not read.
        /* verilator lint_off UNUSEDSIGNAL */
        input [B-1:0] q;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            if (NW > 1) first_word = q[B-1 -: WA];
            else        first_word = {WA{1'b0}};
        end
    endfunction

    always @(posedge i_clk) begin
        if (i_rst) begin
            run_q <= 1'b0; skip_q <= 1'b0; lvl_q <= 0; i_q <= 0;
            first_q <= 1'b1; last_q <= 1'b0; w_cur_q <= 0; qs_q <= 0;
        end else if (i_start) begin
            run_q   <= 1'b1;
            lvl_q   <= 0;
            i_q     <= 0;
            first_q <= 1'b1;
            last_q  <= 1'b0;
            skip_q  <= 1'b0;
            qs_q    <= q_start;
            w_cur_q <= first_word(q_start[B-1:0]);
        end else if (run_q) begin
            if (level_done) begin
                lvl_q   <= lvl_q + 1'b1;
                i_q     <= 0;
                first_q <= 1'b1;
                last_q  <= 1'b0;
                skip_q  <= 1'b0;
                qs_q    <= qs_q >> B;
                w_cur_q <= first_word(qs_q[B +: B]);
                if (lvl_q == LAST_LVL) run_q <= 1'b0;
            end else begin
                i_q     <= i_q + 1'b1;
                first_q <= 1'b0;
                last_q  <= i_q == LAST_I;
                skip_q  <= skip_q || hit_n_here;
                // (a one-word level's address stays 0)
                w_cur_q <= NW > 1 ? w_cur_q + 1'b1 : {WA{1'b0}};
            end
        end
    end

    genvar gl;
    generate
        for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_waddr
            assign o_waddr[gl*WA +: WA] = w_cur_q;
        end
    endgenerate

    // ------------------------------------------------------- per word: A .. O
    reg               v_r, v_m, v_n, v_o;  // the stage holds a word of this search
    reg [LVL_W-1:0]   lvl_r, lvl_m, lvl_n, lvl_o;
    reg [SW-1:0]      mask_r, mask_m, word_m;
    reg [OW-1:0]      c_r, c_m, c_n, c_o;  // i * SW - (q mod SW) + 1 - nz: bit 0's offset
    reg [3:0]         nz_n;                // per nibble: a bit of the scan is set
    reg [7:0]         ix_n;                // per nibble: the first such bit
    reg               hit_o;
    reg [BIT_BITS-1:0] j_o;
    reg [LEVELS-1:0]  found_q;             // the level's first hit is recorded
    reg [OW-1:0]      o_q [0:LEVELS-1];    // ... and its offset

    function [1:0] first4;                 // the lowest set bit of four (3 if none)
        // w[3] need not be read: the answer is 3 whether it is set or not.
        /* verilator lint_off UNUSEDSIGNAL */
        input [3:0] w;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            first4 = w[0] ? 2'd0 : w[1] ? 2'd1 : w[2] ? 2'd2 : 2'd3;
        end
    endfunction

    // The search port's word of the level a word of R belongs to.
    reg [SW-1:0] word_r;
    integer l;
    always @(*) begin
        word_r = 0;
        for (l = 0; l < LEVELS; l = l + 1)
            if (lvl_r == l[LVL_W-1:0]) word_r = i_words[l*SW +: SW];
    end
    // The masked word, padded to four nibbles (the pad is never set).
    reg  [15:0] hits_m;
    always @(*) begin
        hits_m = 16'd0;
        hits_m[SW-1:0] = word_m & mask_m;
    end
    wire [1:0]  nib_n  = first4(nz_n);
    // Bits of j above a word's width are never set.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [3:0]  j_n    = {nib_n, ix_n[nib_n*2 +: 2]};
    /* verilator lint_on UNUSEDSIGNAL */
    assign hit_n_here = v_n && |nz_n && lvl_n == lvl_q;

    // B mod 2^kb != 0 for the level in turn (nzl_q, below): its offset is
    // recorded less that, which is what its distance needs.
    reg  [LEVELS-1:0] nzl_q;               // B mod 2^kb != 0
    reg nz_cur;
    always @(*) begin
        nz_cur = 1'b0;
        for (l = 0; l < LEVELS; l = l + 1)
            if (lvl_q == l[LVL_W-1:0]) nz_cur = nzl_q[l];
    end

    integer n;
    always @(posedge i_clk) begin
        // A -> R: the word's mask, from the first slot on the first word, up
        // to it on the last (the same word again), whole between. (The last
        // word's mask does not change the answer or its clock: a slot from
        // q up was already seen in the first word, and the level ends at
        // its first hit; the answer proofs passed with it left whole in
        // their BMC form, before their invariants pinned it. Left whole,
        // the chip placed no smaller and slower: docs/fpga.md.)
        v_r    <= !flush && run_q && !skip_q;
        lvl_r  <= lvl_q;
        mask_r <= first_q ? {SW{1'b1}} << qb_cur
                : last_q  ? ~({SW{1'b1}} << qb_cur) : {SW{1'b1}};
        c_r    <= {i_q, {BIT_BITS{1'b0}}} - {{(OW-BIT_BITS){1'b0}}, qb_cur}
                  + {{(OW-1){1'b0}}, !nz_cur};
        // R -> M
        v_m    <= !flush && v_r;
        lvl_m  <= lvl_r;
        word_m <= word_r;
        mask_m <= mask_r;
        c_m    <= c_r;
        // M -> N: per nibble of the masked word, any bit and the first.
        v_n   <= !flush && v_m;
        lvl_n <= lvl_m;
        for (n = 0; n < 4; n = n + 1) begin
            nz_n[n]        <= |hits_m[n*4 +: 4];
            ix_n[n*2 +: 2] <= first4(hits_m[n*4 +: 4]);
        end
        c_n <= c_m;
        // N -> O: the first nibble with a bit, and so the first bit.
        v_o   <= !flush && v_n;
        lvl_o <= lvl_n;
        hit_o <= |nz_n;
        j_o   <= j_n[BIT_BITS-1:0];
        c_o   <= c_n;
        // O: the level's first hit.
        if (flush)
            found_q <= 0;
        else if (v_o && hit_o)
            for (l = 0; l < LEVELS; l = l + 1)
                if (lvl_o == l[LVL_W-1:0] && !found_q[l]) begin
                    found_q[l] <= 1'b1;
                    o_q[l]     <= c_o + {{(OW-BIT_BITS){1'b0}}, j_o};
                end
    end

    // ------------------------------------------------- the least distance, F
    // -B mod 2^((m-1) b) in parts of 12 bits: part c is ~B's part plus the
    // carry "B's parts below are zero", from registers. B is stable, so this
    // settles long before F1 reads it. d_k's bits below kb are -B's.
    localparam integer NBW = (LEVELS - 1) * B > 0 ? (LEVELS - 1) * B : 1;
    localparam integer NC  = (NBW + 11) / 12;
    reg  [NC*12-1:0] negb_q;
    reg  [NC-1:0]    zero_q;               // B's part c is zero
    wire [NC*12-1:0] base_lo = i_base[NC*12-1:0];
    reg  [NC-1:0]    cin;                  // B's parts below c are all zero
    integer c;
    always @(*) begin
        cin[0] = 1'b1;
        for (c = 1; c < NC; c = c + 1)
            cin[c] = cin[c-1] && zero_q[c-1];
    end
    always @(posedge i_clk) begin
        for (c = 0; c < NC; c = c + 1) begin
            zero_q[c] <= base_lo[c*12 +: 12] == 12'd0;
            negb_q[c*12 +: 12] <= ~base_lo[c*12 +: 12] + {11'd0, cin[c]};
        end
        for (c = 0; c < LEVELS; c = c + 1)
            nzl_q[c] <= |(i_base & ((48'd1 << (c * B)) - 48'd1));
    end

    // A level without a hit is farther than any: its flag (top bit) is set.
    // o_nz is the level's offset less (B mod 2^kb != 0), as recorded in O.
    function [FW-1:0] level_dist;
        input             found;
        input [OW-1:0]    o_nz;
        input [NC*12-1:0] negb;
        input integer     kb;
        reg   [FW-1:0]    hi, lo, lomask;
        begin
            hi     = 0;
            hi[OW-1:0] = o_nz;
            lo     = 0;
            lo[NC*12-1:0] = negb;
            lomask = ({{(FW-1){1'b0}}, 1'b1} << kb) - 1'b1;
            level_dist = !found ? {1'b1, {(FW-1){1'b0}}} : (hi << kb) | (lo & lomask);
        end
    endfunction
    // b < a from the parts' compares (each at most 12 bits).
    function [2*NP-1:0] cmp_parts;         // {lt[NP-1:0], eq[NP-1:0]}
        input [FW-1:0] bv, av;
        integer p;
        begin
            for (p = 0; p < NP; p = p + 1) begin
                cmp_parts[NP + p] = bv[p*12 +: 12] < av[p*12 +: 12];
                cmp_parts[p]      = bv[p*12 +: 12] == av[p*12 +: 12];
            end
        end
    endfunction
    function less;
        input [2*NP-1:0] lteq;
        integer p;
        begin
            less = 1'b0;
            for (p = 0; p < NP; p = p + 1)
                less = lteq[NP + p] || (lteq[p] && less);
        end
    endfunction

    wire [FW-1:0]  d1_in [0:3];
    genvar gd;
    generate
        for (gd = 0; gd < 4; gd = gd + 1) begin : g_dist
            if (gd < LEVELS) begin : g_level
                assign d1_in[gd] = level_dist(found_q[gd], o_q[gd], negb_q, gd * B);
            end else begin : g_none
                assign d1_in[gd] = {1'b1, {(FW-1){1'b0}}};
            end
        end
    endgenerate
    reg [10:0]     e_q;                    // e_q[n-1]: clock x + n
    reg [FW-1:0]   d3 [0:1], d5;
    reg [2*NP-1:0] c2 [0:1], c4;
    reg            any_q;
    reg [24:0]     sum_lo6;
    reg [23:0]     hi6;
    // d5's flag and padding are not read: with no hit at all, its distance
    // bits are zero and o_next is forced to 0 anyway.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [FW-1:0]  d5_w = d5;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [47:0]    d5_ext = {{(48-DW){1'b0}}, d5_w[DW-1:0]};
    always @(posedge i_clk) begin
        e_q <= flush ? 11'd0 : {e_q[9:0], scan_end};
        any_q <= |found_q;
        // d_k = ((o_k - (B mod 2^kb != 0)) << kb) | (-B mod 2^kb) is wiring
        // from o_q, which holds the offset less that, and negb_q: no carry
        // crosses kb. Once the scan has ended, found_q and o_q stand still
        // (no word is left in A .. O), so the distances need no register of
        // their own, and F3 picks from them, not from copies carried beside
        // the comparison. Likewise d3 in F5.
        // F2, F3: each pair compared in parts, then the lesser.
        for (l = 0; l < 2; l = l + 1) begin
            c2[l] <= cmp_parts(d1_in[2*l+1], d1_in[2*l]);
            d3[l] <= less(c2[l]) ? d1_in[2*l+1] : d1_in[2*l];
        end
        // F4, F5: the same for the two.
        c4 <= cmp_parts(d3[1], d3[0]);
        d5 <= less(c4) ? d3[1] : d3[0];
        // F6, F7: B + the least, the high part a clock after the low.
        sum_lo6 <= {1'b0, i_base[23:0]} + {1'b0, d5_ext[23:0]};
        hi6     <= i_base[47:24] + d5_ext[47:24];
        o_valid <= !flush && (e_q[10] || o_valid);
        if (i_rst) begin
            o_found <= 1'b0;
            o_next  <= 48'd0;
        end else if (e_q[10] && !i_start) begin
            // (they change only as o_valid rises: not for a search abandoned
            // in its last clock)
            o_found <= any_q;
            o_next  <= any_q ? {hi6 + {23'd0, sum_lo6[24]}, sum_lo6[23:0]} : 48'd0;
        end
    end

`ifdef FORMAL
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
`ifdef TW_SEARCH_F_ANSWER
    // The answer and its clock, proved by k-induction for a search started
    // from ANY state (no reset: every flop but the proof's own counters
    // starts free), so for every search the chip will run, not only the
    // first after reset. The caller's contract holds: i_base and the bitmaps
    // (f_map, any value) stand still, and i_words is tw_bitmap's search
    // port, the word addressed a clock before.
    //
    // The reference is the header's definition, computed plainly: each
    // level's first busy slot in the order from its pointer, its distance,
    // the least of them, and the clock T from h_k and C_k. From C_k follows
    // the schedule: level k's words are addressed in clocks S_k .. S_k +
    // C_k - 1 (S_0 = 1, S_k+1 = S_k + C_k), word i in clock S_k + i, and
    // the scan ends at E = S_LEVELS, T = E + 11. The invariants below say
    // that every flop the answer depends on holds what that schedule puts
    // in it, clock by clock; they make the answer's properties inductive,
    // so no unrolling need cross a whole search (k = 2) and the proof
    // reaches the chip's 4 x 256.
    localparam integer F_SLOTS = 1 << B;
    localparam integer F_TW    = 10;             // clock counts: T_max < 2^10
    (* anyconst *) reg [LEVELS*F_SLOTS-1:0] f_map;   // level l, slot s: bit l*2^b + s
    (* anyconst *) reg [47:0]               f_base;
    reg [WA-1:0] f_raddr_q;                  // the address the port read last clock
    always @(posedge i_clk)
        f_raddr_q <= w_cur_q;
    integer fw;
    always @(*) begin
        assume(i_base == f_base);
        assume(!i_rst);
        assume(i_start == !f_past_valid);    // one start, in the first clock
        // Indexed in f_map whole: the same word taken from the level's
        // slice first (as f_word does) slows z3's 4 x 256 inductive step by
        // a third.
        for (fw = 0; fw < LEVELS; fw = fw + 1)
            assume(i_words[fw*SW +: SW] == f_map[fw*F_SLOTS + (NW > 1 ? f_raddr_q : 0)*SW +: SW]);
    end

    // The reference, per level l: f_hit[l], its first busy slot's offset o_l
    // (1 .. 2^b), h_l, C_l, S_l; then the least distance and o_next.
    (* anyconst *) reg [LEVELS*(B+1)-1:0] f_offs_c;   // o_l, pinned below
    reg [F_SLOTS-1:0]        f_lmap, f_rot;  // f_rot[j]: slot p_l + 1 + j
    reg [2*F_SLOTS-1:0]      f_two;
    reg [LEVELS-1:0]         f_hit, f_nz;
    reg [LEVELS*(B+1)-1:0]   f_offs, f_hs;   // o_l, h_l
    reg [LEVELS*B-1:0]       f_qs;           // q_l = p_l + 1
    reg [(LEVELS+1)*F_TW-1:0] f_ss;          // S_0 .. S_LEVELS (= E)
    reg [47:0] f_best, f_dist, f_next;
    reg        f_any;
    reg [B:0]  f_off, f_h;
    reg [B-1:0] f_q;
    reg [F_TW-1:0] f_c;
    integer    fl, fj;
    always @(*) begin
        f_any = 1'b0; f_best = 48'd0;
        f_hit = 0; f_nz = 0; f_offs = 0; f_hs = 0; f_qs = 0; f_ss = 0;
        f_ss[0 +: F_TW] = 1;
        for (fl = 0; fl < LEVELS; fl = fl + 1) begin
            f_q = f_base[fl*B +: B] + 1'b1;  // mod 2^b
            f_lmap = f_map[fl*F_SLOTS +: F_SLOTS];
            f_two = {f_lmap, f_lmap} >> f_q;
            f_rot = f_two[F_SLOTS-1:0];
            // o_l: the least offset whose slot is busy, 0 for none. For
            // any bitmap exactly one value meets these assumptions (one
            // more than f_rot's lowest set bit), so they exclude no bitmap.
            f_off = f_offs_c[fl*(B+1) +: B+1];
            if (f_off == 0)
                assume(f_rot == 0);
            else
                assume(f_off <= F_SLOTS && f_rot[f_off - 1'b1]
                       && (f_rot & ((1 << (f_off - 1'b1)) - 1)) == 0);
            f_hit[fl] = f_off != 0;
            f_nz[fl] = (f_base & ((48'd1 << (fl*B)) - 48'd1)) != 48'd0;
            // d_l = o_l * 2^lb - (B mod 2^lb)
            f_dist = ({47'd0, f_off} << (fl*B)) - (f_base & ((48'd1 << (fl*B)) - 48'd1));
            if (f_hit[fl] && (!f_any || f_dist < f_best)) f_best = f_dist;
            f_any = f_any || f_hit[fl];
            // h_l = floor(((q_l mod SW) + o_l - 1) / SW); C_l = min(h_l + 5, NW + 1)
            f_h = {1'b0, f_q & (SW - 1)} + f_off - 1'b1;
            f_h = f_h >> BIT_BITS;
            f_c = f_hit[fl] && f_h + 5 < NW + 1 ? f_h + 5 : NW + 1;
            f_offs[fl*(B+1) +: B+1] = f_off;
            f_hs[fl*(B+1) +: B+1]   = f_h;
            f_qs[fl*B +: B]         = f_q;
            f_ss[(fl+1)*F_TW +: F_TW] = f_ss[fl*F_TW +: F_TW] + f_c;
        end
        f_next = f_any ? f_base + f_best : 48'd0;
    end
    wire [F_TW-1:0] f_e = f_ss[LEVELS*F_TW +: F_TW];   // the scan's end, E
    wire [F_TW-1:0] f_t_end = f_e + 11;                 // T

    reg [F_TW-1:0] f_t;                      // clocks since the start, clock 0
    initial f_t = 0;
    always @(posedge i_clk)
        if (f_t != {F_TW{1'b1}}) f_t <= f_t + 1'b1;

    // What the answer must be.
    always @(*) begin
        assert(f_past_valid == (f_t != 0));
        if (f_past_valid) begin
            assert(o_valid == (f_t >= f_t_end));
            if (o_valid) assert(o_found == f_any && o_next == f_next);
        end
    end
    // Until the answer, the last one stands.
    always @(posedge i_clk)
        if (f_past_valid && !o_valid) assert($stable(o_found) && $stable(o_next));
`ifdef TW_SEARCH_F_CONTRACT
    // The contract as tw_answer_contract (below) states it for a caller
    // follows from this proof's setting: its bitmaps are f_map, its premise
    // holds from the start on, and its answer is proved here with the rest
    // (search-contract-2x2).
    always @(*) begin
        assume(f_map_i == f_map);
        // The premise holds, so every valid answer is compared. (With one
        // word a level, as the core's proof has: with more, the monitor's
        // record of the address read before the start is free here.)
        if (f_past_valid) assert(f_ok_q_o && f_smap_q_o == f_map);
    end
`endif

    // Level l's word i of a scan (i = 0 .. NW), as the stages hold it: its
    // address, its mask, the word, and the offset of its bit 0 less
    // (B mod 2^lb != 0). q is q_l.
    function [WA-1:0] f_addr(input [B-1:0] q, input [F_TW-1:0] i);
        f_addr = NW > 1 ? q[B-1 -: WA] + i[WA-1:0] : {WA{1'b0}};
    endfunction
    function [SW-1:0] f_mask(input [B-1:0] q, input [F_TW-1:0] i);
        f_mask = i == 0  ? {SW{1'b1}} << q[BIT_BITS-1:0]
               : i == NW ? ~({SW{1'b1}} << q[BIT_BITS-1:0]) : {SW{1'b1}};
    endfunction
    function [SW-1:0] f_word(input [F_SLOTS-1:0] lmap, input [B-1:0] q, input [F_TW-1:0] i);
        f_word = lmap[(NW > 1 ? f_addr(q, i) : 0)*SW +: SW];
    endfunction
    // the word as the scan sees it: masked, padded to 16 bits
    function [15:0] f_scan(input [SW-1:0] word, input [SW-1:0] mask);
        begin
            f_scan = 16'd0;
            f_scan[SW-1:0] = word & mask;
        end
    endfunction
    function [OW-1:0] f_bit0(input [B-1:0] q, input nz, input [F_TW-1:0] i);
        f_bit0 = (i << BIT_BITS) - q[BIT_BITS-1:0] + !nz;
    endfunction
    function [BIT_BITS-1:0] f_first(input [15:0] w);   // w's lowest set bit
        integer b;
        begin
            f_first = 0;
            for (b = SW - 1; b >= 0; b = b - 1)
                if (w[b]) f_first = b;
        end
    endfunction

    // The word scan meets the reference: in level l's scan the masked
    // words before word h_l have no busy slot and word h_l has, its first
    // at offset o_l; no word has one if the level has none. A fact of the
    // constants alone: the base case proves it, and the inductive step has
    // it from the clocks before, so it need only match the stages' words
    // to these.
    // A proof of several levels may assume it from the one-level proof at
    // the same SLOT_BITS (TW_SEARCH_F_LEMMA_ASSUMED): it is the same
    // statement for each level's bitmap and pointer, and one level takes
    // any bitmap and any pointer.
`ifdef TW_SEARCH_F_LEMMA_ASSUMED
`define TW_SEARCH_F_LEMMA assume
`else
`define TW_SEARCH_F_LEMMA assert
`endif
    reg [15:0] f_lw;
    integer    fk, fi;
    always @(*)
        for (fk = 0; fk < LEVELS; fk = fk + 1)
            for (fi = 0; fi <= NW; fi = fi + 1) begin
                f_lw = f_scan(f_word(f_map[fk*F_SLOTS +: F_SLOTS], f_qs[fk*B +: B], fi),
                              f_mask(f_qs[fk*B +: B], fi));
                if (!f_hit[fk] || fi < f_hs[fk*(B+1) +: B+1])
                    `TW_SEARCH_F_LEMMA(f_lw == 16'd0);
                else if (fi == f_hs[fk*(B+1) +: B+1])
                    `TW_SEARCH_F_LEMMA(f_lw != 16'd0 && f_bit0(f_qs[fk*B +: B], 1'b0, fi) + f_first(f_lw)
                                            == f_offs[fk*(B+1) +: B+1]);
            end

    // The invariants. For the sequencer (d = 0) and each word stage R, M, N,
    // O (d = 1 .. 4): the clock u = f_t - d its word was addressed in, the
    // level and word of the schedule then, and that word, mask and offset.
    integer fd, fm, fn;
    reg               f_run, f_v;
    reg [LVL_W-1:0]   f_l;
    reg [F_TW-1:0]    f_u, f_i;
    reg [B-1:0]       f_ql;
    reg [WA-1:0]      f_ad;
    reg [SW-1:0]      f_w, f_mk;
    reg [15:0]        f_hw;
    reg [OW-1:0]      f_cc;
    reg [3:0]         f_nzn;
    reg [7:0]         f_ixn;
    reg [BIT_BITS-1:0] f_j;
    always @(*) if (f_past_valid) begin
        for (fd = 0; fd <= 4; fd = fd + 1) begin
            f_u = f_t - fd;
            f_run = 1'b0; f_l = 0; f_i = 0;
            for (fm = 0; fm < LEVELS; fm = fm + 1)
                if (f_t >= fd && f_u >= f_ss[fm*F_TW +: F_TW] && f_u < f_ss[(fm+1)*F_TW +: F_TW]) begin
                    f_run = 1'b1;
                    f_l   = fm;
                    f_i   = f_u - f_ss[fm*F_TW +: F_TW];
                end
            // the clock after a level's hit is known, no word is read
            f_v  = f_run && !(f_hit[f_l] && f_i == f_hs[f_l*(B+1) +: B+1] + 4);
            f_ql = f_qs[f_l*B +: B];
            f_ad = f_addr(f_ql, f_i);
            f_w  = f_word(f_map[f_l*F_SLOTS +: F_SLOTS], f_ql, f_i);
            f_mk = f_mask(f_ql, f_i);
            f_cc = f_bit0(f_ql, f_nz[f_l], f_i);
            f_hw = f_scan(f_w, f_mk);
            f_j = f_first(f_hw);
            for (fn = 0; fn < 4; fn = fn + 1) begin
                f_nzn[fn] = |f_hw[fn*4 +: 4];
                f_ixn[fn*2 +: 2] = first4(f_hw[fn*4 +: 4]);
            end
            case (fd)
            0: begin
                assert(run_q == f_run);
                if (f_run) begin
                    assert(lvl_q == f_l && {{(F_TW-IW){1'b0}}, i_q} == f_i);
                    assert(first_q == (f_i == 0) && last_q == (f_i == NW));
                    assert(skip_q == (f_hit[f_l] && f_i == f_hs[f_l*(B+1) +: B+1] + 4));
                    assert(w_cur_q == f_ad);
                    assert(qs_q == q_start >> (f_l*B));
                end else
                    assert(w_cur_q == 0);
            end
            1: begin
                assert(v_r == f_v);
                if (f_v) assert(lvl_r == f_l && mask_r == f_mk && c_r == f_cc
                                && (NW == 1 || f_raddr_q == f_ad));
            end
            2: begin
                assert(v_m == f_v);
                if (f_v) assert(lvl_m == f_l && mask_m == f_mk && c_m == f_cc && word_m == f_w);
            end
            3: begin
                assert(v_n == f_v);
                if (f_v) assert(lvl_n == f_l && c_n == f_cc && nz_n == f_nzn && ix_n == f_ixn);
            end
            default: begin
                assert(v_o == f_v);
                if (f_v) assert(lvl_o == f_l && c_o == f_cc && hit_o == (f_hw != 0)
                                && (f_hw == 0 || j_o == f_j));
            end
            endcase
        end
        // A level's first hit is recorded the clock after its word h_l
        // leaves O, S_l + h_l + 5, as its offset less (B mod 2^lb != 0).
        for (fm = 0; fm < LEVELS; fm = fm + 1) begin
            assert(found_q[fm] == (f_hit[fm] && f_t >= f_ss[fm*F_TW +: F_TW] + f_hs[fm*(B+1) +: B+1] + 5));
            if (found_q[fm]) assert(o_q[fm] == f_offs[fm*(B+1) +: B+1] - f_nz[fm]);
        end
        // The base's registers, a clock after the start (negb_q two).
        for (fm = 0; fm < LEVELS; fm = fm + 1)
            assert(nzl_q[fm] == f_nz[fm]);
        for (fm = 0; fm < NC; fm = fm + 1)
            assert(zero_q[fm] == (base_lo[fm*12 +: 12] == 12'd0));
        if (f_t >= 2) assert(negb_q == -base_lo);
        // After the scan: e_q[n] in clock E + n; the minimum's stages once
        // found_q stands still (from E + 4).
        assert(e_q == (f_t >= f_e && f_t - f_e <= 10 ? 11'd1 << (f_t - f_e) : 11'd0));
        if (f_t >= f_e + 5) begin
            assert(any_q == f_any);
            for (fm = 0; fm < 2; fm = fm + 1)
                assert(c2[fm] == cmp_parts(d1_in[2*fm+1], d1_in[2*fm]));
        end
        if (f_t >= f_e + 6)
            for (fm = 0; fm < 2; fm = fm + 1)
                assert(d3[fm] == (less(c2[fm]) ? d1_in[2*fm+1] : d1_in[2*fm]));
        if (f_t >= f_e + 7) assert(c4 == cmp_parts(d3[1], d3[0]));
        if (f_t >= f_e + 8) assert(d5 == (less(c4) ? d3[1] : d3[0]));
        if (f_t >= f_e + 9)
            assert(sum_lo6 == {1'b0, i_base[23:0]} + {1'b0, d5_ext[23:0]}
                   && hi6 == i_base[47:24] + d5_ext[47:24]);
    end
`else
    // The search's timing, from reset, whatever the words read (the bitmaps
    // may hold anything and change at any clock) and whenever starts and
    // resets come. Proved by tests/formal/run.sh: by BMC over a whole search
    // and more (search-2x2, search-1x7), and by k-induction over the
    // invariants below (search-time-*), which is what lets tw_core's proofs
    // assume tw_answer_timing (below).
    always @(*)
        if (!f_past_valid)
            assume(i_rst);
    localparam integer F_CMIN = NW + 1 < 5 ? NW + 1 : 5;
    localparam integer F_TMIN = 12 + LEVELS * F_CMIN;      // every level left at once
    localparam integer F_TMAX = 12 + LEVELS * (NW + 1);    // none left early
    reg [9:0] f_t;                         // clocks since the last start (saturating)
    reg       f_on;                        // a search was started since reset
    always @(posedge i_clk)
        if (i_rst) begin
            f_on <= 1'b0;
            f_t  <= 10'd0;
        end else if (i_start) begin
            f_on <= 1'b1;
            f_t  <= 10'd1;
        end else if (f_t != 10'h3ff)
            f_t <= f_t + 10'd1;
    always @(*) if (f_past_valid) begin
        // No answer before a search; none before the least cost; one by the
        // worst case's clock, T_max.
        if (!f_on) assert(!o_valid && !o_found && o_next == 48'd0);
        if (f_on && f_t < F_TMIN) assert(!o_valid);
        if (f_on && f_t >= F_TMAX) assert(o_valid);
        // The word addresses: 0 on a one-word level, and 0 with no scan
        // running; never a word the bitmap lacks (with NW > 1 every WA-bit
        // address is a word).
        if (NW == 1 || !f_on || o_valid) assert(o_waddr == 0);
        // No busy slot: o_next is 0.
        if (o_valid && !o_found) assert(o_next == 48'd0);
    end
    // A start drops the answer in the next clock.
    always @(posedge i_clk)
        if (f_past_valid && $past(i_start)) assert(!o_valid);

    // The invariants that make the bounds inductive. A search is in one of
    // three phases: the scan (run_q), the minimum (e_q's one bit moving up)
    // and the answer (o_valid), and f_t is bounded in each by where the
    // search has got to. Level k's scan reads C_k words, F_CMIN <= C_k <=
    // NW + 1: the level ends at its last word (last_q) or at its hit
    // (skip_q), which is known only from the word addressed three clocks
    // before, so never before the fifth word.
    integer f_lv, f_eb;
    always @(*) if (f_past_valid) begin
        assert(f_on == (run_q || e_q != 11'd0 || o_valid));
        assert(o_found || o_next == 48'd0);
        if (!run_q) assert(w_cur_q == 0);
        if (run_q) begin
            f_lv = lvl_q;
            assert(f_lv <= LEVELS - 1 && i_q <= NW && last_q == (i_q == NW));
            assert(!skip_q || i_q >= 4);
            assert(f_t >= 1 + f_lv * F_CMIN + i_q && f_t <= 1 + f_lv * (NW + 1) + i_q);
            assert(e_q == 11'd0 && !o_valid);
            // qs_q: the first slots of the level in turn and of those after
            // it, zero above.
            assert((qs_q >> ((LEVELS - f_lv) * B)) == 0);
            // A word in R, M or N is of the level in turn or one before it,
            // and if of the level in turn, addressed one, two or three
            // clocks ago.
            if (v_r) assert(lvl_r <= lvl_q && (lvl_r != lvl_q || i_q >= 1));
            if (v_m) assert(lvl_m <= lvl_q && (lvl_m != lvl_q || i_q >= 2));
            if (v_n) assert(lvl_n <= lvl_q && (lvl_n != lvl_q || i_q >= 3));
        end
        if (e_q != 11'd0) begin
            assert((e_q & (e_q - 11'd1)) == 11'd0 && !o_valid);
            for (f_eb = 0; f_eb <= 10; f_eb = f_eb + 1)
                if (e_q[f_eb])
                    assert(f_t >= F_TMIN - 11 + f_eb && f_t <= F_TMAX - 11 + f_eb);
        end
        if (o_valid) assert(f_t >= F_TMIN);
    end
`ifdef TW_SEARCH_F_TIMING
    // The contract's clock count is this proof's.
    always @(*) if (f_past_valid) assert(f_since_o == f_t);
`endif
`endif
`endif
`ifdef TW_SEARCH_F_TIMING
    tw_answer_timing #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS)) u_timing (
        .i_clk(i_clk), .i_rst(i_rst), .i_start(i_start),
        .o_valid(o_valid), .o_found(o_found), .o_next(o_next), .o_since(f_since_o)
    );
`endif
`ifdef TW_SEARCH_F_CONTRACT
    tw_answer_contract #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS)) u_contract (
        .i_clk(i_clk), .i_rst(i_rst), .i_start(i_start), .i_base(i_base),
        .o_waddr(o_waddr), .i_words(i_words),
        .o_valid(o_valid), .o_found(o_found), .o_next(o_next),
        .i_map(f_map_i), .o_ok_q(f_ok_q_o), .o_smap_q(f_smap_q_o)
    );
`endif
endmodule

`ifdef TW_SEARCH_F_CONTRACT
// The search's answer as search-ans-* prove it (TW_SEARCH_F_ANSWER above),
// stated on tw_search's ports as a contract for a caller's proof: tw_core's
// core-shadow assumes it. search-contract-any-2x2 proves it for every
// reachable state whatever the inputs do, and core-contract checks it on
// the core by BMC from reset. After a start, while no reset and no new start come: if
// i_base stands and every word read, from the start's own clock on, is
// that of the bitmaps i_map showed in the start's clock, at the address
// o_waddr gave a clock before, then a valid answer is those bitmaps'
// earliest busy slot after i_base, with o_next 0 if there is none.
// o_ok_q: that premise held up to the clock before; o_smap_q: the bitmaps
// at the start.
module tw_answer_contract #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_start,
    input  wire [47:0] i_base,
    input  wire [LEVELS*(SLOT_BITS > 4 ? SLOT_BITS - 4 : 1)-1:0]  o_waddr,
    input  wire [LEVELS*(SLOT_BITS < 4 ? 1 << SLOT_BITS : 16)-1:0] i_words,
    input  wire        o_valid,
    input  wire        o_found,
    input  wire [47:0] o_next,
    input  wire [LEVELS*(1 << SLOT_BITS)-1:0] i_map,
    output reg         o_ok_q,
    output reg  [LEVELS*(1 << SLOT_BITS)-1:0] o_smap_q
);
    localparam integer SLOTS = 1 << SLOT_BITS;
    localparam integer WA    = SLOT_BITS > 4 ? SLOT_BITS - 4 : 1;
    localparam integer SW    = SLOT_BITS < 4 ? 1 << SLOT_BITS : 16;
`include "tw_first_busy.vh"
    reg  [47:0]          base_q;
    reg  [LEVELS*WA-1:0] waddr_q;       // o_waddr a clock ago
    wire [LEVELS*SLOTS-1:0] smap = i_start ? i_map : o_smap_q;
    reg                  words_ok;
    integer l;
    always @(*) begin
        words_ok = 1'b1;
        for (l = 0; l < LEVELS; l = l + 1)
            if (i_words[l * SW +: SW] != smap[l * SLOTS + (SLOTS > SW ? waddr_q[l * WA +: WA] : 0) * SW +: SW])
                words_ok = 1'b0;
    end
    wire ok = (i_start || (o_ok_q && i_base == base_q)) && !i_rst && words_ok;
    always @(posedge i_clk) begin
        o_smap_q <= smap; base_q <= i_base; waddr_q <= o_waddr; o_ok_q <= ok;
    end
    wire [48:0] answer = f_first_busy(smap, i_base);
    always @(*) if (o_valid && !i_start && ok) begin
        assert(o_found == answer[48]);
        assert(o_next == (answer[48] ? i_base + answer[47:0] : 48'd0));
    end
endmodule
`endif
`ifdef TW_SEARCH_F_TIMING
// The search's timing as search-time-* prove it (the invariants above),
// stated on tw_search's ports as a contract for a caller's proof: tw_core's
// inductions assume it. Whatever the words read and whenever starts and
// resets come: o_valid is never high within F_TMIN clocks of a start or a
// reset (o_since counts those clocks: 1 in the clock after a start, 0 in
// the clock after a reset; saturating), so either drops it in the next
// clock; and once high it stays high, its answer unchanged, until a start
// or a reset.
module tw_answer_timing #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8
) (
    input  wire        i_clk,
    input  wire        i_rst,
    input  wire        i_start,
    input  wire        o_valid,
    input  wire        o_found,
    input  wire [47:0] o_next,
    output reg  [9:0]  o_since
);
    localparam integer NW     = SLOT_BITS > 4 ? 1 << (SLOT_BITS - 4) : 1;
    localparam integer F_TMIN = 12 + LEVELS * (NW + 1 < 5 ? NW + 1 : 5);
    reg        past_q, flush_q, valid_q, found_q;
    reg [47:0] next_q;
    initial past_q = 1'b0;
    always @(posedge i_clk) begin
        o_since <= i_rst ? 10'd0 : i_start ? 10'd1 : o_since == 10'h3ff ? o_since : o_since + 10'd1;
        past_q  <= 1'b1;
        flush_q <= i_rst || i_start;
        valid_q <= o_valid; found_q <= o_found; next_q <= o_next;
    end
    always @(*) if (past_q) begin
        if (valid_q && !flush_q) assert(o_valid && o_found == found_q && o_next == next_q);
        if (o_valid) assert(o_since >= F_TMIN);
    end
endmodule
`endif
`default_nettype wire
