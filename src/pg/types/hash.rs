//! PostgreSQL's `hash_bytes` (Bob Jenkins' lookup3, as `src/common/hashfn.c` has it, in
//! its little-endian reading): `hashtext` keys the stores' advisory locks with it.

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn finish(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(14));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(11));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(25));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(16));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(4));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(14));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(24));
}

fn word(k: &[u8]) -> u32 {
    u32::from_le_bytes([k[0], k[1], k[2], k[3]])
}

/// `hash_bytes(k)`; `hashtext(t)` is this over the text's bytes, as an int4.
pub(crate) fn hash_bytes(mut k: &[u8]) -> u32 {
    let initial = 0x9e37_79b9u32
        .wrapping_add(k.len() as u32)
        .wrapping_add(3_923_095);
    let (mut a, mut b, mut c) = (initial, initial, initial);
    while k.len() >= 12 {
        a = a.wrapping_add(word(&k[0..4]));
        b = b.wrapping_add(word(&k[4..8]));
        c = c.wrapping_add(word(&k[8..12]));
        mix(&mut a, &mut b, &mut c);
        k = &k[12..];
    }
    // The low byte of `c` is kept for the length: the tail's bytes 8..11 go above it.
    for (i, byte) in k.iter().enumerate() {
        let byte = *byte as u32;
        match i {
            0..=3 => a = a.wrapping_add(byte << (8 * i)),
            4..=7 => b = b.wrapping_add(byte << (8 * (i - 4))),
            _ => c = c.wrapping_add(byte << (8 * (i - 7))),
        }
    }
    finish(&mut a, &mut b, &mut c);
    c
}

pub(crate) fn hashtext(text: &str) -> i32 {
    hash_bytes(text.as_bytes()) as i32
}
