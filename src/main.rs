//! The `nerd` binary: parse arguments, run, print errors with hints, exit
//! with a stable code. Knows nothing else.

use clap::Parser;
use nerd::cli::{run, Cli};
use nerd::error::{exit, NerdError};

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::SUCCESS };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        // A closed pipe (`nerd query symbol | head`) is the reader's choice, not a failure.
        Err(NerdError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(hint) = e.hint() {
                eprintln!("hint: {hint}");
            }
            e.exit_code()
        }
    };
    std::process::exit(code);
}
