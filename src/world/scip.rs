//! Reads a SCIP index (the protobuf file that `scip-python`, `scip-typescript`
//! and `rust-analyzer scip` write) into the few fields nerd uses: each
//! document's path, and each occurrence's range, symbol and roles. The file
//! comes from a confined program, so it is untrusted input: every length is
//! checked against what is left, and anything malformed is an error, never a
//! panic. Unknown fields are skipped, as protobuf requires.
//! Knows nothing about nerd's symbols or where the file came from.

/// The occurrence defines its symbol (SCIP `SymbolRole.Definition`).
pub const ROLE_DEFINITION: i32 = 1;
/// The occurrence is an import of its symbol (SCIP `SymbolRole.Import`).
pub const ROLE_IMPORT: i32 = 2;

/// Why a SCIP file cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScipError {
    #[error("truncated at byte {0}")]
    Truncated(usize),
    #[error("malformed varint at byte {0}")]
    Varint(usize),
    #[error("unsupported wire type {wire} at byte {at}")]
    WireType { wire: u64, at: usize },
    #[error("a string that is not UTF-8 at byte {0}")]
    Utf8(usize),
    #[error("an occurrence range of {0} numbers (3 or 4 expected)")]
    Range(usize),
}

/// A 0-based source range: start line and character, end line and character.
/// Characters count in the document's position encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Range {
    pub start_line: u32,
    pub start_char: u32,
    pub end_line: u32,
    pub end_char: u32,
}

/// How a document's character offsets count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Not said: the TypeScript and pyright based indexers count UTF-16 code units.
    #[default]
    Unspecified,
    Utf8,
    Utf16,
    Utf32,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Occurrence {
    pub range: Range,
    pub symbol: String,
    pub roles: i32,
}

impl Occurrence {
    pub fn is_definition(&self) -> bool {
        self.roles & ROLE_DEFINITION != 0
    }

    /// A symbol local to one document (`local 12`): never a cross-file edge.
    pub fn is_local(&self) -> bool {
        self.symbol.is_empty() || self.symbol.starts_with("local ")
    }

    /// The scheme and package a global symbol names (`scip-python python
    /// requests 2.32`), the first four of its space-separated fields;
    /// `None` for a local symbol.
    pub fn package(&self) -> Option<&str> {
        if self.is_local() {
            return None;
        }
        let mut spaces = self.symbol.match_indices(' ').map(|(i, _)| i);
        let end = spaces.nth(3)?;
        Some(&self.symbol[..end])
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Document {
    /// Relative to the project root the indexer ran in, `/`-separated.
    pub relative_path: String,
    pub encoding: Encoding,
    pub occurrences: Vec<Occurrence>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Index {
    pub documents: Vec<Document>,
}

/// Decodes a whole SCIP `Index` message.
pub fn decode(bytes: &[u8]) -> Result<Index, ScipError> {
    let mut index = Index::default();
    let mut r = Reader { bytes, at: 0, base: 0 };
    while let Some((field, value)) = r.field()? {
        if let (2, Value::Bytes(doc, base)) = (field, value) {
            index.documents.push(document(doc, base)?);
        }
    }
    Ok(index)
}

fn document(bytes: &[u8], base: usize) -> Result<Document, ScipError> {
    let mut doc = Document::default();
    let mut r = Reader { bytes, at: 0, base };
    while let Some((field, value)) = r.field()? {
        match (field, value) {
            (1, Value::Bytes(b, at)) => doc.relative_path = text(b, at)?,
            (2, Value::Bytes(b, at)) => doc.occurrences.push(occurrence(b, at)?),
            (6, Value::Varint(v)) => {
                doc.encoding = match v {
                    1 => Encoding::Utf8,
                    2 => Encoding::Utf16,
                    3 => Encoding::Utf32,
                    _ => Encoding::Unspecified,
                }
            }
            _ => {}
        }
    }
    Ok(doc)
}

fn occurrence(bytes: &[u8], base: usize) -> Result<Occurrence, ScipError> {
    let mut occ = Occurrence::default();
    let mut numbers: Vec<i64> = Vec::new();
    let mut r = Reader { bytes, at: 0, base };
    while let Some((field, value)) = r.field()? {
        match (field, value) {
            // `range`, packed (the usual form) or one number per field.
            (1, Value::Bytes(b, at)) => {
                let mut packed = Reader { bytes: b, at: 0, base: at };
                while packed.at < b.len() {
                    numbers.push(packed.varint()? as i32 as i64);
                }
            }
            (1, Value::Varint(v)) => numbers.push(v as i32 as i64),
            (2, Value::Bytes(b, at)) => occ.symbol = text(b, at)?,
            (3, Value::Varint(v)) => occ.roles = v as i32,
            _ => {}
        }
    }
    let n = |i: usize| numbers[i].clamp(0, u32::MAX as i64) as u32;
    occ.range = match numbers.len() {
        3 => Range { start_line: n(0), start_char: n(1), end_line: n(0), end_char: n(2) },
        4 => Range { start_line: n(0), start_char: n(1), end_line: n(2), end_char: n(3) },
        other => return Err(ScipError::Range(other)),
    };
    Ok(occ)
}

fn text(bytes: &[u8], at: usize) -> Result<String, ScipError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ScipError::Utf8(at))
}

enum Value<'a> {
    Varint(u64),
    /// A length-delimited field and its offset in the whole file.
    Bytes(&'a [u8], usize),
    Fixed,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Offset of `bytes` in the whole file, for error messages.
    base: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, ScipError> {
        let start = self.base + self.at;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.at).ok_or(ScipError::Truncated(start))?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ScipError::Varint(start))
    }

    fn take(&mut self, n: usize) -> Result<(&'a [u8], usize), ScipError> {
        let start = self.at;
        let end =
            start.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(ScipError::Truncated(self.base + start))?;
        self.at = end;
        Ok((&self.bytes[start..end], self.base + start))
    }

    /// The next field number and value, or `None` at the end.
    fn field(&mut self) -> Result<Option<(u64, Value<'a>)>, ScipError> {
        if self.at >= self.bytes.len() {
            return Ok(None);
        }
        let at = self.base + self.at;
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed
            }
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| ScipError::Truncated(at))?;
                let (b, start) = self.take(len)?;
                Value::Bytes(b, start)
            }
            5 => {
                self.take(4)?;
                Value::Fixed
            }
            wire => return Err(ScipError::WireType { wire, at }),
        };
        Ok(Some((key >> 3, value)))
    }
}

/// The byte offset in `line` of character `units`, counted in `encoding`;
/// the line's length when it is past the end.
pub fn byte_offset(line: &str, units: u32, encoding: Encoding) -> usize {
    let units = units as usize;
    if encoding == Encoding::Utf8 {
        return units.min(line.len());
    }
    let mut counted = 0;
    for (i, c) in line.char_indices() {
        if counted >= units {
            return i;
        }
        counted += match encoding {
            Encoding::Utf32 => 1,
            _ => c.len_utf16(),
        };
    }
    line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn bytes_field(field: u64, body: &[u8], out: &mut Vec<u8>) {
        varint(field << 3 | 2, out);
        varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }

    fn occurrence_bytes(range: &[u64], symbol: &str, roles: u64) -> Vec<u8> {
        let mut packed = Vec::new();
        for &n in range {
            varint(n, &mut packed);
        }
        let mut occ = Vec::new();
        bytes_field(1, &packed, &mut occ);
        bytes_field(2, symbol.as_bytes(), &mut occ);
        varint(3 << 3, &mut occ);
        varint(roles, &mut occ);
        // An unknown fixed64 field is skipped.
        varint(12 << 3 | 1, &mut occ);
        occ.extend_from_slice(&[0; 8]);
        occ
    }

    #[test]
    fn decodes_documents_and_occurrences() {
        let mut doc = Vec::new();
        bytes_field(1, b"src/a.py", &mut doc);
        bytes_field(2, &occurrence_bytes(&[3, 4, 9], "scip-python python p 1 a/f().", 1), &mut doc);
        bytes_field(2, &occurrence_bytes(&[7, 0, 8, 2], "local 3", 8), &mut doc);
        varint(6 << 3, &mut doc);
        varint(1, &mut doc);
        let mut index = Vec::new();
        bytes_field(1, b"metadata is skipped", &mut index);
        bytes_field(2, &doc, &mut index);
        let decoded = decode(&index).unwrap();
        assert_eq!(decoded.documents.len(), 1);
        let d = &decoded.documents[0];
        assert_eq!(d.relative_path, "src/a.py");
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.occurrences[0].range, Range { start_line: 3, start_char: 4, end_line: 3, end_char: 9 });
        assert!(d.occurrences[0].is_definition() && !d.occurrences[0].is_local());
        assert_eq!(d.occurrences[1].range, Range { start_line: 7, start_char: 0, end_line: 8, end_char: 2 });
        assert!(!d.occurrences[1].is_definition() && d.occurrences[1].is_local());
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        let mut doc = Vec::new();
        bytes_field(1, b"src/a.py", &mut doc);
        let mut index = Vec::new();
        bytes_field(2, &doc, &mut index);
        for cut in 1..index.len() {
            assert!(decode(&index[..cut]).is_err(), "a file cut at {cut} bytes decoded");
        }
        assert_eq!(decode(&[0x0b]), Err(ScipError::WireType { wire: 3, at: 0 }));
        assert_eq!(decode(&[0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]), Err(ScipError::Truncated(6)));
        let mut doc = Vec::new();
        bytes_field(2, &occurrence_bytes(&[1, 2], "x", 0), &mut doc);
        let mut index = Vec::new();
        bytes_field(2, &doc, &mut index);
        assert_eq!(decode(&index), Err(ScipError::Range(2)));
    }

    #[test]
    fn character_offsets_follow_the_encoding() {
        let line = "é𝄞x(";
        assert_eq!(byte_offset(line, 3, Encoding::Utf16), "é𝄞".len());
        assert_eq!(byte_offset(line, 2, Encoding::Utf32), "é𝄞".len());
        assert_eq!(byte_offset(line, 2, Encoding::Utf8), 2);
        assert_eq!(byte_offset(line, 99, Encoding::Utf16), line.len());
    }
}
