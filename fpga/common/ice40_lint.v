// Port shells of the iCE40 primitives the board tops use, for Verilator's
// lint of fpga/<board>/top.v and tw_board_glue.v only (`make lint`): the
// names and directions of Yosys's ice40/cells_sim.v, no behaviour. Yosys
// maps the real cells; Icarus runs Yosys's models (tests/rtl/run.sh), whose
// pads are tristate at the top level, which the linter cannot read.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off DECLFILENAME */
`default_nettype none
module SB_IO #(
    parameter [5:0] PIN_TYPE = 6'b000000,
    parameter [0:0] PULLUP   = 1'b0
) (
    inout  wire PACKAGE_PIN,
    input  wire OUTPUT_ENABLE,
    input  wire D_OUT_0,
    output wire D_IN_0
);
endmodule

module SB_PLL40_PAD #(
    parameter       FEEDBACK_PATH = "SIMPLE",
    parameter [3:0] DIVR          = 4'b0000,
    parameter [6:0] DIVF          = 7'b0000000,
    parameter [2:0] DIVQ          = 3'b000,
    parameter [2:0] FILTER_RANGE  = 3'b000
) (
    input  wire PACKAGEPIN,
    output wire PLLOUTCORE,
    output wire PLLOUTGLOBAL,
    output wire LOCK,
    input  wire BYPASS,
    input  wire RESETB
);
endmodule

module SB_PLL40_CORE #(
    parameter       FEEDBACK_PATH = "SIMPLE",
    parameter [3:0] DIVR          = 4'b0000,
    parameter [6:0] DIVF          = 7'b0000000,
    parameter [2:0] DIVQ          = 3'b000,
    parameter [2:0] FILTER_RANGE  = 3'b000
) (
    input  wire REFERENCECLK,
    output wire PLLOUTCORE,
    output wire PLLOUTGLOBAL,
    output wire LOCK,
    input  wire BYPASS,
    input  wire RESETB
);
endmodule
`default_nettype wire
