//! BERT's uncased WordPiece tokenizer, as all-MiniLM-L6-v2 was trained with:
//! clean the text, pad CJK ideographs, strip accents, lowercase, split on
//! whitespace and punctuation, then split each word into the longest pieces
//! of the vocabulary. Knows nothing about the network that reads the ids.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

/// The longest word WordPiece splits; a longer one is `[UNK]`.
const LONGEST_WORD: usize = 100;

/// A WordPiece vocabulary and the ids of its special tokens.
pub struct Tokenizer {
    ids: HashMap<String, u32>,
    unknown: u32,
    start: u32,
    end: u32,
}

impl Tokenizer {
    /// Reads `vocab.txt`: one token a line, its id the line number.
    pub fn from_vocab(text: &str) -> Result<Tokenizer, String> {
        let ids: HashMap<String, u32> =
            text.lines().enumerate().map(|(i, token)| (token.to_string(), i as u32)).collect();
        let id = |token: &str| ids.get(token).copied().ok_or_else(|| format!("the vocabulary has no {token}"));
        Ok(Tokenizer { unknown: id("[UNK]")?, start: id("[CLS]")?, end: id("[SEP]")?, ids })
    }

    /// The ids of `text` framed as `[CLS] … [SEP]`, at most `max` ids in all.
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let mut out = vec![self.start];
        let room = max.saturating_sub(2);
        'words: for word in words(&normalize(text)) {
            for id in self.pieces(&word) {
                if out.len() > room {
                    break 'words;
                }
                out.push(id);
            }
        }
        out.push(self.end);
        out
    }

    /// Greedy longest-match-first WordPiece; a word with an unmatchable rest is one `[UNK]`.
    fn pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > LONGEST_WORD {
            return vec![self.unknown];
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut key = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let found = loop {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                key.clear();
                if start > 0 {
                    key.push_str("##");
                }
                key.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(key.as_str()) {
                    break Some(id);
                }
                end -= 1;
                if end == start {
                    break None;
                }
            };
            match found {
                Some(id) => out.push(id),
                None => return vec![self.unknown],
            }
            start = end;
        }
        out
    }
}

/// BERT's normaliser: drop control characters, make every space a plain
/// space, surround CJK ideographs with spaces, strip accents and lowercase.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            out.push(' ');
        } else if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out.nfd().filter(|c| !unicode_normalization::char::is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
}

/// Splits on whitespace, and makes every punctuation character a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c == ' ' || is_punctuation(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if c != ' ' {
                out.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn is_whitespace(c: char) -> bool {
    c.is_whitespace()
}

/// Control and format characters (Unicode Cc, Cf, Co), tab and line breaks excepted.
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    c.is_control()
        || matches!(c as u32,
            0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x8E2 | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
            | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF
            | 0xF0000..=0x10FFFF | 0xE0001 | 0xE0020..=0xE007F)
}

/// ASCII punctuation and symbols (as BERT counts them), and the Unicode punctuation blocks.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c as u32,
            0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF | 0x37E | 0x387 | 0x55A..=0x55F | 0x589 | 0x58A
            | 0x5BE | 0x5C0 | 0x5C3 | 0x5C6 | 0x5F3 | 0x5F4 | 0x609 | 0x60A | 0x60C | 0x60D | 0x61B
            | 0x61E | 0x61F | 0x66A..=0x66D | 0x6D4 | 0x964 | 0x965 | 0x970 | 0xE4F | 0xE5A | 0xE5B
            | 0x2010..=0x2027 | 0x2030..=0x2043 | 0x2045..=0x2051 | 0x2053..=0x205E | 0x207D | 0x207E
            | 0x208D | 0x208E | 0x2308..=0x230B | 0x2329 | 0x232A | 0x2768..=0x2775 | 0x27C5 | 0x27C6
            | 0x27E6..=0x27EF | 0x2983..=0x2998 | 0x29D8..=0x29DB | 0x29FC | 0x29FD | 0x2CF9..=0x2CFC
            | 0x2CFE | 0x2CFF | 0x2E00..=0x2E2E | 0x2E30..=0x2E4F | 0x3001..=0x3003 | 0x3008..=0x3011
            | 0x3014..=0x301F | 0x3030 | 0x303D | 0x30A0 | 0x30FB | 0xFE10..=0xFE19 | 0xFE30..=0xFE52
            | 0xFE54..=0xFE61 | 0xFE63 | 0xFE68 | 0xFE6A | 0xFE6B | 0xFF01..=0xFF03 | 0xFF05..=0xFF0A
            | 0xFF0C..=0xFF0F | 0xFF1A | 0xFF1B | 0xFF1F | 0xFF20 | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B
            | 0xFF5D | 0xFF5F..=0xFF65)
}

/// CJK ideographs, which BERT tokenizes one character at a time.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}
