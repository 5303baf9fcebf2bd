`default_nettype none
// tickwheel on the iCEBreaker (iCE40UP5K-SG48): the SPI-attached chip
// (rtl/tw_spi_top.v) clocked by the PLL from the 12 MHz oscillator.
//
//   CLK (pin 35, 12 MHz) -> SB_PLL40_PAD -> i_clk (FPGA_MHZ, 48 by default)
//   power-on reset: held until the PLL locks, then 256 more clocks; BTN_N
//   (the user button) resets the chip too
//   PMOD 1A: CS_N, MOSI, MISO, SCK, IRQ, EXT_TICK (see icebreaker.pcf)
//   LEDG_N: the interrupt, stretched to ~40 ms so a short one is visible
//   LEDR_N: lit while the chip is held in reset
//
// The PLL settings come from pll.vh, written by icepll at build time for the
// requested clock (the Makefile's FPGA_MHZ_icebreaker).
module top #(
    parameter integer LEVELS    = 4,
    parameter integer SLOT_BITS = 8,
    parameter integer FIFO_LOG2 = 4
) (
    input  wire CLK,
    input  wire BTN_N,
    input  wire SPI_SCK,
    input  wire SPI_CS_N,
    input  wire SPI_MOSI,
    output wire SPI_MISO,
    output wire IRQ,
    input  wire EXT_TICK,
    output wire LEDR_N,
    output wire LEDG_N
);
    wire clk, locked;
    SB_PLL40_PAD #(
`include "pll.vh"
    ) u_pll (
        .PACKAGEPIN(CLK),
        .PLLOUTGLOBAL(clk),
        .LOCK(locked),
        .RESETB(1'b1),
        .BYPASS(1'b0)
    );

    // The button has a pull-up on the board; the pad's own pull-up costs nothing.
    wire btn_n;
    SB_IO #(.PIN_TYPE(6'b0000_01), .PULLUP(1'b1)) u_btn_pad (.PACKAGE_PIN(BTN_N), .D_IN_0(btn_n));

    wire rst, cs_n, miso, irq;
    tw_board_glue #(.LED_ACTIVE_LOW(1), .STRETCH_BITS(21)) u_glue (
        .i_clk(clk), .i_locked(locked), .i_btn_n(btn_n),
        .i_cs_n_pin(SPI_CS_N), .o_cs_n(cs_n),
        .i_miso(miso), .o_miso_pin(SPI_MISO),
        .o_rst(rst), .i_irq(irq), .o_led_irq(LEDG_N), .o_led_rst(LEDR_N)
    );
    assign IRQ = irq;

    tw_spi_top #(.LEVELS(LEVELS), .SLOT_BITS(SLOT_BITS), .FIFO_LOG2(FIFO_LOG2)) u_chip (
        .i_clk(clk), .i_rst(rst),
        .i_sck(SPI_SCK), .i_cs_n(cs_n), .i_mosi(SPI_MOSI), .o_miso(miso),
        .i_ext_tick(EXT_TICK), .o_irq(irq)
    );
endmodule
`default_nettype wire
