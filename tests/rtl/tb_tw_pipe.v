`timescale 1ns/1ps
`default_nettype none
// tb_tw_pipe: self-checks of tw_core's pipeline against docs/chip.md ("Bus and
// timing contract") at the default 4 x 256 geometry with a 16-entry FIFO:
// ack latency, NOW after ADVANCE, a SET judged late or not at the boundary,
// VHOLD's exact stop, the FIFO-full stop in virtual time, overflow in real
// time, a jump over an empty stretch, the prescaler's period.
//   iverilog -g2005 -Irtl -s tb_tw_pipe -o tb.vvp tests/rtl/tb_tw_pipe.v \
//       rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v && vvp -n tb.vvp
// Deterministic: no random input.
module tb_tw_pipe;
`include "tw_regs.vh"
    reg         clk = 1'b0, rst = 1'b1;
    reg         cyc = 1'b0, stb = 1'b0, we = 1'b0, ext = 1'b0;
    reg  [5:0]  adr = 6'd0;
    reg  [31:0] wdat = 32'd0;
    wire        ack, stall, irq;
    wire [31:0] rdat;
    tw_core #(.LEVELS(4), .SLOT_BITS(8), .FIFO_LOG2(4)) dut (
        .i_clk(clk), .i_rst(rst), .i_wb_cyc(cyc), .i_wb_stb(stb), .i_wb_we(we), .i_wb_adr(adr),
        .i_wb_dat(wdat), .o_wb_ack(ack), .o_wb_stall(stall), .o_wb_dat(rdat),
        .i_ext_tick(ext), .o_irq(irq)
    );
    always #5 clk = !clk;

    integer errors = 0;
    integer cycles = 0;
    always @(posedge clk) cycles <= cycles + 1;
    integer last_ack_clocks;

    task check;
        input        cond;
        input [8*72-1:0] what;
        begin
            if (cond !== 1'b1) begin      // an unknown (x) fails too
                $display("ERROR: %0s (cycle %0d)", what, cycles);
                errors = errors + 1;
            end
        end
    endtask

    // One access as sim/tw_vl.cpp makes it: stb until ack, then one idle clock.
    task access;
        input         write;
        input  [5:0]  a;
        input  [31:0] d;
        output [31:0] q;
        integer n;
        begin
            @(negedge clk);
            cyc = 1'b1; stb = 1'b1; we = write; adr = a; wdat = d;
            n = 0;
            @(posedge clk); #1; n = n + 1;
            while (!ack && n < 64) begin
                @(posedge clk); #1; n = n + 1;
            end
            last_ack_clocks = n;
            if (!ack) begin
                $display("ERROR: no ack for address %0d", a);
                errors = errors + 1;
            end
            q = rdat;
            @(negedge clk);
            cyc = 1'b0; stb = 1'b0; we = 1'b0;
            @(posedge clk); #1;
        end
    endtask
    reg [31:0] scratch;
    task wr;
        input [5:0]  a;
        input [31:0] d;
        access(1'b1, a, d, scratch);
    endtask
    task rd;
        input  [5:0]  a;
        output [31:0] q;
        access(1'b0, a, 32'd0, q);
    endtask

    task read_now;
        output [47:0] t;
        reg [31:0] lo, hi;
        begin
            rd(TW_REG_NOW_LO, lo);
            rd(TW_REG_NOW_HI, hi);
            t = {hi[15:0], lo};
        end
    endtask
    task cmd;
        input [3:0]  op;
        input [1:0]  lvl;
        input [15:0] slot;
        wr(TW_REG_CMD, {op, 8'd0, 2'd0, lvl, slot});
    endtask
    task arm;
        input [47:0] t;
        begin
            wr(TW_REG_ARM_HI, {16'd0, t[47:32]});
            wr(TW_REG_ARM_LO, t[31:0]);
        end
    endtask
    // Polls STATUS until ADVANCING is clear (at most n polls).
    task wait_advanced;
        input integer n;
        integer k;
        reg [31:0] st;
        begin
            k = 0;
            rd(TW_REG_STATUS, st);
            while (st[TW_STATUS_ADVANCING_LSB] && k < n) begin
                rd(TW_REG_STATUS, st);
                k = k + 1;
            end
            check(!st[TW_STATUS_ADVANCING_LSB], "ADVANCING clears");
        end
    endtask
    // Pops one event; returns its EVT_INFO and tick.
    task pop;
        output [31:0] info;
        output [47:0] t;
        reg [31:0] lo;
        begin
            rd(TW_REG_EVT_INFO, info);
            rd(TW_REG_EVT_TICK, lo);
            t = {info[15:0], lo};
        end
    endtask
    task drain;
        output integer n;
        reg [31:0] info;
        reg [47:0] t;
        begin
            n = 0;
            pop(info, t);
            while (info[31]) begin
                n = n + 1;
                pop(info, t);
            end
        end
    endtask

    reg [47:0] now, t, t0;
    reg [31:0] info, st, v;
    integer n, k, c0, c1;
    initial begin
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;

        // ---- ack latency: the request's clock plus four (R, B0, B1, B2, ack in B3)
        rd(TW_REG_ID, v);
        check(v == TW_ID_MAGIC, "ID reads TWHL");
        check(last_ack_clocks == 4, "ack four edges after the request");
        wr(TW_REG_SEARCH, 32'd1000);
        check(last_ack_clocks == 4, "write ack four edges after the request");
        rd(TW_REG_SEARCH, v);
        check(v == 32'd1000, "SEARCH reads back");

        // ---- NOW after ADVANCE, in virtual time (TICK_SRC 0, the reset state)
        wr(TW_REG_ADVANCE, 32'd1000);
        wait_advanced(100);
        read_now(now);
        check(now == 48'd1000, "NOW = 1000 after ADVANCE 1000 (jumped)");
        // Accumulation: two writes back to back add.
        wr(TW_REG_ADVANCE, 32'd20);
        wr(TW_REG_ADVANCE, 32'd22);
        wait_advanced(100);
        read_now(now);
        check(now == 48'd1042, "two ADVANCE writes add");
        // Saturation.
        wr(TW_REG_CTRL, 32'd3);               // no ticks
        wr(TW_REG_ADVANCE, 32'hFFFF_FFF0);
        wr(TW_REG_ADVANCE, 32'h100);
        rd(TW_REG_ADVANCE, v);
        check(v == 32'hFFFF_FFFF, "ADVANCE saturates");
        wr(TW_REG_CTRL, 32'd0);
        wr(TW_REG_CTRL, 32'd3);
        rd(TW_REG_ADVANCE, v);
        check(v != 32'hFFFF_FFFF, "ADVANCE is spent while running");
        // (empty the remainder: a reset is simplest)
        @(negedge clk) rst = 1'b1;
        repeat (2) @(posedge clk);
        #1 rst = 1'b0;

        // ---- SET late or not at the boundary, time stopped at T = 300
        wr(TW_REG_ADVANCE, 32'd300);
        wait_advanced(100);
        read_now(now);
        check(now == 48'd300, "NOW = 300");
        wr(TW_REG_CTRL, 32'd3);               // time stopped
        arm(48'd300);                         // the visit now: reached
        cmd(4'd1, 2'd0, 16'd44);              // slot 300 mod 256 = 44
        rd(TW_REG_STATUS, st);
        check(st[16 +: 16] == 16'd1, "a SET for NOW is late: one entry");
        pop(info, t);
        check(info[31] && info[30] && info[29:28] == 2'd0 && info[27:16] == 12'd44 && t == 48'd300,
              "late event: level 0 slot 44 tick 300");
        arm(48'd301);                         // the next tick: not reached
        cmd(4'd1, 2'd0, 16'd45);
        rd(TW_REG_STATUS, st);
        check(st[16 +: 16] == 16'd0, "a SET for NOW + 1 is not late");
        rd(TW_REG_CNT_LATE, v);
        check(v == 32'd1, "CNT_LATE = 1");
        wr(TW_REG_CTRL, 32'd0);
        wr(TW_REG_ADVANCE, 32'd1);
        wait_advanced(100);
        rd(TW_REG_STATUS, st);
        check(st[16 +: 16] == 16'd1, "the visit of 301 is in the FIFO when ADVANCING clears");
        pop(info, t);
        check(info[31] && !info[30] && info[27:16] == 12'd45 && t == 48'd301, "visit event: slot 45 tick 301");
        cmd(4'd3, 2'd0, 16'd0);               // CLEAR_ALL

        // ---- VHOLD: time stops on exactly the busy visit
        wr(TW_REG_CTRL, 32'd8);               // virtual time, VHOLD
        arm(48'd356);
        cmd(4'd1, 2'd0, 16'd100);             // level 0 slot 100: ticks 356, 612, ...
        arm(48'd512);
        cmd(4'd1, 2'd1, 16'd2);               // level 1 slot 2: tick 512
        wr(TW_REG_ADVANCE, 32'd1000);         // to 1301
        k = 0;
        rd(TW_REG_STATUS, st);
        while (!st[TW_STATUS_HOLD_LSB] && k < 200) begin rd(TW_REG_STATUS, st); k = k + 1; end
        check(st[TW_STATUS_HOLD_LSB], "HOLD set");
        read_now(now);
        check(now == 48'd356, "VHOLD: NOW is the busy tick 356");
        pop(info, t);
        check(t == 48'd356 && info[27:16] == 12'd100, "VHOLD: its event");
        repeat (50) @(posedge clk);
        read_now(now);
        check(now == 48'd356, "VHOLD: time stays");
        wr(TW_REG_STATUS, 32'd2);              // clear HOLD
        k = 0;
        rd(TW_REG_STATUS, st);
        while (!st[TW_STATUS_HOLD_LSB] && k < 200) begin rd(TW_REG_STATUS, st); k = k + 1; end
        read_now(now);
        check(now == 48'd512, "VHOLD: stops on the level-1 visit 512");
        pop(info, t);
        check(t == 48'd512 && info[29:28] == 2'd1 && info[27:16] == 12'd2, "VHOLD: level 1 event");
        wr(TW_REG_STATUS, 32'd2);
        k = 0;
        rd(TW_REG_STATUS, st);
        while (!st[TW_STATUS_HOLD_LSB] && k < 200) begin rd(TW_REG_STATUS, st); k = k + 1; end
        read_now(now);
        check(now == 48'd612, "VHOLD: then 612");
        drain(n);
        cmd(4'd3, 2'd0, 16'd0);               // no more busy slots
        wr(TW_REG_STATUS, 32'd2);
        wait_advanced(300);
        read_now(now);
        check(now == 48'd1301, "VHOLD: ADVANCE ends at 1301");
        // A late SET in VHOLD stops time on the tick it was judged against.
        arm(48'd1000);
        cmd(4'd1, 2'd0, 16'd7);
        rd(TW_REG_STATUS, st);
        check(st[TW_STATUS_HOLD_LSB] && st[16 +: 16] == 16'd1, "VHOLD: a late SET sets HOLD");
        drain(n);
        wr(TW_REG_STATUS, 32'd2);
        cmd(4'd3, 2'd0, 16'd0);

        // ---- FIFO full in virtual time: every tick busy, time stops, nothing lost
        wr(TW_REG_CTRL, 32'd0);
        read_now(t0);
        arm(t0 + 48'd1);
        for (k = 0; k < 256; k = k + 1) cmd(4'd1, 2'd0, k[15:0]);
        wr(TW_REG_ADVANCE, 32'd100);
        repeat (200) @(posedge clk);
        rd(TW_REG_STATUS, st);
        check(st[TW_STATUS_ADVANCING_LSB], "FIFO full: virtual time waits");
        check(!st[TW_STATUS_OVERFLOW_LSB], "FIFO full: no overflow in virtual time");
        check(st[16 +: 16] <= 16'd16 && st[16 +: 16] >= 16'd10, "FIFO nearly full");
        n = 0;
        k = 0;
        while (k < 100 && n < 400) begin
            pop(info, t);
            if (info[31]) begin
                check(t == t0 + 1 + k, "FIFO full: every tick's event, in order");
                k = k + 1;
            end
            n = n + 1;
        end
        check(k == 100, "FIFO full: all 100 events read");
        rd(TW_REG_STATUS, st);
        check(!st[TW_STATUS_OVERFLOW_LSB] && !st[TW_STATUS_ADVANCING_LSB], "FIFO full: done, no overflow");

        // ---- real time: overflow is sticky and counted, time keeps running
        wr(TW_REG_PRESCALE, 32'd0);
        wr(TW_REG_CTRL, 32'd1);               // a tick every clock
        repeat (100) @(posedge clk);
        wr(TW_REG_CTRL, 32'd3);
        rd(TW_REG_STATUS, st);
        check(st[TW_STATUS_OVERFLOW_LSB], "real time: OVERFLOW set");
        rd(TW_REG_CNT_OVERFLOW, v);
        check(v > 32'd50, "real time: CNT_OVERFLOW counts the dropped events");
        drain(n);
        check(n == 16, "real time: the FIFO held 16 entries");
        wr(TW_REG_STATUS, 32'd1);
        rd(TW_REG_STATUS, st);
        check(!st[TW_STATUS_OVERFLOW_LSB], "OVERFLOW clears");
        cmd(4'd3, 2'd0, 16'd0);

        // ---- prescaler: one tick every PRESCALE + 1 clocks
        wr(TW_REG_PRESCALE, 32'd9);
        read_now(t0);
        wr(TW_REG_CTRL, 32'd1);
        c0 = cycles;
        repeat (1000) @(posedge clk);
        wr(TW_REG_CTRL, 32'd3);
        c1 = cycles;
        read_now(now);
        $display("prescaler 9: %0d ticks in %0d clocks", now - t0, c1 - c0);
        check(now - t0 >= (c1 - c0) / 10 - 2 && now - t0 <= (c1 - c0) / 10 + 1, "prescaler period 10");

        // ---- a jump over an empty stretch
        wr(TW_REG_CTRL, 32'd0);
        read_now(t0);
        t = (t0 | 48'hFFFF) + 48'd1 + 48'h300;   // level 1 slot 3 of the next level-2 period
        arm(t);
        cmd(4'd1, 2'd1, {8'd0, t[15:8]});
        c0 = cycles;
        wr(TW_REG_ADVANCE, 32'd200000);
        wait_advanced(1000);
        c1 = cycles;
        read_now(now);
        check(now == t0 + 200000, "jump: NOW after ADVANCE 200000");
        $display("ADVANCE 200000 over one busy slot: %0d clocks", c1 - c0);
        check(c1 - c0 < 3000, "jump: many ticks a clock");
        drain(n);
        check(n >= 3, "jump: the busy slot's visits reported");

        if (errors == 0) $display("PASS tb_tw_pipe");
        else $display("FAIL tb_tw_pipe: %0d errors", errors);
        $finish;
    end
    initial begin
        #50_000_000;
        $display("FAIL tb_tw_pipe: timeout");
        $finish;
    end
endmodule
`default_nettype wire
