//! Focus resolution: grounds a fuzzy reference ("the auth thing",
//! "parse_config", "Session.login") on the projected symbols and files, each
//! candidate with a confidence in [0, 1]. It only proposes; the kernel's
//! clarification rules decide whether the best candidate is good enough.
//! Knows nothing about intents or the kernel.

/// One grounding of a reference.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    pub path: String,
    /// A symbol id, or empty when the reference names a file.
    pub symbol: String,
    pub confidence: f64,
}

/// The best-grounded candidates: those whose confidence equals the highest
/// (a change or an answer goes where the user pointed, not to a runner-up).
pub fn best(focus: &[Candidate]) -> impl Iterator<Item = &Candidate> {
    let top = focus.iter().map(|c| c.confidence).fold(0.0, f64::max);
    focus.iter().filter(move |c| top - c.confidence < 1e-9)
}

/// A projected symbol as focus resolution sees it.
pub struct Known<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub path: &'a str,
}

/// Whether a target refers back to earlier work rather than naming code.
pub fn refers_back(target: &str) -> bool {
    back_reference().is_match(target.trim())
}

pattern!(
    back_reference,
    r"(?i)\b(we|you|i)\s+(just\s+)?(changed|edited|fixed|touched|renamed|modified|worked on|looked at|added)\b|\b(last|previous|same|again|earlier|yesterday|before)\b|^(that|it|this)(\s+(one|function|method|file|test|class))?$"
);

/// Most candidates kept.
pub const MAX_CANDIDATES: usize = 5;

fn normal(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

const FILLER: &[&str] =
    &["the", "thing", "stuff", "code", "module", "function", "class", "method", "file", "that", "this", "one"];

/// How much a word of a reference counts toward a symbol: found in its own
/// name, in what holds it (`Session` of `Session.send`), or only in its file's
/// path ("session handling" means the class `Session` before its methods).
fn word_weight(word: &str, own: &str, holder: &str, path: &str) -> f64 {
    if own.contains(word) {
        1.0
    } else if holder.contains(word) {
        0.75
    } else if path.contains(word) {
        0.5
    } else {
        0.0
    }
}

/// Candidates for `reference`, best first.
pub fn resolve(reference: &str, symbols: &[Known<'_>], files: &[&str]) -> Vec<Candidate> {
    let r = reference.trim().trim_end_matches("()");
    if r.is_empty() {
        return Vec::new();
    }
    let rn = normal(r);
    let words: Vec<String> = r
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !FILLER.contains(&w.as_str()))
        .collect();
    let mut out: Vec<Candidate> = Vec::new();
    for s in symbols {
        let qualified = s.id.split_once('#').map_or(s.id, |(_, q)| q);
        let confidence = if s.id == r {
            1.0
        } else if qualified == r || s.name == r {
            0.95
        } else if normal(s.name) == rn || normal(qualified) == rn {
            0.88
        } else if !words.is_empty() {
            let (own, holder) = (normal(s.name), normal(qualified.rsplit_once('.').map_or("", |(h, _)| h)));
            let path = normal(s.path);
            let hits: f64 = words.iter().map(|w| word_weight(w, &own, &holder, &path)).sum();
            if hits == 0.0 {
                continue;
            }
            0.4 + 0.35 * hits / words.len() as f64
        } else {
            continue;
        };
        out.push(Candidate { path: s.path.to_string(), symbol: s.id.to_string(), confidence });
    }
    for f in files {
        let confidence = if *f == r || f.ends_with(&format!("/{r}")) {
            0.97
        } else if !words.is_empty() && words.iter().all(|w| normal(f).contains(w.as_str())) {
            0.6
        } else {
            continue;
        };
        out.push(Candidate { path: f.to_string(), symbol: String::new(), confidence });
    }
    out.sort_by(|a, b| {
        b.confidence.total_cmp(&a.confidence).then_with(|| (&a.path, &a.symbol).cmp(&(&b.path, &b.symbol)))
    });
    out.truncate(MAX_CANDIDATES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbol known by its id: its path before `#`, its name the id's last part.
    fn known(id: &'static str) -> Known<'static> {
        let (path, qualified) = id.split_once('#').unwrap_or((id, id));
        Known { id, name: qualified.rsplit('.').next().unwrap_or(qualified), path }
    }

    #[test]
    fn exact_names_are_confident_fuzzy_ones_are_not() {
        let symbols =
            ["src/config.rs#parse_config", "src/auth.rs#login", "src/auth.rs#Session.refresh", "src/cli.rs#parse_args"]
                .map(known);
        let files = ["src/config.rs", "src/auth.rs"];
        let best = |r: &str| resolve(r, &symbols, &files).first().cloned();
        assert_eq!(best("parse_config").unwrap().confidence, 0.95);
        assert_eq!(best("Session.refresh").unwrap().symbol, "src/auth.rs#Session.refresh");
        assert_eq!(best("src/auth.rs").unwrap().confidence, 0.97);
        let fuzzy = resolve("the auth thing", &symbols, &files);
        assert!(fuzzy.len() >= 2 && fuzzy.iter().all(|c| c.confidence < 0.85), "{fuzzy:?}");
        assert!(resolve("nothing like it", &symbols, &files).is_empty());
    }

    /// A word found in a symbol's own name counts more than one found in what holds it,
    /// and that more than one found only in its file's path: the thing a phrase names
    /// comes before its members and its neighbours (still below the confident line).
    #[test]
    fn words_in_a_symbols_own_name_count_most() {
        let symbols = [
            "src/sessions.py#Session",
            "src/sessions.py#Session.close",
            "src/sessions.py#merge_setting",
            "src/adapters.py#BaseAdapter",
            "src/adapters.py#BaseAdapter.send",
            "src/api.py#send_all",
        ]
        .map(known);
        let order = |r: &str| -> Vec<String> {
            resolve(r, &symbols, &[])
                .into_iter()
                .map(|c| c.symbol.rsplit('#').next().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(order("session handling"), ["Session", "Session.close", "merge_setting"]);
        assert_eq!(order("send in the adapter")[0], "BaseAdapter.send");
        assert!(resolve("session handling", &symbols, &[]).iter().all(|c| c.confidence < 0.85));
    }

    #[test]
    fn references_to_earlier_work_are_told_from_names() {
        for yes in [
            "the function we changed yesterday",
            "that test again",
            "the file you just edited",
            "it",
            "that one",
            "the last change",
        ] {
            assert!(refers_back(yes), "{yes}");
        }
        for no in ["parse_version", "src/lib.rs", "the retry logic", "Version::parse", "test_timeout"] {
            assert!(!refers_back(no), "{no}");
        }
    }
}
