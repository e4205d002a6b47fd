//! Vector memory figures on real text: embedding throughput per CPU-second,
//! resident memory with the model loaded, and recall latency (p50, p99) with
//! 100k memories stored, both for the sqlite-vec nearest-neighbour query
//! alone and for the whole hybrid recall a user runs (embed the query, KNN,
//! FTS5, fusion, bookkeeping).
//!
//!   bench/corpus.sh && scripts/install-embedder target/models/all-MiniLM-L6-v2
//!   cargo bench --bench memory [-- COUNT]
//!
//! The texts are lines of real code and comments from the benchmark corpus;
//! the store is built once under target/bench/memory-COUNT and reused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nerd::embed::{Embedder, DIMENSIONS};
use nerd::memory::Memories;
use nerd::store::{NewMemory, StateDb, StoreError};

fn texts_from(dir: &Path, want: usize) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| ["py", "rs", "go", "ts"].contains(&e.to_str().unwrap_or(""))) {
                for line in std::fs::read_to_string(&path).unwrap_or_default().lines() {
                    let line = line.trim();
                    let words = line.split(|c: char| !c.is_alphabetic()).filter(|w| w.len() > 2).count();
                    if (24..=200).contains(&line.len()) && words >= 4 && seen.insert(line.to_string()) {
                        out.push(line.to_string());
                        if out.len() == want {
                            return out;
                        }
                    }
                }
            }
        }
    }
    out
}

fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn rss_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn main() -> Result<(), StoreError> {
    let top = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The whole recall path loads the model the way nerd does, from this variable.
    std::env::set_var(nerd::embed::MODEL_VAR, top.join("target/models/all-MiniLM-L6-v2"));
    let count: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let queries = 200;
    let texts = texts_from(&top.join("target/bench/corpus"), count + queries);
    assert!(texts.len() == count + queries, "the corpus gave {} texts; run bench/corpus.sh", texts.len());
    let (stored, asked) = texts.split_at(count);

    let before = rss_mib("VmRSS");
    let started = Instant::now();
    let model = Embedder::load(&top.join("target/models/all-MiniLM-L6-v2")).expect("scripts/install-embedder");
    println!(
        "model: loaded in {:.0} ms; RSS {before:.0} → {:.0} MiB",
        started.elapsed().as_secs_f64() * 1e3,
        rss_mib("VmRSS")
    );

    let sample: Vec<&str> = stored.iter().take(2000).map(String::as_str).collect();
    let tokens: usize = sample.iter().map(|t| model.tokens(t).len()).sum();
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    for text in sample.iter().take(200) {
        model.embed(text);
    }
    let (cpu1, wall1) = (cpu_seconds() - cpu, wall.elapsed().as_secs_f64());
    println!(
        "embedding one text at a time: {:.0} texts per CPU-second, {:.1} ms each",
        200.0 / cpu1,
        wall1 * 1e3 / 200.0
    );
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    model.embed_all(&sample);
    let (cpu, wall) = (cpu_seconds() - cpu, wall.elapsed().as_secs_f64());
    println!(
        "embedding in batches: {} texts ({:.1} tokens each) at {:.0} texts per CPU-second, {:.0} per second on {} threads",
        sample.len(),
        tokens as f64 / sample.len() as f64,
        sample.len() as f64 / cpu,
        sample.len() as f64 / wall,
        rayon::current_num_threads()
    );

    // The embeddings are computed once and kept, so a schema change rebuilds the store in seconds.
    let dir = top.join(format!("target/bench/memory-{count}"));
    std::fs::create_dir_all(&dir).expect("bench folder");
    let cached = dir.join("vectors.f32");
    let vectors: Vec<Vec<f32>> = match std::fs::read(&cached) {
        Ok(bytes) if bytes.len() == count * DIMENSIONS * 4 => {
            bytes.chunks_exact(DIMENSIONS * 4).map(nerd::embed::from_bytes).collect()
        }
        _ => {
            let started = Instant::now();
            let refs: Vec<&str> = stored.iter().map(String::as_str).collect();
            let vectors = model.embed_all(&refs);
            println!("embedded {count} texts in {:.0} s", started.elapsed().as_secs_f64());
            let bytes: Vec<u8> = vectors.iter().flat_map(|v| nerd::embed::to_bytes(v)).collect();
            std::fs::write(&cached, bytes).expect("bench folder");
            vectors
        }
    };
    let store_version = dir.join(format!("store-{}", nerd::store::STATE_SCHEMA));
    if !store_version.exists() {
        for old in ["state.db", "state.db-wal", "state.db-shm"] {
            let _ = std::fs::remove_file(dir.join(old));
        }
        let db = StateDb::open_file(&dir.join("state.db"))?;
        let started = Instant::now();
        db.locked(|db| {
            for (text, vector) in stored.iter().zip(&vectors) {
                let new =
                    NewMemory { kind: "fact", text, subject: None, source: "bench", at_ns: 0, vector: Some(vector) };
                db.memory_insert(&new)?;
            }
            Ok::<_, StoreError>(())
        })?;
        println!("store: {count} memories stored in {:.1} s", started.elapsed().as_secs_f64());
        std::fs::write(&store_version, "").expect("bench folder");
    }
    let path = dir.join("state.db");
    let db = StateDb::open_file(&path)?;
    let queries_v: Vec<Vec<f32>> = asked.iter().map(|q| model.embed(q)).collect();
    let mut knn = Vec::new();
    let mut recalled = 0;
    for query in &queries_v {
        let t = Instant::now();
        let found = db.memory_by_vector(query, 10)?;
        knn.push(t.elapsed());
        assert_eq!(found.len(), 10);
        // Exact top 10 by brute force over the same vectors (memory ids are 1-based, in order).
        let mut exact: Vec<(f32, i64)> =
            vectors.iter().enumerate().map(|(i, v)| (nerd::embed::similarity(v, query), i as i64 + 1)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let truth: BTreeSet<i64> = exact.iter().take(10).map(|e| e.1).collect();
        recalled += found.iter().filter(|f| truth.contains(&f.0)).count();
    }
    println!("recall@10 against exact search: {:.3}", recalled as f64 / (10 * queries) as f64);
    let (mut words, mut selective, mut pending) = (Vec::new(), Vec::new(), Vec::new());
    for query in asked {
        let t = Instant::now();
        if let Some(q) = nerd::memory::words_query(query) {
            db.memory_by_words(&q, 64)?;
        }
        words.push(t.elapsed());
        let t = Instant::now();
        if let Some(q) = nerd::memory::selective_words_query(&db, query).expect("words") {
            db.memory_by_words(&q, 64)?;
        }
        selective.push(t.elapsed());
        let t = Instant::now();
        db.memory_without_vectors(512)?;
        pending.push(t.elapsed());
    }
    println!(
        "parts: FTS5 over every query word p50 {:.1} ms p99 {:.1} ms; without the store's common words \
         p50 {:.1} ms p99 {:.1} ms; memories awaiting vectors p50 {:.1} ms",
        percentile(&mut words, 0.5).as_secs_f64() * 1e3,
        percentile(&mut words, 0.99).as_secs_f64() * 1e3,
        percentile(&mut selective, 0.5).as_secs_f64() * 1e3,
        percentile(&mut selective, 0.99).as_secs_f64() * 1e3,
        percentile(&mut pending, 0.5).as_secs_f64() * 1e3
    );
    let memories = Memories::with_db(StateDb::open_file(&path)?);
    let mut whole = Vec::new();
    for query in asked {
        let t = Instant::now();
        memories.search(query, 10).expect("search");
        whole.push(t.elapsed());
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "recall over {count} memories, k = 10, {queries} queries: sqlite-vec KNN p50 {:.1} ms p99 {:.1} ms; \
         whole hybrid search p50 {:.1} ms p99 {:.1} ms",
        ms(percentile(&mut knn, 0.5)),
        ms(percentile(&mut knn, 0.99)),
        ms(percentile(&mut whole, 0.5)),
        ms(percentile(&mut whole, 0.99)),
    );
    println!("RSS at the end {:.0} MiB (peak {:.0} MiB)", rss_mib("VmRSS"), rss_mib("VmHWM"));
    Ok(())
}
