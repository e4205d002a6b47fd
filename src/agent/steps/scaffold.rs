//! The project_init step: a Rust, Go, Python or TypeScript skeleton with one
//! passing test, written through the router into an empty workspace.
//! Knows nothing about why the kernel chose the step.

use crate::agent::event::{Event, Status};
use crate::agent::patch::Edit;
use crate::agent::{Agent, AgentError, Flow, Turn};

impl Agent<'_> {
    pub(super) fn scaffold(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (request, router, st) = (t.request, &mut t.router, &mut t.state);
        let lower = request.to_lowercase();
        let name = self.root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or("app".into());
        let crate_name: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        let files: Vec<(String, String)> = if lower.contains("rust")
            || lower.contains("crate")
            || lower.contains("cargo")
        {
            vec![
                ("Cargo.toml".to_string(), format!("[package]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")),
                ("src/main.rs".to_string(), "fn main() {\n    println!(\"Hello, world!\");\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn it_runs() {\n        super::main();\n    }\n}\n".into()),
                (".gitignore".to_string(), "/target\n".into()),
            ]
        } else if lower.contains(" go ") || lower.contains("golang") || lower.ends_with(" go") {
            vec![
                ("go.mod".to_string(), format!("module {crate_name}\n\ngo 1.19\n")),
                (
                    "main.go".to_string(),
                    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello, world!\")\n}\n".into(),
                ),
                (
                    "main_test.go".to_string(),
                    "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {\n\tmain()\n}\n".into(),
                ),
            ]
        } else if lower.contains("python") {
            vec![
                ("pyproject.toml".to_string(), format!("[project]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nrequires-python = \">=3.9\"\n")),
                (format!("{crate_name}/__init__.py"), "def hello() -> str:\n    return \"Hello, world!\"\n".into()),
                ("tests/test_hello.py".to_string(), format!("from {crate_name} import hello\n\n\ndef test_hello():\n    assert hello() == \"Hello, world!\"\n")),
            ]
        } else if lower.contains("typescript") || lower.contains(" ts ") || lower.contains("node") {
            vec![
                ("package.json".to_string(), format!("{{\n  \"name\": \"{}\",\n  \"version\": \"0.1.0\",\n  \"type\": \"module\",\n  \"scripts\": {{ \"build\": \"tsc\" }}\n}}\n", crate_name.replace('_', "-"))),
                ("tsconfig.json".to_string(), "{\n  \"compilerOptions\": { \"target\": \"es2022\", \"module\": \"nodenext\", \"strict\": true, \"outDir\": \"dist\" },\n  \"include\": [\"src\"]\n}\n".into()),
                ("src/index.ts".to_string(), "export function hello(): string {\n  return \"Hello, world!\";\n}\n".into()),
            ]
        } else {
            let q = "Which language should the new project use: Rust, Go, Python or TypeScript?".to_string();
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        };
        let edits: Vec<Edit> = files.into_iter().map(|(path, new)| Edit { path, old: String::new(), new }).collect();
        if let Err(flow) = self.write_all(router, &edits)? {
            return Ok(flow);
        }
        Self::record_changes(st, &edits);
        Ok(Flow::Stop(Status::Succeeded, format!("Created {} file(s).", edits.len())))
    }
}
