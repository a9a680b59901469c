//! The similarity table in SQLite: `similarity.sqlite` in each generation
//! directory, queried with any SQLite tool, and the standalone copies that
//! `similar --format sqlite` exports.
//!
//! ```sql
//! CREATE TABLE similarity (
//!     document TEXT NOT NULL,                      -- A: a document's name
//!     other TEXT NOT NULL,                         -- B
//!     document_in_other_percent REAL NOT NULL,     -- 100 × common / distinct chunks of A
//!     other_in_document_percent REAL NOT NULL,     -- 100 × common / distinct chunks of B
//!     common_chunks INTEGER NOT NULL,              -- distinct chunks A and B share
//!     aligned_chars INTEGER,                       -- characters of A in passages with B
//!     document_aligned_percent REAL,               -- 100 × aligned_chars / characters of A
//!     other_aligned_percent REAL,                  -- the same of B's characters
//!     PRIMARY KEY (document, other)
//! ) WITHOUT ROWID;
//! CREATE TABLE about (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
//! ```
//!
//! A pair of documents has both rows, (A, B) and (B, A), or none: the table
//! holds every pair where one of the two has at least the header's
//! `min_percent` of its distinct chunks in the other ([`super::similar`]).
//! The aligned columns are NULL when a text could not be read back
//! ([`super::pair`]). The primary key serves the lookups by document; the
//! symmetry finds the rows naming a document as `other` without a second
//! index. `about` names the format, the preset, the generation the table
//! belongs to and `min_percent` (in an export, `similar`'s selection:
//! `min_percent`, `top` and `since_update`).
//!
//! The file of a committed generation is never written again: an update
//! copies it into the new generation and changes the copy, and `CURRENT`'s
//! rename commits it with the rest. That copy is written without SQLite's
//! journal and without its syncs (a crash leaves a generation that is never
//! committed, and removed by the next run); it is fsynced once, when
//! finished, before the header that records its length and CRC-32. Readers
//! open it read-only; in the default rollback-journal mode a read changes
//! nothing on disk.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};

use super::error::ArchiveError;
use super::format::{self, FileEntry, SimilarityEntry};
use super::reader::{ArchiveIndex, file_crc32};
use super::similar::{SimilarParams, SimilarRow};
use crate::report::output;

/// The `about` table's `format`: this layout.
pub const TABLE_FORMAT: &str = "pan-detect similarity table 1";

/// The tables, as created.
const SCHEMA: &str = "
CREATE TABLE similarity (
    document TEXT NOT NULL,
    other TEXT NOT NULL,
    document_in_other_percent REAL NOT NULL,
    other_in_document_percent REAL NOT NULL,
    common_chunks INTEGER NOT NULL,
    aligned_chars INTEGER,
    document_aligned_percent REAL,
    other_aligned_percent REAL,
    PRIMARY KEY (document, other)
) WITHOUT ROWID;
CREATE TABLE about (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
";

/// The columns of `similarity`, in order ([`SimilarRow`]'s fields).
const COLUMNS: &str = "document, other, document_in_other_percent, other_in_document_percent, common_chunks, \
                       aligned_chars, document_aligned_percent, other_aligned_percent";

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Times an open is tried when an update removes the generation in between.
const OPEN_ATTEMPTS: usize = 5;

/// A table being written: a new generation's (created or copied from the
/// live one) or an export.
pub(crate) struct TableWriter {
    connection: Connection,
    path: PathBuf,
    rows: u64,
}

impl TableWriter {
    /// A new, empty table at `path` (which must not exist), its `about`
    /// table holding `about`.
    pub(crate) fn create(path: &Path, about: &[(&str, String)]) -> Result<Self, ArchiveError> {
        let writer = Self::open(path, 0)?;
        writer.connection.execute_batch(SCHEMA).map_err(ArchiveError::sqlite(path))?;
        let mut insert = writer
            .connection
            .prepare("INSERT INTO about (name, value) VALUES (?1, ?2)")
            .map_err(ArchiveError::sqlite(path))?;
        for (name, value) in [("format", TABLE_FORMAT.to_string())].iter().chain(about) {
            insert.execute(params![name, value]).map_err(ArchiveError::sqlite(path))?;
        }
        drop(insert);
        Ok(writer)
    }

    /// The table of `old` copied to `path` (a new generation's), to be
    /// changed there and to belong to `generation`. The copy is a new file:
    /// the old generation's stays as its readers see it. The caller checks
    /// the old file's CRC-32 first ([`ArchiveIndex::verify_similarity`]).
    pub(crate) fn copy(old: &ArchiveIndex, path: &Path, generation: u64) -> Result<Self, ArchiveError> {
        let entry =
            old.header().similarity.as_ref().ok_or_else(|| ArchiveError::NoSimilarityTable(old.root().into()))?;
        fs::copy(old.similarity_path(), path).map_err(ArchiveError::io(path))?;
        let writer = Self::open(path, entry.rows)?;
        writer
            .connection
            .execute("UPDATE about SET value = ?1 WHERE name = 'generation'", [generation.to_string()])
            .map_err(ArchiveError::sqlite(path))?;
        Ok(writer)
    }

    /// Opens `path` for writing without journal or syncs (see the module
    /// documentation).
    fn open(path: &Path, rows: u64) -> Result<Self, ArchiveError> {
        let connection = Connection::open(path).map_err(ArchiveError::sqlite(path))?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; \
                 PRAGMA cache_size = -65536;",
            )
            .map_err(ArchiveError::sqlite(path))?;
        Ok(TableWriter { connection, path: path.to_path_buf(), rows })
    }

    /// Removes every row naming one of `names` (as document or as other).
    pub(crate) fn remove_documents(&mut self, names: &[String]) -> Result<(), ArchiveError> {
        let sqlite = ArchiveError::sqlite(&self.path);
        let mut removed = 0;
        let result = (|| {
            let transaction = self.connection.transaction()?;
            {
                let mut others = transaction.prepare("SELECT other FROM similarity WHERE document = ?1")?;
                let mut mirror = transaction.prepare("DELETE FROM similarity WHERE document = ?1 AND other = ?2")?;
                let mut own = transaction.prepare("DELETE FROM similarity WHERE document = ?1")?;
                for name in names {
                    let partners = others.query_map([name], |row| row.get::<_, String>(0))?;
                    for other in partners.collect::<Result<Vec<_>, _>>()? {
                        removed += mirror.execute(params![other, name])?;
                    }
                    removed += own.execute([name])?;
                }
            }
            transaction.commit()
        })();
        result.map_err(sqlite)?;
        self.rows -= removed as u64;
        Ok(())
    }

    /// Inserts `rows`, in one transaction.
    pub(crate) fn insert(&mut self, rows: &[SimilarRow]) -> Result<(), ArchiveError> {
        let sqlite = ArchiveError::sqlite(&self.path);
        let result = (|| {
            let transaction = self.connection.transaction()?;
            {
                let mut insert = transaction
                    .prepare(&format!("INSERT INTO similarity ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"))?;
                for row in rows {
                    insert.execute(params![
                        row.document,
                        row.other,
                        row.document_in_other_percent,
                        row.other_in_document_percent,
                        stored_integer(row.common_chunks),
                        row.aligned_chars.map(stored_integer),
                        row.document_aligned_percent,
                        row.other_aligned_percent,
                    ])?;
                }
            }
            transaction.commit()
        })();
        result.map_err(sqlite)?;
        self.rows += rows.len() as u64;
        Ok(())
    }

    /// Closes the database and fsyncs the file; returns the rows it holds.
    pub(crate) fn finish(self) -> Result<u64, ArchiveError> {
        let TableWriter { connection, path, rows } = self;
        connection.close().map_err(|(_, source)| ArchiveError::Sqlite { path: path.clone(), source })?;
        File::open(&path).and_then(|file| file.sync_all()).map_err(ArchiveError::io(&path))?;
        Ok(rows)
    }
}

/// The header entry of the finished table at `path`: its length and CRC-32.
pub(crate) fn entry(
    path: &Path,
    min_percent: f64,
    rows: u64,
    method: Option<String>,
) -> Result<SimilarityEntry, ArchiveError> {
    let bytes = fs::metadata(path).map_err(ArchiveError::io(path))?.len();
    let file = FileEntry { name: format::SIMILARITY.to_string(), bytes, crc32: file_crc32(path)? };
    Ok(SimilarityEntry { min_percent, rows, file, method })
}

/// The similarity table of an open index, read-only.
pub struct SimilarityTable {
    connection: Connection,
    path: PathBuf,
    entry: SimilarityEntry,
}

impl SimilarityTable {
    /// Opens the live generation of the index in `root` and its table. An
    /// update that commits meanwhile may remove the generation between the
    /// two: the new one is opened then.
    pub fn open(root: &Path) -> Result<(ArchiveIndex, SimilarityTable), ArchiveError> {
        let mut attempt = 1;
        loop {
            let index = ArchiveIndex::open(root)?;
            match Self::of(&index) {
                Err(_) if attempt < OPEN_ATTEMPTS && Self::removed(&index) => attempt += 1,
                result => return result.map(|table| (index, table)),
            }
        }
    }

    /// True when `index` has a table whose file is gone: its generation was
    /// removed by an update.
    fn removed(index: &ArchiveIndex) -> bool {
        index.header().similarity.is_some() && !index.similarity_path().exists()
    }

    /// The table of `index`'s generation.
    pub fn of(index: &ArchiveIndex) -> Result<SimilarityTable, ArchiveError> {
        let entry =
            index.header().similarity.clone().ok_or_else(|| ArchiveError::NoSimilarityTable(index.root().into()))?;
        let path = index.similarity_path();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(&path, flags).map_err(ArchiveError::sqlite(&path))?;
        let table = SimilarityTable { connection, path, entry };
        let format = table.about("format")?;
        let generation = table.about("generation")?;
        let expected = index.header().generation.to_string();
        if format.as_deref() != Some(TABLE_FORMAT) || generation.as_deref() != Some(expected.as_str()) {
            let message = format!("a table of format {format:?} and generation {generation:?}, expected {expected}");
            return Err(ArchiveError::Corrupt { path: table.path, message });
        }
        Ok(table)
    }

    /// The `about` value `name`.
    fn about(&self, name: &str) -> Result<Option<String>, ArchiveError> {
        let mut statement =
            self.connection.prepare("SELECT value FROM about WHERE name = ?1").map_err(self.sqlite())?;
        let mut rows = statement.query_map([name], |row| row.get(0)).map_err(self.sqlite())?;
        rows.next().transpose().map_err(self.sqlite())
    }

    /// The header's entry of the table.
    pub fn entry(&self) -> &SimilarityEntry {
        &self.entry
    }

    /// Calls `f` with every row whose `document_in_other_percent` is at
    /// least `min_percent`, ordered by document, then by that share (highest
    /// first), then by other.
    pub fn for_each_row(
        &self,
        min_percent: f64,
        f: &mut dyn FnMut(SimilarRow) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        self.query(
            &format!(
                "SELECT {COLUMNS} FROM similarity WHERE document_in_other_percent >= ?1 \
                 ORDER BY document, document_in_other_percent DESC, other"
            ),
            params![min_percent],
            f,
        )
    }

    /// Calls `f` with every row of `document`, most similar first, then by other.
    pub fn for_each_row_of(
        &self,
        document: &str,
        f: &mut dyn FnMut(SimilarRow) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        self.query(
            &format!(
                "SELECT {COLUMNS} FROM similarity WHERE document = ?1 \
                 ORDER BY document_in_other_percent DESC, other"
            ),
            params![document],
            f,
        )
    }

    /// The row of (`document`, `other`), if the pair is in the table.
    pub fn row(&self, document: &str, other: &str) -> Result<Option<SimilarRow>, ArchiveError> {
        let mut found = None;
        self.query(
            &format!("SELECT {COLUMNS} FROM similarity WHERE document = ?1 AND other = ?2"),
            params![document, other],
            &mut |row| {
                found = Some(row);
                Ok(())
            },
        )?;
        Ok(found)
    }

    fn query(
        &self,
        sql: &str,
        parameters: impl rusqlite::Params,
        f: &mut dyn FnMut(SimilarRow) -> Result<(), ArchiveError>,
    ) -> Result<(), ArchiveError> {
        let mut statement = self.connection.prepare(sql).map_err(self.sqlite())?;
        let mut rows = statement.query(parameters).map_err(self.sqlite())?;
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            f(decode(row).map_err(self.sqlite())?)?;
        }
        Ok(())
    }

    fn sqlite(&self) -> impl FnOnce(rusqlite::Error) -> ArchiveError + use<> {
        ArchiveError::sqlite(self.path.clone())
    }
}

/// A row read back.
fn decode(row: &rusqlite::Row<'_>) -> rusqlite::Result<SimilarRow> {
    Ok(SimilarRow {
        document: row.get(0)?,
        other: row.get(1)?,
        document_in_other_percent: row.get(2)?,
        other_in_document_percent: row.get(3)?,
        common_chunks: count(row, 4)?,
        aligned_chars: row.get::<_, Option<i64>>(5)?.map(|_| count(row, 5)).transpose()?,
        document_aligned_percent: row.get(6)?,
        other_aligned_percent: row.get(7)?,
    })
}

/// A count as SQLite stores integers (counts of chunks and characters are
/// far below `i64::MAX`).
fn stored_integer(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The count in column `column`, refused when negative.
fn count(row: &rusqlite::Row<'_>, column: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(column)?;
    u64::try_from(value).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(column, value))
}

/// Rows inserted into an export per transaction.
const EXPORT_BATCH: usize = 1 << 14;

/// A standalone copy of (a selection of) the table, written to a temporary
/// file beside its target and renamed over it when finished: the target is
/// the old file or the whole new one, never a part.
pub struct SqliteExport {
    writer: Option<TableWriter>,
    target: PathBuf,
    temporary: PathBuf,
    batch: Vec<SimilarRow>,
}

impl SqliteExport {
    /// Starts an export to `target` of the rows of `index`'s table that
    /// `params` select (recorded in its `about` table). Refuses a target
    /// inside the index directory and an existing file that is not an SQLite
    /// database.
    pub fn create(target: &Path, index: &ArchiveIndex, params: &SimilarParams) -> Result<Self, ArchiveError> {
        refuse_target(target, index.root())?;
        let about = [
            ("preset", format::preset_name(index.settings().preset()).to_string()),
            ("generation", index.header().generation.to_string()),
            ("min_percent", params.min_percent.to_string()),
            ("top", params.top.to_string()),
            ("since_update", params.since_update.to_string()),
        ];
        let temporary = output::temporary_path(target).map_err(ArchiveError::io(target))?;
        if temporary.exists() {
            fs::remove_file(&temporary).map_err(ArchiveError::io(&temporary))?;
        }
        let writer = TableWriter::create(&temporary, &about);
        let writer = writer.inspect_err(|_| {
            let _ = fs::remove_file(&temporary);
        })?;
        Ok(SqliteExport { writer: Some(writer), target: target.to_path_buf(), temporary, batch: Vec::new() })
    }

    /// Adds a row.
    pub fn push(&mut self, row: &SimilarRow) -> Result<(), ArchiveError> {
        self.batch.push(row.clone());
        if self.batch.len() >= EXPORT_BATCH { self.flush() } else { Ok(()) }
    }

    fn flush(&mut self) -> Result<(), ArchiveError> {
        if let Some(writer) = &mut self.writer {
            writer.insert(&self.batch)?;
        }
        self.batch.clear();
        Ok(())
    }

    /// Writes the last rows and puts the file in place; returns its rows.
    pub fn finish(mut self) -> Result<u64, ArchiveError> {
        self.flush()?;
        let Some(writer) = self.writer.take() else { return Ok(0) };
        let rows = writer.finish()?;
        fs::rename(&self.temporary, &self.target).map_err(ArchiveError::io(&self.target))?;
        let dir = self.target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        File::open(dir).and_then(|d| d.sync_all()).map_err(ArchiveError::io(dir))?;
        Ok(rows)
    }
}

impl Drop for SqliteExport {
    /// An export not finished leaves no file behind.
    fn drop(&mut self) {
        if let Some(writer) = self.writer.take() {
            drop(writer);
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Refuses to export to `target` when it lies in the index directory `index`
/// or is an existing file other than an earlier export.
fn refuse_target(target: &Path, index: &Path) -> Result<(), ArchiveError> {
    let refuse = |why: &str| ArchiveError::Io { path: target.to_path_buf(), source: std::io::Error::other(why) };
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let parent = parent.canonicalize().map_err(ArchiveError::io(parent))?;
    let index = index.canonicalize().map_err(ArchiveError::io(index))?;
    if parent.starts_with(&index) {
        return Err(refuse("lies in the index directory; export elsewhere"));
    }
    match fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ArchiveError::Io { path: target.to_path_buf(), source: e }),
        Ok(metadata) if !metadata.is_file() => Err(refuse("exists and is not a file; not replaced")),
        Ok(_) => {
            let mut magic = [0u8; 16];
            let read = File::open(target).and_then(|mut file| file.read_exact(&mut magic));
            if read.is_err() || &magic != SQLITE_MAGIC {
                return Err(refuse("exists and is not an SQLite database; not replaced"));
            }
            if !is_similarity_export(target) {
                return Err(refuse("is an SQLite database that pan-detect did not write; not replaced"));
            }
            Ok(())
        }
    }
}

/// Whether the SQLite database at `path` holds exactly the tables an export
/// writes (`about` and `similarity`): only such a file is replaced.
fn is_similarity_export(path: &Path) -> bool {
    let tables = || -> rusqlite::Result<Vec<String>> {
        let connection = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut statement = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
        statement.query_map([], |row| row.get(0))?.collect()
    };
    tables().is_ok_and(|tables| tables == ["about", "similarity"])
}
