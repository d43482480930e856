//! Names the commit the binary is built from, for `boardcast --version`:
//! `BOARDCAST_COMMIT` when set (a package built outside git), else
//! `git rev-parse --short HEAD`, else "unknown" (a source tarball).

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=BOARDCAST_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    let commit = std::env::var("BOARDCAST_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=10", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=BOARDCAST_COMMIT={commit}");
    // Built again when HEAD moves: HEAD itself (a checkout), the branch it
    // names (a commit) and the packed refs. In a worktree HEAD is in its
    // own git folder and the branches in the common one.
    if let (Some(dir), Some(common)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        let (dir, common) = (PathBuf::from(dir), PathBuf::from(common));
        let mut watched = vec![dir.join("HEAD"), common.join("packed-refs")];
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(common.join(branch));
        }
        // A path that does not exist would rerun this script every build.
        for path in watched.iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
