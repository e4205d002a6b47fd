//! How the sandbox's network boundary shows in a program's output: the error
//! texts runtimes print when only loopback is reachable (no route, no name
//! resolution), and the hosts nerd's proxy refused. Read so that an answer can
//! name the sandbox as the cause of failures, and say how to allow a host,
//! instead of leaving them unexplained. Knows nothing about which program
//! printed them.

use super::proxy::Connection;

/// Texts that mean a connection beyond loopback was cut, lowercased.
const SIGNS: &[&str] = &[
    // C, Python and Go: no route, because the namespace has loopback only.
    "network is unreachable",
    "enetunreach",
    // glibc's getaddrinfo with no resolver reachable (Python, Ruby, C).
    "temporary failure in name resolution",
    // Node.
    "getaddrinfo eai_again",
    "getaddrinfo enotfound",
    // Go's resolver.
    "dial tcp: lookup",
    "dial udp: lookup",
    // curl, git, pip.
    "could not resolve host",
    "failed to establish a new network connection",
    // nerd's proxy, for a host not in allow_hosts.
    "nerd's sandbox refused",
];

/// What a program's output shows of the network boundary.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NetworkRefusal {
    /// Output lines that show a cut connection.
    pub lines: usize,
    /// The first of them, trimmed.
    pub example: String,
    /// `host:port` the proxy refused, each once.
    pub refused_hosts: Vec<String>,
}

impl NetworkRefusal {
    /// One sentence for an answer: the cause, the evidence, and what the user can do.
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if self.lines > 0 {
            parts.push(format!(
                "{} line(s) of its output show connections cut by nerd's sandbox, which lets programs reach \
                 loopback only (e.g. `{}`)",
                self.lines, self.example
            ));
        }
        if !self.refused_hosts.is_empty() {
            parts.push(format!("nerd's proxy refused {}", self.refused_hosts.join(", ")));
        }
        format!(
            "{}; to let sandboxed programs reach a host, add it to {}, or run what needs the internet outside nerd",
            parts.join("; "),
            crate::hosts::WHERE_ALLOWED
        )
    }
}

/// Scans `outputs` for signs of the network boundary, and `connections` for hosts the proxy refused.
pub fn network_refusal(outputs: &[&str], connections: &[Connection]) -> Option<NetworkRefusal> {
    let mut found = NetworkRefusal { lines: 0, example: String::new(), refused_hosts: Vec::new() };
    for line in outputs.iter().flat_map(|o| o.lines()) {
        let lower = line.to_ascii_lowercase();
        if SIGNS.iter().any(|s| lower.contains(s)) {
            if found.lines == 0 {
                found.example = line.trim().chars().take(160).collect();
            }
            found.lines += 1;
        }
    }
    for c in connections.iter().filter(|c| !c.allowed) {
        let place = format!("{}:{}", c.host, c.port);
        if !found.refused_hosts.contains(&place) {
            found.refused_hosts.push(place);
        }
    }
    (found.lines > 0 || !found.refused_hosts.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtimes_cut_off_the_network_are_recognised() {
        let cases = [
            "OSError: [Errno 101] Network is unreachable",
            "urllib3.exceptions.NewConnectionError: Failed to establish a new network connection: [Errno -3] Temporary failure in name resolution",
            "socket.gaierror: [Errno -3] Temporary failure in name resolution",
            "Error: getaddrinfo EAI_AGAIN registry.npmjs.org",
            "Get \"https://proxy.golang.org/x\": dial tcp: lookup proxy.golang.org on [::1]:53: read udp [::1]:1->[::1]:53: read: connection refused",
            "dial tcp 1.1.1.1:443: connect: network is unreachable",
            "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
        ];
        for case in cases {
            assert!(network_refusal(&[case], &[]).is_some(), "{case}");
        }
        let found = network_refusal(&[cases[0], cases[1]], &[]).unwrap();
        assert_eq!(found.lines, 2);
        assert_eq!(found.example, cases[0]);
        assert!(found.sentence().contains("[policy] allow_hosts"), "{}", found.sentence());
    }

    #[test]
    fn hosts_the_proxy_refused_are_named_once() {
        let c = |host: &str, allowed| Connection { host: host.into(), port: 443, allowed, why: None };
        let found =
            network_refusal(&[""], &[c("evil.example", false), c("pypi.org", true), c("evil.example", false)]).unwrap();
        assert_eq!(found.refused_hosts, ["evil.example:443"]);
        assert!(found.sentence().starts_with("nerd's proxy refused evil.example:443; to let"), "{}", found.sentence());
        assert_eq!(network_refusal(&["all good"], &[c("pypi.org", true)]), None);
    }

    #[test]
    fn loopback_failures_and_ordinary_errors_are_not_blamed_on_the_sandbox() {
        let cases = [
            "ConnectionRefusedError: [Errno 111] Connection refused",
            "AssertionError: expected 3, got 4",
            "error[E0425]: cannot find value `network` in this scope",
            "FAILED tests/test_net.py::test_unreachable_host_is_reported",
        ];
        for case in cases {
            assert_eq!(network_refusal(&[case], &[]), None, "{case}");
        }
    }
}
