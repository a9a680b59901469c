//! Reading documents: listing a directory's documents (the one listing rule of
//! `detect` and the archive) and turning their bytes into text: plain text
//! decoded (UTF-8, UTF-16 by its byte-order mark or its NUL bytes, or a legacy
//! encoding guessed from its bytes), PDF,
//! DOCX, ODT and HTML extracted ([`crate::analysis::extract`]), the format told
//! by content.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::analysis::encoding::{self, Encoding};
use crate::analysis::extract::cache::TextCache;
use crate::analysis::extract::layout::Layout;
use crate::analysis::extract::{self, Container};
use crate::analysis::span::{CharMap, CharRange, TextPiece};
use crate::error::{Error, Warning};
use crate::progress::Progress;
use crate::report::pan_xml::is_xml_char;

/// The extensions of the files listings take as documents, and what each
/// name promises. A file's format is told by its content; the name only
/// decides whether a file is a document at all, and how one that holds
/// neither a PDF nor a ZIP container is read.
const DOCUMENT_EXTENSIONS: [(&str, Named); 6] = [
    ("txt", Named::Text),
    ("pdf", Named::Binary("a PDF")),
    ("docx", Named::Binary("a DOCX")),
    ("odt", Named::Binary("an ODT")),
    ("html", Named::Html),
    ("htm", Named::Html),
];

/// What a document's name promises about its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// `*.txt`: plain text (never parsed as HTML: its markup is text whose
    /// characters PAN's offsets count).
    Text,
    /// `*.html`, `*.htm`: HTML, parsed whatever it opens with.
    Html,
    /// `*.pdf`, `*.docx`, `*.odt`: a binary document (the article), which
    /// must turn out to be one, or an HTML page saved under that name.
    Binary(&'static str),
}

impl Named {
    /// What the file name (or path) `name` promises, its extension in any
    /// case (`Thesis.PDF`, `Report.Docx`); `None` when it is not a document's.
    fn of(name: &Path) -> Option<Named> {
        let extension = name.extension()?.to_str()?;
        DOCUMENT_EXTENSIONS.iter().find(|(known, _)| known.eq_ignore_ascii_case(extension)).map(|&(_, named)| named)
    }
}

/// Whether the file at `path` is a document by its name: `*.txt`, `*.pdf`,
/// `*.docx`, `*.odt`, `*.html` or `*.htm`, in any case (`*.PDF`, `*.Docx`;
/// the rest of the name need not be UTF-8, the listing warns about it). The
/// one rule of every listing, of `check` and of the server's uploads.
pub fn is_document_name(path: &Path) -> bool {
    Named::of(path).is_some()
}

/// The name a document's outputs are named after (its report `STEM.xml`,
/// its extracted text `STEM.txt`): the file name without `.txt`, other
/// extensions kept, so that `a.txt` and `a.pdf` never share a report, and
/// the text `pan-detect text` writes of `a.pdf` (`a.pdf.txt`) is
/// reported as `a.pdf` is. A document in a subfolder (`detect --recursive`:
/// `2026/thesis.pdf`) has each `/` written `%2F` (`2026%2Fthesis.pdf`), so
/// that every output stays in its one directory; two documents that would
/// still share one are refused by the writers.
pub fn output_stem(name: &str) -> String {
    name.strip_suffix(".txt").unwrap_or(name).replace('/', "%2F")
}

/// XXH3-128 of a file's bytes: the content hash that tells modified
/// documents and keys the cache of extracted texts. Not cryptographic
/// (nothing here defends against a crafted collision), but 128 bits make an
/// accidental one out of reach, and it hashes at memory speed.
pub fn content_hash(bytes: &[u8]) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes()
}

/// Bytes of a document's file read at most: a text's character offsets are
/// 32-bit. A larger file (or an endless one, such as a device or a pipe named
/// on the command line) is skipped without reading further.
pub const MAX_DOCUMENT_BYTES: u64 = u32::MAX as u64;

/// Bytes read at most of an input that is not a document: a pairs, synonyms,
/// token or host file, ground truth or detections in PAN XML. PAN's largest
/// pairs file is 200 KB and a report of 60,000 detections 12 MB; a larger file
/// (or an endless one, such as `/dev/zero`) is refused without reading further.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The bytes of the input file at `path`, which is not a document (see
/// [`MAX_INPUT_BYTES`]), read through its handle and never more than that,
/// whatever its metadata says. A larger file is an error of kind
/// [`io::ErrorKind::FileTooLarge`] that names the bound.
pub fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    read_bounded(File::open(path)?, MAX_INPUT_BYTES)
}

/// [`read_input`] as text, which must be UTF-8 (an error of kind
/// [`io::ErrorKind::InvalidData`] otherwise, as [`fs::read_to_string`] gives).
pub fn read_input_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read_input(path)?).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        io::Error::new(io::ErrorKind::InvalidData, format!("not valid UTF-8 at byte {at}"))
    })
}

/// All bytes of `handle`, or an error when there are more than `max_bytes`.
fn read_bounded(handle: impl Read, max_bytes: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if append_at_most(handle, max_bytes, &mut bytes)? {
        return Ok(bytes);
    }
    let message = format!("larger than {max_bytes} bytes, the most read of a file that is not a document");
    Err(io::Error::new(io::ErrorKind::FileTooLarge, message))
}

/// Appends what `handle` holds to `bytes`, reading no further once `bytes`
/// would pass `max_bytes`; whether it all fitted.
fn append_at_most(handle: impl Read, max_bytes: u64, bytes: &mut Vec<u8>) -> io::Result<bool> {
    let rest = (max_bytes + 1).saturating_sub(bytes.len() as u64);
    handle.take(rest).read_to_end(bytes)?;
    Ok(bytes.len() as u64 <= max_bytes)
}

/// The bytes of the document `file`, read through its handle and never more
/// than [`MAX_DOCUMENT_BYTES`], whatever its metadata says: all of them, or
/// only the first [`encoding::PROBE_BYTES`] and one more of a plain text that
/// they show to be binary (its decoding then skips it). A file that cannot be
/// read, is larger, or is a plain text (not UTF-16) that turns binary later
/// (a block of [`encoding::PROBE_BYTES`] dense in NUL bytes, such as the hole
/// of a sparse file) is skipped: the warning names it and says why.
pub fn read_document(file: &DocumentFile) -> Result<Vec<u8>, Warning> {
    let handle = File::open(&file.path).map_err(|error| cannot_read(file, &error))?;
    read_capped(file, handle, MAX_DOCUMENT_BYTES)
}

/// [`read_document`] from `handle`, reading at most `max_bytes`.
fn read_capped(file: &DocumentFile, mut handle: impl Read, max_bytes: u64) -> Result<Vec<u8>, Warning> {
    let mut bytes = Vec::new();
    let start = max_bytes.min(encoding::PROBE_BYTES as u64 + 1);
    (&mut handle).take(start).read_to_end(&mut bytes).map_err(|error| cannot_read(file, &error))?;
    let fitted = match plain_text_encoding(file, &bytes) {
        Some(Encoding::Binary(_)) => return Ok(bytes),
        Some(Encoding::Utf16(_)) | None => {
            append_at_most(handle, max_bytes, &mut bytes).map_err(|error| cannot_read(file, &error))?
        }
        Some(_) => append_text_blocks(file, handle, max_bytes, &mut bytes)?,
    };
    if !fitted {
        let message = format!("larger than {max_bytes} bytes, more than 32-bit character offsets count; skipped");
        return Err(Warning { path: file.path.clone(), message });
    }
    Ok(bytes)
}

/// [`append_at_most`] for a plain text that is not UTF-16, one block of
/// [`encoding::PROBE_BYTES`] at a time, each judged as the probe was
/// ([`encoding::nul_dense`]): a block dense in NUL bytes makes the file
/// binary, and it is read no further (a text followed by a sparse hole of a
/// gigabyte is not decoded whole). A shorter last block is not judged.
fn append_text_blocks(
    file: &DocumentFile,
    mut handle: impl Read,
    max_bytes: u64,
    bytes: &mut Vec<u8>,
) -> Result<bool, Warning> {
    loop {
        let at = bytes.len();
        let block = (max_bytes + 1).saturating_sub(at as u64).min(encoding::PROBE_BYTES as u64);
        (&mut handle).take(block).read_to_end(bytes).map_err(|error| cannot_read(file, &error))?;
        let read = &bytes[at..];
        if read.len() == encoding::PROBE_BYTES
            && let Some(nuls) = encoding::nul_dense(read)
        {
            let message = format!("{nuls} NUL bytes in the {} bytes from byte {at}, looks binary; skipped", read.len());
            return Err(Warning { path: file.path.clone(), message });
        }
        if (read.len() as u64) < block || bytes.len() as u64 > max_bytes {
            return Ok(bytes.len() as u64 <= max_bytes);
        }
    }
}

/// The warning of a document that cannot be read.
fn cannot_read(file: &DocumentFile, error: &io::Error) -> Warning {
    Warning { path: file.path.clone(), message: format!("cannot read: {error}; skipped") }
}

/// The encoding [`encoding::sniff`] tells from `start`, the first bytes of
/// `file`, when they show it to be a plain text ([`Named::Text`] or
/// [`Named::Html`], no PDF or ZIP signature); `None` otherwise.
fn plain_text_encoding(file: &DocumentFile, start: &[u8]) -> Option<Encoding> {
    let named = Named::of(Path::new(&file.name)).unwrap_or(Named::Text);
    (Container::of(start).is_none() && matches!(named, Named::Text | Named::Html)).then(|| encoding::sniff(start))
}

/// Why no document may have the name `name`, whatever its extension: it
/// holds a character that XML 1.0 cannot hold ([`is_xml_char`]: a control
/// character other than tab, line feed and carriage return, U+FFFE or
/// U+FFFF), so no PAN XML report could name it. The listings skip such a
/// document (or a directory of such a name) with a warning, and the server
/// refuses to store one.
pub fn unreportable_name(name: &str) -> Option<String> {
    let c = name.chars().find(|&c| !is_xml_char(c))?;
    Some(format!("name holds U+{:04X}, a character XML reports cannot hold", u32::from(c)))
}

/// A document of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFile {
    /// The file name, e.g. `suspicious-document00042.txt` or `thesis.pdf`:
    /// the name reports use.
    pub name: String,
    /// Where the file is.
    pub path: PathBuf,
    /// Size in bytes when listed.
    pub bytes: u64,
}

/// The documents a listing found, and how many entries it skipped with a
/// warning (which `--strict` counts as skipped files).
#[derive(Debug)]
pub struct Listing<T> {
    /// The documents, sorted by name.
    pub documents: Vec<T>,
    /// Entries that would have been documents but were skipped with a warning.
    pub skipped: u64,
}

/// The documents directly in `dir` ([`is_document_name`]), sorted by name,
/// or with `recursive` every document under it, named by its path relative
/// to `dir` ([`list_document_files_recursive`]); an error when there is none.
/// Other files (such as the ground-truth `*.xml` beside PAN's suspicious
/// documents) are ignored; the rule for each entry is
/// [`list_document_files_recursive`]'s, and without `recursive` each folder
/// is named in a warning (not counted as a skipped file).
pub fn list_document_files(
    dir: &Path,
    recursive: bool,
    progress: &dyn Progress,
) -> Result<Listing<DocumentFile>, Error> {
    let Listing { documents, skipped } = walk(dir, recursive, progress)?;
    if documents.is_empty() {
        return Err(Error::NoDocuments(dir.to_path_buf()));
    }
    Ok(Listing { documents: documents.into_iter().map(|(file, _)| file).collect(), skipped })
}

/// Every document under `dir` ([`is_document_name`]), recursively, named by
/// its path relative to `dir` with `/` separators, sorted by name, with its
/// metadata.
///
/// The one rule of both listings: a symbolic link to a regular file is read as
/// that file (under the link's name); a link to a directory is not followed
/// (it could loop). Skipped with a warning through `progress`, one line naming
/// the path: a name that is not valid UTF-8 (reports and the index need UTF-8
/// names) or holds a character XML cannot ([`unreportable_name`]), a broken
/// link, a link to a directory, and a document name that is not a regular
/// file (in [`list_document_files`], which does not descend, a directory too).
pub fn list_document_files_recursive(
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Listing<(DocumentFile, fs::Metadata)>, Error> {
    walk(dir, true, progress)
}

fn walk(dir: &Path, recursive: bool, progress: &dyn Progress) -> Result<Listing<(DocumentFile, fs::Metadata)>, Error> {
    let metadata = fs::metadata(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => Error::MissingDirectory(dir.to_path_buf()),
        _ => Error::ListDirectory { path: dir.to_path_buf(), source },
    })?;
    if !metadata.is_dir() {
        return Err(Error::NotADirectory(dir.to_path_buf()));
    }
    let (mut files, mut skipped) = (Vec::new(), 0);
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = pending.pop() {
        let list_error = |source| Error::ListDirectory { path: path.clone(), source };
        for entry in fs::read_dir(&path).map_err(list_error)? {
            let entry = entry.map_err(list_error)?;
            match classify(&entry, recursive, progress).map_err(list_error)? {
                Entry::Directory(name) => pending.push((entry.path(), format!("{prefix}{name}/"))),
                Entry::Document(name, metadata) => {
                    let file =
                        DocumentFile { name: format!("{prefix}{name}"), path: entry.path(), bytes: metadata.len() };
                    files.push((file, metadata));
                }
                Entry::Skipped => skipped += 1,
                Entry::Ignored => {}
            }
        }
    }
    files.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    Ok(Listing { documents: files, skipped })
}

/// What a listing does with one directory entry.
enum Entry {
    /// A document to read: its name and its (followed) metadata.
    Document(String, fs::Metadata),
    /// A directory to descend into (recursive listings only).
    Directory(String),
    /// Skipped with a warning.
    Skipped,
    /// Nothing: not a document.
    Ignored,
}

/// The rule of [`list_document_files_recursive`] for one entry.
fn classify(entry: &fs::DirEntry, recursive: bool, progress: &dyn Progress) -> std::io::Result<Entry> {
    let path = entry.path();
    let file_type = entry.file_type()?; // Of the entry itself: a link is not followed here.
    let is_document = is_document_name(&path);
    let is_link = file_type.is_symlink();
    let skip = |message: String| {
        progress.warn(&Warning { path: path.clone(), message: format!("{message}; skipped") });
        Ok(Entry::Skipped)
    };
    let name = || entry.file_name().to_str().map(str::to_string);
    if file_type.is_dir() {
        return match (recursive, name()) {
            (false, _) => {
                progress.warn(&Warning { path, message: "a folder, skipped (use --recursive)".into() });
                Ok(Entry::Ignored)
            }
            (true, Some(name)) => match unreportable_name(&name) {
                Some(reason) => skip(format!("directory {reason}")),
                None => Ok(Entry::Directory(name)),
            },
            (true, None) => skip("directory name is not valid UTF-8".into()),
        };
    }
    // Only a link may lead to a directory; in a recursive listing any link is
    // looked at, so that a linked directory is named rather than silently missed.
    if !(is_document || recursive && is_link) {
        return Ok(Entry::Ignored);
    }
    // A link is followed; any other entry's own metadata is its target's,
    // read relative to the open directory (no walk of the whole path).
    let target = if is_link { fs::metadata(&path) } else { entry.metadata() };
    let target = match target {
        Ok(target) => target,
        Err(_) if !is_document => return Ok(Entry::Ignored),
        Err(error) if is_link => return skip(format!("broken symbolic link ({error})")),
        Err(error) => return skip(format!("cannot read: {error}")),
    };
    if target.is_dir() {
        return skip("symbolic link to a directory, not followed (it could loop)".into());
    }
    if !is_document {
        return Ok(Entry::Ignored);
    }
    if !target.is_file() {
        let what = if is_link { "symbolic link to something that is not a regular file" } else { "not a regular file" };
        return skip(what.into());
    }
    match name() {
        Some(name) => match unreportable_name(&name) {
            Some(reason) => skip(reason),
            None => Ok(Entry::Document(name, target)),
        },
        None => skip("name is not valid UTF-8 (reports and the index need UTF-8 names)".into()),
    }
}

/// Whether `a` and `b` name the same directory (their canonical paths are
/// equal); false when either cannot be resolved.
pub fn same_directory(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Splits `items` into consecutive batches of at most `max_bytes` each by
/// `bytes_of` (at least one item per batch), so that a parallel stage holds a
/// bounded amount of text and buffers at once.
pub fn batches_by_bytes<T>(items: &[T], max_bytes: u64, bytes_of: impl Fn(&T) -> u64) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0;
        let fitting = rest.iter().take_while(|item| {
            bytes += bytes_of(item);
            bytes <= max_bytes
        });
        let (batch, tail) = rest.split_at(fitting.count().max(1));
        rest = tail;
        Some(batch)
    })
}

/// Where the characters of `text`, the text of `file`, were in the document
/// (the [`Layout`] of a PDF or DOCX): extracted again, since the cache of
/// extracted texts keeps texts only. Empty for a plain text, an HTML page or
/// an ODT, and when the file cannot be read or no longer gives `text`.
pub fn layout_of(file: &DocumentFile, text: &str) -> Layout {
    let Ok(bytes) = read_document(file) else { return Layout::default() };
    match Container::of(&bytes).map(|container| extract::extract(container, &bytes)) {
        Some(Ok(extracted)) if extracted.text == text => extracted.layout,
        _ => Layout::default(),
    }
}

/// A document's text, or why it was skipped.
#[derive(Debug)]
pub enum Loaded {
    /// The text, decoded or extracted, with a warning when something about it
    /// is worth one (not valid UTF-8, a PDF without text).
    Text(String, Option<Warning>),
    /// The file was not read as text; the warning says why.
    Skipped(Warning),
}

impl Loaded {
    /// The text, its warning (a lossy decoding's) sent to `progress`; `None`
    /// for a skipped document, whose warning says why.
    pub fn text_or_warn(self, progress: &dyn Progress) -> Option<String> {
        match self {
            Loaded::Text(text, warning) => {
                if let Some(warning) = warning {
                    progress.warn(&warning);
                }
                Some(text)
            }
            Loaded::Skipped(warning) => {
                progress.warn(&warning);
                None
            }
        }
    }
}

/// Reads documents into text: plain text decoded, PDF, DOCX, ODT and HTML
/// extracted, with the extracted texts kept in a [`TextCache`] when one is
/// given (plain text and HTML need none: decoding them costs no more than
/// reading a cached text).
#[derive(Debug, Clone, Copy, Default)]
pub struct TextReader<'a> {
    cache: Option<&'a TextCache>,
    /// Where the documents are when they are not files.
    memory: Option<&'a MemoryDocuments>,
}

impl<'a> TextReader<'a> {
    /// A reader that keeps extracted texts in `cache`, when given.
    pub fn new(cache: Option<&'a TextCache>) -> Self {
        TextReader { cache, memory: None }
    }

    /// A reader of the documents held in `memory` instead of files (no
    /// cache: nothing is read twice from a disk).
    pub fn in_memory(memory: &'a MemoryDocuments) -> Self {
        TextReader { cache: None, memory: Some(memory) }
    }

    /// The bytes of the document `file`, as [`read_document`] reads them:
    /// from its file, or from memory for a reader [`in_memory`](Self::in_memory).
    pub fn read_bytes(&self, file: &DocumentFile) -> Result<Vec<u8>, Warning> {
        match self.memory {
            None => read_document(file),
            Some(memory) => read_capped(file, memory.bytes_of(file)?, MAX_DOCUMENT_BYTES),
        }
    }

    /// Reads one document into text (see [`decode`](Self::decode)); an
    /// unreadable file is skipped.
    pub fn load(&self, file: &DocumentFile) -> Loaded {
        match self.read_bytes(file) {
            Ok(bytes) => self.decode(file, bytes),
            Err(warning) => Loaded::Skipped(warning),
        }
    }

    /// The text of one document read again (for the alignment), or `None`
    /// when it is now skipped; its warnings were given when it was first read.
    pub fn load_text(&self, file: &DocumentFile) -> Option<String> {
        match self.load(file) {
            Loaded::Text(text, _) => Some(text),
            Loaded::Skipped(_) => None,
        }
    }

    /// The text of a document's `bytes`, for callers that need the raw bytes
    /// too (the archive hashes them). The format is told by content:
    ///
    /// * `%PDF-` and a ZIP container (DOCX, ODT) are extracted, whatever the
    ///   name ([`extract::extract`]); a file that cannot be is skipped;
    /// * a `*.txt` is plain text (UTF-8, UTF-16 by its byte-order mark or its
    ///   NUL bytes, a legacy encoding guessed from its bytes, or skipped as
    ///   binary: [`encoding::sniff`]), markup and all;
    /// * a `*.html` or `*.htm` is decoded as plain text is, then parsed as HTML;
    /// * a `*.pdf`, `*.docx` or `*.odt` that holds none of these is parsed as
    ///   HTML when it opens like a page (a saved error page), and skipped
    ///   otherwise.
    pub fn decode(&self, file: &DocumentFile, bytes: Vec<u8>) -> Loaded {
        self.decode_with_origin(file, bytes).0
    }

    /// [`decode`](Self::decode), telling too whether the text is the file's
    /// bytes as they are.
    pub fn decode_with_origin(&self, file: &DocumentFile, bytes: Vec<u8>) -> (Loaded, TextOrigin) {
        if let Some(container) = Container::of(&bytes) {
            return (self.extract(file, &bytes, container), TextOrigin::Other);
        }
        let parsed = |decoded: (Loaded, TextOrigin)| (parse_html(decoded.0), TextOrigin::Other);
        match Named::of(Path::new(&file.name)).unwrap_or(Named::Text) {
            Named::Text => decode_text(file, bytes),
            Named::Html => parsed(decode_text(file, bytes)),
            Named::Binary(_) if extract::looks_like_html(&bytes) => parsed(decode_text(file, bytes)),
            Named::Binary(kind) => {
                let message = format!("named like {kind} but holds no PDF, DOCX, ODT or HTML document; skipped");
                (Loaded::Skipped(Warning { path: file.path.clone(), message }), TextOrigin::Other)
            }
        }
    }

    /// At least the characters `range` of a document's text, read again
    /// for the alignment: only the bytes that hold them when `map` (the
    /// text's, made when it was first read) says where they are in the file,
    /// as it can when the text is the file's bytes as they are
    /// ([`TextOrigin::FileBytes`]); the whole text otherwise. `None` when
    /// the file can no longer be read as it was: unreadable, or of another
    /// size.
    pub fn load_piece(&self, file: &DocumentFile, map: Option<&CharMap>, range: CharRange) -> Option<TextPiece> {
        let Some(map) = map else {
            return self.load_text(file).map(|text| TextPiece { first_char: 0, text });
        };
        let (first_char, bytes) = map.bytes_of(range);
        let bytes = match self.memory {
            None => read_file_range(&file.path, map.bytes(), bytes).ok()?,
            Some(memory) => memory.bytes_of(file).ok()?.get(bytes.start as usize..bytes.end as usize)?.to_vec(),
        };
        String::from_utf8(bytes).ok().map(|text| TextPiece { first_char, text })
    }

    /// The text extracted from a document in `container`: the cached one, or
    /// extracted and cached.
    fn extract(&self, file: &DocumentFile, bytes: &[u8], container: Container) -> Loaded {
        let warning = |message: String| Warning { path: file.path.clone(), message };
        let key = content_hash(bytes);
        if let Some(text) = self.cache.and_then(|cache| cache.get(&key)) {
            return Loaded::Text(text, None);
        }
        match extract::extract(container, bytes) {
            Err(error) => Loaded::Skipped(warning(format!("{error}; skipped"))),
            Ok(extracted) => {
                let mut notes: Vec<String> = extracted.note.into_iter().collect();
                if let Some(cache) = self.cache
                    && let Err(error) = cache.put(&key, &extracted.text)
                {
                    notes.push(format!("extracted text not cached in {}: {error}", cache.dir().display()));
                }
                Loaded::Text(extracted.text, (!notes.is_empty()).then(|| warning(notes.join("; "))))
            }
        }
    }
}

/// Documents held in memory, each under the path of the [`DocumentFile`]
/// that names it, read instead of files by a [`TextReader::in_memory`]: so
/// that texts a program holds (the Python module's `align`) go through the
/// stages that files go through, with no file written.
#[derive(Debug, Default)]
pub struct MemoryDocuments {
    bytes: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryDocuments {
    /// Holds `bytes` as the document `name` of the directory `dir` (a path
    /// for messages only; nothing is read from it) and returns its file;
    /// `None` when that directory holds a document of that name already.
    pub fn add(&mut self, dir: &Path, name: &str, bytes: Vec<u8>) -> Option<DocumentFile> {
        let file = DocumentFile { name: name.to_string(), path: dir.join(name), bytes: bytes.len() as u64 };
        if self.bytes.contains_key(&file.path) {
            return None;
        }
        self.bytes.insert(file.path.clone(), bytes);
        Some(file)
    }

    /// The bytes held for `file`; a warning when there are none.
    fn bytes_of(&self, file: &DocumentFile) -> Result<&[u8], Warning> {
        let held = self.bytes.get(&file.path).map(Vec::as_slice);
        held.ok_or_else(|| Warning { path: file.path.clone(), message: "not held in memory; skipped".into() })
    }
}

/// Whether a document's text is its file's bytes as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextOrigin {
    /// The file's bytes as they are, valid UTF-8: the bytes of any range of
    /// characters can be read again alone ([`TextReader::load_piece`]).
    FileBytes,
    /// Decoded (UTF-16, UTF-8 with invalid bytes, a legacy encoding), parsed (HTML), extracted
    /// (PDF, DOCX, ODT), or not known.
    #[default]
    Other,
}

/// The bytes `range` of the file at `path`, which must still be `len` bytes
/// long.
fn read_file_range(path: &Path, len: u64, range: Range<u64>) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    if file.metadata()?.len() != len {
        return Err(io::Error::other("the file changed size since it was read"));
    }
    file.seek(SeekFrom::Start(range.start))?;
    let mut bytes = vec![0; (range.end - range.start) as usize];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// The text of an HTML page decoded as plain text.
fn parse_html(decoded: Loaded) -> Loaded {
    match decoded {
        Loaded::Text(html, warning) => Loaded::Text(extract::html_text(&html), warning),
        skipped => skipped,
    }
}

/// Decodes the bytes of a plain-text document in the encoding its first bytes
/// tell ([`encoding::sniff`]): UTF-16 without its byte-order mark (as Python's
/// `utf-16` codec does, so offsets count the characters PAN's scripts count),
/// with a warning when some code units are invalid; UTF-8, invalid sequences
/// replaced (offsets then count the replacement characters) with a warning;
/// a legacy encoding guessed from its bytes, all of the file decoded in it
/// with a warning naming the guess (offsets count the decoded characters); or
/// binary, skipped.
///
/// A text longer than 32-bit character offsets allow is skipped.
fn decode_text(file: &DocumentFile, bytes: Vec<u8>) -> (Loaded, TextOrigin) {
    let warning = |message: String| Warning { path: file.path.clone(), message };
    if bytes.len() > u32::MAX as usize {
        return (Loaded::Skipped(warning("longer than 4 G characters; skipped".into())), TextOrigin::Other);
    }
    match encoding::sniff(&bytes) {
        Encoding::Utf16(endian) => {
            let (text, invalid) = encoding::decode_utf16(&bytes, endian);
            let message = (invalid > 0)
                .then(|| format!("UTF-16 with {invalid} invalid code units; decoded with replacement characters"));
            (Loaded::Text(text, message.map(warning)), TextOrigin::Other)
        }
        Encoding::Legacy(legacy) => {
            let (text, invalid) = encoding::decode_legacy(&bytes, legacy);
            let replaced = if invalid { "; bytes invalid in it replaced with replacement characters" } else { "" };
            let message = format!("not UTF-8: decoded as {} (guessed from its bytes){replaced}", legacy.name());
            (Loaded::Text(text, Some(warning(message))), TextOrigin::Other)
        }
        Encoding::Binary(reason) => (Loaded::Skipped(warning(format!("{reason}; skipped"))), TextOrigin::Other),
        Encoding::Utf8 => match String::from_utf8(bytes) {
            Ok(text) => (Loaded::Text(text, None), TextOrigin::FileBytes),
            Err(error) => {
                let at = error.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
                let message = format!("not valid UTF-8 at byte {at}; decoded with replacement characters");
                (Loaded::Text(text, Some(warning(message))), TextOrigin::Other)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::escape_invisible;
    use crate::progress::Silent;

    #[test]
    fn lists_only_text_files_sorted() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.txt", "a.txt", "a.xml", "notes"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        fs::create_dir(dir.path().join("sub.txt")).unwrap();
        let names: Vec<_> =
            list_document_files(dir.path(), false, &Silent).unwrap().documents.into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["a.txt", "b.txt"]);
    }

    #[test]
    fn follows_links_to_files_and_warns_about_what_it_skips() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let (root, elsewhere) = (dir.path().join("docs"), dir.path().join("elsewhere"));
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("target.txt"), "linked text").unwrap();
        fs::write(root.join("plain.txt"), "x").unwrap();
        fs::write(root.join("sub/deep.txt"), "x").unwrap();
        symlink(elsewhere.join("target.txt"), root.join("linked.txt")).unwrap();
        symlink(elsewhere.join("missing.txt"), root.join("broken.txt")).unwrap();
        symlink(&elsewhere, root.join("dir-link.txt")).unwrap();
        symlink(&elsewhere, root.join("dir-link")).unwrap();
        let bad_name = root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
        fs::write(&bad_name, "x").unwrap();

        let warnings = crate::progress::Collect::default();
        let flat = list_document_files(&root, false, &warnings).unwrap();
        assert_eq!(flat.skipped, 3, "each warning but the folder's is a skipped entry");
        let flat = flat.documents;
        let names: Vec<_> = flat.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["linked.txt", "plain.txt"]);
        assert_eq!(flat[0].bytes, "linked text".len() as u64, "the size of the link's target");
        let at = |name: &str| root.join(name).display().to_string();
        let expected = [
            format!("{}: broken symbolic link (No such file or directory (os error 2)); skipped", at("broken.txt")),
            format!(
                "{}: name is not valid UTF-8 (reports and the index need UTF-8 names); skipped",
                bad_name.display()
            ),
            format!("{}: symbolic link to a directory, not followed (it could loop); skipped", at("dir-link.txt")),
        ];
        let folder = format!("{}: a folder, skipped (use --recursive)", at("sub"));
        let mut flat_expected = [&expected[..], &[folder]].concat();
        flat_expected.sort();
        assert_eq!(warnings.lines(), flat_expected);

        let warnings = crate::progress::Collect::default();
        let recursive = list_document_files_recursive(&root, &warnings).unwrap();
        assert_eq!(recursive.skipped, 4);
        let names: Vec<_> = recursive.documents.iter().map(|(f, _)| f.name.as_str()).collect();
        assert_eq!(names, ["linked.txt", "plain.txt", "sub/deep.txt"]);
        let listed = list_document_files(&root, true, &crate::progress::Collect::default()).unwrap();
        assert_eq!(listed.documents.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), names);
        let mut expected = expected.to_vec();
        expected
            .push(format!("{}: symbolic link to a directory, not followed (it could loop); skipped", at("dir-link")));
        expected.sort();
        assert_eq!(warnings.lines(), expected);
    }

    #[test]
    fn batches_hold_at_most_max_bytes_and_at_least_one_item() {
        let sizes = [3u64, 4, 10, 1, 1, 1, 2];
        let batches: Vec<&[u64]> = batches_by_bytes(&sizes, 7, |&b| b).collect();
        assert_eq!(batches, [&[3, 4][..], &[10], &[1, 1, 1, 2]]);
        assert_eq!(batches_by_bytes(&[] as &[u64], 7, |&b| b).count(), 0);
    }

    #[test]
    fn directory_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            list_document_files(&missing, false, &Silent).unwrap_err().to_string(),
            format!("{}: no such directory", missing.display())
        );
        assert!(matches!(list_document_files(dir.path(), false, &Silent), Err(Error::NoDocuments(_))));
        let file = dir.path().join("f.txt");
        fs::write(&file, "x").unwrap();
        assert!(matches!(list_document_files(&file, false, &Silent), Err(Error::NotADirectory(_))));
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_and_binary_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            DocumentFile { name: name.into(), path, bytes: bytes.len() as u64 }
        };
        let mut utf8 = "Café au lait, crème brûlée: ".as_bytes().to_vec();
        utf8.extend(b"corrupt \xff and \xe9 bytes");
        match TextReader::default().load(&file("corrupt.txt", &utf8)) {
            Loaded::Text(text, Some(warning)) => {
                assert_eq!(text, "Café au lait, crème brûlée: corrupt \u{fffd} and \u{fffd} bytes");
                assert!(
                    warning
                        .to_string()
                        .ends_with("corrupt.txt: not valid UTF-8 at byte 40; decoded with replacement characters")
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(TextReader::default().load(&file("bin.txt", b"ab\0cd")), Loaded::Skipped(_)));
        assert!(matches!(
            TextReader::default().load(&file("image.txt", &[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0, 0, 1, 0])),
            Loaded::Skipped(_)
        ));
        assert!(
            matches!(TextReader::default().load(&file("empty.txt", b"")), Loaded::Text(text, None) if text.is_empty())
        );
    }

    #[test]
    fn legacy_text_is_decoded_whole_in_the_guessed_encoding_with_a_warning() {
        let czech = "Příliš žluťoučký kůň úpěl ďábelské ódy. Čeština má spoustu háčků a čárek; šíří se i mimo \
            Česko. Řeřicha, šťovík a žížala jsou slova, která cizinci vyslovují těžko.\n"
            .repeat(2000);
        let (bytes, _, _) = encoding_rs::WINDOWS_1250.encode(&czech);
        assert!(bytes.len() > encoding::PROBE_BYTES, "the whole file decoded, not only its probe");
        match decoded(&bytes) {
            Loaded::Text(text, Some(warning)) => {
                assert_eq!(text, czech);
                assert_eq!(warning.message, "not UTF-8: decoded as windows-1250 (guessed from its bytes)");
            }
            other => panic!("unexpected {other:?}"),
        }
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("本論文では、学術文書における剽窃の検出方法について述べる。");
        // A lead byte without its trail byte after the probe, which the guess
        // was made from.
        let mut bytes = bytes.repeat(encoding::PROBE_BYTES / bytes.len() + 1);
        bytes.extend(b"\x81\x7f end");
        match decoded(&bytes) {
            Loaded::Text(text, Some(warning)) => {
                assert!(text.ends_with("述べる。\u{fffd}\x7f end"), "{text}");
                assert_eq!(
                    warning.message,
                    "not UTF-8: decoded as Shift_JIS (guessed from its bytes); bytes invalid in it replaced with \
                     replacement characters"
                );
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    fn decoded(bytes: &[u8]) -> Loaded {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.txt");
        fs::write(&path, bytes).unwrap();
        TextReader::default().load(&DocumentFile { name: "doc.txt".into(), path, bytes: bytes.len() as u64 })
    }

    #[test]
    fn only_valid_utf8_plain_text_is_the_files_bytes_as_they_are() {
        let origin = |name: &str, bytes: &[u8]| {
            let file = DocumentFile { name: name.into(), path: PathBuf::from(name), bytes: bytes.len() as u64 };
            TextReader::default().decode_with_origin(&file, bytes.to_vec()).1
        };
        assert_eq!(origin("a.txt", "plain text, čeština".as_bytes()), TextOrigin::FileBytes);
        assert_eq!(origin("a.txt", b"invalid \xff byte"), TextOrigin::Other);
        assert_eq!(origin("a.txt", "p\u{159}\u{ed}li\u{161} ".repeat(9).as_bytes()), TextOrigin::FileBytes);
        assert_eq!(origin("a.txt", &b"p\xf8\xedli\x9a ".repeat(9)), TextOrigin::Other);
        assert_eq!(origin("a.txt", &[0xFF, 0xFE, b'a', 0]), TextOrigin::Other);
        assert_eq!(origin("a.html", b"<p>page</p>"), TextOrigin::Other);
    }

    #[test]
    fn a_piece_is_read_alone_and_refused_when_the_file_changed_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.txt");
        let text = "čeština ".repeat(1000);
        fs::write(&path, &text).unwrap();
        let file = DocumentFile { name: "doc.txt".into(), path: path.clone(), bytes: text.len() as u64 };
        let map = CharMap::new(&text);
        let range = CharRange::new(3000, 3100);
        let piece = TextReader::default().load_piece(&file, Some(&map), range).unwrap();
        assert!(piece.first_char <= 3000 && piece.text.len() < text.len() / 2, "{}", piece.first_char);
        let from_first: String = text.chars().skip(piece.first_char as usize).collect();
        assert!(from_first.starts_with(&piece.text));
        assert!(piece.first_char as usize + piece.text.chars().count() >= 3100);
        let whole = TextReader::default().load_piece(&file, None, range).unwrap();
        assert_eq!(whole, TextPiece { first_char: 0, text: text.clone() });
        fs::write(&path, format!("{text}more")).unwrap();
        assert_eq!(TextReader::default().load_piece(&file, Some(&map), range), None);
    }

    #[test]
    fn a_few_stray_nul_bytes_stay_in_the_text_as_characters() {
        let mut bytes = "Stray NUL bytes from a web crawl: ".repeat(20).into_bytes();
        bytes.splice(10..10, [0u8]);
        bytes.extend("\0 and a word after it, Köln.".as_bytes());
        match decoded(&bytes) {
            Loaded::Text(text, None) => {
                assert_eq!(text.chars().nth(10), Some('\0'));
                assert!(text.ends_with("\0 and a word after it, Köln."));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded_without_it() {
        let text = "Zürich 𝄞 naïve text";
        let little: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let big: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
        for bytes in [little, big] {
            assert!(matches!(decoded(&bytes), Loaded::Text(t, None) if t == text));
        }
    }

    #[test]
    fn utf16_without_a_mark_is_recognised_by_its_nul_bytes() {
        let text = "Plain English text written as UTF-16, little endian, with no byte-order mark.";
        let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(matches!(decoded(&bytes), Loaded::Text(t, None) if t == text));
        let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert!(matches!(decoded(&bytes), Loaded::Text(t, None) if t == text));
    }

    #[test]
    fn cyrillic_utf16_without_a_mark_is_text_and_random_bytes_are_skipped() {
        let text = "Съешь же ещё этих мягких французских булок, да выпей чаю.";
        let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(matches!(decoded(&bytes), Loaded::Text(t, None) if t == text));
        let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        match decoded(&random) {
            Loaded::Skipped(warning) => assert!(warning.message.ends_with("looks binary; skipped"), "{warning}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn reading_stops_at_the_cap_whatever_the_file_says() {
        let file = DocumentFile { name: "endless.txt".into(), path: PathBuf::from("endless.txt"), bytes: 0 };
        let warning = read_capped(&file, io::repeat(b'a'), 1000).unwrap_err();
        assert_eq!(
            warning.to_string(),
            "endless.txt: larger than 1000 bytes, more than 32-bit character offsets count; skipped"
        );
        assert_eq!(read_capped(&file, &b"abc"[..], 3).unwrap(), b"abc");
        // A plain text binary by its first bytes is read no further.
        let zeros = read_capped(&file, io::repeat(0), 1 << 30).unwrap();
        assert_eq!(zeros.len(), encoding::PROBE_BYTES + 1);
    }

    #[test]
    fn an_input_is_read_whole_up_to_its_bound_and_refused_past_it() {
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), b"abc");
        let error = read_bounded(io::repeat(0), 1000).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(error.to_string(), "larger than 1000 bytes, the most read of a file that is not a document");
        let error = read_input(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge, "{error}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairs");
        fs::write(&path, b"ok \xff").unwrap();
        assert_eq!(read_input_to_string(&path).unwrap_err().to_string(), "not valid UTF-8 at byte 3");
    }

    #[test]
    fn a_plain_text_that_turns_to_nul_bytes_is_skipped_before_it_is_read_whole() {
        let file = DocumentFile { name: "hole.txt".into(), path: PathBuf::from("hole.txt"), bytes: 0 };
        let text = "A text before a hole. ".repeat(10_000);
        let warning = read_capped(&file, text.as_bytes().chain(io::repeat(0)), MAX_DOCUMENT_BYTES).unwrap_err();
        assert!(warning.message.contains("NUL bytes in the 65536 bytes from byte "), "{warning}");
        assert!(warning.message.ends_with("looks binary; skipped"), "{warning}");
        // A few NULs, or a NUL run shorter than a block at the end, stay text.
        let mut bytes = text.clone().into_bytes();
        bytes.extend([0; 1000]);
        assert_eq!(read_capped(&file, &bytes[..], MAX_DOCUMENT_BYTES).unwrap(), bytes);
        // UTF-16 is nearly half NUL bytes, in every block.
        let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(read_capped(&file, &utf16[..], MAX_DOCUMENT_BYTES).unwrap(), utf16);
        // A PDF or a ZIP container is read whole, whatever it holds.
        let pdf = DocumentFile { name: "a.pdf".into(), ..file };
        let bytes: Vec<u8> = b"%PDF-1.7\n".iter().copied().chain(std::iter::repeat_n(0, 300_000)).collect();
        assert_eq!(read_capped(&pdf, &bytes[..], MAX_DOCUMENT_BYTES).unwrap().len(), bytes.len());
    }

    #[test]
    fn names_holding_characters_xml_cannot_are_skipped_and_a_directory_named_like_a_document_too() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.txt", "ctl\u{1}.txt", "tab\tand\nline.txt", "bad\u{fffe}.txt"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        fs::create_dir(dir.path().join("x.txt")).unwrap();
        fs::create_dir(dir.path().join("sub\u{7}")).unwrap();
        fs::write(dir.path().join("sub\u{7}/deep.txt"), "x").unwrap();
        let warnings = crate::progress::Collect::default();
        let listing = list_document_files(dir.path(), false, &warnings).unwrap();
        let names: Vec<_> = listing.documents.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "tab\tand\nline.txt"]);
        assert_eq!(listing.skipped, 2);
        let at = |name: &str| escape_invisible(&dir.path().join(name).display().to_string());
        let mut expected = vec![
            format!("{}: name holds U+0001, a character XML reports cannot hold; skipped", at("ctl\u{1}.txt")),
            format!("{}: name holds U+FFFE, a character XML reports cannot hold; skipped", at("bad\u{fffe}.txt")),
            format!("{}: a folder, skipped (use --recursive)", at("x.txt")),
            format!("{}: a folder, skipped (use --recursive)", at("sub\u{7}")),
        ];
        expected.sort();
        let mut lines = warnings.lines();
        lines.sort();
        assert_eq!(lines, expected);
        let warnings = crate::progress::Collect::default();
        let listing = list_document_files_recursive(dir.path(), &warnings).unwrap();
        let names: Vec<_> = listing.documents.iter().map(|(f, _)| f.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "tab\tand\nline.txt"], "x.txt is descended into, sub\\u{{7}} is not");
        assert!(warnings.lines().iter().any(|line| line.ends_with("directory name holds U+0007, a character XML reports cannot hold; skipped")));
    }

    #[test]
    fn an_endless_device_is_skipped_after_its_first_bytes() {
        let file = DocumentFile { name: "zero".into(), path: PathBuf::from("/dev/zero"), bytes: 0 };
        match TextReader::default().load(&file) {
            Loaded::Skipped(warning) => {
                assert_eq!(
                    warning.to_string(),
                    "/dev/zero: 65536 NUL bytes in the first 65536 bytes, looks binary; skipped"
                )
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// What `name` holding `bytes` reads as, with `cache`.
    fn read_as(name: &str, bytes: &[u8], cache: Option<&TextCache>) -> Loaded {
        let file = DocumentFile { name: name.into(), path: PathBuf::from(name), bytes: bytes.len() as u64 };
        TextReader::new(cache).decode(&file, bytes.to_vec())
    }

    #[test]
    fn markup_in_a_txt_is_text_and_an_html_file_is_parsed_whatever_it_opens_with() {
        let page = "<html><body><p>Mlýn &amp; náhon</p></body></html>";
        assert!(matches!(read_as("page.txt", page.as_bytes(), None), Loaded::Text(t, None) if t == page));
        assert!(matches!(read_as("page.html", page.as_bytes(), None), Loaded::Text(t, None) if t == "Mlýn & náhon"));
        let fragment = "<b>bold</b> text";
        assert!(matches!(read_as("a.htm", fragment.as_bytes(), None), Loaded::Text(t, None) if t == "bold text"));
    }

    #[test]
    fn outputs_are_named_without_txt_and_with_slashes_escaped() {
        assert_eq!(output_stem("suspicious-document00001.txt"), "suspicious-document00001");
        assert_eq!(output_stem("thesis.pdf"), "thesis.pdf");
        assert_eq!(output_stem("2026/spring/thesis.pdf"), "2026%2Fspring%2Fthesis.pdf");
        assert_eq!(output_stem("2026/a.txt"), "2026%2Fa");
    }

    #[test]
    fn a_documents_extension_is_told_whatever_its_case() {
        for name in ["Thesis.PDF", "Jan Novák - Thesis.Pdf", "Report.DOCX", "notes.TXT", "a.Odt", "page.HTM"] {
            assert!(is_document_name(Path::new(name)), "{name}");
        }
        for name in ["a.xml", "a.PDFX", "PDF", "a.tx"] {
            assert!(!is_document_name(Path::new(name)), "{name}");
        }
        let page = "<p>Mlýn &amp; náhon</p>";
        assert!(matches!(read_as("page.HTML", page.as_bytes(), None), Loaded::Text(t, None) if t == "Mlýn & náhon"));
        assert!(matches!(read_as("notes.PDF", b"plain text", None), Loaded::Skipped(_)));
    }

    #[test]
    fn a_file_named_like_a_pdf_must_be_a_document_or_a_page() {
        match read_as("notes.pdf", b"plain text", None) {
            Loaded::Skipped(warning) => {
                assert_eq!(warning.message, "named like a PDF but holds no PDF, DOCX, ODT or HTML document; skipped")
            }
            other => panic!("unexpected {other:?}"),
        }
        let error_page = b"<!DOCTYPE html><title>404</title><p>Not found</p>";
        assert!(matches!(read_as("thesis.pdf", error_page, None), Loaded::Text(t, None) if t == "Not found"));
    }

    #[test]
    fn an_extracted_text_is_cached_by_content_and_read_back_instead_of_extracting_again() {
        let docx = crate::analysis::extract::test_zip(&[(
            "word/document.xml",
            "<w:document><w:body><w:p><w:r><w:t>Vodní mlýn</w:t></w:r></w:p></w:body></w:document>",
        )]);
        let dir = tempfile::tempdir().unwrap();
        let cache = TextCache::open(dir.path()).unwrap();
        // Any name: the content tells a DOCX.
        assert!(matches!(read_as("upload", &docx, Some(&cache)), Loaded::Text(t, None) if t == "Vodní mlýn"));
        assert_eq!(cache.get(&content_hash(&docx)).as_deref(), Some("Vodní mlýn"));
        cache.put(&content_hash(&docx), "what the cache holds").unwrap();
        let cached = read_as("thesis.docx", &docx, Some(&cache));
        assert!(matches!(cached, Loaded::Text(t, None) if t == "what the cache holds"));
    }

    #[test]
    fn broken_utf16_is_decoded_with_replacement_characters_and_a_warning() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("ab".encode_utf16().flat_map(u16::to_le_bytes));
        bytes.extend(0xD800u16.to_le_bytes()); // an unpaired high surrogate
        bytes.extend("c".encode_utf16().flat_map(u16::to_le_bytes));
        match decoded(&bytes) {
            Loaded::Text(text, Some(warning)) => {
                assert_eq!(text, "ab\u{fffd}c");
                assert!(warning.message.contains("1 invalid code units"), "{warning}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
