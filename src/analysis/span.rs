//! Character offsets and ranges.
//!
//! PAN counts offsets in Unicode scalar values of the decoded text (what a Python
//! `str` index counts), never in bytes. Every offset in this crate is such a
//! character offset; the one conversion from byte offsets happens while the
//! tokenizer scans a text (see [`crate::analysis::tokenize`]), and [`char_slice`] is the one
//! place that turns a character range back into a `&str`.

/// A half-open range `[start, end)` of character offsets in one document.
///
/// `u32` keeps postings small; a document of more than 4 G characters is refused
/// when it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct CharRange {
    /// First character of the range.
    pub start: u32,
    /// One past the last character of the range.
    pub end: u32,
}

impl CharRange {
    /// A range from `start` (inclusive) to `end` (exclusive).
    pub fn new(start: u32, end: u32) -> Self {
        debug_assert!(start <= end, "range {start}..{end} is reversed");
        CharRange { start, end }
    }

    /// Number of characters in the range.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    /// True when the range holds no character.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// True when the two ranges share at least one character.
    pub fn overlaps(&self, other: &CharRange) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// Characters the two ranges share.
    pub fn overlap_len(&self, other: &CharRange) -> u32 {
        self.end.min(other.end).saturating_sub(self.start.max(other.start))
    }

    /// Characters between the two ranges (0 when they touch or overlap).
    pub fn gap(&self, other: &CharRange) -> u32 {
        other.start.saturating_sub(self.end).max(self.start.saturating_sub(other.end))
    }

    /// True when every character of `other` lies in this range.
    pub fn holds(&self, other: &CharRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// The smallest range covering both.
    pub fn cover(&self, other: &CharRange) -> CharRange {
        CharRange::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// The text of `range` in `text`, where `range` counts characters.
///
/// Returns `None` when the range runs past the end of the text.
pub fn char_slice(text: &str, range: CharRange) -> Option<&str> {
    let start = skip_chars(text, 0, range.start as usize)?;
    let end = skip_chars(text, start, range.len() as usize)?;
    Some(&text[start..end])
}

/// The byte offset `chars` characters after byte offset `from` of `text` (a
/// character boundary), or `None` when the text ends first; the end of the text
/// counts as a boundary.
///
/// Counts the bytes that start a character, 64 at a time (a loop the compiler
/// vectorises), then byte by byte in the last block.
pub fn skip_chars(text: &str, from: usize, chars: usize) -> Option<usize> {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    let starts_char = |b: &u8| (*b as i8) >= -0x40;
    let (mut at, mut counted) = (from, 0);
    while let Some(block) = bytes.get(at..at + BLOCK) {
        let starts = block.iter().filter(|b| starts_char(b)).count();
        if counted + starts > chars {
            break;
        }
        counted += starts;
        at += BLOCK;
    }
    while at < bytes.len() {
        if starts_char(&bytes[at]) {
            if counted == chars {
                return Some(at);
            }
            counted += 1;
        }
        at += 1;
    }
    (counted == chars).then_some(bytes.len())
}

/// A text with the byte offset of every [`CharIndexed::STEP`]-th character:
/// the byte offset of a character position is then found in O(`STEP`), not
/// O(position), which matters when many windows of one long document are
/// cut out of it.
#[derive(Debug, Clone, Default)]
pub struct CharIndexed<'a> {
    text: &'a str,
    /// Byte offset of characters 0, STEP, 2 × STEP, ...
    checkpoints: Vec<usize>,
    /// Characters of the text.
    chars: usize,
    /// The document's offset of the text's first character: 0 for a whole
    /// text, more for a [`TextPiece`] ([`window`](Self::window) counts from
    /// the document's start).
    first_char: u32,
}

impl<'a> CharIndexed<'a> {
    /// Characters between checkpoints.
    pub const STEP: usize = 4096;

    /// Indexes `text` (one pass over it, counting the bytes that start a
    /// character 64 at a time rather than decoding every character: the
    /// alignment indexes each candidate source again for every suspicious
    /// document). An ASCII text needs no checkpoints: a character is a byte.
    pub fn new(text: &'a str) -> Self {
        if text.is_ascii() {
            return CharIndexed { text, checkpoints: Vec::new(), chars: text.len(), first_char: 0 };
        }
        let checkpoints: Vec<usize> = char_checkpoints(text, Self::STEP).collect();
        let chars =
            checkpoints.last().map_or(0, |&last| (checkpoints.len() - 1) * Self::STEP + text[last..].chars().count());
        CharIndexed { text, checkpoints, chars, first_char: 0 }
    }

    /// Indexes the text of `piece`, whose windows count from the start of
    /// the document the piece is part of.
    pub fn of_piece(piece: &'a TextPiece) -> Self {
        CharIndexed { first_char: piece.first_char, ..CharIndexed::new(&piece.text) }
    }

    /// True when the text is ASCII, and so was given no checkpoints.
    fn is_ascii(&self) -> bool {
        self.chars == self.text.len()
    }

    /// Characters of the text.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The byte offset of character `chars` (the end of the text counts), or
    /// `None` past the end.
    pub fn byte_offset(&self, chars: usize) -> Option<usize> {
        if self.is_ascii() {
            return (chars <= self.chars).then_some(chars);
        }
        let checkpoint = chars / Self::STEP;
        let from = match self.checkpoints.get(checkpoint) {
            Some(&at) => at,
            None if chars == self.chars => return Some(self.text.len()),
            None => return None,
        };
        skip_chars(self.text, from, chars - checkpoint * Self::STEP)
    }

    /// The characters `window` of the document, cut at the end of the text
    /// (the window may run past it), with the window's start; empty when it
    /// starts past the end. A piece's window starts at its first character
    /// at the earliest.
    pub fn window(&self, window: CharRange) -> (u32, &'a str) {
        debug_assert!(window.start >= self.first_char, "window {window:?} starts before the piece");
        let first = window.start.max(self.first_char);
        let chars = window.end.saturating_sub(first) as usize;
        let Some(start) = self.byte_offset((first - self.first_char) as usize) else { return (0, "") };
        let end = match self.is_ascii() {
            true => start.saturating_add(chars).min(self.text.len()),
            false => skip_chars(self.text, start, chars).unwrap_or(self.text.len()),
        };
        (first, &self.text[start..end])
    }
}

/// The byte offsets of characters 0, `step`, 2 × `step`, … of `text` (a
/// nonzero `step`), those before its end.
fn char_checkpoints(text: &str, step: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(0), move |&at| skip_chars(text, at, step)).take_while(|&at| at < text.len())
}

/// A part of a document's text, read again without the rest
/// ([`crate::analysis::read::TextReader::load_piece`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextPiece {
    /// The document's offset of the piece's first character.
    pub first_char: u32,
    /// The piece's text.
    pub text: String,
}

/// Where a text's characters lie among its bytes, at every
/// [`CharMap::STEP`]-th character: when the text is a file's bytes as they
/// are, it tells which bytes of the file hold a range of characters, so
/// that only those are read again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CharMap {
    /// Bytes of the text.
    bytes: u64,
    /// Byte offsets of characters 0, STEP, 2 × STEP, …; none for an ASCII
    /// text, whose character n is byte n.
    checkpoints: Box<[u32]>,
}

impl CharMap {
    /// Characters between checkpoints.
    pub const STEP: usize = 1024;

    /// The map of `text` (of at most 4 GB, as every document is).
    pub fn new(text: &str) -> Self {
        let checkpoints = match text.is_ascii() {
            true => Box::default(),
            false => char_checkpoints(text, Self::STEP).map(|at| at as u32).collect(),
        };
        CharMap { bytes: text.len() as u64, checkpoints }
    }

    /// Bytes of the text.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The bytes holding the characters `range` and a few around them (up
    /// to the checkpoints either side), cut at the end of the text, with the
    /// offset of their first character: at most `range.start`, unless the
    /// range starts past the end.
    pub fn bytes_of(&self, range: CharRange) -> (u32, std::ops::Range<u64>) {
        let Some(last_checkpoint) = self.checkpoints.len().checked_sub(1) else {
            let start = u64::from(range.start).min(self.bytes);
            return (start as u32, start..u64::from(range.end).clamp(start, self.bytes));
        };
        let first = (range.start as usize / Self::STEP).min(last_checkpoint);
        let start = u64::from(self.checkpoints[first]);
        let end = self.checkpoints.get((range.end as usize).div_ceil(Self::STEP)).map_or(self.bytes, |&at| at.into());
        ((first * Self::STEP) as u32, start..end.max(start))
    }
}

/// Number of characters in the union of `ranges` (sorts them).
pub fn union_len(ranges: &mut [CharRange]) -> u64 {
    ranges.sort_unstable();
    let mut total = 0;
    let mut current: Option<CharRange> = None;
    for &range in ranges.iter() {
        current = match current {
            Some(open) if range.start <= open.end => Some(CharRange::new(open.start, open.end.max(range.end))),
            Some(open) => {
                total += u64::from(open.len());
                Some(range)
            }
            None => Some(range),
        };
    }
    total + current.map_or(0, |open| u64::from(open.len()))
}

/// The character ranges of a document's chunks, by chunk number: in memory
/// as a slice or [`PackedRanges`].
pub trait ChunkRanges {
    /// The range of chunk `seq`; `None` past the last chunk.
    fn chunk_range(&self, seq: u32) -> Option<CharRange>;

    /// The characters from chunk `first`'s start to chunk `last`'s end: the
    /// one conversion from a run of chunks to a passage.
    fn cover(&self, first: u32, last: u32) -> Option<CharRange> {
        Some(self.chunk_range(first)?.cover(&self.chunk_range(last)?))
    }
}

impl<T: ChunkRanges + ?Sized> ChunkRanges for &T {
    fn chunk_range(&self, seq: u32) -> Option<CharRange> {
        (**self).chunk_range(seq)
    }
}

impl ChunkRanges for [CharRange] {
    fn chunk_range(&self, seq: u32) -> Option<CharRange> {
        self.get(seq as usize).copied()
    }
}

impl ChunkRanges for PackedRanges {
    fn chunk_range(&self, seq: u32) -> Option<CharRange> {
        ((seq as usize) < self.len()).then(|| self.get(seq as usize))
    }
}

/// A list of ranges stored in about 2 bytes each instead of 8: each start as
/// its step from the previous range's start (`u8`), the start of every
/// [`PackedRanges::BLOCK`]-th range in full, and each length as a `u8`. A
/// step or length that does not fit (a step back, as from a document's
/// content chunks to its structure chunks, or one of 255 and more) is kept in
/// a side list. The source documents' chunk ranges live in these while the
/// index is in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackedRanges {
    /// The start of ranges 0, BLOCK, 2 × BLOCK, ...
    block_starts: Vec<u32>,
    /// Each start minus the previous one (0 at a block's first range);
    /// `u8::MAX` when the start is in `far_starts`.
    steps: Vec<u8>,
    /// Each length; `u8::MAX` when the length is in `long`.
    lengths: Vec<u8>,
    /// (position, start) of the ranges whose step does not fit, sorted by
    /// position.
    far_starts: Vec<(u32, u32)>,
    /// (position, length) of the ranges whose length does not fit, sorted by
    /// position.
    long: Vec<(u32, u32)>,
}

impl PackedRanges {
    /// Ranges per stored full start: a range's start is found by adding at
    /// most `BLOCK - 1` steps.
    pub const BLOCK: usize = 32;

    /// Packs `ranges`.
    pub fn new(ranges: &[CharRange]) -> Self {
        let mut packed = PackedRanges {
            block_starts: Vec::with_capacity(ranges.len().div_ceil(Self::BLOCK)),
            steps: Vec::with_capacity(ranges.len()),
            lengths: Vec::with_capacity(ranges.len()),
            far_starts: Vec::new(),
            long: Vec::new(),
        };
        let mut previous = 0u32;
        for (position, range) in (0u32..).zip(ranges) {
            if (position as usize).is_multiple_of(Self::BLOCK) {
                packed.block_starts.push(range.start);
                packed.steps.push(0);
            } else {
                match range.start.checked_sub(previous).and_then(|step| u8::try_from(step).ok()) {
                    Some(step) if step < u8::MAX => packed.steps.push(step),
                    _ => {
                        packed.steps.push(u8::MAX);
                        packed.far_starts.push((position, range.start));
                    }
                }
            }
            previous = range.start;
            match u8::try_from(range.len()) {
                Ok(length) if length < u8::MAX => packed.lengths.push(length),
                _ => {
                    packed.lengths.push(u8::MAX);
                    packed.long.push((position, range.len()));
                }
            }
        }
        packed
    }

    /// The range at `position` (`position < len()`).
    pub fn get(&self, position: usize) -> CharRange {
        let block = position / Self::BLOCK;
        let mut start = self.block_starts[block];
        for at in block * Self::BLOCK + 1..=position {
            start = match self.steps[at] {
                u8::MAX => Self::side_value(&self.far_starts, at),
                step => start + u32::from(step),
            };
        }
        let length = match self.lengths[position] {
            u8::MAX => Self::side_value(&self.long, position),
            short => u32::from(short),
        };
        CharRange::new(start, start + length)
    }

    /// The value kept for `position` in a side list.
    fn side_value(list: &[(u32, u32)], position: usize) -> u32 {
        list[list.partition_point(|&(p, _)| (p as usize) < position)].1
    }

    /// Number of ranges.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True when there is no range.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn holds_means_contains_every_character() {
        let range = CharRange::new(10, 20);
        assert!(range.holds(&CharRange::new(10, 20)) && range.holds(&CharRange::new(12, 15)));
        assert!(!range.holds(&CharRange::new(9, 15)) && !range.holds(&CharRange::new(15, 21)));
    }

    #[test]
    fn gap_counts_the_characters_between_two_ranges_either_way() {
        let (a, b) = (CharRange::new(10, 20), CharRange::new(25, 30));
        assert_eq!((a.gap(&b), b.gap(&a)), (5, 5));
        assert_eq!(a.gap(&CharRange::new(20, 22)), 0);
        assert_eq!(a.gap(&CharRange::new(15, 40)), 0);
    }

    use super::*;

    #[test]
    fn char_indexed_windows_equal_those_counted_from_the_start() {
        let text: String = (0..3 * CharIndexed::STEP + 77).map(|i| if i % 7 == 0 { 'ř' } else { 'a' }).collect();
        let indexed = CharIndexed::new(&text);
        let chars = text.chars().count();
        for start in [0, 1, CharIndexed::STEP - 1, CharIndexed::STEP, 2 * CharIndexed::STEP + 5, chars - 3, chars] {
            assert_eq!(indexed.byte_offset(start), skip_chars(&text, 0, start), "{start}");
            let window = CharRange::new(start as u32, start as u32 + 100);
            let expected = char_slice(&text, CharRange::new(start as u32, (start + 100).min(chars) as u32)).unwrap();
            assert_eq!(indexed.window(window), (start as u32, expected));
        }
        assert_eq!(indexed.byte_offset(chars + 1), None);
        assert_eq!(indexed.window(CharRange::new(chars as u32 + 1, u32::MAX)), (0, ""));
        assert_eq!(CharIndexed::new("").window(CharRange::new(0, 10)), (0, ""));
    }

    #[test]
    fn union_length_merges_touching_and_nested_ranges() {
        assert_eq!(union_len(&mut []), 0);
        assert_eq!(
            union_len(&mut [
                CharRange::new(0, 10),
                CharRange::new(10, 20),
                CharRange::new(5, 8),
                CharRange::new(30, 31),
                CharRange::new(31, 31)
            ]),
            21
        );
    }

    #[test]
    fn char_slice_counts_characters_not_bytes() {
        let text = "Žluťoučký kůň úpěl";
        assert_eq!(char_slice(text, CharRange::new(0, 9)), Some("Žluťoučký"));
        assert_eq!(char_slice(text, CharRange::new(10, 13)), Some("kůň"));
        assert_eq!(char_slice(text, CharRange::new(14, 18)), Some("úpěl"));
        assert_eq!(char_slice(text, CharRange::new(18, 18)), Some(""));
        assert_eq!(char_slice(text, CharRange::new(14, 19)), None);
    }

    proptest::proptest! {
        #[test]
        fn char_index_checkpoints_agree_with_char_indices(
            text in "([a-z ]{0,70}|[čřž€𝄞]{0,5}){0,8}", step_multiple in 0usize..3, tail in 0usize..3, ascii: bool,
        ) {
            // Texts of about 0-3 steps, ending near a step's boundary.
            let filler = (if ascii { "abc" } else { "ab€" }).repeat((step_multiple * CharIndexed::STEP + tail) / 3);
            let text = format!("{filler}{text}");
            let indexed = CharIndexed::new(&text);
            let boundaries: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
            proptest::prop_assert_eq!(indexed.chars(), boundaries.len() - 1);
            let expected: Vec<usize> = boundaries[..boundaries.len() - 1].iter().copied().step_by(CharIndexed::STEP).collect();
            if !text.is_ascii() {
                proptest::prop_assert_eq!(&indexed.checkpoints, &expected);
            }
            for chars in [0, 1, CharIndexed::STEP - 1, CharIndexed::STEP, 2 * CharIndexed::STEP + 3, boundaries.len() - 1, boundaries.len()] {
                proptest::prop_assert_eq!(indexed.byte_offset(chars), boundaries.get(chars).copied());
            }
            let window = CharRange::new(5, 5 + CharIndexed::STEP as u32);
            let expected_window = boundaries.get(5).map_or("", |&start| {
                &text[start..boundaries.get(5 + CharIndexed::STEP).copied().unwrap_or(text.len())]
            });
            proptest::prop_assert_eq!(indexed.window(window).1, expected_window);
        }

        #[test]
        fn a_piece_gives_the_windows_of_the_whole_text(
            text in "([a-z ]{0,70}|[čřž€𝄞]{0,5}){0,8}", repeat in 1usize..40, ascii: bool,
            range in (0u32..12_000, 0u32..6_000), inner in (0u32..6_000, 0u32..6_000),
        ) {
            // Texts of up to a few steps, ASCII or not, and a window inside the range read.
            let text = if ascii { "ab cd ".repeat(repeat * 60) } else { text.repeat(repeat) };
            let map = CharMap::new(&text);
            let range = CharRange::new(range.0, range.0 + range.1);
            let (first_char, bytes) = map.bytes_of(range);
            let chars = text.chars().count() as u32;
            proptest::prop_assert!(first_char <= range.start || range.start > chars);
            let piece = TextPiece { first_char, text: text[bytes.start as usize..bytes.end as usize].to_string() };
            let start = range.start + inner.0.min(range.len());
            let window = CharRange::new(start, start + inner.1.min(range.end - start));
            let whole = CharIndexed::new(&text).window(window);
            let from_piece = CharIndexed::of_piece(&piece).window(window);
            proptest::prop_assert_eq!(from_piece.1, whole.1);
            if !whole.1.is_empty() {
                proptest::prop_assert_eq!(from_piece.0, whole.0);
            }
        }

        #[test]
        fn skip_chars_agrees_with_char_indices(text in "([a-z ]{0,70}|[čřž€𝄞]{0,5}){0,8}", from in 0usize..400, chars in 0usize..400) {
            let boundaries: Vec<usize> = text.char_indices().map(|(b, _)| b).chain([text.len()]).collect();
            let from = boundaries[from % boundaries.len()];
            let first = boundaries.iter().position(|&b| b == from).unwrap();
            proptest::prop_assert_eq!(skip_chars(&text, from, chars), boundaries.get(first + chars).copied());
        }
    }

    #[test]
    fn packed_ranges_give_back_every_range() {
        let ranges = [
            CharRange::new(0, 10),
            CharRange::new(5, 5 + 65_534),
            CharRange::new(6, 6 + 65_535),
            CharRange::new(7, 200_000),
            CharRange::new(8, 30),
        ];
        let packed = PackedRanges::new(&ranges);
        assert_eq!(packed.len(), 5);
        let unpacked: Vec<_> = (0..packed.len()).map(|i| packed.get(i)).collect();
        assert_eq!(unpacked, ranges);
        assert!(PackedRanges::new(&[]).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn packed_ranges_equal_the_plain_list(
            parts in proptest::collection::vec((0u32..600, 0u32..700, proptest::bool::ANY), 0..200),
        ) {
            // Mostly rising starts with short steps, some far steps, steps back and long ranges.
            let mut start = 0u32;
            let ranges: Vec<CharRange> = parts
                .iter()
                .map(|&(step, length, back)| {
                    start = if back { start / 2 } else { start + step };
                    CharRange::new(start, start + length)
                })
                .collect();
            let packed = PackedRanges::new(&ranges);
            let unpacked: Vec<_> = (0..packed.len()).map(|i| packed.get(i)).collect();
            proptest::prop_assert_eq!(unpacked, ranges);
        }
    }

    #[test]
    fn overlap_and_cover() {
        assert_eq!(CharRange::new(0, 10).overlap_len(&CharRange::new(6, 20)), 4);
        assert_eq!(CharRange::new(6, 20).overlap_len(&CharRange::new(0, 10)), 4);
        assert_eq!(CharRange::new(0, 10).overlap_len(&CharRange::new(10, 20)), 0);
        assert_eq!(CharRange::new(0, 10).overlap_len(&CharRange::new(30, 40)), 0);
        let a = CharRange::new(0, 10);
        let b = CharRange::new(10, 20);
        let c = CharRange::new(5, 15);
        assert!(!a.overlaps(&b));
        assert!(a.overlaps(&c) && c.overlaps(&b));
        assert_eq!(a.cover(&b), CharRange::new(0, 20));
        assert_eq!(c.len(), 10);
    }
}
