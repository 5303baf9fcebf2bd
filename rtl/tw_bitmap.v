`default_nettype none
// tw_bitmap: one level's busy bitmap, 2^SLOT_BITS bits held as NWORDS words
// of SW bits in block RAM (iCE40 EBR in its 256x16 mode, the one with a
// per-bit write mask), with two registered read ports:
//
//  * the visit port reads one slot's bit,
//  * the search port reads one SW-bit word,
//
// each giving, in the cycle after the address, the bitmap as it stands after
// every write up to and including the address's cycle. Block RAM returns the
// contents from before a write in the same cycle, so the written bit is
// patched into the read (bypass). CLEAR_ALL must take one cycle, which no RAM
// can do: a flop per word says whether the word has been written since the
// last clear; a word without it reads as zero and its first write stores the
// whole word.
module tw_bitmap #(
    parameter integer SLOT_BITS = 8,
    // 1: the visit port takes two more clocks (o_visit_bit three clocks
    // after the address, the bitmap as it stood after the address's clock):
    // the word is registered as it leaves block RAM and the slot's bit is
    // picked from that register, so that no path runs from the RAM through
    // the bit select. tw_core uses it; 0 is the single-clock port.
    parameter integer VISIT_PIPE = 0,
    // 1: i_wr_slot_next gives, a clock ahead, the slot of every write (a
    // write's i_wr_slot is the i_wr_slot_next of the clock before), and the
    // word's written flag is looked up then, so that the write's bit mask
    // into block RAM starts at a flop instead of behind the flags'
    // multiplexer. tw_core uses it; 0 ignores i_wr_slot_next.
    parameter integer WRITE_AHEAD = 0
) (
    input  wire                 i_clk,
    input  wire                 i_rst,          // synchronous: empties the bitmap
    input  wire                 i_clear_all,
    input  wire                 i_wr,           // write i_wr_val to slot i_wr_slot
    input  wire [SLOT_BITS-1:0] i_wr_slot,
    input  wire                 i_wr_val,
    input  wire [SLOT_BITS-1:0] i_wr_slot_next, // WRITE_AHEAD: the next clock's i_wr_slot
    input  wire [SLOT_BITS-1:0] i_visit_slot,   // read next cycle on o_visit_bit
    output wire                 o_visit_bit,
    // Widths: word address max(b-4, 1) bits, word min(2^b, 16) bits.
    input  wire [(SLOT_BITS > 4 ? SLOT_BITS - 4 : 1)-1:0] i_search_word,
    output wire [(SLOT_BITS < 4 ? 1 << SLOT_BITS : 16)-1:0] o_search_word
`ifdef TW_BITMAP_F_MAP
    ,
    // The proofs' shadow (TW_BITMAP_F), for tw_core's proof that composes
    // this module's properties with its own.
    output wire [(1 << SLOT_BITS)-1:0] f_map_o
`endif
);
    localparam integer SLOTS  = 1 << SLOT_BITS;
    localparam integer SW     = SLOTS < 16 ? SLOTS : 16;
    localparam integer NWORDS = SLOTS / SW;
    // A one-word bitmap still gets a one-bit word address (always zero).
    localparam integer WORD_BITS = NWORDS > 1 ? $clog2(NWORDS) : 1;
    localparam integer BIT_BITS  = $clog2(SW);

    wire [WORD_BITS-1:0] wr_word;
    wire [BIT_BITS-1:0]  wr_bit = i_wr_slot[BIT_BITS-1:0];
    wire [WORD_BITS-1:0] vis_word;
    wire [BIT_BITS-1:0]  vis_bit = i_visit_slot[BIT_BITS-1:0];
    // WRITE_AHEAD: the next clock's wr_word (not read with WRITE_AHEAD = 0)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [WORD_BITS-1:0] next_word;
    /* verilator lint_on UNUSEDSIGNAL */
    generate
        if (NWORDS > 1) begin : g_words
            assign wr_word   = i_wr_slot[SLOT_BITS-1:BIT_BITS];
            assign vis_word  = i_visit_slot[SLOT_BITS-1:BIT_BITS];
            assign next_word = i_wr_slot_next[SLOT_BITS-1:BIT_BITS];
        end else begin : g_one_word
            assign wr_word   = 1'b0;
            assign vis_word  = 1'b0;
            assign next_word = 1'b0;
        end
    endgenerate
    // The bit in the word is not needed a clock ahead (nor, with
    // WRITE_AHEAD = 0, any of the next slot).
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_next = &{1'b0, i_wr_slot_next};
    /* verilator lint_on UNUSEDSIGNAL */

    // A word read in the clock it is written reads undefined in the bits
    // written: no_rw_check tells Yosys so, and it adds no logic beside the
    // EBR to define them (about 70 LCs a bitmap). Nothing depends on them:
    // the bypass below replaces the bit a write sets or clears, and a word
    // written for the first time since the clear (all its bits written)
    // reads as zero. tests/rtl/run.sh defines TW_BITMAP_COLLISION_FLIP, so
    // that the testbenches read those bits inverted, and the bitmap-* proofs
    // read them as any value (TW_BITMAP_F); Verilator reads the old.
    (* no_rw_check *) reg [SW-1:0] mem_visit  [0:NWORDS-1];
    (* no_rw_check *) reg [SW-1:0] mem_search [0:NWORDS-1];
    reg [NWORDS-1:0] written_q;

    wire             do_wr     = i_wr && !i_rst && !i_clear_all;
    wire             word_seen;            // the word written has been written since the clear
    generate
        if (WRITE_AHEAD != 0) begin : g_seen_ahead
            // written_q as it will stand in the next clock, at the next
            // clock's word.
            reg seen_ahead_q;
            always @(posedge i_clk)
                seen_ahead_q <= !i_rst && !i_clear_all
                                && (written_q[next_word] || (do_wr && wr_word == next_word));
            assign word_seen = seen_ahead_q;
        end else begin : g_seen_now
            assign word_seen = written_q[wr_word];
        end
    endgenerate

    // Two copies, one per read port: EBR has one read port each. The word is
    // written whole, the bits the write leaves alone fed back from the RAM:
    // Yosys turns that feedback into a per-bit write mask, and a Verilated
    // model makes one delayed write a port (not one a bit) and works out the
    // word only when it writes. The bit is picked by comparison, not by a
    // shift, which Yosys would share with the search's shifter (slower).
    function [SW-1:0] written_word;
        input [SW-1:0]       old;
        input                seen;    // the word held data (else it reads as zero)
        input [BIT_BITS-1:0] bit_ix;
        input                val;
        integer i;
        reg hit, mask, data;
        for (i = 0; i < SW; i = i + 1) begin
            hit  = i[BIT_BITS-1:0] == bit_ix;
            // A word's first write since the last clear stores all of it.
            mask = seen ? hit : 1'b1;
            data = val ? hit : 1'b0;
            // A multiplexer with the old bit on one side: Yosys's feedback form.
            written_word[i] = mask ? data : old[i];
        end
    endfunction
    always @(posedge i_clk)
        if (do_wr) begin
            mem_visit[wr_word]  <= written_word(mem_visit[wr_word], word_seen, wr_bit, i_wr_val);
            mem_search[wr_word] <= written_word(mem_search[wr_word], word_seen, wr_bit, i_wr_val);
        end

    // The bits this clock's write writes, on a read of the same word (all
    // of them on the word's first write since the clear). Every operand is
    // an argument, so that a continuous assignment follows each of them.
    function [SW-1:0] collision_bits;
        input                same_word, seen;
        input [BIT_BITS-1:0] bit_ix;
        begin
            collision_bits = !same_word ? {SW{1'b0}}
                           : seen ? {{(SW-1){1'b0}}, 1'b1} << bit_ix : {SW{1'b1}};
        end
    endfunction
`ifdef TW_BITMAP_F
    // For the proofs, a read of the word being written returns any value at
    // all in the bits written.
    wire [SW-1:0] f_junk_visit = $anyseq, f_junk_search = $anyseq;
`endif
    reg [SW-1:0]        visit_raw_q, search_raw_q;
    reg [BIT_BITS-1:0]  visit_bit_q;
    reg                 visit_seen_q, search_seen_q;   // word held data before this write
    reg                 visit_byp_q, search_byp_q;     // this cycle's write hit the word read
    reg [BIT_BITS-1:0]  byp_bit_q;
    reg                 byp_val_q;
    always @(posedge i_clk) begin
`ifdef TW_BITMAP_F
        visit_raw_q   <= mem_visit[vis_word]
                         ^ (collision_bits(do_wr && wr_word == vis_word, word_seen, wr_bit) & f_junk_visit);
        search_raw_q  <= mem_search[i_search_word]
                         ^ (collision_bits(do_wr && wr_word == i_search_word, word_seen, wr_bit) & f_junk_search);
`elsif TW_BITMAP_COLLISION_FLIP
        visit_raw_q   <= mem_visit[vis_word] ^ collision_bits(do_wr && wr_word == vis_word, word_seen, wr_bit);
        search_raw_q  <= mem_search[i_search_word] ^ collision_bits(do_wr && wr_word == i_search_word, word_seen, wr_bit);
`else
        visit_raw_q   <= mem_visit[vis_word];
        search_raw_q  <= mem_search[i_search_word];
`endif
        visit_bit_q   <= vis_bit;
        visit_seen_q  <= written_q[vis_word] && !i_clear_all && !i_rst;
        search_seen_q <= written_q[i_search_word] && !i_clear_all && !i_rst;
        visit_byp_q   <= do_wr && wr_word == vis_word;
        search_byp_q  <= do_wr && wr_word == i_search_word;
        byp_bit_q     <= wr_bit;
        byp_val_q     <= i_wr_val;
        if (i_rst || i_clear_all)
            written_q <= 0;
        else if (do_wr)
            written_q[wr_word] <= 1'b1;
    end

    wire [SW-1:0] byp_onehot = {{(SW-1){1'b0}}, 1'b1} << byp_bit_q;
    wire [SW-1:0] visit_word = visit_seen_q ? visit_raw_q : {SW{1'b0}};
    wire [SW-1:0] search_old = search_seen_q ? search_raw_q : {SW{1'b0}};
    assign o_search_word = !search_byp_q ? search_old
                         : byp_val_q ? search_old | byp_onehot : search_old & ~byp_onehot;
    wire visit_byp = visit_byp_q && byp_bit_q == visit_bit_q;
    generate
        if (VISIT_PIPE == 0) begin : g_visit_direct
            wire visit_old = visit_word[visit_bit_q];
            assign o_visit_bit = visit_byp ? byp_val_q : visit_old;
        end else begin : g_visit_pipe
            // The word registered as it leaves the RAM, then the slot's bit
            // (or the bit written in the address's clock).
            reg [SW-1:0]       visit_word_q;
            reg [BIT_BITS-1:0] visit_bit2_q;
            reg                visit_byp2_q, visit_val2_q, visit_out_q;
            always @(posedge i_clk) begin
                visit_word_q <= visit_word;
                visit_bit2_q <= visit_bit_q;
                visit_byp2_q <= visit_byp;
                visit_val2_q <= byp_val_q;
                visit_out_q  <= visit_byp2_q ? visit_val2_q : visit_word_q[visit_bit2_q];
            end
            assign o_visit_bit = visit_out_q;
        end
    endgenerate

`ifdef TW_BITMAP_F
    // Proved by tests/formal/run.sh (bitmap-*, k-induction): each read port
    // gives the bitmap as it stands after every write up to and including
    // its address's clock, against a shadow bit array, whatever the block
    // RAM returns in the bits being written (f_junk_*, above), across
    // CLEAR_ALL and reset at any clock. Every input is free but for a clear
    // in the first clock (reset, or CLEAR_ALL, which is how tw_core empties
    // its bitmaps) and two contracts: with WRITE_AHEAD, a write's slot is
    // i_wr_slot_next of the clock before (tw_core's core-ind proves its
    // side); a one-word bitmap's search port reads word 0 (tw_search keeps
    // its word address at 0 on one-word levels; search-2x2 proves it).
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
    reg [SLOT_BITS-1:0] f_next_q;            // i_wr_slot_next of the clock before
    always @(posedge i_clk)
        f_next_q <= i_wr_slot_next;
    always @(*) begin
        if (!f_past_valid) assume(i_rst || i_clear_all);
        // A one-word bitmap's word address is 0 (tw_search's o_waddr is).
        if (NWORDS == 1) assume(i_search_word == 0);
        if (WRITE_AHEAD != 0 && f_past_valid && i_wr) assume(i_wr_slot == f_next_q);
    end

    reg [SLOTS-1:0] f_map;                   // the bitmap after the last edge
`ifdef TW_BITMAP_F_MAP
    assign f_map_o = f_map;
`endif
    reg [SLOTS-1:0] f_map_next;              // ... after this clock's write
    always @(*) begin
        f_map_next = f_map;
        if (i_rst || i_clear_all) f_map_next = {SLOTS{1'b0}};
        else if (i_wr) f_map_next[i_wr_slot] = i_wr_val;
    end
    reg [SW-1:0] f_search_exp;               // what the ports show after this edge
    reg [2:0]    f_visit_exp;                // the visit bit, and its two clocks more
    reg [2:0]    f_age;                      // clocks since the start, to 7
    initial f_age = 3'd0;
    always @(posedge i_clk) begin
        f_map        <= f_map_next;
        f_search_exp <= f_map_next[(NWORDS > 1 ? i_search_word : 0)*SW +: SW];
        f_visit_exp  <= {f_visit_exp[1:0], f_map_next[i_visit_slot]};
        if (f_age != 3'd7) f_age <= f_age + 3'd1;
    end

    integer fw;
    always @(*) if (f_past_valid) begin
        // The outputs.
        assert(o_search_word == f_search_exp);
        if (VISIT_PIPE == 0) assert(o_visit_bit == f_visit_exp[0]);
        else if (f_age >= 3'd3) assert(o_visit_bit == f_visit_exp[2]);
        // What keeps them right: a word written since the clear holds the
        // shadow's bits in both copies; any other word's bits are all 0.
        for (fw = 0; fw < NWORDS; fw = fw + 1)
            if (written_q[fw])
                assert(mem_visit[fw] == f_map[fw*SW +: SW] && mem_search[fw] == f_map[fw*SW +: SW]);
            else
                assert(f_map[fw*SW +: SW] == {SW{1'b0}});
    end
    generate
        if (WRITE_AHEAD != 0) begin : g_f_ahead
            // The written flag looked up a clock ahead is the word's now.
            always @(*)
                if (f_past_valid)
                    assert(g_seen_ahead.seen_ahead_q
                           == written_q[NWORDS > 1 ? f_next_q[SLOT_BITS-1:BIT_BITS] : 0]);
        end
    endgenerate
`endif
endmodule
`default_nettype wire
