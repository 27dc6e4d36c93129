//! The transcript file of a game (DESIGN 3.5, G5): everything the log
//! holds, in order, self-contained, so anyone can verify it offline.
//!
//! ```text
//! file  = "HEXVEIL\0" || u16 BE file-format version || entry*
//! entry = u32 BE length || entry-bytes
//! entry-bytes = postcard(envelope) || postcard(receipt)   a receipted entry
//!             | 00 || postcard(envelope)                  a server entry of a
//!                                                         message-version-5 game
//! ```
//!
//! Entry 0 is the server's genesis (its body is `Body::Genesis`); the end
//! record and every player's reveal (seeds and contents) are entries too.
//! The file ends after the last complete entry; an unfinished game's file
//! is simply shorter.
//!
//! The reader never trusts a length: it checks every length prefix against
//! [`MAX_ENTRY_LEN`] and the bytes actually left, and the entry count against
//! [`MAX_ENTRIES`], **before** it allocates anything for the entry (G6). Each
//! error names the entry index and what is wrong with it.

use std::io::{self, Read, Write};

use thiserror::Error;

pub use crate::message::LoggedEntry;
use crate::message::{self, MessageError, MAX_BODY_LEN};

/// The first eight bytes of every transcript file.
pub const MAGIC: [u8; 8] = *b"HEXVEIL\0";

/// The file-format version this crate writes: 2, whose entries may be a
/// server entry without a receipt (message version 5, PROTOCOL.md 6).
pub const FILE_VERSION: u16 = 2;

/// The file-format versions this crate reads: version 1 files (every entry
/// receipted) are read as they always were.
pub const FILE_VERSIONS: [u16; 2] = [1, FILE_VERSION];

/// The file version a game's transcript is written in (PROTOCOL.md 15):
/// 1 while every entry is receipted (message versions 3 and 4), so
/// verifiers built before version 2 still read it; [`FILE_VERSION`] else.
pub fn file_version_for(genesis: &crate::message::Genesis) -> u16 {
    if genesis.receipts_server_entries() {
        1
    } else {
        FILE_VERSION
    }
}

/// The first byte of an entry encoded without a receipt. A receipted
/// entry starts with the varint length of its envelope's signed bytes,
/// which are at least 119 bytes long, so its first byte is never 0: the
/// two forms cannot be confused, and every entry stored before message
/// version 5 still decodes as it did.
pub const RECEIPTLESS: u8 = 0x00;

/// Length of the file header (magic and version).
pub const HEADER_LEN: usize = MAGIC.len() + 2;

/// Bytes an entry may take beyond its body: the envelope's tuple fields
/// (domain tag, version, game id, author, seq, head, body length), the
/// author's signature, the receipt, and postcard's length prefixes.
pub const ENTRY_OVERHEAD: usize = 1024;

/// Largest accepted entry (the part after its length prefix).
pub const MAX_ENTRY_LEN: usize = MAX_BODY_LEN + ENTRY_OVERHEAD;

/// Most entries a transcript may hold (a long game has a few thousand).
pub const MAX_ENTRIES: usize = 1 << 20;

/// Encodes one entry (what follows its length prefix): a receipted entry
/// as the postcard of its envelope and receipt, exactly as before message
/// version 5; an entry without a receipt as [`RECEIPTLESS`] and the
/// postcard of its envelope.
pub fn encode_entry(entry: &LoggedEntry) -> Vec<u8> {
    match &entry.receipt {
        Some(receipt) => message::encode(&(&entry.envelope, receipt)),
        None => {
            let mut out = vec![RECEIPTLESS];
            out.extend_from_slice(&message::encode(&entry.envelope));
            out
        }
    }
}

/// Decodes one entry (without its length prefix), with the size limit.
pub fn decode_entry(bytes: &[u8]) -> Result<LoggedEntry, MessageError> {
    const WHAT: &str = "transcript entry";
    match bytes.split_first() {
        // The rest is one byte shorter than the limit allows the whole.
        Some((&RECEIPTLESS, envelope)) => Ok(LoggedEntry {
            envelope: message::decode_limited(envelope, MAX_ENTRY_LEN - 1, WHAT)?,
            receipt: None,
        }),
        _ => {
            let (envelope, receipt) = message::decode_limited(bytes, MAX_ENTRY_LEN, WHAT)?;
            Ok(LoggedEntry {
                envelope,
                receipt: Some(receipt),
            })
        }
    }
}

/// What is wrong with one entry of a transcript file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EntryProblem {
    /// The file ends inside the entry's 4-byte length prefix.
    #[error("the file ends inside its length prefix ({available} of 4 bytes)")]
    TruncatedLength {
        /// Bytes of the prefix present.
        available: usize,
    },
    /// The length prefix is larger than any entry may be.
    #[error("its length prefix claims {len} bytes, more than the limit of {max}")]
    TooLong {
        /// The claimed length.
        len: u64,
        /// [`MAX_ENTRY_LEN`].
        max: usize,
    },
    /// The length prefix claims more bytes than the file holds.
    #[error("its length prefix claims {len} bytes, the file has only {available} left")]
    Truncated {
        /// The claimed length.
        len: usize,
        /// Bytes left in the file.
        available: usize,
    },
    /// The entry's bytes do not decode as a [`LoggedEntry`] (this includes
    /// envelope bytes that are not a valid envelope tuple).
    #[error("it does not decode: {0}")]
    Malformed(MessageError),
    /// An entry without a receipt in a version-1 file, which holds only
    /// receipted entries (message versions 3 and 4).
    #[error("it has no receipt, which a version-1 file does not allow")]
    ReceiptlessInVersion1,
    /// The writer refuses an entry larger than [`MAX_ENTRY_LEN`].
    #[error("it encodes to {len} bytes, more than the limit of {max}")]
    Oversized {
        /// The encoded length.
        len: usize,
        /// [`MAX_ENTRY_LEN`].
        max: usize,
    },
}

/// Why the bytes of a transcript file are not a valid transcript.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FormatError {
    /// The file is shorter than its header.
    #[error("the file is {len} bytes, shorter than the {HEADER_LEN}-byte header")]
    TooShort {
        /// The file's length.
        len: usize,
    },
    /// The file does not start with [`MAGIC`].
    #[error("not a hexveil transcript: the file starts with {}, not \"HEXVEIL\\0\"", start_of(.found))]
    BadMagic {
        /// The first eight bytes.
        found: [u8; 8],
    },
    /// A file-format version this crate does not read.
    #[error(
        "transcript file version {got} is not supported (this reader knows version {FILE_VERSION})"
    )]
    UnsupportedVersion {
        /// The version in the file.
        got: u16,
    },
    /// More than [`MAX_ENTRIES`] entries.
    #[error("the file holds more than {max} entries")]
    TooManyEntries {
        /// [`MAX_ENTRIES`].
        max: usize,
    },
    /// One entry is bad.
    #[error("entry {index}: {problem}")]
    Entry {
        /// The entry's index in the file (0 = genesis; equal to its seq in
        /// a well-formed file).
        index: u64,
        /// What is wrong.
        problem: EntryProblem,
    },
}

impl FormatError {
    /// The entry index the error is about, if it is about one entry.
    pub fn entry_index(&self) -> Option<u64> {
        match self {
            FormatError::Entry { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// Why a transcript file cannot be read or written.
#[derive(Debug, Error)]
pub enum TranscriptError {
    /// The bytes are not a valid transcript.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The underlying reader or writer failed.
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
}

/// A whole transcript, parsed.
#[derive(Clone, Debug)]
pub struct Transcript {
    /// The file-format version it was read with, and is written with.
    pub version: u16,
    /// The entries in log order (entry 0 is the genesis).
    pub entries: Vec<LoggedEntry>,
}

impl Default for Transcript {
    fn default() -> Self {
        Transcript::new(Vec::new())
    }
}

impl Transcript {
    /// A transcript of these entries, in the version this crate writes.
    pub fn new(entries: Vec<LoggedEntry>) -> Transcript {
        Transcript {
            version: FILE_VERSION,
            entries,
        }
    }

    /// Parses a whole file held in memory.
    pub fn parse(bytes: &[u8]) -> Result<Transcript, FormatError> {
        let reader = EntryReader::new(bytes)?;
        let version = reader.version;
        let mut entries = Vec::new();
        for e in reader {
            entries.push(e?);
        }
        Ok(Transcript { version, entries })
    }

    /// Reads a whole file from a reader (for example a file on disk). Reads
    /// at most one entry's bytes at a time, after checking its length.
    pub fn read_from<R: Read>(reader: R) -> Result<Transcript, TranscriptError> {
        let mut r = StreamReader::new(reader)?;
        let mut entries = Vec::new();
        while let Some(e) = r.next_entry()? {
            entries.push(e);
        }
        Ok(Transcript {
            version: r.version,
            entries,
        })
    }

    /// The file bytes, in the version it was read with.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TranscriptError> {
        let mut w = TranscriptWriter::with_version(Vec::new(), self.version)?;
        for e in &self.entries {
            w.append(e)?;
        }
        Ok(w.into_inner())
    }
}

/// The first bytes of a file that is no transcript, as a person reads
/// them: text in quotes (a text file given by mistake, issue 27), else hex.
fn start_of(found: &[u8; 8]) -> String {
    let text = found
        .iter()
        .all(|b| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
    if text {
        format!(
            "the text {:?} (a text file?)",
            String::from_utf8_lossy(found)
        )
    } else {
        found
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Checks the header; returns the file's version.
fn check_header(h: &[u8]) -> Result<u16, FormatError> {
    if h.len() < HEADER_LEN {
        return Err(FormatError::TooShort { len: h.len() });
    }
    let mut found = [0u8; 8];
    found.copy_from_slice(&h[..8]);
    if found != MAGIC {
        return Err(FormatError::BadMagic { found });
    }
    let got = u16::from_be_bytes([h[8], h[9]]);
    if !FILE_VERSIONS.contains(&got) {
        return Err(FormatError::UnsupportedVersion { got });
    }
    Ok(got)
}

/// An iterator over the entries of a file held in memory; each entry is
/// decoded only when reached, so a verifier can stop at the first bad one.
#[derive(Clone, Debug)]
pub struct EntryReader<'a> {
    version: u16,
    rest: &'a [u8],
    index: u64,
    failed: bool,
}

impl<'a> EntryReader<'a> {
    /// Checks the header and starts at entry 0.
    pub fn new(bytes: &'a [u8]) -> Result<EntryReader<'a>, FormatError> {
        let version = check_header(bytes)?;
        Ok(EntryReader {
            version,
            rest: &bytes[HEADER_LEN..],
            index: 0,
            failed: false,
        })
    }

    /// The index of the next entry.
    pub fn index(&self) -> u64 {
        self.index
    }

    fn read_one(&mut self) -> Result<LoggedEntry, FormatError> {
        let index = self.index;
        let bad = |problem| FormatError::Entry { index, problem };
        if self.index as usize >= MAX_ENTRIES {
            return Err(FormatError::TooManyEntries { max: MAX_ENTRIES });
        }
        if self.rest.len() < 4 {
            return Err(bad(EntryProblem::TruncatedLength {
                available: self.rest.len(),
            }));
        }
        let len = u32::from_be_bytes([self.rest[0], self.rest[1], self.rest[2], self.rest[3]]);
        let len_usize = len as usize;
        if len_usize > MAX_ENTRY_LEN {
            return Err(bad(EntryProblem::TooLong {
                len: u64::from(len),
                max: MAX_ENTRY_LEN,
            }));
        }
        let body = &self.rest[4..];
        if len_usize > body.len() {
            return Err(bad(EntryProblem::Truncated {
                len: len_usize,
                available: body.len(),
            }));
        }
        let entry = decode_in(self.version, &body[..len_usize]).map_err(bad)?;
        self.rest = &body[len_usize..];
        self.index += 1;
        Ok(entry)
    }
}

impl Iterator for EntryReader<'_> {
    type Item = Result<LoggedEntry, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let r = self.read_one();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Reads entries from any [`Read`], checking every length before it
/// allocates the entry's buffer.
#[derive(Debug)]
pub struct StreamReader<R> {
    version: u16,
    reader: R,
    index: u64,
}

impl<R: Read> StreamReader<R> {
    /// Reads and checks the header.
    pub fn new(mut reader: R) -> Result<StreamReader<R>, TranscriptError> {
        let mut h = [0u8; HEADER_LEN];
        let got = read_up_to(&mut reader, &mut h)?;
        let version = check_header(&h[..got]).map_err(TranscriptError::Format)?;
        Ok(StreamReader {
            version,
            reader,
            index: 0,
        })
    }

    /// The next entry, or `None` at a clean end of file.
    pub fn next_entry(&mut self) -> Result<Option<LoggedEntry>, TranscriptError> {
        let index = self.index;
        let bad = |problem| TranscriptError::Format(FormatError::Entry { index, problem });
        let mut p = [0u8; 4];
        let got = read_up_to(&mut self.reader, &mut p)?;
        if got == 0 {
            return Ok(None);
        }
        if index as usize >= MAX_ENTRIES {
            return Err(FormatError::TooManyEntries { max: MAX_ENTRIES }.into());
        }
        if got < 4 {
            return Err(bad(EntryProblem::TruncatedLength { available: got }));
        }
        let len = u32::from_be_bytes(p);
        if len as usize > MAX_ENTRY_LEN {
            return Err(bad(EntryProblem::TooLong {
                len: u64::from(len),
                max: MAX_ENTRY_LEN,
            }));
        }
        // Read at most `len` bytes, growing the buffer with the bytes that
        // actually arrive: a length prefix alone never allocates.
        let mut buf = Vec::new();
        (&mut self.reader)
            .take(u64::from(len))
            .read_to_end(&mut buf)?;
        if buf.len() < len as usize {
            return Err(bad(EntryProblem::Truncated {
                len: len as usize,
                available: buf.len(),
            }));
        }
        let entry = decode_in(self.version, &buf).map_err(bad)?;
        self.index += 1;
        Ok(Some(entry))
    }
}

/// Decodes one entry of a file of `version`.
fn decode_in(version: u16, bytes: &[u8]) -> Result<LoggedEntry, EntryProblem> {
    let entry = decode_entry(bytes).map_err(EntryProblem::Malformed)?;
    fits(version, &entry)?;
    Ok(entry)
}

/// Whether a file of `version` may hold `entry`: a version-1 file holds
/// only receipted entries.
fn fits(version: u16, entry: &LoggedEntry) -> Result<(), EntryProblem> {
    if version == 1 && entry.receipt.is_none() {
        return Err(EntryProblem::ReceiptlessInVersion1);
    }
    Ok(())
}

/// Fills `buf` as far as the reader allows; returns the bytes read.
fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Writes a transcript file entry by entry (the server appends each entry
/// as it becomes durable).
#[derive(Debug)]
pub struct TranscriptWriter<W: Write> {
    version: u16,
    writer: W,
    index: u64,
}

impl<W: Write> TranscriptWriter<W> {
    /// Writes the header of [`FILE_VERSION`].
    pub fn new(writer: W) -> Result<TranscriptWriter<W>, TranscriptError> {
        TranscriptWriter::with_version(writer, FILE_VERSION)
    }

    /// Writes the header of a file of `version`, one of [`FILE_VERSIONS`]
    /// (to write a file back as it was read).
    pub fn with_version(
        mut writer: W,
        version: u16,
    ) -> Result<TranscriptWriter<W>, TranscriptError> {
        if !FILE_VERSIONS.contains(&version) {
            return Err(FormatError::UnsupportedVersion { got: version }.into());
        }
        writer.write_all(&MAGIC)?;
        writer.write_all(&version.to_be_bytes())?;
        Ok(TranscriptWriter {
            version,
            writer,
            index: 0,
        })
    }

    /// Appends one entry. An entry over [`MAX_ENTRY_LEN`] or beyond
    /// [`MAX_ENTRIES`] is refused and nothing is written.
    pub fn append(&mut self, entry: &LoggedEntry) -> Result<(), TranscriptError> {
        if self.index as usize >= MAX_ENTRIES {
            return Err(FormatError::TooManyEntries { max: MAX_ENTRIES }.into());
        }
        fits(self.version, entry).map_err(|problem| FormatError::Entry {
            index: self.index,
            problem,
        })?;
        let bytes = encode_entry(entry);
        if bytes.len() > MAX_ENTRY_LEN {
            return Err(FormatError::Entry {
                index: self.index,
                problem: EntryProblem::Oversized {
                    len: bytes.len(),
                    max: MAX_ENTRY_LEN,
                },
            }
            .into());
        }
        let mut framed = Vec::with_capacity(4 + bytes.len());
        framed.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        framed.extend_from_slice(&bytes);
        self.writer.write_all(&framed)?;
        self.index += 1;
        Ok(())
    }

    /// Entries written so far.
    pub fn len(&self) -> u64 {
        self.index
    }

    /// Whether no entry was written yet.
    pub fn is_empty(&self) -> bool {
        self.index == 0
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), TranscriptError> {
        self.writer.flush()?;
        Ok(())
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.writer
    }
}
