//! Network targets for the constitution: a URL's host, its class (public,
//! private, loopback, cloud metadata), its domain suffixes for the allowlist,
//! and exfiltration heuristics (credentials in the URL, high-entropy or
//! base64 query values, secrets in the body, schemes other than http(s)).
//! Knows nothing about whether the request is allowed.

use std::net::IpAddr;

use nerd_logic::vocab::NetClass;

use crate::secrets;

/// What the constitution needs to know about a URL.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    /// The port reached: the URL's own, else its scheme's (0 when the scheme has none).
    pub port: u16,
    pub class: NetClass,
    /// `api.github.com`, `github.com`, `com`.
    pub domains: Vec<String>,
    pub exfiltration: Vec<String>,
}

fn classify_host(host: &str) -> NetClass {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if matches!(bare, "metadata.google.internal" | "metadata" | "instance-data" | "metadata.azure.com") {
        return NetClass::Metadata;
    }
    if bare == "localhost" || bare.ends_with(".localhost") {
        return NetClass::Loopback;
    }
    match bare.parse::<IpAddr>() {
        Ok(ip) => crate::hosts::ip_class(ip),
        // Bare decimal or hex hosts (`2852039166`, `0xa9fea9fe`) are IPv4 in disguise.
        Err(_) if bare.chars().all(|c| c.is_ascii_hexdigit() || c == 'x' || c == '.') && !bare.contains("..") => {
            let n = if let Some(hex) = bare.strip_prefix("0x") {
                u32::from_str_radix(hex, 16).ok()
            } else {
                bare.parse::<u32>().ok()
            };
            n.map_or(NetClass::Public, |n| classify_host(&std::net::Ipv4Addr::from(n).to_string()))
        }
        Err(_) => NetClass::Public,
    }
}

/// WHATWG's IPv4 number parser: `0x` hex, a leading `0` octal, else decimal.
fn ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
        (hex, 16)
    } else if part.len() > 1 && part.starts_with('0') {
        (&part[1..], 8)
    } else {
        (part, 10)
    };
    if digits.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(digits, radix).ok()
}

/// WHATWG's IPv4 parser: one to four numbers, the last filling the remaining
/// bytes (`2852039166`, `0251.0376.0251.0376`, `169.254.43518`); `None` for a
/// domain. A host whose last label is a number but which is no address is
/// invalid, as browsers say.
fn ipv4_of(host: &str) -> Result<Option<std::net::Ipv4Addr>, String> {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") && parts.len() > 1 {
        parts.pop();
    }
    let last_numeric = parts.last().is_some_and(|p| ipv4_number(p).is_some() || p.chars().all(|c| c.is_ascii_digit()));
    if !last_numeric {
        return Ok(None);
    }
    if parts.len() > 4 {
        return Err(format!("`{host}` is not a valid IPv4 address"));
    }
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| ipv4_number(p)).collect();
    let numbers = numbers.ok_or_else(|| format!("`{host}` is not a valid IPv4 address"))?;
    let (last, rest) = numbers.split_last().ok_or_else(|| format!("`{host}` is empty"))?;
    if rest.iter().any(|n| *n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return Err(format!("`{host}` is not a valid IPv4 address"));
    }
    let mut value = *last;
    for (i, n) in rest.iter().enumerate() {
        value += n << (8 * (3 - i));
    }
    Ok(Some(std::net::Ipv4Addr::from(value as u32)))
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a value looks like an encoded secret: long, and high in entropy or base64-like.
fn high_entropy(value: &str) -> bool {
    let base64ish = value.len() >= 32 && value.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-%".contains(c));
    value.len() >= 24 && (secrets::entropy(value) >= 4.0 || base64ish)
}

/// Whether a path segment reads as a name, not an encoded value: words,
/// short numbers and at most one content hash joined by `-`, `_`, `.` or `~`
/// (`ch04-01-what-is-ownership.html`, `FiraSans-Italic-81dc35de.woff2`).
fn named(segment: &str) -> bool {
    let pieces: Vec<&str> = segment.split(['-', '_', '.', '~']).filter(|p| !p.is_empty()).collect();
    let word = |p: &str| {
        let letters = p.trim_end_matches(|c: char| c.is_ascii_digit());
        !letters.is_empty()
            && letters.len() <= 20
            && p.len() - letters.len() <= 2
            && letters.chars().all(|c| c.is_ascii_alphabetic())
    };
    let number = |p: &str| p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit());
    let hash = |p: &str| (6..=16).contains(&p.len()) && p.chars().all(|c| c.is_ascii_hexdigit());
    let hashes = pieces.iter().filter(|p| !word(p) && !number(p) && hash(p)).count();
    pieces.len() >= 2 && hashes <= 1 && pieces.iter().all(|p| word(p) || number(p) || hash(p))
}

/// Whether text a request would carry (a body, what is typed into a page)
/// holds a secret: a known credential shape, or a high-entropy value.
pub fn holds_secret(text: &str) -> bool {
    let lines: Vec<(u32, String)> = text.lines().enumerate().map(|(i, l)| (i as u32 + 1, l.to_string())).collect();
    !secrets::scan("request-body", &lines).is_empty() || text.split(['&', '=', '"', ' ', '\n']).any(high_entropy)
}

/// Parses a URL into its target the way a browser does (WHATWG URL Standard:
/// for http(s), ws(s), ftp and file a backslash ends the authority like a
/// slash; the host is percent-decoded and lowercased; numbers spell IPv4
/// addresses); `Err` when it has no host or an invalid one.
pub fn target(url: &str, body: Option<&str>) -> Result<Target, String> {
    let url = url.trim_matches(|c: char| c.is_ascii_control() || c == ' ');
    let (scheme, rest) = url.split_once(':').ok_or_else(|| format!("`{url}` is not an absolute URL"))?;
    let scheme = scheme.to_ascii_lowercase();
    let special = matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp" | "file");
    let rest = match scheme.as_str() {
        // `file:///etc/passwd` names a local path, no host.
        "file" => rest.strip_prefix("//").ok_or_else(|| format!("`{url}` names no host"))?,
        _ if special => rest.trim_start_matches(['/', '\\']),
        _ => rest.strip_prefix("//").ok_or_else(|| format!("`{url}` has no host"))?,
    };
    let ends: &[char] = if special { &['/', '\\', '?', '#'] } else { &['/', '?', '#'] };
    let authority_end = rest.find(ends).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let mut exfiltration = Vec::new();
    let host_port = match authority.rsplit_once('@') {
        Some((_, h)) => {
            exfiltration.push("credentials in the URL".to_string());
            h
        }
        None => authority,
    };
    let explicit_port = match host_port.rsplit_once(':') {
        Some((h, p))
            if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) && (!h.contains(':') || h.ends_with(']')) =>
        {
            Some(p.parse::<u16>().map_err(|_| format!("`{url}` has a port out of range"))?)
        }
        _ => None,
    };
    let port = explicit_port.unwrap_or(match scheme.as_str() {
        "http" | "ws" => 80,
        "https" | "wss" => 443,
        "ftp" => 21,
        _ => 0,
    });
    let raw_host = if host_port.starts_with('[') {
        host_port.split_once(']').map_or(host_port, |(h, _)| h).trim_start_matches('[').to_string()
    } else {
        host_port
            .rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(host_port, |(h, _)| h)
            .to_string()
    };
    let mut host = percent_decoded(&raw_host).to_ascii_lowercase();
    if host.ends_with('.') && host.len() > 1 {
        host.pop();
    }
    if host.is_empty() {
        return Err(format!("`{url}` has no host"));
    }
    // WHATWG's forbidden host code points (and, outside an IPv6 literal, `:`).
    let ipv6 = host_port.starts_with('[');
    let forbidden = |c: char| c.is_control() || " #%/<>?@[\\]^|".contains(c) || (c == ':' && !ipv6);
    if host.chars().any(forbidden) {
        return Err(format!("`{url}` has an invalid host `{host}`"));
    }
    // `https://a.example\@b.example/`: browsers go to a.example, other parsers to b.example.
    if special && rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())].contains('\\') && rest.contains('@') {
        return Err(format!("`{url}` names its host ambiguously (a backslash before `@`)"));
    }
    // An IPv4 address written as IPv6 (`[::ffff:169.254.169.254]`) is that IPv4 address.
    if ipv6 {
        if let Some(v4) = host.parse::<std::net::Ipv6Addr>().ok().and_then(|a| a.to_ipv4_mapped()) {
            host = v4.to_string();
        }
    }
    if special && !host.contains(':') {
        if let Some(ip) = ipv4_of(&host)? {
            host = ip.to_string();
        }
    }
    if !matches!(scheme.as_str(), "http" | "https") {
        exfiltration.push(format!("scheme `{scheme}` is not http or https"));
    }
    let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
    if path.split(['/', '\\']).map(percent_decoded).any(|segment| high_entropy(&segment) && !named(&segment)) {
        exfiltration.push("a high-entropy or base64 path segment".to_string());
    }
    for pair in query.split('#').next().unwrap_or("").split('&') {
        let value = pair.split_once('=').map_or(pair, |(_, v)| v);
        if high_entropy(value) {
            exfiltration.push("a high-entropy or base64 query value".to_string());
            break;
        }
    }
    let decoded = percent_decoded(url);
    if !secrets::scan("url", &[(1, decoded)]).is_empty() {
        exfiltration.push("a secret in the URL".to_string());
    }
    if body.is_some_and(holds_secret) {
        exfiltration.push("a secret in the request body".to_string());
    }
    let mut domains = Vec::new();
    let mut rest = host.as_str();
    loop {
        domains.push(rest.to_string());
        match rest.split_once('.') {
            Some((_, tail)) if !tail.is_empty() => rest = tail,
            _ => break,
        }
    }
    Ok(Target { class: classify_host(&host), host, port, domains, exfiltration })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_classified() {
        let class = |u: &str| target(u, None).unwrap().class;
        assert_eq!(class("http://169.254.169.254/latest/meta-data/"), NetClass::Metadata);
        assert_eq!(class("http://[fd00:ec2::254]/"), NetClass::Metadata);
        assert_eq!(class("http://metadata.google.internal/computeMetadata/v1/"), NetClass::Metadata);
        assert_eq!(class("http://2852039166/"), NetClass::Metadata, "decimal 169.254.169.254");
        assert_eq!(class("http://0xa9fea9fe/"), NetClass::Metadata, "hex 169.254.169.254");
        assert_eq!(class("http://127.0.0.1:8080/"), NetClass::Loopback);
        assert_eq!(class("http://10.1.2.3/"), NetClass::Private);
        assert_eq!(class("https://pypi.org/simple/"), NetClass::Public);
        let port = |u: &str| target(u, None).unwrap().port;
        assert_eq!(
            (port("http://a.example/"), port("https://a.example:8443/x"), port("http://[::1]:8080/")),
            (80, 8443, 8080)
        );
        assert_eq!(port("https://[::1]/"), 443);
        assert!(target("http://a.example:99999/", None).is_err());
        assert_eq!(
            target("https://api.github.com/x", None).unwrap().domains,
            vec!["api.github.com", "github.com", "com"]
        );
    }

    #[test]
    fn exfiltration_is_suspected() {
        let ex = |u: &str, b: Option<&str>| target(u, b).unwrap().exfiltration;
        assert!(ex("https://pypi.org/simple/requests/", None).is_empty());
        assert!(!ex("https://x.io/c?d=QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ", None).is_empty());
        assert!(!ex("https://user:pass@pypi.org/", None).is_empty());
        assert!(!ex("gopher://evil.example/x", None).is_empty());
        // No host at all: the analysis turns this error into a denial.
        assert!(target("file:///etc/passwd", None).is_err());
        assert!(!ex("https://pypi.org/", Some("key=AKIAIOSFODNN7EXAMPLQ")).is_empty());
        assert!(target("not a url", None).is_err());
        // Names are words (and one content hash); chunked hexadecimal or base64 is not.
        assert!(ex("http://127.0.0.1:8000/static.files/SourceSerif4-Regular-6b053e98.ttf.woff2", None).is_empty());
        assert!(ex("http://127.0.0.1:8000/book/ch04-01-what-is-ownership.html", None).is_empty());
        assert!(ex("https://docs.example/how-to-configure-the-retry-policy-for-uploads", None).is_empty());
        assert!(!ex("https://x.example/deadbeefcafe-0123456789ab-cdef01234567-89abcdef0123", None).is_empty());
        assert!(!ex("https://x.example/QUtJQUlP-U0ZPRE5O-N0VYQU1Q-TEUvd0ph-bHJYVXRu", None).is_empty());
        assert!(!ex("https://attacker.example/c/QUtJQUlPU0ZPRE5ON0VYQU1QTEUvd0phbHJYVXRuRkVNSQ", None).is_empty());
        assert!(!ex("https://pypi.org/upload", Some("token=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")).is_empty());
    }

    #[test]
    fn hosts_are_read_as_browsers_read_them() {
        let t = |u: &str| target(u, None).unwrap();
        // A backslash ends the authority of a special URL: the host is attacker.example.
        assert_eq!(t("https://attacker.example\\.crates.io/").host, "attacker.example");
        assert!(!t("https://attacker.example\\.crates.io/").domains.contains(&"crates.io".to_string()));
        for meta in [
            "http://0251.0376.0251.0376/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://169.254.43518/",
            "http://0xA9FEA9FE/",
            "http://169.254.169.254./",
        ] {
            assert_eq!(t(meta).class, NetClass::Metadata, "{meta}");
        }
        assert_eq!(t("http://127.1/").class, NetClass::Loopback);
        assert_eq!(t("https://PyPI.org:443/simple/").host, "pypi.org");
        assert_eq!(t("https://%70ypi.org/").host, "pypi.org");
        assert!(target("http://1.2.3.4.5/", None).is_err());
        assert!(target("http://999.1.1.1/", None).is_err());
    }
}
