//! The peers compiled to native code from one C or C++ file ([`Native`]): gcc's C/OpenMP
//! peer ([`GCC_OPENMP`]), the same file built by clang against LLVM's OpenMP runtime
//! ([`CLANG_OPENMP`]) and the C++/oneTBB peer ([`GXX_TBB`]); see the module above,
//! *Building*.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::first_error;

/// How to build a peer from one C or C++ source file, and how to tell its toolchain is there.
pub(super) struct Native {
    /// The environment variable that names the compiler when it is set and not blank.
    var: &'static str,
    /// The compiler otherwise.
    default: &'static str,
    /// What `scripts/peers.sh` installs to bring the compiler.
    install: &'static str,
    /// Compiler flags, before `-o`.
    flags: &'static [&'static str],
    /// The source file's name.
    source: &'static str,
    /// Libraries, after the source.
    libs: &'static [&'static str],
    /// What a failed build may lack (in its message).
    hint: &'static str,
    /// The parallel runtime's header check, where the compiler alone does not bring it.
    runtime: Option<Runtime>,
}

/// A check that the compiler finds a runtime's header, which also reads the runtime's version
/// for the cache key: the preprocessor's output of `source` (`<flags> -E -P -x <language> -`),
/// whose last line expands the header's version macros.
struct Runtime {
    /// The runtime's name in messages and in the toolchain string.
    name: &'static str,
    flags: &'static [&'static str],
    language: &'static str,
    source: &'static str,
    /// A text the version line must not contain (a macro left unexpanded: another
    /// runtime's header of the same name was found).
    not: &'static str,
    /// What `scripts/peers.sh` installs to bring it.
    install: &'static str,
}

/// `peers/c/omp.c` with gcc and libgomp; no fused multiply-add, so matmul's product is the
/// Rust one bit for bit.
pub(super) const GCC_OPENMP: Native = Native {
    var: "CC",
    default: "gcc",
    install: "gcc",
    flags: &["-O2", "-fopenmp", "-ffp-contract=off", "-std=gnu11"],
    source: "omp.c",
    libs: &["-lm"],
    hint: "is libgomp installed? scripts/peers.sh",
    runtime: None,
};

/// `peers/c/omp.c` with clang and LLVM's OpenMP runtime (`-fopenmp=libomp`, never libgomp);
/// the source file and libraries of [`GCC_OPENMP`].
pub(super) const CLANG_OPENMP: Native = Native {
    var: "CLANG",
    default: "clang",
    install: "clang",
    flags: &["-O2", "-fopenmp=libomp", "-ffp-contract=off", "-std=gnu11"],
    hint: "is libomp-dev installed? scripts/peers.sh",
    runtime: Some(Runtime {
        name: "libomp",
        flags: &["-fopenmp=libomp"],
        language: "c",
        source: "#include <omp.h>\nKMP_VERSION_MAJOR KMP_VERSION_MINOR KMP_VERSION_BUILD _OPENMP\n",
        // libgomp's omp.h, which a clang might find instead, has no KMP_VERSION_*.
        not: "KMP_VERSION",
        install: "libomp-dev",
    }),
    ..GCC_OPENMP
};

/// `peers/cpp/tbb.cpp` with g++ and oneTBB: C++17, no fused multiply-add.
pub(super) const GXX_TBB: Native = Native {
    var: "CXX",
    default: "g++",
    install: "g++",
    flags: &["-O2", "-std=c++17", "-ffp-contract=off"],
    source: "tbb.cpp",
    libs: &["-ltbb"],
    hint: "is libtbb-dev installed? scripts/peers.sh",
    runtime: Some(Runtime {
        name: "oneTBB",
        flags: &["-std=c++17"],
        language: "c++",
        source: "#include <tbb/version.h>\n\
                 TBB_VERSION_MAJOR.TBB_VERSION_MINOR.TBB_VERSION_PATCH TBB_INTERFACE_VERSION\n",
        not: "TBB_VERSION",
        install: "libtbb-dev",
    }),
};

impl Native {
    /// `$var`, else the default compiler.
    fn compiler(&self) -> String {
        std::env::var(self.var)
            .ok()
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| self.default.to_string())
    }

    /// The toolchain: the compiler, its version, the runtime's version and the flags (the
    /// cache key's part); `Err`, in one line, when the compiler or the runtime is missing.
    pub(super) fn toolchain(&self) -> Result<String, String> {
        self.toolchain_of(&self.compiler())
    }

    fn toolchain_of(&self, compiler: &str) -> Result<String, String> {
        let out = Command::new(compiler)
            .arg("--version")
            .output()
            .map_err(|_| {
                format!(
                    "`{compiler}` not found (scripts/peers.sh installs {})",
                    self.install
                )
            })?;
        if !out.status.success() {
            return Err(format!("`{compiler} --version` failed"));
        }
        let version = String::from_utf8_lossy(&out.stdout);
        let version = version.lines().next().unwrap_or("").trim();
        let runtime = match &self.runtime {
            None => String::new(),
            Some(r) => {
                let found = preprocess(compiler, r.flags, r.language, r.source)
                    .ok()
                    .filter(|v| !v.is_empty() && !v.contains(r.not))
                    .ok_or_else(|| {
                        format!(
                            "`{compiler}` finds no {} (scripts/peers.sh installs {})",
                            r.name, r.install
                        )
                    })?;
                format!(" | {} {found} |", r.name)
            }
        };
        Ok(format!(
            "{compiler} {version}{runtime} {}",
            self.flags.join(" ")
        ))
    }

    /// Compiles the source file in the folder `src` into `exe`:
    /// `<compiler> <flags> -I <src> -o <exe> <source> <libs>` (`-I`: the headers written
    /// beside the source, `peer_common.h` and its family headers).
    pub(super) fn build(&self, src: &Path, exe: &Path) -> Result<(), String> {
        let compiler = self.compiler();
        let out = Command::new(&compiler)
            .args(self.flags)
            .arg("-I")
            .arg(src)
            .arg("-o")
            .arg(exe)
            .arg(src.join(self.source))
            .args(self.libs)
            .output()
            .map_err(|e| format!("running `{compiler}`: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        Err(format!(
            "`{compiler} {}` failed ({}): {}",
            self.flags.join(" "),
            self.hint,
            first_error(&out.stderr)
        ))
    }
}

/// Runs `source` through the preprocessor of `compiler` and returns its last non-blank line;
/// `Err` when it fails (a header missing).
fn preprocess(
    compiler: &str,
    flags: &[&str],
    language: &str,
    source: &str,
) -> Result<String, String> {
    let mut child = Command::new(compiler)
        .args(flags)
        .args(["-E", "-P", "-x", language, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running `{compiler}`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .map_err(|e| format!("writing to `{compiler} -E`: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("running `{compiler} -E`: {e}"))?;
    if !out.status.success() {
        return Err(first_error(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().rev().find(|l| !l.trim().is_empty());
    Ok(last.unwrap_or("").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_compiler_or_runtime_is_a_one_line_reason_naming_the_install() {
        let nowhere = "/nonexistent/offshoot-peer-compiler";
        for native in [&GCC_OPENMP, &CLANG_OPENMP, &GXX_TBB] {
            let why = native.toolchain_of(nowhere).unwrap_err();
            let install = format!("scripts/peers.sh installs {})", native.install);
            assert!(!why.contains('\n'), "{why}");
            assert!(why.contains(nowhere) && why.ends_with(&install), "{why}");
        }
        // `true` is a "compiler" whose preprocessor prints nothing: no runtime version.
        if let Ok(why) = GXX_TBB.toolchain_of("true") {
            panic!("a runtime was found without its header: {why}");
        }
        let why = CLANG_OPENMP.toolchain_of("true").unwrap_err();
        assert!(
            why.ends_with("finds no libomp (scripts/peers.sh installs libomp-dev)"),
            "{why}"
        );
    }
}
