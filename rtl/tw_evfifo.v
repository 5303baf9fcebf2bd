`default_nettype none
// tw_evfifo: the chip's event FIFO. A plain synchronous FIFO with first-word
// fall-through: o_head is the oldest entry whenever o_count is non-zero.
// A push into a full FIFO is refused (o_push_ok low) so the caller can flag
// overflow; a push and a pop in the same cycle on a full FIFO both happen.
module tw_evfifo #(
    parameter integer WIDTH = 8,
    parameter integer DEPTH_LOG2 = 4
) (
    input  wire                  i_clk,
    input  wire                  i_rst,
    input  wire                  i_push,
    input  wire [WIDTH-1:0]      i_data,
    output wire                  o_push_ok,
    input  wire                  i_pop,
    output wire [WIDTH-1:0]      o_head,
    output wire [DEPTH_LOG2:0]   o_count,
    output wire                  o_full,
    output wire                  o_empty
);
    localparam integer DEPTH = 1 << DEPTH_LOG2;

    reg [WIDTH-1:0]      mem_q [0:DEPTH-1];
    reg [DEPTH_LOG2-1:0] rd_ptr_q, wr_ptr_q;
    reg [DEPTH_LOG2:0]   count_q;

    assign o_count   = count_q;
    assign o_full    = count_q == DEPTH[DEPTH_LOG2:0];
    assign o_empty   = count_q == 0;
    assign o_head    = mem_q[rd_ptr_q];

    wire do_pop  = i_pop && !o_empty;
    // A pop frees the entry the push needs, so a full FIFO still takes a push
    // in the cycle it pops.
    assign o_push_ok = !o_full || do_pop;
    wire do_push = i_push && o_push_ok;

    always @(posedge i_clk) begin
        if (do_push)
            mem_q[wr_ptr_q] <= i_data;
    end

    always @(posedge i_clk) begin
        if (i_rst) begin
            rd_ptr_q <= 0;
            wr_ptr_q <= 0;
            count_q  <= 0;
        end else begin
            if (do_push)
                wr_ptr_q <= wr_ptr_q + 1'b1;
            if (do_pop)
                rd_ptr_q <= rd_ptr_q + 1'b1;
            case ({do_push, do_pop})
                2'b10:   count_q <= count_q + 1'b1;
                2'b01:   count_q <= count_q - 1'b1;
                default: count_q <= count_q;
            endcase
        end
    end

`ifdef FORMAL
    reg f_past_valid = 1'b0;
    always @(posedge i_clk) f_past_valid <= 1'b1;
    always @(*) if (!f_past_valid) assume(i_rst);
    always @(*) begin
        assert(count_q <= DEPTH);
        assert(wr_ptr_q == rd_ptr_q + count_q[DEPTH_LOG2-1:0]);
    end
    always @(posedge i_clk) if (f_past_valid && !$past(i_rst)) begin
        if ($past(do_push) && !$past(do_pop)) assert(count_q == $past(count_q) + 1);
        if ($past(do_pop) && !$past(do_push)) assert(count_q == $past(count_q) - 1);
    end
`endif
endmodule
`default_nettype wire
