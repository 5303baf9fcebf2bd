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
    // Safety properties in the style of wbuart32. They hold by induction:
    //   yosys -p "read_verilog -formal -DFORMAL -Irtl rtl/tw_spi.v; prep -top tw_spi;
    //             async2sync; dffunmap; sat -tempinduct -prove-asserts -set-assumes -set-init-zero"
    // (no sby flow in the repository yet).
    reg f_past_valid;
    initial f_past_valid = 1'b0;
    always @(posedge i_clk)
        f_past_valid <= 1'b1;

    // The run starts in reset; the slave acks only an outstanding request.
    always @(*)
        if (!f_past_valid)
            assume(i_rst);
    always @(*)
        if (!o_wb_cyc)
            assume(!i_wb_ack);

    always @(*) if (f_past_valid) begin
        assert(!o_wb_stb || o_wb_cyc);
        // the bridge's own register never reaches the bus
        assert(!o_wb_cyc || o_wb_adr != TW_REG_SPI_ERRORS);
        assert(bit_q <= FRAME_END);
    end

    always @(posedge i_clk)
        if (f_past_valid) begin
            if ($past(i_rst))
                assert(!o_wb_cyc);
            else if ($past(o_wb_stb) && !$past(i_wb_ack)) begin
                // classic: a request is held, unchanged, until it is acked
                assert(o_wb_stb);
                assert(o_wb_we == $past(o_wb_we));
                assert(o_wb_adr == $past(o_wb_adr));
                assert(o_wb_dat == $past(o_wb_dat));
            end else if ($past(o_wb_stb))
                // one access per request: no new one in the cycle after an ack
                assert(!o_wb_stb);
            // an access starts only when a request's CRC byte has arrived
            if (!$past(i_rst) && o_wb_cyc && !$past(o_wb_cyc))
                assert($past(check));
            // MISO moves only after a falling edge of SCK, or to 0 with CS_N high
            if (!$past(i_rst) && o_miso != $past(o_miso))
                assert($past(sck_fall) || (!$past(sel) && !o_miso));
        end
`endif
endmodule
`default_nettype wire
