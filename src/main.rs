//! The `bfopt` binary: parse, run, render, exit.

use bfopt::cli::Cli;
use bfopt::exit::Exit;
use clap::Parser;
use std::io::{ErrorKind, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match bfopt::run(&cli) {
        Ok(mut report) => {
            if cli.quiet {
                report.notes.clear();
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
