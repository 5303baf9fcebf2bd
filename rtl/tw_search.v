`default_nettype none
// tw_search: the next-busy search's word scan, on the bitmaps' search ports.
//
// A plain sequential scan that keeps the interface tw_core expects (every
// output from flops): one word a clock, levels in turn, each level's word
// addresses from the slot after its pointer round to the pointer, then the
// least distance over the levels, one level a clock. For each level k the
// first busy slot after B's field p in circular order p+1 .. p+2^b, at
// offset o, is the visit at B - (B mod 2^(kb)) + o * 2^(kb); the answer is
// the least of these over the levels.
//
// The search assumes the bitmaps do not change while it runs (the caller
// starts it again after every bitmap command) and tw_bitmap's search-port
// semantics: the word for the address of clock t arrives in clock t + 1.
module tw_search #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8
) (
    input  wire                  i_clk,
    input  wire                  i_rst,
    input  wire                  i_start,   // one-clock pulse from a flop
    input  wire [47:0]           i_base,    // held by the caller from i_start until o_valid
    output wire [LEVELS*WA-1:0]  o_waddr,
    input  wire [LEVELS*SW-1:0]  i_words,
    output reg                   o_valid,
    output reg                   o_found,
    output reg  [47:0]           o_next
);
    localparam integer SLOTS    = 1 << SLOT_BITS;
    localparam integer WA       = SLOT_BITS > 4 ? SLOT_BITS - 4 : 1;
    localparam integer SW       = SLOT_BITS < 4 ? 1 << SLOT_BITS : 16;
    localparam integer NWORDS   = SLOTS / SW;
    localparam integer BIT_BITS = $clog2(SW);
    localparam integer IW       = $clog2(NWORDS + 1) + 1;
    localparam integer OW       = SLOT_BITS + 1;          // offsets 1 .. 2^b

    reg [47:0]           base_q;
    reg                  run_q, fin_q;
    reg [1:0]            lvl_q, lvl_r, min_lvl_q;
    reg [IW-1:0]         i_q, i_r;
    reg                  v_r;
    reg [WA-1:0]         waddr_q;
    // Four of each whatever LEVELS is, so that a 2-bit level indexes them.
    reg [3:0]            found_q;
    reg [OW-1:0]         off_q [0:3];
    reg                  best_any_q;
    reg [47:0]           best_q;

    // The slot after level k's pointer, its word and its bit.
    function [SLOT_BITS-1:0] succ;
        input [47:0]  b;
        input integer k;
        succ = b[k*SLOT_BITS +: SLOT_BITS] + 1'b1;
    endfunction
    // Only the bit within the word (q_r), the word (q_n, q_start) and the
    // word count (i_n) are read of these.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [SLOT_BITS-1:0] q_r;
    integer k;
    always @(*) begin
        q_r   = 0;
        for (k = 0; k < LEVELS; k = k + 1) begin
            if (lvl_r == k[1:0]) q_r   = succ(base_q, k);
        end
    end
    /* verilator lint_on UNUSEDSIGNAL */
    wire [BIT_BITS-1:0] qb_r   = q_r[BIT_BITS-1:0];

    // Where the sequencer goes next, and that word's address.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [1:0]    lvl_n;
    reg [IW-1:0] i_n;
    reg [SLOT_BITS-1:0] q_n;
    reg [WA-1:0] next_waddr;
    always @(*) begin
        lvl_n = lvl_q;
        i_n   = i_q + 1'b1;
        if (i_q == NWORDS[IW-1:0]) begin
            i_n   = 0;
            lvl_n = lvl_q + 2'd1;
        end
        q_n = 0;
        for (k = 0; k < LEVELS; k = k + 1)
            if (lvl_n == k[1:0]) q_n = succ(base_q, k);
        next_waddr = 0;
        if (NWORDS > 1)
            next_waddr = q_n[SLOT_BITS-1 -: WA] + i_n[WA-1:0];
    end
    wire [SLOT_BITS-1:0] q_start = succ(i_base, 0);
    wire [WA-1:0] first_waddr = NWORDS > 1 ? q_start[SLOT_BITS-1 -: WA] : {WA{1'b0}};
    /* verilator lint_on UNUSEDSIGNAL */
    genvar gk;
    generate
        for (gk = 0; gk < LEVELS; gk = gk + 1) begin : g_addr
            assign o_waddr[gk*WA +: WA] = waddr_q;
        end
    endgenerate

    // The word read for (lvl_r, i_r): the bits in the scan, the first one.
    reg [SW-1:0]        word_r, mask_r, hits_r;
    reg [BIT_BITS-1:0]  j_r;
    reg                 hit_r;
    integer sj;
    always @(*) begin
        word_r = 0;
        for (k = 0; k < LEVELS; k = k + 1)
            if (lvl_r == k[1:0]) word_r = i_words[k*SW +: SW];
        mask_r = {SW{1'b1}};
        if (i_r == 0)                  mask_r = mask_r & ({SW{1'b1}} << qb_r);
        if (i_r == NWORDS[IW-1:0])     mask_r = mask_r & ~({SW{1'b1}} << qb_r);
        hits_r = word_r & mask_r;
        hit_r  = |hits_r;
        j_r    = 0;
        for (sj = SW - 1; sj >= 0; sj = sj - 1)
            if (hits_r[sj]) j_r = sj[BIT_BITS-1:0];
    end
    wire [OW-1:0] off_r = {{(OW-IW){1'b0}}, i_r} * SW[OW-1:0] + {{(OW-BIT_BITS){1'b0}}, j_r}
                        - {{(OW-BIT_BITS){1'b0}}, qb_r} + 1'b1;

    // The distance of level min_lvl_q's answer from the base, and the tick.
    reg [47:0] lowmask, lvl_dist;
    always @(*) begin
        lowmask = 0;
        lvl_dist    = 0;
        for (k = 0; k < LEVELS; k = k + 1)
            if (min_lvl_q == k[1:0]) begin
                lowmask = (48'd1 << (k * SLOT_BITS)) - 48'd1;
                lvl_dist    = ({{(48-OW){1'b0}}, off_q[k]} << (k * SLOT_BITS)) - (base_q & lowmask);
            end
    end

    wire take = found_q[min_lvl_q] && (!best_any_q || lvl_dist < best_q);
    always @(posedge i_clk) begin
        if (i_rst) begin
            run_q <= 1'b0; fin_q <= 1'b0; v_r <= 1'b0; o_valid <= 1'b0; o_found <= 1'b0;
            o_next <= 0; found_q <= 4'd0; lvl_q <= 0; i_q <= 0; waddr_q <= 0;
            min_lvl_q <= 0; best_any_q <= 1'b0; best_q <= 0; base_q <= 0; lvl_r <= 0; i_r <= 0;
        end else if (i_start) begin
            base_q     <= i_base;
            run_q      <= 1'b1;
            fin_q      <= 1'b0;
            v_r        <= 1'b0;
            o_valid    <= 1'b0;
            found_q    <= 0;
            lvl_q      <= 0;
            i_q        <= 0;
            best_any_q <= 1'b0;
            // Level 0's first word (the rest follow from base_q).
            waddr_q    <= first_waddr;
        end else begin
            // Address stage: one word of one level a clock.
            v_r   <= run_q;
            lvl_r <= lvl_q;
            i_r   <= i_q;
            if (run_q) begin
                if (i_q == NWORDS[IW-1:0]) begin
                    i_q <= 0;
                    if (lvl_q == LEVELS[1:0] - 2'd1 || LEVELS == 1) begin
                        run_q <= 1'b0;
                    end else begin
                        lvl_q <= lvl_q + 2'd1;
                    end
                end else begin
                    i_q <= i_q + 1'b1;
                end
            end
            // The next word's address: its level's first word plus the
            // words already scanned, round the level.
            if (run_q)
                waddr_q <= next_waddr;
            // Word stage: the level's first hit.
            if (v_r && hit_r && !found_q[lvl_r]) begin
                found_q[lvl_r] <= 1'b1;
                off_q[lvl_r]   <= off_r;
            end
            // Once the last word is in: the least over the levels.
            if (!run_q && !v_r && !fin_q && !o_valid) begin
                fin_q     <= 1'b1;
                min_lvl_q <= 0;
            end
            if (fin_q) begin
                if (take) begin
                    best_any_q <= 1'b1;
                    best_q     <= lvl_dist;
                end
                if (min_lvl_q == LEVELS[1:0] - 2'd1 || LEVELS == 1) begin
                    fin_q   <= 1'b0;
                    o_valid <= 1'b1;
                    o_found <= best_any_q || take;
                    o_next  <= base_q + (take ? lvl_dist : best_q);
                end else begin
                    min_lvl_q <= min_lvl_q + 2'd1;
                end
            end
        end
    end
endmodule
`default_nettype wire
