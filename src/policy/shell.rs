//! Reads a shell command line (as other agents' Bash tools send them) into
//! the actions it would take: one exec per pipeline or list segment, a write
//! per output redirection, a read per input redirection. Whatever cannot be
//! judged statically (expansions, substitutions, subshells, here-documents)
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
    /// `;`, `&&`, `||`, `|`, `&`, newline.
    Separator,
    /// `>`, `>>`, `2>`, `&>`...: the next word is written.
    RedirectOut,
    /// `<`: the next word is read.
    RedirectIn,
}

fn tokens(line: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let opaque = |what: &str| Err(format!("{what} cannot be judged before it runs"));
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
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
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
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
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(x) => word.push(x),
                    None => {}
                }
            }
            '$' | '`' => return opaque("an expansion or command substitution"),
            '(' | ')' | '{' | '}' if !in_word => return opaque("a subshell or group"),
            ' ' | '\t' => {
                if in_word {
                    out.push(Token::Word(std::mem::take(&mut word)));
                    in_word = false;
                }
            }
            ';' | '\n' | '|' | '&' => {
                if in_word {
                    out.push(Token::Word(std::mem::take(&mut word)));
                    in_word = false;
                }
                if c == '&' && chars.peek() == Some(&'>') {
                    chars.next();
                    if chars.peek() == Some(&'>') {
                        chars.next();
                    }
                    out.push(Token::RedirectOut);
                } else {
                    if matches!(chars.peek(), Some('&') | Some('|')) {
                        chars.next();
                    }
                    out.push(Token::Separator);
                }
            }
            '>' | '<' => {
                // `2>` and `1>`: the digit was read as a word; drop it.
                if in_word && (word == "1" || word == "2") {
                    word.clear();
                    in_word = false;
                } else if in_word {
                    out.push(Token::Word(std::mem::take(&mut word)));
                    in_word = false;
                }
                if c == '<' && chars.peek() == Some(&'<') {
                    return opaque("a here-document");
                }
                if c == '<' && chars.peek() == Some(&'(') || c == '>' && chars.peek() == Some(&'(') {
                    return opaque("a process substitution");
                }
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    // `2>&1`: a descriptor copy, no file.
                    chars.next();
                    while chars.peek().is_some_and(|d| d.is_ascii_digit() || *d == '-') {
                        chars.next();
                    }
                    continue;
                }
                out.push(if c == '>' { Token::RedirectOut } else { Token::RedirectIn });
            }
            '#' if !in_word => break,
            x => {
                in_word = true;
                word.push(x);
            }
        }
    }
    if in_word {
        out.push(Token::Word(word));
    }
    Ok(out)
}

/// Reads a command line into actions.
pub fn read(line: &str) -> Reading {
    let toks = match tokens(line) {
        Ok(t) => t,
        Err(why) => return Reading::Opaque(why),
    };
    let mut actions = Vec::new();
    let mut argv: Vec<String> = Vec::new();
    let mut pending: Option<bool> = None; // Some(true): next word is written; Some(false): read
    let flush = |argv: &mut Vec<String>, actions: &mut Vec<Action>| {
        if !argv.is_empty() {
            // Leading `A=b` assignments run the command under `env`.
            if argv[0].contains('=') && !argv[0].starts_with('=') {
                argv.insert(0, "env".to_string());
            }
            actions.push(Action::Exec { argv: std::mem::take(argv) });
        }
    };
    for t in toks {
        match t {
            Token::Word(w) => match pending.take() {
                Some(true) if w == "/dev/null" => {}
                Some(true) => actions.push(Action::WriteFile { path: w, content: None }),
                Some(false) => actions.push(Action::ReadFile { path: w }),
                None => argv.push(w),
            },
            Token::Separator => flush(&mut argv, &mut actions),
            Token::RedirectOut => pending = Some(true),
            Token::RedirectIn => pending = Some(false),
        }
    }
    if pending.is_some() {
        return Reading::Opaque("a redirection without a target".into());
    }
    flush(&mut argv, &mut actions);
    if actions.is_empty() {
        return Reading::Opaque("an empty command".into());
    }
    Reading::Actions(actions)
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
            "diff <(ls a) b",
            "echo 'open",
            "",
        ] {
            assert!(matches!(read(line), Reading::Opaque(_)), "{line}");
        }
    }
}
