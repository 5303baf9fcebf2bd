`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for rtl/tw_evfifo.v.
//
// A reference queue in the testbench is updated at every clock edge from the
// same inputs the DUT sees; before every edge the DUT's o_head / o_count /
// o_full / o_empty / o_push_ok are compared with it. Directed phases cover
// fill to full, refused push, push+pop on a full FIFO, pop on empty, push+pop
// on empty and reset; random phases bias the push rate so the FIFO wanders
// between empty and full.
//
//   iverilog -g2005 -o tb tests/rtl/tb_tw_evfifo.v rtl/tw_evfifo.v [-Ptb_tw_evfifo.DEPTH_LOG2=N]
//   vvp tb [+seed=N] [+cycles=N]
module tb_tw_evfifo;
    parameter integer WIDTH      = 12;
    parameter integer DEPTH_LOG2 = 3;
    localparam integer DEPTH = 1 << DEPTH_LOG2;

    reg                  clk = 1'b0;
    reg                  rst = 1'b1;
    reg                  push = 1'b0;
    reg                  pop  = 1'b0;
    reg  [WIDTH-1:0]     din  = 0;
    wire                 push_ok;
    wire [WIDTH-1:0]     head;
    wire [DEPTH_LOG2:0]  count;
    wire                 full, full_next, empty;

    tw_evfifo #(.WIDTH(WIDTH), .DEPTH_LOG2(DEPTH_LOG2)) dut (
        .i_clk(clk), .i_rst(rst),
        .i_push(push), .i_data(din), .o_push_ok(push_ok),
        .i_pop(pop), .o_head(head),
        .o_count(count), .o_full(full), .o_full_next(full_next), .o_empty(empty)
    );

    always #5 clk = ~clk;

    // ------------------------------------------------------- reference queue
    reg [WIDTH-1:0] q [0:DEPTH-1];
    integer q_rd = 0, q_n = 0;
    integer errors = 0;
    integer seed = 1;
    integer ncycles = 20000;
    integer n_refused = 0, n_fullpp = 0, n_pushes = 0, n_pops = 0;

    task err;
        input [8*64-1:0] what;
        input [31:0] got, exp;
        begin
            errors = errors + 1;
            if (errors <= 30)
                $display("ERROR t=%0t %0s: got %0h expected %0h (push=%b pop=%b din=%0h model count=%0d)",
                         $time, what, got, exp, push, pop, din, q_n);
        end
    endtask

    // Compare the DUT's combinational outputs with the model; called just
    // before each rising edge, with the inputs for that edge applied.
    task check_outputs;
        reg exp_ok, exp_full_next;
        begin
            exp_ok = (q_n < DEPTH) || (pop && q_n > 0);
            if (count !== q_n[DEPTH_LOG2:0]) err("o_count", count, q_n);
            if (full  !== (q_n == DEPTH))    err("o_full", full, q_n == DEPTH);
            if (empty !== (q_n == 0))        err("o_empty", empty, q_n == 0);
            if (push_ok !== exp_ok)          err("o_push_ok", push_ok, exp_ok);
            if (q_n > 0 && head !== q[q_rd]) err("o_head", head, q[q_rd]);
            // what o_full will be after this edge's push and pop
            exp_full_next = q_n + ((push && exp_ok) ? 1 : 0) - ((pop && q_n > 0) ? 1 : 0) == DEPTH;
            if (full_next !== exp_full_next) err("o_full_next", full_next, exp_full_next);
        end
    endtask

    // Model update at the clock edge.
    always @(posedge clk) begin : model
        reg do_pop, do_push;
        if (rst) begin
            q_rd = 0;
            q_n  = 0;
        end else begin
            do_pop  = pop && q_n > 0;
            do_push = push && (q_n < DEPTH || do_pop);
            if (push && !do_push) n_refused = n_refused + 1;
            if (push && pop && q_n == DEPTH) n_fullpp = n_fullpp + 1;
            if (do_push) begin
                q[(q_rd + q_n) % DEPTH] = din;
                n_pushes = n_pushes + 1;
            end
            if (do_pop) begin
                q_rd = (q_rd + 1) % DEPTH;
                n_pops = n_pops + 1;
            end
            q_n = q_n + (do_push ? 1 : 0) - (do_pop ? 1 : 0);
        end
    end

    // One clock cycle with the given inputs: apply after the falling edge,
    // check just before the rising edge.
    task cycle;
        input p, o;
        input [WIDTH-1:0] d;
        begin
            push = p; pop = o; din = d;
            #4;            // negedge at +0, posedge at +5
            if (!rst) check_outputs;
            @(negedge clk);
        end
    endtask

    task expect_count;
        input integer n;
        begin
            if (q_n != n) begin
                errors = errors + 1;
                $display("ERROR t=%0t directed: model count %0d, scenario expected %0d", $time, q_n, n);
            end
        end
    endtask

    integer i, r, phase, ppush, ppop;
    reg [WIDTH-1:0] v;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("cycles=%d", ncycles)) ;
        $display("tb_tw_evfifo: WIDTH=%0d DEPTH_LOG2=%0d seed=%0d cycles=%0d", WIDTH, DEPTH_LOG2, seed, ncycles);
        @(negedge clk);
        rst = 1'b1;
        cycle(0, 0, 0);
        cycle(0, 0, 0);
        rst = 1'b0;
        #4 check_outputs;   // empty after reset
        @(negedge clk);

        // pop on empty: nothing happens
        cycle(0, 1, 0);
        expect_count(0);
        // push + pop on empty: push only
        cycle(1, 1, 12'h0A5);
        expect_count(1);
        cycle(0, 1, 0);
        expect_count(0);

        // fill to full with distinct values, then refused pushes
        for (i = 0; i < DEPTH; i = i + 1)
            cycle(1, 0, i + 1);
        expect_count(DEPTH);
        for (i = 0; i < 3; i = i + 1)
            cycle(1, 0, 12'hBAD);
        expect_count(DEPTH);
        // push + pop on full: both happen, count stays DEPTH
        for (i = 0; i < DEPTH + 2; i = i + 1)
            cycle(1, 1, 12'h100 + i);
        expect_count(DEPTH);
        // drain, checking order through the model
        for (i = 0; i < DEPTH; i = i + 1)
            cycle(0, 1, 0);
        expect_count(0);
        cycle(0, 1, 0);
        expect_count(0);

        // one entry, alternate push+pop (count stays 1, head follows)
        cycle(1, 0, 12'h011);
        for (i = 0; i < 2 * DEPTH + 1; i = i + 1)
            cycle(1, 1, 12'h200 + i);
        expect_count(1);
        cycle(0, 1, 0);

        // reset while partly full
        for (i = 0; i < DEPTH / 2 + 1; i = i + 1)
            cycle(1, 0, 12'h300 + i);
        rst = 1'b1;
        cycle(0, 0, 0);
        rst = 1'b0;
        #4 check_outputs;
        @(negedge clk);
        expect_count(0);

        // random phases with different push/pop biases (percent)
        for (phase = 0; phase * 500 < ncycles; phase = phase + 1) begin
            r = $random(seed);
            case (phase % 4)
                0: begin ppush = 80; ppop = 30; end   // mostly full
                1: begin ppush = 30; ppop = 80; end   // mostly empty
                2: begin ppush = 60; ppop = 60; end
                default: begin ppush = 10 + ((r & 32'h7fffffff) % 81); ppop = 10 + (((r >> 8) & 32'h7fffff) % 81); end
            endcase
            for (i = 0; i < 500; i = i + 1) begin
                v = $random(seed);
                cycle((($random(seed) & 32'h7fffffff) % 100) < ppush,
                      (($random(seed) & 32'h7fffffff) % 100) < ppop, v);
            end
            if ((($random(seed) & 32'h7fffffff) % 8) == 0) begin
                rst = 1'b1;
                cycle($random(seed), $random(seed), 0);
                rst = 1'b0;
            end
        end

        $display("tb_tw_evfifo: pushes=%0d pops=%0d refused=%0d push+pop-on-full=%0d",
                 n_pushes, n_pops, n_refused, n_fullpp);
        if (n_refused == 0 || n_fullpp == 0) begin
            errors = errors + 1;
            $display("ERROR coverage: refused pushes or push+pop on full never happened");
        end
        if (errors == 0) $display("PASS tb_tw_evfifo");
        else             $display("FAIL tb_tw_evfifo: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
