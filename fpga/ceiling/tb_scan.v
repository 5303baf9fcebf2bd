`timescale 1ns/1ps
`default_nettype none
// Quick self-check of fpga/ceiling/scan.v against a brute-force model:
// random busy slots and base ticks, both PARALLEL settings (tests/rtl/run.sh
// runs it).
//   iverilog -g2005 -Irtl -o /tmp/tb_scan fpga/ceiling/tb_scan.v \
//     fpga/ceiling/scan.v rtl/tw_bitmap.v && vvp /tmp/tb_scan [+seed=N]
module tb_scan;
    reg clk = 0, rst = 1;
    always #5 clk = !clk;
    reg start = 0, wr = 0, val = 0, clr = 0;
    reg [1:0] lvl = 0;
    reg [7:0] slot = 0;
    reg [47:0] base = 0;
    wire v0, f0, v1, f1;
    wire [47:0] n0, n1;
    scan #(.PARALLEL(0)) d0 (.i_clk(clk), .i_rst(rst), .i_start(start), .i_base(base),
        .i_wr(wr), .i_wr_lvl(lvl), .i_wr_slot(slot), .i_wr_val(val), .i_clear_all(clr),
        .o_valid(v0), .o_found(f0), .o_next(n0));
    scan #(.PARALLEL(1)) d1 (.i_clk(clk), .i_rst(rst), .i_start(start), .i_base(base),
        .i_wr(wr), .i_wr_lvl(lvl), .i_wr_slot(slot), .i_wr_val(val), .i_clear_all(clr),
        .o_valid(v1), .o_found(f1), .o_next(n1));
    reg busy [0:1023];
    integer seed = 1, errors = 0, n, i, k, o, cycles0, cycles1, maxc0 = 0, maxc1 = 0;
    reg [47:0] best, cand;
    reg found;
    initial begin
        if ($value$plusargs("seed=%d", seed)) ;
        $display("# tb_scan seed=%0d (replay: +seed=%0d)", seed, seed);
        for (i = 0; i < 1024; i = i + 1) busy[i] = 0;
        repeat (3) @(posedge clk); rst <= 0;
        for (n = 0; n < 200; n = n + 1) begin
            // A few writes (sometimes a clear of all), then a search.
            if ($random(seed) % 16 == 0) begin
                @(posedge clk); clr <= 1; start <= 1; @(posedge clk); clr <= 0; start <= 0;
                for (i = 0; i < 1024; i = i + 1) busy[i] = 0;
            end
            for (i = 0; i < 3; i = i + 1) begin
                @(posedge clk);
                wr <= 1; lvl <= $random(seed); slot <= $random(seed); val <= $random(seed) % 4 != 0;
                @(posedge clk); wr <= 0;
                busy[lvl * 256 + slot] = val;
            end
            @(posedge clk);
            base <= {$random(seed), $random(seed)};
            start <= 1;
            @(posedge clk); start <= 0;
            @(posedge clk);
            cycles0 = 1; cycles1 = 1;
            while (!v0 || !v1) begin
                @(posedge clk);
                if (!v0) cycles0 = cycles0 + 1;
                if (!v1) cycles1 = cycles1 + 1;
            end
            if (cycles0 > maxc0) maxc0 = cycles0;
            if (cycles1 > maxc1) maxc1 = cycles1;
            found = 0; best = 0;
            for (k = 0; k < 4; k = k + 1)
                for (o = 1; o <= 256; o = o + 1)
                    if (busy[k * 256 + ((base[k*8 +: 8] + o) % 256)]) begin
                        cand = (base & ~((48'd1 << (8 * k)) - 1)) + (o << (8 * k));
                        if (!found || cand < best) best = cand;
                        found = 1;
                    end
            if (f0 !== found || f1 !== found || (found && (n0 !== best || n1 !== best))) begin
                errors = errors + 1;
                $display("FAIL: base %h: want %b %h, got %b %h / %b %h", base, found, best, f0, n0, f1, n1);
            end
        end
        $display("200 searches; longest %0d clocks (one word a clock), %0d (four levels a clock)",
                 maxc0, maxc1);
        // The line tests/rtl/run.sh counts.
        if (errors == 0) $display("PASS tb_scan");
        else             $display("FAIL tb_scan: %0d errors", errors);
        $finish;
    end
endmodule
