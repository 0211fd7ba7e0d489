//! A packed bit array.

/// `len` bits packed in 64-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitVec {
    words: Vec<u64>,
    len: u64,
}

impl BitVec {
    /// `len` zero bits.
    pub fn zeros(len: u64) -> Self {
        Self {
            words: vec![0; len.div_ceil(64) as usize],
            len,
        }
    }

    /// Number of bits.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        self.words[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Sets bit `i` to 1.
    #[inline]
    pub fn set(&mut self, i: u64) {
        debug_assert!(i < self.len);
        self.words[(i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Clears bit `i` to 0.
    #[inline]
    pub fn clear(&mut self, i: u64) {
        debug_assert!(i < self.len);
        self.words[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Set bits in `[start, start + len)`; `start` and `len` multiples of 64.
    pub fn count_ones_in(&self, start: u64, len: u64) -> u64 {
        debug_assert!(start % 64 == 0 && len % 64 == 0);
        let (a, b) = ((start / 64) as usize, ((start + len) / 64) as usize);
        self.words[a..b]
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// The packed words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The bits as bytes in little-endian bit order: bit `i` is
    /// `(bytes[i / 8] >> (i % 8)) & 1`, the raw bit array `bfopt audit --bitmap` reads
    /// (padding bits of the last byte are 0).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.truncate(self.len.div_ceil(8) as usize);
        bytes
    }

    /// Word `w` for direct block access.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w]
    }

    /// ORs `mask` into word `w`.
    #[inline]
    pub fn or_word(&mut self, w: usize, mask: u64) {
        self.words[w] |= mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_clear_count() {
        let mut b = BitVec::zeros(130);
        assert_eq!(b.len(), 130);
        b.set(0);
        b.set(64);
        b.set(129);
        assert!(b.get(129) && b.get(64) && !b.get(1));
        assert_eq!(b.count_ones(), 3);
        assert_eq!(b.count_ones_in(64, 64), 1);
        b.clear(64);
        assert_eq!(b.count_ones(), 2);
        assert_eq!(b.to_le_bytes().len(), 17);
        assert_eq!(b.to_le_bytes()[16], 0b10, "bit 129 is bit 1 of byte 16");
        b.clear_all();
        assert_eq!(b.count_ones(), 0);
    }
}
