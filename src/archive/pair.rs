//! The passages between two archive documents, for the aligned characters of
//! the similarity table ([`super::similar`]).
//!
//! A pair is checked as `check` would check the text of its first document
//! (the one whose name sorts first) against an index that holds the second
//! alone: with the paper's chunks, the valid intervals of their chunks,
//! never across a taboo chunk and trimmed off taboo text (the code of
//! [`super::check`]); with an index of the `best` preset, the
//! first's hits in the second ([`pair_hits`]) aligned by [`PassageFinder`],
//! the first's taboo text blanked. The answer depends on the two documents
//! alone, not on what else the archive holds (`check` bounds hits and
//! resolves overlapping passages across the whole archive) nor on ids, so
//! that an update, which aligns only the pairs it adds, leaves the table a
//! fresh create writes. One computation gives both rows of the pair: each
//! document's characters in passages with the other, overlaps counted once.
//!
//! Both documents' chunks come from their analysis
//! ([`ArchiveIndex::document_chunks`]: the scratch chunk lists of the
//! generation being written, or the text read back and analysed again), and
//! the `best` preset reads both texts back from the documents directory
//! ([`ArchiveIndex::document_text`]); a text that cannot be read as it was
//! indexed (changed or deleted during the run) leaves the pair unaligned
//! (`None`), and the next update, which finds that document changed,
//! computes the pair again.

use std::cell::Cell;

use super::aligned::{FileSlots, pair_hits};
use super::check::{CheckParams, FileChunks, outside};
use super::error::ArchiveError;
use super::format::DocRecord;
use super::reader::ArchiveIndex;
use crate::analysis::document::Document;
use crate::analysis::span::{CharRange, union_len};
use crate::matching::intervals::{IntervalPair, IntervalParams};
use crate::matching::overlap::Passage;
use crate::matching::search::HitBudget;
use crate::passages::{PassageFinder, SourceDocuments};

/// Characters of each document of a pair in passages with the other,
/// overlapping passages counted once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AlignedChars {
    /// Of the first document (the checked one).
    pub(crate) first: u64,
    /// Of the second document (the one in the index).
    pub(crate) second: u64,
}

/// The first document of pairs, prepared once for all of them.
pub(crate) struct FirstDocument {
    side: FirstSide,
}

enum FirstSide {
    /// The paper's chunks: its chunks to match, their ranges, and the text
    /// its taboo chunks cover.
    Chunks { chunks: FileChunks, ranges: Vec<CharRange>, taboo: Vec<CharRange> },
    /// The `best` preset: its text, taboo text blanked, and its chunks,
    /// numbered for [`pair_hits`].
    Text { document: Box<Document>, slots: FileSlots },
    /// A text that could not be read as indexed.
    Unreadable,
}

/// Finds the passages of pairs; one per thread.
pub(crate) struct PairAligner<'a> {
    index: &'a ArchiveIndex,
    intervals: IntervalParams,
    /// With an index of the `best` preset: the alignment stage and its bounds.
    finder: Option<(PassageFinder<'a>, HitBudget)>,
    found: Vec<IntervalPair>,
}

impl<'a> PairAligner<'a> {
    /// An aligner with the index's settings and `check`'s defaults for them.
    pub(crate) fn new(index: &'a ArchiveIndex) -> Self {
        let detect = index.settings().detect_params();
        let finder =
            detect.align.map(|align| (PassageFinder::new(&detect, None, index.stock_phrases()), align.hit_budget()));
        let intervals = CheckParams::for_index(index.settings()).intervals;
        PairAligner { index, intervals, finder, found: Vec::new() }
    }

    /// Prepares document `id` as the first of pairs.
    pub(crate) fn first(&self, id: u32) -> Result<FirstDocument, ArchiveError> {
        let index = self.index;
        let side = if self.finder.is_none() {
            match index.document_chunks(id)? {
                Some(chunks) => FirstSide::Chunks {
                    chunks: FileChunks::new(&chunks.hashes, index.taboo()),
                    taboo: index.taboo().regions(&chunks.hashes, &chunks.ranges),
                    ranges: chunks.ranges,
                },
                None => FirstSide::Unreadable,
            }
        } else {
            match index.stored_document(id)? {
                Some(document) => {
                    let slots = FileSlots::new(&document.chunks.hashes);
                    FirstSide::Text { document: Box::new(document), slots }
                }
                None => FirstSide::Unreadable,
            }
        };
        Ok(FirstDocument { side })
    }

    /// The characters of `first` and of document `second` in passages with
    /// each other; `None` when a text could not be read back as indexed.
    pub(crate) fn aligned(&mut self, first: &FirstDocument, second: u32) -> Result<Option<AlignedChars>, ArchiveError> {
        match &first.side {
            FirstSide::Chunks { chunks, ranges, taboo } => self.intervals(chunks, ranges, taboo, second),
            FirstSide::Text { document, slots } => self.aligned_text(document, slots, second),
            FirstSide::Unreadable => Ok(None),
        }
    }

    /// The paper's chunks: the valid intervals, as `check` finds them.
    fn intervals(
        &mut self,
        chunks: &FileChunks,
        first_ranges: &[CharRange],
        first_taboo: &[CharRange],
        second: u32,
    ) -> Result<Option<AlignedChars>, ArchiveError> {
        let index = self.index;
        let Some(theirs) = index.document_chunks(second)? else { return Ok(None) };
        self.found.clear();
        chunks.intervals_with(index.taboo(), &theirs.hashes, &self.intervals, &mut self.found);
        if self.found.is_empty() {
            return Ok(Some(AlignedChars { first: 0, second: 0 }));
        }
        let second_taboo = index.taboo().regions(&theirs.hashes, &theirs.ranges);
        let mut sides = (Vec::with_capacity(self.found.len()), Vec::with_capacity(self.found.len()));
        for interval in &self.found {
            let (mine, theirs) = interval.char_ranges(first_ranges, &theirs.ranges[..]).ok_or_else(|| {
                let (first, last) = interval.source;
                index.corrupt_record(second, format!("chunks {first}..={last} out of range"))
            })?;
            sides.0.push(outside(mine, first_taboo));
            sides.1.push(outside(theirs, &second_taboo));
        }
        Ok(Some(AlignedChars { first: union_len(&mut sides.0), second: union_len(&mut sides.1) }))
    }

    /// The `best` preset: the aligned passages, as `check` finds them.
    fn aligned_text(
        &mut self,
        document: &Document,
        slots: &FileSlots,
        second: u32,
    ) -> Result<Option<AlignedChars>, ArchiveError> {
        let Some((finder, budget)) = self.finder.as_mut() else { return Ok(None) };
        let Some(theirs) = self.index.document_chunks(second)? else { return Ok(None) };
        let mut hits = pair_hits(self.index, &document.chunks.hashes, slots, *budget, &theirs.hashes);
        let record = self.index.record(second);
        let source = PairSource { index: self.index, id: second, record, ranges: theirs.ranges, read: Cell::new(true) };
        let (passages, _) = finder.find(document, &mut hits, &source, None);
        if !source.read.get() {
            return Ok(None);
        }
        let side = |of: fn(&Passage) -> CharRange| union_len(&mut passages.iter().map(of).collect::<Vec<_>>());
        Ok(Some(AlignedChars { first: side(|p| p.suspicious), second: side(|p| p.source) }))
    }
}

/// The second document of a pair, as the only source document (number 0).
struct PairSource<'a> {
    index: &'a ArchiveIndex,
    id: u32,
    record: DocRecord,
    /// Its chunk ranges.
    ranges: Vec<CharRange>,
    /// False once its text was wanted and could not be read as indexed.
    read: Cell<bool>,
}

impl SourceDocuments for PairSource<'_> {
    type Ranges<'b>
        = &'b [CharRange]
    where
        Self: 'b;

    fn chunk_ranges(&self, _doc: u32) -> &[CharRange] {
        &self.ranges
    }

    fn content_chunks(&self, _doc: u32) -> u32 {
        self.record.content_chunks()
    }

    fn chars(&self, doc: u32) -> Option<u32> {
        self.record.chars_or_count(|| self.text(doc))
    }

    fn text(&self, _doc: u32) -> Option<String> {
        let text = self.index.document_text(self.id);
        self.read.set(self.read.get() && text.is_some());
        text
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::archive::builder::create;
    use crate::archive::check::Checker;
    use crate::archive::format::Settings;
    use crate::detect::params::Preset;
    use crate::progress::Silent;
    use crate::report::model::percent;
    use crate::testutil::prose;

    #[test]
    fn a_text_that_cannot_be_read_as_indexed_leaves_the_pair_unaligned() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        let (shared, a_text, b_text) = (prose(1, 80), format!("{}{}", prose(2, 30), prose(1, 80)), prose(3, 30));
        fs::write(docs.join("a.txt"), &a_text).unwrap();
        fs::write(docs.join("b.txt"), format!("{shared}{b_text}")).unwrap();
        let root = dir.path().join("idx");
        create(&docs, &root, &Settings::of_preset(Preset::Best), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&root).unwrap();
        let [a, b] = [0, 1];
        assert_eq!((index.name(a), index.name(b)), ("a.txt", "b.txt"));
        let mut aligner = PairAligner::new(&index);
        let first = aligner.first(a).unwrap();
        let chars = aligner.aligned(&first, b).unwrap().unwrap();
        assert!(chars.first > 500 && chars.second > 500, "{chars:?}");
        // The second document changed on disk: its indexed text is gone.
        fs::write(docs.join("b.txt"), "changed").unwrap();
        assert_eq!(aligner.aligned(&first, b).unwrap(), None);
        // The first one changed: no pair of it is aligned.
        fs::write(docs.join("a.txt"), "changed").unwrap();
        let first = aligner.first(a).unwrap();
        assert!(matches!(first.side, FirstSide::Unreadable));
        assert_eq!(aligner.aligned(&first, b).unwrap(), None);
        // The paper's chunks come from the texts as well.
        let pan09 = dir.path().join("pan09");
        fs::write(docs.join("a.txt"), &a_text).unwrap();
        fs::write(docs.join("b.txt"), format!("{shared}{b_text}")).unwrap();
        create(&docs, &pan09, &Settings::default(), None, &Silent).unwrap();
        let index = ArchiveIndex::open(&pan09).unwrap();
        let mut aligner = PairAligner::new(&index);
        let first = aligner.first(a).unwrap();
        let chars = aligner.aligned(&first, b).unwrap().unwrap();
        assert_eq!((chars.first, chars.second), (shared.trim_end().chars().count() as u64, chars.first));
        fs::remove_file(docs.join("b.txt")).unwrap();
        assert_eq!(aligner.aligned(&first, b).unwrap(), None);
    }

    #[test]
    fn a_pair_is_what_check_finds_against_an_index_of_the_second_alone() {
        for preset in [Preset::Pan09, Preset::Best] {
            let dir = tempfile::tempdir().unwrap();
            let (all, alone) = (dir.path().join("all"), dir.path().join("alone"));
            fs::create_dir_all(&all).unwrap();
            fs::create_dir_all(&alone).unwrap();
            // a copies from b twice and shares other passages with c and d,
            // which change the bounds `check` applies across the archive.
            let a = format!("{}{}{}{}{}", prose(1, 90), prose(10, 40), prose(2, 70), prose(11, 40), prose(1, 30));
            let b = format!("{}{}{}", prose(20, 50), prose(1, 120), prose(2, 70));
            fs::write(all.join("a.txt"), &a).unwrap();
            fs::write(all.join("b.txt"), &b).unwrap();
            fs::write(all.join("c.txt"), format!("{}{}", prose(10, 40), prose(1, 60))).unwrap();
            fs::write(all.join("d.txt"), format!("{}{}", prose(11, 40), prose(2, 40))).unwrap();
            fs::write(alone.join("b.txt"), &b).unwrap();
            let settings = Settings::of_preset(preset);
            create(&all, &dir.path().join("all.idx"), &settings, None, &Silent).unwrap();
            create(&alone, &dir.path().join("alone.idx"), &settings, None, &Silent).unwrap();
            let index = ArchiveIndex::open(&dir.path().join("all.idx")).unwrap();
            let mut aligner = PairAligner::new(&index);
            let first = aligner.first(0).unwrap();
            let chars = aligner.aligned(&first, 1).unwrap().unwrap();
            let single = ArchiveIndex::open(&dir.path().join("alone.idx")).unwrap();
            let report = Checker::new(&single, CheckParams::default()).unwrap().check_text("a.txt", &a).unwrap();
            let found = &report.documents[0];
            assert_eq!(chars.first, found.file_aligned_chars, "{preset:?}");
            let b_chars = b.chars().count() as u64;
            assert_eq!(percent(chars.second, b_chars), found.document_aligned_percent, "{preset:?}");
            assert!(chars.first > 500 && chars.second > 500, "{preset:?}: {chars:?}");
        }
    }
}
