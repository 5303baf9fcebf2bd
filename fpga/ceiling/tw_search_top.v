`default_nettype none
// rtl/tw_search.v on LEVELS tw_bitmaps (their search ports) on a device
// with few pins, for fpga/ceiling/fmax.sh (TOP tw_search_top): a
// measurement, not part of the chip. The inputs come from a shift register
// fed by one pin (so nothing folds away), the outputs are folded into one
// registered parity pin. The base is held in a register
// from the start on, as the core holds it. BITMAPS = 0 leaves the bitmaps
// out (the words come from the shift register, registered) to measure the
// search alone: at 1 x 12, tw_bitmap's 256 written flags are the slower part.
module tw_search_top #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8,
    parameter integer BITMAPS   = 1
) (
    input  wire i_clk,
    input  wire i_rst,
    input  wire i_bit,
    output reg  o_parity
);
    localparam integer B  = SLOT_BITS;
    localparam integer WA = B > 4 ? B - 4 : 1;
    localparam integer SW = B < 4 ? 1 << B : 16;
    // {start, wr, wr_lvl[1:0], wr_val, clear_all, wr_slot, base}
    localparam integer SH = 54 + B;
    reg [SH-1:0] sh_q = 0;
    reg          rst_q = 1'b1;
    reg          start_q = 1'b0;
    reg [47:0]   base_q = 48'd0;
    always @(posedge i_clk) begin
        sh_q    <= {sh_q[SH-2:0], i_bit};
        rst_q   <= i_rst;
        start_q <= sh_q[SH-1];
        if (sh_q[SH-1]) base_q <= sh_q[47:0];
    end
    wire         wr      = sh_q[SH-2];
    wire [1:0]   wr_lvl  = sh_q[SH-3 -: 2];
    wire         wr_val  = sh_q[SH-5];
    wire         clr     = sh_q[SH-6] && sh_q[SH-1];
    wire [B-1:0] wr_slot = sh_q[48 +: B];

    wire [LEVELS*WA-1:0] waddr;
    wire [LEVELS*SW-1:0] words;
    genvar gl;
    generate
        if (BITMAPS != 0) begin : g_bitmaps
            for (gl = 0; gl < LEVELS; gl = gl + 1) begin : g_level
                /* verilator lint_off PINCONNECTEMPTY */
                tw_bitmap #(.SLOT_BITS(B)) u_bitmap (
                    .i_clk(i_clk), .i_rst(rst_q), .i_clear_all(clr),
                    .i_wr(wr && wr_lvl == gl), .i_wr_slot(wr_slot), .i_wr_val(wr_val),
                    .i_wr_slot_next(wr_slot),
                    .i_visit_slot({B{1'b0}}), .o_visit_bit(),
                    .i_search_word(waddr[gl*WA +: WA]), .o_search_word(words[gl*SW +: SW])
                );
                /* verilator lint_on PINCONNECTEMPTY */
            end
        end else begin : g_no_bitmaps
            // Words that depend on the address, so that it is not optimised away.
            reg [LEVELS*SW-1:0] words_q;
            integer j;
            always @(posedge i_clk)
                for (j = 0; j < LEVELS * SW; j = j + 1)
                    words_q[j] <= sh_q[j % SH] ^ waddr[j % (LEVELS * WA)];
            assign words = words_q;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused = ^{wr, wr_lvl, wr_val, clr, wr_slot};
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate
    wire        valid, found;
    wire [47:0] next;
    tw_search #(.LEVELS(LEVELS), .SLOT_BITS(B)) u_search (
        .i_clk(i_clk), .i_rst(rst_q), .i_start(start_q), .i_base(base_q),
        .o_waddr(waddr), .i_words(words),
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
