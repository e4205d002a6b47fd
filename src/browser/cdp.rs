//! The Chrome DevTools Protocol over the pipe Chromium opens with
//! `--remote-debugging-pipe`: JSON messages ended by a NUL byte, commands
//! written to the browser's fd 3, replies and events read from its fd 4 by a
//! reader thread. No port is opened, so no other local process can drive the
//! browser. Knows nothing about pages, facts or policy.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::BrowserError;

/// The largest message read from the browser (a snapshot of a big page is a few MiB).
const MAX_MESSAGE: usize = 256 << 20;
/// How often a wait looks at the interrupt flag.
const TICK: Duration = Duration::from_millis(100);

/// One message from the browser: a reply (with `id`) or an event (with `method`).
#[derive(Debug)]
pub struct Message(pub Value);

impl Message {
    pub fn id(&self) -> Option<u64> {
        self.0.get("id").and_then(Value::as_u64)
    }
    pub fn method(&self) -> Option<&str> {
        self.0.get("method").and_then(Value::as_str)
    }
    pub fn session(&self) -> Option<&str> {
        self.0.get("sessionId").and_then(Value::as_str)
    }
    pub fn params(&self) -> &Value {
        self.0.get("params").unwrap_or(&Value::Null)
    }
}

/// The two ends of the pipe, and what has arrived but not been asked for.
pub struct Connection {
    to_browser: File,
    from_browser: Receiver<Result<Message, String>>,
    next_id: u64,
    cancel: Option<Arc<AtomicBool>>,
}

impl Connection {
    /// Wraps the pipe ends; a thread reads the browser's messages until it closes its end.
    pub fn new(to_browser: File, from_browser: File, cancel: Option<Arc<AtomicBool>>) -> Connection {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(from_browser);
            loop {
                let mut bytes = Vec::new();
                match reader.by_ref().take(MAX_MESSAGE as u64).read_until(0, &mut bytes) {
                    Ok(0) => break,
                    Ok(_) if bytes.last() != Some(&0) => {
                        let _ = tx.send(Err(format!("a message from the browser is over {MAX_MESSAGE} bytes")));
                        break;
                    }
                    Ok(_) => {
                        bytes.pop();
                        let message = serde_json::from_slice(&bytes)
                            .map(Message)
                            .map_err(|e| format!("the browser sent something that is not JSON: {e}"));
                        if tx.send(message).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(format!("reading from the browser: {e}")));
                        break;
                    }
                }
            }
        });
        Connection { to_browser, from_browser: rx, next_id: 1, cancel }
    }

    /// Sends a command without waiting; returns its id.
    pub fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<u64, BrowserError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = Value::String(s.to_string());
        }
        let mut bytes = serde_json::to_vec(&message).map_err(|e| BrowserError::Protocol(e.to_string()))?;
        bytes.push(0);
        self.to_browser.write_all(&bytes).map_err(|e| BrowserError::Gone(e.to_string()))?;
        Ok(id)
    }

    /// The next message, or `None` at the deadline.
    pub fn next(&mut self, deadline: Instant) -> Result<Option<Message>, BrowserError> {
        loop {
            if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst)) {
                return Err(BrowserError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            match self.from_browser.recv_timeout(TICK.min(deadline - now)) {
                Ok(Ok(m)) => return Ok(Some(m)),
                Ok(Err(e)) => return Err(BrowserError::Protocol(e)),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BrowserError::Gone("the browser closed its pipe".into()))
                }
            }
        }
    }

    /// Sends a command and waits for its reply, handing every event that
    /// arrives meanwhile to `on_event` (which may send commands of its own);
    /// each event is seen once, by whoever is reading when it arrives.
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        deadline: Instant,
        on_event: &mut dyn FnMut(&mut Connection, &Message) -> Result<(), BrowserError>,
    ) -> Result<Value, BrowserError> {
        let id = self.send(session, method, params)?;
        loop {
            let Some(m) = self.next(deadline)? else {
                return Err(BrowserError::Timeout(method.to_string()));
            };
            if m.id() == Some(id) {
                return match m.0.get("error") {
                    Some(e) => Err(BrowserError::Command {
                        method: method.to_string(),
                        message: e.get("message").and_then(Value::as_str).unwrap_or("failed").to_string(),
                    }),
                    None => Ok(m.0.get("result").cloned().unwrap_or(Value::Null)),
                };
            }
            // Replies to commands sent without waiting are dropped.
            if m.method().is_some() {
                on_event(self, &m)?;
            }
        }
    }
}
