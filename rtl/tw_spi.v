`default_nettype none
// tw_spi: SPI mode-0 slave that bridges to a Wishbone B4 classic master, so a
// host on four SPI wires sees the chip's register map (docs/spi.md).
//
// Frame: 13 bytes (104 bits) with CS_N low, MSB first. The host sends
// {cmd, data[31:0], crc} in bytes 0-5, byte 6 is the turnaround in which the
// bridge performs the access, and the bridge answers {status, data[31:0], crc}
// in bytes 7-12. cmd = {write, sequence bit, word address[5:0]}.
//
// Bus latency: the access starts at the request's last bit (bit 47) and the
// bridge decides whether it was answered in time as late as the frame
// allows, at the rising edge of bit 62: status bits 7-1 are 0 whatever the
// answer, so only bit 0 (bit 63) and the data depend on it. That is 15 SCK
// periods, at least 120 clocks at SCK = f_sys / 8: a slave that acks
// within ACK_MAX clocks of the request (0: in the same clock; tw_core: at
// most 19) is never late while ACK_MAX <= 118 (one clock of margin for the
// synchronisers), which elaboration checks and the formal proof
// spi-deadline proves.
// docs/spi.md gives the limit for slower SCK ratios.
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
// Status 0x00, "late" (docs/spi.md): the bus had not acked by bit 62, or a
// request came while an earlier access was still outstanding (that request
// is not executed and not saved). A late access still completes, once, and
// is saved: the host repeats the frame unchanged, which gets 0x03 with its
// answer once the ack has come, and never a second access.
//
// Word address 63 (SPI_ERRORS) is answered here and never reaches the bus:
// bits 15:0 count rejected requests, bits 23:16 late frames (both wrapping),
// bit 31 is a sticky flag that a write with bit 31 set clears.
//
// Area: the request shift register also sends the response. After the
// request is checked it holds the request, which for a write is the echo;
// a read's answer is loaded into its data bits at bit 63; then they shift
// out MSB first, as the request came in. No multiplexer picks the bit.
module tw_spi #(
    // Slowest bus slave served at SCK = f_sys / 8, in clocks from the
    // request's first clock to its ack (see above); 19 is tw_core's bound,
    // proved by its core-ind (F_ACK_MAX).
    parameter integer ACK_MAX = 19
) (
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
    localparam [6:0] CRC_LAST  = 7'd47;    // last bit of the request's CRC byte
    localparam [6:0] DEADLINE  = 7'd62;    // at its rising edge the bus must have acked
    localparam [6:0] DATA_LOAD = 7'd63;    // status bit 0 leaves; a read's answer is loaded
    localparam [6:0] FRAME_END = 7'd104;   // 13 bytes

    localparam [1:0] ST_LATE = 2'd0, ST_DONE = 2'd1, ST_BADCRC = 2'd2, ST_REPEAT = 2'd3;

    // Issue (bit 47) to deadline (bit 62): 15 SCK periods, 120 clocks at
    // f_sys / 8, one of them kept as margin for where the synchronisers
    // catch the two edges; the ack is seen the clock after its cycle.
    localparam integer ACK_LIMIT = 15 * 8 - 2;
    generate
        if (ACK_MAX < 0 || ACK_MAX > ACK_LIMIT) begin : g_ack_max_too_large
            // Elaboration fails here: such a slave needs SCK below f_sys / 8.
            tw_spi_ACK_MAX_exceeds_the_deadline_at_f_sys_8 u_stop ();
        end
    endgenerate

    function [7:0] crc8_step;              // CRC-8, poly x^8+x^2+x+1, MSB first
        input [7:0] c;
        input       b;
        begin
            crc8_step = {c[6:0], 1'b0} ^ ((c[7] ^ b) ? 8'h07 : 8'h00);
        end
    endfunction

    // ------------------------------------------------------ synchronisers
    // Two flops each. A frame starts only where CS_N falls: out of reset
    // the bridge is deselected until it has seen CS_N high, so a reset in
    // the middle of a frame (a button, a lost PLL lock) never joins that
    // frame part way through, where its later bits could pass for a whole
    // request. The second flop is held high (deselected) until then, so
    // that `sel` stays a flop of its own, as the frame logic's timing wants.
    // The SCK edges are flops too, decoded from the synchronisers' next
    // state, so they come at the same clock as a decode of a third SCK
    // flop would: they are the strobes of all the frame logic, and a decode
    // added a LUT and its routing to each of its paths (half of the HX8K
    // builds' longest paths ran from the SCK flops, docs/fpga.md).
    reg [1:0] sck_q, cs_n_q, mosi_q;
    reg       cs_high_seen_q;
    reg       sck_rise_q, sck_fall_q;
    wire      sel_next = !cs_n_q[0] && cs_high_seen_q;
    always @(posedge i_clk) begin
        if (i_rst) begin
            sck_q  <= 2'b00;
            cs_n_q <= 2'b10;               // [0]: not yet seen high
            mosi_q <= 2'b00;
            cs_high_seen_q <= 1'b0;
            sck_rise_q <= 1'b0;
            sck_fall_q <= 1'b0;
        end else begin
            sck_q  <= {sck_q[0], i_sck};
            cs_n_q <= {!sel_next, i_cs_n};
            mosi_q <= {mosi_q[0], i_mosi};
            if (cs_n_q[0])
                cs_high_seen_q <= 1'b1;
            sck_rise_q <= sel_next && sck_q[0] && !sck_q[1];
            sck_fall_q <= sel_next && !sck_q[0] && sck_q[1];
        end
    end
    wire sel      = !cs_n_q[1];
    wire mosi     = mosi_q[1];

    // -------------------------------------------------------------- state
    reg [6:0]  bit_q;         // rising edges seen in this frame, stops at FRAME_END
    reg [39:0] req_q;         // bytes 0-4 as they arrive
    reg [7:0]  crc_q;         // request CRC remainder, then the response CRC
    reg [1:0]  st_q;          // this frame's status
    reg [39:0] last_q;        // last executed request; also drives the bus
    reg        last_ok_q;     // last_q holds a request (not after reset)
    reg [31:0] resp_q;        // its read data (a write's echo is last_q's data)
    reg [15:0] err_cnt_q;
    reg [7:0]  late_cnt_q;
    reg        err_flag_q;

    wire        req_we  = req_q[39];

    // Where bit_q (0..FRAME_END) is, decoded into flops as bit_q moves, so
    // that no frame decision or wide enable waits for a decode of the
    // counter. Decoded from its bits: a comparison with a constant would
    // cost a carry chain each. Bytes 7-12 (the response) start at bit 56,
    // byte 8 (data) at 64 and byte 12 (its CRC) at 96.
    localparam integer P_REQ = 0, P_CRC = 1, P_CHECK = 2, P_RESP = 3, P_DEAD = 4,
                       P_LOAD = 5, P_DATA = 6, P_RCRC = 7, P_END = 8;
    function [8:0] pos_decode;
        input [6:0] b;
        begin
            pos_decode[P_REQ]   = !b[6] && !(b[5] && (b[4] || b[3]));    // < 40: cmd, data
            pos_decode[P_CRC]   = !b[6] && !(b[5] && b[4]);               // < 48: the whole request
            pos_decode[P_CHECK] = b == CRC_LAST;
            pos_decode[P_RESP]  = (b[6] || &b[5:3]) && b != FRAME_END;    // 56 .. 103: bytes 7-12
            pos_decode[P_DEAD]  = b == DEADLINE;
            pos_decode[P_LOAD]  = b == DATA_LOAD;
            pos_decode[P_DATA]  = b[6] && !b[5];                          // 64 .. 95: bytes 8-11
            pos_decode[P_RCRC]  = b[6] && b[5];                           // 96 .. 104: byte 12
            pos_decode[P_END]   = b == FRAME_END;
        end
    endfunction
    reg  [8:0] pos_q;         // pos_decode(bit_q), always
    wire in_req   = pos_q[P_REQ];
    wire in_crc   = pos_q[P_CRC];
    wire in_resp  = pos_q[P_RESP];
    wire in_data  = pos_q[P_DATA];
    wire in_rcrc  = pos_q[P_RCRC];
    // CS_N high ends or aborts the frame; bits past the 13th byte are
    // ignored until CS_N rises.
    wire [6:0] bit_next = !sel ? 7'd0
                        : sck_rise_q && !pos_q[P_END] ? bit_q + 1'b1 : bit_q;

    wire        check = sck_rise_q && pos_q[P_CHECK];   // the request is complete

    // The request's CRC is good when stepping the remainder with its last
    // bit leaves zero: remainder bits 6:0 zero and bit 7 equal to that bit.
    // Bits 6:0 are tested into a flop the clock before: the remainder moves
    // only at an SCK edge or CS_N high, and neither comes in the clock
    // before `check` (a rising edge never follows one, a falling edge at
    // bit 47 leaves it, CS_N high clears bit_q).
    reg         crc_low_zero_q;
    wire        req_crc_ok = crc_low_zero_q && crc_q[7] == mosi;

    // What a good request would do, compared into flops while it waits
    // for its CRC byte: the request is whole from bit 40's rising edge and
    // the saved one changes only at `check`, 7 rising edges (14 SCK edges,
    // as many clocks at the least) later, so these are current there. They
    // leave the 40-bit comparison and the address decode out of the logic
    // that decides the frame.
    // The 40-bit comparison takes two clocks, a byte at a time and then
    // the five bytes: they have seven SCK periods (56 clocks at f_sys / 8,
    // 14 at the fastest edges the synchronisers can tell apart).
    reg  [4:0]  req_eq_q;     // byte i of the request equals byte i of the saved one
    reg         rep_q;        // a repeat of the saved request
    reg         go_bus_q;     // new, and for the bus (not SPI_ERRORS)
    reg         go_errrd_q;   // new, and a read of SPI_ERRORS
    reg         go_errclr_q;  // new, and a write of SPI_ERRORS that clears its flag
    wire        req_rep = last_ok_q && &req_eq_q;
    wire        req_err_adr = req_q[37:32] == TW_REG_SPI_ERRORS;
    integer     eq_byte;
    always @(posedge i_clk) begin
        for (eq_byte = 0; eq_byte < 5; eq_byte = eq_byte + 1)
            req_eq_q[eq_byte] <= req_q[8*eq_byte +: 8] == last_q[8*eq_byte +: 8];
        crc_low_zero_q <= crc_q[6:0] == 7'd0;
        rep_q          <= req_rep;
        go_bus_q       <= !req_rep && !req_err_adr;
        go_errrd_q     <= !req_rep && req_err_adr && !req_we;
        go_errclr_q    <= !req_rep && req_err_adr && req_we && req_q[TW_SPI_ERRORS_FLAG_LSB];
    end
    wire        is_repeat = rep_q;
    // A new good read of SPI_ERRORS: answered here, the clock after
    // `check` (no SCK edge, so no count, can change in between).
    wire        err_read = check && req_crc_ok && !o_wb_cyc && go_errrd_q;
    reg         err_read_q;
    // A good request that finds the bus busy, or an access not acked by
    // the deadline: status 0x00. The late count follows a clock later:
    // SPI_ERRORS is read only the clock after a `check` that found the bus
    // free, never the clock after a late frame.
    wire        late_dead = sck_rise_q && pos_q[P_DEAD] && st_q[0] && o_wb_cyc && !i_wb_ack;
    wire        late  = check ? req_crc_ok && o_wb_cyc : late_dead;
    reg         late_q;

    // The bus access always carries the saved request: it cannot change while
    // the access is outstanding, since a request that finds the bus busy is
    // not executed.
    assign o_wb_stb = o_wb_cyc;
    assign o_wb_we  = last_q[39];
    assign o_wb_adr = last_q[37:32];
    assign o_wb_dat = last_q[31:0];

    // The bit sent after a falling edge, bits 56-103: the status byte (only
    // its bits 1:0, at bits 62-63, can be set), the data from req_q[31]
    // (statuses 0x01 and 0x03 carry data, 0x00 and 0x02 zeros: exactly when
    // st_q[0] is set), then the CRC. Stepping the CRC with its own top bit
    // shifts it out.
    wire        tx_bit = in_rcrc ? crc_q[7]
                       : in_data ? st_q[0] && req_q[31]
                       : (pos_q[P_DEAD] && st_q[1]) || (pos_q[P_LOAD] && st_q[0]);

    // The request register: shifted left at a rising edge in bytes 0-4 (the
    // request comes in) and at a falling edge in bytes 8-11 (the data goes
    // out); a read's answer is loaded at bit 63's falling edge (a write's
    // echo is there already). One enable and one select for all 32 bits.
    wire        req_shift_in  = sck_rise_q && in_req;
    wire        req_load      = sck_fall_q && pos_q[P_LOAD] && !req_we;
    wire        req_shift_out = sck_fall_q && in_data;

    always @(posedge i_clk) begin
        if (i_rst) begin
            bit_q      <= 0;
            pos_q      <= pos_decode(7'd0);
            req_q      <= 0;
            crc_q      <= 0;
            st_q       <= ST_LATE;
            last_q     <= 0;
            last_ok_q  <= 1'b0;
            resp_q     <= 0;
            err_cnt_q  <= 0;
            late_cnt_q <= 0;
            late_q     <= 1'b0;
            err_read_q <= 1'b0;
            err_flag_q <= 1'b0;
            o_miso     <= 1'b0;
            o_wb_cyc   <= 1'b0;
        end else begin
            bit_q <= bit_next;
            pos_q <= pos_decode(bit_next);
            // The access completes whatever happens to the frame meanwhile.
            if (o_wb_cyc && i_wb_ack)
                o_wb_cyc <= 1'b0;
            // The answer to save: the bus's, or SPI_ERRORS. The bus's read
            // data is taken in every clock of the access, so the last one
            // taken is the ack's (a write's is never shown: its echo is
            // last_q's data); the ack itself is in no enable.
            err_read_q <= err_read;
            if (o_wb_cyc)
                resp_q <= i_wb_dat;
            else if (err_read_q)
                resp_q <= {err_flag_q, 7'd0, late_cnt_q, err_cnt_q};

            if (req_shift_in || req_load || req_shift_out)
                req_q[31:0] <= req_load ? resp_q : {req_q[30:0], req_shift_in && mosi};
            if (req_shift_in)
                req_q[39:32] <= req_q[38:31];

            late_q <= late;
            if (late_q)
                late_cnt_q <= late_cnt_q + 1'b1;
            if (late)
                st_q <= ST_LATE;                         // at check: not executed, not saved

            if (check) begin
                if (!req_crc_ok) begin
                    st_q       <= ST_BADCRC;
                    err_cnt_q  <= err_cnt_q + 1'b1;
                    err_flag_q <= 1'b1;
                end else if (o_wb_cyc) begin
                    // the bus is busy: `late` above, nothing else
                end else begin
                    st_q      <= is_repeat ? ST_REPEAT : ST_DONE;
                    // a repeat is the saved request already
                    last_q    <= req_q;
                    last_ok_q <= 1'b1;
                    if (go_errclr_q)
                        err_flag_q <= 1'b0;
                    if (go_bus_q)
                        o_wb_cyc <= 1'b1;
                end
            end

            if (!sel || check)
                crc_q <= 8'h00;                          // a new frame; now for the response
            else if (sck_rise_q && in_crc)
                crc_q <= crc8_step(crc_q, mosi);
            else if (sck_fall_q && in_resp)
                crc_q <= crc8_step(crc_q, tx_bit);

            if (!sel)
                o_miso <= 1'b0;
            else if (sck_fall_q)
                o_miso <= in_resp && tx_bit;
        end
    end

`ifdef FORMAL
    // Proved by tests/formal/run.sh (docs/verification.md): k-induction over
    // every reachable state, and covers. Assumed: the run starts in reset and
    // the bus slave acks only while a request is outstanding, after any
    // number of clocks or never. With TW_SPI_F_DEADLINE, also assumed: it
    // acks within ACK_MAX clocks, and SCK edges are at least 4 clocks apart
    // (SCK <= f_sys / 8); then no frame is late.
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
    localparam [6:0] F_REQ_END = 7'd40;    // bytes 0-4: cmd and data
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
    // The synchronised SCK a clock ago: the edge flops are its edges.
    reg f_sck_prev;
    always @(posedge i_clk)
        f_sck_prev <= !i_rst && sck_q[1];
`ifdef TW_SPI_F_WITNESS
    // Witness runs only, a host as fast as the bridge allows: SCK toggles on
    // every clock (a bit every two clocks, an edge every clock through the
    // synchronisers), and CS_N stays low until the request's last byte is
    // under way (then it may rise to end the frame and start the next),
    // once the bridge has seen it high after reset. These only narrow the
    // inputs, so a trace found here is a trace of the unchanged bridge;
    // they spare the solver every slower pattern.
    always @(posedge i_clk)
        if (f_past_valid)
            assume(i_sck != $past(i_sck));
    always @(*)
        if (f_past_valid && cs_high_seen_q)
            assume(!i_cs_n || bit_q >= CRC_LAST);
`endif

    // ---- Wishbone B4 classic master
    always @(*) if (f_past_valid) begin
        `TW_SPI_ASSERT(!o_wb_stb || o_wb_cyc);
        // the bridge's own register never reaches the bus
        `TW_SPI_ASSERT(!o_wb_cyc || o_wb_adr != TW_REG_SPI_ERRORS);
        `TW_SPI_ASSERT(!o_wb_cyc || last_ok_q);
        // out of reset nothing is counted or executed before CS_N was high
        if (!cs_high_seen_q) `TW_SPI_ASSERT(!sel && bit_q == 0 && !o_wb_cyc);
        `TW_SPI_ASSERT(sck_rise_q == (sel && sck_q[1] && !f_sck_prev));
        `TW_SPI_ASSERT(sck_fall_q == (sel && !sck_q[1] && f_sck_prev));
        `TW_SPI_ASSERT(bit_q <= FRAME_END);
        // the decodes of bit_q are the ranges they name
        `TW_SPI_ASSERT(in_req == (bit_q < F_REQ_END));
        `TW_SPI_ASSERT(in_crc == (bit_q <= CRC_LAST));
        `TW_SPI_ASSERT(in_resp == (bit_q >= 7'd56 && bit_q < FRAME_END));
        `TW_SPI_ASSERT(in_data == (bit_q >= 7'd64 && bit_q < 7'd96));
        `TW_SPI_ASSERT(in_rcrc == (bit_q >= 7'd96));
        `TW_SPI_ASSERT(pos_q[P_CHECK] == (bit_q == CRC_LAST));
        `TW_SPI_ASSERT(pos_q[P_DEAD] == (bit_q == DEADLINE));
        `TW_SPI_ASSERT(pos_q[P_LOAD] == (bit_q == DATA_LOAD));
        `TW_SPI_ASSERT(pos_q[P_END] == (bit_q == FRAME_END));
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
                `TW_SPI_ASSERT($past(sck_fall_q) || (!$past(sel) && !o_miso));
        end

    // ---- The frame as the host sent it: a shadow of the 48 request bits
    // (bytes 0-5), shifted in on the same edges the bridge counts.
    reg [47:0] f_frame;
    always @(posedge i_clk)
        if (sck_rise_q && bit_q <= CRC_LAST)
            f_frame <= {f_frame[46:0], mosi};

    // Reference CRC: the CRC-8 remainder of the bits received in this frame,
    // restarted whenever CS_N is high. A request is good when the remainder
    // of all 48 bits is zero (CRC-8 of bytes 0-4 equals byte 5).
    reg [7:0] f_crc;
    always @(posedge i_clk)
        if (i_rst || !sel)
            f_crc <= 8'h00;
        else if (sck_rise_q && bit_q <= CRC_LAST)
            f_crc <= crc8_step(f_crc, mosi);
    wire [47:0] f_frame_next = {f_frame[46:0], mosi};   // at `check`: all 48 bits
    wire [39:0] f_req_next   = f_frame_next[47:8];
    wire        f_good       = crc8_step(f_crc, mosi) == 8'h00;
    wire [6:0]  f_req_bits   = bit_q < F_REQ_END ? bit_q : F_REQ_END;
    wire [39:0] f_req_mask   = ~(40'hFF_FFFF_FFFF << f_req_bits);
    wire [47:0] f_req_seen   = f_frame >> (bit_q - f_req_bits);  // request bits among those seen
    wire        f_req_rep    = last_ok_q && req_q == last_q;      // req_rep without its pipeline
    always @(*) if (f_past_valid && !i_rst && bit_q <= CRC_LAST) begin
        if (bit_q > F_REQ_END) begin
            `TW_SPI_ASSERT(req_eq_q == {req_q[39:32] == last_q[39:32], req_q[31:24] == last_q[31:24],
                                        req_q[23:16] == last_q[23:16], req_q[15:8] == last_q[15:8],
                                        req_q[7:0] == last_q[7:0]});
            `TW_SPI_ASSERT(rep_q == f_req_rep);
            `TW_SPI_ASSERT(go_bus_q == (!f_req_rep && !req_err_adr));
            `TW_SPI_ASSERT(go_errrd_q == (!f_req_rep && req_err_adr && !req_we));
            `TW_SPI_ASSERT(go_errclr_q == (!f_req_rep && req_err_adr && req_we
                                           && req_q[TW_SPI_ERRORS_FLAG_LSB]));
        end
        if (sck_rise_q && bit_q == CRC_LAST)
            `TW_SPI_ASSERT(crc_low_zero_q == (crc_q[6:0] == 7'd0));
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
            `TW_SPI_ASSERT(st_q == ST_LATE && last_q == f_last_before);
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
    // The data a done or repeated frame shows.
    wire [31:0] f_resp_data = last_q[39] ? last_q[31:0] : resp_q;
    // Past the deadline, a done or repeated frame's access has completed.
    wire f_past_deadline = bit_q > DEADLINE;
    // The request register sends the data: until bit 63's falling edge it
    // holds the request (the saved one, in a done or repeated frame), after
    // it the data, shifted once per data bit sent.
    wire f_loaded = bit_q > DATA_LOAD || (bit_q == DATA_LOAD && !f_sck_prev);
    wire [6:0] f_sent = bit_q - DATA_LOAD - {6'd0, f_sck_prev};
    always @(*) if (f_past_valid && !i_rst) begin
        if (f_last_bus && !o_wb_cyc)
            `TW_SPI_ASSERT(f_resp_data == f_saved);
        if (st_q != ST_LATE && bit_q > CRC_LAST)
            `TW_SPI_ASSERT(last_ok_q || st_q == ST_BADCRC);
        if (st_q[0] && f_past_deadline)
            `TW_SPI_ASSERT(!o_wb_cyc);
        if (st_q == ST_REPEAT && bit_q > CRC_LAST)
            `TW_SPI_ASSERT(!o_wb_cyc);
        if (sel && st_q[0] && bit_q > CRC_LAST && !f_loaded)
            `TW_SPI_ASSERT(req_q == last_q);
        if (sel && st_q[0] && f_loaded && !in_rcrc)
            `TW_SPI_ASSERT(req_q[31:0] == f_resp_data << f_sent);
    end
    // MISO in bytes 8-11: the saved response for statuses 0x01 and 0x03 (a
    // repeat gets what the original access returned), zeros otherwise.
    reg f_data_bit, f_data_shown, f_data_saved, f_data_expect;
    always @(posedge i_clk) begin
        f_data_bit    <= !i_rst && sck_fall_q && in_data;
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

`ifdef TW_SPI_F_DEADLINE
    // ---- The deadline (proof spi-deadline, at ACK_MAX = 118): with SCK
    // edges at least 4 clocks apart (SCK <= f_sys / 8; formal inputs change
    // only at clock edges, so the synchronisers catch each edge exactly)
    // and a slave that acks within ACK_MAX clocks, no frame is late: the
    // access is acked by bit 62's rising edge, and none is outstanding when
    // a later request is checked. Kept inductive by a lower bound on the
    // clocks an access has waited: 4 per SCK edge since it began.
    wire       f_edge = sck_q[1] != f_sck_prev;   // an SCK edge reaches the logic
    reg  [1:0] f_since;                          // clocks since the last one, up to 3
    reg  [4:0] f_edges;                          // edges since the access began, up to 30
    reg  [7:0] f_wait;                           // clocks the access has waited
    always @(posedge i_clk) begin
        f_since <= f_edge ? 2'd0 : f_since == 2'd3 ? 2'd3 : f_since + 1'b1;
        if (!o_wb_cyc) begin
            f_wait  <= 8'd0;
            f_edges <= 5'd0;
        end else begin
            f_wait  <= f_wait + 1'b1;
            f_edges <= f_edges + {4'd0, f_edge && f_edges != 5'd30};
        end
    end
    always @(*) if (f_past_valid) begin
        if (f_edge)
            assume(f_since == 2'd3);
        if (o_wb_cyc && f_wait == ACK_MAX)
            assume(i_wb_ack);
    end
    // Edges a frame has seen by its bit_q: from its start (an access from
    // an earlier frame), or from `check` (this frame's access).
    wire [7:0] f_edges_frame = {bit_q, 1'b0} - {7'd0, f_sck_prev};
    wire [7:0] f_edges_check = {bit_q - CRC_LAST - 1'b1, 1'b0} + {7'd0, !f_sck_prev};
    always @(*) if (f_past_valid && !i_rst) begin
        assert(!late);
        if (o_wb_cyc) begin
            assert(f_wait <= ACK_MAX);
            assert(f_wait >= {1'b0, f_edges, 2'b00} + {6'd0, f_since});
            if (sel && bit_q != 0 && bit_q <= CRC_LAST)
                assert({3'd0, f_edges} >= (f_edges_frame > 8'd30 ? 8'd30 : f_edges_frame));
            if (sel && bit_q > CRC_LAST && bit_q <= DATA_LOAD)
                assert({3'd0, f_edges} >= (f_edges_check > 8'd30 ? 8'd30 : f_edges_check));
        end
    end
`endif

    // ---- Not vacuous: a bad request rejected, a good one executed, a
    // repeat answered (that needs a second frame: past 200 clocks), and an
    // access not acked by the deadline.
    wire f_cover_bad    = f_check && !f_good_q;
    wire f_cover_exec   = f_check && f_good_q && !f_busy_q && !f_repeat_q && o_wb_cyc;
    wire f_cover_repeat = f_check && f_good_q && !f_busy_q && f_repeat_q;
    wire f_cover_late   = late && bit_q == DEADLINE;
`ifdef TW_SPI_F_WITNESS
    always @(*) if (f_past_valid && !i_rst)
        case (`TW_SPI_F_WITNESS)
            1: assert(!f_cover_bad);
            2: assert(!f_cover_exec);
            4: assert(!f_cover_late);
            default: assert(!f_cover_repeat);
        endcase
`else
    always @(*) if (f_past_valid && !i_rst) begin
        cover(f_cover_bad);
        cover(f_cover_exec);
        cover(f_cover_repeat);
        cover(f_cover_late);
    end
`endif
`undef TW_SPI_ASSERT
`endif
endmodule
`default_nettype wire
