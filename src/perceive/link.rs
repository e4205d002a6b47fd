//! A link stated in words: "the retry delay is configured in
//! settings.py#RETRY_DELAY", "parse_config calls load_env", "the flaky test
//! is test_timeout" become `(A, relation, B)` for graph memory, each end as
//! the user wrote it (grounding on the workspace is the caller's). Knows
//! nothing about memory or the world.

/// One link read from a sentence; `a` and `b` are the words that name each end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaidLink {
    pub a: String,
    pub relation: String,
    pub b: String,
}

pattern!(
    placed,
    r"(?i)^(?P<a>.+?)\s+(?:is|are|gets?|get)\s+(?:(?:now|also|only|all|being)\s+)?(?P<verb>[a-z]+(?:ed|en|lt|pt)|set|set up|read|kept|built|made|run|put|done|held|found|bound|sent|shown|thrown)\s+(?P<prep>in|by|at|from|through|via|inside|with|on|under)\s+(?P<b>.+?)$"
);
pattern!(lives, r"(?i)^(?P<a>.+?)\s+(?:lives?|sits?|is kept|resides?)\s+(?P<prep>in|at|under|inside)\s+(?P<b>.+?)$");
pattern!(
    acts,
    r"(?i)^(?P<a>.+?)\s+(?P<verb>depends on|calls|uses|wraps|replaces|extends|overrides|reads|writes|imports|configures|tests|covers|mocks)\s+(?P<b>.+?)$"
);
pattern!(
    the_one,
    r"(?i)^(?:the|our)\s+(?P<what>(?:[\w-]+\s+){0,3}?(?:test|tests|function|file|module|class|config|configuration|entry point|endpoint|handler|fixture|script|migration|benchmark))\s+(?:is|are)\s+`?(?P<b>[\w./:#-]+?)`?$"
);
pattern!(is_the, r"(?i)^(?P<a>[\w./:#-]+)\s+(?:is|are)\s+(?:the|our|a|an)\s+(?P<what>(?:[\w-]+\s*){1,5})$");

/// The link a sentence states, when it states one ("the flaky test is X"
/// only when X is a code name or path, not a word like "slow").
pub fn said_link(text: &str) -> Option<SaidLink> {
    let text = text.trim().trim_end_matches(['.', '!']).trim();
    let text = text.strip_prefix("that ").unwrap_or(text);
    if let Some(c) = placed().captures(text) {
        let verb = c["verb"].to_lowercase().replace(' ', "_");
        return link(&c["a"], &format!("{verb}_{}", c["prep"].to_lowercase()), &c["b"]);
    }
    if let Some(c) = lives().captures(text) {
        return link(&c["a"], &format!("lives_{}", c["prep"].to_lowercase()), &c["b"]);
    }
    if let Some(c) = the_one().captures(text).filter(|c| code_like(&c["b"])) {
        return link(&c["b"], "is", &c["what"]);
    }
    if let Some(c) = is_the().captures(text).filter(|c| code_like(&c["a"])) {
        return link(&c["a"], "is", &c["what"]);
    }
    if let Some(c) = acts().captures(text) {
        return link(&c["a"], &c["verb"].to_lowercase().replace(' ', "_"), &c["b"]);
    }
    None
}

/// Whether a word names code: a path, a qualified or snake_case name, or camelCase.
fn code_like(word: &str) -> bool {
    word.contains(['_', '.', '/', '#', ':']) || word.chars().skip(1).any(char::is_uppercase)
}

fn link(a: &str, relation: &str, b: &str) -> Option<SaidLink> {
    const NOT_A_NAME: &[&str] = &["the", "a", "an", "it", "this", "that", "we", "i", "you", "they", "he", "she", "our"];
    let (a, b) = (phrase(a), phrase(b));
    let names = |t: &str| !t.is_empty() && !NOT_A_NAME.contains(&t.to_lowercase().as_str());
    (names(&a) && names(&b) && a != b).then(|| SaidLink { a, relation: relation.to_string(), b })
}

/// The words naming one end: articles and quotes dropped; a code name kept
/// as written, a phrase in lower case.
pub fn phrase(text: &str) -> String {
    let mut t = text.trim().trim_matches(['`', '"', '\'']).trim();
    for article in ["the ", "a ", "an ", "our ", "that ", "this "] {
        if t.len() > article.len() && t[..article.len()].eq_ignore_ascii_case(article) {
            t = t[article.len()..].trim_start();
        }
    }
    let t = t.trim_matches(['`', '"', '\'']).trim();
    if t.contains(char::is_whitespace) {
        t.to_lowercase()
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Option<(String, String, String)> {
        said_link(text).map(|l| (l.a, l.relation, l.b))
    }

    fn t(a: &str, r: &str, b: &str) -> Option<(String, String, String)> {
        Some((a.into(), r.into(), b.into()))
    }

    #[test]
    fn sentences_that_state_a_link_become_one() {
        assert_eq!(
            said("the retry delay is configured in settings.py"),
            t("retry delay", "configured_in", "settings.py")
        );
        assert_eq!(
            said("that `backoff` is set by config/billing.toml."),
            t("backoff", "set_by", "config/billing.toml")
        );
        assert_eq!(said("The flaky test is test_timeout"), t("test_timeout", "is", "flaky test"));
        assert_eq!(
            said("the slow integration tests are tests/test_e2e.py"),
            t("tests/test_e2e.py", "is", "slow integration tests")
        );
        assert_eq!(said("test_timeout is the flaky test"), t("test_timeout", "is", "flaky test"));
        assert_eq!(said("parse_config calls load_env"), t("parse_config", "calls", "load_env"));
        assert_eq!(
            said("the proxy credentials are rebuilt in rebuild_proxies"),
            t("proxy credentials", "rebuilt_in", "rebuild_proxies")
        );
        assert_eq!(
            said("the billing client depends on the http session"),
            t("billing client", "depends_on", "http session")
        );
        assert_eq!(said("the schema lives in db/schema.sql"), t("schema", "lives_in", "db/schema.sql"));
    }

    #[test]
    fn sentences_without_a_link_give_none() {
        for text in [
            "we release on Fridays",
            "I prefer early returns",
            "the tests are slow",
            "the build is broken",
            "deploy is the last step",
            "the tests are slow in CI",
            "is it configured",
            "the retry delay is configured in the retry delay",
        ] {
            assert_eq!(said(text), None, "{text}");
        }
    }
}
