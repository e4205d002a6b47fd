use nerd::world::lang::Lang;
use tree_sitter::{Parser, QueryCursor, StreamingIterator};
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let lang = Lang::from_name(&std::env::args().nth(2).unwrap()).unwrap();
    let (walked, _) = nerd::world::walk::walk(std::path::Path::new(&root));
    let files: Vec<Vec<u8>> = walked
        .iter()
        .filter(|w| Lang::of_path(&w.path) == Some(lang))
        .map(|w| std::fs::read(std::path::Path::new(&root).join(&w.path)).unwrap())
        .collect();
    let mut p = Parser::new();
    p.set_language(&lang.grammar()).unwrap();
    let t = std::time::Instant::now();
    let trees: Vec<_> = files.iter().map(|f| p.parse(f, None).unwrap()).collect();
    let parse = t.elapsed();
    let q = lang.query().unwrap();
    let t = std::time::Instant::now();
    let mut n = 0;
    for (tree, src) in trees.iter().zip(&files) {
        let mut c = QueryCursor::new();
        let mut m = c.matches(q, tree.root_node(), src.as_slice());
        while let Some(_) = m.next() {
            n += 1;
        }
    }
    let query = t.elapsed();
    let t = std::time::Instant::now();
    let mut nodes = 0u64;
    for tree in &trees {
        let mut c = tree.walk();
        'outer: loop {
            nodes += 1;
            let k = c.node().kind_id();
            std::hint::black_box(k);
            if c.goto_first_child() {
                continue;
            }
            loop {
                if c.goto_next_sibling() {
                    break;
                }
                if !c.goto_parent() {
                    break 'outer;
                }
            }
        }
    }
    println!("dfs {:?} over {} nodes", t.elapsed(), nodes);
    let t = std::time::Instant::now();
    for (tree, src) in trees.iter().zip(&files) {
        let _ = nerd::world::project::project_file(lang, "x", src);
        let _ = tree;
    }
    let full = t.elapsed();
    println!("files {} parse {:?} query {:?} ({} matches) full project_file {:?}", files.len(), parse, query, n, full);
}
