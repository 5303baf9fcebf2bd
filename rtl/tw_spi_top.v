`default_nettype none
// tw_spi_top: the board-independent FPGA top: tw_core on its Wishbone bus,
// driven by the SPI bridge tw_spi (docs/spi.md). Board wrappers add pins,
// clock and reset; the Verilator backend instantiates this same module.
module tw_spi_top #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8,
    parameter integer FIFO_LOG2 = 4
) (
    input  wire i_clk,
    input  wire i_rst,          // synchronous, active high
    input  wire i_sck,          // SPI mode 0, asynchronous to i_clk; SCK <= f_sys / 8
    input  wire i_cs_n,
    input  wire i_mosi,
    output wire o_miso,
    input  wire i_ext_tick,     // external tick source (asynchronous)
    output reg  o_irq           // active high
);
    wire        wb_cyc, wb_stb, wb_we, wb_ack;
    wire [5:0]  wb_adr;
    wire [31:0] wb_wdat, wb_rdat;
    wire        core_irq;

    tw_spi u_spi (
        .i_clk(i_clk), .i_rst(i_rst),
        .i_sck(i_sck), .i_cs_n(i_cs_n), .i_mosi(i_mosi), .o_miso(o_miso),
        .o_wb_cyc(wb_cyc), .o_wb_stb(wb_stb), .o_wb_we(wb_we), .o_wb_adr(wb_adr),
        .o_wb_dat(wb_wdat), .i_wb_ack(wb_ack), .i_wb_dat(wb_rdat)
    );

    tw_core #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS), .FIFO_LOG2(FIFO_LOG2)) u_core (
        .i_clk(i_clk), .i_rst(i_rst),
        .i_wb_cyc(wb_cyc), .i_wb_stb(wb_stb), .i_wb_we(wb_we), .i_wb_adr(wb_adr),
        .i_wb_dat(wb_wdat), .o_wb_ack(wb_ack),
        // The bridge is a classic master (one access, held until ack), so
        // the pipelined-mode stall has no reader.
        /* verilator lint_off PINCONNECTEMPTY */
        .o_wb_stall(),
        /* verilator lint_on PINCONNECTEMPTY */
        .o_wb_dat(wb_rdat),
        .i_ext_tick(i_ext_tick), .o_irq(core_irq)
    );

    // The interrupt pin has a flop of its own (the core's line is a flop
    // too, placed wherever the core is): the route to the pad stays off the
    // core's paths, and the pin cannot glitch.
    always @(posedge i_clk) begin
        if (i_rst)
            o_irq <= 1'b0;
        else
            o_irq <= core_irq;
    end
endmodule
`default_nettype wire
