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
    output reg                   o_full,
    output wire                  o_full_next,   // what o_full takes at the next edge (not reset)
    output reg                   o_empty
`ifdef TW_EVFIFO_F_MEM
    ,
    // The words and the read pointer, for tw_core's proof that every
    // queued entry has an event.
    output wire [(WIDTH << DEPTH_LOG2)-1:0] f_mem_o,
    output wire [DEPTH_LOG2-1:0]  f_rd_o
`endif
);
    localparam integer DEPTH = 1 << DEPTH_LOG2;

    reg [WIDTH-1:0]      mem_q [0:DEPTH-1];
    reg [DEPTH_LOG2-1:0] rd_ptr_q, wr_ptr_q;
    reg [DEPTH_LOG2:0]   count_q;

    // The full and empty flags are registers beside the count (the same
    // values as comparing the count), so that the push/pop decisions and
    // their readers start from flops.
    assign o_count   = count_q;
    assign o_head    = mem_q[rd_ptr_q];

    wire do_pop  = i_pop && !o_empty;
    // A pop frees the entry the push needs, so a full FIFO still takes a push
    // in the cycle it pops.
    assign o_push_ok = !o_full || do_pop;
    wire do_push = i_push && o_push_ok;
    // Exposed so that a caller can decide a refusal a clock ahead, from its
    // own push and pop of that clock.
    assign o_full_next = do_push == do_pop ? o_full : do_push && count_q == DEPTH[DEPTH_LOG2:0] - 1'b1;

    always @(posedge i_clk) begin
        if (do_push)
            mem_q[wr_ptr_q] <= i_data;
    end

    always @(posedge i_clk) begin
        if (i_rst) begin
            rd_ptr_q <= 0;
            wr_ptr_q <= 0;
            count_q  <= 0;
            o_full   <= 1'b0;
            o_empty  <= 1'b1;
        end else begin
            if (do_push)
                wr_ptr_q <= wr_ptr_q + 1'b1;
            if (do_pop)
                rd_ptr_q <= rd_ptr_q + 1'b1;
            o_full <= o_full_next;
            case ({do_push, do_pop})
                2'b10: begin
                    count_q <= count_q + 1'b1;
                    o_empty <= 1'b0;
                end
                2'b01: begin
                    count_q <= count_q - 1'b1;
                    o_empty <= count_q == 1;
                end
                default: ;
            endcase
        end
    end

`ifdef TW_EVFIFO_F_MEM
    genvar f_word;
    generate for (f_word = 0; f_word < DEPTH; f_word = f_word + 1) begin : g_f_mem
        assign f_mem_o[f_word*WIDTH +: WIDTH] = mem_q[f_word];
    end endgenerate
    assign f_rd_o = rd_ptr_q;
`endif

`ifdef FORMAL
    // Proved by tests/formal/run.sh (docs/verification.md): BMC, k-induction
    // and covers. The run starts in reset; nothing else is assumed.
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
    always @(*)
        if (!f_past_valid)
            assume(i_rst);

    // Occupancy: the count never exceeds the depth and matches the pointers.
    always @(*) if (f_past_valid) begin
        assert(count_q <= DEPTH);
        assert(o_full == (count_q == DEPTH) && o_empty == (count_q == 0));
        assert(wr_ptr_q == rd_ptr_q + count_q[DEPTH_LOG2-1:0]);
    end
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            if ($past(do_push) && !$past(do_pop)) assert(count_q == $past(count_q) + 1);
            if ($past(do_pop) && !$past(do_push)) assert(count_q == $past(count_q) - 1);
            if ($past(do_pop) == $past(do_push))  assert(count_q == $past(count_q));
            assert(o_full == $past(o_full_next));
        end
    // A push is refused only when the FIFO is full and not popping.
    always @(*)
        assert(o_push_ok == (!o_full || (i_pop && !o_empty)));

    // Never loses, duplicates or reorders: track two entries pushed one after
    // the other, at an arbitrary address, with arbitrary contents. The first
    // must come out at its turn, unchanged, and then the second, unchanged.
    (* anyconst *) reg [DEPTH_LOG2-1:0] f_addr;
    (* anyconst *) reg [WIDTH-1:0]      f_first, f_second;
    wire [DEPTH_LOG2-1:0] f_addr2 = f_addr + 1'b1;
    localparam [1:0] F_IDLE = 2'd0, F_ONE = 2'd1, F_TWO = 2'd2, F_SECOND = 2'd3;
    reg [1:0] f_state;
    // Entries are the count's first positions from the read pointer.
    wire [DEPTH_LOG2:0] f_dist1 = {1'b0, f_addr - rd_ptr_q};
    wire [DEPTH_LOG2:0] f_dist2 = {1'b0, f_addr2 - rd_ptr_q};
    wire f_push_first  = do_push && wr_ptr_q == f_addr && i_data == f_first;
    wire f_pop_first   = do_pop && rd_ptr_q == f_addr;
    wire f_push_second = do_push && i_data == f_second;   // the push after the first
    always @(posedge i_clk) begin
        if (i_rst)
            f_state <= F_IDLE;
        else case (f_state)
            F_IDLE:   if (f_push_first) f_state <= F_ONE;
            F_ONE:    if (f_pop_first)  f_state <= f_push_second ? F_SECOND : F_IDLE;
                      else if (do_push) f_state <= f_push_second ? F_TWO : F_IDLE;
            F_TWO:    if (f_pop_first)  f_state <= F_SECOND;
            default:  if (do_pop)       f_state <= F_IDLE;
        endcase
    end
    always @(*) if (f_past_valid) begin
        case (f_state)
            F_ONE: begin        // the first is the newest entry
                assert(f_dist1 < count_q);
                assert(wr_ptr_q == f_addr2);
                assert(mem_q[f_addr] == f_first);
            end
            F_TWO: begin        // both wait, the first ahead of the second
                assert(f_dist2 < count_q);
                assert(f_dist1 < f_dist2);
                assert(mem_q[f_addr] == f_first);
                assert(mem_q[f_addr2] == f_second);
            end
            F_SECOND: begin     // the first has left; the second is the head
                assert(rd_ptr_q == f_addr2);
                assert(!o_empty);
                assert(mem_q[f_addr2] == f_second);
            end
            default: ;
        endcase
        // ...and each leaves as the head, unchanged.
        if ((f_state == F_ONE || f_state == F_TWO) && rd_ptr_q == f_addr)
            assert(o_head == f_first);
        if (f_state == F_SECOND)
            assert(o_head == f_second);
    end

    // Not vacuous: the FIFO fills, takes a push while full and popping, and
    // both tracked entries leave in order.
    always @(*) if (f_past_valid && !i_rst) begin
        cover(o_full);
        cover(o_full && i_push && do_pop);
        cover(f_state == F_SECOND && do_pop);
    end
`endif
endmodule
`default_nettype wire
