`default_nettype none
// Board glue shared by the iCE40 top levels (fpga/<board>/top.v): the
// power-on reset, the SPI pads that need more than a plain wire, and the
// interrupt LED. Everything here runs in the PLL's clock domain.
module tw_board_glue #(
    parameter integer LED_ACTIVE_LOW = 0,
    parameter integer STRETCH_BITS   = 21    // LED stays lit 2^STRETCH_BITS - 1 clocks after an IRQ
) (
    input  wire i_clk,
    input  wire i_locked,       // PLL lock (asynchronous)
    input  wire i_btn_n,        // reset button, active low (tie 1 if none)
    input  wire i_cs_n_pin,     // SPI CS_N pad: weak pull-up, so an unplugged host never selects
    output wire o_cs_n,
    input  wire i_miso,
    output wire o_miso_pin,     // MISO pad: driven only while CS_N is low, so the bus can be shared
    output wire o_rst,          // synchronous, active high
    input  wire i_irq,
    output wire o_led_irq,
    output wire o_led_rst
);
    // ------------------------------------------------------------ pads
    SB_IO #(
        .PIN_TYPE(6'b0000_01),  // plain input, no output
        .PULLUP(1'b1)
    ) u_cs_pad (
        .PACKAGE_PIN(i_cs_n_pin),
        .D_IN_0(o_cs_n)
    );

    SB_IO #(
        .PIN_TYPE(6'b1010_01)   // output with enable, both unregistered
    ) u_miso_pad (
        .PACKAGE_PIN(o_miso_pin),
        .OUTPUT_ENABLE(!o_cs_n),
        .D_OUT_0(i_miso)
    );

    // ------------------------------------------------------ power-on reset
    // iCE40 flops come out of configuration at 0, so reset is asserted from
    // the first clock: until the PLL has locked, the button is released and
    // 256 clocks have passed. The pins' synchronisers sit by their pads, so
    // their verdict is registered once more (ok_q) before it reaches the
    // counter, and the counter's top bit says it is done: the counter's
    // clear and enable each start at a flop.
    reg [1:0] lock_s = 2'b00, btn_s = 2'b00;
    reg       ok_q   = 1'b0;
    reg [8:0] por_q  = 9'd0;
    reg       run_q  = 1'b0;
    always @(posedge i_clk) begin
        lock_s <= {lock_s[0], i_locked};
        btn_s  <= {btn_s[0], i_btn_n};
        ok_q   <= lock_s[1] && btn_s[1];
        if (!ok_q)
            por_q <= 9'd0;
        else if (!por_q[8])
            por_q <= por_q + 9'd1;
        run_q <= por_q[8];
    end
    assign o_rst = !run_q;

    // ------------------------------------------------------------ LEDs
    // led_nz_q == (led_q != 0), kept a clock ahead in a flop of its own, so
    // that the counter's enable is not the zero test that also drives the
    // pin (on the UP5K the placer put that LUT by the pin, far from the
    // counter).
    reg [STRETCH_BITS-1:0] led_q = 0;
    reg                    led_nz_q = 1'b0;
    always @(posedge i_clk) begin
        if (i_irq)
            led_q <= {STRETCH_BITS{1'b1}};
        else if (led_nz_q)
            led_q <= led_q - 1'b1;
        // (led_q > 1: the count after this clock is not zero; a shift, not
        // a part select, so that one bit works too)
        led_nz_q <= i_irq || (led_q >> 1) != 0;
    end
    wire led_irq = led_nz_q;
    wire led_rst = !run_q;
    assign o_led_irq = LED_ACTIVE_LOW != 0 ? !led_irq : led_irq;
    assign o_led_rst = LED_ACTIVE_LOW != 0 ? !led_rst : led_rst;
endmodule
`default_nettype wire
