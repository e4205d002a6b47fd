//! gopls as the precise tier for Go: one language-server session (JSON-RPC
//! over the confined program's stdin and stdout) asked for the references of
//! every Go function and method nerd knows. Go has no SCIP indexer that this
//! toolchain can install, and one `gopls references` process per symbol costs
//! over a second; a session answers them all at once.
//! Knows nothing about storage or the kernel.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

use nerd_logic::vocab::SymbolKind;

use super::Runner;
use crate::exec::{self, ExecError};
use crate::world::resolve::precise::{from_references, PreciseFile, Reference, SourceFile};

/// A message larger than this is refused: the server is confined, not trusted.
const MAX_MESSAGE: usize = 64 << 20;

/// The precise files of every Go source; `None` when gopls is not installed.
pub(super) fn index(
    runner: &Runner<'_>,
    sources: &BTreeMap<&str, SourceFile<'_>>,
) -> Result<Option<Vec<PreciseFile>>, String> {
    let job = runner.job(vec!["gopls".into(), "serve".into()]);
    let mut cmd = match exec::command(&job) {
        Ok(c) => c,
        Err(ExecError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let log_path = runner.scratch.join("gopls.log");
    let log = std::fs::File::create(&log_path).map_err(|e| format!("cannot make the gopls log: {e}"))?;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(log);
    let child = cmd.spawn().map_err(|e| format!("cannot run gopls: {e}"))?;
    let mut session = Session::start(child)?;
    let with_log = |message: String| {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if log.trim().is_empty() {
            return message;
        }
        let first = log.lines().find(|l| l.starts_with("panic") || l.contains("fatal")).unwrap_or("");
        format!("{message}: {first} … {}", super::tail(&log, ""))
    };
    let answered = ask(&mut session, runner, sources).map_err(with_log)?;
    Ok(Some(answered))
}

/// Asks the running session for every reference and builds the files.
fn ask(
    session: &mut Session,
    runner: &Runner<'_>,
    sources: &BTreeMap<&str, SourceFile<'_>>,
) -> Result<Vec<PreciseFile>, String> {
    let deadline = Instant::now() + runner.timeout;
    let root = runner.root;
    session.request(
        "initialize",
        json!({"processId": std::process::id(), "rootUri": uri(root, ""), "capabilities": {},
               "workspaceFolders": [{"uri": uri(root, ""), "name": "workspace"}]}),
    )?;
    session.wait(1, deadline)?;
    session.notify("initialized", json!({}))?;
    for (path, file) in sources {
        let open =
            json!({"textDocument": {"uri": uri(root, path), "languageId": "go", "version": 1, "text": file.text}});
        session.notify("textDocument/didOpen", open)?;
    }

    // Each source split into lines once: names are read at definitions and at every reference.
    let lines: HashMap<&str, Vec<&str>> = sources.iter().map(|(p, f)| (*p, f.text.lines().collect())).collect();

    // Where each function and method is named, and its kind.
    let mut targets: Vec<(&str, &str, Value)> = Vec::new();
    let mut kinds: HashMap<&str, SymbolKind> = HashMap::new();
    for (path, file) in sources {
        let lines = &lines[path];
        for s in file.symbols.iter().filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method)) {
            kinds.insert(&s.id, s.kind);
            let Some(line) = lines.get(s.line.saturating_sub(1) as usize) else { continue };
            let Some(character) = name_column(line, &s.name) else { continue };
            let at = json!({"textDocument": {"uri": uri(root, path)}, "position": {"line": s.line - 1, "character": character}});
            targets.push((&s.id, path, at));
        }
    }

    // gopls crashes when asked for the references of a method that
    // implements an interface; such methods are left unanswered (their
    // heuristic edges stand) instead of asked.
    let mut unanswered: BTreeSet<&str> = BTreeSet::new();
    let mut asked: HashMap<u64, usize> = HashMap::new();
    for (i, (id, _, at)) in targets.iter().enumerate() {
        if kinds.get(id) == Some(&SymbolKind::Method) {
            asked.insert(session.request("textDocument/implementation", at.clone())?, i);
        }
    }
    for _ in 0..asked.len() {
        let (id, answer) = session.next_answer(deadline)?;
        let Some(&i) = asked.get(&id) else { continue };
        if !matches!(answer, Ok(Value::Null)) && !matches!(&answer, Ok(Value::Array(a)) if a.is_empty()) {
            unanswered.insert(targets[i].0);
        }
    }

    // One references request per remaining function and method, at its name.
    let mut asked: HashMap<u64, usize> = HashMap::new();
    for (i, (_, _, at)) in targets.iter().enumerate().filter(|(_, t)| !unanswered.contains(t.0)) {
        let mut params = at.clone();
        params["context"] = json!({"includeDeclaration": false});
        asked.insert(session.request("textDocument/references", params)?, i);
    }

    // Every answer, as references grouped by the file they are in.
    let mut found: BTreeMap<String, Vec<Found<'_>>> = BTreeMap::new();
    for _ in 0..asked.len() {
        let (id, answer) = session.next_answer(deadline)?;
        let Some(&i) = asked.get(&id) else { continue };
        let (callee, callee_path, _) = &targets[i];
        let locations = match answer {
            Ok(Value::Array(locations)) => locations,
            Ok(Value::Null) => Vec::new(),
            _ => {
                unanswered.insert(callee);
                continue;
            }
        };
        for location in locations {
            let Some((path, line, start, end)) = location_of(root, &location) else { continue };
            let Some(text) = lines.get(path.as_str()).and_then(|l| l.get(line as usize)) else { continue };
            let from = crate::world::scip::byte_offset(text, start, crate::world::scip::Encoding::Utf16);
            let to = crate::world::scip::byte_offset(text, end, crate::world::scip::Encoding::Utf16);
            let Some(name) = text.get(from..to) else { continue };
            let call_shaped = text[to..].trim_start().starts_with('(');
            let reference = Found { line: line + 1, name: name.to_string(), call_shaped, callee, callee_path };
            found.entry(path).or_default().push(reference);
        }
    }
    // A workspace gopls could not load answers every question with nothing.
    let failed_load = session.errors.lock().ok().and_then(|e| e.iter().find(|m| m.contains("load failed")).cloned());
    if let Some(message) = failed_load {
        let message: String = message.chars().take(300).collect::<String>().replace('\n', " | ");
        return Err(format!("gopls could not load the workspace (are its modules downloaded?): {message}"));
    }
    session.request("shutdown", json!(null)).ok();
    session.notify("exit", json!(null)).ok();

    let empty = Vec::new();
    Ok(sources
        .iter()
        .map(|(path, file)| {
            let refs = found.get(*path).unwrap_or(&empty).iter().map(|f| Reference {
                line: f.line,
                name: &f.name,
                call_shaped: f.call_shaped,
                target: Some((f.callee, f.callee_path)),
            });
            let mut precise = from_references(path, file.symbols, refs, &|id| kinds.get(id).copied());
            precise.unanswered =
                file.symbols.iter().filter(|s| unanswered.contains(s.id.as_str())).map(|s| s.id.clone()).collect();
            precise
        })
        .collect())
}

/// A reference gopls reported, in the file it is in.
struct Found<'a> {
    line: u32,
    name: String,
    call_shaped: bool,
    callee: &'a str,
    callee_path: &'a str,
}

/// The UTF-16 column of a function's name on its `func` line.
fn name_column(line: &str, name: &str) -> Option<usize> {
    let after_func = line.find("func")? + 4;
    let mut from = after_func;
    while let Some(i) = line[from..].find(name) {
        let at = from + i;
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].trim_start().chars().next();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && matches!(after, Some('(' | '[')) {
            return Some(line[..at].encode_utf16().count());
        }
        from = at + name.len();
    }
    None
}

/// `file://` URI of a workspace path (`""` for the root).
fn uri(root: &Path, path: &str) -> String {
    let full = if path.is_empty() { root.to_path_buf() } else { root.join(path) };
    let mut out = String::from("file://");
    for b in full.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A reported location as (workspace path, 0-based line, start and end UTF-16 column).
fn location_of(root: &Path, location: &Value) -> Option<(String, u32, u32, u32)> {
    let raw = location.get("uri")?.as_str()?.strip_prefix("file://")?;
    let decoded = percent_decode(raw)?;
    let path = Path::new(&decoded).strip_prefix(root).ok()?.to_str()?.to_string();
    let range = location.get("range")?;
    let number = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
    let (start, end) = (range.get("start")?, range.get("end")?);
    let line = number(start, "line")?;
    (number(end, "line")? == line).then_some(())?;
    Some((path, line, number(start, "character")?, number(end, "character")?))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A language-server session with a confined child. The child's whole
/// process group is killed when the session ends.
struct Session {
    child: Child,
    input: Arc<Mutex<ChildStdin>>,
    answers: mpsc::Receiver<(u64, Result<Value, String>)>,
    /// Error messages the server logged (a workspace that failed to load).
    errors: Arc<Mutex<Vec<String>>>,
    next_id: u64,
}

impl Session {
    fn start(mut child: Child) -> Result<Session, String> {
        let input = Arc::new(Mutex::new(child.stdin.take().ok_or("gopls has no stdin")?));
        let output = child.stdout.take().ok_or("gopls has no stdout")?;
        let (send, answers) = mpsc::channel();
        let replies = input.clone();
        let errors = Arc::new(Mutex::new(Vec::new()));
        let logged = errors.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            while let Some(message) = read_message(&mut reader) {
                match (message.get("id").and_then(Value::as_u64), message.get("method")) {
                    // A request from the server: answered with nothing, which every one of them accepts.
                    (_, Some(_)) if message.get("id").is_some() => {
                        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                        if let Ok(mut w) = replies.lock() {
                            let _ = write_message(&mut *w, &reply);
                        }
                    }
                    (None, Some(method)) if method == "window/logMessage" || method == "window/showMessage" => {
                        let params = &message["params"];
                        if params["type"].as_u64() == Some(1) {
                            if let (Some(text), Ok(mut all)) = (params["message"].as_str(), logged.lock()) {
                                all.push(text.to_string());
                            }
                        }
                    }
                    (Some(id), None) => {
                        let answer = match message.get("error") {
                            Some(e) => Err(e.to_string()),
                            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                        };
                        if send.send((id, answer)).is_err() {
                            return;
                        }
                    }
                    _ => {}
                }
            }
        });
        Ok(Session { child, input, answers, errors, next_id: 1 })
    }

    fn request(&mut self, method: &str, params: Value) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut w = self.input.lock().map_err(|_| "gopls session lock poisoned")?;
        write_message(&mut *w, message).map_err(|e| format!("gopls closed its input: {e}"))
    }

    fn next_answer(&mut self, deadline: Instant) -> Result<(u64, Result<Value, String>), String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.answers.recv_timeout(left).map_err(|e| match e {
            mpsc::RecvTimeoutError::Timeout => "timed out waiting for gopls".to_string(),
            mpsc::RecvTimeoutError::Disconnected => "gopls exited early".to_string(),
        })
    }

    /// Waits for the answer to request `id`.
    fn wait(&mut self, id: u64, deadline: Instant) -> Result<Value, String> {
        loop {
            let (got, answer) = self.next_answer(deadline)?;
            if got == id {
                return answer.map_err(|e| format!("gopls refused: {e}"));
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        // SAFETY: kill(2) on our own child's process group; ESRCH when gone is fine.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

fn write_message(w: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = message.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    w.flush()
}

/// One framed message, or `None` at the end of the stream or on a malformed frame.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some(v) = header.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let length = length.filter(|&n| n <= MAX_MESSAGE)?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_name_of_functions_and_methods() {
        assert_eq!(name_column("func Parse(s string) error {", "Parse"), Some(5));
        assert_eq!(name_column("func (f *FlagSet) Parse(arguments []string) error {", "Parse"), Some(18));
        assert_eq!(name_column("func Map[T any](xs []T) {", "Map"), Some(5));
        assert_eq!(name_column("func (p *Parser) ParseAll() {", "Parse"), None);
    }

    #[test]
    fn frames_round_trip_and_bad_frames_end_the_stream() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"id": 3, "result": [1]})).unwrap();
        let mut reader = BufReader::new(buf.as_slice());
        assert_eq!(read_message(&mut reader), Some(json!({"id": 3, "result": [1]})));
        assert_eq!(read_message(&mut reader), None);
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        assert_eq!(read_message(&mut BufReader::new(huge.as_bytes())), None);
    }

    #[test]
    fn uris_round_trip_through_locations() {
        let root = Path::new("/w/my proj");
        let location = json!({"uri": uri(root, "a/b.go"),
                              "range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 9}}});
        assert_eq!(location_of(root, &location), Some(("a/b.go".to_string(), 3, 4, 9)));
        let elsewhere = json!({"uri": "file:///usr/lib/go/src/fmt/print.go",
                               "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 2}}});
        assert_eq!(location_of(root, &elsewhere), None);
    }
}
