//! The `offshoot-bench` binary; everything lives in the library (see `cli`).

fn main() -> std::process::ExitCode {
    offshoot_bench::cli::main()
}
