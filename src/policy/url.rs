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
        Ok(IpAddr::V4(ip)) => {
            let o = ip.octets();
            if o[0] == 169 && o[1] == 254 || (o[0] == 100 && o[1] == 100 && o[2] == 100 && o[3] == 200) {
                NetClass::Metadata
            } else if ip.is_loopback() || ip.is_unspecified() {
                NetClass::Loopback
            } else if ip.is_private() || ip.is_link_local() || (o[0] == 100 && (64..128).contains(&o[1])) {
                NetClass::Private
            } else {
                NetClass::Public
            }
        }
        Ok(IpAddr::V6(ip)) => {
            let s = ip.segments();
            if s[0] == 0xfd00 && s[1] == 0x0ec2 {
                NetClass::Metadata
            } else if ip.is_loopback() || ip.is_unspecified() {
                NetClass::Loopback
            } else if (s[0] & 0xfe00) == 0xfc00 || (s[0] & 0xffc0) == 0xfe80 {
                NetClass::Private
            } else if let Some(v4) = ip.to_ipv4_mapped() {
                classify_host(&v4.to_string())
            } else {
                NetClass::Public
            }
        }
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

/// Parses a URL into its target; `Err` when it has no host.
pub fn target(url: &str, body: Option<&str>) -> Result<Target, String> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| format!("`{url}` is not an absolute URL"))?;
    let scheme = scheme.to_ascii_lowercase();
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let mut exfiltration = Vec::new();
    let host_port = match authority.rsplit_once('@') {
        Some((_, h)) => {
            exfiltration.push("credentials in the URL".to_string());
            h
        }
        None => authority,
    };
    let host = if host_port.starts_with('[') {
        host_port.split_once(']').map_or(host_port, |(h, _)| h).trim_start_matches('[')
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    }
    .to_ascii_lowercase()
    .trim_end_matches('.')
    .to_string();
    if host.is_empty() {
        return Err(format!("`{url}` has no host"));
    }
    if !matches!(scheme.as_str(), "http" | "https") {
        exfiltration.push(format!("scheme `{scheme}` is not http or https"));
    }
    if let Some((_, query)) = tail.split_once('?') {
        for pair in query.split('#').next().unwrap_or("").split('&') {
            let value = pair.split_once('=').map_or(pair, |(_, v)| v);
            let base64ish =
                value.len() >= 32 && value.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-%".contains(c));
            if value.len() >= 24 && (secrets::entropy(value) >= 4.0 || base64ish) {
                exfiltration.push("a high-entropy or base64 query value".to_string());
                break;
            }
        }
    }
    if let Some(body) = body {
        let lines: Vec<(u32, String)> = body.lines().enumerate().map(|(i, l)| (i as u32 + 1, l.to_string())).collect();
        if !secrets::scan("request-body", &lines).is_empty() {
            exfiltration.push("a secret in the request body".to_string());
        }
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
    Ok(Target { class: classify_host(&host), host, domains, exfiltration })
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
    }
}
