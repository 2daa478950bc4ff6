use std::process::ExitCode;

fn main() -> ExitCode {
    runner::run(std::env::args_os())
}
