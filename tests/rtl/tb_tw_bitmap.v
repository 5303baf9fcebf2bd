`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for rtl/tw_bitmap.v: random SET/CLEAR writes,
// CLEAR_ALL and resets against a reference bit array. Each cycle both read
// ports get a random address (biased towards the slot being written, to
// exercise the bypass) and, a cycle later, must return the bitmap as it
// stands after that cycle's write.
//   iverilog -g2005 -o tb tests/rtl/tb_tw_bitmap.v rtl/tw_bitmap.v [-Ptb_tw_bitmap.SLOT_BITS=N]
//            [-Ptb_tw_bitmap.WRITE_AHEAD=1]
//   vvp tb [+seed=N] [+cycles=N]   (default 50000 cycles)
module tb_tw_bitmap;
    parameter integer SLOT_BITS = 8;
    parameter integer WRITE_AHEAD = 0;
    localparam integer SLOTS     = 1 << SLOT_BITS;
    localparam integer SW        = SLOTS < 16 ? SLOTS : 16;
    localparam integer NWORDS    = SLOTS / SW;
    localparam integer WORD_BITS = NWORDS > 1 ? $clog2(NWORDS) : 1;

    reg clk = 1'b0;
    always #5 clk = !clk;

    reg                  rst, clear_all, wr, wr_val;
    reg  [SLOT_BITS-1:0] wr_slot, wr_slot_next, visit_slot;
    reg  [WORD_BITS-1:0] search_word;
    wire                 visit_bit;
    wire [SW-1:0]        search_data;

    tw_bitmap #(.SLOT_BITS(SLOT_BITS), .WRITE_AHEAD(WRITE_AHEAD)) dut (
        .i_clk(clk), .i_rst(rst), .i_clear_all(clear_all),
        .i_wr(wr), .i_wr_slot(wr_slot), .i_wr_val(wr_val), .i_wr_slot_next(wr_slot_next),
        .i_visit_slot(visit_slot), .o_visit_bit(visit_bit),
        .i_search_word(search_word), .o_search_word(search_data)
    );

    reg [SLOTS-1:0] ref_map;          // the bitmap after the last edge
    reg             exp_visit;        // what the ports must show after this edge
    reg [SW-1:0]    exp_search;
    integer seed, cycles, n, errors, hits_bypass, sets, clears;
    integer k;

    initial begin
        seed = 1;
        cycles = 50000;
        if ($value$plusargs("seed=%d", seed)) ;
        if ($value$plusargs("cycles=%d", cycles)) ;
        $display("# tb_tw_bitmap SLOT_BITS=%0d WRITE_AHEAD=%0d seed=%0d (replay: +seed=%0d)",
                 SLOT_BITS, WRITE_AHEAD, seed, seed);
        errors = 0; hits_bypass = 0; sets = 0; clears = 0;
        rst = 1'b1; clear_all = 1'b0; wr = 1'b0; wr_val = 1'b0;
        wr_slot = 0; wr_slot_next = $random(seed); visit_slot = 0; search_word = 0;
        // Power-up RAM contents are unknown: fill them with junk first, so a
        // word not written since the reset must read as zero despite it.
        for (k = 0; k < NWORDS; k = k + 1) begin
            dut.mem_visit[k]  = {SW{1'b1}};
            dut.mem_search[k] = {SW{1'b1}};
        end
        @(negedge clk);
        @(negedge clk);
        ref_map = 0;
        for (n = 0; n < cycles; n = n + 1) begin
            // stimulus for the next edge
            rst       = ($random(seed) & 1023) == 0;
            clear_all = !rst && ($random(seed) & 255) == 0;
            wr        = !clear_all && ($random(seed) & 3) != 0;
            wr_val    = ($random(seed) & 1) == 0;
            // Each slot is drawn a clock ahead (WRITE_AHEAD's i_wr_slot_next).
            wr_slot      = wr_slot_next;
            wr_slot_next = $random(seed);
            visit_slot  = ($random(seed) & 3) == 0 ? wr_slot : $random(seed);
            search_word = ($random(seed) & 3) == 0 ? wr_slot >> $clog2(SW) : $random(seed);
            if (NWORDS == 1) search_word = 0;
            // the reference after the edge
            if (rst || clear_all) ref_map = 0;
            else if (wr) ref_map[wr_slot] = wr_val;
            if (wr && !rst && !clear_all && (visit_slot == wr_slot)) hits_bypass = hits_bypass + 1;
            sets   = sets + (wr && wr_val);
            clears = clears + clear_all;
            exp_visit  = ref_map[visit_slot];
            exp_search = ref_map[search_word * SW +: SW];
            @(negedge clk);
            if (visit_bit !== exp_visit) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("ERROR cycle %0d: visit slot %0d reads %b, expected %b", n, visit_slot, visit_bit, exp_visit);
            end
            if (search_data !== exp_search) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("ERROR cycle %0d: search word %0d reads %h, expected %h", n, search_word, search_data, exp_search);
            end
        end
        $display("# %0d cycles, %0d SETs, %0d CLEAR_ALLs, %0d reads of the slot written in the same cycle",
                 cycles, sets, clears, hits_bypass);
        if (errors == 0 && hits_bypass > 0) $display("PASS tb_tw_bitmap");
        else $display("FAIL tb_tw_bitmap: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
