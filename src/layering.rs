//! The house rules of the source tree, checked on every test run
//! (`../shared/design.md` §7 of the developers' notes; README "Repository
//! layout"):
//!
//! - no import cycle between the top-level modules of any crate of the
//!   workspace (a module that imports one that imports it back, directly
//!   or through others);
//! - shakmaty is named only in `src/games/chess/`;
//! - no function outside tests is longer than 100 lines.
//!
//! Read from the text, as a reviewer would: `crate::name` paths (and
//! `use crate::{a, b}` groups) outside comments and test items are the
//! imports. Whole files are read, each `#[cfg(test)]` item left out
//! wherever it stands; the files of test modules are skipped. Test-only
//! module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates' source folders, relative to the workspace root.
const CRATES: &[&str] = &["src", "protocols/src", "rules/src", "sim/src", "cli/src"];

/// The longest function allowed outside tests, in lines.
const MAX_FN_LINES: usize = 100;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path as the workspace names it.
fn relative(path: &Path) -> String {
    let root = workspace();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The crate's source files under `dir`, without its test modules' files.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut all = Vec::new();
    every_rust_file(dir, &mut all);
    let tests = test_module_files(&all);
    out.extend(all.into_iter().filter(|f| {
        !tests
            .iter()
            .any(|t| *f == t.with_extension("rs") || f.starts_with(t))
    }));
}

fn every_rust_file(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            every_rust_file(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file, line by line, with string and character literals
/// blanked, `//` comments cut (doc links are not imports, a brace in a
/// string is not a block) and each `#[cfg(test)]` item blanked wherever it
/// stands: the attribute and the item it stands on (a `mod tests;` line, a
/// `mod tests { ... }` block, a test function). Lines keep their numbers.
fn code_of(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("source file");
    let code: Vec<String> = text
        .lines()
        .map(|l| {
            let code = strip_strings(l);
            match code.find("//") {
                Some(i) => code[..i].to_string(),
                None => code,
            }
        })
        .collect();
    without_test_items(&code.join("\n"))
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// The code with each `#[cfg(test)]` item blanked (its characters, not its
/// line breaks): from the attribute through the `;` that ends an item
/// without a body, or through the brace that closes its body.
fn without_test_items(code: &str) -> String {
    const TEST: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find(TEST) {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        let after = TEST.len();
        let semi = item[after..].find(';').map(|j| j + after);
        let brace = item[after..].find('{').map(|j| j + after);
        let end = match (semi, brace) {
            (Some(s), b) if b.is_none_or(|b| s < b) => s + 1,
            (_, Some(b)) => {
                let mut depth = 0usize;
                let mut end = item.len();
                for (j, c) in item[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + j + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => item.len(),
        };
        out.extend(item[..end].chars().map(|c| if c == '\n' { c } else { ' ' }));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The files of a crate's test modules (`#[cfg(test)] mod x;` declared in
/// `dir/mod.rs` or `dir.rs` is `dir/x.rs` or `dir/x/`): test code, skipped.
fn test_module_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).expect("source file");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dir = if ["mod.rs", "lib.rs", "main.rs"].contains(&name) {
            f.parent().expect("a folder").to_path_buf()
        } else {
            f.with_extension("")
        };
        let mut rest = text.as_str();
        while let Some(i) = rest.find("#[cfg(test)]") {
            rest = &rest[i + "#[cfg(test)]".len()..];
            let words: Vec<&str> = rest.split_whitespace().take(3).collect();
            let at = usize::from(words.first().is_some_and(|w| w.starts_with("pub")));
            if words.get(at) == Some(&"mod")
                && let Some(m) = words.get(at + 1).and_then(|w| w.strip_suffix(';'))
            {
                out.push(dir.join(m));
            }
        }
    }
    out
}

/// A line with the contents of its string and character literals blanked.
fn strip_strings(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let (mut i, mut in_str) = (0, false);
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            match c {
                '\\' => {
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                '"' => {
                    in_str = false;
                    out.push('"');
                }
                _ => out.push(' '),
            }
        } else if c == '"' {
            in_str = true;
            out.push('"');
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{7b}'), not a lifetime.
            let close = if chars.get(i + 1) == Some(&'\\') {
                (i + 3..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(j) => {
                    out.push_str(&" ".repeat(j - i + 1));
                    i = j + 1;
                    continue;
                }
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// The top-level modules a source file's code names through `crate::`.
fn imports(code: &[String]) -> BTreeSet<String> {
    let text = code.join("\n");
    let mut out = BTreeSet::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name = item.trim().split("::").next().unwrap_or("").trim();
                if !name.is_empty() {
                    out.insert(name.to_string());
                }
            }
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The top-level module a file belongs to (`src/board/mod.rs` → `board`).
fn top_module(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).expect("under its crate");
    let first = rel.components().next().expect("a file").as_os_str();
    let first = first.to_string_lossy();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// Strongly connected groups of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn strong(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.strong(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    group.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.out.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.strong(v);
        }
    }
    walk.out
}

/// Every `fn` of the code with its length in lines (braces counted).
fn functions(code: &[String]) -> Vec<(usize, String, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let Some(name) = fn_name(&code[i]) else {
            i += 1;
            continue;
        };
        let (mut depth, mut started, mut j) = (0i64, false, i);
        while j < code.len() {
            let line = &code[j];
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            started |= line.contains('{');
            if (started && depth <= 0) || (!started && line.trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        if started {
            out.push((j - i + 1, name, i + 1));
        }
        i = j.max(i) + 1;
    }
    out
}

/// The name of the function a line declares, if it declares one.
fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let qualifiers = ["pub", "const", "async", "unsafe", "extern"];
    let before_ok = words[..at]
        .iter()
        .all(|w| qualifiers.contains(w) || w.starts_with("pub(") || w.starts_with("\"C\""));
    if !before_ok {
        return None;
    }
    let name: String = words
        .get(at + 1)?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[test]
fn no_top_level_module_imports_one_that_imports_it_back() {
    let mut found = Vec::new();
    for krate in CRATES {
        let root = workspace().join(krate);
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        let modules: BTreeSet<String> = files
            .iter()
            .map(|f| top_module(&root, f))
            .filter(|m| m != "lib" && m != "main")
            .collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for f in &files {
            let from = top_module(&root, f);
            if from == "lib" || from == "main" {
                continue;
            }
            let to = imports(&code_of(f));
            let entry = edges.entry(from.clone()).or_default();
            entry.extend(to.into_iter().filter(|m| *m != from && modules.contains(m)));
        }
        for group in cycles(&edges) {
            found.push(format!("{krate}: {}", group.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

#[test]
fn shakmaty_is_named_only_in_the_chess_folder() {
    let root = workspace().join("src");
    let chess = root.join("games").join("chess");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let outside: Vec<_> = files
        .iter()
        .filter(|f| !f.starts_with(&chess))
        .filter(|f| code_of(f).iter().any(|l| l.contains("shakmaty")))
        .map(|f| relative(f))
        .collect();
    assert!(
        outside.is_empty(),
        "shakmaty outside src/games/chess: {outside:#?}"
    );
}

#[test]
fn no_function_outside_tests_is_longer_than_the_limit() {
    let mut long = Vec::new();
    for krate in CRATES {
        let mut files = Vec::new();
        rust_files(&workspace().join(krate), &mut files);
        for f in files {
            for (lines, name, at) in functions(&code_of(&f)) {
                if lines > MAX_FN_LINES {
                    long.push(format!("{}:{at} {name}: {lines} lines", relative(&f)));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines: {long:#?}"
    );
}

#[test]
fn the_checks_find_what_they_look_for() {
    // A cycle of three and a module outside it.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        edges.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
    // Imports: paths, groups, not strings, not another crate's `crate::`.
    let code: Vec<String> = [
        "use crate::track::Cell;",
        "use crate::{event, games::Game};",
        "let s = \"crate::web\";",
        "let x = mycrate::port::X;",
    ]
    .iter()
    .map(|l| strip_strings(l))
    .collect();
    let found: Vec<String> = imports(&code).into_iter().collect();
    assert_eq!(found, ["event", "games", "track"]);
    // Function lengths, braces in strings and characters ignored.
    let code: Vec<String> = [
        "pub fn a<'a>(x: &'a str) {",
        "    let s = (\"{\", '{', '\\'');",
        "}",
        "fn b();",
        "fn c() {}",
    ]
    .iter()
    .map(|l| strip_strings(l))
    .collect();
    let fns = functions(&code);
    assert_eq!(fns.len(), 2, "{fns:?}");
    assert_eq!((fns[0].0, fns[0].1.as_str()), (3, "a"));
    assert_eq!((fns[1].0, fns[1].1.as_str()), (1, "c"));
    // Test items left out wherever they stand, the rest kept, lines kept.
    let code = [
        "#[cfg(test)]",
        "mod tests;",
        "fn a() {}",
        "#[cfg(test)] mod inline { fn t() { } }",
        "#[cfg(test)]",
        "fn helper() {",
        "}",
        "fn b() {}",
    ]
    .join("\n");
    let kept = without_test_items(&code);
    assert_eq!(kept.lines().count(), 8);
    let names: Vec<String> = functions(&kept.lines().map(str::to_string).collect::<Vec<_>>())
        .into_iter()
        .map(|f| f.1)
        .collect();
    assert_eq!(names, ["a", "b"]);
}
