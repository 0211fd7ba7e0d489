//! A packed bit array, aligned to cache lines.

/// Bits in one cache line (64 bytes), the block of a 512-bit blocked filter.
pub const LINE_BITS: u64 = 512;

/// Words per cache line.
const LINE_WORDS: usize = (LINE_BITS / 64) as usize;

/// `len` bits packed in 64-bit words.
///
/// An array of at least one cache line starts on a 64-byte boundary, so that bits
/// `512·b .. 512·b + 512` (a block of a 512-bit blocked filter, [`Self::line`]) sit in
/// one cache line. The allocator aligns a `Vec<u64>` to 16 bytes only: there every such
/// block straddled two lines, two cache misses per item instead of one. The storage
/// over-allocates 7 words and starts at the first aligned one (no `unsafe`).
#[derive(Debug)]
pub struct BitVec {
    storage: Vec<u64>,
    /// The first word in use (aligned to 64 bytes when `len ≥ 512`).
    start: usize,
    /// Words in use, `⌈len/64⌉`.
    n_words: usize,
    len: u64,
}

impl Clone for BitVec {
    fn clone(&self) -> Self {
        // A derived clone would copy the padding but not re-align the new allocation.
        let mut out = Self::zeros(self.len);
        out.words_mut().copy_from_slice(self.words());
        out
    }
}

impl PartialEq for BitVec {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.words() == other.words()
    }
}

impl Eq for BitVec {}

impl BitVec {
    /// `len` zero bits.
    pub fn zeros(len: u64) -> Self {
        let n_words = len.div_ceil(64) as usize;
        if len < LINE_BITS {
            // Smaller than a line (the PBF's small filters): no padding.
            return Self {
                storage: vec![0; n_words],
                start: 0,
                n_words,
                len,
            };
        }
        let storage = vec![0u64; n_words + LINE_WORDS - 1];
        // Words to skip until a 64-byte boundary (a `u64` is 8-byte aligned).
        let misalignment = (storage.as_ptr() as usize / 8) % LINE_WORDS;
        let start = (LINE_WORDS - misalignment) % LINE_WORDS;
        Self {
            storage,
            start,
            n_words,
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
        // One bounds check (against the storage): `i < len` keeps it in the words.
        self.storage[self.start + (i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Sets bit `i` to 1.
    #[inline]
    pub fn set(&mut self, i: u64) {
        debug_assert!(i < self.len);
        self.storage[self.start + (i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Clears bit `i` to 0.
    #[inline]
    pub fn clear(&mut self, i: u64) {
        debug_assert!(i < self.len);
        self.storage[self.start + (i >> 6) as usize] &= !(1 << (i & 63));
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words_mut().fill(0);
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.words().iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Set bits in `[start, start + len)`; `start` and `len` multiples of 64.
    pub fn count_ones_in(&self, start: u64, len: u64) -> u64 {
        debug_assert!(start % 64 == 0 && len % 64 == 0);
        let (a, b) = ((start / 64) as usize, ((start + len) / 64) as usize);
        self.words()[a..b]
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// The packed words.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.storage[self.start..self.start + self.n_words]
    }

    /// The packed words, mutable.
    #[inline]
    fn words_mut(&mut self) -> &mut [u64] {
        &mut self.storage[self.start..self.start + self.n_words]
    }

    /// Cache line `b`: bits `512·b .. 512·b + 512`, one 64-byte aligned line.
    ///
    /// # Panics
    /// If the line is not entirely within the array.
    #[inline]
    pub fn line(&self, b: usize) -> &[u64; LINE_WORDS] {
        let w = b * LINE_WORDS;
        self.words()[w..w + LINE_WORDS].try_into().expect("8 words")
    }

    /// Cache line `b`, mutable (see [`Self::line`]).
    ///
    /// # Panics
    /// If the line is not entirely within the array.
    #[inline]
    pub fn line_mut(&mut self, b: usize) -> &mut [u64; LINE_WORDS] {
        let w = b * LINE_WORDS;
        (&mut self.words_mut()[w..w + LINE_WORDS])
            .try_into()
            .expect("8 words")
    }

    /// The bits as bytes in little-endian bit order: bit `i` is
    /// `(bytes[i / 8] >> (i % 8)) & 1`, the raw bit array `bfopt audit --bitmap` reads
    /// (padding bits of the last byte are 0).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self.words().iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.truncate(self.len.div_ceil(8) as usize);
        bytes
    }

    /// Word `w` for direct block access.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        debug_assert!(w < self.n_words);
        self.storage[self.start + w]
    }

    /// ORs `mask` into word `w`.
    #[inline]
    pub fn or_word(&mut self, w: usize, mask: u64) {
        debug_assert!(w < self.n_words);
        self.storage[self.start + w] |= mask;
    }

    /// Clears words `w .. w + n`.
    pub fn clear_words(&mut self, w: usize, n: usize) {
        self.words_mut()[w..w + n].fill(0);
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

    #[test]
    fn arrays_of_a_line_or_more_start_on_a_cache_line_and_clone_equal() {
        for len in [512u64, 1000, 4096, 1 << 20] {
            let mut b = BitVec::zeros(len);
            assert_eq!(b.words().as_ptr() as usize % 64, 0, "{len}");
            b.set(len - 1);
            b.set(3);
            let c = b.clone();
            assert_eq!(c.words().as_ptr() as usize % 64, 0, "{len}");
            assert_eq!(c, b);
            assert_eq!(c.words().len() as u64, len.div_ceil(64));
            assert_eq!(b.line(0)[0], 1 << 3);
            assert!(!b.get(5 * 64 + 1));
            b.line_mut(0)[5] |= 1 << 1;
            assert!(b.get(5 * 64 + 1));
            assert_ne!(c, b);
        }
        // Below a line: no padding.
        assert_eq!(BitVec::zeros(100).storage.len(), 2);
    }
}
