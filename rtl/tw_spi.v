`default_nettype none
// tw_spi: SPI mode-0 slave that bridges to a Wishbone B4 classic master, so a
// host on four SPI wires sees the chip's register map (docs/spi.md).
//
// Frame: 13 bytes (104 bits) with CS_N low, MSB first. The host sends
// {cmd, data[31:0], crc} in bytes 0-5, byte 6 is the turnaround in which the
// bridge performs the access, and the bridge answers {status, data[31:0], crc}
// in bytes 7-12. cmd = {write, sequence bit, word address[5:0]}.
//
// Clocking: one clock domain. SCK, MOSI and CS_N pass through two-flop
// synchronisers of equal length, so their relative order is kept to within
// one clock; MOSI is taken on the synchronised rising edge of SCK. MISO is a
// flop updated on the synchronised falling edge: it moves 2-3 clocks after
// the pin's falling edge, which leaves at least one clock of setup before the
// host's rising edge as long as SCK stays at or below f_sys / 8. CS_N high
// clears MISO just as late: a complete frame has already returned it to 0,
// but after an aborted one the host leaves 4 clocks from CS_N rising to the
// next frame's first rising edge, or byte 0 may start with a stale bit.
//
// Integrity: CRC-8/SMBUS (poly 0x07, init 0) runs bit-serially over bytes 0-5
// as they arrive; a correct request leaves a remainder of zero. The same
// register then runs over the response's bytes 7-11 as they leave and is
// shifted out as byte 12. A bad request is never executed (status 0x02).
//
// Retries: the bridge keeps the last executed request (all 40 bits, so the
// sequence bit too) and its response. A request equal to it is a repeat:
// status 0x03 and the saved data, without a second bus access. A request that
// was aborted (CS_N high) or rejected before its byte 5 ended was never
// executed and leaves the saved one alone; one aborted after that was
// executed, and the host's unchanged retry gets the saved answer.
//
// Status 0x00 (not in docs/spi.md, never seen with tw_core, which acks in one
// clock): the bus did not ack before the response had to start, or a request
// came while an earlier access was still outstanding (that request is not
// executed). The host treats an unknown status as a corrupted response and
// repeats the frame unchanged, which then gets 0x03 or is executed afresh.
//
// Word address 63 (SPI_ERRORS) is answered here and never reaches the bus:
// bits 15:0 count rejected requests (wrapping), bit 31 is a sticky flag that
// a write with bit 31 set clears.
module tw_spi (
    input  wire        i_clk,
    input  wire        i_rst,          // synchronous, active high
    // SPI mode 0 slave (asynchronous inputs)
    input  wire        i_sck,
    input  wire        i_cs_n,
    input  wire        i_mosi,
    output reg         o_miso,
    // Wishbone B4 classic master, 32-bit port, word addresses, no byte select
    output reg         o_wb_cyc,
    output wire        o_wb_stb,
    output wire        o_wb_we,
    output wire [5:0]  o_wb_adr,
    output wire [31:0] o_wb_dat,
    input  wire        i_wb_ack,
    input  wire [31:0] i_wb_dat
);
`include "tw_regs.vh"

    // Bit positions within the frame, counted in SCK rising edges.
    localparam [6:0] REQ_END   = 7'd40;    // bytes 0-4: cmd and data
    localparam [6:0] CRC_LAST  = 7'd47;    // last bit of the request's CRC byte
    localparam [6:0] RESP_BEG  = 7'd56;    // first bit of byte 7 (status)
    localparam [6:0] RCRC_BEG  = 7'd96;    // first bit of byte 12 (response CRC)
    localparam [6:0] FRAME_END = 7'd104;   // 13 bytes

    localparam [1:0] ST_BUSY = 2'd0, ST_DONE = 2'd1, ST_BADCRC = 2'd2, ST_REPEAT = 2'd3;

    function [7:0] crc8_step;              // CRC-8, poly x^8+x^2+x+1, MSB first
        input [7:0] c;
        input       b;
        begin
            crc8_step = {c[6:0], 1'b0} ^ ((c[7] ^ b) ? 8'h07 : 8'h00);
        end
    endfunction

    // ------------------------------------------------------ synchronisers
    // Two flops each; sck_q[2] is history for edge detection. CS_N resets to
    // "deselected" so a frame never starts out of reset.
    reg [2:0] sck_q;
    reg [1:0] cs_n_q, mosi_q;
    always @(posedge i_clk) begin
        if (i_rst) begin
            sck_q  <= 3'b000;
            cs_n_q <= 2'b11;
            mosi_q <= 2'b00;
        end else begin
            sck_q  <= {sck_q[1:0], i_sck};
            cs_n_q <= {cs_n_q[0], i_cs_n};
            mosi_q <= {mosi_q[0], i_mosi};
        end
    end
    wire sel      = !cs_n_q[1];
    wire mosi     = mosi_q[1];
    wire sck_rise = sel && sck_q[1] && !sck_q[2];
    wire sck_fall = sel && !sck_q[1] && sck_q[2];

    // -------------------------------------------------------------- state
    reg [6:0]  bit_q;         // rising edges seen in this frame, stops at FRAME_END
    reg [39:0] req_q;         // bytes 0-4 as they arrive
    reg [7:0]  crc_q;         // request CRC remainder, then the response CRC
    reg [1:0]  st_q;          // this frame's status
    reg [39:0] last_q;        // last executed request; also drives the bus
    reg        last_ok_q;     // last_q holds a request (not after reset)
    reg [31:0] resp_q;        // its read data (a write's echo is last_q's data)
    reg [15:0] err_cnt_q;
    reg        err_flag_q;

    wire        req_we  = req_q[39];
    wire [5:0]  req_adr = req_q[37:32];
    wire [31:0] req_dat = req_q[31:0];
    wire        req_crc_ok = crc8_step(crc_q, mosi) == 8'h00;
    wire        check = sck_rise && bit_q == CRC_LAST;   // the request is complete

    // The bus access always carries the saved request: it cannot change while
    // the access is outstanding, since a request that finds the bus busy is
    // not executed.
    assign o_wb_stb = o_wb_cyc;
    assign o_wb_we  = last_q[39];
    assign o_wb_adr = last_q[37:32];
    assign o_wb_dat = last_q[31:0];

    // Response bytes 7-11, bit tx_idx of {status, data}. Statuses 0x01 and
    // 0x03 carry the saved data, 0x00 and 0x02 zeros: the data is shown
    // exactly when st_q[0] is set. Gating the selected bit rather than the
    // word, and echoing a write from the saved request rather than copying
    // it, keeps the mux small.
    wire [5:0]  tx_idx    = 6'd31 - bit_q[5:0];          // (95 - bit_q) mod 64: 39 .. 0 over bits 56 .. 95
    wire [31:0] resp_data = last_q[39] ? last_q[31:0] : resp_q;
    wire        tx_bit    = tx_idx[5] ? tx_idx[2:1] == 2'b00 && st_q[tx_idx[0]]
                                      : st_q[0] && resp_data[tx_idx[4:0]];

    always @(posedge i_clk) begin
        if (i_rst) begin
            bit_q      <= 0;
            req_q      <= 0;
            crc_q      <= 0;
            st_q       <= ST_BUSY;
            last_q     <= 0;
            last_ok_q  <= 1'b0;
            resp_q     <= 0;
            err_cnt_q  <= 0;
            err_flag_q <= 1'b0;
            o_miso     <= 1'b0;
            o_wb_cyc   <= 1'b0;
        end else begin
            // The access completes whatever happens to the frame meanwhile.
            if (o_wb_cyc && i_wb_ack) begin
                o_wb_cyc <= 1'b0;
                if (!o_wb_we)
                    resp_q <= i_wb_dat;
            end

            if (!sel) begin
                // CS_N high ends or aborts the frame.
                bit_q  <= 0;
                crc_q  <= 0;
                o_miso <= 1'b0;
            end else if (sck_rise && bit_q != FRAME_END) begin
                // Bits past the 13th byte are ignored until CS_N rises.
                bit_q <= bit_q + 1'b1;
                if (bit_q < REQ_END)
                    req_q <= {req_q[38:0], mosi};
                if (check) begin
                    crc_q <= 8'h00;                      // now for the response
                    if (!req_crc_ok) begin
                        st_q       <= ST_BADCRC;
                        err_cnt_q  <= err_cnt_q + 1'b1;
                        err_flag_q <= 1'b1;
                    end else if (o_wb_cyc) begin
                        st_q <= ST_BUSY;                 // not executed, not saved
                    end else if (last_ok_q && req_q == last_q) begin
                        st_q <= ST_REPEAT;
                    end else begin
                        st_q      <= ST_DONE;
                        last_q    <= req_q;
                        last_ok_q <= 1'b1;
                        if (req_adr == TW_REG_SPI_ERRORS) begin
                            if (!req_we)
                                resp_q <= {err_flag_q, 15'd0, err_cnt_q};
                            else if (req_dat[TW_SPI_ERRORS_FLAG_LSB])
                                err_flag_q <= 1'b0;
                        end else begin
                            o_wb_cyc <= 1'b1;
                        end
                    end
                end else if (bit_q < CRC_LAST) begin
                    crc_q <= crc8_step(crc_q, mosi);
                end
            end else if (sck_fall) begin
                // Too late for this frame if the bus has not acked by now
                // (the status bits leave at bits 62-63, the data after them).
                if (bit_q == RESP_BEG && st_q == ST_DONE && o_wb_cyc && !i_wb_ack)
                    st_q <= ST_BUSY;
                if (bit_q >= RESP_BEG && bit_q < RCRC_BEG) begin
                    o_miso <= tx_bit;
                    crc_q  <= crc8_step(crc_q, tx_bit);
                end else if (bit_q >= RCRC_BEG && bit_q < FRAME_END) begin
                    o_miso <= crc_q[7];
                    crc_q  <= {crc_q[6:0], 1'b0};
                end else begin
                    o_miso <= 1'b0;
                end
            end
        end
    end

`ifdef FORMAL
    // Proved by tests/formal/run.sh (docs/verification.md): k-induction over
    // every reachable state, and covers. Assumed: the run starts in reset and
    // the bus slave acks only while a request is outstanding.
    //
    // With TW_SPI_F_WITNESS=N cover N becomes a failing assertion and the
    // proved properties are left out: a BMC run at the cover's step then
    // finds its trace far sooner than cover mode, which first proves every
    // earlier step unreachable (a frame is over a hundred clocks long). The
    // trace is one of the bridge as it is, driven as below.
`ifdef TW_SPI_F_WITNESS
`define TW_SPI_ASSERT(c) assume(1'b1 || (c))
`else
`define TW_SPI_ASSERT(c) assert(c)
`endif
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;
    always @(*)
        if (!f_past_valid)
            assume(i_rst);
    always @(*)
        if (!o_wb_cyc)
            assume(!i_wb_ack);
`ifdef TW_SPI_F_WITNESS
    // Witness runs only, a host as fast as the bridge allows: SCK toggles on
    // every clock (a bit every two clocks, an edge every clock through the
    // synchronisers), and CS_N stays low until the request's last byte is
    // under way (then it may rise to end the frame and start the next).
    // These only narrow the inputs, so a trace found here is a trace of the
    // unchanged bridge; they spare the solver every slower pattern.
    always @(posedge i_clk)
        if (f_past_valid)
            assume(i_sck != $past(i_sck));
    always @(*)
        if (f_past_valid)
            assume(!i_cs_n || bit_q >= CRC_LAST);
`endif

    // ---- Wishbone B4 classic master
    always @(*) if (f_past_valid) begin
        `TW_SPI_ASSERT(!o_wb_stb || o_wb_cyc);
        // the bridge's own register never reaches the bus
        `TW_SPI_ASSERT(!o_wb_cyc || o_wb_adr != TW_REG_SPI_ERRORS);
        `TW_SPI_ASSERT(!o_wb_cyc || last_ok_q);
        `TW_SPI_ASSERT(bit_q <= FRAME_END);
    end
    always @(posedge i_clk)
        if (f_past_valid) begin
            if ($past(i_rst))
                `TW_SPI_ASSERT(!o_wb_cyc);
            else if ($past(o_wb_stb) && !$past(i_wb_ack)) begin
                // a request is held, unchanged, until it is acked
                `TW_SPI_ASSERT(o_wb_stb);
                `TW_SPI_ASSERT(o_wb_we == $past(o_wb_we));
                `TW_SPI_ASSERT(o_wb_adr == $past(o_wb_adr));
                `TW_SPI_ASSERT(o_wb_dat == $past(o_wb_dat));
            end else if ($past(o_wb_stb))
                // one access per request: no new one in the cycle after an ack
                `TW_SPI_ASSERT(!o_wb_stb);
            // MISO moves only after a falling edge of SCK, or to 0 with CS_N high
            if (!$past(i_rst) && o_miso != $past(o_miso))
                `TW_SPI_ASSERT($past(sck_fall) || (!$past(sel) && !o_miso));
        end

    // ---- The frame as the host sent it: a shadow of the 48 request bits
    // (bytes 0-5), shifted in on the same edges the bridge counts.
    reg [47:0] f_frame;
    always @(posedge i_clk)
        if (sck_rise && bit_q <= CRC_LAST)
            f_frame <= {f_frame[46:0], mosi};

    // Reference CRC: the CRC-8 remainder of the bits received in this frame,
    // restarted whenever CS_N is high. A request is good when the remainder
    // of all 48 bits is zero (CRC-8 of bytes 0-4 equals byte 5).
    reg [7:0] f_crc;
    always @(posedge i_clk)
        if (i_rst || !sel)
            f_crc <= 8'h00;
        else if (sck_rise && bit_q <= CRC_LAST)
            f_crc <= crc8_step(f_crc, mosi);
    wire [47:0] f_frame_next = {f_frame[46:0], mosi};   // at `check`: all 48 bits
    wire [39:0] f_req_next   = f_frame_next[47:8];
    wire        f_good       = crc8_step(f_crc, mosi) == 8'h00;
    wire [6:0]  f_req_bits   = bit_q < REQ_END ? bit_q : REQ_END;
    wire [39:0] f_req_mask   = ~(40'hFF_FFFF_FFFF << f_req_bits);
    wire [47:0] f_req_seen   = f_frame >> (bit_q - f_req_bits);  // request bits among those seen
    always @(*) if (f_past_valid && !i_rst && bit_q <= CRC_LAST) begin
        `TW_SPI_ASSERT(crc_q == f_crc);
        `TW_SPI_ASSERT((req_q & f_req_mask) == (f_req_seen[39:0] & f_req_mask));
    end

    // ---- Frame handling. At the request's last bit (`check`):
    reg f_check, f_good_q, f_repeat_q, f_busy_q;
    reg [39:0] f_last_before, f_req_q;
    reg [15:0] f_err_cnt_before;
    always @(posedge i_clk) begin
        f_req_q          <= f_req_next;
        f_check          <= !i_rst && check;
        f_good_q         <= f_good;
        f_repeat_q       <= last_ok_q && f_req_next == last_q;
        f_busy_q         <= o_wb_cyc;
        f_last_before    <= last_q;
        f_err_cnt_before <= err_cnt_q;
    end
    always @(*) if (f_past_valid && f_check) begin
        // bad CRC: never executed, flagged and counted, saved request kept
        if (!f_good_q) begin
            `TW_SPI_ASSERT(st_q == ST_BADCRC);
            `TW_SPI_ASSERT(err_flag_q && err_cnt_q == f_err_cnt_before + 1'b1);
            `TW_SPI_ASSERT(last_q == f_last_before);
        end
        // good CRC with the bus busy: not executed, not saved
        if (f_good_q && f_busy_q)
            `TW_SPI_ASSERT(st_q == ST_BUSY && last_q == f_last_before);
        // a repeat of the last executed request: answered, never re-executed
        if (f_good_q && !f_busy_q && f_repeat_q)
            `TW_SPI_ASSERT(st_q == ST_REPEAT && last_q == f_last_before && !(o_wb_cyc && !f_busy_q));
        // a new request: executed exactly as the host sent it
        if (f_good_q && !f_busy_q && !f_repeat_q)
            `TW_SPI_ASSERT(st_q == ST_DONE && last_q == f_req_q && last_ok_q);
    end
    // An access starts, or the saved request changes, only at a good new request.
    always @(posedge i_clk)
        if (f_past_valid && !$past(i_rst)) begin
            if (o_wb_cyc && !$past(o_wb_cyc))
                `TW_SPI_ASSERT($past(check) && $past(f_good));
            if (last_q != $past(last_q))
                `TW_SPI_ASSERT($past(check) && $past(f_good));
        end

    // ---- Responses. f_saved: what the bus answered for the last executed
    // access (a write's response echoes the value written).
    reg [31:0] f_saved;
    always @(posedge i_clk)
        if (o_wb_cyc && i_wb_ack)
            f_saved <= o_wb_we ? o_wb_dat : i_wb_dat;
    wire f_last_bus = last_ok_q && last_q[37:32] != TW_REG_SPI_ERRORS;
    // Past the status byte's first bit, a done or repeated frame's access has completed.
    wire f_resp_started = bit_q > RESP_BEG || (bit_q == RESP_BEG && !sck_q[2]);
    always @(*) if (f_past_valid && !i_rst) begin
        if (f_last_bus && !o_wb_cyc)
            `TW_SPI_ASSERT(resp_data == f_saved);
        if (st_q != ST_BUSY && bit_q > CRC_LAST)
            `TW_SPI_ASSERT(last_ok_q || st_q == ST_BADCRC);
        if (st_q[0] && f_resp_started)
            `TW_SPI_ASSERT(!o_wb_cyc);
        if (st_q == ST_REPEAT && bit_q > CRC_LAST)
            `TW_SPI_ASSERT(!o_wb_cyc);
    end
    // MISO in bytes 8-11: the saved response for statuses 0x01 and 0x03 (a
    // repeat gets what the original access returned), zeros otherwise.
    reg f_data_bit, f_data_shown, f_data_saved, f_data_expect;
    always @(posedge i_clk) begin
        f_data_bit    <= !i_rst && sck_fall && bit_q >= 7'd64 && bit_q < RCRC_BEG;
        f_data_shown  <= st_q[0];
        f_data_saved  <= f_last_bus;
        f_data_expect <= f_saved[7'd95 - bit_q];
    end
    always @(*)
        if (f_past_valid && f_data_bit) begin
            if (!f_data_shown)
                `TW_SPI_ASSERT(!o_miso);
            else if (f_data_saved)
                `TW_SPI_ASSERT(o_miso == f_data_expect);
        end

    // ---- Not vacuous: a bad request rejected, a good one executed, and
    // a repeat answered (that needs a second frame: past 200 clocks).
    wire f_cover_bad    = f_check && !f_good_q;
    wire f_cover_exec   = f_check && f_good_q && !f_busy_q && !f_repeat_q && o_wb_cyc;
    wire f_cover_repeat = f_check && f_good_q && !f_busy_q && f_repeat_q;
`ifdef TW_SPI_F_WITNESS
    always @(*) if (f_past_valid && !i_rst)
        case (`TW_SPI_F_WITNESS)
            1: assert(!f_cover_bad);
            2: assert(!f_cover_exec);
            default: assert(!f_cover_repeat);
        endcase
`else
    always @(*) if (f_past_valid && !i_rst) begin
        cover(f_cover_bad);
        cover(f_cover_exec);
        cover(f_cover_repeat);
    end
`endif
`undef TW_SPI_ASSERT
`endif
endmodule
`default_nettype wire
