//! `hexveil rules`: the rules oracle on the command line. Reads a rules
//! question as JSON on stdin, prints the rulings as JSON on stdout
//! (docs/RULES-ORACLE.md). Bad input: a message on stderr and exit code 1.

use std::io::Read;
use std::process::ExitCode;

/// Runs the oracle over stdin.
pub fn run() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("hexveil rules: cannot read stdin: {e}");
        return ExitCode::from(2);
    }
    match hexveil_core::oracle::run(&input) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hexveil rules: {e}");
            ExitCode::from(1)
        }
    }
}
