//! Reads a shell command line (as other agents' Bash tools send them) into
//! the actions it would take, reading what bash reads: one exec per pipeline
//! or list segment, a write per output redirection (`>`, `>>`, `&>`, `>&file`,
//! `<>`), a read per input redirection, comments to the end of their line
//! only, `cd DIR &&` moving where the rest runs, here-documents and
//! here-strings as data on standard input. Whatever cannot be judged
//! statically (expansions, substitutions, subshells, expansions inside an
//! unquoted here-document, globs, brace expansion, `~user`, ANSI-C quotes)
//! is reported as opaque, never guessed at.
//! Knows nothing about whether the actions are allowed.

use super::action::Action;

/// The actions of a command line, or why it cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub enum Reading {
    Actions(Vec<Action>),
    /// The line uses shell features whose effect is only known when run.
    Opaque(String),
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    /// `;`, `&&`, `||`, `|`, `&`, newline; whether it is `&&`.
    Separator {
        and: bool,
    },
    /// `>`, `>>`, `2>`, `&>`...: the next word is written.
    RedirectOut,
    /// `<`: the next word is read.
    RedirectIn,
    /// `<<<`: the next word is data on standard input.
    HereString,
}

/// The characters of a command line with the byte offset reached, so words can be found in it again.
struct Src<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: usize,
}

impl<'a> Src<'a> {
    fn new(line: &'a str) -> Src<'a> {
        Src { chars: line.chars().peekable(), pos: 0 }
    }

    fn peek(&mut self) -> Option<&char> {
        self.chars.peek()
    }
}

impl Iterator for Src<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.pos += c.len_utf8();
        Some(c)
    }
}

/// A here-document announced on the current line, read after its newline.
struct HereDoc {
    delimiter: String,
    /// `<<-`: leading tabs are stripped from the body and the delimiter line.
    strip_tabs: bool,
    /// A quoted delimiter: the body is taken literally, no expansions.
    quoted: bool,
}

/// Reads the delimiter word after `<<` or `<<-`: (word, whether any part was quoted).
fn heredoc_delimiter(chars: &mut Src<'_>) -> Result<(String, bool), String> {
    while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
        chars.next();
    }
    let (mut word, mut quoted) = (String::new(), false);
    while let Some(&c) = chars.peek() {
        match c {
            '\'' | '"' => {
                quoted = true;
                chars.next();
                loop {
                    match chars.next() {
                        Some(x) if x == c => break,
                        Some(x) => word.push(x),
                        None => return Err("an unterminated here-document delimiter".into()),
                    }
                }
            }
            '\\' => {
                quoted = true;
                chars.next();
                if let Some(x) = chars.next() {
                    word.push(x);
                }
            }
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '$' | '`' => return Err("an expansion in a here-document delimiter cannot be judged before it runs".into()),
            _ => {
                word.push(c);
                chars.next();
            }
        }
    }
    if word.is_empty() {
        return Err("a here-document without a delimiter".into());
    }
    Ok((word, quoted))
}

/// Consumes the bodies of the pending here-documents, which start after a newline.
fn heredoc_bodies(chars: &mut Src<'_>, docs: &mut Vec<HereDoc>) -> Result<(), String> {
    for doc in docs.drain(..) {
        loop {
            let mut line = String::new();
            let mut ended = false;
            for c in chars.by_ref() {
                if c == '\n' {
                    ended = true;
                    break;
                }
                line.push(c);
            }
            let text = if doc.strip_tabs { line.trim_start_matches('\t') } else { line.as_str() };
            if text == doc.delimiter {
                break;
            }
            if !doc.quoted && (text.contains('$') || text.contains('`') || text.contains('\\')) {
                return Err("an expansion inside an unquoted here-document cannot be judged before it runs".into());
            }
            if !ended {
                return Err(format!("the here-document ending with `{}` is never closed", doc.delimiter));
            }
        }
    }
    Ok(())
}

/// The tokens of a line, each with the byte range it was read from.
fn tokens(line: &str) -> Result<Vec<(Token, std::ops::Range<usize>)>, String> {
    let mut out = Vec::new();
    let mut word_start: Option<usize> = None;
    let mut word = String::new();
    let mut in_word = false;
    // Whether the word so far came from unquoted digits only (a descriptor number before `>`/`<`).
    let mut digits_only = true;
    let mut chars = Src::new(line);
    let mut heredocs: Vec<HereDoc> = Vec::new();
    let opaque = |what: &str| Err(format!("{what} cannot be judged before it runs"));
    macro_rules! end_word {
        ($at:expr) => {
            if in_word {
                let at = $at;
                out.push((Token::Word(std::mem::take(&mut word)), word_start.take().unwrap_or(at)..at));
                in_word = false;
            }
        };
    }
    loop {
        let before = chars.pos;
        let Some(c) = chars.next() else { break };
        match c {
            '\'' => {
                in_word = true;
                digits_only = false;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => word.push(x),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                digits_only = false;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some('\n') => {}
                            Some(x @ ('"' | '\\' | '$' | '`')) => word.push(x),
                            Some(x) => {
                                word.push('\\');
                                word.push(x);
                            }
                            None => return Err("unterminated double quote".into()),
                        },
                        Some('$') | Some('`') => return opaque("an expansion inside double quotes"),
                        Some(x) => word.push(x),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                // A line continuation joins the lines; it is not part of a word.
                Some('\n') => {}
                Some(x) => {
                    in_word = true;
                    digits_only = false;
                    word.push(x);
                }
                None => {}
            },
            '$' | '`' => return opaque("an expansion or command substitution"),
            '(' | ')' => return opaque("a subshell or group"),
            '{' | '}' if !in_word => return opaque("a subshell or group"),
            '{' | '}' => return opaque("brace expansion"),
            '*' | '?' | '[' => return opaque("a glob pattern"),
            '~' if !in_word || word.ends_with('=') => {
                // `~` and `~/…` are the home folder; `~user` is someone else's.
                if chars.peek().is_some_and(|n| !matches!(n, '/' | ' ' | '\t' | '\n' | ';' | '&' | '|' | ':')) {
                    return opaque("`~user`");
                }
                in_word = true;
                digits_only = false;
                word.push('~');
            }
            ' ' | '\t' => {
                end_word!(before);
                digits_only = true;
            }
            ';' | '\n' | '|' | '&' => {
                end_word!(before);
                digits_only = true;
                if c == '&' && chars.peek() == Some(&'>') {
                    chars.next();
                    if chars.peek() == Some(&'>') {
                        chars.next();
                    }
                    out.push((Token::RedirectOut, before..chars.pos));
                } else {
                    if c == ';' && chars.peek() == Some(&';') {
                        return opaque("a case clause");
                    }
                    if c == '\n' && !heredocs.is_empty() {
                        heredoc_bodies(&mut chars, &mut heredocs)?;
                    }
                    let and = c == '&' && chars.peek() == Some(&'&');
                    if matches!(chars.peek(), Some('&') | Some('|')) {
                        chars.next();
                    }
                    out.push((Token::Separator { and }, before..chars.pos));
                }
            }
            '>' | '<' => {
                // `2>`, `10<`: a descriptor number written against the operator is no argument.
                if in_word && digits_only {
                    word.clear();
                    in_word = false;
                    word_start = None;
                } else {
                    end_word!(before);
                }
                digits_only = true;
                if c == '<' && chars.peek() == Some(&'<') {
                    chars.next();
                    if chars.peek() == Some(&'<') {
                        chars.next();
                        out.push((Token::HereString, before..chars.pos));
                        continue;
                    }
                    let strip_tabs = chars.peek() == Some(&'-');
                    if strip_tabs {
                        chars.next();
                    }
                    let (delimiter, quoted) = heredoc_delimiter(&mut chars)?;
                    heredocs.push(HereDoc { delimiter, strip_tabs, quoted });
                    continue;
                }
                if chars.peek() == Some(&'(') {
                    return opaque("a process substitution");
                }
                // `<>` opens the file for reading and writing.
                let mut writes = c == '>';
                if chars.peek() == Some(&'>') || (c == '>' && chars.peek() == Some(&'|')) {
                    chars.next();
                    writes = true;
                }
                if chars.peek() == Some(&'&') {
                    chars.next();
                    // `2>&1`, `>&-`: a descriptor copy or close. `>&file` writes the file.
                    let mut descriptor = String::new();
                    while chars.peek().is_some_and(|d| d.is_ascii_digit() || *d == '-') {
                        descriptor.push(chars.next().unwrap_or('-'));
                    }
                    let ends =
                        chars.peek().is_none_or(|n| matches!(n, ' ' | '\t' | '\n' | ';' | '&' | '|' | '>' | '<'));
                    if !descriptor.is_empty() && ends {
                        continue;
                    }
                    word.push_str(&descriptor);
                    in_word = !descriptor.is_empty();
                    digits_only = false;
                }
                out.push((if writes { Token::RedirectOut } else { Token::RedirectIn }, before..chars.pos));
                if in_word {
                    // The target began with digits right after `>&`: it is a file name.
                    continue;
                }
            }
            // A comment runs to the end of its line; bash reads the next line.
            '#' if !in_word => {
                while chars.peek().is_some_and(|n| *n != '\n') {
                    chars.next();
                }
            }
            x => {
                in_word = true;
                if !x.is_ascii_digit() {
                    digits_only = false;
                }
                word.push(x);
            }
        }
        if in_word && word_start.is_none() {
            word_start = Some(before);
        }
    }
    if in_word {
        out.push((Token::Word(word), word_start.unwrap_or(0)..chars.pos));
    }
    if let Some(doc) = heredocs.first() {
        return Err(format!("the here-document ending with `{}` is never closed", doc.delimiter));
    }
    Ok(out)
}

/// Reads a command line into actions.
pub fn read(line: &str) -> Reading {
    read_with_spans(line).0
}

/// Reads a command line into actions, with, for each program run, the byte
/// range of its words in the line when they stand together (no redirection
/// between them), so that a caller can rewrite how that program is run and
/// keep the rest of the line as bash would read it.
pub fn read_with_spans(line: &str) -> (Reading, Vec<Option<std::ops::Range<usize>>>) {
    let toks = match tokens(line) {
        Ok(t) => t,
        Err(why) => return (Reading::Opaque(why), Vec::new()),
    };
    let mut spans: Vec<Option<std::ops::Range<usize>>> = Vec::new();
    // The words of the segment being read: their range, and whether a redirection split them.
    let mut segment: Option<std::ops::Range<usize>> = None;
    let mut split = false;
    let mut actions = Vec::new();
    let mut argv: Vec<String> = Vec::new();
    let mut pending: Option<bool> = None; // Some(true): next word is written; Some(false): read
    let mut data_next = false; // the next word is a here-string's data
                               // Where the commands run after `cd DIR &&`, relative to the start.
    let mut cwd: Option<String> = None;
    let mut cd_pending: Option<String> = None;
    let flush = |argv: &mut Vec<String>,
                 actions: &mut Vec<Action>,
                 spans: &mut Vec<Option<std::ops::Range<usize>>>,
                 cwd: &Option<String>,
                 segment: Option<std::ops::Range<usize>>,
                 split: bool| {
        if argv.is_empty() {
            return;
        }
        while spans.len() < actions.len() {
            spans.push(None);
        }
        spans.push(segment.filter(|_| !split));
        // Leading `A=b` assignments run the command under `env`.
        if argv[0].contains('=') && !argv[0].starts_with('=') {
            argv.insert(0, "env".to_string());
        }
        // After `cd DIR`, the command runs there: `env -C DIR` says so to the policy.
        if let Some(dir) = cwd {
            argv.splice(0..0, ["env".to_string(), "-C".to_string(), dir.clone()]);
        }
        actions.push(Action::Exec { argv: std::mem::take(argv) });
    };
    for (t, range) in toks {
        match t {
            Token::Word(_) if std::mem::take(&mut data_next) => {}
            Token::HereString => {
                data_next = true;
                split |= segment.is_some();
            }
            Token::Word(w) => match pending.take() {
                Some(true) if w == "/dev/null" => {}
                Some(true) => actions.push(Action::WriteFile { path: in_dir(&cwd, w), content: None }),
                Some(false) => actions.push(Action::ReadFile { path: in_dir(&cwd, w) }),
                None => {
                    argv.push(w);
                    segment = Some(segment.map_or(range.clone(), |s| s.start..range.end));
                }
            },
            Token::Separator { and } => {
                if let Some(dir) = cd_pending.take() {
                    return (Reading::Opaque(format!("`cd {dir}` followed by something other than `&&`")), spans);
                }
                if argv.first().is_some_and(|p| p == "cd") {
                    match argv.as_slice() {
                        [_, dir] if and && !dir.starts_with('-') => {
                            cwd = Some(in_dir(&cwd, dir.clone()));
                            argv.clear();
                            (segment, split) = (None, false);
                            continue;
                        }
                        _ if and => return (Reading::Opaque("a `cd` nerd cannot follow".into()), spans),
                        _ => cd_pending = Some(argv.get(1).cloned().unwrap_or_default()),
                    }
                }
                flush(&mut argv, &mut actions, &mut spans, &cwd, segment.take(), split);
                split = false;
            }
            Token::RedirectOut => {
                pending = Some(true);
                split |= segment.is_some();
            }
            Token::RedirectIn => {
                pending = Some(false);
                split |= segment.is_some();
            }
        }
    }
    if pending.is_some() || data_next {
        return (Reading::Opaque("a redirection without a target".into()), spans);
    }
    if let Some(dir) = cd_pending {
        return (Reading::Opaque(format!("`cd {dir}` followed by something other than `&&`")), spans);
    }
    if argv.first().is_some_and(|p| p == "cd") {
        // A trailing `cd` changes nothing that runs.
        argv.clear();
        if actions.is_empty() {
            let look = Action::Search { pattern: String::new(), path: cwd.or(Some(".".into())) };
            return (Reading::Actions(vec![look]), vec![None]);
        }
    }
    flush(&mut argv, &mut actions, &mut spans, &cwd, segment, split);
    if actions.is_empty() {
        return (Reading::Opaque("an empty command".into()), spans);
    }
    spans.resize(actions.len(), None);
    (Reading::Actions(actions), spans)
}

/// `path` as seen from where the command started, after `cd dir`.
fn in_dir(cwd: &Option<String>, path: String) -> String {
    match cwd {
        Some(dir) if !path.starts_with('/') && !path.starts_with('~') => {
            format!("{}/{path}", dir.trim_end_matches('/'))
        }
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(v: &[&str]) -> Action {
        Action::Exec { argv: v.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn lists_pipes_quotes_and_redirections() {
        assert_eq!(
            read("cargo test 2>&1 | tail -n 20 && git status"),
            Reading::Actions(vec![exec(&["cargo", "test"]), exec(&["tail", "-n", "20"]), exec(&["git", "status"])])
        );
        // A redirection's target is opened before the command runs.
        assert_eq!(
            read("rg 'fn main' src > out.txt"),
            Reading::Actions(vec![
                Action::WriteFile { path: "out.txt".into(), content: None },
                exec(&["rg", "fn main", "src"])
            ])
        );
        assert_eq!(read("echo \"a b\" 'c d' e\\ f"), Reading::Actions(vec![exec(&["echo", "a b", "c d", "e f"])]));
        assert_eq!(read("FOO=1 rm -rf /"), Reading::Actions(vec![exec(&["env", "FOO=1", "rm", "-rf", "/"])]));
        assert_eq!(
            read("ls >/dev/null; cat < .env"),
            Reading::Actions(vec![exec(&["ls"]), Action::ReadFile { path: ".env".into() }, exec(&["cat"])])
        );
    }

    #[test]
    fn what_cannot_be_judged_is_opaque() {
        for line in [
            "echo $(cat ~/.ssh/id_rsa)",
            "rm -rf `pwd`",
            "echo \"$HOME\"",
            "(cd / && rm -rf x)",
            "cat <<EOF",
            "cat <<EOF\n$(id)\nEOF",
            "diff <(ls a) b",
            "echo 'open",
            "",
        ] {
            assert!(matches!(read(line), Reading::Opaque(_)), "{line}");
        }
    }

    #[test]
    fn bash_is_read_as_bash_reads_it() {
        // A comment ends at its line; the next line runs.
        assert_eq!(
            read("git status # x\nrm -rf ~"),
            Reading::Actions(vec![exec(&["git", "status"]), exec(&["rm", "-rf", "~"])])
        );
        // `>&file` and `<>` write; descriptor numbers are not arguments.
        assert_eq!(
            read("ls >&out.txt"),
            Reading::Actions(vec![Action::WriteFile { path: "out.txt".into(), content: None }, exec(&["ls"])])
        );
        assert_eq!(
            read("cat 1<>f"),
            Reading::Actions(vec![Action::WriteFile { path: "f".into(), content: None }, exec(&["cat"])])
        );
        assert_eq!(read("make 3>/dev/null 2>&1"), Reading::Actions(vec![exec(&["make"])]));
        // `cd DIR &&` moves where the rest runs and where redirections point.
        assert_eq!(
            read("cd src && cargo test > log"),
            Reading::Actions(vec![
                Action::WriteFile { path: "src/log".into(), content: None },
                exec(&["env", "-C", "src", "cargo", "test"])
            ])
        );
        assert_eq!(read("a\\\nb"), Reading::Actions(vec![exec(&["ab"])]));
    }

    #[test]
    fn globs_tilde_users_and_unfollowable_cds_are_opaque() {
        for line in [
            "cat .en?",
            "cp x .gi?/hooks/",
            "ls *.rs",
            "cat [.]env",
            "cp a{,.bak}",
            "cat ~root/.ssh/id_rsa",
            "echo $'\\x41'",
            "cd /tmp; rm -rf x",
            "cd - && ls",
            "case x in a) ;; esac",
        ] {
            assert!(matches!(read(line), Reading::Opaque(_)), "{line}: {:?}", read(line));
        }
    }

    #[test]
    fn here_documents_and_here_strings_are_data() {
        assert_eq!(
            read("cat > .git/hooks/pre-commit <<'EOF'\n#!/bin/sh\nid $HOME\nEOF\ngit status"),
            Reading::Actions(vec![
                Action::WriteFile { path: ".git/hooks/pre-commit".into(), content: None },
                exec(&["cat"]),
                exec(&["git", "status"])
            ])
        );
        assert_eq!(read("bash <<< 'rm -rf ~'"), Reading::Actions(vec![exec(&["bash"])]));
        assert_eq!(read("sh <<-EOF\n\trm -rf ~\n\tEOF"), Reading::Actions(vec![exec(&["sh"])]));
    }
}
