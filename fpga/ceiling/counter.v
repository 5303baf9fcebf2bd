`default_nettype none
// The fabric's ceiling for tickwheel's time base: a WIDTH-bit counter that
// steps once per clock and nothing else. AMOUNT=0 adds one (a tick);
// AMOUNT=1 adds a registered WIDTH-bit amount (a virtual-time jump). Any
// chip that keeps such a counter and moves it by one step a clock cannot
// run faster than this; fpga/ceiling.sh places and routes it alone.
module counter #(
    parameter integer WIDTH  = 48,
    parameter integer AMOUNT = 0
) (
    input  wire i_clk,
    input  wire i_bit,      // feeds the amount so that it is not a constant
    output wire o_parity    // keeps every counter bit alive
);
    reg [WIDTH-1:0] count_q = 0;
    reg [WIDTH-1:0] amount_q = 0;
    always @(posedge i_clk) begin
        amount_q <= {amount_q[WIDTH-2:0], i_bit ^ amount_q[WIDTH-1]};
        count_q  <= count_q + (AMOUNT != 0 ? amount_q : {{(WIDTH-1){1'b0}}, i_bit});
    end
    assign o_parity = ^count_q;
endmodule
