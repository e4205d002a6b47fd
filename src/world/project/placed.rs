//! Places what a macro expansion projects to in the file that invokes the
//! macro: each line where the user wrote it, each id qualified by the
//! definition around the invocation. Knows projections, never the index.

use std::collections::HashSet;

use super::expand::Expansion;
use super::{compact, FileProjection, RawCall, TypeHint, SIGNATURE_MAX_CHARS};
use crate::world::imports::Import;

/// Where an expanded macro invocation stands in its file.
pub(super) struct Place {
    /// The qualified id of the innermost definition around it (a `mod`), if any.
    pub container: Option<String>,
    /// How many definitions enclose it.
    pub depth: u32,
    /// Who the expansion's module-level code belongs to.
    pub caller: String,
}

impl Place {
    /// Adds what an expansion's projection found to the file's, each line
    /// placed where the user wrote it and each id qualified by the container.
    pub fn merge(
        &self,
        path: &str,
        expansion: &Expansion,
        inner: FileProjection,
        file_lines: &[&[u8]],
        out: &mut FileProjection,
    ) {
        let prefix = format!("{path}#");
        let requalify = |id: String| match (id.strip_prefix(&prefix), &self.container) {
            (Some(rest), Some(container)) => format!("{container}.{rest}"),
            (None, _) if id == path => self.caller.clone(),
            _ => id,
        };
        let line = |l: u32| expansion.file_line(l).unwrap_or(expansion.row + 1);
        let mut ids: HashSet<String> = out.symbols.iter().map(|s| s.id.clone()).collect();
        for mut symbol in inner.symbols {
            symbol.id = requalify(symbol.id);
            (symbol.line, symbol.end_line) = expansion.file_span(symbol.line, symbol.end_line);
            symbol.depth += self.depth;
            // What the user wrote, not the macro's spelling of it.
            if let Some(written) = file_lines.get(symbol.line as usize - 1) {
                let written = String::from_utf8_lossy(written);
                symbol.signature = compact(written.trim().trim_end_matches('{').trim_end(), SIGNATURE_MAX_CHARS);
            }
            if ids.insert(symbol.id.clone()) {
                out.symbols.push(symbol);
            }
        }
        out.calls.extend(inner.calls.into_iter().map(|c| RawCall {
            caller: requalify(c.caller),
            line: line(c.line),
            ..c
        }));
        out.hints.extend(inner.hints.into_iter().map(|h| TypeHint {
            scope: requalify(h.scope),
            line: line(h.line),
            ..h
        }));
        out.imports.extend(inner.imports.into_iter().map(|i| Import { line: line(i.line), ..i }));
    }
}
