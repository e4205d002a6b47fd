//! Which way along call edges a question asks: "who calls parse" wants its
//! callers, "what does parse call" its callees, "explain parse" both. Knows
//! nothing about the call graph.

/// The direction a question about calls asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calls {
    Callers,
    Callees,
    Both,
}

pattern!(
    callees,
    r"(?i)\bwhat (\w+ )?(does|do|did) \S+( \S+)? (call|invoke|use|depend on)\b|\bwhat \S+ calls\b|\bcallees\b|\bcalls (made )?(by|from|inside) "
);
pattern!(
    callers,
    r"(?i)\b(who|what|which \w+) (calls?|uses?|invokes?|references?)\b|\bcallers\b|\b(uses|usages|references|call sites) (of|to)\b|\bwhere is \S+( \S+)? (used|called|referenced)\b|\bcalled (by|from)\b"
);

/// The direction `question` asks along call edges.
pub fn asked(question: &str) -> Calls {
    if callees().is_match(question) {
        Calls::Callees
    } else if callers().is_match(question) {
        Calls::Callers
    } else {
        Calls::Both
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_ask_one_way_or_both() {
        for q in ["what does parse call", "What functions does Session.send call?", "list the callees of echo"] {
            assert_eq!(asked(q), Calls::Callees, "{q}");
        }
        for q in [
            "who calls parse",
            "what calls load_config",
            "find all callers of Session.login",
            "uses of delete_user",
            "where is open_db used",
            "which functions call retry",
        ] {
            assert_eq!(asked(q), Calls::Callers, "{q}");
        }
        for q in ["explain parse", "where is parse defined", "what is Config"] {
            assert_eq!(asked(q), Calls::Both, "{q}");
        }
    }
}
