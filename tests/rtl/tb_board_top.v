`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for a board top (fpga/icebreaker/top.v or
// fpga/hx8k/top.v, both module `top`), driven only at its pins: the 12 MHz
// oscillator, SPI mode 0 frames (docs/spi.md), EXT_TICK and, on the
// iCEBreaker, the button. It checks what the other testbenches cannot see
// in a board's wrapper:
//   - the PLL settings icepll wrote into pll.vh make the board's clock
//     (FPGA_MHZ, or the nearest clock icepll can make) within the iCE40
//     PLL's limits, and feed the chip;
//   - the chip is held in reset until the PLL locks (and, on the iCEBreaker,
//     while the button is pressed, with the red LED lit);
//   - SPI reaches the chip through the pins: ID, VERSION and CAPS (the top's
//     geometry) read back, a corrupted request is refused (0x02), MISO is
//     released while CS_N is high;
//   - EXT_TICK drives the wheel: a slot armed for tick 3 raises IRQ after
//     three pulses, the IRQ LED lights, and the event reads back.
// Yosys's iCE40 models (ice40/cells_sim.v) supply the pads; their PLL model
// is an empty shell, so this bench plays the PLL from the instance's own
// parameters (F_out = 12 MHz * (DIVF + 1) / ((DIVR + 1) * 2^DIVQ), SIMPLE
// feedback) and forces its outputs.
//   icepll -i 12 -o 48 -f DIR/pll.vh      (MHZ: its "achieved" F_PLLOUT)
//   iverilog -g2005 -DNO_ICE40_DEFAULT_ASSIGNMENTS -DBOARD_ICEBREAKER -DMHZ=48.0 \
//       -IDIR -Irtl -s tb_board_top -o tb tests/rtl/tb_board_top.v \
//       fpga/icebreaker/top.v fpga/common/tw_board_glue.v rtl/tw_spi_top.v \
//       rtl/tw_spi.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v \
//       rtl/tw_search.v /usr/share/yosys/ice40/cells_sim.v
//   vvp tb      (the HX8K: -DBOARD_HX8K -DMHZ=120.0 and fpga/hx8k/top.v)
module tb_board_top;
`include "tw_regs.vh"

`ifndef MHZ
    `define MHZ 48.0        // the clock icepll says the PLL makes (tests/rtl/run.sh)
`endif
    localparam real REF_NS = 1000.0 / 12.0;     // the board's oscillator

    reg  osc = 1'b0, sck = 1'b0, cs_n = 1'b1, mosi = 1'b0, ext_tick = 1'b0;
    wire miso, irq;
    always #(REF_NS / 2) osc = !osc;

`ifdef BOARD_ICEBREAKER
    reg  btn_n = 1'b1;
    wire ledr_n, ledg_n;
    wire led_irq = !ledg_n;
    top dut (
        .CLK(osc), .BTN_N(btn_n),
        .SPI_SCK(sck), .SPI_CS_N(cs_n), .SPI_MOSI(mosi), .SPI_MISO(miso),
        .IRQ(irq), .EXT_TICK(ext_tick), .LEDR_N(ledr_n), .LEDG_N(ledg_n)
    );
`else
    wire led;
    wire led_irq = led;
    top dut (
        .CLK(osc),
        .SPI_SCK(sck), .SPI_CS_N(cs_n), .SPI_MOSI(mosi), .SPI_MISO(miso),
        .IRQ(irq), .EXT_TICK(ext_tick), .LED(led)
    );
`endif

    integer errors = 0;
    task check(input cond, input [8*64-1:0] what);
        if (cond !== 1'b1) begin            // X or Z (a floating pin) fails too
            errors = errors + 1;
            if (errors <= 20) $display("ERROR t=%0t: %0s", $time, what);
        end
    endtask

    // ------------------------------------------------------------- the PLL
    real f_pfd, f_vco, f_out, pll_half_ns;
    reg  pll_clk = 1'b0, pll_lock = 1'b0;
    initial begin
        f_pfd = 12.0 / (dut.u_pll.DIVR + 1);
        f_vco = f_pfd * (dut.u_pll.DIVF + 1);
        f_out = f_vco / (1 << dut.u_pll.DIVQ);
        pll_half_ns = 500.0 / f_out;
        $display("# PLL: DIVR %0d DIVF %0d DIVQ %0d: PFD %0.3f MHz, VCO %0.3f MHz, out %0.3f MHz",
                 dut.u_pll.DIVR, dut.u_pll.DIVF, dut.u_pll.DIVQ, f_pfd, f_vco, f_out);
        check(dut.u_pll.FEEDBACK_PATH == "SIMPLE", "PLL feedback path SIMPLE");
        check(f_pfd >= 10.0 && f_pfd <= 133.0, "PLL PFD frequency within 10..133 MHz");
        check(f_vco >= 533.0 && f_vco <= 1066.0, "PLL VCO frequency within 533..1066 MHz");
        check(f_out >= 16.0 && f_out <= 275.0, "PLL output within 16..275 MHz");
        check(f_out > `MHZ * 0.999 && f_out < `MHZ * 1.001, "PLL output at the board's clock");
        // The PLL's own outputs, so that a top wiring them wrong fails.
        force dut.u_pll.PLLOUTGLOBAL = pll_clk;
        force dut.u_pll.LOCK = pll_lock;
        // The output runs before the lock (as a real PLL's may), for more
        // than the reset sequencer's 256 clocks: only LOCK holds the reset.
        repeat (300) @(posedge pll_clk);
        pll_lock = 1'b1;
    end
    // Its clock, once the period is known (a real starts at 0.0: no edge
    // at time 0, whichever block runs first).
    always begin
        wait (pll_half_ns > 0.0);
        #(pll_half_ns) pll_clk = !pll_clk;
    end
    always @(posedge pll_clk) if (!pll_lock && dut.rst !== 1'b1) check(0, "chip held in reset until the PLL locks");

    // ---------------------------------------------------------- SPI master
    // SCK at 2 MHz, below f_sys / 8 on both boards.
    localparam real SCK_HALF = 250.0;
    reg        seq = 1'b0;
    reg [7:0]  r_st;
    reg [31:0] r_data;

    function [7:0] crc8_byte(input [7:0] c, input [7:0] d);
        integer i;
        reg [7:0] x;
        begin
            x = c ^ d;
            for (i = 0; i < 8; i = i + 1)
                x = x[7] ? {x[6:0], 1'b0} ^ 8'h07 : {x[6:0], 1'b0};
            crc8_byte = x;
        end
    endfunction

    // One frame: request {we, seq, adr, data}, its CRC (inverted in bit 0
    // if corrupt), then the response's status, data and CRC.
    task frame(input we, input [5:0] adr, input [31:0] data, input corrupt);
        reg [103:0] tx, rx;
        reg [7:0]   c;
        integer     i;
        begin
            seq = !seq;
            tx = 0;
            tx[103:64] = {we, seq, adr, data};
            c = 8'h00;
            for (i = 0; i < 5; i = i + 1) c = crc8_byte(c, tx[103 - 8 * i -: 8]);
            tx[63:56] = c ^ {7'd0, corrupt};
            cs_n = 1'b0;
            #(SCK_HALF);
            for (i = 103; i >= 0; i = i - 1) begin
                mosi = tx[i];
                #(SCK_HALF) sck = 1'b1;
                rx[i] = miso;
                #(SCK_HALF) sck = 1'b0;
            end
            #(SCK_HALF) cs_n = 1'b1;
            mosi = 1'b0;
            #(4 * SCK_HALF);
            // byte k of the frame is bits 103 - 8k down
            r_st = rx[47:40];
            r_data = rx[39:8];
            c = 8'h00;
            for (i = 0; i < 5; i = i + 1) c = crc8_byte(c, rx[47 - 8 * i -: 8]);
            check(c == rx[7:0], "response CRC");
        end
    endtask

    task rd(input [5:0] adr, input [31:0] exp, input [8*48-1:0] what);
        begin
            frame(1'b0, adr, 32'd0, 1'b0);
            check(r_st == 8'h01, "read answered 0x01");
            if (r_data !== exp) begin
                errors = errors + 1;
                $display("ERROR t=%0t: %0s: read 0x%08h, expected 0x%08h", $time, what, r_data, exp);
            end
        end
    endtask

    task wr(input [5:0] adr, input [31:0] data);
        begin
            frame(1'b1, adr, data, 1'b0);
            check(r_st == 8'h01, "write answered 0x01");
        end
    endtask

    task tick_pulse;
        begin
            #1000 ext_tick = 1'b1;
            #1000 ext_tick = 1'b0;
        end
    endtask

    // Wait (at most lim ns) until the chip is out of reset, as its reset
    // input shows, then for its first search.
    task wait_run(input integer lim);
        integer t;
        begin
            for (t = 0; t < lim && dut.rst; t = t + 100) #100;
            check(!dut.rst, "chip out of reset");
            #5000;
        end
    endtask

    localparam [31:0] CAPS_GEO = (32'd4 << TW_CAPS_LEVELS_LSB) | (32'd8 << TW_CAPS_SLOT_BITS_LSB)
                               | (32'd4 << TW_CAPS_FIFO_LOG2_LSB);
    localparam [31:0] CAPS_GEO_MASK = ((1 << TW_CAPS_LEVELS_WIDTH) - 1) << TW_CAPS_LEVELS_LSB
                                    | ((1 << TW_CAPS_SLOT_BITS_WIDTH) - 1) << TW_CAPS_SLOT_BITS_LSB
                                    | ((1 << TW_CAPS_FIFO_LOG2_WIDTH) - 1) << TW_CAPS_FIFO_LOG2_LSB;

    initial begin
        $display("# tb_board_top: %0s at %0.3f MHz",
`ifdef BOARD_ICEBREAKER
                 "icebreaker",
`else
                 "hx8k",
`endif
                 `MHZ);
        #1;
        check(miso === 1'bz, "MISO released while CS_N is high");
        // Held in reset until the PLL locks (checked at every clock above).
        #(10 * REF_NS);
`ifdef BOARD_ICEBREAKER
        check(ledr_n === 1'b0, "red LED lit while in reset");
`endif
        wait_run(100000);
`ifdef BOARD_ICEBREAKER
        check(ledr_n === 1'b1, "red LED dark once running");
`endif
        check(irq === 1'b0 && led_irq === 1'b0, "IRQ and its LED low at rest");

        rd(TW_REG_ID, TW_ID_MAGIC, "ID");
        rd(TW_REG_VERSION, {TW_VERSION_MAJOR, TW_VERSION_MINOR}, "VERSION");
        frame(1'b0, TW_REG_CAPS, 32'd0, 1'b0);
        check(r_st == 8'h01 && (r_data & CAPS_GEO_MASK) == CAPS_GEO, "CAPS: the top's 4 x 256, FIFO 2^4");
        frame(1'b1, TW_REG_CTRL, 32'hFFFF_FFFF, 1'b1);
        check(r_st == 8'h02, "corrupted request refused (0x02)");
        rd(TW_REG_CTRL, 32'd0, "CTRL unchanged by the corrupted write");

        // The external tick: SET level 0 slot 3 for tick 3, three pulses.
        wr(TW_REG_CTRL, (32'd2 << TW_CTRL_TICK_SRC_LSB) | (32'd1 << TW_CTRL_IRQ_EN_LSB));
        wr(TW_REG_ARM_LO, 32'd3);
        wr(TW_REG_ARM_HI, 32'd0);
        wr(TW_REG_CMD, (32'd1 << TW_CMD_OP_LSB) | (32'd0 << TW_CMD_LEVEL_LSB) | 32'd3);
        tick_pulse;
        tick_pulse;
        #1000;
        check(irq === 1'b0, "no IRQ before the armed tick");
        rd(TW_REG_NOW_LO, 32'd2, "NOW after two pulses");
        tick_pulse;
        #1000;
        check(irq === 1'b1, "IRQ at the armed tick");
        check(led_irq === 1'b1, "IRQ LED lit");
        frame(1'b0, TW_REG_EVT_INFO, 32'd0, 1'b0);
        check(r_st == 8'h01 && r_data[TW_EVT_INFO_VALID_LSB] && !r_data[TW_EVT_INFO_LATE_LSB]
              && r_data[TW_EVT_INFO_LEVEL_LSB +: TW_EVT_INFO_LEVEL_WIDTH] == 0
              && r_data[TW_EVT_INFO_SLOT_LSB +: TW_EVT_INFO_SLOT_WIDTH] == 3,
              "EVT_INFO: level 0, slot 3, a visit");
        rd(TW_REG_EVT_TICK, 32'd3, "EVT_TICK (pops the event)");
        #1000;
        check(irq === 1'b0, "IRQ low once the event is read");
        check(led_irq === 1'b1, "IRQ LED still lit (stretched)");

`ifdef BOARD_ICEBREAKER
        // The button resets the chip: CTRL back to 0.
        btn_n = 1'b0;
        #2000;
        check(dut.rst === 1'b1 && ledr_n === 1'b0, "button press: chip in reset, red LED lit");
        btn_n = 1'b1;
        wait_run(100000);
        rd(TW_REG_CTRL, 32'd0, "CTRL after the button's reset");
`endif
        check(miso === 1'bz, "MISO released after the frames");
        if (errors == 0) $display("PASS tb_board_top");
        else $display("FAIL tb_board_top: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
