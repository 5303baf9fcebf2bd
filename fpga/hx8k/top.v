`default_nettype none
// tickwheel on the Lattice iCE40-HX8K breakout board (iCE40HX8K-CT256): the
// SPI-attached chip (rtl/tw_spi_top.v) clocked by the PLL from the 12 MHz
// oscillator.
//
//   CLK (ball J3, 12 MHz) -> SB_PLL40_CORE -> i_clk (FPGA_MHZ, 120 by default)
//   power-on reset: held until the PLL locks, then 256 more clocks
//   header (bank 0): SCK, MOSI, MISO, CS_N, IRQ, EXT_TICK (see hx8k.pcf)
//   LED (ball B5): the interrupt, stretched to ~35 ms so a short one is visible
//
// J3 is a global-buffer input but not the PLL's own pad, so the PLL is the
// CORE variant fed from the clock network. The PLL settings come from pll.vh,
// written by icepll at build time for the requested clock (the Makefile's
// FPGA_MHZ_hx8k).
module top #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8,
    parameter integer FIFO_LOG2 = 4
) (
    input  wire CLK,
    input  wire SPI_SCK,
    input  wire SPI_CS_N,
    input  wire SPI_MOSI,
    output wire SPI_MISO,
    output wire IRQ,
    input  wire EXT_TICK,
    output wire LED
);
    wire clk, locked;
    SB_PLL40_CORE #(
`include "pll.vh"
    ) u_pll (
        .REFERENCECLK(CLK),
        .PLLOUTGLOBAL(clk),
        .LOCK(locked),
        .RESETB(1'b1),
        .BYPASS(1'b0)
    );

    wire rst, cs_n, miso, irq;
    // One user LED here, the interrupt's; the reset LED is left unconnected.
    /* verilator lint_off PINCONNECTEMPTY */
    tw_board_glue #(.LED_ACTIVE_LOW(0), .STRETCH_BITS(22)) u_glue (
        .i_clk(clk), .i_locked(locked), .i_btn_n(1'b1),
        .i_cs_n_pin(SPI_CS_N), .o_cs_n(cs_n),
        .i_miso(miso), .o_miso_pin(SPI_MISO),
        .o_rst(rst), .i_irq(irq), .o_led_irq(LED), .o_led_rst()
    );
    /* verilator lint_on PINCONNECTEMPTY */
    assign IRQ = irq;

    tw_spi_top #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS), .FIFO_LOG2(FIFO_LOG2)) u_chip (
        .i_clk(clk), .i_rst(rst),
        .i_sck(SPI_SCK), .i_cs_n(cs_n), .i_mosi(SPI_MOSI), .o_miso(miso),
        .i_ext_tick(EXT_TICK), .o_irq(irq)
    );
endmodule
`default_nettype wire
