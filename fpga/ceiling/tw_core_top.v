`default_nettype none
// rtl/tw_core.v on a device with few pins, for fpga/ceiling/fmax.sh (TOP
// tw_core_top, its default): the chip without the SPI bridge, a measurement
// of the core alone, not part of the chip. The bus request comes from a
// shift register fed by one pin (so it is arbitrary and nothing folds away),
// and the read data, ack and IRQ leave through one registered parity pin.
module tw_core_top #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8,
    parameter integer FIFO_LOG2 = 4
) (
    input  wire i_clk,
    input  wire i_rst,
    input  wire i_bit,
    input  wire i_ext_tick,
    output reg  o_parity
);
    reg [40:0] sh_q = 0;
    reg        rst_q = 1'b1;
    always @(posedge i_clk) begin
        sh_q  <= {sh_q[39:0], i_bit};
        rst_q <= i_rst;
    end
    wire        ack, irq;
    wire [31:0] dat;
    // A classic master (one access, held until ack): the stall output has
    // no reader here.
    /* verilator lint_off PINCONNECTEMPTY */
    tw_core #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS), .FIFO_LOG2(FIFO_LOG2)) u_core (
        .i_clk(i_clk), .i_rst(rst_q),
        .i_wb_cyc(sh_q[40]), .i_wb_stb(sh_q[39]), .i_wb_we(sh_q[38]), .i_wb_adr(sh_q[37:32]),
        .i_wb_dat(sh_q[31:0]), .o_wb_ack(ack), .o_wb_stall(), .o_wb_dat(dat),
        .i_ext_tick(i_ext_tick), .o_irq(irq)
    );
    /* verilator lint_on PINCONNECTEMPTY */
    reg [7:0] par_q;
    integer i;
    always @(posedge i_clk) begin
        for (i = 0; i < 8; i = i + 1) par_q[i] <= ^dat[i*4 +: 4];
        o_parity <= ^{par_q, ack, irq};
    end
endmodule
`default_nettype wire
