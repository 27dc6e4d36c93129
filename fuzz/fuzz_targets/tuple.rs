//! `encoding::TupleDecoder`: reads fields in an order chosen by the input's
//! first bytes from the rest of the input.
#![no_main]
use hexveil_protocol::encoding::{tag, TupleDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&ops, rest)) = data.split_first() else {
        return;
    };
    let domain = tag::ALL[ops as usize % tag::ALL.len()];
    let Ok(mut d) = TupleDecoder::new(rest, domain) else {
        return;
    };
    // Up to 8 fields, 3 bits each, from a u32 made of the op byte.
    let mut plan = u32::from(ops).wrapping_mul(0x9e37_79b9);
    for _ in 0..8 {
        let ok = match plan & 7 {
            0 => d.u8().is_ok(),
            1 => d.u16().is_ok(),
            2 => d.u32().is_ok(),
            3 => d.u64().is_ok(),
            4 => d.digest().is_ok(),
            5 => d.party().is_ok(),
            6 => d.var_bytes().is_ok(),
            _ => d.str().is_ok(),
        };
        if !ok {
            return;
        }
        plan >>= 3;
    }
    let _ = d.finish();
});
