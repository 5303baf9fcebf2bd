// The earliest busy slot after a base in a wheel's bitmaps, by brute force,
// for the formal proofs (tw_core's shadow properties and tw_search's
// contract): {found, its distance from the base}. Level l's slot s is bit
// l * SLOTS + s of map; included where LEVELS, SLOT_BITS and SLOTS are
// defined.
function [48:0] f_first_busy(input [LEVELS*SLOTS-1:0] map, input [47:0] base);
    integer l, o;
    reg [47:0] d;
    reg [SLOT_BITS-1:0] sl;
    begin
        f_first_busy = 49'd0;
        for (l = 0; l < LEVELS; l = l + 1)
            for (o = 1; o <= SLOTS; o = o + 1) begin
                sl = base[l * SLOT_BITS +: SLOT_BITS] + o[SLOT_BITS-1:0];
                d  = (o << (l * SLOT_BITS)) - (base & ((48'd1 << (l * SLOT_BITS)) - 48'd1));
                if (map[l * SLOTS + sl] && (!f_first_busy[48] || d < f_first_busy[47:0]))
                    f_first_busy = {1'b1, d};
            end
    end
endfunction
