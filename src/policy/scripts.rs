//! Reads the little programs other programs take as arguments: a sed script's
//! commands (which files it reads and writes, whether it runs a shell) and an
//! awk program's use of `system()`, pipes, `getline` and output redirection.
//! What cannot be read is reported as such, never guessed to be harmless.
//! Knows nothing about whether what it finds is allowed.

/// What a sed script does beyond editing the stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SedUse {
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    /// Why the script is refused outright: it runs commands, or cannot be read.
    pub refused: Option<String>,
}

struct Cursor<'a> {
    chars: Vec<char>,
    pos: usize,
    _text: &'a str,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += usize::from(c.is_some());
        c
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }

    /// The rest of the line (a file name, a label, text), trimmed.
    fn rest_of_line(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.next() {
            if c == '\n' {
                break;
            }
            out.push(c);
        }
        out.trim().to_string()
    }

    /// Text up to an unescaped `delim`; `None` when the script ends first.
    fn delimited(&mut self, delim: char) -> Option<String> {
        let mut out = String::new();
        loop {
            match self.next()? {
                '\\' => {
                    out.push('\\');
                    out.push(self.next()?);
                }
                c if c == delim => return Some(out),
                '\n' if delim != '\n' => return None,
                c => out.push(c),
            }
        }
    }

    /// An address: a line number, `$`, `/re/`, `\cREc`, `first~step`, `+N`, `~N`.
    fn address(&mut self) -> Option<bool> {
        match self.peek()? {
            '0'..='9' => {
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '~') {
                    self.pos += 1;
                }
                Some(true)
            }
            '$' => {
                self.pos += 1;
                Some(true)
            }
            '/' => {
                self.pos += 1;
                self.delimited('/')?;
                self.flags_of_address();
                Some(true)
            }
            '\\' => {
                self.pos += 1;
                let d = self.next()?;
                self.delimited(d)?;
                self.flags_of_address();
                Some(true)
            }
            '+' | '~' => {
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                Some(true)
            }
            _ => Some(false),
        }
    }

    fn flags_of_address(&mut self) {
        while self.peek().is_some_and(|c| c == 'I' || c == 'M') {
            self.pos += 1;
        }
    }
}

/// Reads a sed script.
pub fn sed(script: &str) -> SedUse {
    let mut use_ = SedUse::default();
    let mut c = Cursor { chars: script.chars().collect(), pos: 0, _text: script };
    let unreadable = |what: String| Some(format!("nerd cannot read this sed script ({what}), so it is refused"));
    loop {
        while c.peek().is_some_and(|x| x.is_whitespace() || x == ';') {
            c.pos += 1;
        }
        if c.peek().is_none() {
            break;
        }
        // Addresses: one, or a range, then an optional `!`.
        if c.address().is_none() {
            use_.refused = unreadable("an unterminated address".into());
            return use_;
        }
        c.skip_blanks();
        if c.peek() == Some(',') {
            c.pos += 1;
            c.skip_blanks();
            if c.address() != Some(true) {
                use_.refused = unreadable("a range without an end".into());
                return use_;
            }
        }
        c.skip_blanks();
        while c.peek() == Some('!') {
            c.pos += 1;
            c.skip_blanks();
        }
        let Some(cmd) = c.next() else { break };
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            '#' | ':' | 'a' | 'i' | 'c' | 'b' | 't' | 'T' | 'v' => {
                // Comments, labels, branches and text run to the end of the line; `a\` continues.
                loop {
                    let line = c.rest_of_line();
                    if !line.ends_with('\\') || c.peek().is_none() {
                        break;
                    }
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                c.skip_blanks();
                while c.peek().is_some_and(|x| x.is_ascii_digit()) {
                    c.pos += 1;
                }
            }
            'r' | 'R' => {
                let file = c.rest_of_line();
                use_.reads.push(file);
            }
            'w' | 'W' => {
                let file = c.rest_of_line();
                use_.writes.push(file);
            }
            'e' => {
                use_.refused = Some("sed's e command runs a shell command".into());
                return use_;
            }
            's' | 'y' => {
                let Some(delim) = c.next().filter(|d| *d != '\n' && *d != '\\') else {
                    use_.refused = unreadable(format!("`{cmd}` without a delimiter"));
                    return use_;
                };
                if c.delimited(delim).is_none() || c.delimited(delim).is_none() {
                    use_.refused = unreadable(format!("an unterminated `{cmd}` command"));
                    return use_;
                }
                if cmd == 'y' {
                    continue;
                }
                while let Some(flag) = c.peek() {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => c.pos += 1,
                        'e' => {
                            use_.refused = Some("sed's s///e flag runs the pattern space as a command".into());
                            return use_;
                        }
                        'w' => {
                            c.pos += 1;
                            let file = c.rest_of_line();
                            use_.writes.push(file);
                            break;
                        }
                        _ => break,
                    }
                }
            }
            other => {
                use_.refused = unreadable(format!("the command `{other}`"));
                return use_;
            }
        }
    }
    use_
}

/// `program` with the contents of string literals and regular expression
/// literals replaced by spaces (their delimiters kept, every offset kept):
/// text inside them cannot run anything and must not look like code.
fn awk_code(program: &str) -> String {
    let mut code = String::with_capacity(program.len());
    // The literal being read: `"` or `/`.
    let mut inside: Option<char> = None;
    let mut escaped = false;
    // The last character outside literals that is not a blank: a `/` after an operand divides.
    let mut last = None;
    for ch in program.chars() {
        match inside {
            Some(_) if escaped => {
                escaped = false;
                code.push_str(&" ".repeat(ch.len_utf8()));
            }
            Some(_) if ch == '\\' => {
                escaped = true;
                code.push(' ');
            }
            Some(delim) if ch == delim => {
                inside = None;
                code.push(ch);
                last = Some('x');
            }
            Some(_) if ch == '\n' => code.push('\n'),
            Some(_) => code.push_str(&" ".repeat(ch.len_utf8())),
            None => {
                let regex_can_start = last.is_none_or(|c: char| "(,~!{;&|?:=+-*%<>\n}".contains(c));
                if ch == '"' || (ch == '/' && regex_can_start) {
                    inside = Some(ch);
                }
                if !ch.is_whitespace() || ch == '\n' {
                    last = Some(ch);
                }
                code.push(ch);
            }
        }
    }
    code
}

/// Why an awk program is refused, if it is: it runs commands, reads input
/// or the environment nerd did not name, or writes files.
pub fn awk(program: &str) -> Option<String> {
    let code = awk_code(program);
    let word_at = |w: &str| -> Vec<usize> {
        code.match_indices(w)
            .filter(|(i, _)| {
                let before = code[..*i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                let after = code[i + w.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                before && after
            })
            .map(|(i, _)| i)
            .collect()
    };
    if !word_at("system").is_empty() {
        return Some("awk's system() runs a shell command".into());
    }
    if !word_at("ENVIRON").is_empty() || !word_at("PROCINFO").is_empty() {
        return Some("awk's ENVIRON reads the environment, where secrets live".into());
    }
    // `getline` alone reads the next input line; `getline < file` reads a file nerd did not name.
    let statement_end = |i: usize| code[i..].find([';', '}', '\n']).map_or(code.len(), |n| i + n);
    if word_at("getline").into_iter().any(|i| code[i..statement_end(i)].contains('<')) {
        return Some("awk's getline reads files or command output nerd did not name".into());
    }
    if code.contains('@') {
        return Some("gawk's @include and @load bring in code that is not judged".into());
    }
    let pipe = code.match_indices('|').any(|(i, _)| {
        let before = code[..i].ends_with('|');
        let after = code[i + 1..].starts_with('|');
        !before && !after
    });
    if pipe {
        return Some("an awk pipe runs a shell command".into());
    }
    // `print ... > file` and `printf ... >> file` write files; `>` in a print statement is
    // always redirection. Only the standard streams are harmless targets.
    let mut offset = 0;
    for statement in code.split([';', '{', '}', '\n']) {
        let start = offset;
        offset += statement.len() + 1;
        let s = statement.trim_start();
        if !(s.starts_with("print") || s.starts_with("printf")) {
            continue;
        }
        if let Some(at) = statement.find('>') {
            let target = program.get(start + at..start + statement.len()).unwrap_or_default();
            let target = target.trim_start_matches('>').trim();
            if !matches!(target, "\"/dev/stdout\"" | "\"/dev/stderr\"") {
                return Some("awk output redirection writes files".into());
            }
        }
    }
    None
}

/// Why a jq filter is refused, if it is: it reads the environment, where secrets live.
pub fn jq(filter: &str) -> Option<String> {
    let bare = filter.replace(char::is_whitespace, "");
    let reads_env = bare.contains("$ENV")
        || bare.match_indices("env").any(|(i, _)| {
            let before = bare[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'));
            let after = bare[i + 3..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            before && after
        });
    reads_env.then(|| "jq's env and $ENV read the environment, where secrets live".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_edit_are_plain() {
        for script in ["1,5p", "s/foo/bar/g", "/fn/p", "$d", "y/abc/xyz/", "/start/,/end/{s/a/b/;p}", "s|a|b|2", "2q"] {
            assert_eq!(sed(script), SedUse::default(), "{script}");
        }
    }

    #[test]
    fn sed_scripts_that_read_write_or_run_are_found() {
        assert!(sed("1e id").refused.is_some());
        assert!(sed("s/x/y/e").refused.is_some());
        assert!(sed("1e/bin/sh").refused.is_some());
        assert_eq!(sed("1w /tmp/x").writes, vec!["/tmp/x"]);
        assert_eq!(sed("s/x/y/w .git/config").writes, vec![".git/config"]);
        assert_eq!(sed("1r /etc/shadow").reads, vec!["/etc/shadow"]);
        assert_eq!(sed("$R secrets.txt").reads, vec!["secrets.txt"]);
        assert!(sed("1k").refused.is_some(), "unknown commands are refused");
        assert!(sed("s/unterminated").refused.is_some());
    }

    #[test]
    fn awk_programs_that_run_read_or_write_are_refused() {
        for ok in
            ["{print $1}", "NR > 1 { n++ } END { print n }", "{ print \"a > b | c\" }", "$1 == \"x\" || $2 { print }"]
        {
            assert_eq!(awk(ok), None, "{ok}");
        }
        for bad in [
            "BEGIN { system(\"id\") }",
            "{ print > \"/tmp/x\" }",
            "{ print | \"sh\" }",
            "{ \"date\" | getline d }",
            "{ printf \"%s\", $0 >> \"f\" }",
            "@include \"x\"",
        ] {
            assert!(awk(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn awk_regexes_standard_streams_and_plain_getline_are_fine_environ_and_jq_env_are_not() {
        for ok in [
            "/fn|struct/ {print NR\": \"$0}",
            "{ if ($1 ~ /x|y/) print }",
            "{ print > \"/dev/stderr\" }",
            "{ getline; print }",
            "{ n = $1 / 2; print n }",
        ] {
            assert_eq!(awk(ok), None, "{ok}");
        }
        for bad in [
            "BEGIN{for (k in ENVIRON) print k, ENVIRON[k]}",
            "{ getline line < \"/etc/passwd\" }",
            "{ print > \"out\" }",
        ] {
            assert!(awk(bad).is_some(), "{bad}");
        }
        assert!(
            jq("env").is_some() && jq("$ENV.HOME").is_some() && jq(".env | keys").is_none() && jq(".name").is_none()
        );
    }
}
