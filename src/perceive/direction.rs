//! Which way along call edges a question asks: "who calls parse" wants its
//! callers, "what does parse call" its callees, "explain parse" both; and
//! whether a question about a change's reach asks for the tests first. Knows
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

/// What a question about a change's reach asks to see first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The tests that reach it: "which tests cover the parser?", "is retry tested?".
    Tests,
    /// Everything a change would affect: "what breaks if I change X?".
    Everything,
}

pattern!(
    tests_asked,
    r"(?i)\b(which|what|any|are there( any)?|is there( an?)?|list( the)?|show( me)?( the)?|find( the)?)\s+(\w+\s+)?(unit |integration |e2e )?(tests?|specs?|test cases?|test functions?)\b|\b(tests?|specs?) (that |which )?(cover|reach|exercise|hit|check|call|touch)|\bcover(s|ed|age)? (of |for )?\S|\b(is|are) \S+( \S+){0,3} (tested|covered)\b|\btests? (do i|should i|to) (run|rerun)\b|测试|テスト|테스트|тест"
);

/// Whether a question about a change's reach asks for the tests first.
pub fn reach_asked(question: &str) -> Reach {
    if tests_asked().is_match(question) {
        Reach::Tests
    } else {
        Reach::Everything
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

    #[test]
    fn a_question_about_reach_asks_for_tests_or_for_everything() {
        for q in [
            "which tests cover the parser?",
            "What tests exercise Session.login?",
            "is retry_request tested?",
            "Are there any tests for the scheduler",
            "what is the test coverage of the billing module",
            "which tests should I run after changing parse_config",
            "list the unit tests that reach load_config",
            "哪些测试覆盖了 parse 函数？",
        ] {
            assert_eq!(reach_asked(q), Reach::Tests, "{q}");
        }
        for q in [
            "what would break if I change Container.append?",
            "what depends on the cache module",
            "is it safe to remove the retry logic?",
            "who is affected by changing the config format",
            "what happens if I rename parse to read",
        ] {
            assert_eq!(reach_asked(q), Reach::Everything, "{q}");
        }
    }
}
