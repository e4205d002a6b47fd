//! Which state a question about the project's state asks for: the tests (by
//! default: "are the tests passing?"), the changes against HEAD ("what did I
//! change?", "git status"), the commits ("show the recent commits", "who last
//! changed parser.py"), the branch ("which branch am I on?") or the compilers'
//! and linters' diagnostics ("show me the current diagnostics"). Knows nothing
//! about git, tests or tools.

/// The state a status question asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateAsked {
    Tests,
    Changes,
    Commits,
    Branch,
    Diagnostics,
}

pattern!(
    commits_named,
    r"(?i)\b(recent|latest|last( \d+| few)?|new) commits\b|\bgit log\b|\bcommit (history|log|messages)\b|\bblame\b|\bwho (last )?(changed|modified|edited|touched|wrote|committed)\b|\bhistory of\b"
);
pattern!(
    changes_named,
    r"(?i)\bwhat (did|have|has) (i|we|you|he|she|they) (just )?(change|changed|modify|modified|touch|touched|edit|edited)\b|\bwhat('s| is| has)? (been )?(changed|modified)\b|\bwhat changes\b|\b(uncommitted|unstaged|staged|local|pending|working tree|working copy) (changes|files|edits|modifications)\b|\bgit (status|diff)\b|\bthe diff\b|\b(changed|modified) files\b|\bchanges (since|against|from) (the )?(last commit|head)\b|\bchanged since\b"
);
pattern!(
    branch_named,
    r"(?i)\b(which|what|current|active) branch\b|\bbranch (am i|are we|is this) on\b|\bbranch (name|am i)\b|\b(list|show)( me)?( all| the)?( local| remote)? branches\b|\bahead of\b|\bbehind (the |origin|upstream|main|master)"
);
pattern!(
    diagnostics_named,
    r"(?i)\bdiagnostics?\b|\b(compiler|compile|compilation|lint|linter|type|typing|build|ruff|clippy|vet|tsc) (errors?|warnings?|issues|problems|findings)\b|\bwarnings\b|\btype ?check(er|ing)?\b|\b(run|show)( the)? (linters?|lint)\b"
);
pattern!(commits_said, r"(?i)\b(commits|history|log)\b");

/// The state `question` asks for. A question naming the tests or nothing in particular
/// asks for the tests.
pub fn asked(question: &str) -> StateAsked {
    if commits_named().is_match(question) {
        StateAsked::Commits
    } else if changes_named().is_match(question) {
        StateAsked::Changes
    } else if branch_named().is_match(question) {
        StateAsked::Branch
    } else if diagnostics_named().is_match(question) {
        StateAsked::Diagnostics
    } else if commits_said().is_match(question) && !question.to_lowercase().contains("test") {
        StateAsked::Commits
    } else {
        StateAsked::Tests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_question_asks_for_one_state() {
        let cases = [
            ("are the tests passing?", StateAsked::Tests),
            ("run the tests", StateAsked::Tests),
            ("did my change break anything?", StateAsked::Tests),
            ("what's the status of the build?", StateAsked::Tests),
            ("what did I change?", StateAsked::Changes),
            ("what changed since the last commit?", StateAsked::Changes),
            ("git status", StateAsked::Changes),
            ("are there uncommitted changes?", StateAsked::Changes),
            ("show me the diff", StateAsked::Changes),
            ("show me the recent commits", StateAsked::Commits),
            ("git log", StateAsked::Commits),
            ("who last changed parser.py?", StateAsked::Commits),
            ("show the commit history of the parser", StateAsked::Commits),
            ("what branch am I on?", StateAsked::Branch),
            ("list the branches", StateAsked::Branch),
            ("show me the current diagnostics", StateAsked::Diagnostics),
            ("are there any compiler warnings?", StateAsked::Diagnostics),
            ("run the linter", StateAsked::Diagnostics),
            ("any type errors?", StateAsked::Diagnostics),
        ];
        for (question, state) in cases {
            assert_eq!(asked(question), state, "{question}");
        }
    }
}
