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
        // its first hit; the search-ans-* proofs pass with it left whole.
        // Left whole, the chip placed no smaller and slower: docs/fpga.md.)
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
    // The answer and its clock, proved for a search started from ANY state
    // (no reset: every flop but the proof's own counters starts free), so
    // for every search the chip will run, not only the first after reset.
    // The caller's contract holds: i_base and the bitmaps (f_map, any
    // value) stand still, and i_words is tw_bitmap's search port, the word
    // addressed a clock before. BMC through the clock after the worst
    // case's covers the whole search. The reference is the header's definition, computed plainly:
    // each level's first busy slot walking from its pointer, its distance,
    // the least of them, and the clock T from h_k and C_k.
    localparam integer F_SLOTS = 1 << B;
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
        for (fw = 0; fw < LEVELS; fw = fw + 1)
            assume(i_words[fw*SW +: SW] == f_map[fw*F_SLOTS + (NW > 1 ? f_raddr_q : 0)*SW +: SW]);
    end
    reg [47:0] f_best, f_dist, f_next, f_t_end;
    reg        f_any, f_hit;
    reg [B:0]  f_off;                        // o_k: 1 .. 2^b
    reg [B-1:0] f_p, f_slot, f_q;
    reg [B:0]  f_h;                          // (q_k mod SW) + o_k - 1
    integer    fl, fo, f_c;                  // f_c: h_k + 5, or NW + 1 without a hit
    always @(*) begin
        f_any = 1'b0; f_best = 48'd0; f_t_end = 48'd12;
        for (fl = 0; fl < LEVELS; fl = fl + 1) begin
            f_p = f_base[fl*B +: B];
            f_hit = 1'b0; f_off = 0;
            for (fo = F_SLOTS; fo >= 1; fo = fo - 1) begin
                f_slot = f_p + fo[B-1:0];    // mod 2^b
                if (f_map[fl*F_SLOTS + f_slot]) begin
                    f_hit = 1'b1; f_off = fo[B:0];
                end
            end
            // d_k = o_k * 2^kb - (B mod 2^kb)
            f_dist = ({47'd0, f_off} << (fl*B)) - (f_base & ((48'd1 << (fl*B)) - 48'd1));
            if (f_hit && (!f_any || f_dist < f_best)) f_best = f_dist;
            f_any = f_any || f_hit;
            // C_k = min(h_k + 5, NW + 1), h_k = floor(((q_k mod SW) + o_k - 1) / SW)
            f_q = f_p + 1'b1;
            f_h = {1'b0, f_q & (SW - 1)} + f_off - 1'b1;
            f_c = f_hit ? (f_h >> BIT_BITS) + 5 : NW + 1;
            f_t_end = f_t_end + (f_c < NW + 1 ? f_c : NW + 1);
        end
        f_next = f_any ? f_base + f_best : 48'd0;
    end
    // The reference is a function of the constants alone: taken once, in the
    // first clock, so that the solver need not work it out at every step.
    (* anyconst *) reg [47:0] f_next_c, f_t_end_c;
    (* anyconst *) reg        f_any_c;
    always @(*)
        if (!f_past_valid) assume(f_next_c == f_next && f_t_end_c == f_t_end && f_any_c == f_any);
    reg [9:0] f_t;                           // clocks since the start, clock 0
    initial f_t = 10'd0;
    always @(posedge i_clk)
        if (f_t != 10'h3ff) f_t <= f_t + 10'd1;
    always @(*) if (f_past_valid) begin
        assert(o_valid == ({38'd0, f_t} >= f_t_end_c));
        if (o_valid) assert(o_found == f_any_c && o_next == f_next_c);
    end
    // Until the answer, the last one stands.
    always @(posedge i_clk)
        if (f_past_valid && !o_valid) assert($stable(o_found) && $stable(o_next));
`else
    // Proved by tests/formal/run.sh (BMC from reset over a whole search and
    // more, at small geometries). The words read are free: the bounds hold
    // whatever the bitmaps hold.
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
`endif
`endif
endmodule
`default_nettype wire
