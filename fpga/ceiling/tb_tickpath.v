`timescale 1ns/1ps
`default_nettype none
// Quick self-check of fpga/ceiling/tickpath.v: a few busy slots, ADVANCE in
// virtual time, every event read back and compared with the visits the
// slots should get; then a SET naming a passed tick (late) and one naming
// a tick ahead (not late). Run: sh fpga/ceiling/tickpath.sh is the
// measurement; this is
//   iverilog -g2005 -Irtl [-Ptb_tickpath.WITH_SCAN=1 [-Ptb_tickpath.WITH_JUMP=1]] -o /tmp/tb_tickpath \
//     fpga/ceiling/tb_tickpath.v fpga/ceiling/tickpath.v fpga/ceiling/scan.v \
//     rtl/tw_bitmap.v && vvp /tmp/tb_tickpath
// With WITH_SCAN it also checks the search's answer after the last SET.
// tests/rtl/run.sh runs it in the three measured configurations.
module tb_tickpath #(parameter integer WITH_SCAN = 0, parameter integer WITH_JUMP = 0);
`include "tw_regs.vh"
    reg clk = 0, rst = 1;
    always #5 clk = !clk;
    reg cyc = 0, stb = 0, we = 0;
    reg [5:0] adr = 0;
    reg [31:0] wdat = 0;
    wire ack, irq, sp;
    wire [31:0] rdat;
    tickpath #(.WITH_SCAN(WITH_SCAN), .WITH_JUMP(WITH_JUMP)) dut (.i_clk(clk), .i_rst(rst), .i_wb_cyc(cyc), .i_wb_stb(stb), .i_wb_we(we),
                  .i_wb_adr(adr), .i_wb_dat(wdat), .o_wb_ack(ack), .o_wb_dat(rdat),
                  .i_ext_tick(1'b0), .o_irq(irq), .o_search_parity(sp));

    task access(input w, input [5:0] a, input [31:0] d, output [31:0] q);
        begin
            @(posedge clk); cyc <= 1; stb <= 1; we <= w; adr <= a; wdat <= d;
            @(posedge clk); while (!ack) @(posedge clk);
            q = rdat;
            cyc <= 0; stb <= 0; we <= 0;
            repeat (3) @(posedge clk);
        end
    endtask
    reg [31:0] junk;
    task wr(input [5:0] a, input [31:0] d); access(1, a, d, junk); endtask

    // The busy slots: {level, slot}
    integer NB = 4;
    reg [1:0] b_lvl [0:63];
    reg [7:0] b_slot [0:63];
    integer errors = 0, got = 0, want = 0, i, t, k;
    reg [31:0] info, tick, st;
    reg [47:0] ev_tick;
    reg seen [0:16383];  // (tick, level) pairs seen, tick < 4096
    localparam integer N = 1000;

    task drain;
        begin
            access(0, TW_REG_STATUS, 0, st);
            while (st[31:16] != 0) begin
                access(0, TW_REG_EVT_INFO, 0, info);
                access(0, TW_REG_EVT_TICK, 0, tick);
                ev_tick = {info[15:0], tick};
                if (!info[31]) begin errors = errors + 1; $display("FAIL: EVT_INFO not valid"); end
                else if (!info[30]) begin
                    got = got + 1;
                    k = info[29:28];
                    if (ev_tick >= 4096 || ev_tick[k*8 +: 8] != info[23:16]) begin
                        errors = errors + 1;
                        $display("FAIL: event level %0d slot %0d at tick %0d", k, info[23:16], ev_tick);
                    end else if (seen[ev_tick*4 + k]) begin
                        errors = errors + 1; $display("FAIL: duplicate at tick %0d", ev_tick);
                    end else begin seen[ev_tick*4 + k] = 1; end
                end else $display("late event level %0d slot %0d at tick %0d", info[29:28], info[23:16], ev_tick);
                access(0, TW_REG_STATUS, 0, st);
            end
        end
    endtask

    // Every visit of a busy slot in ticks t0..t1 must have been reported once.
    task check(input integer t0, input integer t1);
        begin
            want = 0;
            for (t = t0; t <= t1; t = t + 1)
                for (i = 0; i < NB; i = i + 1) begin
                    k = b_lvl[i];
                    if ((k == 0 || t % (1 << (8 * k)) == 0) && ((t >> (8 * k)) & 255) == b_slot[i]) begin
                        want = want + 1;
                        if (!seen[t*4 + k]) begin
                            errors = errors + 1; $display("FAIL: missed level %0d slot %0d at tick %0d", k, b_slot[i], t);
                        end
                    end
                end
            if (got != want) begin errors = errors + 1; $display("FAIL: %0d events, want %0d", got, want); end
            total = total + want;
        end
    endtask
    integer total = 0;
    time t0;

    initial begin
        b_lvl[0] = 0; b_slot[0] = 5;
        b_lvl[1] = 0; b_slot[1] = 16;
        b_lvl[2] = 1; b_slot[2] = 2;
        b_lvl[3] = 1; b_slot[3] = 0;     // visited at ticks 256*k with field 1 == 0
        for (i = 0; i < 16384; i = i + 1) seen[i] = 0;
        $display("# tb_tickpath WITH_SCAN=%0d WITH_JUMP=%0d", WITH_SCAN, WITH_JUMP);
        repeat (4) @(posedge clk); rst <= 0; repeat (4) @(posedge clk);
        wr(TW_REG_ARM_LO, 1);             // ahead of tick 0: not late
        for (i = 0; i < NB; i = i + 1) wr(TW_REG_CMD, {4'd1, 8'd0, 2'd0, b_lvl[i], 8'd0, b_slot[i]});
        wr(TW_REG_CTRL, 0);               // virtual time
        wr(TW_REG_ADVANCE, N);
        t0 = $time;
        st = 32'h8;
        while (st[TW_STATUS_ADVANCING_LSB] || st[31:16] != 0) begin
            drain;
            access(0, TW_REG_STATUS, 0, st);
        end
        $display("ADVANCE %0d took %0d clocks", N, ($time - t0) / 10);
        repeat (20) @(posedge clk);
        drain;
        check(1, N);
        access(0, TW_REG_NOW_LO, 0, tick);
        if (tick != N) begin errors = errors + 1; $display("FAIL: NOW %0d, want %0d", tick, N); end
        // A SET naming a passed tick is late; one naming a tick ahead is not.
        wr(TW_REG_ARM_HI, 0);
        wr(TW_REG_ARM_LO, 7);
        wr(TW_REG_CMD, {4'd1, 8'd0, 4'd0, 8'd0, 8'd7});
        wr(TW_REG_ARM_LO, N + 7);
        wr(TW_REG_CMD, {4'd1, 8'd0, 4'd0, 8'd0, 8'd8});
        repeat (20) @(posedge clk);
        access(0, TW_REG_CNT_LATE, 0, st);
        if (st != 1) begin errors = errors + 1; $display("FAIL: CNT_LATE %0d, want 1", st); end
        access(0, TW_REG_EVT_INFO, 0, info);
        if (info[31:30] != 2'b11 || info[23:16] != 7) begin
            errors = errors + 1; $display("FAIL: late event info %h", info);
        end
        b_lvl[4] = 0; b_slot[4] = 7;
        b_lvl[5] = 0; b_slot[5] = 8;
        NB = 6;
        access(0, TW_REG_CNT_EVENTS, 0, st);
        if (st != want + 1) begin errors = errors + 1; $display("FAIL: CNT_EVENTS %0d, want %0d", st, want + 1); end
        // Virtual time stops short of a full FIFO: 32 busy level-0 slots,
        // ADVANCE 1024, nothing read for a while; then all 128 events are
        // there and none was dropped.
        for (i = 0; i < 32; i = i + 1) begin
            wr(TW_REG_ARM_HI, 0);
            wr(TW_REG_ARM_LO, N + 1);
            wr(TW_REG_CMD, {4'd1, 8'd0, 4'd0, 8'd0, i[4:0], 3'd1});
            b_lvl[NB + i] = 0; b_slot[NB + i] = {i[4:0], 3'd1};
        end
        NB = NB + 32;
        got = 0;
        wr(TW_REG_ADVANCE, 1024);
        repeat (3000) @(posedge clk);
        access(0, TW_REG_STATUS, 0, st);
        if (st[TW_STATUS_OVERFLOW_LSB] || st[31:16] == 0 || st[31:16] > 16) begin
            errors = errors + 1; $display("FAIL: stalled FIFO status %h", st);
        end
        access(0, TW_REG_NOW_LO, 0, tick);
        $display("stalled at NOW %0d with %0d entries", tick, st[31:16]);
        st = 32'h8;
        while (st[TW_STATUS_ADVANCING_LSB] || st[31:16] != 0) begin
            drain;
            access(0, TW_REG_STATUS, 0, st);
        end
        if (st[TW_STATUS_OVERFLOW_LSB]) begin errors = errors + 1; $display("FAIL: overflow"); end
        check(N + 1, N + 1024);
        if (WITH_SCAN != 0) begin
            // The search follows time: the earliest busy visit after now.
            access(0, TW_REG_NOW_LO, 0, tick);
            ev_tick = 48'hffffffffffff;
            for (i = 0; i < NB; i = i + 1) begin
                k = b_lvl[i];
                for (t = 1; t <= 256; t = t + 1)
                    if (((tick >> (8 * k)) + t) % 256 == b_slot[i]
                            && ((tick >> (8 * k) << (8 * k)) + (t << (8 * k))) < ev_tick)
                        ev_tick = (tick >> (8 * k) << (8 * k)) + (t << (8 * k));
            end
            access(0, TW_REG_NEXT_LO, 0, tick);
            access(0, TW_REG_NEXT_HI, 0, info);
            if ({info[15:0], tick} != ev_tick || info[31:30] != 2'b11) begin
                errors = errors + 1; $display("FAIL: NEXT %h %h, want %0d", info, tick, ev_tick);
            end else $display("NEXT %0d", ev_tick);
        end
        $display("%0d visit events checked", total);
        // The line tests/rtl/run.sh counts.
        if (errors == 0) $display("PASS tb_tickpath");
        else             $display("FAIL tb_tickpath: %0d errors", errors);
        $finish;
    end
    initial begin #5000000 $display("FAIL: timeout"); $finish; end
endmodule
