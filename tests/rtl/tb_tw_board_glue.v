`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for fpga/common/tw_board_glue.v: the power-on
// reset (held from the first clock until the PLL has locked, the button is
// released and 256 clocks have passed; back at once on a press or a lost
// lock), the IRQ LED's stretch and polarity, and the SPI pads (CS_N passed
// through, MISO driven only while CS_N is low). The pads are iCE40 SB_IO
// cells, simulated with Yosys's model (ice40/cells_sim.v).
//   iverilog -g2005 -DNO_ICE40_DEFAULT_ASSIGNMENTS -s tb_tw_board_glue -o tb \
//       tests/rtl/tb_tw_board_glue.v fpga/common/tw_board_glue.v \
//       /usr/share/yosys/ice40/cells_sim.v
// (NO_ICE40_DEFAULT_ASSIGNMENTS: the model's port defaults are SystemVerilog.)
//   vvp tb [+seed=N]
module tb_tw_board_glue;
    parameter  integer STRETCH_BITS = 4;    // run.sh runs 4 and 1
    localparam integer POR_CLOCKS   = 256;

    reg clk = 1'b0;
    always #5 clk = !clk;

    reg  locked = 1'b0, btn_n = 1'b0, cs_pin = 1'b1, miso = 1'b0, irq = 1'b0;
    wire cs_n, rst, led_irq, led_rst, led_irq_n, led_rst_n;
    wire miso_pin, miso_pin_n;
    // One glue per LED polarity; the second's pads are checked as the first's.
    tw_board_glue #(.LED_ACTIVE_LOW(0), .STRETCH_BITS(STRETCH_BITS)) dut (
        .i_clk(clk), .i_locked(locked), .i_btn_n(btn_n),
        .i_cs_n_pin(cs_pin), .o_cs_n(cs_n), .i_miso(miso), .o_miso_pin(miso_pin),
        .o_rst(rst), .i_irq(irq), .o_led_irq(led_irq), .o_led_rst(led_rst)
    );
    wire rst_n_side, cs_n_n;
    tw_board_glue #(.LED_ACTIVE_LOW(1), .STRETCH_BITS(STRETCH_BITS)) dut_n (
        .i_clk(clk), .i_locked(locked), .i_btn_n(btn_n),
        .i_cs_n_pin(cs_pin), .o_cs_n(cs_n_n), .i_miso(miso), .o_miso_pin(miso_pin_n),
        .o_rst(rst_n_side), .i_irq(irq), .o_led_irq(led_irq_n), .o_led_rst(led_rst_n)
    );

    integer errors = 0, seed = 1, n, t, k, n_press, n_lock;
    task check(input cond, input [8*64-1:0] what);
        if (cond !== 1'b1) begin            // X or Z fails too
            errors = errors + 1;
            if (errors <= 10) $display("ERROR t=%0t: %0s", $time, what);
        end
    endtask
    // Clocks until o_rst falls (at most lim), checking the LEDs on the way.
    task clocks_to_run(input integer lim, output integer got);
        begin
            got = -1;
            for (t = 1; t <= lim && got < 0; t = t + 1) begin
                @(negedge clk);
                check(led_rst == rst && led_rst_n == !rst && rst_n_side == rst, "reset LEDs follow o_rst");
                if (!rst) got = t;
            end
        end
    endtask

    initial begin
        if ($value$plusargs("seed=%d", seed)) ;
        $display("# tb_tw_board_glue seed=%0d (replay: +seed=%0d)", seed, seed);
        // Reset from the first clock, and held while the PLL has not locked
        // or the button is pressed, however long.
        @(negedge clk);
        check(rst === 1'b1, "reset asserted from the first clock");
        repeat (POR_CLOCKS + 20) begin
            @(negedge clk);
            locked = $random(seed); btn_n = 1'b0;
            check(rst === 1'b1, "reset held while the button is pressed");
        end
        locked = 1'b0; btn_n = 1'b1;
        repeat (POR_CLOCKS + 20) begin
            @(negedge clk);
            check(rst === 1'b1, "reset held until the PLL locks");
        end
        // Both good: released after the 256 clocks and the synchronisers,
        // never before.
        locked = 1'b1;
        clocks_to_run(POR_CLOCKS + 20, n);
        check(n >= POR_CLOCKS && n <= POR_CLOCKS + 6, "reset released 256 clocks (+ synchronisers) after lock");
        $display("# released %0d clocks after the PLL locked", n);
        repeat (4 * POR_CLOCKS) begin
            @(negedge clk);
            check(rst === 1'b0, "reset stays released");
        end
        // A press of one clock, or a lost lock, brings it back within the
        // synchronisers' delay, and the count starts again.
        for (k = 0; k < 6; k = k + 1) begin
            @(negedge clk);
            if (k % 2 == 0) btn_n = 1'b0; else locked = 1'b0;
            @(negedge clk);
            btn_n = 1'b1; locked = 1'b1;
            n = 0;
            while (!rst && n < 10) begin @(negedge clk); n = n + 1; end
            check(rst === 1'b1, "reset asserted after a press or a lost lock");
            check(n <= 5, "reset asserted within 5 clocks");
            // Both pins have the same two-flop synchroniser: a press and a
            // lost lock take equally long (a stage missing on one shows here),
            // and no sooner than through both flops, ok_q, the counter and
            // run_q (4 clocks after the press ends; a stage missing on both
            // is the only sign a simulation gives of a lost synchroniser).
            check(n >= 4, "reset asserted no sooner than through the synchronisers");
            if (k % 2 == 0) n_press = n; else n_lock = n;
            if (k % 2 == 1) check(n_press == n_lock, "a press and a lost lock assert reset equally fast");
            clocks_to_run(POR_CLOCKS + 20, n);
            check(n >= POR_CLOCKS - 5 && n <= POR_CLOCKS + 6, "released again after 256 clocks");
            repeat ($random(seed) & 15) @(negedge clk);
        end
        // IRQ LED: lit from the clock after a pulse for 2^STRETCH_BITS - 1
        // clocks; the other polarity inverted.
        check(led_irq === 1'b0 && led_irq_n === 1'b1, "IRQ LED dark at rest");
        for (k = 0; k < 20; k = k + 1) begin
            @(negedge clk); irq = 1'b1;
            @(negedge clk); irq = 1'b0;
            n = 0;
            while (led_irq && n < 100) begin
                check(led_irq_n === !led_irq, "IRQ LED polarities");
                @(negedge clk); n = n + 1;
            end
            check(n == (1 << STRETCH_BITS) - 1, "IRQ LED lit 2^STRETCH_BITS - 1 clocks");
            repeat ($random(seed) & 7) @(negedge clk);
        end
        // SPI pads: CS_N passes through; MISO is driven only while CS_N is low.
        for (k = 0; k < 200; k = k + 1) begin
            cs_pin = $random(seed); miso = $random(seed);
            #1;
            check(cs_n === cs_pin && cs_n_n === cs_pin, "CS_N passes through its pad");
            if (!cs_pin) check(miso_pin === miso && miso_pin_n === miso, "MISO driven while selected");
            else         check(miso_pin === 1'bz && miso_pin_n === 1'bz, "MISO released while not selected");
            @(negedge clk);
        end
        if (errors == 0) $display("PASS tb_tw_board_glue");
        else $display("FAIL tb_tw_board_glue: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
