//! The `bfopt` binary: parse, run, render, exit.

use bfopt::exit::Exit;
use std::io::{ErrorKind, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = bfopt::cli::parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit());
    match bfopt::run(&cli) {
        Ok(mut report) => {
            if cli.quiet {
                report.notes.clear();
            }
            if let Some(message) = &report.stderr {
                eprintln!("error: {message}");
            }
            let mut out = std::io::stdout().lock();
            let written =
                bfopt::render::write(&report, cli.format, &mut out).and_then(|()| out.flush());
            match written {
                Err(e) if e.kind() == ErrorKind::BrokenPipe => Exit::Ok.into(),
                Err(e) => {
                    eprintln!("error: cannot write the output: {e}");
                    Exit::Invalid.into()
                }
                Ok(()) => report.exit.into(),
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit().into()
        }
    }
}
