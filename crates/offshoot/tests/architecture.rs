//! The map is true: the core's files (listed in ARCHITECTURE.md, in the block that opens
//! with "```text core") import nothing from outside the core. Every `crate::…` path (and
//! every `super::…` path of a file in a folder) in the code of a core file is resolved to
//! the file that defines the item — through the re-exports of a folder's `mod.rs` — and
//! that file must be a core file too. The list itself must name files that exist. A change
//! that makes the core use a client fails here, naming the file, the line and the path.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn src() -> PathBuf {
    manifest().join("src")
}

/// The entries of the core block: `dir/` for a whole folder, else a file, relative to
/// `crates/offshoot/src/`.
fn core_entries() -> Vec<String> {
    let md = fs::read_to_string(manifest().join("../../ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md at the workspace root");
    let start = md
        .find("```text core")
        .expect("ARCHITECTURE.md has a block that opens with ```text core");
    let body = &md[start + "```text core".len()..];
    let end = body.find("```").expect("the core block is closed");
    body[..end].split_whitespace().map(str::to_string).collect()
}

fn is_core(rel: &str, entries: &[String]) -> bool {
    entries.iter().any(|e| {
        if let Some(dir) = e.strip_suffix('/') {
            rel.starts_with(&format!("{dir}/"))
        } else {
            rel == e
        }
    })
}

/// Every `.rs` file under `src/`, relative, with `/` separators.
fn sources() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &src(), &mut out);
    out.sort();
    out
}

/// `text` with its comments and the contents of its string and char literals blanked
/// (newlines kept, so line numbers stay), so that only code is searched.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    out.push(blank(b[i]));
                    i += 1;
                }
                out.extend_from_slice(b"  ");
                i += 2;
            }
            b'"' => {
                out.push(b'"');
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        out.push(b' ');
                        i += 1;
                    }
                    if i < b.len() {
                        out.push(blank(b[i]));
                        i += 1;
                    }
                }
                out.push(b'"');
                i += 1;
            }
            // A char literal ('x', '\n', '"'); a lifetime ('a) has no closing quote there.
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                out.extend_from_slice(b"   ");
                i += 3;
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                let end = (i + 2..b.len().min(i + 12)).find(|&k| b[k] == b'\'');
                let end = end.unwrap_or(i);
                out.extend(std::iter::repeat_n(b' ', end + 1 - i));
                i = end + 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_at(s: &str) -> Option<&str> {
    let n = s
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    (n > 0).then(|| &s[..n])
}

/// The paths a file names after `prefix` (`crate::` or `super::`): each as its first one
/// or two segments, with the line it is on. A group (`crate::m::{a, b::c}`) gives one path
/// per member, and may span lines.
fn paths(text: &str, prefix: &str) -> Vec<(usize, Vec<String>)> {
    let code = strip(text);
    let line_of = |pos: usize| code[..pos].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find(prefix) {
        let at = from + k;
        from = at + prefix.len();
        // Only a path that starts here (`x::crate::` is not one).
        if at > 0 {
            let c = code.as_bytes()[at - 1];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b':' {
                continue;
            }
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for member in inner.split(',') {
                let segs: Vec<String> = member
                    .trim()
                    .split("::")
                    .filter_map(ident_at)
                    .take(2)
                    .map(str::to_string)
                    .collect();
                if !segs.is_empty() {
                    out.push((line_of(at), segs));
                }
            }
            continue;
        }
        let Some(first) = ident_at(rest) else {
            continue;
        };
        let mut segs = vec![first.to_string()];
        let after = &rest[first.len()..];
        if let Some(next) = after.strip_prefix("::") {
            if let Some(g) = next.strip_prefix('{') {
                let inner = &g[..g.find('}').unwrap_or(g.len())];
                for member in inner.split(',') {
                    if let Some(item) = ident_at(member.trim()) {
                        out.push((line_of(at), vec![first.to_string(), item.to_string()]));
                    }
                }
                continue;
            }
            if let Some(second) = ident_at(next) {
                segs.push(second.to_string());
            }
        }
        out.push((line_of(at), segs));
    }
    out
}

/// For a folder module: which submodule file each name its `mod.rs` re-exports comes from.
fn reexports(dir: &str) -> BTreeMap<String, String> {
    let text = fs::read_to_string(src().join(dir).join("mod.rs")).unwrap_or_default();
    let code = strip(&text);
    let mods: Vec<String> = code
        .split(';')
        .filter_map(|stmt| {
            let s = stmt.trim();
            let s = s.strip_prefix("pub(crate) ").unwrap_or(s);
            let s = s.strip_prefix("pub ").unwrap_or(s);
            s.strip_prefix("mod ").map(|m| m.trim().to_string())
        })
        .collect();
    let mut map = BTreeMap::new();
    for stmt in code.split(';') {
        let Some(u) = stmt.find("use ") else { continue };
        let path = stmt[u + 4..].trim();
        let Some(sub) = ident_at(path) else { continue };
        if !mods.iter().any(|m| m == sub) {
            continue;
        }
        for word in path[sub.len()..].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !word.is_empty() {
                map.insert(word.to_string(), sub.to_string());
            }
        }
    }
    map
}

/// The file that defines `crate::m::item` (or the module `crate::m`).
fn resolve(segs: &[String]) -> Option<String> {
    let m = &segs[0];
    if src().join(format!("{m}.rs")).is_file() {
        return Some(format!("{m}.rs"));
    }
    if !src().join(m).join("mod.rs").is_file() {
        return None; // not a module of this crate (a macro's `crate::`, say)
    }
    let Some(item) = segs.get(1) else {
        return Some(format!("{m}/mod.rs"));
    };
    let sub = if src().join(m).join(format!("{item}.rs")).is_file() {
        Some(item.clone())
    } else {
        reexports(m).get(item).cloned()
    };
    Some(match sub {
        Some(s) if src().join(m).join(format!("{s}.rs")).is_file() => format!("{m}/{s}.rs"),
        Some(s) => format!("{m}/{s}/mod.rs"),
        None => format!("{m}/mod.rs"),
    })
}

#[test]
fn the_core_imports_only_the_core() {
    let entries = core_entries();
    let all = sources();
    for e in &entries {
        assert!(
            all.iter().any(|f| is_core(f, std::slice::from_ref(e))),
            "ARCHITECTURE.md's core block names {e}, which is no file or folder of src/"
        );
    }
    let mut violations = Vec::new();
    for f in all.iter().filter(|f| is_core(f, &entries)) {
        let text = fs::read_to_string(src().join(f)).unwrap();
        // The test modules of a core file are not the core.
        let text = match text.find("#[cfg(test)]\nmod ") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        let mut found = paths(text, "crate::");
        if let Some((dir, _)) = f.rsplit_once('/') {
            if !f.ends_with("mod.rs") {
                found.extend(paths(text, "super::").into_iter().map(|(l, mut s)| {
                    s.insert(0, dir.to_string());
                    s.truncate(2);
                    (l, s)
                }));
            }
        }
        for (line, segs) in found {
            if let Some(target) = resolve(&segs) {
                if !is_core(&target, &entries) {
                    violations.push(format!(
                        "{f}:{line} uses crate::{} (in {target}), which is not in the core",
                        segs.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "the core imports from outside the core (ARCHITECTURE.md lists the core; move the \
         dependency behind a hook the client registers, or move the file into the core and \
         say why):\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_a_violation() {
    // The parser and the resolver on a made-up core file that names a client.
    let text = "use crate::finish::FinishState;\nuse crate::{join, eureka::Search};\n\
                // crate::sync::Mutex in a comment\nlet x = \"// crate::scope\"; crate::trace::region(\"a\", f);\n";
    let p: Vec<Vec<String>> = paths(text, "crate::").into_iter().map(|(_, s)| s).collect();
    assert_eq!(
        p,
        [
            vec!["finish".to_string(), "FinishState".to_string()],
            vec!["join".to_string()],
            vec!["eureka".to_string(), "Search".to_string()],
            vec!["trace".to_string(), "region".to_string()],
        ]
    );
    assert_eq!(resolve(&p[0]).as_deref(), Some("finish/state.rs"));
    assert_eq!(resolve(&p[1]).as_deref(), Some("join.rs"));
    assert_eq!(resolve(&p[3]).as_deref(), Some("trace/mod.rs"));
    let entries = core_entries();
    assert!(is_core("finish/state.rs", &entries));
    assert!(!is_core("join.rs", &entries));
    assert!(!is_core("trace/mod.rs", &entries));
}
