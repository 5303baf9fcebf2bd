`timescale 1ns/1ps
`default_nettype none
// Self-checking testbench for rtl/tw_spi.v and rtl/tw_spi_top.v (docs/spi.md).
//
//   iverilog -g2005 -Irtl -o tb tests/rtl/tb_tw_spi.v rtl/tw_spi_top.v rtl/tw_spi.v \
//            rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v
//   vvp tb [+seed=N] [+frames=N] [+aborts=N] [+trace]
//
//   +seed=N    seed of every random choice (printed at start; default 1)
//   +frames=N  frames in the random section (default 150)
//   +aborts=N  aborted frames in the abort section, each followed by its
//              retry (default 32: bits 44-51, around the end of the
//              request's CRC byte, then random)
//   +trace     log every frame
//
// One SPI master drives two slaves on a shared SCK/MOSI, each with its own
// CS_N (so each slave also sees the other's traffic with CS_N high):
//  * target 0: tw_spi_top, the bridge in front of the real tw_core;
//  * target 1: a bare tw_spi (ACK_MAX = 118, the most SCK = f_sys/8
//    allows) in front of a behavioural Wishbone slave (64 words of memory)
//    that acks after a random latency per access: 0..4 clocks (0: in the
//    same clock, combinationally; tw_core takes 1), 0..16 (a pipelined
//    core's range) or 0..ACK_MAX, a quarter to a half of the time each; or
//    a fixed latency in the section "slow ack". It checks the classic
//    protocol (stb only with cyc, the request held unchanged until ack, word
//    63 never on the bus) and drives junk on its read data except in the
//    ack cycle.
//
// The master sends every frame bit by bit with real-valued delays: SCK half
// periods from f_sys/8 (4 clocks exactly, with a random phase per frame) to
// ~60 clocks, with per-edge jitter, so edges land at every phase of the
// system clock; MOSI changes a random time after each falling edge; CS_N
// gaps between frames are mostly just over one clock. It checks the timing
// the bridge promises: the selected MISO never changes while SCK is high and
// has settled at least half a clock before each rising edge (the minimum seen
// is printed); MISO bytes 0-6 are 0x00; the response CRC is right.
//
// A model of the bridge (saved request and response per target, the error
// counter and flag) predicts each frame's status and data and how many bus
// accesses it makes; bus monitors count the accesses each slave acks and
// record the last one. The counts are compared at bit 24 of the next frame
// (or once both buses are idle after a frame shorter than that), when the
// previous frame's access has completed (an access takes at most ACK_MAX + 1
// clocks, less than 24 SCK periods) and the present one cannot have started. For target
// 0 the model knows the read-write registers it wrote and the constants; the
// directed sections give the expected value of the other reads.
//
// Sections: CRC check value; identification; ARM read-back; events popped
// through EVT_INFO/EVT_TICK with repeats, a corrupted pop and pops aborted
// before and after the request's CRC byte; SPI_ERRORS (count, flag, write-1-
// to-clear, never on the bus); aborts around the end of the request's CRC
// byte and at random bits; the exact f_sys/8 limit at random phases;
// random traffic on both targets (new requests, repeats, corruption of 1 or
// 3 bits of bytes 0-5, aborts, retries); slow acks (latencies around the
// deadline at f_sys/8: 0x01 up to ACK_MAX, 0x00
// beyond, counted in SPI_ERRORS.LATE, the retry answered 0x03 without a
// second access; a request that finds the bus busy not executed); an ack
// the clock before, in and after the deadline's clock (in time, in time,
// late); reset forgets the saved request.
module tb_tw_spi;
`include "tw_regs.vh"

    localparam real T = 10.0;               // system clock period (ns)
    localparam [3:0] OP_SET = 4'd1;

    // ------------------------------------------------------------------ DUTs
    reg        clk = 1'b0;
    reg        rst = 1'b1;
    reg        sck = 1'b0, mosi = 1'b0;
    reg  [1:0] cs_n = 2'b11;
    reg        ext_tick = 1'b0;
    wire       miso_top, miso_br, irq_top;

    tw_spi_top #(.LEVELS(4), .SLOT_BITS(8), .FIFO_LOG2(4)) top (
        .i_clk(clk), .i_rst(rst),
        .i_sck(sck), .i_cs_n(cs_n[0]), .i_mosi(mosi), .o_miso(miso_top),
        .i_ext_tick(ext_tick), .o_irq(irq_top)
    );

    localparam integer ACK_MAX = 118;       // the bridge's limit at SCK = f_sys/8
    wire        br_cyc, br_stb, br_we, br_ack;
    wire [5:0]  br_adr;
    wire [31:0] br_wdat, br_rdat;
    tw_spi #(.ACK_MAX(ACK_MAX)) br (
        .i_clk(clk), .i_rst(rst),
        .i_sck(sck), .i_cs_n(cs_n[1]), .i_mosi(mosi), .o_miso(miso_br),
        .o_wb_cyc(br_cyc), .o_wb_stb(br_stb), .o_wb_we(br_we), .o_wb_adr(br_adr),
        .o_wb_dat(br_wdat), .i_wb_ack(br_ack), .i_wb_dat(br_rdat)
    );

    always #(T / 2) clk = ~clk;

    // --------------------------------------------------------------- errors
    integer errors = 0;
    reg [8*24-1:0] section = "init";
    reg trace = 1'b0;

    task msg_err;
        input [8*80-1:0] what;
        begin
            errors = errors + 1;
            if (errors <= 60)
                $display("ERROR [%0s] t=%0t %0s", section, $time, what);
            else if (errors == 61)
                $display("ERROR ... further errors not shown");
        end
    endtask

    task check;
        input [8*64-1:0] what;
        input [63:0] got, exp;
        begin
            if (got !== exp) begin
                errors = errors + 1;
                if (errors <= 60)
                    $display("ERROR [%0s] t=%0t %0s: got 0x%0h expected 0x%0h", section, $time, what, got, exp);
                else if (errors == 61)
                    $display("ERROR ... further errors not shown");
            end
        end
    endtask

    // ---------------------------------------------------------------- random
    integer seed = 1, seed_sl;

    function integer urand;
        input integer n;
        begin
            urand = ($random(seed) & 32'h7FFF_FFFF) % n;
        end
    endfunction

    function real frand;                    // uniform in [0, 1)
        input integer dummy;
        begin
            frand = ($random(seed) & 32'h00FF_FFFF) / 16777216.0;
        end
    endfunction

    // ------------------------------------------------------------------ CRC
    function [7:0] crc8;                    // CRC-8/SMBUS over 40 bits, MSB first
        input [39:0] d;
        integer i;
        begin
            crc8 = 8'h00;
            for (i = 39; i >= 0; i = i - 1)
                crc8 = {crc8[6:0], 1'b0} ^ ((crc8[7] ^ d[i]) ? 8'h07 : 8'h00);
        end
    endfunction

    function [7:0] crc8_byte;
        input [7:0] c, b;
        integer i;
        begin
            crc8_byte = c;
            for (i = 7; i >= 0; i = i - 1)
                crc8_byte = {crc8_byte[6:0], 1'b0} ^ ((crc8_byte[7] ^ b[i]) ? 8'h07 : 8'h00);
        end
    endfunction

    // ------------------------------------------------------- bus monitors
    // acc_n[tg]: accesses acked on target tg's bus; acc_*: the last one.
    integer    acc_n [0:1];
    reg        acc_we [0:1];
    reg [5:0]  acc_adr [0:1];
    reg [31:0] acc_dat [0:1];

    always @(posedge clk) if (!rst) begin
        if (top.wb_stb && !top.wb_cyc) msg_err("core bus: stb without cyc");
        if (top.wb_cyc && top.wb_stb && top.wb_ack) begin
            acc_n[0]   = acc_n[0] + 1;
            acc_we[0]  = top.wb_we;
            acc_adr[0] = top.wb_adr;
            acc_dat[0] = top.wb_wdat;
        end
    end

    // The behavioural slave of target 1.
    reg [31:0] sl_mem [0:63];
    reg [15:0] sl_wait_q = 0;               // cycles the present request has waited
    reg [15:0] sl_lat_q = 0;                // cycles it waits before ack
    reg [31:0] sl_junk_q = 0;
    integer    sl_lat_fix = -1;             // a fixed latency if >= 0, else random
    reg        sl_pend = 1'b0;
    reg        sl_we_c;
    reg [5:0]  sl_adr_c;
    reg [31:0] sl_dat_c;

    // Target 1's deadline as the bridge's logic sees it (bit 62's rising
    // edge through the synchronisers): the clock it judges lateness in, and
    // the clock before it. The section "deadline phase" acks relative to
    // these, which the pins cannot place to the clock.
    wire       br_dead_now  = br.sck_rise_q && br.pos_q[br.P_DEAD];
    wire       br_dead_next = br.sel_next && br.sck_q[0] && !br.sck_q[1] && br.pos_q[br.P_DEAD];
    reg        br_dead_was  = 1'b0;         // br_dead_now, a clock ago
    reg        br_dead_next_was = 1'b0;     // br_dead_next, a clock ago
    integer    sl_dead_ofs  = 2;            // -1, 0 or 1: ack that many clocks from the deadline's clock; else by latency
    integer    tb_clk = 0, br_ack_clk = 0, br_dead_clk = 0;
    always @(posedge clk) begin
        tb_clk = tb_clk + 1;
        if (br_cyc && br_ack) br_ack_clk = tb_clk;
        if (br_dead_now) br_dead_clk = tb_clk;
        // the clock before is foretold right, or "one clock before" is not
        if (sl_dead_ofs >= -1 && sl_dead_ofs <= 1 && br_dead_next_was !== br_dead_now)
            msg_err("deadline foretold wrong by the clock before");
        br_dead_was <= br_dead_now;
        br_dead_next_was <= br_dead_next;
    end

    assign br_ack  = br_cyc && br_stb && (sl_dead_ofs == -1 ? br_dead_next
                                        : sl_dead_ofs == 0  ? br_dead_now
                                        : sl_dead_ofs == 1  ? br_dead_was
                                        : sl_wait_q >= sl_lat_q);
    assign br_rdat = br_ack ? sl_mem[br_adr] : sl_junk_q;

    // The next access's latency: 0..4, 0..16 or 0..ACK_MAX clocks.
    integer sl_hist [0:2];                  // random latencies drawn: <= 4, <= 16, more
    integer sl_next, sl_k;
    function integer sl_rand_lat;
        input integer dummy;
        integer r, n;
        begin
            r = ($random(seed_sl) & 32'h7FFF_FFFF) % 4;
            n = r < 2 ? 4 : r == 2 ? 16 : ACK_MAX;
            sl_rand_lat = ($random(seed_sl) & 32'h7FFF_FFFF) % (n + 1);
        end
    endfunction

    always @(posedge clk) begin
        sl_junk_q <= $random(seed_sl);
        if (rst) begin
            sl_wait_q <= 0;
            sl_pend = 1'b0;
        end else begin
            if (br_stb && !br_cyc) msg_err("slave: stb without cyc");
            if (br_cyc && br_stb) begin
                if (!sl_pend) begin
                    sl_pend  = 1'b1;
                    sl_we_c  = br_we;
                    sl_adr_c = br_adr;
                    sl_dat_c = br_wdat;
                    if (br_adr == TW_REG_SPI_ERRORS) msg_err("slave: SPI_ERRORS (word 63) on the bus");
                end else if (br_we !== sl_we_c || br_adr !== sl_adr_c || br_wdat !== sl_dat_c) begin
                    msg_err("slave: request changed before ack");
                end
                if (br_ack) begin
                    if (br_we) sl_mem[br_adr] <= br_wdat;
                    acc_n[1]   = acc_n[1] + 1;
                    acc_we[1]  = br_we;
                    acc_adr[1] = br_adr;
                    acc_dat[1] = br_wdat;
                    sl_pend    = 1'b0;
                    sl_wait_q <= 0;
                    sl_next    = sl_lat_fix >= 0 ? sl_lat_fix : sl_rand_lat(0);
                    sl_lat_q  <= sl_next;
                    if (sl_lat_fix < 0) begin
                        sl_k = sl_next <= 4 ? 0 : sl_next <= 16 ? 1 : 2;
                        sl_hist[sl_k] = sl_hist[sl_k] + 1;
                    end
                end else begin
                    sl_wait_q <= sl_wait_q + 1'b1;
                end
            end else if (sl_pend) begin
                msg_err("slave: request withdrawn before ack");
                sl_pend = 1'b0;
            end
        end
    end

    // o_irq is the core's line through one flop.
    reg core_irq_d = 1'b0;
    always @(posedge clk) core_irq_d <= top.u_core.o_irq;
    always @(negedge clk) if (!rst && irq_top !== core_irq_d) msg_err("o_irq is not the core's irq one clock later");

    // ------------------------------------------------------- MISO timing
    real t_miso0 = 0.0, t_miso1 = 0.0;      // last change of each MISO
    real t_fall = -1000.0;                  // last falling edge of SCK
    real t_abort0 = -1000.0, t_abort1 = -1000.0;   // CS_N rose on an aborted frame
    real min_margin = 1.0e9;                // smallest MISO setup before a rising edge
    always @(miso_top) begin
        t_miso0 = $realtime;
        if (!cs_n[0] && sck) msg_err("MISO (target 0) changed while SCK is high");
    end
    always @(miso_br) begin
        t_miso1 = $realtime;
        if (!cs_n[1] && sck) msg_err("MISO (target 1) changed while SCK is high");
    end

    // ============================================================ the model
    // Per target: the saved request and response, the error counter and
    // flag, the expected number of bus accesses and the last one.
    reg        m_ok [0:1];
    reg [39:0] m_last [0:1];
    reg [31:0] m_resp [0:1];
    reg        m_known [0:1];               // m_resp is known (else taken from the DUT)
    reg [15:0] m_ecnt [0:1];
    reg [7:0]  m_late [0:1];
    reg        m_flag [0:1];
    integer    exp_acc [0:1];
    reg        exp_we [0:1];
    reg [5:0]  exp_adr [0:1];
    reg [31:0] exp_dat [0:1];
    reg [31:0] m_mem [0:63];                // target 1's slave memory as the model sees it
    reg [31:0] c_reg [0:63];                // target 0's read-write registers as written
    integer    acc_chk_on = 1;
    reg        model_chk = 1'b1;            // compare whole frames with the model

    // What a read of target 0 returns, for the model: rd_auto takes it from
    // c_reg (random section); otherwise rd_known/rd_val, set by the caller.
    reg        rd_auto = 1'b0, rd_known = 1'b0;
    reg [31:0] rd_val = 0;

    function [31:0] core_mask;
        input [5:0] a;
        begin
            case (a)
                TW_REG_ARM_HI: core_mask = 32'h0000_FFFF;
                default:       core_mask = 32'hFFFF_FFFF;
            endcase
        end
    endfunction

    task check_acc;
        integer tg;
        begin
            if (acc_chk_on)
                for (tg = 0; tg < 2; tg = tg + 1) begin
                    if (acc_n[tg] != exp_acc[tg]) begin
                        errors = errors + 1;
                        if (errors <= 60)
                            $display("ERROR [%0s] t=%0t target %0d: %0d bus accesses, expected %0d",
                                     section, $time, tg, acc_n[tg], exp_acc[tg]);
                        acc_n[tg] = exp_acc[tg];    // report each discrepancy once
                    end else if (exp_acc[tg] > 0) begin
                        check("last access: we", acc_we[tg], exp_we[tg]);
                        check("last access: adr", acc_adr[tg], exp_adr[tg]);
                        if (exp_we[tg]) check("last access: write data", acc_dat[tg], exp_dat[tg]);
                    end
                end
        end
    endtask

    // ------------------------------------------------------- SPI master
    real sp_lo, sp_hi, sp_jit;              // this frame's half periods and jitter (ns)
    integer n_frames = 0, n_fast_exact = 0, n_slow = 0;
    integer speed_mode = -1;                // >= 0: always this class of pick_speed

    task pick_speed;
        integer c;
        real base;
        begin
            c = speed_mode >= 0 ? speed_mode : urand(20);
            if (c < 3) begin                    // exactly f_sys/8, one random phase per frame
                sp_lo = 4.0 * T; sp_hi = 4.0 * T; sp_jit = 0.0;
                n_fast_exact = n_fast_exact + 1;
            end else if (c < 10) begin          // just slower than f_sys/8, jitter
                sp_lo = 4.0 * T + frand(0) * 0.6 * T;
                sp_hi = 4.0 * T + frand(0) * 0.6 * T;
                sp_jit = 0.4 * T;
            end else if (c < 17) begin          // up to ~f_sys/40, unequal halves
                base = 4.0 * T + frand(0) * 16.0 * T;
                sp_lo = base;
                sp_hi = 4.0 * T + frand(0) * 16.0 * T;
                sp_jit = 0.3 * base;
            end else begin                      // slow
                base = 20.0 * T + frand(0) * 40.0 * T;
                sp_lo = base; sp_hi = base; sp_jit = 0.2 * base;
                n_slow = n_slow + 1;
            end
        end
    endtask

    // One transaction on target tg: sends tx (104 bits, MSB first) and
    // returns MISO as sampled at each rising edge. nbits < 104: CS_N rises
    // after that many bits, with SCK low, or with abort_high while SCK is high
    // after the last rising edge (at least 1.1 clocks after it, so the bridge
    // sees that edge).
    task spi_xfer;
        input  integer tg;
        input  [103:0] tx;
        input  integer nbits;
        input          abort_high;
        output [103:0] rx;
        integer i;
        real lo, hi, d, m, t_ab, t_up;
        reg cs_up;
        begin
            pick_speed;
            rx = 104'd0;
            cs_up = 1'b0;
            mosi = tx[103];
            #(frand(0) * T);
            cs_n[tg] = 1'b0;
            // CS_N to the first rising edge: from a fraction of a clock, but
            // SCK stays low at least a low half period after its last fall.
            // After an aborted frame MISO holds its last bit until the bridge
            // sees CS_N high (up to 3 clocks): the host waits 4 clocks (half
            // an SCK period at f_sys/8) from CS_N rising to the next first
            // rising edge, or byte 0 of MISO may start with that bit.
            d = 0.2 * T + frand(0) * sp_lo;
            if ($realtime + d < t_fall + sp_lo) d = t_fall + sp_lo - $realtime;
            t_ab = tg == 0 ? t_abort0 : t_abort1;
            if ($realtime + d < t_ab + 4.0 * T) d = t_ab + 4.0 * T - $realtime;
            #(d);
            for (i = 0; i < nbits; i = i + 1) begin
                if (i > 0) begin
                    lo = sp_lo + frand(0) * sp_jit;
                    d = frand(0) * (T < lo / 2.0 ? T : lo / 2.0);
                    #(d);
                    mosi = tx[103 - i];
                    #(lo - d);
                end
                sck = 1'b1;
                rx[103 - i] = tg == 0 ? miso_top : miso_br;
                m = $realtime - (tg == 0 ? t_miso0 : t_miso1);
                if (m < min_margin) min_margin = m;
                if (m < 0.5 * T) begin
                    errors = errors + 1;
                    if (errors <= 60)
                        $display("ERROR [%0s] t=%0t target %0d bit %0d: MISO changed %0.3f ns before the rising edge",
                                 section, $time, tg, i, m);
                end
                if (i == 23) check_acc;
                hi = sp_hi + frand(0) * sp_jit;
                if (i == nbits - 1 && abort_high && nbits < 104) begin
                    d = 1.1 * T + frand(0) * (hi - 1.2 * T);
                    #(d);
                    cs_n[tg] = 1'b1;
                    cs_up = 1'b1;
                    t_up = $realtime;
                    #(hi - d);
                end else begin
                    #(hi);
                end
                sck = 1'b0;
                t_fall = $realtime;
            end
            if (!cs_up) begin
                #(0.2 * T + frand(0) * sp_lo);
                cs_n[tg] = 1'b1;
                t_up = $realtime;
            end
            if (nbits < 104) begin
                if (tg == 0) t_abort0 = t_up;
                else         t_abort1 = t_up;
            end
            // CS_N high: mostly just over one clock, sometimes longer
            i = urand(8);
            #(i < 5 ? 1.1 * T + frand(0) * T : i < 7 ? 2.0 * T + frand(0) * 8.0 * T : 10.0 * T + frand(0) * 90.0 * T);
            if (nbits < 24)
                settle;
            n_frames = n_frames + 1;
        end
    endtask

    // ------------------------------------------------------------ frames
    // xfer: one frame of request req = {we, seq, adr, data} on target tg,
    // with flips xored into bytes 0-5 after the CRC is computed. The model
    // predicts the outcome; a whole frame's status and data are checked
    // against it, and the framing (bytes 0-6 zero, response CRC) always.
    reg [7:0]  x_st;                        // last whole frame's status
    reg [31:0] x_data;                      // and data
    reg        x_crc_ok;                    // its response CRC was right
    reg        seq [0:1];                   // the host's sequence bit per target
    reg [39:0] h_last [0:1];                // the host's last request per target

    task xfer;
        input integer tg;
        input [39:0]  req;
        input [47:0]  flips;
        input integer nbits;
        input         abort_high;
        reg [47:0]  sent;
        reg [39:0]  sreq;
        reg [103:0] rx;
        reg         crc_ok, we;
        reg [5:0]   adr;
        reg [31:0]  wd, resp;
        reg [7:0]   exp_st;
        reg [31:0]  exp_d;
        reg         known;
        begin
            sent = {req, crc8(req)} ^ flips;
            sreq = sent[47:8];
            crc_ok = crc8(sreq) == sent[7:0];
            spi_xfer(tg, {sent, 56'd0}, nbits, abort_high, rx);
            x_st = rx[47:40];
            x_data = rx[39:8];
            x_crc_ok = crc8(rx[47:8]) == rx[7:0];

            // the model
            we = sreq[39]; adr = sreq[37:32]; wd = sreq[31:0];
            exp_st = 8'h00; exp_d = 32'd0; known = 1'b1;
            if (nbits >= 48) begin
                if (!crc_ok) begin
                    exp_st = 8'h02;
                    m_ecnt[tg] = m_ecnt[tg] + 1'b1;
                    m_flag[tg] = 1'b1;
                end else if (m_ok[tg] && sreq == m_last[tg]) begin
                    exp_st = 8'h03;
                    exp_d = m_resp[tg];
                    known = m_known[tg];
                end else begin
                    exp_st = 8'h01;
                    m_ok[tg] = 1'b1;
                    m_last[tg] = sreq;
                    if (adr == TW_REG_SPI_ERRORS) begin
                        resp = we ? wd : errs_word(tg);
                        if (we && wd[31]) m_flag[tg] = 1'b0;
                    end else begin
                        exp_acc[tg] = exp_acc[tg] + 1;
                        exp_we[tg] = we;
                        exp_adr[tg] = adr;
                        exp_dat[tg] = wd;
                        if (we) begin
                            resp = wd;
                            if (tg == 1) m_mem[adr] = wd;
                            else c_reg[adr] = wd & core_mask(adr);
                        end else if (tg == 1) begin
                            resp = m_mem[adr];
                        end else if (rd_auto) begin
                            resp = c_reg[adr];
                        end else begin
                            resp = rd_val;
                            known = rd_known;
                        end
                    end
                    m_resp[tg] = resp;
                    m_known[tg] = known;
                    exp_d = resp;
                end
            end
            if (trace)
                $display("frame t=%0t tg=%0d req=%h flips=%h bits=%0d%0s: status %h data %h (model %h %h%0s)",
                         $time, tg, req, flips, nbits, abort_high ? " (CS_N up with SCK high)" : "",
                         x_st, x_data, exp_st, exp_d, known ? "" : ", data unknown");
            if (nbits == 104) begin
                check("MISO bytes 0-6", rx[103:48], 56'd0);
                if (!x_crc_ok) msg_err("response CRC wrong");
                if (model_chk) check("status", x_st, exp_st);
                if (!model_chk) begin
                    // the caller checks
                end else if (known) begin
                    check("response data", x_data, exp_d);
                end else begin
                    m_resp[tg] = x_data;            // the model learns the value
                    m_known[tg] = 1'b1;
                end
            end
        end
    endtask

    // A new access: flips the sequence bit. Reads send random data bytes.
    task new_req;
        input integer tg;
        input we;
        input [5:0] adr;
        input [31:0] d;
        begin
            seq[tg] = ~seq[tg];
            h_last[tg] = {we, seq[tg], adr, we ? d : $random(seed)};
            xfer(tg, h_last[tg], 48'd0, 104, 1'b0);
        end
    endtask

    // The host repeats its last frame unchanged (possibly corrupted or aborted).
    task retry;
        input integer tg;
        input [47:0] flips;
        input integer nbits;
        input abort_high;
        begin
            xfer(tg, h_last[tg], flips, nbits, abort_high);
        end
    endtask

    task wr;
        input integer tg;
        input [5:0] adr;
        input [31:0] d;
        begin
            new_req(tg, 1'b1, adr, d);
            check("write: status", x_st, 8'h01);
            check("write: echo", x_data, d);
        end
    endtask

    task rd;                                // read with a known value
        input integer tg;
        input [5:0] adr;
        input [31:0] exp;
        begin
            rd_known = 1'b1; rd_val = exp;
            new_req(tg, 1'b0, adr, 32'd0);
            check("read: status", x_st, 8'h01);
            check("read: data", x_data, exp);
        end
    endtask

    task rd_any;                            // read, value not known beforehand
        input integer tg;
        input [5:0] adr;
        begin
            rd_known = 1'b0;
            new_req(tg, 1'b0, adr, 32'd0);
            check("read: status", x_st, 8'h01);
        end
    endtask

    task expect_resp;
        input [8*40-1:0] what;
        input [7:0] st;
        input [31:0] d;
        begin
            check(what, {x_st, x_data}, {st, d});
        end
    endtask

    task settle;                            // let the last access finish, then compare counts
        begin
            repeat (16) @(posedge clk);
            while (br_cyc || top.wb_cyc) @(posedge clk);
            check_acc;
        end
    endtask

    function [31:0] errs_word;              // SPI_ERRORS as the model has it
        input integer tg;
        begin
            errs_word = {m_flag[tg], 7'd0, m_late[tg], m_ecnt[tg]};
        end
    endfunction

    function [47:0] one_bit;                // a flip of one random bit in bytes 0-5
        input integer dummy;
        begin
            one_bit = 48'd1 << urand(48);
        end
    endfunction

    // ============================================================ sections
    localparam [31:0] CAPS_EXP = 32'd4 | (32'd8 << 4) | (32'd4 << 8) | (32'd48 << 16);

    task t_crc;
        reg [7:0] c;
        reg [8*9-1:0] s;
        integer i;
        begin
            section = "crc";
            s = "123456789";
            c = 8'h00;
            for (i = 8; i >= 0; i = i - 1) c = crc8_byte(c, s[i*8 +: 8]);
            check("CRC-8 of \"123456789\"", c, 8'hF4);
        end
    endtask

    task t_ident;
        begin
            section = "ident";
            rd(0, TW_REG_ID, TW_ID_MAGIC);
            rd(0, TW_REG_VERSION, {TW_VERSION_MAJOR, TW_VERSION_MINOR});
            rd(0, TW_REG_CAPS, CAPS_EXP);
            rd(0, TW_REG_ID, TW_ID_MAGIC);
        end
    endtask

    task t_arm;
        reg [31:0] v;
        integer k;
        begin
            section = "arm";
            for (k = 0; k < 4; k = k + 1) begin
                v = $random(seed);
                wr(0, TW_REG_ARM_LO, v);
                rd(0, TW_REG_ARM_LO, v);
                v = $random(seed);
                wr(0, TW_REG_ARM_HI, v);
                rd(0, TW_REG_ARM_HI, v & 32'hFFFF);
            end
        end
    endtask

    // Five events (level 0, slots 3, 7, 9, 12, 14 at those ticks), popped
    // through EVT_TICK with every kind of retry; each pop must happen exactly
    // once, and a pop that differs from the last only in the sequence bit is
    // a new one.
    task t_events;
        integer k;
        reg [7:0] s;
        begin
            section = "events";
            wr(0, TW_REG_ARM_HI, 0);
            for (k = 0; k < 5; k = k + 1) begin
                s = k == 0 ? 3 : k == 1 ? 7 : k == 2 ? 9 : k == 3 ? 12 : 14;
                wr(0, TW_REG_ARM_LO, s);
                wr(0, TW_REG_CMD, {OP_SET, 4'd0, 8'd0, 8'd0, s});
            end
            check("o_irq before the events", irq_top, 1'b0);
            wr(0, TW_REG_CTRL, 32'h4);                       // IRQ_EN, virtual time
            wr(0, TW_REG_ADVANCE, 20);
            rd(0, TW_REG_NOW_LO, 20);
            rd(0, TW_REG_NOW_HI, 0);
            check("o_irq with events pending", irq_top, 1'b1);

            // slot 3: a pop, then two repeats answered from the saved response
            rd(0, TW_REG_EVT_INFO, 32'h8003_0000);
            rd(0, TW_REG_EVT_TICK, 3);
            retry(0, 0, 104, 0);
            expect_resp("repeat of the EVT_TICK pop", 8'h03, 3);
            retry(0, 0, 104, 0);
            expect_resp("second repeat of the EVT_TICK pop", 8'h03, 3);
            // slot 7: the repeats did not pop it; a corrupted pop does nothing
            rd(0, TW_REG_EVT_INFO, 32'h8007_0000);
            rd_known = 1'b1; rd_val = 7;
            seq[0] = ~seq[0];
            h_last[0] = {1'b0, seq[0], TW_REG_EVT_TICK, 32'h1234_5678};
            retry(0, one_bit(0), 104, 0);
            expect_resp("corrupted EVT_TICK read", 8'h02, 0);
            retry(0, 0, 104, 0);
            expect_resp("EVT_TICK read after the corrupted one", 8'h01, 7);
            // slot 9: a pop aborted before the request's CRC byte ends is not done
            rd(0, TW_REG_EVT_INFO, 32'h8009_0000);
            rd_known = 1'b1; rd_val = 9;
            seq[0] = ~seq[0];
            h_last[0] = {1'b0, seq[0], TW_REG_EVT_TICK, 32'h0};
            retry(0, 0, 47, 1);
            retry(0, 0, 104, 0);
            expect_resp("EVT_TICK read after an abort at bit 47", 8'h01, 9);
            // slot 12: the same pop with the other sequence bit is a new access
            rd_known = 1'b1; rd_val = 12;
            seq[0] = ~seq[0];
            h_last[0] = {1'b0, seq[0], TW_REG_EVT_TICK, 32'h0};
            retry(0, 0, 104, 0);
            expect_resp("EVT_TICK read differing only in the sequence bit", 8'h01, 12);
            // slot 14: a pop aborted after it is done once; the retry gets its answer
            rd(0, TW_REG_EVT_INFO, 32'h800E_0000);
            rd_known = 1'b1; rd_val = 14;
            seq[0] = ~seq[0];
            h_last[0] = {1'b0, seq[0], TW_REG_EVT_TICK, 32'h0};
            retry(0, 0, 48 + urand(56), urand(2));
            retry(0, 0, 104, 0);
            expect_resp("EVT_TICK retry after an abort past byte 5", 8'h03, 14);
            rd(0, TW_REG_EVT_INFO, 0);
            rd(0, TW_REG_EVT_TICK, 0);
            check("o_irq after every event is read", irq_top, 1'b0);
            rd(0, TW_REG_CNT_EVENTS, 5);
            rd(0, TW_REG_CNT_LATE, 0);
            rd(0, TW_REG_CNT_CMDS, 5);
            // target 1: the same write twice, the sequence bit flipped: two accesses
            seq[1] = ~seq[1];
            h_last[1] = {1'b1, seq[1], 6'd10, 32'h0BAD_CAFE};
            retry(1, 0, 104, 0);
            expect_resp("write", 8'h01, 32'h0BAD_CAFE);
            seq[1] = ~seq[1];
            h_last[1][38] = seq[1];
            retry(1, 0, 104, 0);
            expect_resp("the write again with the other sequence bit", 8'h01, 32'h0BAD_CAFE);
            settle;
        end
    endtask

    // SPI_ERRORS: bad requests counted and flagged, flag write-1-to-clear,
    // handled by the bridge (the core's CNT_BUSERR stays 0, the slave never
    // sees word 63).
    task t_errors;
        integer tg, k, n;
        reg [47:0] f;
        begin
            section = "spi_errors";
            for (tg = 0; tg < 2; tg = tg + 1) begin
                rd(tg, TW_REG_SPI_ERRORS, errs_word(tg));
                n = 2 + urand(4);
                for (k = 0; k < n; k = k + 1) begin
                    seq[tg] = ~seq[tg];
                    h_last[tg] = {urand(2) == 1, seq[tg], urand(63) == 0 ? 6'd5 : TW_REG_ARM_LO, $random(seed)};
                    f = one_bit(0);
                    if (urand(2) == 0) f = f ^ one_bit(0) ^ one_bit(0);     // 1 or 3 bits
                    retry(tg, f, 104, 0);
                    expect_resp("corrupted request", 8'h02, 0);
                end
                check("model error count", m_ecnt[tg], (tg == 0 ? 1 : 0) + n);
                rd(tg, TW_REG_SPI_ERRORS, errs_word(tg) | 32'h8000_0000);
                wr(tg, TW_REG_SPI_ERRORS, 32'h7FFF_FFFF);           // bit 31 clear: no effect
                rd(tg, TW_REG_SPI_ERRORS, errs_word(tg) | 32'h8000_0000);
                wr(tg, TW_REG_SPI_ERRORS, 32'h8000_0000);
                retry(tg, 0, 104, 0);
                expect_resp("repeat of the flag clear", 8'h03, 32'h8000_0000);
                rd(tg, TW_REG_SPI_ERRORS, errs_word(tg) & 32'h7FFF_FFFF);
            end
            rd(0, TW_REG_CNT_BUSERR, 0);
            settle;
        end
    endtask

    // CS_N up early (bits 44-51, around the end of the request's CRC byte,
    // then random bits; with SCK low or high), then the frame again.
    integer naborts = 32;
    task t_abort;
        integer k, tg, nb;
        reg [5:0] adr;
        begin
            section = "abort";
            rd_auto = 1'b1;
            for (k = 0; k < naborts; k = k + 1) begin
                tg = urand(2);
                nb = k < 8 ? 44 + k : urand(104);
                adr = tg == 0 ? TW_REG_ARM_LO : urand(63);
                seq[tg] = ~seq[tg];
                h_last[tg] = {1'b0, seq[tg], adr, $random(seed)};
                retry(tg, 0, nb, urand(2));
                retry(tg, 0, 104, 0);
                check("status after an abort", x_st, nb >= 48 ? 8'h03 : 8'h01);
            end
            rd_auto = 1'b0;
            settle;
        end
    endtask

    // Exactly f_sys/8 (SCK half periods of 4 clocks), each frame at a random phase.
    task t_limit;
        integer k;
        begin
            section = "f_sys/8";
            speed_mode = 0;
            for (k = 0; k < 24; k = k + 1)
                rd(k % 2, k % 2 ? 6'd9 : TW_REG_ID, k % 2 ? m_mem[9] : TW_ID_MAGIC);
            speed_mode = -1;
        end
    endtask

    // Random traffic on both targets.
    integer nrand = 150;
    task t_random;
        integer n, tg, r, nb;
        reg pend [0:1];
        reg [5:0] adr;
        reg we;
        reg [47:0] f;
        begin
            section = "random";
            rd_auto = 1'b1;
            // target 0: known values in every read-write register the section uses
            wr(0, TW_REG_ARM_LO, $random(seed));
            wr(0, TW_REG_ARM_HI, $random(seed));
            wr(0, TW_REG_PRESCALE, $random(seed));
            wr(0, TW_REG_SEARCH, $random(seed));
            wr(0, TW_REG_COALESCE, $random(seed));
            c_reg[TW_REG_ID] = TW_ID_MAGIC;
            c_reg[TW_REG_VERSION] = {TW_VERSION_MAJOR, TW_VERSION_MINOR};
            c_reg[TW_REG_CAPS] = CAPS_EXP;
            pend[0] = 1'b0; pend[1] = 1'b0;
            for (n = 0; n < nrand; n = n + 1) begin
                tg = urand(2);
                r = urand(100);
                if (!(pend[tg] && r < 80) && !(r >= 80 && r < 90)) begin
                    // a new request
                    we = urand(2);
                    if (tg == 1) begin
                        adr = urand(8) == 0 ? TW_REG_SPI_ERRORS : urand(64);
                    end else begin
                        case (urand(we ? 6 : 9))
                            0: adr = TW_REG_ARM_LO;
                            1: adr = TW_REG_ARM_HI;
                            2: adr = TW_REG_PRESCALE;
                            3: adr = TW_REG_SEARCH;
                            4: adr = TW_REG_COALESCE;
                            5: adr = TW_REG_SPI_ERRORS;
                            6: adr = TW_REG_ID;
                            7: adr = TW_REG_VERSION;
                            default: adr = TW_REG_CAPS;
                        endcase
                    end
                    seq[tg] = ~seq[tg];
                    h_last[tg] = {we, seq[tg], adr, $random(seed)};
                end
                // else: the host repeats its last frame (a retry, or a lost response)
                r = urand(100);
                f = 48'd0;
                nb = 104;
                if (r < 10) begin
                    f = one_bit(0);
                    if (urand(2) == 0) f = f ^ one_bit(0) ^ one_bit(0);
                end else if (r < 20) begin
                    nb = urand(4) == 0 ? 46 + urand(4) : urand(104);
                end
                xfer(tg, h_last[tg], f, nb, urand(2));
                pend[tg] = f != 48'd0 || nb != 104;
            end
            rd_auto = 1'b0;
            rd(0, TW_REG_CNT_BUSERR, 0);
            rd(0, TW_REG_CNT_CMDS, 5);
            settle;
        end
    endtask

    // A directed section on target 1 checks its own answers: the model and
    // the access counts are off, every frame at exactly f_sys/8.
    task model_set_aside;
        begin
            acc_chk_on = 0;
            model_chk = 1'b0;
            speed_mode = 0;
        end
    endtask

    // After a directed section on target 1 with the model off: the model
    // takes up from here, target 1 as it is now (its saved request and
    // answer, the late frames the section counted, its last access), and the
    // random speeds come back.
    task model_take_up(input [31:0] resp, input integer n_late);
        begin
            m_ok[1] = 1'b1;
            m_last[1] = h_last[1];
            m_resp[1] = resp;
            m_known[1] = 1'b1;
            m_late[1] = m_late[1] + n_late;
            exp_acc[1] = acc_n[1];
            exp_we[1] = acc_we[1]; exp_adr[1] = acc_adr[1]; exp_dat[1] = acc_dat[1];
            acc_chk_on = 1;
            model_chk = 1'b1;
            speed_mode = -1;
        end
    endtask

    // What a new request on target 1, just sent (new_req), is answered when
    // its slave acks in time or late: 0x01 with the answer; or 0x00, and
    // then 0x03 with the answer on the unchanged retry, without a second
    // access. The slave's memory as written either way.
    task expect_slow;
        input we;
        input [5:0] adr;
        input [31:0] v;
        input in_time;
        input [8*40-1:0] what;
        begin
            if (we) m_mem[adr] = v;
            if (in_time) begin
                expect_resp(what, 8'h01, m_mem[adr]);
            end else begin
                expect_resp(what, 8'h00, 0);
                retry(1, 0, 104, 0);
                expect_resp("its retry", 8'h03, m_mem[adr]);
            end
            check("slave memory", sl_mem[adr], m_mem[adr]);
        end
    endtask

    // The slave acks late. At exactly f_sys/8 (random phase) the deadline,
    // bit 62's rising edge, comes 120 clocks after the access starts: every
    // latency up to ACK_MAX (118) is answered 0x01, every one from 120 on
    // 0x00 (late, counted in SPI_ERRORS.LATE, data 0). A late access still
    // happens, once: the unchanged retry gets 0x03 with its answer and makes
    // no second access. Then: a retry while the bus is still busy, and a
    // different request then, are 0x00 and not executed.
    task t_slow;
        integer lat, n0, n_exp, n_late, n_done;
        reg [31:0] v, w, old7;
        reg [5:0] adr;
        reg we;
        begin
            section = "slow ack";
            model_set_aside;
            n0 = acc_n[1];
            n_late = 0;
            n_done = 0;
            for (lat = 100; lat <= 140; lat = lat + 2) begin
                sl_lat_fix = lat;
                @(negedge clk) sl_lat_q = lat;
                we = urand(2);
                adr = urand(63);
                v = $random(seed);
                new_req(1, we, adr, v);
                // lat is even: 119, where the synchronisers decide, is left out
                if (lat <= ACK_MAX) n_done = n_done + 1; else n_late = n_late + 1;
                expect_slow(we, adr, v, lat <= ACK_MAX,
                            lat <= ACK_MAX ? (we ? "write acked by the deadline" : "read acked by the deadline")
                                           : (we ? "write acked after the deadline" : "read acked after the deadline"));
                check("accesses", acc_n[1] - n0, n_done + n_late);
            end
            n_exp = n_done + n_late;
            $display("slow ack: latencies 100..140 at f_sys/8: %0d answered 0x01, %0d late (0x00) and retried", n_done, n_late);
            // a write so late that its retry finds the bus still busy, and
            // so does a different write: neither executed again
            sl_lat_fix = 3000;
            @(negedge clk) sl_lat_q = 3000;
            v = $random(seed);
            old7 = sl_mem[7];
            w = ~old7;
            seq[1] = ~seq[1];
            h_last[1] = {1'b1, seq[1], 6'd6, v};
            retry(1, 0, 104, 0);
            expect_resp("write acked long after the deadline", 8'h00, 0);
            retry(1, 0, 104, 0);
            expect_resp("its retry while the bus is busy", 8'h00, 0);
            xfer(1, {1'b1, ~seq[1], 6'd7, w}, 0, 104, 0);
            expect_resp("another write while the bus is busy", 8'h00, 0);
            n_late = n_late + 3;
            while (br_cyc) @(posedge clk);
            repeat (4) @(posedge clk);
            retry(1, 0, 104, 0);
            expect_resp("the write's retry after the ack", 8'h03, v);
            n_exp = n_exp + 1;
            m_mem[6] = v;
            check("accesses", acc_n[1] - n0, n_exp);
            check("slave memory: the late write, once", sl_mem[6], v);
            check("slave memory: the write refused as busy", sl_mem[7], old7);
            m_mem[7] = old7;                // the model (off here) took it as done
            sl_lat_fix = -1;
            @(negedge clk) sl_lat_q = 0;
            model_take_up(v, n_late);
            rd(1, TW_REG_SPI_ERRORS, errs_word(1));
            rd(1, 6'd6, v);
            settle;
        end
    endtask

    // The ack in the clocks around the deadline, placed by the bridge's own
    // deadline strobe (the synchronisers put bit 62's rising edge a clock
    // either way of the pins', so "slow ack" leaves latency 119 out): an ack
    // in the clock before the deadline's or in that clock itself is in time
    // (0x01 with the answer); one in the clock after is late (0x00, counted,
    // and the retry gets 0x03 without a second access). Reads and writes, at
    // exactly f_sys/8 and random phase.
    task t_dead_phase;
        integer k, ofs, n0, n_late, n_done;
        reg [31:0] v;
        reg [5:0] adr;
        reg we;
        begin
            section = "deadline phase";
            model_set_aside;
            n0 = acc_n[1];
            n_late = 0;
            n_done = 0;
            for (k = 0; k < 18; k = k + 1) begin
                ofs = k % 3 - 1;
                we = (k / 3) % 2;
                adr = urand(63);
                v = $random(seed);
                @(negedge clk) sl_dead_ofs = ofs;
                new_req(1, we, adr, v);
                // before a late frame's retry moves the deadline's clock
                check("ack's clock less the deadline's", br_ack_clk - br_dead_clk, ofs);
                if (ofs <= 0) n_done = n_done + 1; else n_late = n_late + 1;
                expect_slow(we, adr, v, ofs <= 0,
                            ofs < 0 ? "acked the clock before the deadline"
                            : ofs == 0 ? "acked in the deadline's clock" : "acked the clock after the deadline");
                check("accesses", acc_n[1] - n0, n_done + n_late);
            end
            @(negedge clk) sl_dead_ofs = 2;
            $display("deadline phase: %0d acks in or before the deadline's clock answered 0x01, %0d a clock after answered 0x00 and retried",
                     n_done, n_late);
            model_take_up(m_mem[adr], n_late);
            rd(1, TW_REG_SPI_ERRORS, errs_word(1));
            settle;
        end
    endtask

    // What a reset clears in both bridges, in the reference models: the
    // saved request and SPI_ERRORS.
    task models_reset;
        begin
            m_ok[0] = 1'b0; m_ok[1] = 1'b0;
            m_ecnt[0] = 0; m_ecnt[1] = 0; m_flag[0] = 0; m_flag[1] = 0;
            m_late[0] = 0; m_late[1] = 0;
        end
    endtask

    // Reset forgets the saved request: the same frame again is executed.
    task t_reset;
        begin
            section = "reset";
            rd_auto = 1'b1;
            wr(1, 6'd20, 32'hCAFE_F00D);
            @(negedge clk) rst = 1'b1;
            repeat (3) @(negedge clk);
            rst = 1'b0;
            // CS_N stays high 4 clocks after a reset (docs/spi.md): the
            // bridge starts a frame only once it has seen it high.
            repeat (4) @(negedge clk);
            models_reset;
            retry(1, 0, 104, 0);
            expect_resp("the same write after reset", 8'h01, 32'hCAFE_F00D);
            rd(1, TW_REG_SPI_ERRORS, 0);
            rd(0, TW_REG_ID, TW_ID_MAGIC);
            rd_auto = 1'b0;
            settle;
        end
    endtask

    // A reset in the middle of a frame with CS_N held low (a button, a lost
    // PLL lock): the bridge counts no bit until it has seen CS_N high, so
    // the rest of the frame is not taken for a request. This read of
    // VERSION is built so that its bits from 16 on form a write of ARM_LO
    // (word 5) with a good CRC: bytes 0-1 are a multiple of the CRC's
    // polynomial, so the remainder of bytes 2-7 alone is zero too.
    task t_reset_midframe;
        reg [7:0] d1, c;
        reg [47:0] req;
        reg [103:0] tx;
        integer i, n0, n1;
        begin
            section = "reset mid-frame";
            settle;
            d1 = crc8_byte(8'h00, 8'h01);                      // 0x01 d1: remainder 0
            c = crc8({8'h01, d1, 24'h89DEAD});
            req = {8'h01, d1, 24'h89DEAD, c};
            c = crc8_byte(crc8_byte(crc8_byte(crc8_byte(crc8_byte(crc8_byte(8'h00, 8'h89), 8'hDE), 8'hAD),
                                     c), 8'h00), 8'h00);
            check("the frame's tail alone is a good request", c, 8'h00);
            tx = {req, 56'd0};
            n0 = acc_n[0]; n1 = acc_n[1];
            @(negedge clk) begin cs_n = 2'b00; sck = 1'b0; end
            repeat (8) @(negedge clk);
            for (i = 0; i < 104; i = i + 1) begin
                if (i == 16) begin
                    rst = 1'b1;
                    repeat (3) @(negedge clk);
                    rst = 1'b0;
                end
                mosi = tx[103 - i];
                repeat (4) @(negedge clk);
                sck = 1'b1;
                repeat (4) @(negedge clk);
                sck = 1'b0;
            end
            repeat (4) @(negedge clk);
            cs_n = 2'b11;
            repeat (40) @(negedge clk);
            check("accesses from the frame's tail (core)", acc_n[0] - n0, 0);
            check("accesses from the frame's tail (bridge)", acc_n[1] - n1, 0);
            // Both came out of reset: the next frame on each is a new request.
            models_reset;
            exp_acc[0] = acc_n[0]; exp_acc[1] = acc_n[1];
            rd(0, TW_REG_ID, TW_ID_MAGIC);
            rd(1, TW_REG_SPI_ERRORS, 0);
            settle;
        end
    endtask

    // ================================================================= main
    initial begin
        #(64'd2_000_000_000);
        msg_err("timeout");
        $display("FAIL tb_tw_spi: %0d errors", errors);
        $finish;
    end

    integer k;
    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("frames=%d", nrand)) ;
        if ($value$plusargs("aborts=%d", naborts)) ;
        if ($test$plusargs("trace")) trace = 1'b1;
        $display("tb_tw_spi: seed=%0d frames=%0d aborts=%0d", seed, nrand, naborts);
        seed_sl = seed ^ 32'h5A5A_1234;
        sl_hist[0] = 0; sl_hist[1] = 0; sl_hist[2] = 0;
        for (k = 0; k < 64; k = k + 1) begin
            sl_mem[k] = $random(seed);
            m_mem[k] = sl_mem[k];
            c_reg[k] = 0;
        end
        for (k = 0; k < 2; k = k + 1) begin
            acc_n[k] = 0; exp_acc[k] = 0;
            acc_we[k] = 0; acc_adr[k] = 0; acc_dat[k] = 0;
            exp_we[k] = 0; exp_adr[k] = 0; exp_dat[k] = 0;
            m_ok[k] = 0; m_last[k] = 0; m_resp[k] = 0; m_known[k] = 1;
            m_ecnt[k] = 0; m_flag[k] = 0; m_late[k] = 0;
            seq[k] = urand(2); h_last[k] = 0;
        end
        repeat (4) @(negedge clk);
        rst = 1'b0;
        repeat (4) @(negedge clk);
        t_crc;
        t_ident;
        t_arm;
        t_events;
        t_errors;
        t_abort;
        t_limit;
        t_random;
        t_slow;
        t_dead_phase;
        t_reset;
        t_reset_midframe;
        section = "end";
        $display("tb_tw_spi: %0d frames (%0d at exactly f_sys/8, %0d slow), smallest MISO setup before a rising edge %0.2f ns (clock %0.1f ns)",
                 n_frames, n_fast_exact, n_slow, min_margin, T);
        $display("tb_tw_spi: target 1's random ack latencies: %0d of 0..4 clocks, %0d of 5..16, %0d of 17..%0d",
                 sl_hist[0], sl_hist[1], sl_hist[2], ACK_MAX);
        if (errors == 0) $display("PASS tb_tw_spi");
        else             $display("FAIL tb_tw_spi: %0d errors", errors);
        $finish;
    end
endmodule
`default_nettype wire
